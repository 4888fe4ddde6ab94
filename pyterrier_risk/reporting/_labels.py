"""Labels that avoid each other and the points they name.

Used by the scatter plots of :mod:`._plots` and :mod:`._analysis_plots` (the risk–gain α labels, the PCA's
system names).
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:  # pragma: no cover
    from matplotlib.figure import Figure

__all__ = ["repel_labels"]

#: how far (points) from its point a label may go, nearest first
_RADII = (3.0, 7.0, 12.0, 18.0, 26.0, 36.0, 48.0, 62.0, 80.0, 100.0, 125.0, 155.0)
#: the directions tried at each distance, upper right first, then around
_ANGLES = tuple(math.radians(a) for a in (45, 0, 90, 315, 135, 270, 180, 225, 22.5, 67.5, 112.5, 157.5,
                                          202.5, 247.5, 292.5, 337.5))


def _apart(box: np.ndarray, others: list[np.ndarray] | np.ndarray, pad: float) -> bool:
    """Whether ``box`` (x0, y0, x1, y1) keeps ``pad`` away from every box of ``others``."""
    return all(box[2] + pad <= o[0] or o[2] + pad <= box[0] or box[3] + pad <= o[1] or o[3] + pad <= box[1]
               for o in others)


def _inside(box: np.ndarray, frame: np.ndarray) -> bool:
    return bool(box[0] >= frame[0] and box[1] >= frame[1] and box[2] <= frame[2] and box[3] <= frame[3])


def repel_labels(fig: Figure, labels: list[Any], *, pad: float = 2.0, mark: float = 5.0) -> None:
    """Place annotation texts so that no two overlap, none covers a labelled point, all stay in the axes.

    Each label in turn takes the first free place around its point, nearest first (distances
    :data:`_RADII` points, upper right first, then around: :data:`_ANGLES`), free meaning ``pad`` points
    away from the labels placed before it and from every labelled point's marker (``mark`` points either
    side), and inside the axes; a thin line (the annotation's arrow, when it has one) joins a label to its
    point. A label with no free place keeps the nearest place that stays in the axes. The layout is fixed
    first, so the boxes are those of the saved figure. Deterministic.
    """
    if not labels:
        return
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.text import Text

    canvas = fig.canvas if isinstance(fig.canvas, FigureCanvasAgg) else FigureCanvasAgg(fig)  # PNG's own
    canvas.draw()  # the constrained layout, hence the axes' final place
    renderer = canvas.get_renderer()
    pixels = fig.dpi / 72.0
    for a in labels:  # centred on its place: the offset is the box's centre
        a.set_horizontalalignment("center")
        a.set_verticalalignment("center")
    sizes = np.array([[e.width, e.height] for e in (Text.get_window_extent(a, renderer) for a in labels)])
    anchors = np.array([a.axes.transData.transform(a.xy) for a in labels], dtype=float)
    marks = np.hstack([anchors - mark * pixels, anchors + mark * pixels])
    frame = labels[0].axes.get_window_extent(renderer).extents
    placed: list[np.ndarray] = []
    for a, (w, h), anchor in zip(labels, sizes, anchors, strict=True):
        fallback = None
        for radius in _RADII:
            for angle in _ANGLES:
                cx = anchor[0] + math.cos(angle) * (radius * pixels + w / 2)
                cy = anchor[1] + math.sin(angle) * (radius * pixels + h / 2)
                box = np.array([cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2])
                if not _inside(box, frame):
                    continue
                fallback = box if fallback is None else fallback
                if _apart(box, placed, pad * pixels) and _apart(box, marks, pad * pixels):
                    break
            else:
                continue
            break
        else:
            box = fallback if fallback is not None else np.array([*anchor, *anchor]) + np.array([0, 0, w, h])
        placed.append(box)
        centre = (box[:2] + box[2:]) / 2
        a.set_position(tuple((centre - anchor) / pixels))
