r"""The learner study's statistics, from its ``per_query``, ``curves`` and ``kendall`` frames.

Pure functions that compute the papers' learner tables (printing them is :mod:`pyterrier_risk.reporting`'s
:func:`~pyterrier_risk.reporting.render_learner_table`, re-exported here):

* :func:`learner_table`: Dinçer, Macdonald and Ounis (SIGIR 2016), Table 7: one row per (objective, alpha),
  NDCG@10, then Reward, Risk, Reward/Risk, Wins, Losses, W/L and Losses>20% against the single baseline,
  the same macro-averaged over the multiple baselines, and GeoRisk among them; each model paired per
  query with the reference (plain LambdaMART trained with the same seeds). The 2014 paper's Table 3
  (per α: Risk/Reward, Loss/Win, Loss, Win, Loss>20%) and the 2012 paper's Tables 1–2 (Risk, Reward,
  Wins/Losses, Loss>20% per α) are the same numbers (their ratios the reciprocals);
* :func:`convergence_table`: rounds to reach a share of the final validation NDCG (Wang et al. 2012, §5.8);
* :func:`kendall_bins_table`: the share of test queries per Kendall-distance bin (Wang et al. 2012, §5.9);
* :func:`learner_risk_gain_points` and :func:`plot_learner_risk_gain`: risk vs. gain against the single
  baseline with break-even lines (§5.6–5.7);
* :func:`learner_tables`: all three tables with the settings their captions print (:class:`LearnerTables`).

Pooling. The test queries of all folds are pooled (every query is a test query in one fold). A model and
the reference are paired by ``(fold, seed, qid)``; each statistic is computed per seed on the pooled
queries (with :func:`pyterrier_risk.core.risk_reward` and :func:`pyterrier_risk.core.georisk`) and
averaged over the seeds, and the paired tests compare each query's per-query values averaged over the
seeds. Wins, Losses and Losses>20% are therefore means over seeds (not always whole numbers).
"""

from __future__ import annotations

import math
import os
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, cast

import numpy as np
import pandas as pd

from ..core import (
    KENDALL_BINS,
    adjust_p_values,
    bin_labels,
    distance_bin,
    georisk,
    loss_gt20,
    randomization_test,
    risk_reward,
    risk_weighted_differences,
)
from ..learning import REFERENCE_OBJECTIVE, get_objective, rounds_to_reach
from ..reporting import (
    MACRO,
    MAX_WIDTH,
    NDCG,
    P_CORRECTED,
    P_VALUE,
    STATS,
    TESTED,
    LearnerTableSettings,
    render_convergence_table,
    render_kendall_table,
    render_learner_table,
)

if TYPE_CHECKING:  # pragma: no cover
    from matplotlib.figure import Figure

__all__ = ["DEFAULT_CORRECTION", "DEFAULT_TEST", "LearnerTables", "convergence_table", "kendall_bins_table",
           "learner_table", "learner_tables", "objective_labels",
           "plot_learner_risk_gain", "render_learner_table", "learner_risk_gain_points"]

REFERENCE = REFERENCE_OBJECTIVE  # plain LambdaMART (the registry names it)
TESTS = ("t", "randomization")
DEFAULT_TEST = "t"
DEFAULT_CORRECTION = "holm"  # over the rows of one column
KEYS = ("fold", "seed", "qid")
MODEL = ("objective", "alpha")


# -- input ----------------------------------------------------------------------------------------------


def _base_column(frame: pd.DataFrame, name: str, what: str) -> str:
    """The ``base:<name>`` column of ``name`` (given with or without the ``base:`` prefix)."""
    for column in (f"base:{name}", name):
        if column.startswith("base:") and column in frame.columns:
            return column
    have = [c[5:] for c in frame.columns if str(c).startswith("base:")]
    raise ValueError(f"{what}: per_query has no column base:{name} "
                     f"(its baselines: {', '.join(have) or 'none'})")


def _check_frame(frame: Any, columns: Sequence[str], name: str) -> pd.DataFrame:
    if not isinstance(frame, pd.DataFrame):
        raise TypeError(f"{name} must be a DataFrame, got {type(frame).__name__}")
    missing = [c for c in columns if c not in frame.columns]
    if missing:
        raise ValueError(f"{name} lacks the column(s) {', '.join(missing)}")
    if frame.empty:
        raise ValueError(f"{name} has no rows")
    return frame


def _check_values(frame: pd.DataFrame, columns: Sequence[str], name: str) -> None:
    """Every value finite and non-negative (NDCG), each ``(objective, alpha, fold, seed, qid)`` once."""
    for column in columns:
        values = pd.to_numeric(frame[column], errors="coerce").to_numpy(dtype=np.float64)
        bad = ~np.isfinite(values) | (values < 0)
        if bad.any():
            row = frame.iloc[int(np.flatnonzero(bad)[0])]
            raise ValueError(f"{name}: column {column} has {int(bad.sum())} missing, non-finite or negative "
                             f"value(s), e.g. {row[column]!r} at fold {row['fold']}, qid {row['qid']}")
    repeated = frame.duplicated([*MODEL, *KEYS])
    if repeated.any():
        row = frame[repeated].iloc[0]
        raise ValueError(f"{name} lists ({row['objective']}, α={row['alpha']:g}, fold {row['fold']}, seed "
                         f"{row['seed']}, qid {row['qid']}) {int(repeated.sum()) + 1} times")


@dataclass(frozen=True)
class _Model:
    """One (objective, α): arrays of shape seeds × queries, columns in the reference's (fold, qid) order."""

    objective: str
    alpha: float
    ndcg: np.ndarray
    single: np.ndarray | None  # the single baseline's values, seeds × queries
    multiple: np.ndarray  # baselines × seeds × queries


def _models(per_query: pd.DataFrame, single: str | None, multiple: Sequence[str],
            reference: str) -> list[_Model]:
    """Every (objective, α) of ``per_query`` as a :class:`_Model`, the reference first.

    Raises a ``ValueError`` when the reference is missing, when a model's (fold, seed, qid) differ from the
    reference's, or when a query lacks some seed.
    """
    frame = per_query.assign(fold=per_query["fold"].astype(str), qid=per_query["qid"].astype(str),
                             alpha=pd.to_numeric(per_query["alpha"], errors="coerce").astype(float))
    is_ref = (frame["objective"] == reference) & (frame["alpha"] == 0.0)
    if not is_ref.any():
        raise ValueError(f"per_query has no rows of the reference {reference!r} at α = 0")
    seeds = sorted(frame.loc[is_ref, "seed"].unique())
    queries = frame.loc[is_ref, ["fold", "qid"]].drop_duplicates().sort_values(["fold", "qid"], kind="stable")
    grid = pd.MultiIndex.from_tuples([(f, s, q) for s in seeds for f, q in queries.itertuples(index=False)],
                                     names=KEYS)
    order = _model_order(frame, reference)
    base = [_base_column(frame, single, "single")] if single is not None else []
    base += [_base_column(frame, m, "multiple") for m in multiple]
    shape = (len(seeds), len(queries))
    out = []
    for objective, alpha in order:
        rows = frame[(frame["objective"] == objective) & (frame["alpha"] == alpha)].set_index(list(KEYS))
        if len(rows) != len(grid) or not grid.isin(rows.index).all():
            lacking = grid[~grid.isin(rows.index)]
            what = (f"lacks {lacking[0]}" if len(lacking) else
                    f"has {len(rows) - len(grid)} (fold, seed, qid) more")
            raise ValueError(f"per_query: ({objective}, α={alpha:g}) {what} than the reference "
                             f"({reference}, α=0: {len(seeds)} seed(s) × {len(queries)} queries); a model "
                             "is paired with the reference by fold, seed and qid")
        rows = rows.loc[grid]
        values = [rows[c].to_numpy(dtype=np.float64).reshape(shape) for c in base]
        ndcg = rows["ndcg"].to_numpy(dtype=np.float64).reshape(shape)
        out.append(_Model(objective, alpha, ndcg, values[0] if single is not None else None,
                          np.array(values[1 if single is not None else 0:]).reshape(len(multiple), *shape)))
    return out


# -- the learner table ---------------------------------------------------------------------------------


def _against(s: np.ndarray, b: np.ndarray) -> tuple[dict[str, float], dict[str, np.ndarray]]:
    r"""One half's statistics of a model (seeds × queries) against one baseline, and their per-query values.

    Per seed, :func:`pyterrier_risk.core.risk_reward` over the pooled queries (Wang et al. 2012, eqs. 1–2:
    :math:`Reward = \frac1c\sum_q \max(0, s_q - b_q)`, :math:`Risk = \frac1c\sum_q \max(0, b_q - s_q)`;
    wins/losses count :math:`s_q > b_q` / :math:`s_q < b_q`, Losses>20% :math:`s_q < 0.8\,b_q`), averaged
    over seeds; Reward/Risk and W/L (Dinçer et al. 2016, Table 7) are ratios of those averages. The
    per-query values (averaged over seeds) are what the paired tests compare; their means (sums for the
    counts) are the statistics.
    """
    parts = [risk_reward(s[i], b[i]) for i in range(len(s))]
    stats = {"Reward": np.mean([p.reward for p in parts]), "Risk": np.mean([p.risk for p in parts]),
             "Wins": np.mean([p.wins for p in parts]), "Losses": np.mean([p.losses for p in parts]),
             "Losses>20%": np.mean([p.losses_gt20 for p in parts])}
    with np.errstate(divide="ignore", invalid="ignore"):  # no loss: inf (NaN when there is no win either)
        stats["Reward/Risk"] = np.float64(stats["Reward"]) / np.float64(stats["Risk"])
        stats["W/L"] = np.float64(stats["Wins"]) / np.float64(stats["Losses"])
    delta = risk_weighted_differences(s, b, 0.0)  # α = 0: the plain differences s − b
    per_query = {"Reward": np.maximum(delta, 0.0).mean(axis=0), "Risk": np.maximum(-delta, 0.0).mean(axis=0),
                 "Wins": (delta > 0).mean(axis=0), "Losses": (delta < 0).mean(axis=0),
                 "Losses>20%": loss_gt20(s, b).mean(axis=0)}
    return {k: float(stats[k]) for k in STATS}, per_query


def _model_values(m: _Model, eval_alpha: float) -> tuple[dict[str, float], dict[str, np.ndarray]]:
    """The row of one model (statistics by column) and the per-query values its tests compare."""
    values: dict[str, float] = {NDCG: float(m.ndcg.mean())}
    per_query: dict[str, np.ndarray] = {NDCG: m.ndcg.mean(axis=0)}
    if m.single is not None:
        values_s, per_query_s = _against(m.ndcg, m.single)
        values.update(values_s)
        per_query.update(per_query_s)
    if len(m.multiple):
        halves = [_against(m.ndcg, b) for b in m.multiple]
        for k in STATS:  # macro-average: each statistic against each baseline, then the mean (ratios too)
            values[MACRO + k] = float(np.mean([h[0][k] for h in halves]))
        for k in TESTED:
            per_query[MACRO + k] = np.mean([h[1][k] for h in halves], axis=0)
        geo = [georisk(np.vstack([m.multiple[:, i, :], m.ndcg[i]]), alpha=eval_alpha)[-1]
               for i in range(len(m.ndcg))]
        values["GeoRisk"] = float(np.mean(geo))
    return values, per_query


def _p_value(model: np.ndarray, reference: np.ndarray, test: str, n_resamples: int, seed: int) -> float:
    """Two-sided p-value of the paired difference of the per-query values; 1 when they are all equal."""
    if np.array_equal(model, reference):
        return 1.0
    if test == "t":
        from scipy.stats import ttest_rel

        return float(ttest_rel(model, reference).pvalue)
    return randomization_test(model, reference, n_resamples=n_resamples, seed=seed).p_value


def _check_options(test: str, correction: str | None, eval_alpha: float, n_resamples: int,
                   layout: str = "default") -> None:
    from ..reporting import LEARNER_LAYOUTS

    if layout not in LEARNER_LAYOUTS:
        raise ValueError(f"layout must be one of {', '.join(LEARNER_LAYOUTS)}, got {layout!r}")
    if test not in TESTS:
        raise ValueError(f"test must be one of {', '.join(TESTS)}, got {test!r}")
    if correction is not None:
        adjust_p_values([0.5], correction)  # an unknown method: its one-line error
    if isinstance(eval_alpha, bool) or not isinstance(eval_alpha, (int, float)) or not eval_alpha >= 0:
        raise ValueError(f"eval_alpha must be a number >= 0, got {eval_alpha!r}")
    if isinstance(n_resamples, bool) or not isinstance(n_resamples, int) or n_resamples < 1:
        raise ValueError(f"n_resamples must be a positive integer, got {n_resamples!r}")


def learner_table(per_query: pd.DataFrame, *, single: str | None, multiple: Sequence[str] = (),
                  eval_alpha: float = 1.0, reference: str = REFERENCE, test: str = DEFAULT_TEST,
                  correction: str | None = DEFAULT_CORRECTION, n_resamples: int = 10000,
                  seed: int = 0) -> pd.DataFrame:
    r"""The learners' effectiveness and robustness, Dinçer, Macdonald and Ounis (SIGIR 2016), Table 7.

    One row per (``objective``, ``alpha``), the reference (plain LambdaMART, ``reference`` at α = 0) first,
    then the objectives in the order they first appear in ``per_query``, each by rising α. Columns:

    * ``NDCG@10`` (the mean over the pooled test queries) and ``NDCG@10 Δ%``, its change against the
      reference, :math:`100\,(\bar s / \bar s_{ref} - 1)`;
    * against the single baseline ``single``: ``Reward``, ``Risk`` (Wang et al. 2012, eqs. 1–2),
      ``Reward/Risk``, ``Wins``, ``Losses`` (ties count in neither), ``W/L`` and ``Losses>20%``
      (:math:`s_q < 0.8\,b_q`) (2016 Table 7's top half; the 2014 paper's Table 3 prints Risk/Reward and
      Loss/Win, the reciprocals);
    * ``macro Reward`` ... ``macro Losses>20%``: each statistic against each of the ``multiple`` baselines
      in turn, then averaged over them, ratios included (Table 7's bottom half: "the mean when each
      measure is calculated with respect to each learned baseline in turn");
    * ``GeoRisk``: the model's GeoRisk at ``eval_alpha`` among the ``multiple`` baselines (2016 eq. 7,
      :func:`pyterrier_risk.core.georisk` of the baselines' rows plus the model's row; mean over seeds);
    * for ``NDCG@10`` and every Reward, Risk, Wins, Losses and Losses>20% column ``X``: ``X p-value``, the
      paired test of the model against the reference over the queries (the per-query values, each
      averaged over the seeds: the NDCG, :math:`\max(0, s_q - b_q)`, the win/loss/loss>20% indicators),
      and ``X p-value corrected``, the same adjusted over the rows (the family of one column) with
      :func:`pyterrier_risk.core.adjust_p_values`. The reference's own p-values are NaN (no test).
      Ratios and GeoRisk are not means of per-query values and are not tested.

    Pooling: a model is paired with the reference by (fold, seed, qid); statistics are computed per seed
    over the test queries of all folds and averaged over the seeds. Every model must have the reference's
    (fold, seed, qid) exactly.

    Args:
        per_query: the study's per-query frame (``fold, objective, alpha, seed, qid, ndcg, base:<name> ...``).
        single: the single baseline's name (``F25`` or ``base:F25``); ``None``: no single-baseline half.
        multiple: the multiple baselines' names; empty: no macro half and no GeoRisk.
        eval_alpha: the α of GeoRisk.
        reference: the objective whose α = 0 rows are the reference (plain LambdaMART).
        test: ``'t'`` (``scipy.stats.ttest_rel``) or ``'randomization'``
            (:func:`pyterrier_risk.core.randomization_test`, sign flips of the per-query differences).
        correction: a :data:`pyterrier_risk.core.CORRECTION_METHODS` name, or ``None`` for none.
        n_resamples: the randomization test's resamples.
        seed: the randomization test's seed.

    Returns:
        The table (:func:`learner_tables` returns it with the
        :class:`~pyterrier_risk.reporting.LearnerTableSettings` that :func:`render_learner_table` prints).

    Raises:
        ValueError: a missing column or baseline, a missing, negative or non-finite value, a repeated row,
            no reference rows, a model not paired with the reference, or a bad option.
        TypeError: ``per_query`` is not a DataFrame.
    """
    return _learner_table(per_query, single=single, multiple=multiple, eval_alpha=eval_alpha,
                          reference=reference, test=test, correction=correction, n_resamples=n_resamples,
                          seed=seed)[0]


def _learner_table(per_query: pd.DataFrame, *, single: str | None, multiple: Sequence[str], eval_alpha: float,
                   reference: str, test: str, correction: str | None, n_resamples: int = 10000,
                   seed: int = 0) -> tuple[pd.DataFrame, LearnerTableSettings]:
    """:func:`learner_table` and the settings its captions print."""
    per_query = _check_frame(per_query, [*MODEL, *KEYS, "ndcg"], "per_query")
    multiple = [multiple] if isinstance(multiple, str) else list(multiple)
    _check_options(test, correction, eval_alpha, n_resamples)
    base = ([_base_column(per_query, single, "single")] if single is not None else [])
    base += [_base_column(per_query, m, "multiple") for m in multiple]
    _check_values(per_query, ["ndcg", *dict.fromkeys(base)], "per_query")
    models = _models(per_query, single, multiple, reference)
    rows, tested = [], {}
    for i, m in enumerate(models):
        values, per_q = _model_values(m, float(eval_alpha))
        if i == 0:
            ref_values, ref_per_q = values, per_q
        row: dict[str, Any] = {"objective": m.objective, "alpha": m.alpha}
        for column, value in values.items():
            row[column] = value
            if column == NDCG:
                row[NDCG + " Δ%"] = 100.0 * (value / ref_values[NDCG] - 1.0) if ref_values[NDCG] else math.nan
            if column in per_q:
                row[column + P_VALUE] = (math.nan if i == 0 else
                                         _p_value(per_q[column], ref_per_q[column], test, n_resamples, seed))
                tested[column] = True
        rows.append(row)
    table = pd.DataFrame(rows)
    for column in tested:
        p = table[column + P_VALUE]
        adjusted = adjust_p_values(p, correction) if correction is not None else p.copy()
        table.insert(table.columns.get_loc(column + P_VALUE) + 1, column + P_CORRECTED, adjusted)
    settings = LearnerTableSettings(
        single=_name(single), multiple=tuple(str(_name(m)) for m in multiple), eval_alpha=float(eval_alpha),
        reference=reference, test=test, correction=correction, n_resamples=n_resamples,
        queries=models[0].ndcg.shape[1], seeds=models[0].ndcg.shape[0],
        labels=objective_labels(table["objective"]))
    return table, settings


def objective_labels(objectives: Any) -> dict[str, str]:
    """Each objective name's label in the tables (the registry's ``label``; an unknown name: itself)."""
    out = {}
    for name in dict.fromkeys(map(str, objectives)):
        try:
            out[name] = get_objective(name).label
        except ValueError:  # a frame of an objective not registered here: its name
            out[name] = name
    return out


def _name(baseline: str | None) -> str | None:
    return baseline[5:] if baseline is not None and baseline.startswith("base:") else baseline


# -- convergence and Kendall distance ---------------------------------------------------------------------


def _model_order(frame: pd.DataFrame, reference: str) -> list[tuple[str, float]]:
    """The (objective, α) of ``frame``: the reference at α = 0, then objectives as first seen, α rising."""
    seen = dict.fromkeys((str(o), float(a)) for o, a in frame[list(MODEL)].itertuples(index=False, name=None))
    first = {o: i for i, o in reversed(list(enumerate(o for o, _ in seen)))}
    return sorted(seen, key=lambda m: (m != (reference, 0.0), first[m[0]], m[1]))


def convergence_table(curves: pd.DataFrame, *, shares: Sequence[float] = (0.9, 0.95, 0.99),
                      reference: str = REFERENCE) -> pd.DataFrame:
    r"""Boosting rounds to reach a share of the final validation NDCG@10 (Wang et al. 2012, §5.8).

    Per model (fold, seed), :func:`pyterrier_risk.learning.rounds_to_reach` of its validation curve:
    :math:`R_f = \min\{t : v_t \ge f \cdot v_T\}`, :math:`v_T` the last recorded round's value. The paper
    reports the mean over the folds (α = 5 reached 95% of its final NDCG in 10.2 rounds, against 41.5 at
    α = 0, on its Location data); here the mean and the median over folds × seeds, per (objective, α).

    Args:
        curves: ``fold, objective, alpha, seed, round`` (1-based), ``vali_ndcg``.
        shares: the shares :math:`f` in (0, 1].
        reference: the objective listed first at α = 0.

    Returns:
        One row per (objective, α): ``models`` (folds × seeds), ``final NDCG@10`` (mean of :math:`v_T`),
        ``trees kept`` (mean curve length), then ``rounds to f (mean)`` and ``(median)`` per share.

    Raises:
        ValueError: a missing column, a curve whose rounds are not 1, 2, ..., T, non-finite values, or a
            share outside (0, 1].
        TypeError: ``curves`` is not a DataFrame.
    """
    curves = _check_frame(curves, [*MODEL, "fold", "seed", "round", "vali_ndcg"], "curves")
    frame = curves.assign(alpha=pd.to_numeric(curves["alpha"], errors="coerce").astype(float))
    rows = []
    for objective, alpha in _model_order(frame, reference):
        runs = frame[(frame["objective"].astype(str) == objective) & (frame["alpha"] == alpha)]
        reached: dict[float, list[float]] = {f: [] for f in shares}
        finals, lengths = [], []
        for (fold, seed), run in runs.groupby(["fold", "seed"], sort=True):
            run = run.sort_values("round", kind="stable")
            if not np.array_equal(run["round"].to_numpy(), np.arange(1, len(run) + 1)):
                raise ValueError(f"curves: ({objective}, α={alpha:g}, fold {fold}, seed {seed}) does not "
                                 "list its rounds as 1, 2, ..., T once each")
            values = run["vali_ndcg"].to_numpy(dtype=np.float64)
            for f in shares:
                try:
                    reached[f].append(rounds_to_reach(values, fraction=f))
                except ValueError as e:
                    raise ValueError(f"curves: ({objective}, α={alpha:g}, fold {fold}, seed {seed}): "
                                     f"{e}") from None
            finals.append(values[-1])
            lengths.append(len(values))
        row = {"objective": objective, "alpha": alpha, "models": len(finals),
               "final NDCG@10": float(np.mean(finals)), "trees kept": float(np.mean(lengths))}
        for f in shares:
            row[f"rounds to {f:.0%} (mean)"] = float(np.mean(reached[f]))
            row[f"rounds to {f:.0%} (median)"] = float(np.median(reached[f]))
        rows.append(row)
    return pd.DataFrame(rows)


def kendall_bins_table(kendall: pd.DataFrame, *, bins: int = KENDALL_BINS,
                       reference: str = REFERENCE) -> pd.DataFrame:
    r"""The share of test queries per Kendall-distance bin of each (objective, α) (Wang et al. 2012, Fig. 5).

    The distances are the normalised Kendall distances of each model's test ranking from the single
    baseline's (:func:`pyterrier_risk.core.rank_distance`); bin ``k`` holds :math:`[k/b, (k+1)/b)` (the
    last also 1.0), binned as :func:`pyterrier_risk.core.rank_distance_bins` bins them. A query counts
    once per seed: a share is that of the (query, seed) pairs with a distance. Queries without a distance
    (NaN: fewer than two documents, or all tied) are left out and counted in ``undefined`` (per seed).

    Args:
        kendall: ``fold, objective, alpha, seed, qid, distance``.
        bins: the number of bins (the paper: 10).
        reference: the objective listed first at α = 0.

    Returns:
        One row per (objective, α): a column per bin (``"0.0-0.1"`` ...; each row sums to 1), ``undefined``
        and ``mean`` (the mean distance).

    Raises:
        ValueError: a missing column, a distance outside [0, 1], no defined distance for a model, or a bad
            ``bins``.
        TypeError: ``kendall`` is not a DataFrame.
    """
    kendall = _check_frame(kendall, [*MODEL, *KEYS, "distance"], "kendall")
    if isinstance(bins, bool) or not isinstance(bins, (int, np.integer)) or bins < 1:
        raise ValueError(f"bins must be a positive integer, got {bins!r}")
    frame = kendall.assign(alpha=pd.to_numeric(kendall["alpha"], errors="coerce").astype(float),
                           distance=pd.to_numeric(kendall["distance"], errors="coerce").astype(float))
    d_all = frame["distance"].to_numpy()
    if ((d_all < 0) | (d_all > 1)).any():
        raise ValueError("kendall: a distance lies outside [0, 1]")
    labels = bin_labels(int(bins))
    rows = []
    for objective, alpha in _model_order(frame, reference):
        model = frame[(frame["objective"].astype(str) == objective) & (frame["alpha"] == alpha)]
        d = model["distance"].to_numpy()
        ok = d[~np.isnan(d)]
        if not len(ok):
            raise ValueError(f"kendall: ({objective}, α={alpha:g}) has no query with a distance")
        shares = np.bincount(distance_bin(ok, int(bins)), minlength=int(bins)) / len(ok)
        seeds = model["seed"].nunique()
        rows.append({"objective": objective, "alpha": alpha, **dict(zip(labels, shares, strict=True)),
                     "undefined": (len(d) - len(ok)) / seeds, "mean": float(ok.mean())})
    return pd.DataFrame(rows)


# -- the risk-gain plot and everything at once -------------------------------------------------------------


def learner_risk_gain_points(per_query: pd.DataFrame, *, single: str,
                             reference: str = REFERENCE) -> pd.DataFrame:
    """Risk and Gain = Reward − Risk of every (objective, α) against ``single`` (Wang et al. 2012, eqs. 1–3).

    The reference (α = 0) starts every objective's curve, as the gain-only model does in the 2012 paper's
    Figure 2 (an objective with its own α = 0 rows keeps those). Pooled as in :func:`learner_table`.

    Returns:
        ``objective, alpha, risk, reward, gain``, one row per point (the reference once per objective).
    """
    per_query = _check_frame(per_query, [*MODEL, *KEYS, "ndcg"], "per_query")
    _check_values(per_query, ["ndcg", _base_column(per_query, single, "single")], "per_query")
    models = _models(per_query, single, (), reference)
    points = []
    for m in models:
        stats, _ = _against(m.ndcg, cast(np.ndarray, m.single))  # _models fills it: single is given
        points.append({"objective": m.objective, "alpha": m.alpha, "risk": stats["Risk"],
                       "reward": stats["Reward"], "gain": stats["Reward"] - stats["Risk"]})
    ref, others = points[0], points[1:]
    rows = []
    for objective in dict.fromkeys(p["objective"] for p in others) or [reference]:
        own = [p for p in others if p["objective"] == objective]
        start = [] if any(p["alpha"] == 0.0 for p in own) else [{**ref, "objective": objective}]
        rows += start + own
    return pd.DataFrame(rows, columns=["objective", "alpha", "risk", "reward", "gain"])


def plot_learner_risk_gain(per_query: pd.DataFrame, *, single: str, path: str | os.PathLike | None = None,
                           reference: str = REFERENCE, title: str | None = None) -> Figure:
    """Risk (x) against gain (y) over the single baseline, one curve per learner over α (2012, Fig. 2).

    The points are :func:`learner_risk_gain_points`, each curve named by its objective's label;
    :func:`pyterrier_risk.reporting.plot_risk_gain` draws them with the break-even line and the
    near-optimal hull of §5.7 (the gain-only model, the reference at α = 0, breaks even at α* = Gain/Risk;
    the points with α ≤ α* are ringed).

    Args:
        per_query: the study's per-query frame.
        single: the single baseline's name.
        path: save the figure there as PNG (``data.atomic_write``: whole or not at all).
        reference: the reference objective (α = 0 starts each curve).
        title: the title (default names the baseline and the pooled queries).

    Returns:
        The matplotlib Figure.
    """
    from ..reporting import plot_risk_gain

    points = learner_risk_gain_points(per_query, single=single, reference=reference)
    names = objective_labels(points["objective"])
    name = _name(single)
    title = title or f"Risk–gain against {name} (NDCG@10, test queries of all folds; labels: α)"
    return plot_risk_gain(points.assign(learner=points["objective"].map(names)), curve="learner",
                          label="alpha", title=title, xlabel=f"Risk (mean loss against {name})",
                          ylabel="Gain (Reward − Risk)", path=path)


@dataclass(frozen=True)
class LearnerTables:
    """The learner study's tables (:func:`learner_tables`) and what their captions print.

    Attributes:
        learner: :func:`learner_table` (Dinçer et al. 2016, Table 7).
        settings: the :class:`~pyterrier_risk.reporting.LearnerTableSettings` of ``learner``.
        convergence: :func:`convergence_table` (Wang et al. 2012, §5.8); ``None`` without curves.
        kendall: :func:`kendall_bins_table` (Wang et al. 2012, §5.9); ``None`` without distances.
        layout: the learner table's layout in :meth:`render` (``'default'`` or ``'paper'``).
    """

    learner: pd.DataFrame
    settings: LearnerTableSettings
    convergence: pd.DataFrame | None = None
    kendall: pd.DataFrame | None = None
    layout: str = "default"

    def render(self, format: str = "markdown", *, floatfmt: str = ".4f", max_width: int = MAX_WIDTH,
               layout: str | None = None) -> str:
        """All tables as Markdown, LaTeX or CSV, one after another (the learner table first).

        ``layout`` (default: :attr:`layout`) is the learner table's; see
        :func:`~pyterrier_risk.reporting.render_learner_table`.
        """
        labels = self.settings.labels
        parts = [render_learner_table(self.learner, self.settings, format, layout=layout or self.layout,
                                      floatfmt=floatfmt, max_width=max_width)]
        if self.convergence is not None:
            parts.append(render_convergence_table(self.convergence, format, labels=labels, floatfmt=floatfmt,
                                                  max_width=max_width))
        if self.kendall is not None:
            parts.append(render_kendall_table(self.kendall, format, labels=labels, floatfmt=floatfmt,
                                              max_width=max_width))
        return "\n".join(parts)


def learner_tables(per_query: pd.DataFrame, curves: pd.DataFrame | None = None,
                   kendall: pd.DataFrame | None = None, *, single: str | None, multiple: Sequence[str] = (),
                   eval_alpha: float = 1.0, reference: str = REFERENCE, test: str = DEFAULT_TEST,
                   correction: str | None = DEFAULT_CORRECTION, shares: Sequence[float] = (0.9, 0.95, 0.99),
                   bins: int = KENDALL_BINS, layout: str = "default") -> LearnerTables:
    """:func:`learner_table`, :func:`convergence_table` and :func:`kendall_bins_table` of one study.

    The keyword options are theirs; ``curves`` or ``kendall`` ``None`` leaves that table out; ``layout``
    is the learner table's in :meth:`LearnerTables.render` (``'default'`` or ``'paper'``: 2016 Table 7 as
    printed).
    """
    _check_options(test, correction, eval_alpha, 10000, layout)
    table, settings = _learner_table(per_query, single=single, multiple=multiple, eval_alpha=eval_alpha,
                                     reference=reference, test=test, correction=correction)
    return LearnerTables(
        learner=table, settings=settings,
        convergence=None if curves is None else convergence_table(curves, shares=shares, reference=reference),
        kendall=None if kendall is None else kendall_bins_table(kendall, bins=bins, reference=reference),
        layout=layout)
