"""What :func:`pyterrier_risk.Experiment` shares with ``pt.Experiment`` beyond its arguments.

The one place where pyterrier-risk reaches past PyTerrier's public API:
``pt.Experiment(..., perquery='both')`` returns its two tables in ``EvaluationDataTuple``, a
namedtuple subclass (fields ``averages`` and ``perquery``) that PyTerrier does not export.
:func:`pyterrier_risk.Experiment` returns the same type, so that code checking the type of
``pt.Experiment``'s result keeps working. Nothing else of PyTerrier's private modules is used;
``tests/test_experiment.py::test_compat_tuple_is_pt_experiments`` fails if PyTerrier moves or
changes this class (the fallback below is then what users get).

The same exception types: where ``pt.Experiment`` refuses an argument with an ``assert``, a
``KeyError`` or a ``TypeError`` that this package reports as a ``ValueError`` or ``TypeError`` (its
convention), the exception is of both types, so that code written against ``pt.Experiment`` catches
it (``tests/test_experiment_errors.py`` compares the two on every bad argument).
"""

from __future__ import annotations

from typing import Any, NamedTuple

__all__ = [
    "AssertedValueError", "NotAFrameError", "TypedValueError", "UnknownMeasureError", "evaluation_tuple",
]

class EvaluationDataTuple(NamedTuple):
    """Used only if PyTerrier no longer has the class where it is looked up (named as PyTerrier's)."""

    averages: Any
    perquery: Any


def evaluation_tuple(averages: Any, per_query: Any) -> tuple[Any, Any]:
    """``(averages, per_query)`` as the tuple type ``pt.Experiment(perquery='both')`` returns.

    Args:
        averages: the averages table.
        per_query: the per-query table.

    Returns:
        PyTerrier's ``EvaluationDataTuple`` (a namedtuple with fields ``averages`` and ``perquery``).
    """
    try:
        from pyterrier._evaluation._rendering import EvaluationDataTuple as pt_tuple
    except ImportError:  # pragma: no cover - a PyTerrier without it: the guard test fails
        return EvaluationDataTuple(averages, per_query)
    return pt_tuple(averages, per_query)


class AssertedValueError(ValueError, AssertionError):
    """A bad argument that ``pt.Experiment`` refuses with an ``assert``.

    A baseline index out of range, a negative ``round``, an unknown ``test`` name, no systems.
    """


class TypedValueError(ValueError, TypeError):
    """A bad argument that ``pt.Experiment`` refuses with a ``TypeError``.

    A baseline name that is none of ``names`` when the systems are a list (``pt.Experiment`` takes
    no name there at all).
    """


class UnknownMeasureError(TypeError, KeyError):
    """An ``eval_metrics`` item that is neither a measure nor a name (``pt.Experiment``: ``KeyError``)."""

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else ""


class NotAFrameError(TypeError, AttributeError):
    """Topics or qrels that are no frame, file or id.

    ``pt.Experiment`` raises ``TypeError`` for topics and ``AttributeError`` for qrels, both by accident.
    """
