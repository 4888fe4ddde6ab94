"""Plain-text table renderers, shared by :mod:`._tables` and :mod:`._styling`.

Cells, escaping, Markdown pipe tables, booktabs LaTeX tabulars and CSV (no ``tabulate``/``jinja2``
dependency).
"""

from __future__ import annotations

import math
import numbers
import os
from pathlib import Path

import pandas as pd

__all__ = ["CORRECTION_NAMES", "FORMATS", "MAX_WIDTH", "column_float_format", "correction_name",
           "format_cell", "is_p_value_column", "latex_escape", "markdown_width", "table_format", "to_csv",
           "to_latex", "to_markdown"]

FORMATS = ("markdown", "latex", "csv")
#: the widest Markdown table (in characters) the commands print in one piece, so that it fits a terminal
MAX_WIDTH = 160
#: how captions name each multiple-testing correction (the canonical names of ``core.CORRECTION_METHODS``)
CORRECTION_NAMES = {"bonferroni": "Bonferroni", "sidak": "Šidák", "holm": "Holm", "holm-sidak": "Holm–Šidák",
                    "simes-hochberg": "Simes–Hochberg", "hommel": "Hommel", "fdr_bh": "Benjamini–Hochberg",
                    "fdr_by": "Benjamini–Yekutieli"}
_SUFFIX_FORMAT = {".md": "markdown", ".markdown": "markdown", ".tex": "latex", ".csv": "csv"}
_LATEX_ESCAPES = {
    "\\": r"\textbackslash{}",
    "&": r"\&",
    "%": r"\%",
    "$": r"\$",
    "#": r"\#",
    "_": r"\_",
    "{": r"\{",
    "}": r"\}",
    "~": r"\textasciitilde{}",
    "^": r"\textasciicircum{}",
}


def correction_name(method: str | None) -> str | None:
    """A correction method as captions name it (``'fdr_bh'`` -> ``'Benjamini–Hochberg'``); None stays None."""
    return None if method is None else CORRECTION_NAMES.get(method, method)


def markdown_width(text: str) -> int:
    """The width of Markdown table text: its longest table line (caption and legend lines wrap)."""
    return max((len(line) for line in text.splitlines() if line.startswith("|")), default=0)


def table_format(path: str | os.PathLike | None, format: str | None) -> str:
    """The table format asked for: ``format`` (or ``md``, ``tex``), else by the path's suffix, else Markdown.

    Args:
        path: the file the table goes to, or ``None``.
        format: ``'markdown'``, ``'latex'``, ``'csv'`` (any case), ``'md'``, ``'tex'`` or ``None``.

    Returns:
        One of :data:`FORMATS`.

    Raises:
        ValueError: an unknown format.
    """
    if format is None:
        suffix = Path(path).suffix.lower() if path is not None else ""
        format = _SUFFIX_FORMAT.get(suffix, "markdown")
    format = format.lower()
    if format == "md":
        format = "markdown"
    if format == "tex":
        format = "latex"
    if format not in FORMATS:
        raise ValueError(f"unknown table format {format!r}; expected one of {', '.join(FORMATS)}")
    return format


#: from this magnitude on, a fixed-point ``floatfmt`` (``".4f"``) writes a float in scientific notation
#: (``".4e"``): the fixed-point text of 1e308 has 309 digits. 1e16 is where a float stops holding every
#: integer, and where measure names switch to scientific notation for α (``measures/_risk.py``).
SCIENTIFIC_FROM = 1e16


def is_p_value_column(column: object) -> bool:
    """Whether a column holds p-values, by its name (``p_value``, ``X p-value``, ``t_r_p_value``, ...)."""
    name = str(column).lower()
    return (name.endswith(("p-value", "p_value", "p-value corrected", "p_adjusted", "pvalue", " p"))
            or name == "p" or name.startswith("p_"))


def column_float_format(column: object, floatfmt: str) -> str:
    """``floatfmt`` for a column; a p-value column's fixed-point spec is marked ``p:`` (see format_cell)."""
    return f"p:{floatfmt}" if floatfmt.endswith("f") and is_p_value_column(column) else floatfmt


def _tiny_p(x: float) -> str:
    """A p-value too small for the table's decimals, with one significant digit: ``1e-6``, ``3e-14``."""
    mantissa, _, exponent = f"{x:.0e}".partition("e")
    return f"{mantissa}e{int(exponent)}"


def format_cell(value: object, floatfmt: str = ".4f") -> str:
    """Render one cell: floats with ``floatfmt``, missing values as empty, everything else with ``str``.

    A fixed-point ``floatfmt`` (``".4f"``) writes a magnitude of :data:`SCIENTIFIC_FROM` or more with the
    same number of decimals in scientific notation (``-1.0000e+300``). Small magnitudes keep the fixed
    form (``0.0000``): that is the rounding asked for.

    Args:
        value: the cell value.
        floatfmt: a format spec for floating-point numbers (e.g. ``".4f"``, ``".3g"``). A spec marked
            ``p:`` (``"p:.4f"``) formats a p-value: one that the decimals would show as 0 (``0.0000``)
            prints with one significant digit instead (``1e-6``).

    Returns:
        The cell text.
    """
    if value is None:
        return ""
    if isinstance(value, bool):
        return str(value)
    if isinstance(value, numbers.Integral):
        return str(int(value))
    if isinstance(value, numbers.Real):
        x = float(value)
        if math.isnan(x):
            return ""
        if floatfmt.startswith("p:"):
            floatfmt = floatfmt[2:]
            if 0 < x and float(format(x, floatfmt)) == 0:
                return _tiny_p(x)
        if abs(x) >= SCIENTIFIC_FROM and math.isfinite(x) and floatfmt.endswith(("f", "F")):
            return format(x, floatfmt[:-1] + "e")
        return format(x, floatfmt)
    try:
        if pd.isna(value):  # pd.NA, NaT
            return ""
    except (TypeError, ValueError):  # arrays and other non-scalars
        pass
    return str(value)


def _rows(df: pd.DataFrame, index: bool, floatfmt: str) -> tuple[list[str], list[list[str]], list[bool]]:
    """Header, body cells and a per-column "is numeric" flag (numeric columns are right-aligned)."""
    frame = df.reset_index() if index else df
    header = [str(c) for c in frame.columns]
    formats = [column_float_format(c, floatfmt) for c in frame.columns]
    body = [[format_cell(v, f) for v, f in zip(row, formats, strict=True)]
            for row in frame.itertuples(index=False, name=None)]
    return header, body, _numeric_flags(frame)


def _numeric_flags(frame: pd.DataFrame) -> list[bool]:
    return [pd.api.types.is_numeric_dtype(frame.iloc[:, j]) for j in range(frame.shape[1])]


def _markdown_escape(text: str) -> str:
    return text.replace("|", r"\|").replace("\n", " ")


def _markdown_lines(header: list[str], body: list[list[str]], numeric: list[bool]) -> list[str]:
    """Pipe-table lines; ``header`` is raw text (escaped here), ``body`` is already escaped."""
    header = [_markdown_escape(h) for h in header]
    widths = [max([len(header[j]), 3, *(len(row[j]) for row in body)]) for j in range(len(header))]
    lines = ["| " + " | ".join(h.ljust(w) for h, w in zip(header, widths, strict=True)) + " |"]
    lines.append("| " + " | ".join(("-" * (w - 1) + ":") if num else "-" * w
                                   for w, num in zip(widths, numeric, strict=True)) + " |")
    for row in body:
        cells = [c.rjust(w) if num else c.ljust(w) for c, w, num in zip(row, widths, numeric, strict=True)]
        lines.append("| " + " | ".join(cells) + " |")
    return lines


def to_markdown(df: pd.DataFrame, *, index: bool = False, floatfmt: str = ".4f") -> str:
    r"""A GitHub-flavoured Markdown pipe table (header row, alignment row, one row per data row).

    Pipes inside cells are escaped as ``\\|`` so that a measure repr such as ``nDCG(judged_only=True)``
    or a name with ``|`` cannot break the table.

    Args:
        df: the table.
        index: include the index as the first column(s).
        floatfmt: format spec for floats.

    Returns:
        The table text, ending with a newline.
    """
    header, body, numeric = _rows(df, index, floatfmt)
    body = [[_markdown_escape(c) for c in row] for row in body]
    return "\n".join(_markdown_lines(header, body, numeric)) + "\n"


def latex_escape(text: str) -> str:
    """Escape LaTeX special characters in plain text."""
    return "".join(_LATEX_ESCAPES.get(ch, ch) for ch in text)


def _latex_tabular(header: list[str], body: list[list[str]], numeric: list[bool]) -> list[str]:
    """A booktabs ``tabular``; ``header`` is raw text (escaped here), ``body`` is already LaTeX."""
    spec = "".join("r" if num else "l" for num in numeric)
    lines = [f"\\begin{{tabular}}{{{spec}}}", r"\toprule",
             " & ".join(latex_escape(h) for h in header) + r" \\", r"\midrule"]
    lines += [" & ".join(row) + r" \\" for row in body]
    return [*lines, r"\bottomrule", r"\end{tabular}"]


def _latex_float(tabular: list[str], caption: str | None, label: str | None, notes: str | None) -> list[str]:
    """Wrap a tabular in a ``table`` float (caption above it) when there is a caption, label or notes."""
    if caption is None and label is None and notes is None:
        return tabular
    lines = [r"\begin{table}", r"\centering"]
    if caption is not None:
        lines.append(f"\\caption{{{caption}}}")
    if label is not None:
        lines.append(f"\\label{{{label}}}")
    lines += tabular
    if notes is not None:
        lines += [r"\par\smallskip", f"{{\\footnotesize {notes}}}"]
    return [*lines, r"\end{table}"]


def to_latex(df: pd.DataFrame, *, index: bool = False, floatfmt: str = ".4f", caption: str | None = None,
             label: str | None = None) -> str:
    r"""A ``tabular`` (booktabs rules) with escaped text; wrapped in a ``table`` float when captioned.

    Args:
        df: the table.
        index: include the index as the first column(s).
        floatfmt: format spec for floats.
        caption: optional caption (plain text, escaped); with it or ``label``, the tabular is wrapped in
            ``\\begin{table}`` with the caption above it.
        label: optional ``\\label``.

    Returns:
        The LaTeX text, ending with a newline (needs ``\\usepackage{booktabs}``).
    """
    header, body, numeric = _rows(df, index, floatfmt)
    body = [[latex_escape(c) for c in row] for row in body]
    caption = None if caption is None else latex_escape(caption)
    return "\n".join(_latex_float(_latex_tabular(header, body, numeric), caption, label, None)) + "\n"


def to_csv(df: pd.DataFrame, *, index: bool = False, floatfmt: str | None = None) -> str:
    """CSV text (full float precision unless ``floatfmt`` is given), readable by ``pandas.read_csv``."""
    float_format = None if floatfmt is None else ("{:" + floatfmt + "}").format
    return df.to_csv(index=index, float_format=float_format, lineterminator="\n")
