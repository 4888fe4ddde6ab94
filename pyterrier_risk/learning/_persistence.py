"""A saved RiskLambdaMART folder: written whole or not at all, read only after it is checked.

The folder holds LightGBM's text model (``model.txt``), the constructor parameters with the
model's digest (``risk_lambdamart.json``) and PyTerrier's artifact metadata (``pt_meta.json``).

Writing: the three files are serialised in memory, written into a hidden staging folder and then
moved into place: a new folder by one rename, an existing one by three renames during which
Ctrl-C is held back until they are done. A failure or ``KeyboardInterrupt`` therefore leaves either
the previous model or the new one, never a mix, and no staging folder behind.

Reading: each file must be a regular file (a FIFO, device, socket or folder is refused before it is
opened, so reading cannot block) of at most :data:`MAX_MODEL_BYTES` / :data:`MAX_JSON_BYTES`;
``model.txt`` must match the digest, and its text passes :func:`~._modeltext.check_model_text`
before LightGBM's native reader sees it.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import shutil
import signal
import stat
import tempfile
import warnings
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np
import pyterrier as pt

from ..data import atomic_write, signals_held, sync_folder
from ._modeltext import check_model_text
from ._options import check_count

__all__ = [
    "ARTIFACT_FORMAT",
    "ARTIFACT_PACKAGE_HINT",
    "ARTIFACT_TYPE",
    "MAX_JSON_BYTES",
    "MAX_MODEL_BYTES",
    "ObjectiveNotImportableWarning",
    "artifact_metadata",
    "import_objective",
    "objective_module",
    "read_booster",
    "read_meta",
    "save_model",
    "spec_to_json",
]

PARAMS_FILE = "risk_lambdamart.json"
MODEL_FILE = "model.txt"
FORMAT = "pyterrier-risk/RiskLambdaMART"
FORMAT_VERSION = 1
OBJECTIVE_MODULE = "objective_module"
# PyTerrier's artifact protocol: pt_meta.json names the type and format, which the entry point
# "ltr_model.risk_lambdamart" of the group "pyterrier.artifact" maps back to RiskLambdaMART.load
PT_META_FILE = "pt_meta.json"
ARTIFACT_TYPE = "ltr_model"
ARTIFACT_FORMAT = "risk_lambdamart"
ARTIFACT_PACKAGE_HINT = "pyterrier-risk"
# Reading bounds, far above any real model: LightGBM writes about 110 bytes per leaf, so 1 GiB holds
# e.g. 10,000 trees of 900 leaves; the JSON holds the constructor's parameters (a label_gain list at most).
MAX_MODEL_BYTES = 2**30
MAX_JSON_BYTES = 2**24

_FILE_KINDS = (
    (stat.S_ISDIR, "a folder"),
    (stat.S_ISFIFO, "a FIFO (named pipe)"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
)


class ObjectiveNotImportableWarning(UserWarning):
    """A model is saved whose objective no other process can import (it is defined in ``__main__``).

    The folder loads in the process that saved it; elsewhere, ``RiskLambdaMART.load`` asks for the
    objective to be registered first. Define the objective in an importable module (a ``.py`` file
    on the path, imported by the script): ``save`` then records the module and ``load`` imports it.
    """


# ----------------------------------------------------------------------------------------- writing
def save_model(
    path: Path, model_text: str, params: dict[str, Any], num_features: int, num_trees: int
) -> None:
    """Write a model folder at ``path``: whole, or (on any error or Ctrl-C) not at all.

    Raises:
        TypeError: a parameter cannot be stored as JSON (nothing is written).
        FileExistsError: ``path`` exists and is not a folder.
    """
    meta = {
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        "params": params,
        "num_features": num_features,
        "num_trees": num_trees,
        "model_sha256": hashlib.sha256(model_text.encode("utf-8")).hexdigest(),
    }
    try:
        meta_text = json.dumps(meta, indent=2, default=_json_scalar) + "\n"
    except TypeError as e:
        raise TypeError(f"a parameter cannot be stored as JSON: {e}") from e
    files = {MODEL_FILE: model_text, PARAMS_FILE: meta_text, PT_META_FILE: json.dumps(pt_meta()) + "\n"}
    _write_folder(path, files)


def _write_folder(path: Path, files: Mapping[str, str | bytes]) -> None:
    """Write ``files`` (name -> text or bytes) into the folder ``path`` as one change.

    A new folder is staged beside it and renamed into place. In an existing folder (which may hold
    other files, left alone) the files are staged in a hidden subfolder and moved in one by one
    while a Ctrl-C is held back, so that the folder never mixes two saves.
    """
    if path.exists() and not path.is_dir():
        raise FileExistsError(f"{path} exists and is not a folder: cannot save a model there")
    path.parent.mkdir(parents=True, exist_ok=True)
    fresh = not path.exists()
    where, prefix = (path.parent, f".{path.name}.saving-") if fresh else (path, ".saving-")
    staging = None
    try:
        with signals_held(signal.SIGINT):  # created and named at once, so that the cleanup finds it
            staging = Path(tempfile.mkdtemp(dir=where, prefix=prefix))
        for name, text in files.items():
            _replace_file(staging / name, text)
        with signals_held(signal.SIGINT):  # the moves and the cleanup in one block: no Ctrl-C between them
            try:
                _move_in(staging, path, files, fresh)
            finally:
                shutil.rmtree(staging, ignore_errors=True)  # gone after a rename; a failure's leftovers
                staging = None
    except BaseException:
        if staging is not None:  # interrupted or failed while the files were written
            with signals_held(signal.SIGINT):
                shutil.rmtree(staging, ignore_errors=True)
        raise


def _move_in(staging: Path, path: Path, files: Mapping[str, str | bytes], fresh: bool) -> None:
    """Put the staged files in place: rename a new folder, or move each file into an existing one."""
    if fresh and _rename_new(staging, path):
        return
    blocked = [name for name in files if (path / name).is_dir()]
    if blocked:  # refused before any file moves: os.replace cannot put a file over a folder
        raise IsADirectoryError(f"{path / blocked[0]} is a folder: cannot save a model's file there")
    for name in files:
        os.replace(staging / name, path / name)
    sync_folder(path)


def _rename_new(staging: Path, path: Path) -> bool:
    """Rename the staged folder to ``path``; False when ``path`` appeared meanwhile (then fill it)."""
    try:
        os.rename(staging, path)
    except OSError:
        if path.is_dir():
            return False
        raise
    sync_folder(path.parent)
    return True


def _replace_file(target: Path, text: str | bytes) -> None:
    """Write ``text`` or bytes to ``target`` by the atomic writer (temporary name, fsync, rename)."""
    with atomic_write(target, "wb" if isinstance(text, bytes) else "w") as f:
        f.write(text)


def pt_meta() -> dict[str, str]:
    """The content of ``pt_meta.json``, PyTerrier's artifact metadata."""
    return {"type": ARTIFACT_TYPE, "format": ARTIFACT_FORMAT, "package_hint": ARTIFACT_PACKAGE_HINT}


def _json_scalar(value: Any) -> Any:
    """``json.dumps`` fallback: numpy scalars and arrays as Python numbers and lists."""
    if isinstance(value, (np.generic, np.ndarray)):
        return value.tolist()
    raise TypeError(f"Object of type {type(value).__name__} is not JSON serializable")


def spec_to_json(spec: Any, name: str) -> Any:
    """A baseline as stored: a transformer cannot be, and becomes None (with a warning)."""
    if isinstance(spec, pt.Transformer):
        warnings.warn(
            f"{name} is a transformer ({spec!r}) and is saved as None; pass it again to "
            f"RiskLambdaMART.load(..., {name.split('[')[0]}=...) to re-fit",
            stacklevel=4,
        )
        return None
    return int(spec) if isinstance(spec, np.integer) else spec


def objective_module(cls: type) -> str | None:
    """The module ``load`` must import to register objective ``cls`` again (None: a built-in).

    Warns (:class:`ObjectiveNotImportableWarning`) for an objective defined in ``__main__``, which
    no other process can import.
    """
    module = cls.__module__
    if module == "__main__":
        warnings.warn(
            f"objective {getattr(cls, 'name', cls.__name__)!r} is defined in __main__ (a script or "
            f"notebook): no other process can load this model until it registers the objective; "
            f"define the objective in an importable module and import it from there",
            ObjectiveNotImportableWarning,
            stacklevel=4,
        )
        return None
    return None if module.startswith("pyterrier_risk.") else module


# ----------------------------------------------------------------------------------------- reading
def read_meta(path: Path) -> dict[str, Any]:
    """The checked content of ``path/risk_lambdamart.json``: one-line errors for a damaged or foreign file."""
    meta_file = path / PARAMS_FILE
    if path.exists() and not path.is_dir():
        raise ValueError(f"{path} is not a folder: not a saved RiskLambdaMART")
    raw = _read_regular(meta_file, MAX_JSON_BYTES, "not a saved RiskLambdaMART")
    _check_regular_if_present(path / PT_META_FILE)
    try:
        meta = json.loads(raw.decode("utf-8"))
    except UnicodeDecodeError as e:
        raise ValueError(f"{meta_file} is not JSON text ({e.reason}); save the model again") from None
    except json.JSONDecodeError as e:
        raise ValueError(
            f"{meta_file} is not valid JSON ({e.msg}, line {e.lineno}); save the model again"
        ) from None
    tag = (meta.get("format"), meta.get("format_version")) if isinstance(meta, dict) else None
    if tag != (FORMAT, FORMAT_VERSION):
        raise ValueError(f"{meta_file} is not a {FORMAT} v{FORMAT_VERSION} file")
    params = meta.get("params")
    if not isinstance(params, dict) or not isinstance(params.get("objective"), str):
        raise ValueError(
            f"{meta_file}: 'params' must be an object with the 'objective' name; save the model again"
        )
    for key in ("num_features", "num_trees"):
        try:
            check_count(meta.get(key), f"{key!r}")
        except (TypeError, ValueError) as e:
            raise ValueError(f"{meta_file}: {e}; save the model again") from None
    digest = meta.get("model_sha256")
    if digest is not None and not (
        isinstance(digest, str) and len(digest) == 64 and all(c in "0123456789abcdef" for c in digest)
    ):
        raise ValueError(f"{meta_file}: 'model_sha256' must be 64 hex digits, got {digest!r}")
    return meta


def read_booster(path: Path, meta: dict[str, Any]) -> Any:
    """``path/model.txt`` as a ``lightgbm.Booster``, its text checked before LightGBM reads it.

    LightGBM trusts the text's header and tree sizes, and aborts or crashes the process on a text
    that lies: the digest covers folders saved since 0.2; :func:`check_model_text` checks the text
    of every folder (those of 0.1 have no digest) against the trees it holds and ``meta``.
    """
    import lightgbm as lgb

    model_file = path / MODEL_FILE
    model_text = _read_model_text(model_file)
    digest = meta.get("model_sha256")
    if digest is not None and hashlib.sha256(model_text.encode("utf-8")).hexdigest() != digest:
        raise ValueError(
            f"{model_file} does not match {path / PARAMS_FILE} (they come from different "
            "saves: an interrupted save?); save the model again"
        )
    n_trees = check_model_text(model_text, str(model_file), num_features=meta["num_features"])
    if n_trees != meta["num_trees"]:
        raise ValueError(f"{model_file} has {n_trees} trees, {PARAMS_FILE} says {meta['num_trees']}")
    try:
        booster = lgb.Booster(model_str=model_text)
    except (lgb.basic.LightGBMError, ValueError) as e:  # ValueError: LightGBM's json.loads of a part
        raise ValueError(f"{model_file}: LightGBM cannot read it ({e}); save it again") from None
    if booster.num_feature() != meta["num_features"]:
        raise ValueError(
            f"{model_file} has {booster.num_feature()} features, {PARAMS_FILE} says {meta['num_features']}"
        )
    return booster


def _read_model_text(file: Path) -> str:
    """``model.txt`` as text, or a one-line error (missing, special, too large, or not UTF-8 text)."""
    raw = _read_regular(file, MAX_MODEL_BYTES, "the saved model is incomplete; save it again")
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as e:
        raise ValueError(f"{file} is not a LightGBM text model (not UTF-8 text: {e.reason})") from None


def _read_regular(file: Path, limit: int, missing: str) -> bytes:
    """The bytes of ``file``, which must be a regular file of at most ``limit`` bytes.

    A FIFO, device, socket or folder is refused from its ``stat``, before it is opened (a FIFO would
    block the open, ``/dev/zero`` would never end); the file is opened non-blocking and checked
    again, in case it was swapped in between, and no more than ``limit + 1`` bytes are read.
    """
    try:
        _check_regular(file, os.stat(file), limit)
        fd = os.open(file, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0))
    except FileNotFoundError:
        raise FileNotFoundError(f"{file} not found: {missing}") from None
    except OSError as e:
        raise type(e)(f"{file} cannot be read: {e.strerror}") from None
    with os.fdopen(fd, "rb") as f:
        _check_regular(file, os.fstat(f.fileno()), limit)
        data = f.read(limit + 1)
    if len(data) > limit:
        raise ValueError(f"{file} grew beyond {limit:,} bytes while it was read: not a saved model")
    return data


def _check_regular(file: Path, status: os.stat_result, limit: int) -> None:
    if not stat.S_ISREG(status.st_mode):
        kind = next((name for test, name in _FILE_KINDS if test(status.st_mode)), "a special file")
        raise ValueError(f"{file} is {kind}, not a regular file: not a saved model")
    if status.st_size > limit:
        raise ValueError(
            f"{file} is {status.st_size:,} bytes, more than the {limit:,} a saved model's file may have "
            f"(RiskLambdaMART's reading limit, docs/lambdamart.md): not a saved model"
        )


def _check_regular_if_present(file: Path) -> None:
    """``pt_meta.json`` is read by PyTerrier, not by ``load``; still, it must not be a special file."""
    with contextlib.suppress(FileNotFoundError):
        status = os.stat(file)
        _check_regular(file, status, MAX_JSON_BYTES)


def import_objective(name: Any, module: Any, meta_file: Path, trust_remote_code: bool = False) -> None:
    """Make sure a saved model's objective is registered; the folder's module is imported only on request.

    An objective already registered (built in, or imported by the caller) needs no import. Otherwise
    the folder's ``objective_module`` is imported only with ``trust_remote_code=True``: importing a
    module runs its code, and a model folder is something people download (``pt.Artifact.from_hf``),
    so a folder never runs code of its own accord (as ``trust_remote_code`` in transformers).

    Raises:
        ValueError: one line: the objective is unknown and no module is stored; the module is not
            trusted (naming it and the two ways to load); or it cannot be imported or does not
            register the objective.
    """
    from .objectives import objective_names

    if not isinstance(name, str) or name in objective_names():
        return
    if module is None:
        raise ValueError(
            f"{meta_file}: objective {name!r} is not registered in this process: define or import it "
            f"(register_objective) before loading (known: {', '.join(objective_names())})"
        )
    if not isinstance(module, str) or not all(part.isidentifier() for part in module.split(".")):
        raise ValueError(f"{meta_file}: 'objective_module' must be a dotted module name, got {module!r}")
    if trust_remote_code is not True:
        raise ValueError(
            f"{meta_file}: objective {name!r} is defined in module {module!r}, which loading would import "
            f"(running its code): import {module} yourself first, or pass trust_remote_code=True to "
            f"RiskLambdaMART.load (or pt.Artifact.load/from_hf) if you trust this folder"
        )
    _import_trusted(name, module, meta_file)


def _import_trusted(name: str, module: str, meta_file: Path) -> None:
    """Import ``module`` (the caller trusts it) and check that it registered objective ``name``."""
    import importlib

    from .objectives import objective_names

    try:
        importlib.import_module(module)
    except ImportError as e:
        raise ValueError(
            f"{meta_file}: objective {name!r} comes from module {module!r}, which cannot be imported "
            f"({' '.join(str(e).split())}); import or register the objective before loading"
        ) from None
    except Exception as e:  # the trusted module itself raised: name it, in one line
        raise ValueError(
            f"{meta_file}: importing module {module!r} (objective {name!r}) raised "
            f"{type(e).__name__}: {' '.join(str(e).split())}"
        ) from e
    if name not in objective_names():
        raise ValueError(
            f"{meta_file}: module {module!r} was imported but registers no objective {name!r} "
            f"(known: {', '.join(objective_names())})"
        )


def artifact_metadata(path: str, dir_listing: list[str]) -> dict[str, str] | None:
    """PyTerrier's metadata adapter: a folder saved before ``pt_meta.json`` existed (0.1, 0.2) is ours.

    ``pt.Artifact.load`` asks the adapters (entry points ``pyterrier.artifact.metadata_adapter``)
    about a folder without ``pt_meta.json``: one holding ``risk_lambdamart.json`` and ``model.txt``
    is a saved RiskLambdaMART.

    Args:
        path: the folder (unused: the listing decides).
        dir_listing: the names in the folder.

    Returns:
        The folder's ``pt_meta.json`` content, or None for a folder that is not ours.
    """
    if PARAMS_FILE in dir_listing and MODEL_FILE in dir_listing:
        return pt_meta()
    return None
