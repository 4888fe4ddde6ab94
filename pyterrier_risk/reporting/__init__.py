"""Reporting: tables (markdown, LaTeX, CSV) and the papers' plots (matplotlib, imported lazily).

Tables have paper-ready options (bold best values, significance marks, caption and label) and compact
layouts (short labels with a legend, long/tidy, transposed).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .._lazy import lazy_exports

_EXPORTS = {
    "georisk_curves": "_plots",
    "helped_hurt_counts": "_plots",
    "plot_georisk_alpha": "_plots",
    "plot_helped_hurt": "_plots",
    "plot_risk_gain": "_plots",
    "plot_topic_tj": "_plots",
    "plot_baseline_ranks": "_analysis_plots",
    "plot_baselines_pca": "_analysis_plots",
    "plot_rank_distance": "_analysis_plots",
    "render_table": "_tables",
    "write_table": "_tables",
    "DEFAULT_LOWER_IS_BETTER": "_styling",
    "TableStyle": "_styling",
    "column_info": "_layout",
    "short_labels": "_layout",
    "tidy_results": "_layout",
}
# helpers the other layers use (they import a layer through its package, never its private modules)
_INTERNAL = {
    "alpha_grid": "_plots",
    "table_format": "_text",
}
__all__ = list(_EXPORTS)

if TYPE_CHECKING:  # the lazy names for type checkers and editors (tests/test_package.py: the same)
    from ._analysis_plots import plot_baseline_ranks as plot_baseline_ranks
    from ._analysis_plots import plot_baselines_pca as plot_baselines_pca
    from ._analysis_plots import plot_rank_distance as plot_rank_distance
    from ._layout import column_info as column_info
    from ._layout import short_labels as short_labels
    from ._layout import tidy_results as tidy_results
    from ._plots import alpha_grid as alpha_grid
    from ._plots import georisk_curves as georisk_curves
    from ._plots import helped_hurt_counts as helped_hurt_counts
    from ._plots import plot_georisk_alpha as plot_georisk_alpha
    from ._plots import plot_helped_hurt as plot_helped_hurt
    from ._plots import plot_risk_gain as plot_risk_gain
    from ._plots import plot_topic_tj as plot_topic_tj
    from ._styling import DEFAULT_LOWER_IS_BETTER as DEFAULT_LOWER_IS_BETTER
    from ._styling import TableStyle as TableStyle
    from ._tables import render_table as render_table
    from ._tables import write_table as write_table
    from ._text import table_format as table_format

__getattr__, __dir__ = lazy_exports(__name__, {**_EXPORTS, **_INTERNAL})
