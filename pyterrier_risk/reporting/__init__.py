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
    "LearnerTableSettings": "_learner",
    "render_learner_table": "_learner",
    "render_convergence_table": "_learner",
    "render_kendall_table": "_learner",
    "LEARNER_LAYOUTS": "_learner",
    "PAPER_COLUMNS": "_learner",
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
    "MAX_WIDTH": "_text",
    "correction_name": "_text",
    "markdown_width": "_text",
    "render_in_parts": "_tables",
    # the learner table's column names (the study computes them, _learner prints them)
    "MACRO": "_learner",
    "NDCG": "_learner",
    "P_CORRECTED": "_learner",
    "P_VALUE": "_learner",
    "STATS": "_learner",
    "TESTED": "_learner",
}
__all__ = list(_EXPORTS)

if TYPE_CHECKING:  # the lazy names for type checkers and editors (tests/test_package.py: the same)
    from ._analysis_plots import plot_baseline_ranks as plot_baseline_ranks
    from ._analysis_plots import plot_baselines_pca as plot_baselines_pca
    from ._analysis_plots import plot_rank_distance as plot_rank_distance
    from ._layout import column_info as column_info
    from ._layout import short_labels as short_labels
    from ._layout import tidy_results as tidy_results
    from ._learner import LEARNER_LAYOUTS as LEARNER_LAYOUTS
    from ._learner import MACRO as MACRO
    from ._learner import NDCG as NDCG
    from ._learner import P_CORRECTED as P_CORRECTED
    from ._learner import P_VALUE as P_VALUE
    from ._learner import PAPER_COLUMNS as PAPER_COLUMNS
    from ._learner import STATS as STATS
    from ._learner import TESTED as TESTED
    from ._learner import LearnerTableSettings as LearnerTableSettings
    from ._learner import render_convergence_table as render_convergence_table
    from ._learner import render_kendall_table as render_kendall_table
    from ._learner import render_learner_table as render_learner_table
    from ._plots import alpha_grid as alpha_grid
    from ._plots import georisk_curves as georisk_curves
    from ._plots import helped_hurt_counts as helped_hurt_counts
    from ._plots import plot_georisk_alpha as plot_georisk_alpha
    from ._plots import plot_helped_hurt as plot_helped_hurt
    from ._plots import plot_risk_gain as plot_risk_gain
    from ._plots import plot_topic_tj as plot_topic_tj
    from ._styling import DEFAULT_LOWER_IS_BETTER as DEFAULT_LOWER_IS_BETTER
    from ._styling import TableStyle as TableStyle
    from ._tables import render_in_parts as render_in_parts
    from ._tables import render_table as render_table
    from ._tables import write_table as write_table
    from ._text import MAX_WIDTH as MAX_WIDTH
    from ._text import correction_name as correction_name
    from ._text import markdown_width as markdown_width
    from ._text import table_format as table_format

__getattr__, __dir__ = lazy_exports(__name__, {**_EXPORTS, **_INTERNAL})
