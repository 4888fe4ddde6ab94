"""The topic policy: which topics a comparison of systems is computed over, and what is warned.

This is the one place that decides it; :func:`pyterrier_risk.Experiment`, the ``pyterrier-risk``
command, the run readers and the evaluation-file readers call :func:`topic_set` (or
:func:`apply_topic_policy` for per-topic values) instead of deciding themselves.

Two modes (:data:`TOPIC_MODES`):

``"qrels"`` (the default; ``trec_eval -c`` and ``gdeval.pl -c``)
    The topics of the qrels define the topic set. A system or baseline with no result for one of
    them scores 0 there (the default value of every ``ir_measures`` measure), and a
    :class:`TopicPolicyWarning` gives the count.

``"intersection"`` (``gdeval.pl`` and ``trec_eval`` without ``-c``)
    Only the qrels topics for which *every* compared system has results count: for one run this
    is exactly gdeval's average over the topics the run has. With a baseline, the baseline is one
    of the compared systems, so a topic counts only when the run, the baseline and the qrels all
    have it; this differs from ``gdeval.pl -baseline`` without ``-c``, which keeps a topic the
    baseline lacks and scores the baseline 0 there. With several systems the set is the one all
    of them share (ZRisk, GeoRisk and paired tests need one systems × topics matrix), so a
    system's mean can differ from its own gdeval mean when the systems answer different topics.
    A :class:`TopicPolicyWarning` gives how many qrels topics are left out and who lacks them.

In both modes, results for topics that are not in the qrels are ignored with a warning giving the
count (or, with ``on_extra="error"``, are an error: the qrels are probably the wrong ones).
"""

from __future__ import annotations

import warnings
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import pandas as pd

__all__ = [
    "TOPIC_MODES",
    "TopicPolicyWarning",
    "apply_topic_policy",
    "check_topic_mode",
    "qrels_topics",
    "topic_set",
    "warn_extra",
    "warn_missing",
]

TOPIC_MODES: tuple[str, ...] = ("qrels", "intersection")
"""The topic modes: ``"qrels"`` (``-c``, the default) and ``"intersection"`` (without ``-c``)."""

_ON_EXTRA = ("warn", "error")
_SHOWN = 5


class TopicPolicyWarning(UserWarning):
    """A run or baseline misses qrels topics (scored 0 or left out) or has topics outside the qrels."""


def check_topic_mode(mode: str) -> str:
    """Return ``mode`` if it is one of :data:`TOPIC_MODES`, else raise.

    Raises:
        ValueError: an unknown mode; the message lists the known ones.
    """
    if not isinstance(mode, str) or mode not in TOPIC_MODES:
        raise ValueError(
            f"unknown topic mode {mode!r}: use 'qrels' (the qrels topics; missing results score 0, "
            "as trec_eval -c) or 'intersection' (only topics every system has, as gdeval without -c)"
        )
    return mode


def warn_missing(count: int, total: int, who: str, stacklevel: int = 3) -> None:
    """Warn that ``who`` has no result for ``count`` of the ``total`` qrels topics (scored 0)."""
    if count:
        warnings.warn(
            f"{who} has no results for {count} of the {total} qrels topics; "
            "they score 0 there (trec_eval -c policy)",
            TopicPolicyWarning,
            stacklevel=stacklevel,
        )


def warn_extra(count: int, who: str, stacklevel: int = 3) -> None:
    """Warn that ``who`` has results for ``count`` topics absent from the qrels (ignored)."""
    if count:
        warnings.warn(
            f"{who} has results for {count} topic(s) that are not in the qrels; they are ignored",
            TopicPolicyWarning,
            stacklevel=stacklevel,
        )


def qrels_topics(qids: Iterable[object]) -> list[str]:
    """The topic set (as strings, in first-seen order) of a qrels ``qid`` column."""
    return list(dict.fromkeys(str(q) for q in qids))


def _shown(labels: Sequence[str]) -> str:
    text = ", ".join(repr(q) for q in labels[:_SHOWN])
    return text + (", ..." if len(labels) > _SHOWN else "")


def topic_set(
    qrels_topics: Iterable[object],
    run_topics_by_system: Mapping[str, Iterable[object]],
    mode: str = "qrels",
    *,
    on_extra: str = "warn",
    stacklevel: int = 1,
) -> list[str]:
    """The topics a comparison is computed over, with the policy's warnings (see the module docstring).

    Args:
        qrels_topics: the topics of the qrels (any iterable of ids; compared as strings).
        run_topics_by_system: for each compared system (baselines included), the topics it has
            results for. The keys name the systems in the warnings, e.g. ``"system 'BM25'"`` or
            ``"run 'bm25.run'"``.
        mode: ``"qrels"`` or ``"intersection"`` (:data:`TOPIC_MODES`).
        on_extra: results for topics absent from the qrels are ignored with a warning (``"warn"``)
            or are an error (``"error"``).
        stacklevel: the frame the warnings point at, counted as in ``warnings.warn`` from the
            caller of this function (1: the line calling it; 2: that function's caller, ...).

    Returns:
        The topic ids (str), in the order of ``qrels_topics``. In ``"qrels"`` mode a system lacking
        one of them is expected to score 0 there (:func:`apply_topic_policy` does it).

    Raises:
        ValueError: no qrels topics, an unknown ``mode`` or ``on_extra``, topics absent from the
            qrels with ``on_extra="error"``, or (intersection) no topic that every system has.

    Warns:
        TopicPolicyWarning: per system, the count of topics outside the qrels; in ``"qrels"`` mode
        the count of qrels topics it lacks; in ``"intersection"`` mode one warning with the count
        of qrels topics left out and who lacks them.

    Example:
        >>> topic_set(["1", "2", "3"], {"a": ["1", "2", "3"], "b": ["1", "3"]}, "intersection")
        ['1', '3']
    """
    check_topic_mode(mode)
    if on_extra not in _ON_EXTRA:
        raise ValueError(f"on_extra must be one of {_ON_EXTRA}, got {on_extra!r}")
    universe = list(dict.fromkeys(str(q) for q in qrels_topics))
    if not universe:
        raise ValueError("the qrels have no topics")
    wanted = set(universe)
    lacking: dict[str, int] = {}
    common = set(universe)
    for who, topics in run_topics_by_system.items():
        have = {str(q) for q in topics}
        _extra_topics(sorted(have - wanted), who, on_extra, stacklevel + 3)
        missing = len(wanted - have)
        if mode == "qrels":
            warn_missing(missing, len(universe), who, stacklevel + 2)
        elif missing:
            lacking[who] = missing
            common &= have
    if mode == "qrels":
        return universe
    return _intersection(universe, common, lacking, stacklevel + 2)


def _extra_topics(extra: list[str], who: str, on_extra: str, stacklevel: int) -> None:
    """Results for topics outside the qrels: a warning, or an error with ``on_extra="error"``."""
    if extra and on_extra == "error":
        raise ValueError(
            f"{who} has results for {len(extra)} topic(s) absent from the qrels ({_shown(extra)}); "
            "wrong qrels?"
        )
    warn_extra(len(extra), who, stacklevel)


def _intersection(
    universe: list[str], common: set[str], lacking: dict[str, int], stacklevel: int
) -> list[str]:
    """The qrels topics every system has, with one warning naming who lacks which count."""
    kept = [q for q in universe if q in common]
    who = "; ".join(f"{name} lacks {n}" for name, n in lacking.items())
    if not kept:
        raise ValueError(f"intersection mode: no qrels topic has results from every system ({who})")
    if len(kept) < len(universe):
        warnings.warn(
            f"intersection mode: {len(universe) - len(kept)} of the {len(universe)} qrels topics are "
            f"left out, as not every system has results for them ({who})",
            TopicPolicyWarning,
            stacklevel=stacklevel,
        )
    return kept


def apply_topic_policy(
    scores_by_system: Mapping[str, Mapping[str, float] | pd.Series],
    qrels_topics: Iterable[object] | None = None,
    mode: str = "qrels",
    *,
    on_extra: str = "warn",
    stacklevel: int = 1,
) -> pd.DataFrame:
    """Per-topic values of several systems as one systems × topics matrix, under the topic policy.

    Args:
        scores_by_system: for each system, its per-topic values (``{qid: value}`` or a Series
            indexed by qid) for the topics it has results for.
        qrels_topics: the qrels topics. ``None`` takes the union of the systems' topics in
            first-seen order: right for per-topic output of ``trec_eval -q`` and ``gdeval.pl``,
            which print only topics of their qrels, but a topic that no system has is then unknown.
        mode: ``"qrels"`` (a missing value is 0) or ``"intersection"`` (:func:`topic_set`).
        on_extra: as in :func:`topic_set`.
        stacklevel: as in :func:`topic_set`.

    Returns:
        A float DataFrame: one row per system (index named ``name``, in the mapping's order), one
        column per topic of :func:`topic_set` (named ``qid``).

    Raises:
        ValueError: as :func:`topic_set`, or no systems.

    Warns:
        TopicPolicyWarning: as :func:`topic_set`; systems are named ``system '<name>'``.
    """
    import pandas as pd

    if not scores_by_system:
        raise ValueError("no systems given")
    series = {name: pd.Series(values, dtype=float) for name, values in scores_by_system.items()}
    for s in series.values():
        s.index = s.index.map(str)
    if qrels_topics is None:
        qrels_topics = dict.fromkeys(q for s in series.values() for q in s.index)
    by_who = {f"system {name!r}": s.index for name, s in series.items()}
    topics = topic_set(qrels_topics, by_who, mode, on_extra=on_extra, stacklevel=stacklevel + 1)
    rows = [s.reindex(topics, fill_value=0.0).to_numpy() for s in series.values()]
    index, columns = pd.Index(list(series), name="name"), pd.Index(topics, name="qid")
    return pd.DataFrame(rows, index=index, columns=columns).astype(float)
