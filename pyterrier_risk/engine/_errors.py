"""The error of a study: a problem the user can fix, reported in one line."""

from __future__ import annotations

__all__ = ["StudyError"]


class StudyError(ValueError):
    """A problem the user can fix (missing data, unknown dataset, unwritable output); no traceback."""
