"""Plots of the baseline analyses: Kendall-distance bins and baseline sensitivity.

* :func:`plot_rank_distance` — the distribution of per-topic Kendall distances from the baseline's
  ranking, one stacked bar per run (Wang et al., SIGIR 2012, Fig. 5);
* :func:`plot_baselines_pca` — the systems on the first two principal axes of the systems × topics
  matrix, with MEAN/MEDIAN/MAX as virtual runs (Dinçer et al., ECIR 2014, Figs. 1–2);
* :func:`plot_baseline_ranks` — each system's URisk rank under every baseline choice (the rankings
  behind the paper's Table 2).

Like :mod:`._plots`, each builds a :class:`matplotlib.figure.Figure` without ``pyplot`` and saves a PNG
when ``path`` is given.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from ._labels import repel_labels
from ._plots import _finish, _line_colours, _new_figure, _wrap

if TYPE_CHECKING:  # pragma: no cover
    from matplotlib.figure import Figure

__all__ = ["plot_rank_distance", "plot_baselines_pca", "plot_baseline_ranks", "repel_labels"]


def plot_rank_distance(
    table: pd.DataFrame, *, path: str | os.PathLike | None = None, title: str | None = None
) -> Figure:
    """Stacked bars of each run's Kendall-distance bins (Wang et al. 2012, Fig. 5).

    Args:
        table: :func:`~pyterrier_risk.rank_distance_bins` output (fractions or counts; the bin
            columns are those before ``undefined``).
        path: PNG to write, or None.
        title: the title (default: one naming the figure).

    Returns:
        The Figure.

    Raises:
        ValueError: a table without bin columns or without rows.
    """
    if "undefined" not in table.columns or table.columns.get_loc("undefined") == 0 or not len(table):
        raise ValueError("plot_rank_distance takes the table of rank_distance_bins (bins, then 'undefined')")
    bins = list(table.columns[: table.columns.get_loc("undefined")])
    values = table[bins].to_numpy(dtype=float)
    labels = [str(i) for i in table.index]
    slanted = max(len(s) for s in labels) > _UPRIGHT_CHARS  # a label wider than its bar: slant them all
    width = 3.6 + (0.45 if slanted else 0.7) * len(table)
    fig = _new_figure(width, 4.2 + (0.06 * min(max(len(s) for s in labels), 40) if slanted else 0))
    ax = fig.add_subplot()
    colours = _colours(len(bins))
    bottom = np.zeros(len(table))
    x = np.arange(len(table))  # positions, not the labels: two runs with one label keep two bars
    for k, label in enumerate(bins):
        ax.bar(x, values[:, k], bottom=bottom, color=colours[k], label=f"bin {k}: {label}")
        bottom += values[:, k]
    if slanted:
        ax.set_xticks(x, labels, rotation=35, ha="right", rotation_mode="anchor", fontsize="small")
    else:
        ax.set_xticks(x, labels)
    ax.set_xlabel(str(table.index.name or "name"))
    ax.set_ylabel("fraction of topics" if np.allclose(bottom, 1.0) else "topics")
    default = "Kendall distance to the baseline ranking per topic"
    ax.set_title(_wrap(title or default, int(13 * (width - 2.3))), fontsize=10)  # ~13 characters an inch
    ax.legend(loc="center left", bbox_to_anchor=(1.0, 0.5), fontsize="small", reverse=True)
    return _finish(fig, path)


_UPRIGHT_CHARS = 8  # the longest run label printed upright under a bar


def _colours(n: int) -> list[Any]:
    """``n`` bin colours from light (bin 0, the rankings closest to the baseline's) to dark.

    viridis read backwards from yellow and stopped short of its near-black end, so that neighbouring
    bins, the first two included, differ visibly.
    """
    from matplotlib import colormaps

    cmap = colormaps["viridis"]
    return [cmap(1.0 - 0.9 * k / max(n - 1, 1)) for k in range(n)]


def plot_baselines_pca(
    result: Any, *, path: str | os.PathLike | None = None, title: str | None = None
) -> Figure:
    """The systems on the first two principal axes, virtual baselines marked (Dinçer et al. 2014, Figs. 1–2).

    Args:
        result: a :class:`~pyterrier_risk.BaselineSensitivity` (its ``pca`` and ``explained``),
            computed with at least two components.
        path: PNG to write, or None.
        title: the title.

    Returns:
        The Figure; the axis labels give each axis's share of the variance. Labels that would overlap
        are moved apart (:func:`repel_labels`), a thin line joining each to its point.
    """
    pca, explained = result.pca, result.explained
    if pca.shape[1] < 2:
        raise ValueError("plot_baselines_pca needs two principal axes (components >= 2)")
    real = list(result.urisk.index)
    fig = _new_figure(6.4, 5.2)
    ax = fig.add_subplot()
    ax.axhline(0, color="0.8", lw=0.8)
    ax.axvline(0, color="0.8", lw=0.8)
    labels = []
    for name, (x, y) in pca.iloc[:, :2].iterrows():
        virtual = name not in real
        ax.scatter([x], [y], marker="s" if virtual else "o", color="C3" if virtual else "C0")
        labels.append(ax.annotate(str(name), (x, y), fontsize="x-small", xytext=(3, 3),
                                  textcoords="offset points", color="C3" if virtual else "black",
                                  arrowprops={"arrowstyle": "-", "color": "0.6", "lw": 0.5}))
    ax.set_xlabel(f"PC1 ({explained.iloc[0]:.1%} of the variance)")
    ax.set_ylabel(f"PC2 ({explained.iloc[1]:.1%} of the variance)")
    ax.set_title(_wrap(title or "Systems × topics PCA; squares: virtual baselines", 60), fontsize=10)
    repel_labels(fig, labels)
    return _finish(fig, path)


def plot_baseline_ranks(
    result: Any, *, path: str | os.PathLike | None = None, title: str | None = None
) -> Figure:
    """Each system's URisk rank (1 = best) under every baseline: one line per system.

    Args:
        result: a :class:`~pyterrier_risk.BaselineSensitivity`.
        path: PNG to write, or None.
        title: the title (default: α and the Friedman test, when there is one).

    Returns:
        The Figure. A run is missing (a gap) where it is the baseline itself.
    """
    ranks = result.ranks
    fig = _new_figure(2.0 + 0.45 * ranks.shape[1], 1.5 + 0.28 * ranks.shape[0])
    ax = fig.add_subplot()
    x = np.arange(ranks.shape[1])
    colours = _line_colours(ranks.shape[0])  # distinct up to 20 runs, then the line style changes too
    for k, (name, row) in enumerate(ranks.iterrows()):
        ax.plot(x, row.to_numpy(dtype=float), marker="o", ms=3, lw=1, label=str(name), color=colours[k],
                linestyle=("-", "--", ":")[(k // 20) % 3])
    ax.set_xticks(x, [str(c) for c in ranks.columns], rotation=60, ha="right", fontsize="x-small")
    ax.set_yticks(np.arange(1, ranks.shape[0] + 1))
    ax.tick_params(axis="y", labelsize="x-small")
    ax.invert_yaxis()
    ax.set_ylabel("rank by URisk (1 = best)")
    ax.set_xlabel("baseline")
    f = result.friedman
    test = f"; Friedman chi2 = {f.statistic:.2f}, p = {f.p_value:.2g}" if f is not None else ""
    default = f"Rankings under each baseline (alpha = {result.alpha:g}{test})"
    ax.set_title(_wrap(title or default, int(9 * (2.0 + 0.45 * ranks.shape[1]))), fontsize="small")
    ax.legend(loc="center left", bbox_to_anchor=(1.0, 0.5), fontsize="xx-small")
    return _finish(fig, path)
