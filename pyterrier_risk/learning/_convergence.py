r"""How fast boosting converges, per α (Wang, Bennett and Collins-Thompson, SIGIR 2012, §5.8).

The 2012 paper reports that risk-sensitive LambdaMART (U-CRO) needs fewer boosting rounds to reach a
given validation effectiveness as α grows: on their Location data α = 5 reached 95% of its final
effectiveness in 10.2 rounds against 41.5 at α = 0. :func:`rounds_to_reach` reads that number from the
validation curve a :class:`~pyterrier_risk.RiskLambdaMART` records when ``fit`` gets a validation set
(``evals_result_``, NDCG@cutoff after each round).
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

__all__ = ["rounds_to_reach", "validation_curve"]

DEFAULT_FRACTION = 0.95


def validation_curve(model: Any) -> np.ndarray:
    """The validation values after each boosting round, as a float array.

    Args:
        model: a fitted :class:`~pyterrier_risk.RiskLambdaMART` that was given a validation set (its
            ``evals_result_``, first metric, cut at ``best_iteration_``: the trees it scores with),
            a LightGBM ``record_evaluation`` dict (``{'valid': {'ndcg@10': [...]}}``), or the values.

    Raises:
        ValueError: the model recorded no validation curve, or the curve is empty or has NaN or
            infinite values.
        TypeError: something else.
    """
    cut = None
    if hasattr(model, "evals_result_"):
        if model.evals_result_ is None:
            raise ValueError(
                "the model has no validation curve: fit it with a validation set "
                "(fit(train, qrels, valid, valid_qrels))"
            )
        cut, model = model.best_iteration_, model.evals_result_
    if isinstance(model, Mapping):
        while isinstance(model, Mapping):
            if not model:
                raise ValueError("the evaluation record is empty")
            model = next(iter(model.values()))
    elif isinstance(model, (str, bytes)) or not hasattr(model, "__len__"):
        raise TypeError(
            f"expected a fitted RiskLambdaMART, an evaluation record or values, got {type(model).__name__}"
        )
    try:
        curve = np.asarray(model, dtype=np.float64)
    except (TypeError, ValueError):
        raise TypeError("the validation curve must be numbers") from None
    curve = curve[:cut] if cut else curve
    if curve.ndim != 1 or not len(curve):
        raise ValueError("the validation curve must be a non-empty 1-d sequence of values")
    if not np.isfinite(curve).all():
        raise ValueError("the validation curve has NaN or infinite values")
    return curve


def rounds_to_reach(
    curves: Any, *, fraction: float | None = None, value: float | None = None
) -> float | pd.Series:
    r"""The boosting rounds a model needed to reach a validation effectiveness (Wang et al. 2012, §5.8).

    For a validation curve :math:`v_1, \dots, v_T` (the value after round ``t``),

    .. math::

        R = \min\{t : v_t \ge \theta\}, \qquad \theta = f \cdot v_T \ \text{(``fraction``)} \quad
        \text{or} \quad \theta = \text{``value``},

    i.e. the first round at which the model reaches ``fraction`` of its final effectiveness (the
    paper's "95% of final effectiveness", the default) or a given effectiveness (the paper's "NDCG@10
    of 0.42" on MSLR).

    Args:
        curves: one curve (see :func:`validation_curve`: a fitted ``RiskLambdaMART``, its
            ``evals_result_`` or the values), or a mapping ``{label: curve}``, e.g. ``{alpha: model}``.
        fraction: the share ``0 < f <= 1`` of the final value to reach (default 0.95).
        value: the value to reach instead (give one of ``fraction`` and ``value``).

    Returns:
        The round (1-based, as a float; NaN when the curve never reaches ``value``), or for a
        mapping a float Series indexed by its labels, named ``rounds``.

    Raises:
        ValueError: both ``fraction`` and ``value``, a fraction outside (0, 1], a non-finite value,
            a fraction of a curve whose final value is negative, an empty mapping, or
            :func:`validation_curve`'s errors (named with the label).

    Example:
        >>> rounds_to_reach([0.30, 0.40, 0.48, 0.50])  # 95% of 0.50 is 0.475
        3.0
        >>> rounds_to_reach({0: [0.1, 0.2, 0.3], 5: [0.25, 0.3, 0.3]}, value=0.25).tolist()
        [3.0, 1.0]
    """
    if fraction is not None and value is not None:
        raise ValueError("give either fraction (of the final value) or value, not both")
    if value is None:
        fraction = DEFAULT_FRACTION if fraction is None else fraction
        if isinstance(fraction, bool) or not isinstance(fraction, numbers.Real) or not 0 < fraction <= 1:
            raise ValueError(f"fraction must be a number in (0, 1], got {fraction!r}")
    elif isinstance(value, bool) or not isinstance(value, numbers.Real) or not math.isfinite(value):
        raise ValueError(f"value must be a finite number, got {value!r}")

    def one(curve: np.ndarray) -> float:
        if value is None and curve[-1] < 0:  # f · v_T would lie above v_T: the curve "never reaches" its end
            raise ValueError(
                f"a fraction of a negative final value ({curve[-1]:g}) is no target; give value="
            )
        target = curve[-1] * fraction if value is None else value
        reached = np.flatnonzero(curve >= target - 1e-12 * abs(target))
        return float(reached[0] + 1) if len(reached) else math.nan

    if isinstance(curves, Mapping) and not _is_record(curves):
        if not curves:
            raise ValueError("no curves given: the mapping is empty")
        out = {}
        for label, curve in curves.items():
            try:
                out[label] = one(validation_curve(curve))
            except ValueError as e:
                raise ValueError(f"curve {label!r}: {e}") from None
        return pd.Series(out, dtype=np.float64, name="rounds")
    return one(validation_curve(curves))


def _is_record(mapping: Mapping) -> bool:
    """A LightGBM evaluation record ``{name: {metric: [values]}}``, not a mapping of labelled curves."""
    first = next(iter(mapping.values()), None)
    return isinstance(first, Mapping) and not isinstance(next(iter(first.values()), None), Mapping)
