"""The errors of a study: a problem the user can fix, reported in one line, and its notes."""

from __future__ import annotations

import re
from collections.abc import Mapping

__all__ = ["SettingError", "StudyError", "StudyNote"]

_WORD = re.compile(r"⟨([a-z_]+)(?:=([^⟩]*))?⟩")


class StudyError(ValueError):
    """A problem the user can fix (missing data, unknown dataset, unwritable output); no traceback."""


def _render(template: str, flags: Mapping[str, str] | None) -> str:
    """``template`` with each ``⟨key⟩`` named by ``flags`` (key -> flag), else by its keyword."""

    def word(match: re.Match[str]) -> str:
        key, value = match.group(1), match.group(2)
        if flags is None or key not in flags:
            return key if value is None else f"{key}={value}"
        return flags[key] if value is None else f"{flags[key]} {value}"

    return _WORD.sub(word, template)


class SettingError(StudyError):
    """A bad argument of a study, its message naming arguments by neutral keys.

    The template writes ``⟨rounds⟩`` for an argument and ``⟨folds=K⟩`` for an argument with a value.
    ``str(error)`` renders them as Python's keywords (``rounds``, ``folds=K``); :meth:`render` with
    the command's flags as the command line's (``--rounds``, ``--folds K``).
    """

    def __init__(self, template: str) -> None:
        self.template = template
        super().__init__(self.render())

    def render(self, flags: Mapping[str, str] | None = None) -> str:
        """The message with each argument named by ``flags`` (key -> flag), else by its keyword."""
        return _render(self.template, flags)


class StudyNote(UserWarning):
    """A remark on a study's arguments that is no error (the reference listed among the objectives).

    Worded as :class:`SettingError` is: ``str(note)`` names Python's keywords, :meth:`render` the
    command's flags (``pyterrier-risk learn`` prints it as a note).
    """

    def __init__(self, template: str) -> None:
        self.template = template
        super().__init__(self.render())

    def render(self, flags: Mapping[str, str] | None = None) -> str:
        """The note with each argument named by ``flags`` (key -> flag), else by its keyword."""
        return _render(self.template, flags)
