"""Experiment integration: :func:`Experiment`, ``pt.Experiment`` plus risk measures; :func:`hurt_topics`."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .._lazy import lazy_exports

_EXPORTS = {
    "Experiment": "_experiment",
    "hurt_topics": "_hurt",
    "query_texts": "_hurt",
}
# helpers the other layers use (they import a layer through its package, never its private modules)
_INTERNAL = {
    "TableOptions": "_render",
    "render": "_render",
    "RiskTest": "_riskeval",
    "named_measure": "_riskeval",
    "tables_from_matrices": "_riskeval",
}
__all__ = list(_EXPORTS)

if TYPE_CHECKING:  # the lazy names for type checkers and editors (tests/test_package.py: the same)
    from ._experiment import Experiment as Experiment
    from ._hurt import hurt_topics as hurt_topics
    from ._hurt import query_texts as query_texts
    from ._render import TableOptions as TableOptions
    from ._render import render as render
    from ._riskeval import RiskTest as RiskTest
    from ._riskeval import named_measure as named_measure
    from ._riskeval import tables_from_matrices as tables_from_matrices

__getattr__, __dir__ = lazy_exports(__name__, {**_EXPORTS, **_INTERNAL})
