"""Labels that avoid each other and the points they name.

Used by the scatter plots of :mod:`._plots` and :mod:`._analysis_plots` (the risk–gain α labels, the PCA's
system names).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:  # pragma: no cover
    from matplotlib.figure import Figure

__all__ = ["repel_labels"]


def repel_labels(fig: Figure, labels: list[Any], *, rounds: int = 300, pad: float = 2.0) -> None:
    """Move annotation texts apart until no two boxes overlap, nor a box a labelled point.

    Each round pushes every pair of overlapping text boxes apart the shorter way out (half the overlap
    each, plus ``pad`` points), and a text off a point it covers (the whole overlap), in display space;
    then the texts' offsets are set (a thin line, the annotation's arrow, joins a moved text to its
    point). The layout is fixed first, so the boxes are those of the saved figure. Deterministic.
    """
    if len(labels) < 2:
        return
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    canvas = fig.canvas if isinstance(fig.canvas, FigureCanvasAgg) else FigureCanvasAgg(fig)  # PNG's own
    canvas.draw()  # the constrained layout, hence the axes' final place
    renderer = canvas.get_renderer()
    pixels = fig.dpi / 72.0
    offsets = np.array([a.get_position() for a in labels], dtype=float) * pixels
    from matplotlib.text import Text

    # the texts' own boxes: an annotation's extent also covers its arrow (the leader line)
    boxes = np.array([Text.get_window_extent(a, renderer).extents for a in labels], dtype=float)
    base = boxes - np.hstack([offsets, offsets])  # each box with a zero offset
    anchors = np.array([a.axes.transData.transform(a.xy) for a in labels])
    marks = np.hstack([anchors - 5 * pixels, anchors + 5 * pixels])  # a marker's box
    for _ in range(rounds):
        if not _push_apart(base + np.hstack([offsets, offsets]), marks, offsets, pad * pixels):
            break
    for a, (dx, dy) in zip(labels, offsets / pixels, strict=True):
        a.set_position((dx, dy))


def _overlap(a: np.ndarray, b: np.ndarray, pad: float) -> tuple[float, float]:
    """How far two boxes (x0, y0, x1, y1) overlap along x and y, ``pad`` included (<= 0: apart)."""
    return (min(a[2], b[2]) - max(a[0], b[0]) + pad, min(a[3], b[3]) - max(a[1], b[1]) + pad)


def _away(a: np.ndarray, b: np.ndarray, ox: float, oy: float, tie: int) -> np.ndarray:
    """The shorter way out of an overlap, pointing from box ``b`` to box ``a`` (its full length)."""
    centre = (a[:2] + a[2:]) / 2 - (b[:2] + b[2:]) / 2
    sign = np.sign(centre) + (centre == 0) * np.array([1.0, 1.0 if tie % 2 else -1.0])
    return (np.array([0.0, oy]) if oy < ox else np.array([ox, 0.0])) * sign


def _push_apart(boxes: np.ndarray, marks: np.ndarray, offsets: np.ndarray, pad: float) -> bool:
    """One round of :func:`repel_labels` (in pixels); updates ``offsets``; returns whether a box moved."""
    moved = False
    for i in range(len(boxes)):
        for j in range(i + 1, len(boxes)):
            ox, oy = _overlap(boxes[i], boxes[j], pad)
            if ox > 0 and oy > 0:
                step = _away(boxes[j], boxes[i], ox, oy, j) / 2
                offsets[i] -= step
                offsets[j] += step
                boxes[i] -= np.tile(step, 2)
                boxes[j] += np.tile(step, 2)
                moved = True
        for mark in marks:
            ox, oy = _overlap(boxes[i], mark, 0.0)
            if ox > 0 and oy > 0:
                step = _away(boxes[i], mark, ox + pad, oy + pad, i)
                offsets[i] += step
                boxes[i] += np.tile(step, 2)
                moved = True
    return moved

