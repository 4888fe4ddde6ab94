"""pyterrier-risk: risk-sensitive evaluation and learning for PyTerrier.

The package is layered:

* numeric core (numpy/scipy only): :func:`urisk`, :func:`risk_reward`, :func:`trisk`,
  :func:`baseline_scores`, :func:`zrisk`, :func:`georisk`, :func:`z_scores` and the UE functions;
* measure adapters (``ir_measures``): :class:`URisk`, :class:`TRisk`, :class:`ZRisk`,
  :class:`GeoRisk`, :class:`UE`;
* experiment integration: :func:`Experiment` (a superset of ``pt.Experiment``);
* learning: :func:`objective` (LightGBM custom objectives), :class:`RiskLambdaMART` and the
  objectives' extension point (:class:`Objective`, :func:`register_objective`);
* reporting: tables and plots;
* study: the demo's experiment (collection, systems, features, cross-validation, report);
* cli: the ``pyterrier-risk`` command.

Each layer imports only itself and lower layers, and other layers only through their package's
names (``tests/test_layers.py``); ``docs/architecture.md`` says where new code goes.

Names are resolved lazily so that ``import pyterrier_risk`` stays fast; heavy dependencies
(lightgbm, matplotlib, pyterrier itself) load only when the name that needs them is used.
The measure classes are imported eagerly because ``ir_measures.parse_measure`` can only find
registered measures.
"""

from __future__ import annotations

import importlib

from ._lazy import lazy_exports

__version__ = "0.3.0"

# public name -> the layer (subpackage) that defines it
_EXPORTS: dict[str, str] = {
    # numeric core
    "urisk": "core",
    "risk_reward": "core",
    "RiskReward": "core",
    "trisk": "core",
    "TRiskResult": "core",
    "baseline_scores": "core",
    "zrisk": "core",
    "georisk": "core",
    "z_scores": "core",
    "georisk_curve": "core",
    "zrisk_components": "core",
    "randomization_test": "core",
    "RandomizationResult": "core",
    "topic_p_values": "core",
    "compare_systems": "core",
    "adjust_p_values": "core",
    "break_even_alpha": "core",
    "rank_distance": "core",
    "rank_distance_bins": "core",
    "baseline_sensitivity": "core",
    "BaselineSensitivity": "core",
    "friedman_test": "core",
    "FriedmanResult": "core",
    "systems_pca": "core",
    # measure adapters
    "URisk": "measures",
    "TRisk": "measures",
    "ZRisk": "measures",
    "GeoRisk": "measures",
    "BreakEven": "measures",
    "nDCG_gdeval": "measures",
    "ERR_gdeval": "measures",
    "GdevalGainsWarning": "measures",
    "parse_measure": "measures",
    "MeasureNameError": "measures",
    "TopicPolicyWarning": "core",
    "TOPIC_MODES": "core",
    "topic_set": "core",
    "UE": "measures",
    "ue": "core",
    "ue_bounds": "core",
    # experiment integration
    "Experiment": "experiment",
    "hurt_topics": "experiment",
    # learning
    "objective": "learning",
    "RiskLambdaMART": "learning",
    "Objective": "learning",
    "Option": "learning",
    "PairWeights": "learning",
    "Round": "learning",
    "register_objective": "learning",
    "unregister_objective": "learning",
    "get_objective": "learning",
    "objective_names": "learning",
    "rounds_to_reach": "learning",
    "read_letor": "data",
    "LetorData": "data",
    # data and reporting
    "read_run": "data",
    "read_qrels": "data",
    "read_topics": "data",
    "write_table": "reporting",
    "tidy_results": "reporting",
    "plot_risk_gain": "reporting",
    "plot_helped_hurt": "reporting",
    "plot_georisk_alpha": "reporting",
    "plot_topic_tj": "reporting",
    "plot_rank_distance": "reporting",
    "plot_baselines_pca": "reporting",
    "plot_baseline_ranks": "reporting",
    # learning studies
    "risk_study": "study",
    "RiskStudyResult": "study",
}

__all__ = ["__version__", *_EXPORTS]


__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)


def _is_the_command() -> bool:
    """Whether this process is the ``pyterrier-risk`` command (the script, ``python -m pyterrier_risk``)."""
    import os
    import sys

    return (os.path.basename(sys.argv[0]) == "pyterrier-risk"
            or list(getattr(sys, "orig_argv", []))[1:3] == ["-m", "pyterrier_risk"])


try:
    importlib.import_module(".measures", __name__)  # registers the measures with ir_measures
except KeyboardInterrupt:
    # Ctrl-C while the command starts (pandas and ir_measures load here): the command's one line
    if not _is_the_command():
        raise
    from .cli import report_interrupt

    raise SystemExit(report_interrupt()) from None
