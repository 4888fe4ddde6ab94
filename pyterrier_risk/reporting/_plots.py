"""The plots of the risk-sensitive evaluation papers, one call each.

* :func:`plot_risk_gain` — risk vs. gain trade-off curves over α (Wang et al., SIGIR 2012, Fig. 2);
* :func:`plot_helped_hurt` — helped–hurt histograms of per-topic changes over a baseline (2012, Figs. 1
  and 3);
* :func:`plot_georisk_alpha` — GeoRisk of every system as α grows (Dinçer et al., SIGIR 2016, Figs. 2–3),
  over an :func:`alpha_grid`;
* :func:`plot_topic_tj` — per-topic standardised jackknife bias T_J with ±2 lines (Dinçer et al.,
  SIGIR 2014, Fig. 2).

matplotlib is imported inside each function and figures are built with :class:`matplotlib.figure.Figure`
directly (no ``pyplot`` state, no GUI backend), so the functions work in headless processes and threads.
Each returns the Figure and, when ``path`` is given, also saves it as a PNG (written to a temporary name
and renamed when complete: an error or Ctrl-C leaves the previous file).
"""

from __future__ import annotations

import math
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from ..data import atomic_write

if TYPE_CHECKING:  # pragma: no cover
    from matplotlib.figure import Figure

DEFAULT_ALPHAS: tuple[float, ...] = tuple(float(a) for a in np.linspace(0.0, 10.0, 21))


def _new_figure(width: float, height: float) -> Figure:
    try:
        from matplotlib.figure import Figure
    except ModuleNotFoundError as e:  # pragma: no cover - depends on the environment
        raise ModuleNotFoundError(
            "plots need matplotlib: pip install 'pyterrier-risk[plots]'", name=e.name) from e
    return Figure(figsize=(width, height), layout="constrained")


def _finish(fig: Figure, path: str | os.PathLike | None, dpi: int = 120) -> Figure:
    if path is not None:
        path = Path(path)
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            with atomic_write(path, "wb", encoding=None) as f:  # whole or not at all
                fig.savefig(f, format="png", dpi=dpi)
        except OSError as e:
            raise OSError(e.errno, f"cannot write plot to {path}: {e.strerror or e}") from e
    return fig


def _wrap(text: str, width: int = 70) -> str:
    """``text`` in lines of at most ``width`` characters, broken between words only.

    A word longer than ``width`` (a run name, a query term) gets a line of its own rather than being cut.
    """
    import textwrap

    return "\n".join(textwrap.wrap(text, width, break_long_words=False, break_on_hyphens=False)) or text


def _line_colours(n: int) -> list[Any]:
    """``n`` line colours, distinct up to 20: matplotlib's ten (C0–C9), then the ten light tab20 tones.

    Beyond 20 the colours repeat; :func:`plot_georisk_alpha` then also changes the line style.
    """
    if n <= 10:
        return [f"C{j}" for j in range(n)]
    from matplotlib import colormaps
    from matplotlib.colors import ListedColormap

    cmap = colormaps["tab20"]
    assert isinstance(cmap, ListedColormap)  # a qualitative map: a list of colours
    # dark and light tone of each of tab10's hues, alternating
    tab20 = [tuple(rgb) for rgb in np.asarray(cmap.colors, dtype=float).tolist()]
    order = [*tab20[0::2], *tab20[1::2]]
    return [order[j % 20] for j in range(n)]


def _as_series(values: Any, what: str) -> pd.Series:
    if isinstance(values, pd.Series):
        s = values
    elif isinstance(values, Mapping):
        s = pd.Series(values)
    else:
        arr = np.asarray(values, dtype=float)
        if arr.ndim != 1:
            raise ValueError(f"{what}: expected one value per topic (1-d), got shape {arr.shape}")
        s = pd.Series(arr)
    s = s.astype(float)
    if s.isna().any():
        raise ValueError(f"{what}: contains NaN for topic(s) {list(s.index[s.isna()])[:5]}")
    return s


def _named_series(values: Any, what: str) -> dict[str, pd.Series]:
    """A Series/array (one unnamed entry) or a mapping name -> Series, as an ordered dict."""
    if isinstance(values, Mapping) and values and all(
            isinstance(v, (pd.Series, np.ndarray, list, tuple)) for v in values.values()):
        return {str(k): _as_series(v, f"{what}[{k!r}]") for k, v in values.items()}
    if isinstance(values, pd.DataFrame):
        return {str(c): _as_series(values[c], f"{what}[{c!r}]") for c in values.columns}
    s = _as_series(values, what)
    return {str(s.name) if s.name is not None else "": s}


def plot_risk_gain(points: pd.DataFrame, *, curve: str = "name", x: str = "risk", y: str = "gain",
                   label: str | None = "alpha", path: str | os.PathLike | None = None,
                   title: str | None = None, xlabel: str = "Risk (mean loss vs. baseline)",
                   ylabel: str = "Gain (Reward − Risk)", hull: bool = True) -> Figure:
    """Risk–gain trade-off curves (Wang et al., SIGIR 2012, Fig. 2), with the near-optimal hull (§5.7).

    Each row of ``points`` is one model evaluated against the baseline: ``Risk = (1/c) Σ max(0, b_i − r_i)``
    (eq. 1) on the x axis and ``Gain = Reward − Risk = (1/c) Σ (r_i − b_i)`` on the y axis. Rows sharing
    a ``curve`` value (e.g. one learner trained with α = 0, 1, 5, 10) are one line, its points joined
    along the curve (by falling risk, so that a sweep whose risk does not fall with α does not zig-zag),
    each annotated with its ``label`` (α) in the curve's colour; labels are moved apart so that none
    overlaps another or a point, and the label of a point several curves share (their α = 0 model) is
    written once. A curve with one row is a single point (e.g. a fixed run). A model up and to the left
    dominates. The axes span the points with a margin (:func:`risk_gain_limits`), not the origin.

    With ``hull`` (2012 §5.7): applying a model on a coin flip with probability p, and the baseline
    otherwise, scales its Risk and Gain by p, so it moves the point along the segment to the origin.
    For each curve whose first point (the smallest ``label``: the gain-only model, α = 0 in a learner's
    α sweep) has Gain > 0 and Risk > 0, with ``α* = Gain/Risk`` (:func:`pyterrier_risk.break_even_alpha`):

    * the break-even line: the dotted segment from that point towards the origin (URisk = 0 at α* all
      along), in the legend as ``break-even α* = …``; curves that start at the same model share it;
    * the curve's points with ``label <= α*`` (the paper's interesting trade-offs) ringed;
    * the near-optimal hull: the envelope of those trade-offs, drawn as one wide translucent band in the
      curve's colour: along the curve from its first point to its point with the largest
      ``label <= α*``, then towards the origin (the coin flips from there).

    The legend (the curves' names, then one short entry per line) sits right of the axes, off the data.

    Args:
        points: one row per point, with columns ``curve``, ``x``, ``y`` and optionally ``label``
            (e.g. the ``as_dict()`` of :func:`pyterrier_risk.risk_reward` plus ``name`` and ``alpha``).
        curve: column naming the curve a point belongs to.
        x: column for the x axis (risk).
        y: column for the y axis (gain).
        label: column used to annotate the points of a curve (``None``: no annotation).
        path: save the figure as PNG there.
        title: figure title.
        xlabel: x axis label.
        ylabel: y axis label.
        hull: draw the break-even line, the α range and the near-optimal hull (see above).

    Returns:
        The matplotlib Figure.
    """
    if not isinstance(points, pd.DataFrame):
        raise TypeError(f"points: expected a DataFrame, got {type(points).__name__}")
    needed = [c for c in (curve, x, y) + ((label,) if label else ()) if c not in points.columns]
    if needed:
        raise ValueError(f"points: missing column(s) {needed}; has {list(points.columns)}")
    if points.empty:
        raise ValueError("points: no rows to plot")
    fig = _new_figure(7.6, 4.5)
    ax = fig.add_subplot()
    drawn = []
    for name, group in points.groupby(curve, sort=False):
        group = _along_curve(group, x, label)
        (line,) = ax.plot(group[x].to_numpy(float), group[y].to_numpy(float),
                          "o-" if len(group) > 1 else "s", label=str(name), markersize=5)
        drawn.append((line, group))
    if hull:
        _hulls(ax, drawn, x, y, label)
    ax.axhline(0.0, color="grey", linewidth=0.8, linestyle=":")
    ax.set_xlim(*risk_gain_limits(points[x]))
    ax.set_ylim(*risk_gain_limits(points[y]))
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    default = f"Risk–gain trade-off (labels: {label})" if label else "Risk–gain trade-off"
    ax.set_title(_wrap(title or default), fontsize=10)
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.02, 1.0), borderaxespad=0.0)  # off the data
    if label:
        _point_labels(fig, ax, drawn, x, y, label)
    return _finish(fig, path)


def risk_gain_limits(values: Any, margin: float = 0.08) -> tuple[float, float]:
    """An axis range that holds ``values`` with ``margin`` of their span on each side (a lone value: ±10%)."""
    v = np.asarray(values, dtype=float)
    v = v[np.isfinite(v)]
    lo, hi = (float(v.min()), float(v.max())) if len(v) else (0.0, 1.0)
    span = hi - lo if hi > lo else (abs(hi) or 1.0) * 0.2
    return lo - margin * span, hi + margin * span


def _along_curve(group: pd.DataFrame, x: str, label: str | None) -> pd.DataFrame:
    """A curve's points in drawing order: by falling risk (ties: by ``label``), never doubling back."""
    keys, ascending = [x], [False]
    if label and _numeric_label(group, label):
        keys, ascending = [x, label], [False, True]
    return group.sort_values(keys, ascending=ascending, kind="stable")


def _point_labels(fig: Figure, ax: Any, drawn: list[tuple[Any, pd.DataFrame]], x: str, y: str,
                  label: str) -> list[Any]:
    """Each point's ``label`` in its curve's colour (a point curves share: once, black), moved apart."""
    from ._labels import repel_labels

    points: dict[tuple[float, float, str], list[str]] = {}  # (x, y, text) -> the colours of its curves
    for line, group in drawn:
        if len(group) < 2:
            continue
        for _, row in group.iterrows():
            value = row[label]
            text = f"{value:g}" if isinstance(value, (int, float, np.number)) else str(value)
            points.setdefault((float(row[x]), float(row[y]), text), []).append(line.get_color())
    texts = [ax.annotate(text, (px, py), textcoords="offset points", xytext=(4, 4), fontsize=7,
                         color=colours[0] if len(colours) == 1 else "black",  # shared: black
                         arrowprops={"arrowstyle": "-", "color": "0.7", "lw": 0.5})
             for (px, py, text), colours in points.items()]
    repel_labels(fig, texts)
    return texts


def _hulls(ax: Any, drawn: list[tuple[Any, pd.DataFrame]], x: str, y: str, label: str | None) -> None:
    """Each curve's break-even line and near-optimal hull (2012 §5.7), a shared break-even line once.

    Curves of one learner's α sweep share their first point (the α = 0 model), hence its break-even
    line and α range: it is drawn once, in grey (in the curve's colour when it is one curve's).
    """
    from ..core import gain_risk_ratio

    breakeven: dict[tuple[float, float], list[Any]] = {}  # the first model's point -> its curves' lines
    for line, group in drawn:
        ordered = group.sort_values(label, kind="stable") if _numeric_label(group, label) else group
        risk, gain = float(ordered[x].iloc[0]), float(ordered[y].iloc[0])
        a_star = gain_risk_ratio(gain, risk)
        if not (math.isfinite(a_star) and a_star > 0):  # no loss, no gain, or a loss on average: no hull
            continue
        breakeven.setdefault((risk, gain), []).append(line)
        if len(group) > 1 and _numeric_label(group, label):
            inside = ordered[ordered[label].to_numpy(float) <= a_star]
            ax.plot(inside[x].to_numpy(float), inside[y].to_numpy(float), "o", markersize=9,
                    color=line.get_color(), markerfacecolor="none", linewidth=0)
            ax.plot([*inside[x].to_numpy(float), 0.0], [*inside[y].to_numpy(float), 0.0], "-", linewidth=6,
                    alpha=0.2, solid_capstyle="round", color=line.get_color(),
                    label=f"near-optimal hull: {line.get_label()}")
    for (risk, gain), lines in breakeven.items():
        own = len(lines) == 1
        ax.plot([0.0, risk], [0.0, gain], ":", color=lines[0].get_color() if own else "grey", linewidth=1.2,
                label=f"break-even α* = {gain_risk_ratio(gain, risk):.3g}" + (f" ({lines[0].get_label()})"
                                                                              if own else ""))


def _numeric_label(group: pd.DataFrame, label: str | None) -> bool:
    return bool(label) and pd.api.types.is_numeric_dtype(group[label])


def helped_hurt_counts(scores: Any, baseline: Any, *, bin_width: float = 0.1,
                       relative: bool = False) -> pd.DataFrame:
    """Counts of topics per change bin, the data behind :func:`plot_helped_hurt`.

    The per-topic change is ``Δ_i = r_i − b_i`` (or ``(r_i − b_i)/b_i`` with ``relative=True``, topics with
    ``b_i = 0`` then dropped). Bins are ``[kw, (k+1)w)`` for Δ < 0 and ``((k−1)w, kw]`` for Δ > 0, so no
    bin straddles zero; ties (Δ = 0) are counted separately, as the 2012 paper leaves them out of wins and
    losses (§5.5, footnote 3).

    Args:
        scores: per-topic scores of one system (Series indexed by topic) or a mapping name -> Series.
        baseline: per-topic baseline scores (Series indexed by topic, aligned by label).
        bin_width: width of the bins on the Δ scale.
        relative: use relative change.

    Returns:
        A DataFrame indexed by bin (``"[-0.2,-0.1)"`` style labels, in order), one column per system,
        with the tie counts in ``df.attrs["ties"]`` (name -> count).
    """
    if not bin_width > 0:
        raise ValueError(f"bin_width must be > 0, got {bin_width}")
    systems = _named_series(scores, "scores")
    base = _as_series(baseline, "baseline")
    deltas: dict[str, np.ndarray] = {}
    for name, s in systems.items():
        if isinstance(s.index, pd.RangeIndex) and isinstance(base.index, pd.RangeIndex):
            if len(s) != len(base):
                raise ValueError(f"scores {name!r} has {len(s)} topics, baseline has {len(base)}")
        missing = s.index.difference(base.index)
        if len(missing):
            raise ValueError(f"baseline has no score for topic(s) {list(missing)[:5]} of {name!r}")
        b = base.reindex(s.index).to_numpy(float)
        d = s.to_numpy(float) - b
        if relative:
            keep = b != 0
            d = d[keep] / b[keep]
        deltas[name] = d
    # round away float noise so that e.g. 0.3 - 0.2 lands in the bin it belongs to
    scaled = {k: np.round(v / bin_width, 9) for k, v in deltas.items()}
    finite = np.concatenate([v for v in scaled.values()] + [np.zeros(1)])
    lo = int(min(math.floor(finite.min()), -1))
    hi = int(max(math.ceil(finite.max()), 1))
    labels = [f"[{k * bin_width:g},{(k + 1) * bin_width:g})" for k in range(lo, 0)]
    labels += [f"({(k - 1) * bin_width:g},{k * bin_width:g}]" for k in range(1, hi + 1)]
    counts = {}
    ties = {}
    for name, v in scaled.items():
        neg = np.floor(v[v < 0]).astype(int) - lo  # bin k in [lo, -1] -> position k - lo
        pos = np.ceil(v[v > 0]).astype(int) - 1 + (-lo)
        c = np.bincount(np.concatenate([neg, pos]).astype(int), minlength=len(labels))
        counts[name] = c[: len(labels)]
        ties[name] = int(np.sum(v == 0))
    out = pd.DataFrame(counts, index=pd.Index(labels, name="change"))
    out.attrs["ties"] = ties
    return out


def plot_helped_hurt(scores: Any, baseline: Any, *, bin_width: float = 0.1, relative: bool = False,
                     path: str | os.PathLike | None = None, title: str | None = None,
                     measure: str = "effectiveness") -> Figure:
    """Helped–hurt histogram of per-topic changes over a baseline (Wang et al., SIGIR 2012, Figs. 1, 3).

    The mass left of zero is what the 2012 paper calls Risk (eq. 1, times the number of topics), the mass
    right of zero Reward (eq. 2). Several systems (a mapping name -> scores, e.g. one learner per α as in
    Fig. 3) are drawn as grouped bars. See :func:`helped_hurt_counts` for the binning.

    Args:
        scores: per-topic scores (Series indexed by topic) or a mapping name -> Series.
        baseline: per-topic baseline scores.
        bin_width: bin width on the change scale (0.1 = the paper's 10 NDCG points).
        relative: histogram of relative change instead of absolute change.
        path: save the figure as PNG there.
        title: figure title.
        measure: the measure's name, for the axis label.

    Returns:
        The matplotlib Figure.
    """
    counts = helped_hurt_counts(scores, baseline, bin_width=bin_width, relative=relative)
    n_sys = counts.shape[1]
    fig = _new_figure(max(6.0, 0.35 * len(counts) * max(1, n_sys) ** 0.5 + 2), 4.0)
    ax = fig.add_subplot()
    pos = np.arange(len(counts))
    width = 0.8 / n_sys
    zero = int(sum(lab.startswith("[") for lab in counts.index))  # first positive bin
    for j, name in enumerate(counts.columns):
        ties = counts.attrs["ties"][name]
        lab = f"{name} ({ties} ties)" if name else f"{ties} ties"
        ax.bar(pos - 0.4 + width * (j + 0.5), counts[name].to_numpy(), width=width, label=lab)
    ax.axvline(zero - 0.5, color="black", linewidth=1.0)
    ax.set_xticks(pos)
    ax.set_xticklabels(list(counts.index), rotation=60, ha="right", fontsize=7)
    kind = "Relative change" if relative else "Change"
    ax.set_xlabel(f"{kind} in {measure} over the baseline (left: hurt, right: helped)")
    ax.set_ylabel("Number of topics")
    ax.set_title(_wrap(title or "Helped–hurt histogram"), fontsize=10)
    ax.legend(fontsize=7)
    return _finish(fig, path)


def alpha_grid(alphas: Sequence[float] = (), points: int = 21, upper: float = 10.0) -> list[float]:
    """The α values of a GeoRisk-vs-α curve: an even grid from 0 to the largest α, plus ``alphas``.

    ``points`` evenly spaced values from 0 to ``max(upper, *alphas)``, merged with the requested
    ``alphas`` (each drawn exactly) and sorted. The size is ``points + len(alphas)`` at most,
    whatever the largest α (``--alpha 1e300`` costs what ``--alpha 10`` costs).

    Args:
        alphas: α values that must be on the curve (finite, ``>= 0``).
        points: number of evenly spaced values (at least 2).
        upper: the grid reaches at least this α.

    Returns:
        The sorted, distinct α values.
    """
    if points < 2:
        raise ValueError(f"points must be >= 2, got {points}")
    wanted = [float(a) for a in alphas]
    if any(not math.isfinite(a) or a < 0 for a in wanted):
        raise ValueError(f"alphas must be finite and >= 0, got {wanted}")
    top = max([float(upper), *wanted])
    return sorted({*(float(a) for a in np.linspace(0.0, top, points)), *wanted})


def georisk_curves(matrix: pd.DataFrame, alphas: Sequence[float] = DEFAULT_ALPHAS) -> pd.DataFrame:
    """GeoRisk of every system for each α (rows: α, columns: systems), the data of :func:`plot_georisk_alpha`.

    Args:
        matrix: systems × topics effectiveness matrix.
        alphas: the α values.

    Returns:
        A DataFrame indexed by α with one column per system.
    """
    from ..core import georisk_curve

    if not isinstance(matrix, pd.DataFrame):
        matrix = pd.DataFrame(np.asarray(matrix, dtype=float))
    out = georisk_curve(matrix, [float(a) for a in alphas]).T
    out.index = pd.Index([float(a) for a in out.index], name="alpha")
    out.columns = [str(c) for c in out.columns]
    return out


def plot_georisk_alpha(matrix: pd.DataFrame, alphas: Sequence[float] = DEFAULT_ALPHAS, *,
                       path: str | os.PathLike | None = None, title: str | None = None) -> Figure:
    """GeoRisk of every system as α grows (Dinçer et al., SIGIR 2016, Figs. 2–3).

    ``GeoRisk(s_i, α) = sqrt(Si/c · Φ(ZRisk(s_i, α)/c))`` (2016 eq. 7), computed with
    :func:`pyterrier_risk.georisk` over all rows of ``matrix`` for each α; one line per system. A line that
    drops fast as α grows marks a system whose losses, relative to what the other systems achieve on the
    same topics, are large.

    Args:
        matrix: systems × topics effectiveness matrix (rows named by system).
        alphas: α values for the x axis (default 0, 0.5, …, 10).
        path: save the figure as PNG there.
        title: figure title.

    Returns:
        The matplotlib Figure.
    """
    curves = georisk_curves(matrix, alphas)
    fig = _new_figure(6.5, 4.5)
    ax = fig.add_subplot()
    markers = "os^vD<>phx*+"
    colours = _line_colours(curves.shape[1])
    for j, name in enumerate(curves.columns):
        # lines 11-20 get the light tones and a dashed line; from the 21st the colours repeat, the style not
        ax.plot(curves.index.to_numpy(float), curves[name].to_numpy(float), marker=markers[j % len(markers)],
                markersize=3, label=str(name), color=colours[j], linestyle=("-", "--", ":")[(j // 10) % 3])
    ax.set_xlabel("α")
    ax.set_ylabel("GeoRisk")
    ax.set_title(_wrap(title or "GeoRisk vs. α"), fontsize=10)
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=7, loc="best", ncols=1 if curves.shape[1] <= 10 else 2)
    return _finish(fig, path)


def plot_topic_tj(t_j: Any, *, threshold: float = 2.0, path: str | os.PathLike | None = None,
                  title: str | None = None, ncols: int = 2) -> Figure:
    """Per-topic standardised jackknife bias T_J as bars (Dinçer et al., SIGIR 2014, Fig. 2).

    ``T_J,i`` is topic i's standardised jackknife estimate of bias in URisk (see
    :func:`pyterrier_risk.trisk`, attribute ``t_j``); losses are negative. Topics beyond ``±threshold``
    (2 ≈ the 5% level) are significant losses/wins and are coloured; horizontal lines mark ``±threshold``.

    Args:
        t_j: per-topic T_J (Series indexed by topic), or a mapping panel title -> Series
            (e.g. ``{"run A, α=0": ..., "run A, α=5": ...}``), one panel each.
        threshold: where to draw the significance lines.
        path: save the figure as PNG there.
        title: figure title.
        ncols: panels per row.

    Returns:
        The matplotlib Figure: every panel on one y scale (the largest ``|T_J|``), topics on the x axis.
    """
    panels = _named_series(t_j, "t_j")
    n = len(panels)
    ncols = max(1, min(ncols, n))
    nrows = math.ceil(n / ncols)
    n_topics = max(len(s) for s in panels.values())
    fig = _new_figure(ncols * max(4.5, min(8.0, 0.06 * n_topics + 2.5)), 2.8 * nrows + 0.5)
    axes = fig.subplots(nrows, ncols, squeeze=False, sharey=True)  # one scale: panels compare at a glance
    top = max([threshold, *(float(np.max(np.abs(s.to_numpy(float)))) for s in panels.values() if len(s))])
    for ax, (name, s) in zip(axes.flat, panels.items(), strict=False):
        v = s.to_numpy(float)
        colors = np.where(v <= -threshold, "tab:red", np.where(v >= threshold, "tab:green", "tab:grey"))
        ax.bar(np.arange(len(v)), v, color=colors, width=0.8)
        for h in (-threshold, threshold):
            ax.axhline(h, color="black", linewidth=0.8, linestyle="--")
        ax.axhline(0.0, color="black", linewidth=0.5)
        step = max(1, len(v) // 25)
        ax.set_xticks(np.arange(0, len(v), step))
        ax.set_xticklabels([str(t) for t in s.index[::step]], rotation=90, fontsize=6)
        ax.set_ylim(-1.2 * top, 1.2 * top)
        ax.set_ylabel("$T_J$")
        ax.set_xlabel(f"topic ({len(v)})", fontsize=8)
        if name:
            ax.set_title(_wrap(name, 60), fontsize=9)
        losses, wins = int(np.sum(v <= -threshold)), int(np.sum(v >= threshold))
        ax.text(0.01, 0.97, f"{losses} sig. losses, {wins} sig. wins", transform=ax.transAxes,
                va="top", fontsize=7)
    for ax in list(axes.flat)[n:]:
        ax.set_visible(False)
    fig.suptitle(_wrap(title or "Per-topic standardised jackknife bias $T_J$", 100), fontsize=10)
    return _finish(fig, path)
