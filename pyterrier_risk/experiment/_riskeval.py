"""Risk measures evaluated on systems × topics matrices: the part of ``Experiment`` the CLI shares.

:func:`pyterrier_risk.Experiment` gets the per-topic values of each base measure from
``pt.Experiment``; the ``pyterrier-risk eval`` command gets them from run files or from evaluation
files (``trec_eval -q``, gdeval). From the systems × topics matrices on, both go through this
module: the baselines are resolved and checked (:func:`check_risk_measures`), each risk measure is
computed by the numeric core (:func:`evaluate_risk`), and :func:`tables_from_matrices` assembles what
:mod:`._render` turns into the averages and per-query tables.

TRisk's p-value is Student's t (``RiskTest('t')``, Dinçer et al. 2014) or a paired sign-flip
randomization test (``RiskTest('randomization')``, :func:`pyterrier_risk.core.randomization_test`
with the studentised statistic: the randomization version of TRisk).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

import numpy as np

from ..core import DEFAULT_NULL, MAX_RESAMPLES, NULLS, check_int
from ..measures import AGGREGATE_BASELINES, RiskMeasure, baseline_topic_scores
from ._render import RiskResult, Tables

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["RISK_TESTS", "TOPIC_SDS", "Baseline", "RiskTest", "check_risk_measures", "evaluate_risk",
           "named_measure", "resolve_system_index", "tables_from_matrices"]

#: the tests of TRisk's p-value
RISK_TESTS = ("t", "randomization")
#: the standard deviation conventions of TRisk, T_R and T_J (``trisk(sd=...)``)
TOPIC_SDS = ("sample", "population")


@dataclass(frozen=True)
class RiskTest:
    """How TRisk's p-value is computed, and whether per-topic p-values are added.

    Attributes:
        test: ``'t'`` (Student's t with c − 1 degrees of freedom, Dinçer et al. 2014) or
            ``'randomization'`` (paired sign flips, :func:`pyterrier_risk.core.randomization_test`
            with ``statistic='trisk'``).
        n_resamples: random sign assignments of the randomization test (all ``2**c`` when that is
            not more).
        seed: seed of the randomization test (every system uses the same flips).
        null: the randomization test's null hypothesis: ``'symmetric'`` (TRisk's own H0, URisk = 0:
            the risk-weighted differences are flipped) or ``'exchangeable'`` (system and baseline
            exchangeable: the raw differences are flipped, then weighted); None or left out:
            :data:`pyterrier_risk.core._significance.DEFAULT_NULL`, the one default of every
            randomization test.
        topic_p_values: also give each topic's ``T_R`` and ``T_J`` p-value (rmit-ir/trisk's
            ``--per-topic`` mode, :func:`pyterrier_risk.core.topic_p_values`: Student's t with
            c − 1 degrees of freedom, of this package's ``T_R``/``T_J``) as per-query rows.
        topic_correction: with ``topic_p_values``, also correct them for multiple testing across
            the topics of each system (a :func:`pyterrier_risk.core.adjust_p_values` method), as
            ``"... p-value corrected"`` rows; None: no such rows.
        topic_sd: the standard deviation :math:`s_x` of TRisk, ``T_R``, ``T_J`` and their p-values
            alike: ``'sample'`` (divides by c − 1) or ``'population'`` (divides by c, as
            rmit-ir/trisk; :func:`pyterrier_risk.core.trisk`'s ``sd``).
    """

    test: str = "t"
    n_resamples: int = 10000
    seed: int = 0
    null: Literal["symmetric", "exchangeable"] | None = None
    topic_p_values: bool = False
    topic_correction: str | None = None
    topic_sd: Literal["sample", "population"] = "sample"

    def __post_init__(self) -> None:
        if self.test not in RISK_TESTS:
            raise ValueError(f"unknown risk test {self.test!r}: use 't' (Student's t, TRisk) or "
                             "'randomization'")
        if self.null is None:
            object.__setattr__(self, "null", DEFAULT_NULL)  # frozen: set once, here
        if self.null not in NULLS:
            raise ValueError(f"unknown randomization null {self.null!r}: use one of {', '.join(NULLS)}")
        n = self.n_resamples
        if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 1:
            raise ValueError(f"the number of resamples must be a positive integer, got {n!r}")
        check_int(n, "the number of resamples", maximum=MAX_RESAMPLES)  # before anything is evaluated
        if isinstance(self.seed, bool) or not isinstance(self.seed, (int, np.integer)) or self.seed < 0:
            raise ValueError(f"the seed must be an integer >= 0, got {self.seed!r}")
        if self.topic_sd not in TOPIC_SDS:
            raise ValueError(f"unknown topic_sd {self.topic_sd!r} (Experiment's risk_sd, the CLI's --sd): "
                             "use 'sample' or 'population' (divide by c - 1, this package's T_R, or by c, "
                             "rmit-ir/trisk's)")

    def describe(self) -> str:
        """The test as a table caption names it."""
        if self.test == "t":
            return "TRisk's t-test of URisk = 0"
        tested = "URisk = 0" if self.null == "symmetric" else "system and baseline exchangeable"
        return (f"randomization test of {tested} (TRisk statistic, {self.null} null, "
                f"{self.n_resamples} sign flips, seed {self.seed})")


def _is_int(value: Any) -> bool:
    return isinstance(value, (int, np.integer)) and not isinstance(value, bool)


def resolve_system_index(ref: Any, names: list[Any], what: str) -> int:
    """The index of a listed system given by name or index.

    A string is a name (compared with ``str`` of each name). An int is a name when the systems are
    named by ints and one of them is that int (``{2013: run, 2014: run}``, baseline ``2014``), else
    a position. An int that names one system and is the position of another is refused as ambiguous,
    with the two ways to say which.

    Args:
        ref: the name or index.
        names: the systems' names as given (ints stay ints).
        what: how to name ``ref`` in messages.

    Raises:
        TypeError: ``ref`` is neither a name nor an int.
        ValueError: an unknown name, an index out of range, or an ambiguous int.
    """
    if isinstance(ref, bool) or not isinstance(ref, (int, np.integer, str)):
        raise TypeError(f"{what} must be a system name or index, got {ref!r}")
    if isinstance(ref, str):
        text = [str(n) for n in names]
        if ref not in text:
            raise ValueError(f"unknown {what} {ref!r}: the listed systems are {text}")
        return text.index(ref)
    named = [i for i, n in enumerate(names) if _is_int(n) and n == ref]
    in_range = 0 <= int(ref) < len(names)
    if named and in_range and named[0] != int(ref):
        raise ValueError(f"{what} {int(ref)} is ambiguous: it names system {names[named[0]]!r} and is the "
                         f"position of system {names[int(ref)]!r}; give the name as a string "
                         f"({str(names[named[0]])!r} or {str(names[int(ref)])!r})")
    if named:
        return named[0]
    if not in_range:
        raise ValueError(f"{what} index {ref} out of range: there are {len(names)} systems")
    return int(ref)


def unique(items: list[Any]) -> list[Any]:
    """The items without repeats, in first-seen order (items need not be hashable)."""
    out: list[Any] = []
    for item in items:
        if item not in out:
            out.append(item)
    return out


@dataclass(frozen=True)
class Baseline:
    """What a URisk/TRisk measure is compared with: one of a listed system, an aggregate, a run.

    Attributes:
        row: index of the listed system that is the baseline.
        aggregate: ``'mean'``, ``'median'`` or ``'max'`` over ``pool``.
        pool: names of the systems an aggregate is taken over.
        run: an external run (a DataFrame or a TREC run file path).
    """

    row: int | None = None
    aggregate: Literal["mean", "median", "max"] | None = None
    pool: tuple[str, ...] = ()
    run: Any = None


def _resolve_baseline(m: RiskMeasure, names: list[str], default: int | None) -> Baseline:
    """The baseline of a URisk/TRisk measure, checked before anything is run."""
    ref = m.baseline
    if ref is None:
        if default is None:
            raise ValueError(f"{m!r} needs a baseline: give baseline= in the measure or in Experiment()")
        return Baseline(row=default)
    if isinstance(ref, (int, np.integer)) and not isinstance(ref, bool):
        return Baseline(row=resolve_system_index(ref, names, f"baseline of {m!r}"))
    if isinstance(ref, str) and ref in [str(n) for n in names]:
        return Baseline(row=resolve_system_index(ref, names, f"baseline of {m!r}"))
    if isinstance(ref, str) and ref in AGGREGATE_BASELINES:
        pool = m.params.get("pool")
        who = f"pool of {m!r}"
        rows = range(len(names)) if pool is None else [resolve_system_index(p, names, who) for p in pool]
        aggregate = next(a for a in AGGREGATE_BASELINES if a == ref)  # the Literal of the same name
        return Baseline(aggregate=aggregate, pool=tuple(unique([names[i] for i in rows])))
    if isinstance(ref, str) and not os.path.isfile(ref):
        raise ValueError(
            f"unknown baseline {ref!r} of {m!r}: not a listed system ({names}), "
            f"not one of {AGGREGATE_BASELINES}, and not an existing run file"
        )
    return Baseline(run=ref)


def named_measure(m: RiskMeasure, names: list[str], row: int | None) -> RiskMeasure:
    """The risk measure as its column is named: with the baseline it is computed against.

    A URisk/TRisk without its own ``baseline`` takes the default one (``Experiment(baseline=...)``,
    ``eval --baseline``); its name then says which, ``URisk(nDCG@10,alpha=5,baseline='BM25')``, so
    that a table or a saved CSV tells what was computed. The one naming rule of Python and the CLI.

    Args:
        m: the measure as asked for.
        names: the listed systems.
        row: the index of the default baseline among ``names`` (None: none).
    """
    if not m.USES_BASELINE or m.baseline is not None or row is None:
        return m
    return m(baseline=names[row])


def check_risk_measures(
    risk: list[RiskMeasure], names: list[str], default: int | None, n_topics: int
) -> dict[RiskMeasure, Baseline]:
    """Every risk measure's baseline, and the sizes it needs, checked before anything is run.

    Args:
        risk: the risk measures.
        names: the listed systems.
        default: index of the default baseline (None: none).
        n_topics: the number of topics.

    Returns:
        The baseline of each URisk/TRisk measure (ZRisk and GeoRisk have none).

    Raises:
        ValueError: an unknown baseline or pool member, no baseline, fewer than two systems for
            ZRisk/GeoRisk, fewer than two topics for TRisk.
    """
    baselines = {}
    for m in risk:
        if not m.USES_BASELINE:
            if len(names) < 2:
                raise ValueError(f"{m!r} needs at least two systems (every listed system is a baseline)")
            continue
        baselines[m] = _resolve_baseline(m, names, default)
        if m.NAME == "TRisk" and n_topics < 2:
            raise ValueError(f"{m!r} needs at least two topics (it estimates a standard error)")
    return baselines


def _baseline_scores(
    m: RiskMeasure, ref: Baseline, matrix: pd.DataFrame, qrels_irm: pd.DataFrame | None, topic_list: list[str]
) -> pd.Series:
    """Per-topic baseline scores of a URisk/TRisk measure."""
    from ..core import baseline_scores

    if ref.row is not None:
        return matrix.iloc[ref.row]
    if ref.aggregate is not None:
        return baseline_scores(matrix.loc[list(ref.pool)], ref.aggregate).reindex(topic_list)
    if qrels_irm is None:
        raise ValueError(f"{m!r}: an external baseline run needs qrels; name one of the systems instead")
    who = f"baseline run {m._param_repr(ref.run)}"
    return baseline_topic_scores(m.base, ref.run, qrels_irm, who).reindex(topic_list)


def evaluate_risk(
    m: RiskMeasure, matrix: pd.DataFrame, ref: Baseline | None, qrels_irm: pd.DataFrame | None,
    test: RiskTest = RiskTest(),  # noqa: B008 - frozen, immutable default
) -> RiskResult:
    """Aggregate value(s) and per-topic components of one risk measure for every system.

    Args:
        m: the risk measure.
        matrix: systems × topics values of its base measure.
        ref: its baseline (None for ZRisk and GeoRisk, where every system is a baseline).
        qrels_irm: the qrels in ir_measures' column names (for an external baseline run), or None.
        test: how TRisk's p-value is computed.

    Returns:
        A :class:`RiskResult`.
    """
    import pandas as pd

    from ..core import georisk, risk_weighted_differences, urisk, z_scores, zrisk

    names, topic_list = list(matrix.index), list(matrix.columns)
    if ref is not None and ref.row is not None:
        m = named_measure(m, [str(n) for n in names], ref.row)
    if ref is None:  # ZRisk, GeoRisk: every listed system is a baseline
        func = zrisk if m.NAME == "ZRisk" else georisk
        return RiskResult(m, func(matrix, m.alpha).reindex(names), None, {f"{m!r} z": z_scores(matrix)})
    b = _baseline_scores(m, ref, matrix, qrels_irm, topic_list)
    if m.NAME == "BreakEven":
        return _evaluate_break_even(m, matrix, b)
    x = risk_weighted_differences(matrix.to_numpy(dtype=float), b.to_numpy(dtype=float)[None, :], m.alpha)
    x = pd.DataFrame(x, index=names, columns=topic_list)
    if m.NAME == "URisk":
        values = pd.Series({n: urisk(matrix.loc[n], b, m.alpha) for n in names}, dtype=float)
        return RiskResult(m, values, None, {repr(m): x})
    return _evaluate_trisk(m, matrix, b, ref.row, x, test)


def _evaluate_trisk(
    m: RiskMeasure, matrix: pd.DataFrame, b: pd.Series, base_row: int | None, x: pd.DataFrame, test: RiskTest
) -> RiskResult:
    """TRisk, its p-value and the per-topic x, T_R and T_J (and their p-values) of every system."""
    import pandas as pd

    from ..core import adjust_p_values, randomization_test, topic_p_values, trisk

    names, topic_list = list(matrix.index), list(matrix.columns)
    vals, pvals = {}, {}
    parts = ["T_R", "T_J"]
    if test.topic_p_values:
        parts += ["T_R p-value", "T_J p-value"]
        parts += ["T_R p-value corrected", "T_J p-value corrected"] if test.topic_correction else []
    per_topic = {part: pd.DataFrame(np.nan, index=names, columns=topic_list) for part in parts}
    for i, n in enumerate(names):
        if i == base_row:  # a system against itself: no risk, no test
            vals[n] = pvals[n] = np.nan
            continue
        res = trisk(matrix.loc[n], b, m.alpha, se=m.params.get("se", "parametric"), sd=test.topic_sd)
        vals[n], pvals[n] = res.trisk, res.p_value
        if test.test == "randomization":
            pvals[n] = randomization_test(matrix.loc[n].to_numpy(dtype=float), b.to_numpy(dtype=float),
                                          alpha=m.alpha, n_resamples=test.n_resamples, seed=test.seed,
                                          statistic="trisk", null=test.null or DEFAULT_NULL).p_value
        per_topic["T_R"].loc[n] = _in_topic_order(res.t_r, topic_list)
        per_topic["T_J"].loc[n] = _in_topic_order(res.t_j, topic_list)
        if test.topic_p_values:
            for which in ("t_r", "t_j"):
                p = _in_topic_order(topic_p_values(res, which=which), topic_list)
                per_topic[f"{which.upper()} p-value"].loc[n] = p
                if test.topic_correction:
                    per_topic[f"{which.upper()} p-value corrected"].loc[n] = adjust_p_values(
                        p, test.topic_correction)
    components = {f"{m!r} x": x, **{f"{m!r} {part}": frame for part, frame in per_topic.items()}}
    return RiskResult(m, pd.Series(vals, dtype=float), pd.Series(pvals, dtype=float), components)


def _evaluate_break_even(m: RiskMeasure, matrix: pd.DataFrame, b: pd.Series) -> RiskResult:
    """Break-even α (Gain / Risk, :func:`pyterrier_risk.break_even_alpha`) per system; no per-topic rows."""
    import pandas as pd

    from ..core import break_even_alpha

    values = pd.Series({n: break_even_alpha(matrix.loc[n], b) for n in matrix.index}, dtype=float)
    return RiskResult(m, values, None, {})


def _in_topic_order(values: Any, topic_list: list[str]) -> np.ndarray:
    """Per-topic values as an array in ``topic_list`` order (Series are aligned by label)."""
    if hasattr(values, "reindex"):
        return values.reindex(topic_list).to_numpy(dtype=float)
    return np.asarray(values, dtype=float)


def tables_from_matrices(
    matrices: dict[str, pd.DataFrame], ordinary: list[str], risk: list[RiskMeasure],
    default_baseline: int | None, test: RiskTest = RiskTest(),  # noqa: B008 - frozen, immutable default
    qrels_irm: pd.DataFrame | None = None,
) -> Tables:  # fmt: skip
    """The tables of the listed systems from one systems × topics matrix per base measure.

    Args:
        matrices: ``repr`` of each measure (the ordinary ones and the risk measures' bases) -> its
            systems × topics matrix; all matrices have the same systems and topics, in one order.
        ordinary: the ordinary measures' names (keys of ``matrices``), in column order.
        risk: the risk measures.
        default_baseline: index of the default URisk/TRisk baseline (None: none).
        test: how TRisk's p-value is computed.
        qrels_irm: qrels in ir_measures' column names, for external baseline runs (None: refused).

    Returns:
        :class:`Tables` for :func:`._render.render`.

    Raises:
        ValueError: as :func:`check_risk_measures`.
    """
    first = next(iter(matrices.values()))
    names, topic_list = [str(n) for n in first.index], [str(q) for q in first.columns]
    baselines = check_risk_measures(risk, names, default_baseline, len(topic_list))
    values = {name: matrices[name].to_numpy(dtype=float) for name in ordinary}
    per_query = {i: {q: {name: float(values[name][i, j]) for name in ordinary}
                     for j, q in enumerate(topic_list)} for i in range(len(names))}
    results = [evaluate_risk(m, matrices[repr(m.base)], baselines.get(m), qrels_irm, test) for m in risk]
    return Tables(names, per_query, list(ordinary), topic_list, results)
