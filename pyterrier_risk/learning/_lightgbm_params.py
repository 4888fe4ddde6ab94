"""LightGBM's parameter names as the learner needs them: one source for the driver, registry and estimator.

* :data:`LAMBDARANK_DEFAULTS`: the lambdarank parameters that shape the gradients, with LightGBM 4's
  defaults. The objective driver reads them (``RiskObjective``), ``RiskLambdaMART`` forwards them
  from its LightGBM parameters to the objective.
* :data:`RESERVED_OPTIONS`: the names an objective's ``Option`` may not take: the driver's own
  arguments and the lambdarank parameters.
* :data:`CONSTRUCTOR_ALIASES` and :data:`THREAD_ALIASES`: LightGBM's aliases of what
  ``RiskLambdaMART`` sets itself, and of ``num_threads``.
* :func:`lightgbm_parameters`: LightGBM's own table of its parameters and their aliases, and
  :func:`lightgbm_parameter_name`, the parameter a name (or alias) stands for.

This module imports nothing from the package, so that both the registry (``objectives``) and the
driver can depend on it.
"""

from __future__ import annotations

import functools
from types import MappingProxyType
from typing import Any

__all__ = [
    "CONSTRUCTOR_ALIASES",
    "DRIVER_OPTIONS",
    "LAMBDARANK_DEFAULTS",
    "LAMBDARANK_PARAMS",
    "RESERVED_OPTIONS",
    "THREAD_ALIASES",
    "lightgbm_parameter_name",
    "lightgbm_parameters",
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


@functools.cache
def lightgbm_parameters() -> MappingProxyType[str, tuple[str, ...]] | None:
    """LightGBM's own table of its parameters: each name with its aliases (the installed version's).

    The one place where the package reaches past LightGBM's public Python API. The table comes from
    LightGBM's C API function ``LGBM_DumpParamAliases`` (public in ``c_api.h``), which the Python
    package calls in ``lightgbm.basic._ConfigAliases`` and exposes no public name for; reading it
    there keeps the table LightGBM's own (no copy that drifts from the installed version).
    ``tests/test_learn_inputs.py::test_lightgbm_parameter_table_is_lightgbms`` fails if LightGBM
    moves it; here, a LightGBM without it gives None (the callers then check only the names they know).

    Returns:
        ``{name: (name, *aliases)}`` for every parameter, or None when the table cannot be read.
    """
    try:
        from lightgbm.basic import _ConfigAliases

        table = _ConfigAliases._get_all_param_aliases()
        return MappingProxyType({str(k): tuple(str(a) for a in v) for k, v in table.items()})
    except Exception:  # noqa: BLE001 - a LightGBM without the private table: no table, not a crash
        return None


def lightgbm_parameter_name(name: str) -> str | None:
    """The LightGBM parameter that ``name`` is (itself or one of its aliases); None when LightGBM has none.

    When LightGBM's table cannot be read (:func:`lightgbm_parameters` is None), ``name`` itself.
    """
    table = lightgbm_parameters()
    if table is None:
        return name
    for parameter, names in table.items():
        if name in names:
            return parameter
    return None
