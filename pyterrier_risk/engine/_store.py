"""A learning study's finished tasks, kept in ``OUT/tasks/`` so that a rerun resumes (:class:`TaskStore`).

Nothing stored runs as code. Each task is one file ``tasks/<key>.npz``: an uncompressed ZIP archive
(``numpy.load`` reads it) of

* ``task.json``: the format and its version, the task key, the scalar fields of the
  :class:`~._task.TaskResult` and the layout of its frames (column names and dtypes);
* one ``.npy`` array per array or frame column: numbers as they are (``float64``, ``int64``, ...),
  strings as their UTF-8 bytes (``uint8``) with the end offset of each string (``int64``).

A file is read with ``allow_pickle=False`` semantics and more: every member must be a plain numeric
``.npy`` array (no object dtype) whose header matches its stored size, and every field its type and
every array its length. A file that fails any check (truncated, another version, wrong dtypes or
shapes, bad JSON, a pickle, a leftover ``.pkl`` of an older version, which is never opened) is a
missing task: the study computes it again and replaces the file.
"""

from __future__ import annotations

import io
import json
import os
import zipfile
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from ._task import ReferenceResult, TaskResult

__all__ = ["FORMAT", "VERSION", "TaskStore"]

FORMAT = "pyterrier-risk learn task"
VERSION = 1
_SUFFIX = ".npz"
_NUMERIC = "biuf"  # numpy kinds stored as they are: bool, signed and unsigned integers, floats
_STRINGS = ("object", "str", "string")  # pandas dtypes of string columns (as str(dtype) names them)
_SCALARS = {"fold": str, "objective": str, "alpha": float, "seed": int, "sha256": str, "best_iteration": int,
            "seconds": float, "peak_rss_mb": float, "pid": int}  # fmt: skip


class _Bad(ValueError):
    """A stored file that is not a task of this format (read as a missing task)."""


def _strings(values: Any) -> tuple[np.ndarray, np.ndarray]:
    """Strings as their UTF-8 bytes and each one's end offset (exact for any string)."""
    if any(not isinstance(v, str) for v in values):
        raise TypeError("the task store keeps strings only in string columns")
    encoded = [v.encode() for v in values]
    ends = np.cumsum([len(b) for b in encoded], dtype=np.int64)
    return np.frombuffer(b"".join(encoded), dtype=np.uint8), ends


def _unstrings(data: np.ndarray, ends: np.ndarray) -> list[str]:
    if data.dtype != np.uint8 or ends.dtype != np.int64 or data.ndim != 1 or ends.ndim != 1:
        raise _Bad("string arrays of the wrong dtype")
    if len(ends) and (ends[-1] != len(data) or (np.diff(ends, prepend=0) < 0).any()):
        raise _Bad("string offsets out of order")
    if not len(ends) and len(data):
        raise _Bad("string bytes without offsets")
    raw = data.tobytes()
    starts = np.concatenate([[0], ends[:-1]]).tolist()
    return [raw[a:b].decode() for a, b in zip(starts, ends.tolist(), strict=True)]


class _Writer:
    """The members of one task file: ``task.json`` and named ``.npy`` arrays."""

    def __init__(self) -> None:
        self.arrays: dict[str, np.ndarray] = {}

    def array(self, name: str, values: Any) -> None:
        array = np.ascontiguousarray(values)
        if array.dtype.kind not in _NUMERIC:
            raise TypeError(f"the task store keeps numeric arrays only, got {array.dtype} for {name}")
        self.arrays[name] = array

    def strings(self, name: str, values: Any) -> None:
        self.arrays[f"{name}.utf8"], self.arrays[f"{name}.ends"] = _strings(list(values))

    def frame(self, name: str, frame: pd.DataFrame) -> list[list[str]]:
        """The frame's columns as arrays; returns its layout ``[[column, dtype], ...]``."""
        layout = []
        for i, (column, values) in enumerate(frame.items()):
            dtype = str(values.dtype)
            if dtype in _STRINGS:
                self.strings(f"{name}.{i}", values.tolist())
            else:
                self.array(f"{name}.{i}", values.to_numpy())
            layout.append([str(column), dtype])
        return layout

    def bytes(self, meta: dict[str, Any]) -> bytes:
        buffer = io.BytesIO()
        with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_STORED) as archive:
            archive.writestr("task.json", json.dumps(meta, sort_keys=True, allow_nan=False))
            for name, array in self.arrays.items():
                member = io.BytesIO()
                np.lib.format.write_array(member, array, allow_pickle=False)
                archive.writestr(f"{name}.npy", member.getvalue())
        return buffer.getvalue()


def encode(key: str, result: TaskResult) -> bytes:
    """The stored bytes of ``result`` (a ZIP archive of ``task.json`` and ``.npy`` arrays)."""
    w = _Writer()
    meta: dict[str, Any] = {"format": FORMAT, "version": VERSION, "key": key,
                            **{name: getattr(result, name) for name in _SCALARS}}  # fmt: skip
    w.strings("qids", result.qids)
    w.array("ndcg", np.asarray(result.ndcg, dtype=np.float64))
    w.array("curve", np.asarray(result.curve, dtype=np.float64))
    meta["kendall"] = result.kendall is not None
    if result.kendall is not None:
        w.array("kendall", np.asarray(result.kendall, dtype=np.float64))
    meta["run"] = w.frame("run", result.run)
    meta["reference"] = None
    if result.reference is not None:
        ref = result.reference
        meta["reference"] = {"bases": list(ref.bases), "base_runs": w.frame("base_runs", ref.base_runs),
                             "qrels": w.frame("qrels", ref.qrels)}  # fmt: skip
        for i, values in enumerate(ref.bases.values()):
            w.array(f"bases.{i}", np.asarray(values, dtype=np.float64))
    return w.bytes(meta)


class _Reader:
    """The members of one stored task file, each checked as it is read."""

    def __init__(self, archive: zipfile.ZipFile) -> None:
        self.archive = archive
        self.members = {info.filename: info for info in archive.infolist()}
        for info in self.members.values():
            if info.compress_type != zipfile.ZIP_STORED or info.file_size != info.compress_size:
                raise _Bad(f"{info.filename} is compressed")  # stored: its size on disk bounds its memory

    def meta(self) -> dict[str, Any]:
        meta = json.loads(self.archive.read("task.json").decode())
        if not isinstance(meta, dict) or meta.get("format") != FORMAT or meta.get("version") != VERSION:
            raise _Bad("not a task file of this version")
        return meta

    def array(self, name: str, dtype: Any = None) -> np.ndarray:
        """The ``.npy`` member ``name``: a plain 1-d array whose header matches its size (never a pickle).

        ``dtype``: the one it must have (None: any native numeric dtype).
        """
        info = self.members.get(f"{name}.npy")
        if info is None:
            raise _Bad(f"no member {name}")
        with self.archive.open(info) as fh:
            version = np.lib.format.read_magic(fh)
            read = {(1, 0): np.lib.format.read_array_header_1_0,
                    (2, 0): np.lib.format.read_array_header_2_0}.get(version)
            if read is None:
                raise _Bad(f"{name}: npy version {version}")
            shape, fortran, stored = read(fh)
            if stored.hasobject or stored.kind not in _NUMERIC or not stored.isnative or fortran \
                    or len(shape) != 1 or (dtype is not None and stored != dtype):
                raise _Bad(f"{name}: {stored} {shape}")
            data = fh.read()
        if len(data) != shape[0] * stored.itemsize:
            raise _Bad(f"{name}: {len(data)} bytes for shape {shape}")
        return np.frombuffer(data, dtype=stored).copy()

    def strings(self, name: str) -> list[str]:
        return _unstrings(self.array(f"{name}.utf8", np.uint8), self.array(f"{name}.ends", np.int64))

    def frame(self, name: str, layout: Any, expected: list[str]) -> pd.DataFrame:
        """The frame stored by :meth:`_Writer.frame`, with the columns ``expected``, all of one length."""
        entries = layout if isinstance(layout, list) else [None]
        if [e[0] if isinstance(e, list) and e else None for e in entries] != expected:
            raise _Bad(f"{name}: not the columns {expected}")
        columns: dict[str, Any] = {}
        rows = None
        for i, entry in enumerate(layout):
            if not (len(entry) == 2 and all(isinstance(x, str) for x in entry)):
                raise _Bad(f"{name}: bad layout")
            column, dtype = entry
            if dtype in _STRINGS:
                columns[column] = pd.Series(self.strings(f"{name}.{i}"), dtype=dtype)
            else:
                values = self.array(f"{name}.{i}")
                if str(values.dtype) != dtype:
                    raise _Bad(f"{name}: {column} is {values.dtype}, not {dtype}")
                columns[column] = pd.Series(values)
            rows = len(columns[column]) if rows is None else rows
            if len(columns[column]) != rows:
                raise _Bad(f"{name}: columns of different lengths")
        return pd.DataFrame(columns)


def _scalars(meta: dict[str, Any], key: str) -> dict[str, Any]:
    if meta.get("key") != key:
        raise _Bad("the file of another task")
    out = {}
    for name, kind in _SCALARS.items():
        value = meta.get(name)
        if kind is float and isinstance(value, int) and not isinstance(value, bool):
            value = float(value)
        if type(value) is not kind:
            raise _Bad(f"{name} is not a {kind.__name__}")
        out[name] = value
    return out


def _reference(r: _Reader, spec: Any, n: int) -> ReferenceResult | None:
    if spec is None:
        return None
    if not isinstance(spec, dict) or not isinstance(spec.get("bases"), list):
        raise _Bad("bad reference")
    names = spec["bases"]
    if not all(isinstance(b, str) for b in names) or len(set(names)) != len(names):
        raise _Bad("bad baseline names")
    bases = {b: r.array(f"bases.{i}", np.float64) for i, b in enumerate(names)}
    if any(len(v) != n for v in bases.values()):
        raise _Bad("baseline NDCG of the wrong length")
    runs = r.frame("base_runs", spec.get("base_runs"), ["qid", "docno", *(f"base:{b}" for b in names)])
    return ReferenceResult(bases=bases, base_runs=runs,
                           qrels=r.frame("qrels", spec.get("qrels"), ["qid", "docno", "label"]))


def decode(key: str, archive: zipfile.ZipFile) -> TaskResult:
    """The :class:`TaskResult` stored in ``archive`` under ``key``.

    Raises:
        ValueError: the archive is not a well-formed task of this version and key.
    """
    r = _Reader(archive)
    meta = r.meta()
    fields = _scalars(meta, key)
    qids = tuple(r.strings("qids"))
    ndcg, curve = r.array("ndcg", np.float64), r.array("curve", np.float64)
    if type(meta.get("kendall")) is not bool:
        raise _Bad("bad kendall flag")
    kendall = r.array("kendall", np.float64) if meta["kendall"] else None
    if len(ndcg) != len(qids) or (kendall is not None and len(kendall) != len(qids)):
        raise _Bad("per-query arrays of the wrong length")
    run = r.frame("run", meta.get("run"), ["qid", "docno", "score"])
    return TaskResult(**fields, qids=qids, ndcg=ndcg, kendall=kendall, curve=curve, run=run,
                      reference=_reference(r, meta.get("reference"), len(qids)))


def _regular(path: Path) -> bool:
    """``path`` is a regular file, not a link (a link or a FIFO in ``tasks/`` is never opened)."""
    return not path.is_symlink() and path.is_file()


class TaskStore:
    """The finished tasks' results under ``folder/tasks`` (none kept on disk when ``folder`` is None).

    :meth:`get` gives a stored result or None: a file that is missing, unreadable or malformed in any
    way is a task to compute again, never an error and never code that runs.
    """

    def __init__(self, folder: str | os.PathLike | None) -> None:
        self.folder = None if folder is None else Path(folder) / "tasks"
        self.memory: dict[str, TaskResult] = {}

    def path(self, key: str) -> Path | None:
        """The file of task ``key`` (None without a folder)."""
        return None if self.folder is None else self.folder / f"{key}{_SUFFIX}"

    def get(self, key: str) -> TaskResult | None:
        """The stored result of the task ``key``, or None (a file that is not a well-formed task: absent)."""
        path = self.path(key)
        if key in self.memory or path is None:
            return self.memory.get(key)
        try:
            if not _regular(path):
                return None
            with zipfile.ZipFile(path) as archive:
                result = decode(key, archive)
        except (OSError, ValueError, TypeError, LookupError, AttributeError, EOFError, zipfile.BadZipFile,
                MemoryError, OverflowError, NotImplementedError):
            return None
        self.memory[key] = result
        return result

    def put(self, key: str, result: TaskResult) -> None:
        """Keep ``result``; with a folder, write it whole or not at all (``data.atomic_write``).

        A link, FIFO or other non-regular file at the task's path is removed first (it is never
        written through); a folder there leaves the result in memory only.
        """
        from ..data import atomic_write

        self.memory[key] = result
        path = self.path(key)
        if path is None:
            return
        path.parent.mkdir(parents=True, exist_ok=True)
        if path.is_symlink() or (path.exists() and not path.is_file() and not path.is_dir()):
            path.unlink()
        if path.is_dir():
            return
        with atomic_write(path, "wb") as fh:
            fh.write(encode(key, result))
