"""Topic policy shared by the measures, :func:`Experiment` and the run-file readers.

Policy (as ``trec_eval -c`` and ``gdeval.pl -c``):

* the topics of the qrels define the topic set;
* a system or baseline with no result for one of those topics scores 0 there (the default value of
  every ``ir_measures`` measure), and a :class:`TopicPolicyWarning` gives the count;
* results for topics that are not in the qrels are ignored, also with a warning giving the count.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import pandas as pd
    from ir_measures import Measure


class TopicPolicyWarning(UserWarning):
    """A run or baseline misses qrels topics (scored 0) or has topics outside the qrels (ignored)."""


def warn_missing(count: int, total: int, who: str) -> None:
    """Warn that ``who`` has no result for ``count`` of the ``total`` qrels topics."""
    if count:
        warnings.warn(
            f"{who} has no results for {count} of the {total} qrels topics; "
            "they score 0 there (trec_eval -c policy)",
            TopicPolicyWarning,
            stacklevel=3,
        )


def warn_extra(count: int, who: str) -> None:
    """Warn that ``who`` has results for ``count`` topics absent from the qrels (ignored)."""
    if count:
        warnings.warn(
            f"{who} has results for {count} topic(s) that are not in the qrels; they are ignored",
            TopicPolicyWarning,
            stacklevel=3,
        )


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
    """
    import ir_measures
    import pandas as pd

    topics = qrels_topics(qrels["query_id"])
    topic_set = set(topics)
    run_topics = set(run["query_id"].astype(str)) if len(run) else set()
    values = dict.fromkeys(topics, 0.0)
    if len(run):
        for metric in ir_measures.iter_calc([measure], qrels, run):
            if str(metric.query_id) in topic_set:
                values[str(metric.query_id)] = float(metric.value)
    warn_missing(len(topic_set - run_topics), len(topics), who)
    warn_extra(len(run_topics - topic_set), who)
    return pd.Series(values, dtype=float, name=str(measure))


def topic_matrix(
    runs: dict[str, pd.DataFrame], qrels: pd.DataFrame, measure: Measure, qids: Sequence[str] | None = None
) -> pd.DataFrame:
    """Systems × topics matrix of ``measure`` over PyTerrier frames, under the topic policy, without warnings.

    For callers that report the policy themselves (the ``eval`` command prints notes).

    Args:
        runs: result frames (``qid``, ``docno``, ``score``) by system name.
        qrels: qrels frame (``qid``, ``docno``, ``label``).
        measure: the ``ir_measures`` measure.
        qids: column order (default: the qrels topics in first-seen order); a topic absent from the
            qrels scores 0.

    Returns:
        A float DataFrame, one row per run (in ``runs`` order), one column per topic.
    """
    import pandas as pd

    qrels_m = qrels.rename(columns={"qid": "query_id", "docno": "doc_id", "label": "relevance"})
    qrels_m = qrels_m.assign(query_id=qrels_m["query_id"].astype(str))
    columns = qrels_topics(qrels_m["query_id"]) if qids is None else [str(q) for q in qids]
    rows = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", TopicPolicyWarning)
        for name, res in runs.items():
            run = res[["qid", "docno", "score"]].rename(columns={"qid": "query_id", "docno": "doc_id"})
            run = run.assign(query_id=run["query_id"].astype(str), doc_id=run["doc_id"].astype(str))
            rows[name] = topic_scores(measure, qrels_m, run, name).reindex(columns, fill_value=0.0)
    return pd.DataFrame(rows).T.reindex(list(runs))


def qrels_topics(qids: Iterable[object]) -> list[str]:
    """The topic set (as strings, in first-seen order) of a qrels ``qid`` column."""
    return list(dict.fromkeys(str(q) for q in qids))
