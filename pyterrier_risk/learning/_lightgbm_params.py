"""LightGBM's parameter names as the learner needs them: one source for the driver, registry and estimator.

* :data:`LAMBDARANK_DEFAULTS`: the lambdarank parameters that shape the gradients, with LightGBM 4's
  defaults. The objective driver reads them (``RiskObjective``), ``RiskLambdaMART`` forwards them
  from its LightGBM parameters to the objective.
* :data:`RESERVED_OPTIONS`: the names an objective's ``Option`` may not take: the driver's own
  arguments and the lambdarank parameters.
* :data:`CONSTRUCTOR_ALIASES` and :data:`THREAD_ALIASES`: LightGBM's aliases of what
  ``RiskLambdaMART`` sets itself, and of ``num_threads``.

This module imports nothing from the package, so that both the registry (``objectives``) and the
driver can depend on it.
"""

from __future__ import annotations

from types import MappingProxyType
from typing import Any

__all__ = [
    "CONSTRUCTOR_ALIASES",
    "DRIVER_OPTIONS",
    "LAMBDARANK_DEFAULTS",
    "LAMBDARANK_PARAMS",
    "RESERVED_OPTIONS",
    "THREAD_ALIASES",
]

LAMBDARANK_DEFAULTS: MappingProxyType[str, Any] = MappingProxyType({
    "sigmoid": 1.0,
    "lambdarank_truncation_level": 30,
    "lambdarank_norm": True,
    "label_gain": None,  # LightGBM default: 2^i - 1, i = 0..30
})  # fmt: skip
LAMBDARANK_PARAMS: tuple[str, ...] = tuple(LAMBDARANK_DEFAULTS)
# RiskObjective's own arguments (tests/test_objective.py ties them to its signature)
DRIVER_OPTIONS = frozenset({"kind", "alpha", "baseline", "baselines", "cutoff", "num_threads", "record_ndcg"})
RESERVED_OPTIONS = DRIVER_OPTIONS | frozenset(LAMBDARANK_PARAMS)

# LightGBM aliases of RiskLambdaMART's constructor parameters: alias -> the parameter to set instead
CONSTRUCTOR_ALIASES: MappingProxyType[str, str] = MappingProxyType({
    **dict.fromkeys(("objective_type", "app", "application", "loss"), "objective"),
    **dict.fromkeys(
        ("num_iterations", "num_iteration", "n_iter", "num_tree", "num_trees", "num_round", "num_rounds",
         "nrounds", "num_boost_round", "n_estimators", "max_iter"),
        "num_boost_round",
    ),
    **dict.fromkeys(
        ("early_stopping_round", "early_stopping_rounds", "early_stopping", "n_iter_no_change"),
        "early_stopping_rounds",
    ),
    **dict.fromkeys(("eval_at", "ndcg_eval_at", "ndcg_at", "map_eval_at", "map_at"), "cutoff"),
})  # fmt: skip
THREAD_ALIASES = ("num_threads", "num_thread", "nthread", "nthreads", "n_jobs")
