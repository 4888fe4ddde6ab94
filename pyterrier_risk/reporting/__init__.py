"""Reporting: tables (markdown, LaTeX, CSV) and the papers' plots (matplotlib, imported lazily).

Tables have paper-ready options (bold best values, significance marks, caption and label) and compact
layouts (short labels with a legend, long/tidy, transposed).
"""

from __future__ import annotations

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
__getattr__, __dir__ = lazy_exports(__name__, {**_EXPORTS, **_INTERNAL})
