"""pyterrier-risk: risk-sensitive evaluation and learning for PyTerrier.

The package is layered:

* numeric core (numpy/scipy only): :func:`urisk`, :func:`risk_reward`, :func:`trisk`,
  :func:`baseline_scores`, :func:`zrisk`, :func:`georisk`, :func:`z_scores` and the UE functions;
* measure adapters (``ir_measures``): :class:`URisk`, :class:`TRisk`, :class:`ZRisk`,
  :class:`GeoRisk`, :class:`UE`;
* experiment integration: :func:`Experiment` (a superset of ``pt.Experiment``);
* learning: :func:`objective` (LightGBM custom objectives) and :class:`RiskLambdaMART`;
* reporting: tables, plots and the ``pyterrier-risk`` command.

Names are resolved lazily so that ``import pyterrier_risk`` stays fast; heavy dependencies
(lightgbm, matplotlib, pyterrier itself) load only when the name that needs them is used.
The measure classes are imported eagerly because ``ir_measures.parse_measure`` can only find
registered measures.
"""

from __future__ import annotations

import importlib
from typing import Any

__version__ = "0.1.0"

# public name -> private module that defines it
_EXPORTS: dict[str, str] = {
    # numeric core
    "urisk": "_urisk",
    "risk_reward": "_urisk",
    "RiskReward": "_urisk",
    "trisk": "_trisk",
    "TRiskResult": "_trisk",
    "baseline_scores": "_baselines",
    "zrisk": "_zrisk",
    "georisk": "_zrisk",
    "z_scores": "_zrisk",
    "georisk_curve": "_zrisk",
    "zrisk_components": "_zrisk",
    # measure adapters
    "URisk": "_measures",
    "TRisk": "_measures",
    "ZRisk": "_measures",
    "GeoRisk": "_measures",
    "parse_measure": "_measures",
    "TopicPolicyWarning": "_topics",
    "UE": "_ue_measure",
    "ue": "_ue",
    "ue_bounds": "_ue",
    # experiment integration
    "Experiment": "_experiment",
    # learning
    "objective": "_objective",
    "RiskLambdaMART": "_lambdamart",
    "read_letor": "_letor",
    "LetorData": "_letor",
    # data and reporting
    "read_run": "_io",
    "read_qrels": "_io",
    "write_table": "_report",
    "plot_risk_gain": "_plots",
    "plot_helped_hurt": "_plots",
    "plot_georisk_alpha": "_plots",
    "plot_topic_tj": "_plots",
}

__all__ = ["__version__", *_EXPORTS]


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'pyterrier_risk' has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{module}", __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))


def _register_measures() -> None:
    for module in ("_measures", "_ue_measure"):
        importlib.import_module(f".{module}", __name__)


_register_measures()
