"""The risk plots against a baseline, shared by the study's report and ``pyterrier-risk eval --plots``.

:func:`plot_against_baseline` draws GeoRisk vs α of all runs and, against the baseline, the risk–gain
trade-off, helped–hurt histograms and T_J per topic (the 2012, 2014 and 2016 papers' figures);
:func:`make_plots` is the study's use of it, plus the Kendall-distance bins and the systems' PCA.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from ..core import risk_reward, trisk
from ..reporting import (
    plot_baselines_pca,
    plot_georisk_alpha,
    plot_helped_hurt,
    plot_rank_distance,
    plot_risk_gain,
    plot_topic_tj,
)
from ._settings import PLAIN, Study, objective_label

if TYPE_CHECKING:
    from ._evaluate import Evaluation, StudyTables


def risk_gain_points(matrix: pd.DataFrame, baseline: str,
                     curves: Mapping[str, Sequence[tuple[str, float]]] | None = None) -> pd.DataFrame:
    """Risk and Gain of every run against ``baseline`` (:func:`pyterrier_risk.risk_reward`, 2012 eqs. 1–3).

    Args:
        matrix: runs × topics of one measure.
        baseline: the row of the baseline (left out of the points).
        curves: run -> the (curve, α) points it stands for (a run trained at α = 0 may start several
            curves); a run not in it is one point named by itself, with α NaN.

    Returns:
        One row per point: ``name`` (the curve), ``alpha``, ``risk``, ``gain``.
    """
    base, rows = matrix.loc[baseline], []
    for name in (n for n in matrix.index if n != baseline):
        rr = risk_reward(matrix.loc[name], base)
        rows += [{"name": c, "alpha": a, "risk": rr.risk, "gain": rr.gain}
                 for c, a in (curves or {}).get(name, [(name, float("nan"))])]
    return pd.DataFrame(rows, columns=["name", "alpha", "risk", "gain"])


def _tj_panels(matrix: pd.DataFrame, baseline: str, runs: str | Sequence[str],
               alphas: Sequence[float]) -> dict[str, pd.Series]:
    """One run: its T_J at each α; several: each run's T_J at the largest α (2014 eq. 23)."""
    base = matrix.loc[baseline]
    if isinstance(runs, str):
        return {f"α={a:g}": trisk(matrix.loc[runs], base, alpha=a).t_j for a in alphas}
    top = max(alphas)
    return {f"{n} vs. {baseline} (T_J at α={top:g})": trisk(matrix.loc[n], base, alpha=top).t_j for n in runs}


def plot_against_baseline(matrix: pd.DataFrame, baseline: str | None, folder: Path, *, measure: str,
                          alphas: Sequence[float], groups: Mapping[str, str | Sequence[str]] | None = None,
                          georisk_alphas: Sequence[float] | None = None, suffix: str = "",
                          curves: Mapping[str, Sequence[tuple[str, float]]] | None = None,
                          titles: Mapping[str, str] | None = None) -> dict[str, Path]:
    """Write the risk plots of ``matrix`` as PNG files in ``folder``.

    * ``georisk_alpha<suffix>.png``: GeoRisk of every run as α grows (2016 Figs. 2–3), with two runs or more;
    * ``risk_gain<suffix>.png``: :func:`risk_gain_points` against ``baseline`` (2012 Fig. 2), the points
      of a curve labelled by α when ``curves`` is given;
    * per ``stem -> runs`` of ``groups``, ``helped_hurt<stem><suffix>.png`` (2012 Figs. 1, 3) and
      ``topic_tj<stem><suffix>.png`` (2014 Fig. 2): one run (a ``str``) with a T_J panel per α, or
      several runs (a list) in one histogram with a T_J panel each at the largest α.

    Without a baseline only GeoRisk is drawn.

    Args:
        matrix: runs × topics of ``measure``.
        baseline: the baseline's row, or None.
        folder: the folder of the files (it must exist).
        measure: the measure's name, for titles and axes.
        alphas: the α of the T_J panels.
        groups: file stem -> the run or runs of a helped–hurt and a T_J figure.
        georisk_alphas: the α grid of the GeoRisk curves (default: reporting's 0, 0.5, …, 10).
        suffix: the end of every file name (e.g. the measure's name).
        curves: passed to :func:`risk_gain_points`.
        titles: titles by figure (``georisk_alpha``, ``risk_gain``, ``helped_hurt``, ``topic_tj``)
            instead of the default ones.

    Returns:
        The written files by name (file name without ``.png``).

    Raises:
        OSError: a file cannot be written (``strerror`` names it).
    """
    titles, written = dict(titles or {}), {}

    def path(stem: str) -> Path:
        written[f"{stem}{suffix}"] = folder / f"{stem}{suffix}.png"
        return written[f"{stem}{suffix}"]

    if len(matrix) >= 2:
        grid = {} if georisk_alphas is None else {"alphas": georisk_alphas}
        with np.errstate(over="ignore"):  # (1 + α) · z → -inf at α near 1e308: GeoRisk is then 0
            plot_georisk_alpha(matrix, **grid, path=path("georisk_alpha"), title=titles.get(
                "georisk_alpha", f"GeoRisk of {len(matrix)} runs on {measure}"))
    if baseline is None:
        return written
    points = risk_gain_points(matrix, baseline, curves)
    if len(points):
        plot_risk_gain(points, label="alpha" if curves else None, path=path("risk_gain"), title=titles.get(
            "risk_gain", f"Risk–gain of each run against {baseline} on {measure}"))
    base = matrix.loc[baseline]
    for stem, runs in (groups or {}).items():
        scores = matrix.loc[runs] if isinstance(runs, str) else {n: matrix.loc[n] for n in runs}
        plot_helped_hurt(scores, base, measure=measure, path=path(f"helped_hurt{stem}"),
                         title=titles.get("helped_hurt", f"{runs} vs. {baseline}"))
        plot_topic_tj(_tj_panels(matrix, baseline, runs, alphas), path=path(f"topic_tj{stem}"),
                      title=titles.get("topic_tj", f"T_J per topic: {runs} vs. {baseline} on {measure}"))
    return written


def tj_panels(matrix: pd.DataFrame, study: Study, baseline: str) -> dict[str, pd.Series]:
    """Per-topic T_J at the largest α of :meth:`Study.compared_runs` against the first stage ``baseline``."""
    return _tj_panels(matrix, baseline, study.compared_runs(), study.alphas)


def _curves(study: Study) -> dict[str, list[tuple[str, float]]]:
    """The risk–gain curve of each objective: LambdaMART (α = 0) is the first point of every one."""
    curves = [objective_label(o) for o in study.objectives] or [PLAIN]
    return {r.name: [(r.label, r.alpha)] if r.alpha > 0 else [(c, 0.0) for c in curves]
            for r in study.rerankers()}


def make_plots(ev: Evaluation, tables: StudyTables, study: Study, pisa: Sequence[str], plots_dir: Path,
               baseline: str) -> dict[str, Path]:
    """The report's PNG plots: risk–gain, helped–hurt, GeoRisk vs α, T_J per topic, Kendall bins, PCA.

    The first four by :func:`plot_against_baseline` over the PISA systems and the re-rankers; the
    Kendall-distance bins from ``tables.kendall``, the systems' PCA from ``tables.baselines``.
    """
    matrix, primary, top = ev.matrix, str(ev.measure), max(study.alphas)
    titles = {"risk_gain": f"Risk–gain against {baseline} on {primary} (labels: training α)",
              "helped_hurt": f"Helped–hurt against {baseline}: LambdaMART and the re-rankers with α={top:g}",
              "georisk_alpha": f"GeoRisk of {len(matrix)} runs on {primary} ({study.dataset})",
              "topic_tj": f"Per-topic T_J of the re-rankers against their first stage {baseline}"}
    plots_dir.mkdir(parents=True, exist_ok=True)
    plots = plot_against_baseline(matrix, baseline, plots_dir, measure=primary, alphas=study.alphas,
                                  groups={"": study.compared_runs()}, curves=_curves(study), titles=titles)
    labels = {r.name: f"{r.label}\nα={r.alpha:g}" for r in study.rerankers()}  # two short lines per bar
    bars = tables.kendall.assign(name=tables.kendall["name"].map(labels)).set_index("name")
    plots["kendall"] = plots_dir / "kendall.png"
    plot_rank_distance(bars.rename_axis("re-ranker"), path=plots["kendall"],
                       title=f"Kendall distance of each re-ranker's top {study.depth} from {baseline}'s")
    plots["baselines_pca"] = plots_dir / "baselines_pca.png"
    plot_baselines_pca(tables.baselines, path=plots["baselines_pca"],
                       title=f"The {len(matrix)} runs × {matrix.shape[1]} topics (squares: "
                             "virtual baselines)")
    return plots
