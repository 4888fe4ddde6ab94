r"""How much a risk evaluation depends on its baseline (Dinçer, Ounis and Macdonald, ECIR 2014, §2–3).

With ``r`` systems and per-topic scores :math:`s_i(q)`, each system's URisk (and TRisk) is computed
against every baseline in turn: each listed run, and the unbiased MEAN, MEDIAN and MAX of all ``r``
runs (:func:`baseline_scores`). The questions the paper asks of these tables:

* Do the rankings change with the baseline? Kendall's τ between the rankings of every pair of
  baseline choices, and the Friedman test of the paper's Table 2: the treatments are the systems,
  the blocks the runs in turn as the baseline, each baseline's own URisk of 0 included (a complete
  design). Within block ``b`` the ``r`` values are ranked (ties get their mean rank),
  :math:`R_i` is system ``i``'s rank sum over the ``n`` blocks, and

  .. math::

      \chi^2_F = \frac{12 \sum_i R_i^2 - 3 n^2 r (r+1)^2}{n r (r+1) - \sum_b \sum_t (t^3 - t)/(r-1)}

  with ``t`` the sizes of the tie groups, compared with :math:`\chi^2_{r-1}`. Its null hypothesis is
  that the systems do not differ (every ranking equally likely in each block); a small p-value
  means the baselines rank the systems *alike* more than chance would (Kendall's
  :math:`W = \chi^2_F/(n(r-1))` above 0), not that the rankings change. At α = 0 URisk against
  ``b`` is the system's mean minus ``b``'s, every baseline gives the same ranking, W = 1 and p is
  as small as it gets. How much the rankings change is read from τ (and from W below 1).
* Why? A baseline favours the systems whose per-topic scores go up and down with its own (the
  paper's mechanism of bias): the Pearson correlation over topics of each system with each baseline,
  and, per run baseline, Spearman's ρ between that correlation and how far the system moves up the
  URisk ranking from its rank by mean score (its *promotion*).
* The paper's picture of it: a principal component analysis of the systems × topics matrix (topics
  as the variables, centred per topic), with MEAN/MEDIAN/MAX as virtual runs (Figs. 1–2).
"""

from __future__ import annotations

import itertools
import warnings
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd
from scipy import stats

from ._baselines import BASELINE_AGGREGATES, baseline_scores
from ._trisk import SD_CONVENTIONS
from ._urisk import SD_DDOF, risk_weighted_differences
from ._validate import MAX_RESAMPLES, as_matrix, check_alpha, check_int

__all__ = ["BaselineSensitivity", "baseline_sensitivity", "friedman_test", "systems_pca", "FriedmanResult"]

VIRTUAL_BASELINES = tuple(k.upper() for k in BASELINE_AGGREGATES)
#: up to this many systems the bias table's Spearman p-values are exact (all n! orders)
EXACT_SPEARMAN_MAX = 9


@dataclass(frozen=True)
class FriedmanResult:
    r"""Friedman's test: ``statistic`` (χ²), ``p_value``, ``df`` (treatments − 1) and ``blocks``.

    ``kendall_w`` is Kendall's coefficient of concordance :math:`W = \chi^2_F / (n (r - 1))` of the
    blocks' rankings: 1 when every block ranks the treatments the same, near 0 when they disagree.
    A small p-value says the treatments differ *consistently* across the blocks (W above 0); it is
    not evidence that the blocks' rankings differ.
    """

    statistic: float
    p_value: float
    df: int
    blocks: int

    @property
    def kendall_w(self) -> float:
        """Kendall's W, the agreement of the blocks' rankings (tie-corrected like the statistic)."""
        return self.statistic / (self.blocks * self.df)


def friedman_test(table: Any) -> FriedmanResult:
    r"""Friedman's rank test of treatments (rows) over blocks (columns), with the tie correction.

    .. math::

        \chi^2_F = \frac{12 \sum_i R_i^2 - 3 n^2 r (r+1)^2}{n r (r+1) - \sum (t^3 - t)/(r-1)}

    for ``r`` treatments, ``n`` blocks, rank sums :math:`R_i` (ranks within a block, ties at their
    mean rank) and tie groups of sizes ``t``; the p-value is that of :math:`\chi^2_{r-1}`.

    Args:
        table: treatments × blocks values (2-D array or DataFrame); at least 3 treatments and 2 blocks.

    Raises:
        ValueError: fewer than 3 treatments or 2 blocks, NaN values, or every block tied throughout.
    """
    values = np.asarray(table, dtype=np.float64)
    if values.ndim != 2 or values.shape[0] < 3 or values.shape[1] < 2:
        raise ValueError(f"the Friedman test needs at least 3 systems and 2 blocks, got shape {values.shape}")
    if np.isnan(values).any():
        raise ValueError("the Friedman test got NaN values")
    r, n = values.shape
    ranks = stats.rankdata(values, axis=0)
    ties = sum(float(((t := np.unique(col, return_counts=True)[1]) ** 3 - t).sum()) for col in values.T)
    denominator = n * r * (r + 1) - ties / (r - 1)
    if denominator <= 0:
        raise ValueError("the Friedman test is undefined: every block ties all systems")
    sums = ranks.sum(axis=1)
    statistic = float((12.0 * np.dot(sums, sums) - 3.0 * n * n * r * (r + 1) ** 2) / denominator)
    return FriedmanResult(statistic, float(stats.chi2.sf(statistic, r - 1)), r - 1, n)


def systems_pca(matrix: Any, extra: Any = None, *, components: int = 2) -> tuple[pd.DataFrame, pd.Series]:
    r"""Principal components of a systems × topics matrix, topics as variables (Dinçer et al. 2014, §2.4).

    Each topic is centred on its mean over the systems; with :math:`X_c = U S V^\top` (SVD), system
    ``i``'s score on axis ``k`` is :math:`(U S)_{ik}` and the axis explains
    :math:`S_k^2 / \sum_j S_j^2` of the total sum of squared deviations. Rows of ``extra`` (virtual
    runs such as MEAN) are centred with the same topic means and projected on the same axes
    (:math:`(x - \bar x) V`), so that they do not move the axes; MEAN then lies at the origin
    (the paper put its virtual runs into the matrix, which moved MEAN off the origin: its footnote 5).
    :math:`U` and :math:`S^2` come from the eigendecomposition of the systems' Gram matrix
    :math:`X_c X_c^\top` (systems × systems, small however many topics), and
    :math:`V = X_c^\top U S^{-1}`.

    Args:
        matrix: systems × topics scores (DataFrame or 2-D array), at least 2 systems and 2 topics.
        extra: rows to project (a DataFrame with the same columns), or None.
        components: the number of axes returned (at most ``min(systems, topics)``).

    Returns:
        ``(scores, explained)``: a DataFrame of the rows' coordinates (``PC1``, ``PC2``, ...; the
        systems, then ``extra``'s rows) and a Series of each axis's explained fraction of the variance.
        An axis's sign is arbitrary; here each axis points where the systems' mean scores grow.
    """
    values, systems, topics = as_matrix(matrix, "matrix", min_systems=2, min_topics=2)
    components = check_int(components, "components")
    k = min(components, *values.shape)
    centre = values.mean(axis=0)
    xc = values - centre
    eigval, eigvec = np.linalg.eigh(xc @ xc.T)
    order = np.argsort(eigval)[::-1]
    s2, u = np.clip(eigval[order], 0.0, None), eigvec[:, order]
    total = float(s2.sum())
    if total <= 0:
        raise ValueError("matrix: all systems have the same scores on every topic; no axis to find")
    k = min(k, int(np.count_nonzero(s2 > total * 1e-12)))  # only axes with variance
    means = values.mean(axis=1)
    signs = np.where(u[:, :k].T @ (means - means.mean()) < 0, -1.0, 1.0)
    axes = (xc.T @ u[:, :k] / np.sqrt(s2[:k])).T * signs[:, None]  # the first k rows of V^T
    labels = [f"PC{j + 1}" for j in range(k)]
    names = list(systems) if systems is not None else list(range(len(values)))
    coords = xc @ axes.T
    if extra is not None:
        more, extra_names, _ = as_matrix(extra, "extra", min_systems=1, min_topics=values.shape[1])
        coords = np.vstack([coords, (more - centre) @ axes.T])
        names += list(extra_names) if extra_names is not None else [f"extra{i}" for i in range(len(more))]
    explained = pd.Series(s2[:k] / total, index=labels, name="explained")
    return pd.DataFrame(coords, index=names, columns=labels), explained


@dataclass(frozen=True, eq=False, repr=False)
class BaselineSensitivity:
    """The outcome of :func:`baseline_sensitivity`: DataFrames with systems as rows and baselines as columns.

    Attributes:
        alpha: the risk sensitivity.
        mean: each system's mean score over the topics.
        urisk: URisk of each system (row) against each baseline (column); a run against itself is 0.
        trisk: TRisk likewise (NaN for a run against itself: no variance).
        ranks: each baseline's ranking of the systems by URisk (1 = best, ties at their mean rank);
            a run baseline leaves itself out (NaN).
        tau: Kendall's τ-b between the rankings of every pair of baselines, over the systems both rank
            (neither of the two runs). No p-value is given: the rankings come from the same per-topic
            scores, not from independent samples; the Friedman test and ``bias_test`` are the tests.
        friedman: Friedman's test of the rankings' differences, the blocks being the run baselines
            (each one's own 0 included); None with fewer than two run baselines.
        correlation: Pearson's correlation over topics of each system with each baseline.
        bias: per run baseline, over the other systems, Spearman's ρ (and p) between the correlation
            with it and the promotion (rank by mean score − rank by URisk; positive = moved up),
            and between the correlation and URisk itself. A system constant over the topics (no
            correlation) is left out; NaN when fewer than three systems remain. The p-values are
            exact (all ``n!`` orders of ``n`` systems) up to :data:`EXACT_SPEARMAN_MAX` systems, where
            the asymptotic t approximation is far off (3 systems with ρ = 1 have p = 1/3, not 0), and
            the t approximation above.
        bias_test: the mean of ``bias``'s promotion ρ over the run baselines, and a permutation
            p-value (two-sided; the correlations permuted among the systems within each baseline).
            It does not depend on the order of the systems: the baselines and, within each, the
            systems are taken in the order of their names before the permutations are drawn.
        pca: the systems' coordinates on the principal axes, then the virtual baselines projected.
        explained: each axis's fraction of the variance (of the real systems).
    """

    alpha: float
    mean: pd.Series
    urisk: pd.DataFrame
    trisk: pd.DataFrame
    ranks: pd.DataFrame
    tau: pd.DataFrame
    friedman: FriedmanResult | None
    correlation: pd.DataFrame
    bias: pd.DataFrame
    bias_test: dict[str, Any] = field(repr=False)
    pca: pd.DataFrame = field(repr=False)
    explained: pd.Series = field(repr=False)
    sd: str = "sample"

    def tau_range(self, runs_only: bool = True) -> tuple[float, float]:
        """The smallest and largest τ between two different baselines (run baselines only by default)."""
        names = [b for b in self.tau.columns if not runs_only or b not in VIRTUAL_BASELINES]
        t = self.tau.loc[names, names].to_numpy()
        off = t[~np.eye(len(names), dtype=bool)]
        off = off[~np.isnan(off)]
        return (float(off.min()), float(off.max())) if off.size else (np.nan, np.nan)

    def summary(self, digits: int = 4) -> str:
        """A markdown report: the Friedman test, τ range, the bias finding, then the tables as text blocks.

        Paper-ready tables of the same frames: :func:`write_table` (markdown, LaTeX, CSV).
        """
        lines = [f"# Baseline sensitivity (alpha = {self.alpha:g}, {len(self.urisk)} systems)", ""]
        if self.friedman is not None:
            f = self.friedman
            lines.append(
                f"Friedman test over {f.blocks} run baselines: chi2 = {f.statistic:.{digits}g}, "
                f"df = {f.df}, p = {f.p_value:.{digits}g}; Kendall's W = {f.kendall_w:.3f} "
                "(1: every baseline ranks the systems alike)."
            )
        lo, hi = self.tau_range()
        if not np.isnan(lo):
            lines.append(f"Kendall's tau between two run baselines' rankings: {lo:.3f} to {hi:.3f}.")
        b = self.bias_test
        if b:
            lines.append(
                f"Correlation with the baseline vs promotion in the URisk ranking: mean Spearman rho = "
                f"{b['mean_rho']:.3f}, permutation p = {b['p_value']:.{digits}g} "
                f"({b['permutations']} permutations)."
            )
        lines.append(
            "Explained variance: " + ", ".join(f"{k} {v:.1%}" for k, v in self.explained.items()) + "."
        )
        for title, frame in (
            ("URisk", self.urisk),
            ("Ranks", self.ranks),
            ("Kendall's tau", self.tau),
            ("Correlation with the baseline", self.correlation),
            ("Bias", self.bias),
        ):
            lines += ["", f"## {title}", "", "```", frame.round(digits).to_string(), "```"]
        return "\n".join(lines) + "\n"

    def __repr__(self) -> str:
        f = self.friedman
        test = (
            ""
            if f is None
            else f", friedman=(chi2={f.statistic:.4g}, p={f.p_value:.4g}, W={f.kendall_w:.3f})"
        )
        return (
            f"BaselineSensitivity(alpha={self.alpha:g}, systems={len(self.urisk)}, "
            f"baselines={self.urisk.shape[1]}{test})"
        )

    def _repr_markdown_(self) -> str:
        return self.summary()


def baseline_sensitivity(
    matrix: Any,
    alpha: float = 0.0,
    *,
    baselines: Any = None,
    virtual: bool = True,
    permutations: int = 1999,
    seed: int = 0,
    components: int = 2,
    sd: str = "sample",
) -> BaselineSensitivity:
    r"""URisk, TRisk and rankings of every system against every baseline choice (Dinçer et al., ECIR 2014).

    Each listed run in turn is the baseline, then (``virtual``) the per-topic MEAN, MEDIAN and MAX
    of all systems (:func:`baseline_scores`). For baseline ``b``,
    :math:`U_{Risk}(i \mid b) = \frac1c \sum_q x_q`, :math:`x_q = \delta_q` or
    :math:`(1+\alpha)\delta_q` for a loss, :math:`\delta_q = s_i(q) - b(q)` (:func:`urisk`), and
    TRisk its t statistic (:func:`trisk`). See :class:`BaselineSensitivity` for the tables, the
    Friedman test (the paper's Table 2: the systems ranked within each run baseline, its own 0
    included), the correlation analysis and the PCA (:func:`systems_pca`).

    Args:
        matrix: systems × topics scores, a DataFrame (systems as index), at least 3 systems and 2 topics.
        alpha: the risk sensitivity ``alpha >= 0``.
        baselines: the systems that serve as baselines in turn (default: every system).
        virtual: also use MEAN, MEDIAN and MAX as baselines.
        permutations: permutations of the bias test (0 to skip it).
        seed: seed of the permutations.
        components: principal axes kept.
        sd: TRisk's standard deviation: ``'sample'`` (divisor c − 1, the default) or
            ``'population'`` (c, as rmit-ir/trisk); :func:`trisk`'s ``sd``.

    Raises:
        ValueError: fewer than 3 systems or 2 topics, NaN/negative scores, duplicate system names,
            no baseline at all, an unknown baseline or one listed twice, a system name that clashes with
            MEAN/MEDIAN/MAX, or a URisk beyond float64's range (an α near 1e308).
    """
    alpha = check_alpha(alpha)
    permutations = check_int(permutations, "permutations", minimum=0, maximum=MAX_RESAMPLES)
    if sd not in SD_CONVENTIONS:
        raise ValueError(f"sd must be one of {SD_CONVENTIONS}, got {sd!r}")
    values, systems, topics = as_matrix(matrix, "matrix", min_systems=3, min_topics=2)
    names = [str(s) for s in systems] if systems is not None else [f"run{i}" for i in range(len(values))]
    if len(set(names)) != len(names):
        raise ValueError("matrix has duplicate system names")
    runs = names if baselines is None else [str(b) for b in baselines]
    unknown = [b for b in runs if b not in names]
    if unknown:
        raise ValueError(f"unknown baseline system(s): {', '.join(unknown)}")
    if not runs and not virtual:
        raise ValueError("no baseline: give baselines= or virtual=True (MEAN, MEDIAN and MAX)")
    if len(set(runs)) != len(runs):
        raise ValueError(f"baselines lists a system twice: {sorted({b for b in runs if runs.count(b) > 1})}")
    clash = [n for n in names if virtual and n.upper() in VIRTUAL_BASELINES]
    if clash:
        raise ValueError(
            f"system name(s) {', '.join(clash)} clash with the virtual baselines {VIRTUAL_BASELINES}"
        )
    base = {b: values[names.index(b)] for b in runs}
    if virtual:
        base.update({k.upper(): baseline_scores(values, k) for k in BASELINE_AGGREGATES})
    mean = pd.Series(values.mean(axis=1), index=names, name="mean")
    with np.errstate(over="ignore", invalid="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # an α near 1e308 overflows: refused just below
        urisk_t, trisk_t = _risk_tables(values, names, base, alpha, ddof=SD_DDOF if sd == "sample" else 0)
    if not np.isfinite(urisk_t.to_numpy()).all():
        raise ValueError(f"URisk overflows float64 at alpha = {alpha:g} (a magnitude beyond 1.8e308); "
                         "use a smaller alpha")
    ranks = _rankings(urisk_t, runs)
    tau = _tau_table(urisk_t, runs)
    friedman = friedman_test(urisk_t[runs].to_numpy()) if len(runs) >= 2 else None
    correlation = _correlations(values, names, base)
    bias, bias_test = _bias(urisk_t, correlation, mean, runs, permutations, seed)
    virtual_rows = pd.DataFrame({k: base[k] for k in VIRTUAL_BASELINES}).T if virtual else None
    pca, explained = systems_pca(values, virtual_rows, components=components)
    pca.index = names + (list(VIRTUAL_BASELINES) if virtual else [])
    return BaselineSensitivity(
        alpha,
        mean,
        urisk_t,
        trisk_t,
        ranks,
        tau,
        friedman,
        correlation,
        bias,
        bias_test,
        pca,
        explained,
        sd,
    )


def _risk_tables(
    values: np.ndarray, names: list[str], base: dict[str, np.ndarray], alpha: float, ddof: int = SD_DDOF
) -> tuple[pd.DataFrame, pd.DataFrame]:
    r"""URisk and TRisk of every system against every baseline, vectorised over the systems.

    URisk is the mean of :func:`risk_weighted_differences`; TRisk that mean over its standard error
    :math:`s_x/\sqrt c` (divisor ``c - ddof``), ``±inf`` or NaN where :math:`s_x = 0`, as in
    :func:`trisk` (the tests compare the two). Unlike :func:`trisk` it is not rescaled against
    overflow: it holds for α up to about 1e300, not for any finite α.
    """
    c = values.shape[1]
    urisk_cols, trisk_cols = {}, {}
    for b, vector in base.items():
        x = risk_weighted_differences(values, vector[None, :], alpha)
        mean = x.mean(axis=1)
        se = x.std(axis=1, ddof=ddof) / np.sqrt(c)
        flat = np.where(mean == 0, np.nan, np.copysign(np.inf, mean))
        urisk_cols[b] = mean
        trisk_cols[b] = np.where(se > 0, mean / np.where(se > 0, se, 1.0), flat)
    return pd.DataFrame(urisk_cols, index=names), pd.DataFrame(trisk_cols, index=names)


def _rankings(urisk_t: pd.DataFrame, runs: list[str]) -> pd.DataFrame:
    """Ranks by URisk per baseline (1 = best), a run baseline leaving itself out."""
    masked = urisk_t.copy()
    for b in runs:
        masked.loc[b, b] = np.nan
    return masked.rank(ascending=False, method="average")


def _tau_table(urisk_t: pd.DataFrame, runs: list[str]) -> pd.DataFrame:
    r"""Kendall's τ-b of every pair of baselines' URisk orders, over the systems both rank, all at once.

    With :math:`S_b` the signs of :math:`u_i - u_j` under baseline ``b`` over the system pairs
    ``i < j`` (0 for a pair with ``b`` itself) and :math:`M_b` the indicator of the pairs without
    ``b``: :math:`\tau_{ab} = S_a \cdot S_b / \sqrt{(|S_a| \cdot M_b)(M_a \cdot |S_b|)}`, the
    concordant minus discordant pairs over the pairs each ranking leaves untied.
    """
    u = urisk_t.to_numpy()
    i, j = np.triu_indices(u.shape[0], 1)
    signs = np.sign(u[i] - u[j]).T  # baselines × pairs
    keep = np.ones_like(signs)
    position = {s: k for k, s in enumerate(urisk_t.index)}
    for col, b in enumerate(urisk_t.columns):
        if b in runs:
            keep[col, (i == position[b]) | (j == position[b])] = 0.0
    signs *= keep
    untied = np.abs(signs)
    with np.errstate(divide="ignore", invalid="ignore"):
        tau = (signs @ signs.T) / np.sqrt((untied @ keep.T) * (keep @ untied.T))
    np.fill_diagonal(tau, 1.0)
    return pd.DataFrame(tau, index=urisk_t.columns, columns=urisk_t.columns)


def _correlations(values: np.ndarray, names: list[str], base: dict[str, np.ndarray]) -> pd.DataFrame:
    """Pearson's r over topics of every system with every baseline (NaN where one is constant)."""
    rows = values - values.mean(axis=1, keepdims=True)
    cols = np.array(list(base.values()))
    cols = cols - cols.mean(axis=1, keepdims=True)
    with np.errstate(divide="ignore", invalid="ignore"):
        r = (rows @ cols.T) / np.outer(np.linalg.norm(rows, axis=1), np.linalg.norm(cols, axis=1))
    return pd.DataFrame(np.clip(r, -1.0, 1.0), index=names, columns=list(base))


def _bias(
    urisk_t: pd.DataFrame,
    correlation: pd.DataFrame,
    mean: pd.Series,
    runs: list[str],
    permutations: int,
    seed: int,
) -> tuple[pd.DataFrame, dict[str, Any]]:
    """Per run baseline: Spearman's ρ of correlation vs promotion and vs URisk; the pooled test.

    The baselines and the systems within each are visited in the order of their names, so that the
    permutation test's draws, hence its p-value, do not depend on the order of the matrix's rows.
    """
    rows, pairs = {}, []
    for b in sorted(runs):
        others = sorted(s for s in urisk_t.index if s != b)
        corr = correlation.loc[others, b].to_numpy()
        by_mean = mean[others].rank(ascending=False, method="average").to_numpy()
        by_urisk = urisk_t.loc[others, b].rank(ascending=False, method="average").to_numpy()
        defined = ~np.isnan(corr)  # a system constant over the topics has no correlation: left out
        promotion, corr = (by_mean - by_urisk)[defined], corr[defined]
        if len(corr) < 3:
            rows[b] = [np.nan] * 4
            continue
        risk = urisk_t.loc[others, b].to_numpy()[defined]
        rows[b] = [*_spearman(corr, promotion), *_spearman(corr, risk)]
        if np.ptp(promotion) > 0 and np.ptp(corr) > 0:
            pairs.append((stats.rankdata(corr), stats.rankdata(promotion)))
    bias = pd.DataFrame.from_dict(
        {b: rows[b] for b in runs}, orient="index",
        columns=["rho_promotion", "p_promotion", "rho_urisk", "p_urisk"], dtype=float,
    )
    return bias, _pooled_test(pairs, permutations, seed) if pairs and permutations else {}


def _spearman(a: np.ndarray, b: np.ndarray) -> tuple[float, float]:
    """Spearman's ρ and its two-sided p-value; NaN when one side is constant (no order to correlate).

    Up to :data:`EXACT_SPEARMAN_MAX` values the p-value is exact: the share of the ``n!`` orders of
    ``a``'s ranks whose |ρ| reaches the observed one (ties kept, so the null is conditional on them).
    Above, scipy's t approximation.
    """
    if np.ptp(a) == 0 or np.ptp(b) == 0:
        return np.nan, np.nan
    if len(a) > EXACT_SPEARMAN_MAX:
        res = stats.spearmanr(a, b)
        return float(res.statistic), float(res.pvalue)
    ra, rb = stats.rankdata(a), stats.rankdata(b)
    rho = float(_pearson(rb, ra[None, :])[0])
    null = _pearson(rb, ra[_orders(len(a))])
    return rho, float(np.mean(np.abs(null) >= abs(rho) - 1e-12))


def _orders(n: int) -> np.ndarray:
    """Every permutation of ``range(n)``, one per row (``n!`` rows)."""
    return np.array(list(itertools.permutations(range(n))), dtype=np.intp)


_PERMUTATION_CHUNK = 4096


def _pooled_test(pairs: list[tuple[np.ndarray, np.ndarray]], permutations: int, seed: int) -> dict[str, Any]:
    """The mean Spearman ρ over the baselines and its two-sided permutation p-value ((k + 1)/(P + 1))."""
    rng = np.random.default_rng(seed)
    observed = np.mean([_pearson(a, b[None, :])[0] for a, b in pairs])
    null = np.zeros(permutations)
    for a, b in pairs:  # in chunks of rows, so that memory does not grow with the count (same draws)
        for start in range(0, permutations, _PERMUTATION_CHUNK):
            rows = min(_PERMUTATION_CHUNK, permutations - start)
            shuffled = rng.permuted(np.tile(a, (rows, 1)), axis=1)
            null[start:start + rows] += _pearson(b, shuffled)
    null /= len(pairs)
    extreme = int(np.count_nonzero(np.abs(null) >= abs(observed) - 1e-12))
    return {
        "mean_rho": float(observed),
        "p_value": (extreme + 1) / (permutations + 1),
        "permutations": permutations,
        "baselines": len(pairs),
    }


def _pearson(a: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """Pearson's r of vector ``a`` with each row of ``rows`` (ranks in, so Spearman's ρ out)."""
    a = a - a.mean()
    rows = rows - rows.mean(axis=1, keepdims=True)
    return rows @ a / (np.linalg.norm(rows, axis=1) * np.linalg.norm(a))
