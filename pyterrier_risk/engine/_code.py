"""The digest of the code a learning task runs, and its check in the worker (:func:`code_digest`).

A task's results depend on code as much as on data: the objective's rule, the modules the study
imports (``--import``), the package's learning engine and LightGBM. The task key holds a digest of them
(so a rerun into the same ``--out`` after an edit recomputes instead of reusing stale results), and each
worker compares the digest of the code it is about to run with the task's (:func:`sync_code`): a
long-lived Dask worker that imported an earlier version of a module reloads it, and one that still
differs refuses the task with a one-line error.

What is digested:

* the package version, LightGBM's version and the sources of ``pyterrier_risk.learning`` (every
  ``.py`` file; read once per process, so a worker that loaded the engine before an edit keeps its
  digest and refuses the task);
* each ``--import`` module's source file, and the source file of a user objective's module, as this
  process loaded it (recorded when first seen, refreshed when reloaded here);
* a user objective defined in a script's ``__main__`` (or without a source file): the code objects of
  its class, as they run (a class shipped by value to a Dask worker digests the same).
"""

from __future__ import annotations

import hashlib
import importlib
import pickle
import re
import sys
import types
from collections.abc import Iterator, Sequence
from functools import lru_cache
from pathlib import Path
from typing import Any

__all__ = ["code_digest", "main_class", "sync_code"]

#: module name -> (its ``__spec__``, the digest of its source file): recorded when first asked, and
#: again after ``importlib.reload`` (which gives the module a new spec object)
_SOURCES: dict[str, tuple[Any, str]] = {}
#: a script's module: ``__main__``, or ``__mp_main__`` in a worker process started by ``spawn``
_MAIN = ("__main__", "__mp_main__")
_ADDRESS = re.compile(r" at 0x[0-9a-fA-F]+")


def _file_digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@lru_cache(maxsize=1)
def _engine_digest() -> str:
    """The package version, LightGBM's version and the learning engine's sources (once per process)."""
    import lightgbm

    from .. import __version__, learning

    digest = hashlib.sha256(f"pyterrier-risk {__version__}\nlightgbm {lightgbm.__version__}\n".encode())
    root = Path(learning.__file__).parent
    for path in sorted(root.rglob("*.py")):
        digest.update(path.relative_to(root).as_posix().encode() + b"\0")
        digest.update(_file_digest(path).encode())
    return digest.hexdigest()


def _source_file(module: types.ModuleType) -> Path | None:
    file = getattr(module, "__file__", None)
    return Path(file) if file and Path(file).is_file() else None


def _module_digest(name: str) -> str:
    """The digest of module ``name``'s source as this process loaded it (recorded when first asked)."""
    module = sys.modules.get(name) or importlib.import_module(name)
    spec = getattr(module, "__spec__", None)
    if name not in _SOURCES or _SOURCES[name][0] is not spec:
        path = _source_file(module)
        _SOURCES[name] = (spec, "no-source" if path is None else _file_digest(path))
    return _SOURCES[name][1]


def _code_parts(code: types.CodeType) -> Iterator[bytes]:
    """A code object's bytecode, names and constants (nested code objects recursively)."""
    yield code.co_code
    yield repr((code.co_names, code.co_varnames, code.co_freevars, code.co_cellvars)).encode()
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            yield from _code_parts(const)
        else:
            yield repr(const).encode()


def _class_digest(cls: type) -> str:
    """The digest of a class's code as it runs: its attributes, functions by their code objects."""
    digest = hashlib.sha256(f"{sys.version_info[:2]}".encode())
    for klass in cls.__mro__:
        if klass.__module__.startswith("pyterrier_risk.") or klass is object:
            continue  # the package's classes are the engine's digest
        for name, value in sorted(vars(klass).items()):
            func = getattr(value, "__func__", value)
            digest.update(name.encode() + b"\0")
            if isinstance(value, property):
                func = value.fget
            if isinstance(func, types.FunctionType):
                digest.update(b"".join(_code_parts(func.__code__)))
            elif not name.startswith("__"):
                digest.update(_ADDRESS.sub("", repr(value)).encode())  # no memory addresses
    return digest.hexdigest()


def _objective_digest(objective: str) -> str:
    from ..learning import get_objective

    cls = get_objective(objective)
    module = cls.__module__
    if module.startswith("pyterrier_risk."):
        return "built-in"
    if module in _MAIN or _source_file(sys.modules.get(module) or importlib.import_module(module)) is None:
        return "class " + _class_digest(cls)
    return f"module {module} " + _module_digest(module)


def code_digest(imports: Sequence[str], objective: str) -> str:
    """The digest of the code a task of ``objective`` runs (with the study's ``--import`` modules).

    Raises:
        ValueError: ``objective`` is not registered in this process.
    """
    parts = [_engine_digest(), _objective_digest(objective)]
    parts += [f"import {name} {_module_digest(name)}" for name in imports]
    return hashlib.sha256("\n".join(parts).encode()).hexdigest()


def main_class(objective: str) -> bytes | None:
    """The class of ``objective`` pickled by value when a script's ``__main__`` defines it, else None.

    A task carries it to its worker (``cloudpickle`` keeps a ``__main__`` class's code, so that a Dask
    worker, which has another ``__main__``, runs it too). Without ``cloudpickle`` (it comes with
    ``dask[distributed]``) None: a local worker process re-imports the script, which registers it.
    """
    from ..learning import get_objective

    cls = get_objective(objective)
    if cls.__module__ not in _MAIN:
        return None
    try:
        import cloudpickle  # type: ignore[import-untyped]
    except ImportError:  # pragma: no cover - installed with dask[distributed]
        return None
    return bytes(cloudpickle.dumps(cls))


def _reload(imports: Sequence[str], user_objectives: Sequence[tuple[str, str, str]]) -> None:
    """Reload the study's user modules in this process and register their objectives anew."""
    from ..learning import register_objective

    names = dict.fromkeys([*imports, *(m for _, m, _ in user_objectives if m not in _MAIN)])
    for name in names:
        module = sys.modules.get(name)
        if module is not None and _source_file(module) is not None:
            importlib.reload(module)  # a new __spec__: its digest is read again from the file
    for _, module_name, qualname in user_objectives:
        if module_name in names:
            cls: Any = sys.modules[module_name]
            for part in qualname.split("."):
                cls = getattr(cls, part)
            register_objective(cls)


def sync_code(task: Any, shipped: bytes | None) -> None:
    """Make this process run the code the task was keyed with, or refuse (worker side).

    ``shipped``: the objective's class sent with the task by the study's own process (a script's
    ``__main__`` class, :func:`main_class`), registered here. A digest that differs makes the worker
    reload the study's user modules once; one that still differs raises.

    Raises:
        RuntimeError: the code here differs from the code the study was keyed with (one line).
    """
    from ..learning import get_objective, objective_names, register_objective

    if shipped is not None:
        cls = pickle.loads(shipped)  # noqa: S301 - the study's own process sent it, with the task
        if task.objective not in objective_names() or get_objective(task.objective) is not cls:
            register_objective(cls)
    imports, users = task.settings.imports, task.settings.user_objectives
    if code_digest(imports, task.objective) == task.code:
        return
    _reload(imports, users)
    if code_digest(imports, task.objective) != task.code:
        raise RuntimeError(
            f"the code of objective {task.objective!r} on this worker (pyterrier-risk, LightGBM, the "
            "learning engine, the --import modules) differs from the study's, even after reloading its "
            "modules: install the same versions and files everywhere, or restart the workers")
