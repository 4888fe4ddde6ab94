"""Checks that run before any evaluator sees a measure or a qrels: what would crash the process, refused.

ir_measures' ``validate_params`` checks parameter types and choices, not ranges, and the C and Perl
evaluators behind it do not check their input either: ``nDCG@0`` aborts the whole process inside
pytrec_eval (an assertion in C), a qrels topic whose labels are all below -1 makes pytrec_eval read out
of bounds (a segmentation fault), and gdeval.pl dies on a non-numeric topic id. Python cannot catch
any of that, so :func:`pyterrier_risk.Experiment` and the ``pyterrier-risk eval`` command call
:func:`check_evaluation` first and turn each problem into a one-line ``ValueError``.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Iterator, Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import pandas as pd
    from ir_measures import Measure

__all__ = [
    "GDEVAL_MAX_LABEL",
    "MAX_CUTOFF",
    "check_evaluation",
    "check_gdeval",
    "check_letor",
    "check_measure_parameters",
    "check_topic_labels",
    "evaluated_bases",
    "parameter_problems",
]

#: the largest rank cutoff accepted (trec_eval and pytrec_eval keep cutoffs in C ints)
MAX_CUTOFF = 2**31 - 1
#: gdeval.pl (ERR, nDCG with exp-log2 gains) stops at labels above this (its $MAX_JUDGMENT)
GDEVAL_MAX_LABEL = 4
#: a measure parameter (a gain, say) at least this large overflows float64 once two of it are summed
_HUGE = 2.0**1023


def _numbers(value: Any) -> Iterator[float]:
    """The numbers in a measure parameter (``gains={0: 0, 1: 1}`` included), bools left out."""
    if isinstance(value, bool):
        return
    if isinstance(value, float):
        yield value
    elif isinstance(value, int):
        try:
            yield float(value)
        except OverflowError:  # an int beyond float64
            yield math.copysign(math.inf, value)
    elif isinstance(value, dict):
        for k, v in value.items():
            yield from _numbers(k)
            yield from _numbers(v)
    elif isinstance(value, (list, tuple, set, frozenset)):
        for v in value:
            yield from _numbers(v)


def parameter_problems(measure: Measure) -> Iterator[str]:
    """What no evaluator can take in ``measure``'s parameters, nested base measures included.

    ``nDCG@0`` passes ir_measures' ``validate_params`` and then aborts the process inside
    pytrec_eval; ``Judged@0`` divides by zero, ``ERR@0`` kills gdeval.pl and
    ``P@99999999999999999999`` overflows a C int.

    Args:
        measure: an ``ir_measures`` measure (a risk measure or UE: its base is checked too).

    Yields:
        One sentence per problem, naming the measure and the parameter.
    """
    from ir_measures.measures import Measure

    if measure.NAME == "nDCG_letor4" and measure.params.get("cutoff") is None:
        yield f"{measure!r} needs a rank cutoff, as Eval-Score-4.0.pl has one (nDCG_letor4@10)"
    for key, value in measure.params.items():
        if isinstance(value, Measure):
            yield from parameter_problems(value)
            continue
        if key == "alpha":  # checked when the measure is built, by core.check_alpha, as --alpha is
            continue
        numbers = list(_numbers(value))
        if any(not math.isfinite(v) for v in numbers):
            yield f"{measure!r}: {key}={value!r} is not a finite number"
        elif any(abs(v) >= _HUGE for v in numbers):
            yield f"{measure!r}: {key}={value!r} is too large (2^1023 or more: its sums overflow float64)"
        elif key == "cutoff" and isinstance(value, int) and not 1 <= value <= MAX_CUTOFF:
            yield f"{measure!r}: the rank cutoff must be an integer from 1 to {MAX_CUTOFF}, got {value}"
        elif key == "recall" and isinstance(value, (int, float)) and not 0 <= value <= 1:
            yield f"{measure!r}: the recall level must be in [0, 1], got {value}"


def check_measure_parameters(measures: Iterable[Measure]) -> None:
    """Raise on the first measure whose parameters no evaluator can take (:func:`parameter_problems`).

    Raises:
        ValueError: ``"invalid measure <problem>"``; the problem names the (base) measure.
    """
    for measure in measures:
        problem = next(parameter_problems(measure), None)
        if problem is not None:
            raise ValueError(f"invalid measure {problem}")


def _columns(qrels: pd.DataFrame) -> tuple[str, str]:
    """The topic and label columns of PyTerrier (``qid``, ``label``) or ir_measures (``query_id``, ...)."""
    qid = "qid" if "qid" in qrels.columns else "query_id"
    label = "label" if "label" in qrels.columns else "relevance"
    return qid, label


def check_topic_labels(qrels: pd.DataFrame) -> None:
    """Refuse a qrels topic whose labels are all below -1: trec_eval (pytrec_eval) crashes on it.

    trec_eval sizes its per-topic table of relevance levels by the topic's largest label (+1); with
    only ``-2`` (the Web track's spam label) or lower that size is negative, and pytrec_eval reads
    out of bounds: a segmentation fault once another topic was evaluated before it.

    Args:
        qrels: qrels with PyTerrier (``qid``, ``label``) or ir_measures (``query_id``, ``relevance``)
            column names.

    Raises:
        ValueError: naming the first such topic and the number of them.
    """
    qid, label = _columns(qrels)
    if not len(qrels):
        return
    top = qrels.groupby(qid, sort=False)[label].max()
    low = top[top < -1]
    if len(low):
        raise ValueError(f"qrels topic {str(low.index[0])!r} has only labels below -1 (the largest is "
                         f"{int(low.iloc[0])}; {len(low)} such topic(s)): trec_eval/pytrec_eval crashes on "
                         "such a topic; judge one of its documents 0 (non-relevant) or leave the topic out")


def evaluated_bases(measures: Iterable[Measure]) -> Iterator[Measure]:
    """The measures an evaluator computes: each measure, or the base of a wrapped (risk, UE) measure."""
    for m in measures:
        base = m.params.get("base") if hasattr(m, "params") else None
        yield base if base is not None and hasattr(base, "NAME") else m


def check_gdeval(measures: Sequence[Measure], qrels: pd.DataFrame) -> None:
    """gdeval.pl (ERR, nDCG with ``dcg='exp-log2'``) takes numeric topic ids and labels <= 4 only.

    Outside that it dies with a Perl error, or merges topics whose ids are the same number
    (``07`` and ``7``); such qrels are refused first, naming the measure.

    Raises:
        ValueError: naming the measure and the topic or label.
    """
    served = [m for m in evaluated_bases(measures)
              if m.NAME in ("ERR", "ERR_gdeval") or (m.NAME == "nDCG" and m.params.get("dcg") == "exp-log2")]
    if not served or not len(qrels):
        return
    qid, label = _columns(qrels)
    who = f"{served[0]!r} is computed by gdeval.pl, which needs"
    numbered: dict[int, str] = {}
    for topic in dict.fromkeys(str(q) for q in qrels[qid]):
        if not re.fullmatch("[0-9]+", topic):
            raise ValueError(f"{who} numeric topic ids; the qrels have topic {topic!r}")
        other = numbered.setdefault(int(topic), topic)
        if other != topic:
            raise ValueError(f"{who} topic ids that are distinct numbers; the qrels have {other!r} and "
                             f"{topic!r}")
    top = int(qrels[label].max())
    if top > GDEVAL_MAX_LABEL:
        raise ValueError(f"{who} relevance labels <= {GDEVAL_MAX_LABEL}; the qrels have label {top}")


def check_letor(measures: Sequence[Measure], qrels: pd.DataFrame) -> None:
    """Eval-Score-4.0.pl's NDCG (``nDCG_letor4``) has gains for labels 0, 1 and 2 only.

    Raises:
        ValueError: naming the measure and the first label outside 0, 1, 2.
    """
    served = [m for m in evaluated_bases(measures) if m.NAME == "nDCG_letor4"]
    if not served or not len(qrels):
        return
    _, label = _columns(qrels)
    outside = sorted(set(qrels[label].tolist()) - {0, 1, 2})
    if outside:
        raise ValueError(f"{served[0]!r} is LETOR 4.0's Eval-Score-4.0.pl, which has gains for labels 0, 1 "
                         f"and 2 only; the qrels have label {outside[0]}")


def check_evaluation(measures: Sequence[Measure], qrels: pd.DataFrame | None) -> None:
    """Every check above: the measures' parameters, then (with qrels) the topic labels and gdeval's limits.

    Args:
        measures: the measures to evaluate (wrapped measures are checked through their base).
        qrels: the qrels (PyTerrier or ir_measures column names), or None to check the measures only.

    Raises:
        ValueError: the first problem, in one line.
    """
    check_measure_parameters(measures)
    if qrels is not None:
        check_topic_labels(qrels)
        check_gdeval(measures, qrels)
        check_letor(measures, qrels)
