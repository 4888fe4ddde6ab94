"""The registry of LambdaMART objectives: one name, one :class:`~._base.Objective` subclass.

The built-in objectives register themselves when this registry is first read (their modules are
imported then, not at ``import pyterrier_risk``); a user's objective registers with
:func:`register_objective`, after which ``objective()``, ``RiskLambdaMART`` and the CLI know it.
"""

from __future__ import annotations

import importlib
import keyword
from types import MappingProxyType
from typing import Any

from .._lightgbm_params import RESERVED_OPTIONS  # the driver's and LightGBM's: not an objective's
from ._base import OBJECTIVE_BASELINES, Objective, Option

__all__ = [
    "DEFAULT_OBJECTIVES", "REFERENCE_OBJECTIVE", "default_objective", "get_objective", "objective_names",
    "objectives", "option_readers", "reference_objective", "register_objective", "risk_objectives",
    "unregister_objective",
]  # fmt: skip

#: plain LambdaMART: what every objective reduces to at α = 0, the reference a study compares each model
#: with (``risk_study``'s ``'lambdarank'`` at α 0, the demo's "LambdaMART")
REFERENCE_OBJECTIVE = "lambdarank"
#: the default objective of each kind of baseline: the demo trains both; ``RiskLambdaMART``'s default
#: is the multiple-baseline one
DEFAULT_OBJECTIVES: MappingProxyType[str, str] = MappingProxyType({"single": "urisk", "multiple": "georisk"})

_BUILTIN_MODULES = ("_lambdarank", "_urisk", "_tsaro", "_tfaro", "_tfaro_star", "_georisk")
_REGISTRY: dict[str, type[Objective]] = {}
_LOADED: list[bool] = []


def _load_builtins() -> None:
    if not _LOADED:
        _LOADED.append(True)
        for module in _BUILTIN_MODULES:
            importlib.import_module(f"{__package__}.{module}")


def register_objective(cls: type[Objective]) -> type[Objective]:
    """Register an :class:`Objective` subclass under its ``name`` (usable as a class decorator).

    Registering the same class again (e.g. a re-run notebook cell defining it anew) replaces the
    entry; a *different* objective under a built-in's name is refused.

    Raises:
        TypeError: not an ``Objective`` subclass, no ``weights``, or its options are not ``Option`` s.
        ValueError: a bad ``name``/``label``/``baseline``/``reports``; an option whose name is reserved
            (the driver's or LightGBM's), repeated, not an identifier or an attribute of the
            objective (``name``, ``weights``, ...); a default that fails its own check; a built-in's name.
    """
    _load_builtins()  # first: the built-ins keep their names and come first
    if not (isinstance(cls, type) and issubclass(cls, Objective)) or cls is Objective:
        raise TypeError(f"register_objective takes a subclass of Objective, got {cls!r}")
    name = cls.name
    if not isinstance(name, str) or not name.isidentifier() or keyword.iskeyword(name) or not name.islower():
        raise ValueError(f"objective name must be a lowercase identifier such as 'cvar', got {name!r}")
    if not isinstance(cls.label, str) or not cls.label.strip():
        raise ValueError(f"objective {name!r} needs a label (its name in tables), e.g. label = 'CVaR'")
    if cls.baseline not in OBJECTIVE_BASELINES:
        raise ValueError(
            f"objective {name!r}: baseline must be one of {OBJECTIVE_BASELINES}, got {cls.baseline!r}"
        )
    if cls.weights is Objective.weights:
        raise TypeError(f"objective {name!r} does not define weights()")
    _check_reports(cls)
    _check_options(cls)
    previous = _REGISTRY.get(name)
    if _is_builtin(previous) and previous is not cls:
        raise ValueError(f"{name!r} is a built-in objective; give yours another name")
    _REGISTRY[name] = cls
    return cls


def _attribute_name(cls: type[Objective], what: str, value: Any) -> str:
    """``value`` checked as the name of an instance attribute of ``cls`` (an option or a report)."""
    if not isinstance(value, str) or not value.isidentifier() or keyword.iskeyword(value):
        raise ValueError(f"objective {cls.name!r}: {what} names must be identifiers, got {value!r}")
    if value.startswith("_"):
        raise ValueError(f"objective {cls.name!r}: {what} {value!r} starts with '_' (private attributes)")
    return value


def _check_reports(cls: type[Objective]) -> None:
    reports = cls.reports
    if not isinstance(reports, tuple):
        raise ValueError(f"objective {cls.name!r}: reports must be a tuple of names, got {reports!r}")
    for report in reports:
        if hasattr(Objective, _attribute_name(cls, "report", report)):
            raise ValueError(
                f"objective {cls.name!r}: report {report!r} is an attribute of every Objective; rename it"
            )


def _check_options(cls: type[Objective]) -> None:
    """Each option an ``Option`` with a free, valid name and a default that passes its own check."""
    name, seen = cls.name, set()
    if not isinstance(cls.options, (tuple, list)):
        raise TypeError(f"objective {name!r}: options must be a tuple of Option(...), got {cls.options!r}")
    for opt in cls.options:
        if not isinstance(opt, Option):
            raise TypeError(f"objective {name!r}: options must be Option(...) objects, got {opt!r}")
        key = _attribute_name(cls, "option", opt.name)
        if key in RESERVED_OPTIONS:
            raise ValueError(f"objective {name!r}: option {key!r} is a reserved name (the driver's own)")
        if key in seen:
            raise ValueError(f"objective {name!r}: option {key!r} is declared twice")
        seen.add(key)
        if hasattr(cls, key) or key in cls.reports:
            owner = "Objective" if hasattr(Objective, key) else cls.__name__
            raise ValueError(
                f"objective {name!r}: option {key!r} would replace the attribute {owner}.{key} "
                f"(options are stored as attributes of the same name); rename the option"
            )
        try:
            opt.parse(opt.default)
        except (TypeError, ValueError) as e:
            raise ValueError(f"objective {name!r}: option {key!r}'s default {opt.default!r} fails its own "
                             f"check: {e}") from None  # fmt: skip


def _is_builtin(cls: type[Objective] | None) -> bool:
    return cls is not None and cls.__module__.startswith(__package__)


def unregister_objective(name: str) -> None:
    """Remove the objective registered as ``name`` (a user's: the built-ins stay).

    After this, ``objective(name)`` and ``RiskLambdaMART(name)`` no longer know it, and another
    class may be registered under that name.

    Raises:
        ValueError: no objective of that name, or a built-in one.
    """
    registry = objectives()
    if not isinstance(name, str) or name not in registry:
        raise ValueError(f"no objective {name!r} is registered; registered: {', '.join(registry)}")
    if _is_builtin(registry[name]):
        raise ValueError(f"{name!r} is a built-in objective; only registered ones can be unregistered")
    del _REGISTRY[name]


def objectives() -> MappingProxyType[str, type[Objective]]:
    """A read-only view name → class of every registered objective, built-ins first."""
    _load_builtins()
    return MappingProxyType(_REGISTRY)


def objective_names(baseline: str | None = None) -> tuple[str, ...]:
    """The names of the registered objectives, built-ins first; with ``baseline``, those of that kind.

    Args:
        baseline: ``'none'`` (the reference, plain LambdaMART), ``'single'`` (U-CRO, T-SARO, T-FARO and
            a user's single-baseline objectives) or ``'multiple'`` (T*-FARO, GeoRisk, ...); None: all.

    Raises:
        ValueError: another ``baseline``.
    """
    if baseline is None:
        return tuple(objectives())
    if baseline not in OBJECTIVE_BASELINES:
        raise ValueError(f"baseline must be one of {', '.join(OBJECTIVE_BASELINES)} or None, "
                         f"got {baseline!r}")
    return tuple(n for n, cls in objectives().items() if cls.baseline == baseline)


def reference_objective() -> str:
    """The reference objective: plain LambdaMART (:data:`REFERENCE_OBJECTIVE`, ``'lambdarank'``)."""
    return REFERENCE_OBJECTIVE


def default_objective(baseline: str) -> str:
    """The default objective of a kind of baseline: ``'urisk'`` (single), ``'georisk'`` (multiple).

    Raises:
        ValueError: a kind other than ``'single'`` and ``'multiple'``.
    """
    if baseline not in DEFAULT_OBJECTIVES:
        raise ValueError(f"baseline must be one of {', '.join(DEFAULT_OBJECTIVES)}, got {baseline!r}")
    return DEFAULT_OBJECTIVES[baseline]


def risk_objectives() -> tuple[str, ...]:
    """The registered objectives with a baseline (every one but plain LambdaMART), in registry order."""
    return tuple(n for n, cls in objectives().items() if cls.baseline != "none")


def get_objective(name: Any) -> type[Objective]:
    """The :class:`Objective` subclass registered as ``name``.

    Raises:
        ValueError: no objective of that name (the message lists the known ones).
    """
    registry = objectives()
    if not isinstance(name, str) or name not in registry:
        raise ValueError(f"unknown objective {name!r}; expected one of {', '.join(registry)}")
    return registry[name]


def option_readers(option: str) -> tuple[str, ...]:
    """The registered objectives that declare ``option``."""
    return tuple(n for n, cls in objectives().items() if any(o.name == option for o in cls.options))
