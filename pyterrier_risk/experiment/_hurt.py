"""``hurt_topics``: which topics each system hurts against a baseline, from runs, a matrix or ``perquery``.

The per-topic numbers are :func:`pyterrier_risk.core.topic_hurt`'s; this module only turns the
inputs people have (run frames or files with qrels, a systems × topics matrix, the long
``perquery`` table of :func:`pyterrier_risk.Experiment`) into per-measure matrices, and stacks the
result of every system against the baseline.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, Literal

from ..core import HURT_COLUMNS, check_alpha, check_int, check_run_frame, topic_hurt
from ._riskeval import resolve_system_index

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["hurt_topics", "query_texts"]

_PERQUERY = ("name", "qid", "measure", "value")


def _as_measure_list(measures: Any) -> list[Any]:
    if measures is None:
        return []
    if isinstance(measures, (str, bytes)) or not isinstance(measures, Sequence):
        return [measures]
    return list(measures)


def _label(measure: Any) -> str:
    return measure if isinstance(measure, str) else str(measure)


def _from_runs(runs: Mapping[str, Any], qrels: Any, measures: list[Any]) -> dict[str, pd.DataFrame]:
    """``{measure label: systems × topics}`` of run frames or run files, under the topic policy."""
    from ..core import qrels_topics, warn_extra, warn_missing
    from ..data import read_qrels, read_run
    from ..measures import parse_measure, topic_matrices

    if qrels is None or not measures:
        raise ValueError("hurt_topics: runs need qrels= and measures= (e.g. measures=['nDCG@20'])")
    if not isinstance(qrels, (str, os.PathLike)) and not hasattr(qrels, "columns"):
        raise TypeError(f"hurt_topics: qrels must be a DataFrame or a qrels file, got {type(qrels).__name__}")
    qrels = read_qrels(qrels) if isinstance(qrels, (str, os.PathLike)) else qrels
    frames = {str(n): read_run(r) if isinstance(r, (str, os.PathLike)) else r for n, r in runs.items()}
    for name, frame in frames.items():  # the run policy of read_run, for frames (and the wrong kind)
        check_run_frame(frame, f"hurt_topics: run {name!r}")
    topics = qrels_topics(qrels["qid"])
    for name, frame in frames.items():  # the topic policy's warnings, as Experiment gives them
        have = set(frame["qid"].astype(str))
        warn_missing(len(set(topics) - have), len(topics), f"run {name!r}", stacklevel=4)
        warn_extra(len(have - set(topics)), f"run {name!r}", stacklevel=4)
    parsed = [parse_measure(m) if isinstance(m, str) else m for m in measures]
    matrices = topic_matrices(frames, qrels, parsed, topics)
    return {_label(given): matrices[m] for given, m in zip(measures, parsed, strict=True)}


def _risk_label(label: str) -> bool:
    """Whether a ``perquery`` row label is a risk measure's component (``"TRisk(...) T_R"``)."""
    import ir_measures

    from ..measures import RiskMeasure

    name = label.partition("(")[0]
    return isinstance(ir_measures.measures.registry.get(name), RiskMeasure)


def _from_perquery(frame: pd.DataFrame, measures: list[Any]) -> dict[str, pd.DataFrame]:
    """``{measure label: systems × topics}`` of ``Experiment(perquery=True)``'s long table."""
    present = list(dict.fromkeys(frame["measure"].astype(str)))
    wanted = [_label(m) for m in measures] or [m for m in present if not _risk_label(m)]
    unknown = [m for m in wanted if m not in present]
    if unknown:
        raise ValueError(f"hurt_topics: measure(s) {unknown} not in the perquery table; it has {present}")
    if not wanted:
        raise ValueError("hurt_topics: the perquery table has no ordinary measure (only risk rows)")
    risky = [m for m in wanted if _risk_label(m)]
    if risky:
        raise ValueError(f"hurt_topics: {risky[0]!r} is a risk measure's per-topic term, not an "
                         "effectiveness score; name a base measure (T_R and T_J take alpha=)")
    names = list(dict.fromkeys(frame["name"].astype(str)))
    out = {}
    for m in wanted:
        rows = frame[frame["measure"].astype(str) == m]
        wide = rows.pivot_table(index="name", columns="qid", values="value", aggfunc="first", sort=False)
        wide = wide.reindex(index=[n for n in names if n in wide.index])
        holes = wide.isna().to_numpy()
        if holes.any():  # a system without a row for a topic the others have: not a score of 0
            i, j = (int(k[0]) for k in holes.nonzero())
            raise ValueError(f"hurt_topics: the perquery table has no {m} value of system {wide.index[i]!r} "
                             f"for topic {str(wide.columns[j])!r} ({int(holes.sum())} missing in all)")
        out[m] = wide
    return out


def _matrices(systems: Any, qrels: Any, measures: list[Any]) -> dict[str, pd.DataFrame]:
    import pandas as pd

    if isinstance(systems, Mapping):
        return _from_runs(systems, qrels, measures)
    if not isinstance(systems, pd.DataFrame):
        raise TypeError("hurt_topics: systems must be a {name: run} dict, a systems × topics DataFrame or "
                        f"Experiment's perquery DataFrame, got {type(systems).__name__}")
    if set(_PERQUERY) <= set(systems.columns):
        return _from_perquery(systems, measures)
    if len(measures) > 1:
        raise ValueError("hurt_topics: a systems × topics matrix holds one measure; name at most one")
    return {_label(measures[0]) if measures else "score": systems}


def query_texts(topics: Any) -> dict[str, str]:
    """``{qid: query}`` of a topics DataFrame (``qid``, ``query``), ``{qid: text}`` or a topics file."""
    import pandas as pd

    from ..data import read_topics

    if isinstance(topics, (str, os.PathLike)):
        topics = read_topics(topics)
    if isinstance(topics, pd.DataFrame):
        if not {"qid", "query"} <= set(topics.columns):
            raise ValueError(f"topics: a DataFrame needs columns qid and query; has {list(topics.columns)}")
        return dict(zip(topics["qid"].astype(str), topics["query"].astype(str), strict=True))
    if isinstance(topics, Mapping):
        return {str(k): str(v) for k, v in topics.items()}
    kind = type(topics).__name__
    raise TypeError(f"topics must be a DataFrame, a {{qid: query}} dict or a topics file, got {kind}")


def hurt_topics(
    systems: Any,
    baseline: str | int,
    *,
    qrels: Any = None,
    measures: Any = None,
    topics: Any = None,
    alpha: float = 0.0,
    se: Literal["parametric", "jackknife"] = "parametric",
    top: int | None = None,
    sd: Literal["sample", "population"] = "sample",
) -> pd.DataFrame:
    r"""The topics each system hurts against a baseline, most-hurt first (Wang et al. 2012; Dinçer 2014).

    Answers "does my new system hurt some queries while it helps the average?": for every system but
    the baseline, and every measure, one row per topic with the columns of
    :func:`pyterrier_risk.core.topic_hurt`: the system's ``value``, the ``baseline``'s, the
    ``difference`` :math:`s_i - b_i`, the ``relative`` change :math:`(s_i - b_i)/b_i` (NaN where
    :math:`b_i = 0`), ``loss_gt20`` (:math:`s_i < 0.8\,b_i`, the 2012 paper's "Loss > 20%"), and
    :math:`T_{R_i}`, :math:`T_{J_i}` of :func:`pyterrier_risk.trisk` at ``alpha`` with their p-values
    (:func:`pyterrier_risk.topic_p_values`). Within each (system, measure) block the rows are sorted by
    ``difference``, most negative first; blocks follow the systems' order, then the measures'.

    Args:
        systems: one of

            * ``{name: run}``: result DataFrames (``qid``, ``docno``, ``score``) or TREC run files;
              needs ``qrels`` and ``measures``. Topic policy as ``Experiment``: the qrels topics, a
              topic without results scores 0 (with a :class:`~pyterrier_risk.TopicPolicyWarning`);
            * a systems × topics DataFrame (index: system names; one measure, named by ``measures``);
            * the ``perquery=True`` table of :func:`pyterrier_risk.Experiment` (``name``, ``qid``,
              ``measure``, ``value``): every ordinary measure in it, or those in ``measures``.
        baseline: the baseline system, by name or row index; it must be one of ``systems``. An int
            is a name when the systems are named by ints and one is that int, else a position; an
            int that is both (the name of one system, the position of another) is refused.
        qrels: qrels DataFrame or file (with runs).
        measures: measure(s), names or ir_measures objects (``'nDCG@20'``).
        topics: query texts: a topics DataFrame (``qid``, ``query``), ``{qid: text}`` or a topics file
            (TREC SGML, Web track XML or TSV); adds a ``query`` column ("" where unknown).
        alpha: risk-sensitivity of :math:`T_{R_i}`/:math:`T_{J_i}` (``alpha >= 0``).
        se: TRisk's standard error, ``'parametric'`` or ``'jackknife'``.
        top: keep the ``top`` most-hurt topics of each (system, measure) block (None: all).
        sd: the standard deviation of :math:`T_{R_i}`/:math:`T_{J_i}` and their p-values:
            ``'sample'`` (divisor c − 1, the default) or ``'population'`` (c, as rmit-ir/trisk);
            :func:`pyterrier_risk.trisk`'s ``sd``.

    Returns:
        A DataFrame with columns ``name`` (the system, as in ``pt.Experiment``; ``system`` up to
        version 0.2), ``measure``, ``qid``, (``query``,) then :data:`pyterrier_risk.core.HURT_COLUMNS`.

    Raises:
        ValueError: fewer than two systems, a system name listed twice, an unknown baseline, fewer
            than two topics, a system that ties the baseline on every topic, missing qrels/measures for
            runs, a ``perquery`` table without a system's value for a topic or asked for a risk
            measure's rows, a bad ``alpha``, or bad scores.
        TypeError: an input of the wrong kind.
    """
    import pandas as pd

    top = check_int(top, "top", minimum=1, allow_none=True)
    alpha = check_alpha(alpha)
    queries = query_texts(topics) if topics is not None else None
    blocks = []
    for label, matrix in _matrices(systems, qrels, _as_measure_list(measures)).items():
        names = [str(n) for n in matrix.index]
        twice = sorted({n for n in names if names.count(n) > 1})
        if twice:
            raise ValueError(f"hurt_topics: system name(s) {twice} listed twice ({label}); name each once")
        if len(names) < 2:
            raise ValueError(f"hurt_topics: at least two systems are needed (one is the baseline), "
                             f"got {names}")
        given = list(systems) if isinstance(systems, Mapping) else list(matrix.index)  # ints stay ints
        row = resolve_system_index(baseline, given, "baseline")  # an int may be a name
        for i, name in enumerate(names):
            if i == row:
                continue
            try:
                hurt = topic_hurt(matrix.iloc[i], matrix.iloc[row], alpha, se=se, sd=sd)
            except ValueError as e:
                raise ValueError(f"hurt_topics: {name} against {names[row]} ({label}): {e}") from None
            hurt = hurt.head(top) if top is not None else hurt
            blocks.append(hurt.reset_index().assign(name=name, measure=label))
    out = pd.concat(blocks, ignore_index=True)
    out["qid"] = out["qid"].astype(str)
    front = ["name", "measure", "qid"]
    if queries is not None:
        out["query"] = [queries.get(q, "") for q in out["qid"]]
        front.append("query")
    order = {n: k for k, n in enumerate(dict.fromkeys(out["name"]))}
    out = out.sort_values("name", key=lambda s: s.map(order), kind="stable").reset_index(drop=True)
    return out[[*front, *HURT_COLUMNS]]
