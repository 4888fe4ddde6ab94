"""What every part of the ``pyterrier-risk`` command shares: its name, its errors and its notes."""

from __future__ import annotations

import contextlib
import re
import sys
import warnings
from collections.abc import Iterator

__all__ = ["EXIT_INTERRUPTED", "EXIT_USAGE", "PROG", "CLIError", "note", "notes_from_warnings", "one_line",
           "report_interrupt"]

EXIT_USAGE = 2
#: the exit status after Ctrl-C (128 + SIGINT, as shells report it)
EXIT_INTERRUPTED = 130
PROG = "pyterrier-risk"


class CLIError(Exception):
    """A user error: printed as ``pyterrier-risk: error: <message>``, exit status 2."""


def one_line(text: str) -> str:
    """``text`` with its line breaks (an evaluator's multi-line message, say) folded into ``; ``."""
    return re.sub(r"\s*[\r\n]+\s*", "; ", text.strip())


def report_interrupt() -> int:
    """Print ``pyterrier-risk: interrupted`` on stderr; the exit status after Ctrl-C (130)."""
    print(f"{PROG}: interrupted", file=sys.stderr)
    return EXIT_INTERRUPTED


def note(message: str) -> None:
    """Print ``pyterrier-risk: note: <message>`` on stderr (one line)."""
    print(f"{PROG}: note: {one_line(message)}", file=sys.stderr)


@contextlib.contextmanager
def notes_from_warnings() -> Iterator[None]:
    """Print the topic policy's and ``nDCG_gdeval``'s gains warnings raised inside as notes, each once.

    The policy functions and the measures warn (:mod:`pyterrier_risk.core._topics`,
    :mod:`pyterrier_risk.measures._gdeval`); the command prints. Other warnings are dropped: the
    command's own output is the table.
    """
    from ..core import TopicPolicyWarning
    from ..measures import GdevalGainsWarning

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            yield
        finally:
            policy = [str(w.message) for w in caught
                      if issubclass(w.category, (TopicPolicyWarning, GdevalGainsWarning))]
            for message in dict.fromkeys(policy):
                note(message)
