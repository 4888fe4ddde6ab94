"""Files written whole or not at all, and interrupts that stay interrupts.

Every file the package writes (tables, runs, qrels, plots, the demo's report) goes through
:func:`atomic_write`: the text goes to a temporary file beside the target, is flushed to disk and
then renamed over the target, so a full disk, an error or Ctrl-C leaves the previous file as it was
and no partial or temporary file behind.

:func:`raised_by_interrupt` tells an error that only wraps a ``KeyboardInterrupt`` (pandas' C parser
turns one raised in a stream's ``read`` into a ``ParserError``; a C++ extension such as PISA's into a
``SystemError``) from a real one, so that a fallback never swallows Ctrl-C; :func:`watch_interrupts`
notes a SIGINT whose ``KeyboardInterrupt`` native code may lose altogether.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import signal
import stat
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

__all__ = ["InterruptWatch", "atomic_write", "raised_by_interrupt", "signals_held", "sync_folder",
           "watch_interrupts"]


def raised_by_interrupt(error: BaseException) -> bool:
    """Whether ``error`` is a ``KeyboardInterrupt`` or was raised while handling one (its chain holds one).

    Args:
        error: an exception; its ``__cause__`` and ``__context__`` chain is followed.
    """
    seen: set[int] = set()
    todo: list[BaseException | None] = [error]
    while todo:
        e = todo.pop()
        if e is None or id(e) in seen:
            continue
        if isinstance(e, KeyboardInterrupt):
            return True
        seen.add(id(e))
        todo += [e.__cause__, e.__context__]
    return False


class InterruptWatch:
    """Whether a SIGINT came while :func:`watch_interrupts` watched (``hit``)."""

    hit: bool = False


@contextlib.contextmanager
def watch_interrupts() -> Iterator[InterruptWatch]:
    """Note each SIGINT that comes inside the block, then handle it as before (``KeyboardInterrupt``).

    For native code that may lose the ``KeyboardInterrupt`` it gets from a Python callback (pandas' C
    parser turns one in a stream's ``read`` into a ``ParserError``, now and then without a chain): the
    caller checks ``hit``. Only the main thread handles signals; elsewhere, or when SIGINT is ignored
    or left to the system, nothing is installed and ``hit`` stays False.
    """
    watch = InterruptWatch()
    previous = signal.getsignal(signal.SIGINT)
    if threading.current_thread() is not threading.main_thread() or not callable(previous):
        yield watch
        return

    def noted(signum: int, frame: Any) -> Any:
        watch.hit = True
        return previous(signum, frame)

    signal.signal(signal.SIGINT, noted)
    try:
        yield watch
    finally:
        signal.signal(signal.SIGINT, previous)


def _temporary(target: Path) -> tuple[int, str]:
    """A new file beside ``target`` (permissions: the target's, else the umask's), open for writing."""
    tmp = str(target.parent / f".{target.name}.{os.getpid()}-{secrets.token_hex(4)}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)  # the umask applies, as for open()
    try:
        os.chmod(tmp, stat.S_IMODE(os.stat(target).st_mode))
    except FileNotFoundError:
        pass
    except BaseException:
        os.close(fd)
        os.unlink(tmp)
        raise
    return fd, tmp


def _is_stream(path: Path) -> bool:
    """Whether ``path`` exists and is neither a regular file nor a folder (a device, a FIFO, a socket)."""
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return False
    return not (stat.S_ISREG(mode) or stat.S_ISDIR(mode))


@contextlib.contextmanager
def atomic_write(path: str | os.PathLike[str], mode: str = "w", encoding: str | None = "utf-8",
                 newline: str | None = None) -> Iterator[IO[Any]]:
    """Open ``path`` for writing so that it is replaced whole, or not at all.

    The file object writes to a temporary file in the same folder (``.<name>.<pid>-<random>.tmp``).
    When the ``with`` block ends normally the data is flushed and synced to disk and the temporary
    file renamed over ``path`` (``os.replace``, atomic on POSIX and Windows). When anything is raised
    inside the block or while finishing (a full disk's ``OSError``, ``KeyboardInterrupt``), the
    temporary file is removed and ``path`` keeps its previous content.

    A link is followed (its target is replaced, the link stays). A ``path`` that exists and is not a
    regular file (``/dev/stdout``, a FIFO) is written directly: a stream has no previous content to keep.
    A replaced file keeps its permission bits; a new one gets the umask's.

    Args:
        path: the file to write (its folder must exist).
        mode: ``"w"`` (text) or ``"wb"`` (binary).
        encoding: the text encoding (text mode only).
        newline: as :func:`open`'s ``newline`` (text mode only).

    Yields:
        The open file object.

    Raises:
        ValueError: ``mode`` is not ``"w"`` or ``"wb"``.
        OSError: the file cannot be written (the original file is unchanged).
    """
    if mode not in ("w", "wb"):
        raise ValueError(f"atomic_write writes whole files: mode must be 'w' or 'wb', got {mode!r}")
    options: dict[str, Any] = {"encoding": encoding, "newline": newline} if mode == "w" else {}
    if _is_stream(Path(path)):  # a device or a FIFO (/dev/stdout: a link to a pipe): nothing to replace
        with open(path, mode, **options) as stream:
            yield stream
        return
    target = Path(os.path.realpath(path))
    fd, tmp = _temporary(target)
    try:
        with os.fdopen(fd, mode, **options) as f:
            yield f
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def sync_folder(folder: str | os.PathLike[str]) -> None:
    """Flush a folder's entries (the renames into it) to disk where the platform allows it."""
    with contextlib.suppress(OSError):
        fd = os.open(folder, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


@contextlib.contextmanager
def signals_held(*signums: int) -> Iterator[None]:
    """Hold back ``signums`` (SIGINT, SIGTERM, ...) during the block; deliver the first caught after it.

    It is delivered to the handler that was installed before, as that handler would have run. Only the
    main thread receives signals in Python: elsewhere the block runs as is, and so does a signal left to
    the system or ignored (only callable handlers are held).
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    held = {s: h for s in signums if callable(h := signal.getsignal(s))}
    caught: list[tuple[int, Any]] = []
    for s in held:
        signal.signal(s, lambda signum, frame: caught.append((signum, frame)))
    try:
        yield
    finally:
        for s, handler in held.items():
            signal.signal(s, handler)
        for signum, frame in caught[:1]:
            held[signal.Signals(signum)](signum, frame)
