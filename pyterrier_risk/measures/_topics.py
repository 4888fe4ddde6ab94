"""Per-topic values of an ``ir_measures`` measure under the package's topic policy.

The policy itself (which topics count, what is warned) is :mod:`pyterrier_risk.core._topics`.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from typing import TYPE_CHECKING

from ..core._topics import TopicPolicyWarning, qrels_topics, warn_extra, warn_missing

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
