"""The extension point of the LambdaMART objectives: an :class:`Objective` declares a weight rule.

LambdaMART's gradient for a document pair is RankNet's logistic derivative times ``|ΔM|``, the
change of NDCG when the pair swaps. A risk-sensitive objective replaces ``|ΔM|`` by ``|ΔM′|``. This
module holds what every objective shares; the pair arithmetic (LightGBM's lambdarank, exactly) lives
in the learning layer's kernels and knows no objective by name. An objective says, once per boosting
round, how ``|ΔM|`` is weighted:

* per query, in plain numpy: :meth:`Objective.weights` returns one multiplier per query
  (``|ΔM′| = w_q·|ΔM|``): LambdaMART (all 1), T-FARO, T*-FARO, GeoRisk's default;
* per pair, for experts: it returns :class:`PairWeights`, a numba function of one pair and the
  round's state (U-CRO's cases of Wang et al.'s Theorem 1, GeoRisk's ``|ΔGeoRisk|``).

A new objective subclasses :class:`Objective`, sets ``name``, ``label``, ``baseline`` and its
:class:`Option` s, implements ``weights`` and is registered with :func:`register_objective`; it is
then known by name to ``objective()``, ``RiskLambdaMART`` (save and load included) and the CLI.
See ``docs/custom_objective.md``.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from ...core import check_alpha

__all__ = ["ALPHA_MAX", "OBJECTIVE_BASELINES", "Objective", "Option", "PairWeights", "Round"]

# what an objective compares the model with: nothing, one ranking, or several (a systems × queries matrix)
OBJECTIVE_BASELINES = ("none", "single", "multiple")
# The largest α an objective accepts. A loss weighs up to (1 + α) times a win, and a document's float32
# gradient (24-bit mantissa) cannot hold a win's λ beside a loss's beyond 2^24 ≈ 1.7e7: above ~1e7
# the wins vanish from the sums anyway, and from ~1e35 the weighted λs overflow float32 (a constant
# model). 1e6 keeps every gradient finite in float32 (tests/test_objective_options.py).
ALPHA_MAX = 1e6


@dataclass(frozen=True)
class Option:
    """One option of an objective: the single source of its default, check, description and storage.

    Args:
        name: the keyword (``objective(kind, name=...)``, ``RiskLambdaMART(objective_params={...})``).
        default: the value when the option is not given (stored and shown only when it differs).
        desc: one line for the docs and errors.
        choices: the accepted values, if the option is a choice among strings.
        check: a function returning the checked value or raising ``TypeError``/``ValueError`` (used
            when ``choices`` is None); the value must be JSON-storable for ``RiskLambdaMART.save``.
            Without ``check`` (and ``choices``), a value must have its default's type: a bool for a
            bool, an int for an int, an int or a float for a float (given as a float), a str for a str;
            a default of None accepts anything.
    """

    name: str
    default: Any
    desc: str
    choices: tuple[Any, ...] | None = None
    check: Callable[[Any], Any] | None = None

    def parse(self, value: Any) -> Any:
        """``value`` checked (a one-line ``ValueError``/``TypeError`` naming the option otherwise)."""
        if self.choices is not None:
            if not isinstance(value, str) or value not in self.choices:
                accepted = ", ".join(map(repr, self.choices))
                raise ValueError(f"{self.name} must be one of {accepted}, got {value!r}")
            return value
        return _same_type(self, value) if self.check is None else self.check(value)


def _same_type(option: Option, value: Any) -> Any:
    """``value`` if it has the type of ``option``'s default (an int is taken for a float), else TypeError."""
    default = option.default
    if default is None:
        return value
    boolean = isinstance(value, (bool, np.bool_))
    if isinstance(default, (bool, np.bool_)):
        ok, kind = boolean, "a bool"
    elif isinstance(default, (int, np.integer)):
        ok, kind = isinstance(value, (int, np.integer)) and not boolean, "an int"
    elif isinstance(default, (float, np.floating)):
        ok, kind = isinstance(value, (int, float, np.integer, np.floating)) and not boolean, "a number"
    elif isinstance(default, (tuple, list)):  # a saved model's JSON gives a list back for a tuple
        ok, kind = isinstance(value, (tuple, list)), "a sequence"
    else:
        ok, kind = isinstance(value, type(default)), f"a {type(default).__name__}"
    if not ok:
        raise TypeError(f"{option.name} must be {kind} like its default {default!r}, got {value!r}")
    if boolean:
        return bool(value)
    if isinstance(default, (float, np.floating)):
        return float(value)
    if isinstance(default, (tuple, list)):
        return type(default)(value)
    return int(value) if isinstance(default, (int, np.integer)) else value


@dataclass(frozen=True)
class Round:
    """What an objective's weight rule sees at the start of a boosting round (read-only arrays).

    Attributes:
        index: the round, 0 for the first tree.
        model: per-query NDCG@cutoff of the model's current ranking.
        baseline: the objective's baseline NDCG (:meth:`Objective.baseline_ndcg`): None, one value
            per query, or a systems × queries matrix.
        active: per-query mask of the queries that can have a gradient (≥ 2 distinct labels and a
            positive max DCG@cutoff); risk statistics should use only these.
        alpha: the risk sensitivity α.
    """

    index: int
    model: np.ndarray
    baseline: np.ndarray | None
    active: np.ndarray
    alpha: float

    def __post_init__(self) -> None:
        # read-only views: a rule writing into them would change every later round (the driver keeps them)
        for field in ("model", "baseline", "active"):
            value = getattr(self, field)
            if isinstance(value, np.ndarray) and value.flags.writeable:
                view = value.view()
                view.setflags(write=False)
                object.__setattr__(self, field, view)


@dataclass(frozen=True)
class PairWeights:
    """A per-pair weight rule (for experts): a numba function and the round's state it reads.

    ``rule(q, dm, improving, state) -> |ΔM′|`` is an ``@numba.njit`` function of the query index
    ``q``, the pair's ``|ΔM|`` (LightGBM's ΔNDCG, ≥ 0), ``improving`` (True when the swap raises the
    NDCG) and ``state``, a tuple of numpy arrays (one value per query) and floats. It must return a
    finite number ≥ 0 and read the arrays only at ``q``. The pair loop is compiled once per rule and
    cached on disk, keyed by the rule's source.

    ``batched=True`` (GeoRisk's series) declares ``rule(q, dm_signed, out, m, state)`` instead,
    which writes ``|ΔM′|`` of the query's first ``m`` pairs (``dm_signed``: ``+|ΔM|`` improving,
    ``−|ΔM|`` degrading) into ``out``.
    """

    rule: Any
    state: tuple[Any, ...]
    batched: bool = False


class Objective:
    r"""Base class of a (risk-sensitive) LambdaMART objective: a weight rule on LightGBM's ``|ΔM|``.

    Subclasses set the class attributes and implement :meth:`weights`; options are given as keyword
    arguments, checked by their :class:`Option` s and stored as attributes of the same name.

    Attributes:
        name: the registry key (``objective(name)``, ``RiskLambdaMART(objective=name)``).
        label: the name in tables and plots (``'U-CRO'``).
        baseline: ``'none'``, ``'single'`` (one baseline ranking) or ``'multiple'`` (several).
        citation: where the rule comes from (shown in reports beside the label).
        options: the objective's own options.
        reports: the names of the attributes :meth:`weights` sets for the user to read after a round
            (T-FARO's ``('alpha_prime_', 's_x_')``); ``RiskObjective`` forwards them
            (``obj.alpha_prime_``).
        alpha: the checked risk sensitivity α (0 ≤ α ≤ :data:`ALPHA_MAX`).
    """

    name: ClassVar[str] = ""
    label: ClassVar[str] = ""
    baseline: ClassVar[str] = "none"
    citation: ClassVar[str] = ""
    options: ClassVar[tuple[Option, ...]] = ()
    reports: ClassVar[tuple[str, ...]] = ()

    def __init__(self, *, alpha: float = 0.0, **options: Any) -> None:
        self.alpha = check_objective_alpha(alpha)
        known = {o.name: o for o in self.options}
        unknown = sorted(set(options) - set(known))
        if unknown:
            raise TypeError(
                f"unknown option {unknown[0]!r} of objective {self.name!r}; accepted: {sorted(known)}"
            )
        for opt in self.options:
            setattr(self, opt.name, opt.parse(options.get(opt.name, opt.default)))
        self.check()
        self.reset()

    def check(self) -> None:
        """Rules between options (after each was checked); raise ``ValueError`` to refuse a combination."""

    def reset(self) -> None:
        """Forget the state of a training run (called before the first round of every run)."""

    def settings(self) -> dict[str, Any]:
        """The options that differ from their defaults (what ``repr`` shows and ``save`` stores)."""
        return {o.name: getattr(self, o.name) for o in self.options if getattr(self, o.name) != o.default}

    def baseline_ndcg(self, per_system: np.ndarray) -> np.ndarray:
        """The baseline NDCG the rule reads, from the systems × queries NDCG of the given baselines.

        Default: the one row of a ``'single'`` objective; the matrix of a ``'multiple'`` one.
        """
        return per_system[0] if self.baseline == "single" else per_system

    @property
    def native_norm(self) -> bool:
        """Whether LightGBM's normalisation ``log2(1 + S)/S`` sums the unweighted λs at α > 0.

        True (the default): a pair weight w is a w-fold gradient; False: ``S`` sums the weighted λs.
        An objective with the shared ``risk_norm`` option (``RISK_NORM``) reads it from there.
        """
        return getattr(self, "risk_norm", "native") == "native"

    @classmethod
    def trained_against(cls, scores: str) -> str:
        """How a report names what the objective is trained against, given its baselines' ``scores``.

        ``scores`` are words such as ``"BM25's score"`` or ``"the 7 systems' scores"``; the default
        returns them as they are (T*-FARO: ``"the per-topic mean of ..."``).
        """
        return scores

    def weights(self, r: Round) -> np.ndarray | PairWeights:
        """The round's weight rule: one multiplier per query (``|ΔM′| = w_q·|ΔM|``) or :class:`PairWeights`.

        A multiplier must be finite and ≥ 0 for every query; 1 everywhere is plain LambdaMART.
        """
        raise NotImplementedError(f"objective {self.name!r} does not define weights()")

    def diagnostics(self, r: Round) -> dict[str, float]:
        """The round's extra numbers for ``RiskObjective.history_``, default: queries below a 1-d baseline."""
        if r.baseline is None or r.baseline.ndim != 1:
            return {}
        return {"below": float(np.count_nonzero(r.model[r.active] < r.baseline[r.active]))}

    def overflow_hint(self) -> str | None:
        """A fix to suggest when this objective's gradients overflow float32 (None: the generic one)."""
        return None

    def __repr__(self) -> str:
        shown = ", ".join(f"{k}={v!r}" for k, v in self.settings().items())
        return f"{type(self).__name__}(alpha={self.alpha:g}{', ' + shown if shown else ''})"


def check_objective_alpha(alpha: Any) -> float:
    """α checked as a risk sensitivity (``core.check_alpha``) and at most :data:`ALPHA_MAX`."""
    checked = check_alpha(alpha)
    if checked > ALPHA_MAX:
        raise ValueError(
            f"alpha must be at most {ALPHA_MAX:g} for a LambdaMART objective, got {alpha!r}: beyond, float32 "
            f"gradients cannot hold a win beside a loss weighted 1 + alpha, and they overflow from ~1e35"
        )
    return checked


def is_number(value: Any) -> bool:
    """A real, finite number that is not a bool (strings such as ``'2'`` are not numbers here)."""
    real = isinstance(value, (int, float, np.integer, np.floating)) and not isinstance(
        value, (bool, np.bool_)
    )
    return real and math.isfinite(value)
