"""numba compilation with an optional on-disk cache that lives outside the package.

This is the package's one compatibility shim around numba. ``numba.njit(cache=True)`` writes its
cache next to the module (``site-packages/pyterrier_risk/.../__pycache__``), which ``pip
uninstall`` leaves behind (the leftover folder then imports as an empty namespace package), and it
raises ``RuntimeError: cannot cache function ...: no locator available`` when neither the package
folder nor the home directory is writable. Here caching is an optimisation, never a requirement:

* the cache lives in :func:`cache_dir`: ``$PYTERRIER_RISK_CACHE_DIR`` if set, else
  ``$NUMBA_CACHE_DIR`` if set, else ``$XDG_CACHE_HOME/pyterrier_risk/numba`` (default
  ``~/.cache/pyterrier_risk/numba``); ``PYTERRIER_RISK_CACHE_DIR=off`` disables it;
* when that folder cannot be created or written, kernels compile in memory (once per process)
  and a :class:`JITCacheWarning` says so once.

numba chooses a cache location when caching is enabled on a dispatcher, from its setting
``numba.config.CACHE_DIR`` (the ``NUMBA_CACHE_DIR`` setting); it is set to our folder only for
that call and restored at once, so other numba users in the process are not affected.
"""

from __future__ import annotations

import functools
import hashlib
import os
import tempfile
import threading
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numba as nb

__all__ = ["JITCacheWarning", "cache_dir", "jit", "kernel_cache_dir"]

_LOCK = threading.Lock()
_WARNED: list[str] = []
# numba settings that change the machine code but not numba's cache index (which keys on the source file
# and the CPU): a kernel compiled without bounds checks must not be loaded when NUMBA_BOUNDSCHECK=1 is set
_CODEGEN_SETTINGS = (
    "BOUNDSCHECK", "DISABLE_JIT", "OPT", "LOOP_VECTORIZE", "SLP_VECTORIZE", "ENABLE_AVX",
    "DEBUGINFO_DEFAULT", "EXTEND_VARIABLE_LIFETIMES", "CPU_NAME", "CPU_FEATURES",
)  # fmt: skip


class JITCacheWarning(UserWarning):
    """The compiled kernels cannot be cached on disk; they are compiled in memory instead."""


def cache_dir() -> Path | None:
    """The folder of the kernels' on-disk cache, or None when caching is disabled."""
    for var in ("PYTERRIER_RISK_CACHE_DIR", "NUMBA_CACHE_DIR"):
        value = os.environ.get(var, "").strip()
        if value:
            return None if value.lower() in ("off", "0", "none", "false") else Path(value).expanduser()
    base = os.environ.get("XDG_CACHE_HOME", "").strip() or os.path.join("~", ".cache")
    return Path(base).expanduser() / "pyterrier_risk" / "numba"


def kernel_cache_dir() -> Path | None:
    """The subfolder of :func:`cache_dir` for this version of the kernels' sources (None: no cache).

    numba checks a cached function against its own source file only; a pair loop compiled with a
    rule from another file would survive an edit of that file. Keying the folder by a digest of
    every source file of the learning layer (and numba's version) makes any edit start afresh, and
    by numba's code-generation settings (``NUMBA_BOUNDSCHECK``, ``NUMBA_OPT``, ...), which numba's
    own cache index leaves out: a warm cache never hides bounds checks.
    """
    folder = cache_dir()
    return None if folder is None else folder / f"{_sources_digest()}-{codegen_digest()}"


def codegen_digest() -> str:
    """A digest of numba's settings that change the compiled code (:data:`_CODEGEN_SETTINGS`)."""
    settings = "\n".join(f"{name}={getattr(nb.config, name, None)!s}" for name in _CODEGEN_SETTINGS)
    return hashlib.sha256(settings.encode()).hexdigest()[:8]


@functools.cache
def _sources_digest() -> str:
    digest = hashlib.sha256(nb.__version__.encode())
    for path in sorted(Path(__file__).parent.rglob("*.py")):
        digest.update(path.relative_to(Path(__file__).parent).as_posix().encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


def _writable(path: Path) -> bool:
    try:
        path.mkdir(parents=True, exist_ok=True)
        tempfile.TemporaryFile(dir=path).close()
    except OSError:
        return False
    return True


def _warn_once(message: str) -> None:
    if message not in _WARNED:
        _WARNED.append(message)
        warnings.warn(message, JITCacheWarning, stacklevel=4)


def _enable_cache(dispatcher: Any) -> None:
    folder = kernel_cache_dir()
    if folder is None:
        return
    if not _writable(folder):
        _warn_once(f"cannot write the kernel cache folder {folder}; kernels are compiled in memory "
                   "(set PYTERRIER_RISK_CACHE_DIR to a writable folder to cache them)")  # fmt: skip
        return
    config: Any = nb.config  # numba sets its config attributes from the environment at import
    with _LOCK:
        previous = config.CACHE_DIR
        config.CACHE_DIR = str(folder)
        try:
            dispatcher.enable_caching()
        except (RuntimeError, OSError) as e:
            _warn_once(f"cannot cache the kernels in {folder} ({e}); they are compiled in memory")
        finally:
            config.CACHE_DIR = previous


def jit(**options: Any) -> Callable[[Callable[..., Any]], Any]:
    """``numba.njit(**options)`` with the package's optional, out-of-package disk cache.

    Args:
        **options: numba options (``parallel``, ``inline``, ``error_model``, ...); ``cache`` is
            not accepted (the cache is decided here).

    Returns:
        A decorator returning the numba dispatcher.
    """
    if "cache" in options:
        raise TypeError("jit() decides caching itself; do not pass cache=")

    def decorate(func: Callable[..., Any]) -> Any:
        dispatcher = nb.njit(**options)(func)
        _enable_cache(dispatcher)
        return dispatcher

    return decorate
