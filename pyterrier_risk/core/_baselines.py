"""Unbiased per-topic baselines (Dinçer, Ounis and Macdonald, ECIR 2014).

A single system as the baseline biases a comparative risk evaluation towards its own variants.
The ECIR 2014 paper instead derives a virtual baseline from all ``r`` systems under evaluation,
topic by topic: MEAN (the within-topic mean ``UBS_q``, eq. 2 there, ``Mean_q`` in the 2016 paper's eq. 3),
MEDIAN and MAX (the state of the art per topic: risk against MAX is a "loss in SOTA"). URisk or
TRisk computed against such a baseline is written T*Risk in the 2016 paper.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from typing import Any, Literal, overload

import numpy as np
import pandas as pd

from ._validate import as_matrix

__all__ = ["BASELINE_AGGREGATES", "baseline_scores"]

# the per-topic aggregates a virtual baseline is made of (not the learner's OBJECTIVE_BASELINES)
BASELINE_AGGREGATES: tuple[Literal["mean", "median", "max"], ...] = ("mean", "median", "max")


def __getattr__(name: str) -> Any:
    if name == "BASELINE_KINDS":  # its name until 0.2: it also named the objectives' kinds of baseline
        warnings.warn("pyterrier_risk.core.BASELINE_KINDS is deprecated; use BASELINE_AGGREGATES",
                      DeprecationWarning, stacklevel=3)  # fmt: skip
        return BASELINE_AGGREGATES
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


@overload
def baseline_scores(
    matrix: np.ndarray | Sequence[Any], kind: Literal["mean", "median", "max"] = "mean"
) -> np.ndarray: ...


@overload
def baseline_scores(matrix: pd.DataFrame, kind: Literal["mean", "median", "max"] = "mean") -> pd.Series: ...


def baseline_scores(
    matrix: Any, kind: Literal["mean", "median", "max"] = "mean"
) -> np.ndarray | pd.Series:
    r"""The per-topic MEAN, MEDIAN or MAX over a set of systems (Dinçer et al., ECIR 2014).

    For topic ``q`` and systems ``i = 1..r`` with scores :math:`s_i(q)`:

    * ``'mean'``: :math:`\frac1r\sum_{i=1}^r s_i(q)`;
    * ``'median'``: the median of :math:`s_1(q), \dots, s_r(q)` (the mean of the two middle values
      when ``r`` is even);
    * ``'max'``: :math:`\max_i s_i(q)`.

    Every row takes part with equal weight, including the system later evaluated against the
    baseline (as in the paper, where the baseline is built from all runs of the evaluation);
    leave a row out of ``matrix`` to exclude it.

    Args:
        matrix: systems × topics scores: a 2-D array, or a ``DataFrame`` with systems as index
            and topics as columns.
        kind: ``'mean'``, ``'median'`` or ``'max'``.

    Returns:
        One score per topic: an array, or a Series indexed by topic (named after ``kind``) for
        a DataFrame.

    Raises:
        ValueError: an unknown ``kind``, an empty matrix, or NaN/infinite/negative scores.

    Example:
        >>> baseline_scores([[0.25, 0.5], [0.75, 0.0], [0.5, 0.25]], "max")
        array([0.75, 0.5 ])
    """
    if kind not in BASELINE_AGGREGATES:
        raise ValueError(f"unknown baseline kind {kind!r}; expected one of {BASELINE_AGGREGATES}")
    values, _, topics = as_matrix(matrix, min_systems=1, min_topics=1)
    if kind == "mean":
        result = values.mean(axis=0)
    elif kind == "median":
        result = np.median(values, axis=0)
    else:
        result = values.max(axis=0)
    if topics is None:
        return result
    return pd.Series(result, index=topics, name=kind)
