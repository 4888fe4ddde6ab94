"""Result tables as Markdown, LaTeX or CSV.

Every table the package produces (``Experiment`` results, the ``pyterrier-risk eval`` output, the demo
report) is a :class:`pandas.DataFrame`; :func:`write_table` turns one into text that can be pasted into a
paper or read back by another tool. Markdown and LaTeX are rendered here (no ``tabulate``/``jinja2``
dependency); CSV is pandas' own writer, so ``pandas.read_csv`` reads it back losslessly.
"""

from __future__ import annotations

import math
import numbers
import os
from collections.abc import Sequence
from pathlib import Path

import pandas as pd

FORMATS = ("markdown", "latex", "csv")
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


def _format_for(path: str | os.PathLike | None, format: str | None) -> str:
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


def format_cell(value: object, floatfmt: str = ".4f") -> str:
    """Render one cell: floats with ``floatfmt``, missing values as empty, everything else with ``str``.

    Args:
        value: the cell value.
        floatfmt: a format spec for floating-point numbers (e.g. ``".4f"``, ``".3g"``).

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
    body = [[format_cell(v, floatfmt) for v in row] for row in frame.itertuples(index=False, name=None)]
    numeric = [pd.api.types.is_numeric_dtype(frame.iloc[:, j]) for j in range(frame.shape[1])]
    return header, body, numeric


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

    def esc(s: str) -> str:
        return s.replace("|", r"\|").replace("\n", " ")

    header = [esc(h) for h in header]
    body = [[esc(c) for c in row] for row in body]
    widths = [max([len(header[j]), 3, *(len(row[j]) for row in body)]) for j in range(len(header))]
    lines = ["| " + " | ".join(h.ljust(w) for h, w in zip(header, widths, strict=False)) + " |"]
    lines.append("| " + " | ".join(("-" * (w - 1) + ":") if num else "-" * w
                                   for w, num in zip(widths, numeric, strict=False)) + " |")
    for row in body:
        cells = [c.rjust(w) if num else c.ljust(w) for c, w, num in zip(row, widths, numeric, strict=False)]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def latex_escape(text: str) -> str:
    """Escape LaTeX special characters in plain text."""
    return "".join(_LATEX_ESCAPES.get(ch, ch) for ch in text)


def to_latex(df: pd.DataFrame, *, index: bool = False, floatfmt: str = ".4f", caption: str | None = None,
             label: str | None = None) -> str:
    r"""A ``tabular`` (booktabs rules) with escaped text; wrapped in a ``table`` float when captioned.

    Args:
        df: the table.
        index: include the index as the first column(s).
        floatfmt: format spec for floats.
        caption: optional caption; with ``label``, wraps the tabular in ``\\begin{table}``.
        label: optional ``\\label``.

    Returns:
        The LaTeX text, ending with a newline (needs ``\\usepackage{booktabs}``).
    """
    header, body, numeric = _rows(df, index, floatfmt)
    spec = "".join("r" if num else "l" for num in numeric)
    lines = [f"\\begin{{tabular}}{{{spec}}}", r"\toprule",
             " & ".join(latex_escape(h) for h in header) + r" \\", r"\midrule"]
    lines += [" & ".join(latex_escape(c) for c in row) + r" \\" for row in body]
    lines += [r"\bottomrule", r"\end{tabular}"]
    if caption is not None or label is not None:
        inner = [r"\begin{table}", r"\centering", *lines]
        if caption is not None:
            inner.append(f"\\caption{{{latex_escape(caption)}}}")
        if label is not None:
            inner.append(f"\\label{{{label}}}")
        lines = [*inner, r"\end{table}"]
    return "\n".join(lines) + "\n"


def to_csv(df: pd.DataFrame, *, index: bool = False, floatfmt: str | None = None) -> str:
    """CSV text (full float precision unless ``floatfmt`` is given), readable by ``pandas.read_csv``."""
    float_format = None if floatfmt is None else ("{:" + floatfmt + "}").format
    return df.to_csv(index=index, float_format=float_format, lineterminator="\n")


def render_table(df: pd.DataFrame, format: str = "markdown", *, index: bool = False,
                 floatfmt: str = ".4f", caption: str | None = None) -> str:
    """Render ``df`` as text in one of :data:`FORMATS` (see :func:`write_table`)."""
    if not isinstance(df, pd.DataFrame):
        if isinstance(df, pd.Series):
            df = df.to_frame()
        elif isinstance(getattr(df, "data", None), pd.DataFrame):  # a Styler (Experiment(highlight=...))
            df = df.data
        else:
            raise TypeError(f"expected a pandas DataFrame, got {type(df).__name__}")
    format = _format_for(None, format)
    if format == "markdown":
        return to_markdown(df, index=index, floatfmt=floatfmt)
    if format == "latex":
        return to_latex(df, index=index, floatfmt=floatfmt, caption=caption)
    # CSV keeps full precision: it is for machines, not for reading.
    return to_csv(df, index=index)


def write_table(df: pd.DataFrame, path_or_None: str | os.PathLike | None = None, format: str | None = None,
                *, index: bool = False, floatfmt: str = ".4f", caption: str | None = None) -> str:
    """Render a result table as Markdown, LaTeX or CSV and optionally write it to a file.

    Markdown is a GitHub pipe table (header, ``---`` separator, numeric columns right-aligned); LaTeX is
    a booktabs ``tabular`` with special characters escaped; CSV keeps full float precision so that
    ``pandas.read_csv`` returns the same numbers.

    Args:
        df: the table (a Series is treated as a one-column table, a pandas ``Styler`` such as
            ``Experiment(..., highlight='bold')`` returns by its data).
        path_or_None: file to write (parent folders are created); ``None`` only returns the text.
        format: ``'markdown'``, ``'latex'`` or ``'csv'``; ``None`` infers it from the file suffix
            (``.md``, ``.tex``, ``.csv``) and defaults to Markdown.
        index: include the DataFrame index as leading column(s).
        floatfmt: format spec for floats in Markdown and LaTeX.
        caption: LaTeX caption (wraps the tabular in a ``table`` float).

    Returns:
        The rendered text.

    Raises:
        ValueError: unknown format.
        OSError: the file cannot be written (the message names the path).

    Example:
        >>> import pandas as pd
        >>> print(write_table(pd.DataFrame({"name": ["BM25"], "nDCG@10": [0.4667]})), end="")
        | name | nDCG@10 |
        | ---- | ------: |
        | BM25 |  0.4667 |
    """
    format = _format_for(path_or_None, format)
    text = render_table(df, format, index=index, floatfmt=floatfmt, caption=caption)
    if path_or_None is not None:
        path = Path(path_or_None)
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
        except OSError as e:
            raise OSError(e.errno, f"cannot write table to {path}: {e.strerror or e}") from e
    return text


def markdown_section(title: str, level: int = 2, body: str | Sequence[str] = "") -> str:
    """A Markdown heading followed by body paragraphs (used to assemble reports)."""
    paragraphs = [body] if isinstance(body, str) else list(body)
    text = "#" * level + " " + title + "\n\n"
    return text + "".join(p.rstrip("\n") + "\n\n" for p in paragraphs if p)
