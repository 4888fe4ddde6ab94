"""The ``pyterrier-risk`` command (``eval`` and ``demo``)."""

from __future__ import annotations

from .._lazy import lazy_exports

_EXPORTS = {
    "main": "_main",
}
__all__ = list(_EXPORTS)
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
