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
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

import pandas as pd

__all__ = ["FORMATS", "render_table", "write_table", "format_cell", "latex_escape"]

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


def _as_frame(df: object) -> pd.DataFrame:
    if isinstance(df, pd.DataFrame):
        return df
    if isinstance(df, pd.Series):
        return df.to_frame()
    if isinstance(getattr(df, "data", None), pd.DataFrame):  # a Styler (Experiment(highlight=...))
        return df.data
    raise TypeError(f"expected a pandas DataFrame, got {type(df).__name__}")


def render_table(df: pd.DataFrame, format: str = "markdown", *, index: bool = False,
                 floatfmt: str = ".4f", caption: str | None = None, **options: object) -> str:
    """Render ``df`` as text in one of :data:`FORMATS`; ``options``: :func:`write_table`'s style options."""
    from ._styling import TableStyle, csv_layout, render_styled  # it builds on this module's renderers

    df = _as_frame(df)
    format = _format_for(None, format)
    style = TableStyle(**options)  # type: ignore[arg-type]
    if format == "csv":  # full precision, for machines: only the layout applies
        return to_csv(csv_layout(df.reset_index() if index else df, style.layout), index=False)
    if style.is_plain():
        if format == "markdown":  # the caption as render_styled writes it: a "Table:" line under the table
            text = to_markdown(df, index=index, floatfmt=floatfmt)
            return text if not caption else text.rstrip("\n") + f"\n\nTable: {caption}\n"
        return to_latex(df, index=index, floatfmt=floatfmt, caption=caption, label=style.label)
    return render_styled(df.reset_index() if index else df, format, floatfmt, caption, style)


def write_table(df: pd.DataFrame, path_or_None: str | os.PathLike | None = None, format: str | None = None,
                *, index: bool = False, floatfmt: str = ".4f", caption: str | None = None,
                label: str | None = None, bold: bool | Sequence[str] = False,
                lower_is_better: Iterable[str] | None = None,
                significance: bool | Mapping[str, str] = False, level: float = 0.05,
                test: str | None = None, correction: str | None = None, marker: str = "†",
                layout: str = "wide", short_labels: bool = False) -> str:
    r"""Render a result table as Markdown, LaTeX or CSV and optionally write it to a file.

    Markdown is a GitHub pipe table (header, ``---`` separator, numeric columns right-aligned); LaTeX is
    a booktabs ``tabular`` with special characters escaped; CSV keeps full float precision so that
    ``pandas.read_csv`` returns the same numbers. The keyword options make a paper-ready table
    (Markdown and LaTeX; CSV applies only ``layout``):

    * ``bold``: the best value of each column in bold (ties all bold, compared as displayed), higher
      is better except in ``lower_is_better``; p-value, ``reject`` and other test columns are never
      bold.
    * ``significance``: a ``marker`` (†) after each value whose p-value is ``<= level``: a column
      ``X`` uses ``"X p-value corrected"`` if present, else ``"X p-value"``; ``URisk(...)`` uses the
      p-value of the ``TRisk(...)`` with the same base, α and baseline (the t-test of URisk = 0).
      A mapping ``{column: p-value column}`` chooses explicitly. The caption (LaTeX) or a note under
      the table (Markdown) names the ``test`` and the ``correction``.
    * ``layout``: ``'wide'`` (as given), ``'long'`` (one row per system × base measure × α, see
      :func:`tidy_results`) or ``'transposed'`` (one row per column, one column per system).
    * ``short_labels``: risk-measure columns become ``U1``, ``T1``, ``Z1``, ``G1`` ... (same number =
      same base measure and α) and long ordinary measure names ``M1`` ...; a legend under the table
      maps each label to the full measure (``wide`` and ``transposed`` layouts).

    Args:
        df: the table (a Series is treated as a one-column table, a pandas ``Styler`` such as
            ``Experiment(..., highlight='bold')`` returns by its data).
        path_or_None: file to write (parent folders are created); ``None`` only returns the text.
        format: ``'markdown'``, ``'latex'`` or ``'csv'``; ``None`` infers it from the file suffix
            (``.md``, ``.tex``, ``.csv``) and defaults to Markdown.
        index: include the DataFrame index as leading column(s).
        floatfmt: format spec for floats in Markdown and LaTeX.
        caption: table caption (LaTeX: wraps the tabular in a ``table`` float; Markdown: a
            ``Table: ...`` line under the table).
        label: LaTeX ``\label`` (wraps the tabular in a ``table`` float).
        bold: ``True`` for every numeric value column, or the columns to bold.
        lower_is_better: columns whose best value is the lowest (``None``: ``DEFAULT_LOWER_IS_BETTER``,
            i.e. ``Risk``, ``Losses``, ``mrt``, ...); loss-count columns ``"<measure> -"`` always are.
        significance: ``True`` to mark significant values (see above), or ``{column: p-value column}``.
        level: the significance level of the marks.
        test: the test named in the legend; ``None``: ``pt.Experiment``'s paired t-test and TRisk's
            t-test for risk measures.
        correction: the multiple-testing correction named in the legend (``None``: "corrected
            p-values" when ``p-value corrected`` columns were used, else "no correction").
        marker: the significance mark (``†``, ``‡``, ``*``, ``§`` or any text).
        layout: ``'wide'``, ``'long'`` or ``'transposed'``.
        short_labels: shorten measure columns and print the legend.

    Returns:
        The rendered text.

    Raises:
        ValueError: an unknown format or layout, a column in ``bold``/``significance`` that the
            table lacks, or ``level`` outside (0, 1).
        OSError: the file cannot be written (the message names the path).

    Example:
        >>> import pandas as pd
        >>> print(write_table(pd.DataFrame({"name": ["BM25"], "nDCG@10": [0.4667]})), end="")
        | name | nDCG@10 |
        | ---- | ------: |
        | BM25 |  0.4667 |
    """
    format = _format_for(path_or_None, format)
    text = render_table(df, format, index=index, floatfmt=floatfmt, caption=caption, label=label, bold=bold,
                        lower_is_better=lower_is_better, significance=significance, level=level, test=test,
                        correction=correction, marker=marker, layout=layout, short_labels=short_labels)
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
