"""The ``pyterrier-risk`` command (``eval`` and ``demo``)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .._lazy import lazy_exports

_EXPORTS = {
    "main": "_main",
}
# for the package's __init__: Ctrl-C while the command imports the package
_INTERNAL = {
    "report_interrupt": "_common",
}
__all__ = list(_EXPORTS)

if TYPE_CHECKING:  # the lazy names for type checkers and editors (tests/test_package.py: the same)
    from ._common import report_interrupt as report_interrupt
    from ._main import main as main

__getattr__, __dir__ = lazy_exports(__name__, {**_EXPORTS, **_INTERNAL})
