"""pyterrier-risk: risk-sensitive evaluation and learning for PyTerrier.

The package is layered:

* numeric core (numpy/scipy only): :func:`urisk`, :func:`risk_reward`, :func:`trisk`,
  :func:`baseline_scores`, :func:`zrisk`, :func:`georisk`, :func:`z_scores` and the UE functions;
* measure adapters (``ir_measures``): :class:`URisk`, :class:`TRisk`, :class:`ZRisk`,
  :class:`GeoRisk`, :class:`UE`;
* experiment integration: :func:`Experiment` (a superset of ``pt.Experiment``);
* learning: :func:`objective` (LightGBM custom objectives), :class:`RiskLambdaMART`, the neural
  learner (:func:`risk_loss`, :class:`RiskNeuralRanker`; PyTorch) and the objectives' extension
  point (:class:`Objective`, :func:`register_objective`);
* reporting: tables and plots;
* engine: the learner's study on LETOR folds (:func:`risk_study`, ``pyterrier-risk learn``): tasks, their
  store, the backends (this process, a process pool, Dask), the output folder and the statistics;
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
from typing import TYPE_CHECKING

from ._lazy import lazy_exports

__version__ = "0.5.0"

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
    "nDCG_letor4": "measures",
    "letor_ndcg": "core",
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
    "risk_loss": "learning",
    "RiskNeuralRanker": "learning",
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
    "risk_study": "engine",
    "RiskStudyResult": "engine",
}

__all__ = ["__version__", *_EXPORTS]


if TYPE_CHECKING:  # the lazy names for type checkers and editors (tests/test_package.py: the same)
    from .core import TOPIC_MODES as TOPIC_MODES
    from .core import BaselineSensitivity as BaselineSensitivity
    from .core import FriedmanResult as FriedmanResult
    from .core import RandomizationResult as RandomizationResult
    from .core import RiskReward as RiskReward
    from .core import TopicPolicyWarning as TopicPolicyWarning
    from .core import TRiskResult as TRiskResult
    from .core import adjust_p_values as adjust_p_values
    from .core import baseline_scores as baseline_scores
    from .core import baseline_sensitivity as baseline_sensitivity
    from .core import break_even_alpha as break_even_alpha
    from .core import compare_systems as compare_systems
    from .core import friedman_test as friedman_test
    from .core import georisk as georisk
    from .core import georisk_curve as georisk_curve
    from .core import letor_ndcg as letor_ndcg
    from .core import randomization_test as randomization_test
    from .core import rank_distance as rank_distance
    from .core import rank_distance_bins as rank_distance_bins
    from .core import risk_reward as risk_reward
    from .core import systems_pca as systems_pca
    from .core import topic_p_values as topic_p_values
    from .core import topic_set as topic_set
    from .core import trisk as trisk
    from .core import ue as ue
    from .core import ue_bounds as ue_bounds
    from .core import urisk as urisk
    from .core import z_scores as z_scores
    from .core import zrisk as zrisk
    from .core import zrisk_components as zrisk_components
    from .data import LetorData as LetorData
    from .data import read_letor as read_letor
    from .data import read_qrels as read_qrels
    from .data import read_run as read_run
    from .data import read_topics as read_topics
    from .engine import RiskStudyResult as RiskStudyResult
    from .engine import risk_study as risk_study
    from .experiment import Experiment as Experiment
    from .experiment import hurt_topics as hurt_topics
    from .learning import Objective as Objective
    from .learning import Option as Option
    from .learning import PairWeights as PairWeights
    from .learning import RiskLambdaMART as RiskLambdaMART
    from .learning import RiskNeuralRanker as RiskNeuralRanker
    from .learning import Round as Round
    from .learning import get_objective as get_objective
    from .learning import objective as objective
    from .learning import objective_names as objective_names
    from .learning import register_objective as register_objective
    from .learning import risk_loss as risk_loss
    from .learning import rounds_to_reach as rounds_to_reach
    from .learning import unregister_objective as unregister_objective
    from .measures import UE as UE
    from .measures import BreakEven as BreakEven
    from .measures import ERR_gdeval as ERR_gdeval
    from .measures import GdevalGainsWarning as GdevalGainsWarning
    from .measures import GeoRisk as GeoRisk
    from .measures import MeasureNameError as MeasureNameError
    from .measures import TRisk as TRisk
    from .measures import URisk as URisk
    from .measures import ZRisk as ZRisk
    from .measures import nDCG_gdeval as nDCG_gdeval
    from .measures import nDCG_letor4 as nDCG_letor4
    from .measures import parse_measure as parse_measure
    from .reporting import plot_baseline_ranks as plot_baseline_ranks
    from .reporting import plot_baselines_pca as plot_baselines_pca
    from .reporting import plot_georisk_alpha as plot_georisk_alpha
    from .reporting import plot_helped_hurt as plot_helped_hurt
    from .reporting import plot_rank_distance as plot_rank_distance
    from .reporting import plot_risk_gain as plot_risk_gain
    from .reporting import plot_topic_tj as plot_topic_tj
    from .reporting import tidy_results as tidy_results
    from .reporting import write_table as write_table

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
