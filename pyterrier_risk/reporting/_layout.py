"""Compact layouts of result tables: the long/tidy layout and short column labels with a legend.

A wide result table (``pyterrier_risk.Experiment``, ``pt.Experiment``, ``pyterrier-risk eval``) has one
row per system and one column per measure, named by the measure's ``repr`` (``nDCG@20``,
``URisk(nDCG@20,alpha=5)``), plus the derived columns ``"<measure> +"``, ``"<measure> -"``,
``"<measure> p-value"``, ``"<measure> p-value corrected"`` and ``"<measure> reject"``. The column names are
parsed with :func:`pyterrier_risk.parse_measure`, so the risk measures' base measure and α come from the
names themselves.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Sequence
from dataclasses import dataclass, field
from typing import Any

import pandas as pd

__all__ = ["ColumnInfo", "column_info", "long_constants", "short_labels", "tidy_results", "system_column"]

#: derived-column suffixes of pt.Experiment / pyterrier_risk.Experiment, longest first
SUFFIXES = ("p-value corrected", "p-value", "reject", "+", "-")
_SHORT_SUFFIX = {"": "", "p-value": " p", "p-value corrected": " p-adj", "reject": " rej",
                 "+": " +", "-": " -"}
_FAMILY_LETTER = {"URisk": "U", "TRisk": "T", "ZRisk": "Z", "GeoRisk": "G"}


@dataclass(frozen=True)
class ColumnInfo:
    """What a result-table column holds, parsed from its name.

    Attributes:
        column: the column name.
        stem: the name without its derived-column suffix (the measure's ``repr`` for a measure column).
        suffix: ``''`` or one of :data:`SUFFIXES`.
        is_measure: whether ``stem`` parses as a measure.
        family: the risk measure's name (``'URisk'``, ``'TRisk'``, ...) for a measure with a base and an
            ``alpha``; ``None`` for an ordinary measure.
        base: the base measure's ``repr`` (a risk measure) or the measure's own ``repr``.
        alpha: the risk measure's α (``nan`` for an ordinary measure).
        extra: the risk measure's other parameters (``baseline``, ``pool``, ``se``).
    """

    column: Hashable
    stem: str
    suffix: str = ""
    is_measure: bool = False
    family: str | None = None
    base: str | None = None
    alpha: float = math.nan
    extra: tuple[tuple[str, Any], ...] = field(default=())


def column_info(column: Hashable) -> ColumnInfo:
    """Parse a result-table column name (see the module docstring); a non-measure name is kept as it is.

    Example:
        >>> info = column_info("TRisk(nDCG@20,alpha=5) p-value")
        >>> info.family, info.base, info.alpha, info.suffix
        ('TRisk', 'nDCG@20', 5.0, 'p-value')
    """
    from ..measures import parse_measure

    if not isinstance(column, str):
        return ColumnInfo(column, str(column))
    stem, suffix = column, ""
    for s in SUFFIXES:
        if column.endswith(" " + s):
            stem, suffix = column[: -len(s) - 1], s
            break
    try:
        measure = parse_measure(stem)
    except Exception:  # noqa: BLE001 - any parse failure means "not a measure column"
        return ColumnInfo(column, column)
    params = dict(getattr(measure, "params", {}))
    if "alpha" in getattr(measure, "SUPPORTED_PARAMS", {}) and "base" in params:
        base = params.pop("base")
        alpha = float(params.pop("alpha", 0.0))
        extra = tuple(sorted((k, v) for k, v in params.items() if v is not None))
        return ColumnInfo(column, stem, suffix, True, measure.NAME, repr(base), alpha, extra)
    return ColumnInfo(column, stem, suffix, True, None, repr(measure))


def system_column(df: pd.DataFrame) -> Hashable | None:
    """The column naming the systems: ``'name'`` if present, else the first non-numeric non-measure column."""
    if "name" in df.columns:
        return "name"
    for col in df.columns:
        if not pd.api.types.is_numeric_dtype(df[col]) and not column_info(col).is_measure:
            return col
    return None


def _variants(infos: Sequence[ColumnInfo]) -> dict[str, list[tuple]]:
    """Each risk family's distinct other parameters (baseline, pool, se), in order of appearance."""
    extras: dict[str, list[tuple]] = {}
    for info in infos:
        if info.family is not None and info.extra not in extras.setdefault(info.family, []):
            extras[info.family].append(info.extra)
    return extras


def _letters(extras: dict[str, list[tuple]]) -> dict[tuple, str]:
    """A letter for each parameter setting of the families that have several (``a``, ``b``, ...)."""
    settings = list(dict.fromkeys(e for variants in extras.values() if len(variants) > 1 for e in variants))
    return {extra: "abcdefghijklmnopqrstuvwxyz"[k % 26] + "'" * (k // 26) for k, extra in enumerate(settings)}


def _family_labels(infos: Sequence[ColumnInfo], lettered: bool = False) -> dict[tuple[str, tuple], str]:
    """Label of each (family, extra) in the long layout: the family, plus the parameters that vary.

    With ``lettered`` (short labels), a family is its letter (``U``, ``T``, ``Z``, ``G``) and varying
    parameters a second letter (``Ua``), explained by :func:`long_constants`.
    """
    extras = _variants(infos)
    letters = _letters(extras)
    labels = {}
    for family, variants in extras.items():
        for extra in variants:
            if lettered:
                letter = _FAMILY_LETTER.get(family, family[:1].upper())
                labels[(family, extra)] = letter + (letters[extra] if len(variants) > 1 else "")
                continue
            shown = ",".join(f"{k}={v!r}" for k, v in extra) if len(variants) > 1 else ""
            labels[(family, extra)] = f"{family}({shown})" if shown else family
    return labels


def long_constants(columns: Sequence[Hashable], lettered: bool = False) -> list[str]:
    """What the long layout's column labels leave out: each family's parameters that do not vary.

    ``URisk(nDCG@20,alpha=5,baseline='BM25')`` is the column ``URisk`` of the long layout when every
    URisk of the table has that baseline; the table's note says so: ``URisk, TRisk: baseline='BM25'``.
    With ``lettered`` (short labels), also what each letter of a varying parameter stands for
    (``a: baseline='BM25'``).
    """
    extras = _variants([column_info(c) for c in columns])
    shared: dict[tuple, list[str]] = {}
    for family, variants in extras.items():
        if len(variants) == 1 and variants[0]:
            shared.setdefault(variants[0], []).append(family)
    out = [", ".join(families) + ": " + ",".join(f"{k}={v!r}" for k, v in extra)
           for extra, families in shared.items()]
    if lettered:
        out += [", ".join(f"{_FAMILY_LETTER.get(f, f[:1].upper())}: {f}" for f in extras)]
        out += [f"{letter}: " + ",".join(f"{k}={v!r}" for k, v in extra)
                for extra, letter in _letters(extras).items()]
    return out


def _long_column(info: ColumnInfo, labels: dict[tuple[str, tuple], str], lettered: bool = False) -> str:
    head = "value" if info.family is None else labels[(info.family, info.extra)]
    if lettered:  # short labels: "Ta p", "value p-adj"
        return head + _SHORT_SUFFIX[info.suffix]
    return head + (" " + info.suffix if info.suffix else "")


def long_names(columns: Sequence[Hashable], lettered: bool = False) -> dict[Hashable, str]:
    """The long-layout name of each measure column (``value``, ``value p-value``, ``URisk``, ...)."""
    measures = [i for i in (column_info(c) for c in columns) if i.is_measure]
    labels = _family_labels(measures, lettered)
    return {i.column: _long_column(i, labels, lettered) for i in measures}


def melt_frame(frame: pd.DataFrame, id_column: Hashable | None, fill: Any = math.nan,
               lettered: bool = False) -> pd.DataFrame:
    """The long layout of ``frame`` (any cell type, so that pre-formatted tables can be melted too).

    One row per system × base measure × α; see :func:`tidy_results` (``lettered``: see
    :func:`_family_labels`).
    """
    systems = frame[id_column] if id_column is not None else pd.Series(frame.index, index=frame.index)
    id_name = id_column if id_column is not None else (frame.index.name or "name")
    infos = [column_info(c) for c in frame.columns if c != id_column]
    measures = [i for i in infos if i.is_measure]
    others = [i.column for i in infos if not i.is_measure]
    labels = _family_labels(measures, lettered)
    bases = list(dict.fromkeys(i.base for i in measures))
    alphas = {b: sorted({i.alpha for i in measures if i.base == b and i.family is not None}) or [math.nan]
              for b in bases}
    columns = list(dict.fromkeys(_long_column(i, labels, lettered) for i in measures))
    rows = []
    for pos in range(len(frame)):
        record = frame.iloc[pos]
        for base, alpha in ((b, a) for b in bases for a in alphas[b]):
            row = {id_name: systems.iloc[pos], "measure": base, "alpha": alpha}
            row.update(dict.fromkeys(columns, fill))
            for info in measures:
                if info.base == base and (info.family is None or info.alpha == alpha):
                    row[_long_column(info, labels, lettered)] = record[info.column]
            row.update({o: record[o] for o in others})
            rows.append(row)
    return pd.DataFrame(rows, columns=[id_name, "measure", "alpha", *columns, *others])


def tidy_results(df: pd.DataFrame) -> pd.DataFrame:
    """Melt a wide result table into the long/tidy layout: one row per system × base measure × α.

    Columns: ``name`` (the system: the ``name`` column, else the first text column, else the index;
    the column keeps its name),
    ``measure`` (the base measure's ``repr``), ``alpha`` (``nan`` when the base measure has no risk
    column), ``value`` (the base measure's mean, repeated on each α row because it does not depend on α)
    with its derived columns (``value +``, ``value p-value``, ...), then one column per risk measure
    (``URisk``, ``TRisk``, ``TRisk p-value``, ``ZRisk``, ``GeoRisk``; a parameter such as ``baseline`` or
    ``se`` is added to the label, e.g. ``TRisk(baseline='mean')``, only when the table has several
    values of it), then the table's other columns. Base measure and α are parsed from the column names
    with :func:`pyterrier_risk.parse_measure`.

    Args:
        df: a wide result table (one row per system).

    Returns:
        The long table; cells a row has no column for are ``nan``.

    Example:
        >>> import pandas as pd
        >>> wide = pd.DataFrame({"name": ["A", "B"], "AP": [0.2, 0.3],
        ...                      "URisk(AP,alpha=1)": [0.0, 0.05], "URisk(AP,alpha=5)": [0.0, -0.1]})
        >>> tidy_results(wide)
          name measure  alpha  value  URisk
        0    A      AP    1.0    0.2   0.00
        1    A      AP    5.0    0.2   0.00
        2    B      AP    1.0    0.3   0.05
        3    B      AP    5.0    0.3  -0.10
    """
    if not isinstance(df, pd.DataFrame):
        raise TypeError(f"expected a pandas DataFrame, got {type(df).__name__}")
    return melt_frame(df, system_column(df))


def short_labels(
    columns: Sequence[Hashable], max_len: int = 12
) -> tuple[dict[Hashable, str], list[tuple[str, str]]]:
    """Short labels for measure columns and the legend that maps them back to the measures.

    A risk measure becomes its family's letter (``U``, ``T``, ``Z``, ``G``; other families their first
    letter) and a number shared by all columns with the same base measure and α, so that ``U2`` and
    ``T2`` are URisk and TRisk of one setting (a letter ``a``, ``b``, ... tells apart measures that differ
    only in another parameter, such as the baseline). An ordinary measure whose ``repr`` is longer than
    ``max_len`` becomes ``M1``, ``M2``, ... Derived columns keep the measure's label with a short suffix
    (``p``, ``p-adj``, ``rej``, ``+``, ``-``), and so do the derived columns of a short ordinary
    measure (``nDCG@20 p-value corrected`` -> ``nDCG@20 p-adj``). Other columns are not renamed.

    Returns:
        ``(rename, legend)``: the new name of each renamed column and the ``(label, measure repr)``
        pairs in order of appearance.
    """
    infos = [column_info(c) for c in columns]
    settings: list[tuple[str | None, float]] = []
    stems: dict[str, str] = {}
    plain = 0
    used: dict[str, list[str]] = {}
    for info in infos:
        if not info.is_measure or info.stem in stems:
            continue
        if info.family is None:
            if len(info.stem) > max_len:
                plain += 1
                stems[info.stem] = f"M{plain}"
            continue
        if (info.base, info.alpha) not in settings:
            settings.append((info.base, info.alpha))
        letter = _FAMILY_LETTER.get(info.family, info.family[:1].upper())
        label = f"{letter}{settings.index((info.base, info.alpha)) + 1}"
        used.setdefault(label, []).append(info.stem)
        stems[info.stem] = label
    for label, group in used.items():  # disambiguate U1 -> U1a, U1b
        if len(group) > 1:
            for k, stem in enumerate(group):
                stems[stem] = label + "abcdefghijklmnopqrstuvwxyz"[k % 26]
    taken = {str(c) for c in columns}
    rename = {}
    for info in infos:
        if info.stem in stems or (info.is_measure and info.suffix):  # "nDCG@20 p-value corrected" too
            new = stems.get(info.stem, info.stem) + _SHORT_SUFFIX[info.suffix]
            if new == info.column:
                continue
            while new in taken and new != info.column:
                new += "'"
            rename[info.column] = new
    legend = list(dict.fromkeys((stems[i.stem], i.stem) for i in infos if i.stem in stems))
    return rename, legend
