"""Strict parsing of the option values the learning layer reads itself (no ``bool()``/``int()`` of them).

A value is taken only in a spelling that means one thing: ``bool("false")`` is True in Python while
LightGBM reads ``"false"`` as false, so a flag is a bool, or (for LightGBM's own parameters) one of
LightGBM's spellings, and everything else is refused with a one-line error. Counts are integers that
fit LightGBM's C ``int`` (the largest value its configuration can hold). docs/objectives.md ("Option
values") states the policy.
"""

from __future__ import annotations

from typing import Any, Literal, overload

import numpy as np

from ..core import check_int

__all__ = ["INT32_MAX", "check_count", "check_flag", "lightgbm_bool"]

# LightGBM keeps counts (cutoffs, rounds, truncation level, threads) in a C int
INT32_MAX = 2**31 - 1
_LIGHTGBM_TRUE = ("true", "+")
_LIGHTGBM_FALSE = ("false", "-")


@overload
def check_count(value: Any, name: str, *, minimum: int = 1, allow_none: Literal[False] = False) -> int: ...


@overload
def check_count(value: Any, name: str, *, minimum: int = 1, allow_none: bool) -> int | None: ...


def check_count(value: Any, name: str, *, minimum: int = 1, allow_none: bool = False) -> int | None:
    """``value`` as an int in ``[minimum, 2^31 − 1]`` (:func:`~pyterrier_risk.core._validate.check_int`).

    Raises:
        TypeError: not an integer (bool, float and str included).
        ValueError: below ``minimum`` or above LightGBM's largest count, 2^31 − 1.
    """
    checked = check_int(value, name, minimum=minimum, allow_none=allow_none)
    if checked is not None and checked > INT32_MAX:
        raise ValueError(f"{name} must be at most {INT32_MAX} (LightGBM stores it in a C int), got {value!r}")
    return checked


def check_flag(value: Any, name: str) -> bool:
    """``value`` if it is a bool (Python's or numpy's), else a TypeError (``'false'`` is not False)."""
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    raise TypeError(f"{name} must be True or False, got {type(value).__name__} {value!r}")


def lightgbm_bool(value: Any, name: str) -> bool:
    """A LightGBM boolean parameter read as LightGBM reads it.

    A bool (Python's or numpy's), or a string that LightGBM's ``Config::GetBool`` accepts:
    ``'true'``/``'+'`` or ``'false'``/``'-'``, in any case. LightGBM refuses everything else (``0``,
    ``1``, ``'0'``, ``'yes'``), and so does this.

    Raises:
        ValueError: a string LightGBM does not read as a boolean.
        TypeError: neither a bool nor a string.
    """
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    if isinstance(value, str):
        spelled = value.lower()
        if spelled in _LIGHTGBM_TRUE:
            return True
        if spelled in _LIGHTGBM_FALSE:
            return False
        raise ValueError(
            f"{name} must be True or False (LightGBM also reads 'true'/'+' and 'false'/'-'), got {value!r}"
        )
    raise TypeError(
        f"{name} must be True or False (LightGBM reads no number as a boolean), got "
        f"{type(value).__name__} {value!r}"
    )
