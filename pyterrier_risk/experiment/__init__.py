"""Experiment integration: :func:`Experiment`, ``pt.Experiment`` plus risk measures; :func:`hurt_topics`."""

from __future__ import annotations

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
__getattr__, __dir__ = lazy_exports(__name__, {**_EXPORTS, **_INTERNAL})
