"""The one place where pyterrier-risk reaches past PyTerrier's public API.

``pt.Experiment(..., perquery='both')`` returns its two tables in ``EvaluationDataTuple``, a
namedtuple subclass (fields ``averages`` and ``perquery``) that PyTerrier does not export.
:func:`pyterrier_risk.Experiment` returns the same type, so that code checking the type of
``pt.Experiment``'s result keeps working. Nothing else of PyTerrier's private modules is used;
``tests/test_experiment.py::test_compat_tuple_is_pt_experiments`` fails if PyTerrier moves or
changes this class (the fallback below is then what users get).
"""

from __future__ import annotations

from collections import namedtuple
from typing import Any

__all__ = ["evaluation_tuple"]

#: used only if PyTerrier no longer has the class where it is looked up
_FallbackTuple = namedtuple("EvaluationDataTuple", ["averages", "perquery"])


def evaluation_tuple(averages: Any, per_query: Any) -> tuple[Any, Any]:
    """``(averages, per_query)`` as the tuple type ``pt.Experiment(perquery='both')`` returns.

    Args:
        averages: the averages table.
        per_query: the per-query table.

    Returns:
        PyTerrier's ``EvaluationDataTuple`` (a namedtuple with fields ``averages`` and ``perquery``).
    """
    try:
        from pyterrier._evaluation._rendering import EvaluationDataTuple
    except ImportError:  # pragma: no cover - a PyTerrier without it: the guard test fails
        return _FallbackTuple(averages, per_query)
    return EvaluationDataTuple(averages, per_query)
