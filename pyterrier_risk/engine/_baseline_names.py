"""Names of a study's baselines: ``25=BM25``, ``(25, "BM25")`` and a feature-names file (issue 29).

A baseline is named ``F<n>`` (a feature) or by its run file unless the study names it: ``SPEC=NAME`` in
``--baseline``/``--baselines`` (``baseline="25=BM25"`` or ``(25, "BM25")`` in Python), or a feature-names
file of ``NUMBER NAME`` lines (``--feature-names``). A name is one word (a column, a run file's name and
a TREC run tag); a feature keeps one name in a study, and two baselines may not share one.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ._errors import StudyError

if TYPE_CHECKING:
    from ._settings import Baseline

__all__ = ["named_baselines", "read_feature_names"]

_NAME = re.compile(r"[A-Za-z0-9_+\-][A-Za-z0-9_.+\-]*")  # a column, file and run-tag name: one word


def _check_name(name: str, spec: Any) -> str:
    if not _NAME.fullmatch(name):
        raise StudyError(f"baseline {spec!r}: the name {name!r} must be one word of letters, digits, _ . + -")
    return name


def _named(spec: Any) -> tuple[Any, str | None]:
    """``(spec, name)`` of ``25=BM25``, ``(25, 'BM25')`` or ``run.txt=QL``; ``(spec, None)`` unnamed."""
    if isinstance(spec, tuple):
        if len(spec) != 2 or not isinstance(spec[1], str):
            raise StudyError(f"baseline {spec!r}: expected (feature or run file, name), e.g. (25, 'BM25')")
        return spec[0], _check_name(spec[1], spec)
    if isinstance(spec, str) and "=" in spec and not Path(spec).is_file():
        left, _, name = spec.rpartition("=")
        return left, _check_name(name, spec)
    return spec, None


def read_feature_names(path: str | os.PathLike) -> dict[int, str]:
    """A feature-names file: one ``NUMBER NAME`` per line (``25 BM25``); ``#`` comments, blank lines skipped.

    Raises:
        StudyError: the file cannot be read, or a line is not a feature number (from 1) and one-word name,
            or a number is named twice.
    """
    try:
        lines = Path(os.fspath(path)).read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as e:
        raise StudyError(f"feature names {str(path)!r}: cannot read it ({e})") from None
    names: dict[int, str] = {}
    for i, line in enumerate(lines, start=1):
        words = line.split("#", 1)[0].split()
        if not words:
            continue
        if len(words) != 2 or not words[0].isdigit() or int(words[0]) < 1 or not _NAME.fullmatch(words[1]):
            raise StudyError(f"feature names {str(path)!r} line {i}: expected a feature number (from 1) and "
                             f"a one-word name, e.g. '25 BM25', got {line.strip()!r}")
        if int(words[0]) in names:
            raise StudyError(f"feature names {str(path)!r} line {i}: feature {words[0]} is named twice")
        names[int(words[0])] = words[1]
    return names


def named_baselines(single: Any, multiple: Any, feature_names: Any,
                    build: Callable[[Any, str], Baseline]) -> tuple[Baseline | None, tuple[Baseline, ...]]:
    """The study's baselines, each feature named once: ``N=NAME``, else the feature-names file, else FN.

    Args:
        single: the single baseline's spec (or None).
        multiple: the multiple baselines' specs.
        feature_names: a feature-names file (:func:`read_feature_names`), or None.
        build: (a spec without its name, the argument's key) -> :class:`Baseline` (the settings'
            reader of a feature or run).

    Raises:
        StudyError: a name that is not one word, a feature named twice differently, or a bad
            feature-names file (two baselines of one name: the settings' check, which names both).
    """
    names = {} if feature_names is None else read_feature_names(feature_names)
    specs = [] if single is None else [(_named(single), "baseline")]
    many = [multiple] if isinstance(multiple, (str, int)) else multiple
    specs += [(_named(b), "baselines") for b in many]
    built = [(build(s, key), name) for (s, name), key in specs]
    given: dict[int, str] = {}
    for b, name in built:
        if name is not None and b.feature is not None:
            if given.setdefault(b.feature, name) != name:
                raise StudyError(f"baseline feature {b.feature} is named both {given[b.feature]!r} and "
                                 f"{name!r}")
    out = [replace(b, name=name or given.get(b.feature or 0) or names.get(b.feature or 0) or b.name)
           for b, name in built]
    first = None if single is None else out[0]
    rest = out[0 if single is None else 1:]
    return first, tuple(dict.fromkeys(rest))
