"""A learning study's output folder (``--out``): one study at a time, one consistent set of files.

* **Lock.** A study holds ``fcntl.flock`` on ``OUT/.lock`` (the file holds its pid while it runs) from
  its first task to its last file: a second study into the folder stops with a one-line error naming
  the first one's pid. The lock is re-entrant within a process (``risk_study`` holds it, and
  ``RiskStudyResult.write`` inside it takes it again).
* **Staging.** The result files are written into a hidden folder ``OUT/.staging-*`` and then moved in,
  file by file, with Ctrl-C (and SIGTERM) held back. ``OUT/.pending`` records, before the first move,
  which staged set is being moved in and which files the previous set had: a process killed during
  the moves leaves the journal, and the next study or write into the folder finishes them first. A
  failure while the files are written (a full disk, a crash) leaves the previous set untouched.
* **Manifest.** ``OUT/manifest.json`` lists the files the study wrote (path, size, sha256). A new
  set removes the files of the previous manifest it does not write again, and only while they still
  hold the bytes the study wrote: a user's file in the folder (``runs/my_system.run``) is never
  touched, nor a study file the user has since changed.
* **Inputs.** A folder that holds one of the study's inputs (the data, a baseline run, an
  ``--import`` module) is refused, and so is a baseline whose run would take a model's run name.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import shutil
import signal
import sys
import tempfile
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

from ..data import signals_held, sync_folder
from ._errors import SettingError, StudyError

__all__ = ["MANIFEST_FILE", "check_out_inputs", "check_run_names", "publish", "study_lock"]

LOCK_FILE = ".lock"
MANIFEST_FILE = "manifest.json"
JOURNAL_FILE = ".pending"
STAGING_PREFIX = ".staging-"
MANIFEST_FORMAT = "pyterrier-risk/learn-files"
#: the only paths a manifest may name: what :func:`~._result.write_study` writes
_STUDY_FILE = re.compile(
    r"(per_query|curves|kendall|models)\.csv|qrels\.txt|tables\.(md|tex|csv)|risk_gain\.png|settings\.json"
    r"|runs/[^/\\]+\.run"
)
_HELD: dict[str, list[int]] = {}  # realpath of a locked folder -> [fd, depth] (the lock is re-entrant)
_KEPT: set[str] = set()  # realpaths whose lock outlives its study_lock blocks (keep_lock)


# ------------------------------------------------------------------------------------------- lock
@contextlib.contextmanager
def study_lock(out: Path) -> Iterator[None]:
    """Hold the folder's lock (``flock`` on ``out/.lock``, which holds the pid) for the block.

    Creates ``out``. The lock is re-entrant within a process, and outlives the block inside
    :func:`keep_lock` for the same folder. On a system without ``fcntl`` (Windows) the block runs unlocked.

    Raises:
        StudyError: another process holds the lock (its pid named).
    """
    out.mkdir(parents=True, exist_ok=True)
    key = os.path.realpath(out)
    if key not in _HELD:
        _HELD[key] = [_acquire(out), 0]
    _HELD[key][1] += 1
    try:
        yield
    finally:
        _HELD[key][1] -= 1
        if _HELD[key][1] == 0 and key not in _KEPT:
            _release(_HELD.pop(key)[0])


@contextlib.contextmanager
def keep_lock(out: Path) -> Iterator[None]:
    """Keep ``out``'s lock, once a :func:`study_lock` inside the block has taken it, until the block ends.

    Neither creates nor locks ``out`` by itself: a study refused before its first task leaves no folder.
    """
    key = os.path.realpath(out)
    _KEPT.add(key)
    try:
        yield
    finally:
        _KEPT.discard(key)
        held = _HELD.get(key)
        if held is not None and held[1] == 0:
            _release(_HELD.pop(key)[0])


def _acquire(out: Path) -> int:
    """Open ``out/.lock``, lock it without waiting and write this process's pid into it."""
    fd = os.open(out / LOCK_FILE, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        import fcntl
    except ImportError:  # pragma: no cover - Windows: no flock
        return fd
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        holder = os.pread(fd, 64, 0).decode("ascii", "replace").strip() or "unknown"
        os.close(fd)
        raise SettingError(f"⟨out⟩ {out}: another study (pid {holder}) is writing into this folder; wait "
                             "for it to finish, or give another ⟨out⟩") from None
    os.ftruncate(fd, 0)
    os.pwrite(fd, f"{os.getpid()}\n".encode("ascii"), 0)
    return fd


def _release(fd: int) -> None:
    """Empty the lock file (no stale pid) and unlock; the file stays (deleting it would race)."""
    with contextlib.suppress(OSError):
        os.ftruncate(fd, 0)
    os.close(fd)  # closing the last descriptor releases the flock


# ----------------------------------------------------------------------------------------- inputs
def _inside(path: str | os.PathLike[str], folder: str) -> bool:
    real = os.path.realpath(path)
    return real == folder or real.startswith(folder.rstrip(os.sep) + os.sep)


def _import_files(names: Iterable[str]) -> list[tuple[str, str]]:
    """``(module, file)`` of each imported ``--import`` module that has a file (a package: its folder)."""
    out = []
    for name in names:
        module = sys.modules.get(name)
        file = getattr(module, "__file__", None)
        if file:
            out.append((name, os.path.dirname(file) if Path(file).name == "__init__.py" else file))
    return out


def check_out_inputs(out: Path | None, settings: Any) -> None:
    """Refuse an ``--out`` that holds one of the study's inputs: the data, a baseline run, an ``--import``.

    The study writes and replaces files in ``out``: an input there could be overwritten or removed.

    Raises:
        StudyError: one line naming the input and the folder.
    """
    if out is None:
        return
    folder = os.path.realpath(out)
    inputs = [("the data (⟨data⟩)", settings.data)]
    inputs += [(f"the baseline run {b.name!r}", b.run) for b in settings.all_baselines() if b.run]
    inputs += [(f"the ⟨imports⟩ module {name!r}", file) for name, file in _import_files(settings.imports)]
    for what, path in inputs:
        if _inside(path, folder):
            raise SettingError(f"⟨out⟩ {out} holds {what}, {path}: the study writes into ⟨out⟩ and could "
                                 "overwrite or remove it; give another ⟨out⟩ or move the input out of it")


def check_run_names(model_names: Iterable[str], baseline_names: Iterable[str]) -> None:
    """Refuse a baseline whose run file would take a model's name in ``runs/`` (``lambdarank_a0_s1.run``).

    Raises:
        StudyError: one line naming the baseline.
    """
    models = {name.casefold() for name in model_names}  # one file on a case-insensitive file system
    for name in baseline_names:
        if name.casefold() in models:
            raise StudyError(f"baseline {name!r} has the name of a model's run (runs/{name}.run): its "
                             "run would replace the model's; rename the baseline's run file")


# --------------------------------------------------------------------------------------- manifest
def _digest(path: Path) -> dict[str, Any]:
    sha = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            sha.update(block)
    return {"size": path.stat().st_size, "sha256": sha.hexdigest()}


def _manifest_text(staging: Path, names: list[str]) -> str:
    files = [{"path": name, **_digest(staging / name)} for name in names]
    return json.dumps({"format": MANIFEST_FORMAT, "format_version": 1, "files": files}, indent=1) + "\n"


def read_manifest(out: Path) -> dict[str, dict[str, Any]]:
    """The files ``out/manifest.json`` records (path -> size and sha256); {} when absent or unusable.

    Only the names a study writes are taken (no path outside the folder, no other file): a hand-made
    or damaged manifest can make the study keep a file, never remove a foreign one.
    """
    try:
        data = json.loads((out / MANIFEST_FILE).read_bytes())
        files = data["files"] if data.get("format") == MANIFEST_FORMAT else []
        return {f["path"]: f for f in files if isinstance(f, dict) and isinstance(f.get("path"), str)
                and _STUDY_FILE.fullmatch(f["path"]) and isinstance(f.get("sha256"), str)}
    except (OSError, ValueError, TypeError, KeyError, AttributeError):
        return {}


def _still_ours(path: Path, entry: dict[str, Any]) -> bool:
    """Whether ``path`` is a regular file (not a link) with the size and sha256 the manifest recorded."""
    try:
        if not path.is_file() or path.is_symlink() or path.stat().st_size != entry.get("size"):
            return False
        return _digest(path)["sha256"] == entry["sha256"]
    except OSError:
        return False


def remove_stale(out: Path, previous: dict[str, dict[str, Any]], written: Iterable[str]) -> None:
    """Remove the files of the previous set (``previous``: its manifest) that the new set does not have.

    Only files that still hold the bytes the study wrote: a file the user replaced is kept.
    """
    keep = set(written)
    for name, entry in previous.items():
        path = out / name
        if name not in keep and _STUDY_FILE.fullmatch(name) and _still_ours(path, entry):
            with contextlib.suppress(FileNotFoundError):
                path.unlink()


# ------------------------------------------------------------------------------------ publishing
def publish(out: Path, write_files: Callable[[Path], list[str]]) -> list[Path]:
    """Write one set of result files into ``out`` as one change; returns their final paths.

    ``write_files(staging)`` writes the files under the hidden folder ``staging`` and returns their
    paths relative to it. The set is then moved into ``out`` (:func:`_commit`) with its manifest, and
    the previous set's files it does not have are removed. Holds the folder's lock.
    """
    with study_lock(out):
        recover(out)
        staging = Path(tempfile.mkdtemp(dir=out, prefix=STAGING_PREFIX))
        try:
            names = write_files(staging)
            _write_text(staging / MANIFEST_FILE, _manifest_text(staging, names))
            journal = {"staging": staging.name, "files": [*names, MANIFEST_FILE],
                       "previous": read_manifest(out)}
            _write_text(out / JOURNAL_FILE, json.dumps(journal) + "\n")
        except BaseException:
            shutil.rmtree(staging, ignore_errors=True)
            raise
        _commit(out, journal)
    return [out / name for name in names]


def recover(out: Path) -> None:
    """Finish a set whose moves were interrupted (``.pending``); remove staging folders never committed."""
    journal = _read_journal(out)
    if journal is not None:
        _commit(out, journal)
    for leftover in out.glob(f"{STAGING_PREFIX}*"):
        shutil.rmtree(leftover, ignore_errors=True)


def _read_journal(out: Path) -> dict[str, Any] | None:
    """The journal of an interrupted commit, or None (absent, or unusable: then it is dropped)."""
    try:
        journal = json.loads((out / JOURNAL_FILE).read_bytes())
        names = journal["files"]
        ok = (isinstance(journal["staging"], str) and journal["staging"].startswith(STAGING_PREFIX)
              and "/" not in journal["staging"] and isinstance(journal["previous"], dict)
              and all(isinstance(n, str) and (_STUDY_FILE.fullmatch(n) or n == MANIFEST_FILE) for n in names))
    except FileNotFoundError:
        return None
    except (OSError, ValueError, TypeError, KeyError):
        ok = False
    if not ok:
        (out / JOURNAL_FILE).unlink(missing_ok=True)
        return None
    return journal


def _commit(out: Path, journal: dict[str, Any]) -> None:
    """Move the staged files in (the manifest last), remove the previous set's others, drop the journal.

    Idempotent: a file already moved is skipped, so an interrupted commit is finished by running it again.
    """
    staging = out / journal["staging"]
    with signals_held(signal.SIGINT, signal.SIGTERM):
        for name in journal["files"]:  # the manifest is the last name
            source = staging / name
            if source.is_file():
                (out / name).parent.mkdir(parents=True, exist_ok=True)
                os.replace(source, out / name)
        sync_folder(out / "runs")
        sync_folder(out)
        previous = {n: e for n, e in journal["previous"].items() if isinstance(e, dict)}
        remove_stale(out, previous, journal["files"])
        shutil.rmtree(staging, ignore_errors=True)
        (out / JOURNAL_FILE).unlink(missing_ok=True)
        sync_folder(out)


def _write_text(path: Path, text: str) -> None:
    from ..data import atomic_write

    with atomic_write(path) as fh:
        fh.write(text)
