"""Per-topic values of an ``ir_measures`` measure under the package's topic policy.

The policy itself (which topics count, what is warned) is :mod:`pyterrier_risk.core._topics`.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from ..core import check_run_frame, qrels_topics, warn_extra, warn_missing

if TYPE_CHECKING:
    import pandas as pd
    from ir_measures import Measure


def topic_scores(measure: Measure, qrels: pd.DataFrame, run: pd.DataFrame, who: str) -> pd.Series:
    """Per-topic values of one ``ir_measures`` measure for one run, under the topic policy.

    Args:
        measure: the ``ir_measures`` measure.
        qrels: qrels with ir_measures column names (``query_id``, ``doc_id``, ``relevance``).
        run: run with ir_measures column names (``query_id``, ``doc_id``, ``score``).
        who: how to name the run in warnings.

    Returns:
        A float Series indexed by the qrels topics (str, first-seen order); a topic without results
        scores 0 (with a :class:`TopicPolicyWarning` giving the count), topics absent from the
        qrels are ignored (also with a warning).

    Raises:
        ValueError: the run policy (:func:`pyterrier_risk.core.check_run_frame`): a NaN score or a
            (topic, document) pair listed twice.
    """
    import ir_measures
    import pandas as pd

    check_run_frame(run, who)
    topics = qrels_topics(qrels["query_id"])
    topic_set = set(topics)
    run_topics = set(run["query_id"].astype(str)) if len(run) else set()
    values = dict.fromkeys(topics, 0.0)
    if len(run):
        depth = top_depth([measure])
        if depth is not None:  # gdeval.pl reads only the top of each topic: spare it the rest
            run = top_rows(run, depth, "query_id")
        # {qid: {docno: value}} spares ir_measures a named tuple per row (a repeated pair: the frames)
        qrels_in, qrels_unique = _nested(qrels["query_id"], qrels["doc_id"], qrels["relevance"])
        run_in, run_unique = _nested(run["query_id"], run["doc_id"], run["score"])
        both = (qrels_in, run_in) if qrels_unique and run_unique else (qrels, run)
        for metric in ir_measures.iter_calc([measure], *both):
            if str(metric.query_id) in topic_set:
                values[str(metric.query_id)] = float(metric.value)
    warn_missing(len(topic_set - run_topics), len(topics), who)
    warn_extra(len(run_topics - topic_set), who)
    return pd.Series(values, dtype=float, name=str(measure))


def topic_matrix(
    runs: dict[str, pd.DataFrame], qrels: pd.DataFrame, measure: Measure, qids: Sequence[str] | None = None
) -> pd.DataFrame:
    """Systems × topics matrix of ``measure`` over PyTerrier frames, under the topic policy, without warnings.

    For callers that report the policy themselves (the ``eval`` command prints notes). With several
    measures, :func:`topic_matrices` evaluates each run once for all of them.

    Args:
        runs: result frames (``qid``, ``docno``, ``score``) by system name.
        qrels: qrels frame (``qid``, ``docno``, ``label``).
        measure: the ``ir_measures`` measure.
        qids: column order (default: the qrels topics in first-seen order); a topic absent from the
            qrels scores 0.

    Returns:
        A float DataFrame, one row per run (in ``runs`` order), one column per topic.
    """
    return topic_matrices(runs, qrels, [measure], qids)[measure]


def topic_matrices(
    runs: Mapping[str, pd.DataFrame],
    qrels: pd.DataFrame,
    measures: Sequence[Measure],
    qids: Sequence[str] | None = None,
    *,
    progress: bool = False,
) -> dict[Measure, pd.DataFrame]:
    """Systems × topics matrix of every measure, each run evaluated once for all the measures.

    The values are those of ``ir_measures.iter_calc`` on each run (the same evaluators), under the
    topic policy of :func:`topic_matrix`, without warnings. One ``ir_measures.evaluator`` is built
    for the qrels and all the measures (two when some are gdeval.pl's: those get only the top of each
    topic, :func:`top_rows`); each run is handed to it as ``{qid: {docno: score}}``, built topic block
    by topic block (ir_measures' own conversion of a DataFrame makes a named tuple per row). A topic
    with no result gets the measure's ``DEFAULT`` from ir_measures (0 for all of its measures), a
    topic absent from the qrels 0, and results for topics outside ``qids``/the qrels
    are not evaluated. A run is held to the run policy of :func:`read_run`
    (:func:`pyterrier_risk.core.check_run_frame`: no NaN score, no (qid, docno) pair twice).

    Args:
        runs: result frames (``qid``, ``docno``, ``score``) by system name.
        qrels: qrels frame (``qid``, ``docno``, ``label``).
        measures: the ``ir_measures`` measures (a repeated one is evaluated once).
        qids: column order (default: the qrels topics in first-seen order).
        progress: show a progress bar over the runs on an interactive stderr.

    Returns:
        ``{measure: matrix}``: for each measure a float DataFrame, one row per run (in ``runs``
        order), one column per topic.

    Raises:
        ValueError: a run breaks the run policy (named by its key in ``runs``).
        ValueError, TypeError, KeyError: from ir_measures (an unsupported measure, say);
        ``subprocess.CalledProcessError`` when ``gdeval.pl`` fails. Which measure failed is not
        said: evaluate them one at a time (:func:`topic_matrix`) to name it.
    """
    import ir_measures
    import numpy as np
    import pandas as pd

    measures = list(dict.fromkeys(measures))
    qrels_in, unique = _nested(qrels["qid"], qrels["docno"], qrels["label"])
    columns = list(qrels_in) if qids is None else [str(q) for q in qids]
    topics = list(dict.fromkeys(columns))
    position = {q: j for j, q in enumerate(topics)}
    wanted = {q for q in topics if q in qrels_in}
    values = {m: np.zeros((len(runs), len(topics))) for m in measures}
    if runs and wanted:
        qrels_arg = qrels_in if unique else _irm_qrels(qrels)
        evaluators = [(ir_measures.evaluator(group, qrels_arg), group, depth)
                      for group, depth in _by_depth(measures)]
        for name in runs:  # every run checked before any is evaluated
            check_run_frame(runs[name], f"run {name!r}")
        for i, frame in enumerate(_progress(runs.values(), progress)):
            for evaluator, group, depth in evaluators:
                part = frame if depth is None else top_rows(frame, depth)
                for m, qid, value in _evaluate_run(evaluator, group, part, wanted):
                    values[m][i, position[qid]] = value
    frames = {m: pd.DataFrame(values[m], index=list(runs), columns=topics) for m in measures}
    return frames if topics == columns else {m: f.reindex(columns=columns) for m, f in frames.items()}


def _evaluate_run(
    evaluator: Any, measures: list[Measure], frame: pd.DataFrame, wanted: set[str]
) -> Iterator[tuple[Measure, str, float]]:
    """``(measure, qid, value)`` of one run (checked: no pair twice) for the ``wanted`` topics."""
    if not len(frame):
        return
    run, _ = _nested(frame["qid"], frame["docno"], frame["score"], wanted)
    if not len(run):  # results only for other topics: every wanted topic has no result
        for m in measures:
            for qid in wanted:
                yield m, qid, float(m.DEFAULT)
        return
    for metric in evaluator.iter_calc(run):
        qid = str(metric.query_id)
        if qid in wanted and metric.measure in measures:
            yield metric.measure, qid, float(metric.value)


def top_depth(measures: Sequence[Measure]) -> int | None:
    """How deep a run must go for ``measures`` if all are gdeval.pl's, else ``None`` (the whole run).

    gdeval.pl (``ERR@k``, ``ERR_gdeval@k``, ``nDCG(dcg='exp-log2')@k``: ``ir_measures.gdeval``'s) reads
    only the first ``k`` documents of each topic, ranked by score (ties by docno). ir_measures writes
    the whole run to a file for it, and gdeval.pl sorts all of it, seconds per run of 50,000 lines;
    :func:`top_rows` keeps what it reads.

    Args:
        measures: ``ir_measures`` measures.

    Returns:
        The largest cutoff, or ``None`` when a measure is not gdeval.pl's or has no whole cutoff >= 1.
    """
    import ir_measures

    from ._gdeval import _ERRGdeval

    cutoffs = []
    for m in measures:
        stock = m.stock(None) if isinstance(m, _ERRGdeval) else m  # ERR_gdeval@k is ERR@k
        cutoff = stock.params.get("cutoff") if ir_measures.gdeval.supports(stock) else None
        if not isinstance(cutoff, int) or isinstance(cutoff, bool) or cutoff < 1:
            return None
        cutoffs.append(cutoff)
    return max(cutoffs) if cutoffs else None


def top_rows(frame: pd.DataFrame, depth: int, qid: str = "qid") -> pd.DataFrame:
    """The rows of each topic whose score is at least the topic's ``depth``-th highest, in frame order.

    Ties at the boundary are all kept, so any ranking by score (whatever breaks the ties) has the
    same first ``depth`` documents in the kept rows as in the whole frame. Topics are told apart by
    the ``qid`` column's values as they are (a finer split than the evaluators' text ids, which only
    keeps more rows).

    Args:
        frame: a result frame (``qid`` or ``query_id``, ``score``; checked by the run policy).
        depth: how many documents of each topic are read (>= 1).
        qid: the topic column.

    Returns:
        ``frame`` itself when nothing would go, else the kept rows.
    """
    from pandas.api.types import is_numeric_dtype

    if not len(frame) or not is_numeric_dtype(frame["score"]):
        return frame
    # rank 'min' descending = 1 + the number of strictly higher scores in the topic
    higher = frame.groupby(qid, sort=False, dropna=False)["score"].rank(method="min", ascending=False)
    keep = (higher <= depth).to_numpy()
    return frame if keep.all() else frame[keep]


def _by_depth(measures: list[Measure]) -> list[tuple[list[Measure], int | None]]:
    """The measures in up to two groups: gdeval.pl's with the depth it reads, the others (``None``)."""
    top = [m for m in measures if top_depth([m]) is not None]
    rest = [m for m in measures if m not in top]
    groups: list[tuple[list[Measure], int | None]] = [(rest, None)] if rest else []
    return groups + [(top, top_depth(top))] if top else groups


def _as_str(values: pd.Series) -> list[Any]:
    """The column as a list of ``str`` (converted only when some value is not one already)."""
    from pandas.api.types import infer_dtype

    if infer_dtype(values, skipna=False) != "string":
        values = values.astype(str)
    return values.tolist()


def _nested(
    qids: pd.Series, docs: pd.Series, values: pd.Series, wanted: set[str] | None = None
) -> tuple[dict[str, dict[str, Any]], bool]:
    """``{qid: {docno: value}}`` (ids as str) of the ``wanted`` topics, and whether no pair repeats.

    Built topic block by topic block (runs and qrels list a topic's lines together), one
    ``dict.update`` per block; a topic split over several blocks is merged.
    """
    import numpy as np

    q = np.asarray(_as_str(qids), dtype=object)
    if len(q) == 0:
        return {}, True
    starts = np.flatnonzero(q[1:] != q[:-1]) + 1
    bounds = [0, *starts.tolist(), len(q)]
    doc_list, value_list = _as_str(docs), values.tolist()
    out: dict[str, dict[str, Any]] = {}
    unique = True
    for begin, end in zip(bounds[:-1], bounds[1:], strict=True):
        qid = q[begin]
        if wanted is not None and qid not in wanted:
            continue
        topic = out.setdefault(qid, {})
        before = len(topic)
        topic.update(zip(doc_list[begin:end], value_list[begin:end], strict=True))
        unique = unique and len(topic) - before == end - begin
    return out, unique


def _irm_qrels(qrels: pd.DataFrame) -> pd.DataFrame:
    """The qrels frame with ir_measures' column names (str topic and document ids)."""
    frame = qrels.rename(columns={"qid": "query_id", "docno": "doc_id", "label": "relevance"})
    return frame.assign(query_id=frame["query_id"].astype(str), doc_id=frame["doc_id"].astype(str))


def _progress(items: Iterable[Any], show: bool) -> Iterable[Any]:
    """``items`` with a progress bar on an interactive stderr when ``show``."""
    if not show:
        return items
    import sys

    from tqdm import tqdm

    return tqdm(items, desc="evaluating", disable=None, leave=False, file=sys.stderr)
