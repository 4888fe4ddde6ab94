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
from ._base import BASELINE_KINDS, Objective, Option

__all__ = ["get_objective", "objective_names", "objectives", "option_readers", "register_objective"]

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
        TypeError: not an ``Objective`` subclass, or its options are not ``Option`` s.
        ValueError: a bad ``name``/``label``/``baseline``, a reserved option name, or a built-in's name.
    """
    _load_builtins()  # first: the built-ins keep their names and come first
    if not (isinstance(cls, type) and issubclass(cls, Objective)) or cls is Objective:
        raise TypeError(f"register_objective takes a subclass of Objective, got {cls!r}")
    name = cls.name
    if not isinstance(name, str) or not name.isidentifier() or keyword.iskeyword(name) or not name.islower():
        raise ValueError(f"objective name must be a lowercase identifier such as 'cvar', got {name!r}")
    if not isinstance(cls.label, str) or not cls.label.strip():
        raise ValueError(f"objective {name!r} needs a label (its name in tables), e.g. label = 'CVaR'")
    if cls.baseline not in BASELINE_KINDS:
        raise ValueError(
            f"objective {name!r}: baseline must be one of {BASELINE_KINDS}, got {cls.baseline!r}"
        )
    if cls.weights is Objective.weights:
        raise TypeError(f"objective {name!r} does not define weights()")
    for opt in cls.options:
        if not isinstance(opt, Option):
            raise TypeError(f"objective {name!r}: options must be Option(...) objects, got {opt!r}")
        if opt.name in RESERVED_OPTIONS:
            raise ValueError(f"objective {name!r}: option {opt.name!r} is a reserved name (the driver's own)")
    previous = _REGISTRY.get(name)
    builtin = previous is not None and previous.__module__.startswith(__package__)
    if builtin and previous is not cls:
        raise ValueError(f"{name!r} is a built-in objective; give yours another name")
    _REGISTRY[name] = cls
    return cls


def objectives() -> MappingProxyType[str, type[Objective]]:
    """A read-only view name → class of every registered objective, built-ins first."""
    _load_builtins()
    return MappingProxyType(_REGISTRY)


def objective_names() -> tuple[str, ...]:
    """The names of the registered objectives, built-ins first."""
    return tuple(objectives())


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
