"""Paper-ready result tables: the best value in bold, significance marks with their legend, compact layouts.

The conventions are those of IR papers (and of ranx's LaTeX report): booktabs rules, a caption that
names the significance test and the multiple-testing correction, the best value of each column in
bold, and a superscript mark (†) on values significantly different from the baseline. The same marks
and bold are written in Markdown (``**0.4321**†``). :func:`~pyterrier_risk.reporting.write_table` is
the entry point; this module holds its style options.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field

import pandas as pd

from ._layout import (
    ColumnInfo,
    column_info,
    long_constants,
    long_names,
    melt_frame,
    short_labels,
    system_column,
)
from ._text import (
    _latex_float,
    _latex_tabular,
    _markdown_escape,
    _markdown_lines,
    column_float_format,
    format_cell,
    is_p_value_column,
    latex_escape,
)

__all__ = ["DEFAULT_LOWER_IS_BETTER", "LAYOUTS", "TableStyle", "csv_layout", "render_styled"]

#: columns whose best value is the lowest unless ``lower_is_better`` says otherwise: the 2012 paper's
#: Risk and loss counts (as the demo report and :func:`~pyterrier_risk.risk_reward` name them) and
#: ``pt.Experiment``'s mean response time
DEFAULT_LOWER_IS_BETTER = frozenset({"Risk", "risk", "Losses", "losses", "Losses>20%", "losses_gt20", "mrt"})
LAYOUTS = ("wide", "long", "transposed")
_TEST_SUFFIXES = ("p-value", "p-value corrected", "reject")
_TEST_COLUMNS = frozenset({"p_value", "p_adjusted", "p-value", "pvalue", "significant", "reject"})
_LATEX_MARKERS = {"†": r"\dagger", "‡": r"\ddagger", "*": "*", "§": r"\S"}


@dataclass(frozen=True)
class TableStyle:
    """The presentation options of :func:`~pyterrier_risk.reporting.write_table` (documented there)."""

    label: str | None = None
    bold: bool | Sequence[str] = False
    lower_is_better: Iterable[str] | None = None
    significance: bool | Mapping[str, str] = False
    level: float = 0.05
    test: str | None = None
    correction: str | None = None
    marker: str = "†"
    layout: str = "wide"
    short_labels: bool = False
    hide: Sequence[str] = ()
    formats: Mapping[Hashable, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.layout not in LAYOUTS:
            raise ValueError(f"unknown table layout {self.layout!r}; expected one of {', '.join(LAYOUTS)}")
        if isinstance(self.level, bool) or not isinstance(self.level, (int, float)) or not 0 < self.level < 1:
            raise ValueError(f"level must be a number in (0, 1), got {self.level!r}")
        if not isinstance(self.marker, str) or not self.marker:
            raise ValueError(f"marker must be a non-empty string, got {self.marker!r}")

    def is_plain(self) -> bool:
        """Whether no option beyond the label changes the plain rendering."""
        return (not self.bold and not self.significance and self.layout == "wide" and not self.short_labels
                and not self.hide and not self.formats)


def _transposed(frame: pd.DataFrame) -> pd.DataFrame:
    """One row per column of ``frame``, one column per system (named by the system column or the index)."""
    key = system_column(frame)
    body = frame.drop(columns=[key]) if key is not None else frame
    systems = frame[key] if key is not None else frame.index
    out = pd.DataFrame(body.to_numpy(dtype=object).T, index=body.columns, columns=list(systems))
    return out.rename_axis(index="measure").reset_index()


def csv_layout(frame: pd.DataFrame, layout: str) -> pd.DataFrame:
    """``frame`` in ``layout`` with its raw values (the CSV output)."""
    if layout not in LAYOUTS:
        raise ValueError(f"unknown table layout {layout!r}; expected one of {', '.join(LAYOUTS)}")
    if layout == "long":
        return melt_frame(frame, system_column(frame))
    return _transposed(frame) if layout == "transposed" else frame


# -- what to bold and what to mark ------------------------------------------------------------------------


def _is_test_column(column: Hashable) -> bool:
    return (column in _TEST_COLUMNS or column_info(column).suffix in _TEST_SUFFIXES
            or is_p_value_column(column))


def _bold_directions(frame: pd.DataFrame, style: TableStyle) -> dict[Hashable, bool]:
    """Column -> whether lower is better, for the columns to bold."""
    if style.bold is False or style.bold is None:
        return {}
    if style.bold is True:
        columns = [c for c in frame.columns if pd.api.types.is_numeric_dtype(frame[c])
                   and not pd.api.types.is_bool_dtype(frame[c]) and not _is_test_column(c)]
    else:
        columns = list(style.bold)
        missing = [c for c in columns if c not in frame.columns]
        if missing:
            raise ValueError(f"bold: the table has no column(s) {missing}")
    lower = DEFAULT_LOWER_IS_BETTER if style.lower_is_better is None else frozenset(style.lower_is_better)
    return {c: c in lower or column_info(c).suffix == "-" for c in columns}


def _shown_numbers(frame: pd.DataFrame, column: Hashable, fmt: str) -> pd.Series:
    """The numbers a column shows: each cell formatted as printed, then read back (blank: NaN)."""
    return pd.to_numeric(pd.Series([format_cell(v, fmt) for v in frame[column]], index=frame.index),
                         errors="coerce")


def _best_mask(frame: pd.DataFrame, directions: dict[Hashable, bool], floatfmt: dict[Hashable, str],
               p_columns: dict[Hashable, Hashable]) -> tuple[pd.DataFrame, bool]:
    """True where a cell shows its column's best value (ties included; columns with < 2 values: none).

    The values compared are the printed ones. In a risk-measure column with a p-value column, a row
    whose p-value is missing (the baseline against itself: its URisk is 0 by definition) does not
    compete; in every other column (the base measures among them) every row does.

    Returns:
        The mask, and whether some row was kept out of a risk column's contest that way.
    """
    mask = pd.DataFrame(False, index=frame.index, columns=frame.columns)
    excluded = False
    for column, lower in directions.items():
        shown = _shown_numbers(frame, column, floatfmt[column])
        if column in p_columns and column_info(column).family is not None:
            itself = pd.to_numeric(frame[p_columns[column]], errors="coerce").isna() & shown.notna()
            excluded = excluded or bool(itself.any())
            shown[itself] = math.nan
        if shown.notna().sum() < 2:
            continue
        best = shown.min() if lower else shown.max()
        mask[column] = (shown == best).to_numpy()
    return mask, excluded


def _trisk_twin(info: ColumnInfo, infos: dict[Hashable, ColumnInfo]) -> Hashable | None:
    """The p-value column of the TRisk with URisk ``info``'s base, α and baseline (corrected first)."""
    extra = {k: v for k, v in info.extra if k != "se"}
    candidates = [
        (other.suffix != "p-value corrected", dict(other.extra).get("se", "parametric") != "parametric",
         column)
        for column, other in infos.items()
        if other.family == "TRisk" and other.suffix in ("p-value", "p-value corrected")
        and other.base == info.base and other.alpha == info.alpha
        and {k: v for k, v in other.extra if k != "se"} == extra
    ]
    return min(candidates, key=lambda t: t[:2])[2] if candidates else None


def _p_value_columns(frame: pd.DataFrame, significance: bool | Mapping[str, str]) -> dict[Hashable, Hashable]:
    """Value column -> the p-value column that decides its mark (``True``: found by name)."""
    if isinstance(significance, Mapping):
        missing = [c for pair in significance.items() for c in pair if c not in frame.columns]
        if missing:
            raise ValueError(f"significance: the table has no column(s) {missing}")
        return {value: p for value, p in significance.items()}
    infos = {c: column_info(c) for c in frame.columns}
    out: dict[Hashable, Hashable] = {}
    for column, info in infos.items():
        if info.suffix or not isinstance(column, str) or _is_test_column(column):
            continue
        for candidate in (f"{column} p-value corrected", f"{column} p-value"):
            if candidate in infos:
                out[column] = candidate
                break
        else:
            twin = _trisk_twin(info, infos) if info.family == "URisk" else None
            if twin is not None:
                out[column] = twin
    return out


def _mark_mask(frame: pd.DataFrame, p_columns: dict[Hashable, Hashable], level: float,
               floatfmt: dict[Hashable, str]) -> pd.DataFrame:
    """True where a value's p-value, as printed, is ``<= level`` (a blank p-value is never marked)."""
    mask = pd.DataFrame(False, index=frame.index, columns=frame.columns)
    for column, p_column in p_columns.items():
        p = _shown_numbers(frame, p_column, floatfmt[p_column])
        mask[column] = (p <= level).to_numpy()  # NaN (the baseline itself) is never marked
    return mask


# -- cells, notes and layouts ----------------------------------------------------------------------------


def _marker_text(marker: str, latex: bool) -> str:
    if not latex:
        return marker.replace("*", r"\*")
    symbol = _LATEX_MARKERS.get(marker)
    return f"$^{{{symbol}}}$" if symbol else f"\\textsuperscript{{{latex_escape(marker)}}}"


def _float_formats(frame: pd.DataFrame, floatfmt: str,
                   given: Mapping[Hashable, str] | None = None) -> dict[Hashable, str]:
    """``floatfmt`` per column, but whole-number win/loss counts (``"X +"``, ``"X -"``) as integers.

    They are floats only because the baseline's own count is NaN. A column in ``given`` takes its format.
    """
    formats = {}
    for column in frame.columns:
        if given and column in given:
            formats[column] = given[column]
            continue
        formats[column] = column_float_format(column, floatfmt)
        if column_info(column).suffix in ("+", "-") and pd.api.types.is_float_dtype(frame[column]):
            values = frame[column].dropna()
            if len(values) and (values == values.round()).all():
                formats[column] = ".0f"
    return formats


def _cells(frame: pd.DataFrame, latex: bool, floatfmt: dict[Hashable, str], best: pd.DataFrame,
           marks: pd.DataFrame, marker: str) -> pd.DataFrame:
    """Every cell as escaped text with its bold and mark."""
    escape = latex_escape if latex else _markdown_escape
    mark = _marker_text(marker, latex)
    columns = {}
    for j in range(frame.shape[1]):
        texts = []
        rows = zip(frame.iloc[:, j], best.iloc[:, j], marks.iloc[:, j], strict=True)
        fmt = floatfmt[frame.columns[j]]
        for value, is_best, is_marked in rows:
            text = escape(format_cell(value, fmt))
            if text and is_best:
                text = f"\\textbf{{{text}}}" if latex else f"**{text}**"
            if text and is_marked:
                text += mark
            texts.append(text)
        columns[j] = texts
    out = pd.DataFrame(columns, index=frame.index)
    out.columns = frame.columns
    return out


def _correction_text(p_columns: dict[Hashable, Hashable], name: str | None, explicit: bool) -> str:
    """Which marks rest on corrected p-values: all, none, or the ordinary or the risk measures only.

    Columns found by name are corrected when they are ``"X p-value corrected"``; columns chosen
    explicitly (a ``significance`` mapping) are taken to be corrected by ``name`` when it is given.
    """
    corrected = name + " correction" if name else "corrected p-values"
    if explicit:
        return corrected if name else "no correction for multiple testing"
    status: dict[str, set[bool]] = {}
    for column, p_column in p_columns.items():
        kind = "risk measures" if column_info(column).family else "measures"
        status.setdefault(kind, set()).add(str(p_column).endswith("p-value corrected"))
    if all(s == {True} for s in status.values()):
        return corrected
    if all(s == {False} for s in status.values()):
        return "no correction for multiple testing"
    return "; ".join(f"{kind}: " + (corrected if s == {True} else "uncorrected" if s == {False} else
                                    "partly corrected") for kind, s in status.items())


def _notes(style: TableStyle, p_columns: dict, directions: dict, latex: bool,
           rename: dict[Hashable, str], excluded: bool = False) -> list[str]:
    """The sentences that explain the marks and the bold (they go into the caption)."""
    notes = []
    if p_columns:
        test = style.test or "paired t-test; risk measures: TRisk's t-test of URisk = 0"
        correction = _correction_text(p_columns, style.correction, isinstance(style.significance, Mapping))
        p = f"$p \\le {style.level:g}$" if latex else f"p ≤ {style.level:g}"
        text = f"significantly different from the baseline ({p}; {test}; {correction})."
        notes.append(_marker_text(style.marker, latex) + " " + (latex_escape(text).replace(
            latex_escape(p), p) if latex else text))
    if directions:
        scope = {"wide": "column", "transposed": "row", "long": "measure, α and column"}[style.layout]
        text = f"Best value per {scope} in bold"
        names = long_names(list(directions), style.short_labels) if style.layout == "long" else rename
        lower = list(dict.fromkeys(str(names.get(c, c)) for c, low in directions.items() if low))
        if lower:
            text += "; lower is better for " + ", ".join(lower)
        if excluded:
            text += "; the baseline's URisk against itself (0 by definition) is not ranked"
        notes.append((latex_escape(text) if latex else text) + ".")
    return notes


def _arrange(frame: pd.DataFrame, cells: pd.DataFrame, layout: str, latex: bool, rename: dict[Hashable, str],
             lettered: bool = False) -> tuple[list[str], list[list[str]], list[bool]]:
    """Header (raw text), body (escaped) and right-alignment flags in ``layout``."""
    escape = latex_escape if latex else _markdown_escape
    if layout == "wide":
        header = [str(rename.get(c, c)) for c in frame.columns]
        numeric = [pd.api.types.is_numeric_dtype(frame.iloc[:, j]) for j in range(frame.shape[1])]
        return header, cells.values.tolist(), numeric
    key = system_column(frame)
    if key is None:  # the index names the systems
        frame = frame.assign(name=[str(i) for i in frame.index])[["name", *frame.columns]]
        cells = cells.assign(name=[escape(str(i)) for i in frame.index])[["name", *cells.columns]]
        key = "name"
    if layout == "transposed":
        columns = [c for c in frame.columns if c != key]
        header = ["measure", *(str(s) for s in frame[key])]
        body = [[escape(str(rename.get(c, c))), *cells[c]] for c in columns]
        return header, body, [False] + [True] * len(frame)
    raw = melt_frame(frame, key, lettered=lettered)
    long = melt_frame(cells, key, fill="", lettered=lettered)
    long["measure"] = [escape(str(m)) for m in long["measure"]]
    long["alpha"] = ["" if math.isnan(a) else f"{a:g}" for a in raw["alpha"]]
    numeric = [c == "alpha" or pd.api.types.is_numeric_dtype(raw[c]) for c in raw.columns]
    return [str(c) for c in long.columns], long.values.tolist(), numeric


def render_styled(frame: pd.DataFrame, format: str, floatfmt: str, caption: str | None,
                  style: TableStyle) -> str:
    """Markdown or LaTeX text of ``frame`` with ``style``'s bold, marks, layout and legends."""
    latex = format == "latex"
    directions = _bold_directions(frame, style)
    p_columns = _p_value_columns(frame, style.significance or True)
    marked = p_columns if style.significance else {}
    missing = [c for c in style.formats if c not in frame.columns]
    if missing:
        raise ValueError(f"formats: the table has no column(s) {missing}")
    formats = _float_formats(frame, floatfmt, style.formats)
    best, excluded = _best_mask(frame, directions, formats, p_columns)
    cells = _cells(frame, latex, formats, best, _mark_mask(frame, marked, style.level, formats), style.marker)
    if style.hide:  # used for the marks and the bold, not printed
        missing = [c for c in style.hide if c not in frame.columns]
        if missing:
            raise ValueError(f"hide: the table has no column(s) {missing}")
        frame, cells = frame.drop(columns=list(style.hide)), cells.drop(columns=list(style.hide))
    short = style.short_labels and style.layout != "long"
    rename, legend = short_labels(list(frame.columns)) if short else ({}, [])
    header, body, numeric = _arrange(frame, cells, style.layout, latex, rename, style.short_labels)
    notes = _notes(style, marked, directions, latex, rename, excluded)
    if style.layout == "long":  # the parameters the long labels leave out (one baseline, say)
        constants = long_constants(list(frame.columns), style.short_labels)
        notes += [(latex_escape(c) if latex else c) + "." for c in constants]
    if latex:
        title = " ".join(([latex_escape(caption)] if caption else []) + notes) or None
        keys = "; ".join(f"{latex_escape(k)}: \\texttt{{{latex_escape(v)}}}" for k, v in legend) or None
        return "\n".join(_latex_float(_latex_tabular(header, body, numeric), title, style.label, keys)) + "\n"
    parts = ["\n".join(_markdown_lines(header, body, numeric))]
    if caption or notes:
        parts.append(("Table: " + caption + " " if caption else "") + " ".join(notes))
    if legend:
        parts.append("\n".join(f"- {k}: `{v}`" for k, v in legend))
    return "\n\n".join(p.rstrip() for p in parts) + "\n"
