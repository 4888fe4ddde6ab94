"""Topic policy shared by the measures, :func:`Experiment` and the run-file readers.

Policy (as ``trec_eval -c`` and ``gdeval.pl -c``):

* the topics of the qrels define the topic set;
* a system or baseline with no result for one of those topics scores 0 there (the default value of
  every ``ir_measures`` measure), and a :class:`TopicPolicyWarning` gives the count;
* results for topics that are not in the qrels are ignored, also with a warning giving the count.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterable


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


def qrels_topics(qids: Iterable[object]) -> list[str]:
    """The topic set (as strings, in first-seen order) of a qrels ``qid`` column."""
    return list(dict.fromkeys(str(q) for q in qids))
