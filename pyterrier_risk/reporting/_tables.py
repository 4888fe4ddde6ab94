"""Result tables as Markdown, LaTeX or CSV.

Every table the package produces (``Experiment`` results, the ``pyterrier-risk eval`` output, the demo
report) is a :class:`pandas.DataFrame`; :func:`write_table` turns one into text that can be pasted into a
paper or read back by another tool. Markdown and LaTeX are rendered by :mod:`._text` and styled by
:mod:`._styling`; CSV is pandas' own writer, so ``pandas.read_csv`` reads it back losslessly.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

import pandas as pd

from ..data import atomic_write
from ._styling import TableStyle, csv_layout, render_styled
from ._text import (
    FORMATS,
    MAX_WIDTH,
    format_cell,
    latex_escape,
    markdown_width,
    table_format,
    to_csv,
    to_latex,
    to_markdown,
)

__all__ = ["FORMATS", "render_in_parts", "render_table", "write_table", "format_cell", "latex_escape"]


def _as_frame(df: object) -> pd.DataFrame:
    if isinstance(df, pd.DataFrame):
        return df
    if isinstance(df, pd.Series):
        return df.to_frame()
    data = getattr(df, "data", None)
    if isinstance(data, pd.DataFrame):  # a Styler (Experiment(highlight=...))
        return data
    raise TypeError(f"expected a pandas DataFrame, got {type(df).__name__}")


def render_table(df: pd.DataFrame, format: str = "markdown", *, index: bool = False,
                 floatfmt: str = ".4f", caption: str | None = None, **options: Any) -> str:
    """Render ``df`` as text in one of :data:`FORMATS`; ``options``: :func:`write_table`'s style options."""
    df = _as_frame(df)
    format = table_format(None, format)
    style = TableStyle(**options)
    if format == "csv":  # full precision, for machines: only the layout applies
        return to_csv(csv_layout(df.reset_index() if index else df, style.layout), index=False)
    if style.is_plain():
        if format == "markdown":  # the caption as render_styled writes it: a "Table:" line under the table
            text = to_markdown(df, index=index, floatfmt=floatfmt)
            return text if not caption else text.rstrip("\n") + f"\n\nTable: {caption}\n"
        return to_latex(df, index=index, floatfmt=floatfmt, caption=caption, label=style.label)
    return render_styled(df.reset_index() if index else df, format, floatfmt, caption, style)


def render_in_parts(frame: pd.DataFrame, format: str, keys: Sequence[str], *, floatfmt: str = ".4f",
                    caption: str | None = None, max_width: int = MAX_WIDTH, **options: Any) -> str:
    """``frame`` in one piece, or in parts of consecutive columns when its Markdown is over ``max_width``.

    Each part repeats the ``keys`` columns (the row names) and holds as many of the next value columns as
    fit ``max_width`` (a column wider than that alone: a part of its own); a caption ends with
    ``Part i of n.``. CSV is always one piece. ``options`` are :func:`write_table`'s style options; a
    ``formats`` or ``hide`` entry goes to the part that holds its column.
    """
    keys = list(keys)
    values = [c for c in frame.columns if c not in keys]

    def part_options(columns: list[str]) -> dict[str, Any]:
        out = dict(options)
        for name in ("formats", "hide"):
            if name in out and out[name]:
                given = out[name]
                out[name] = ({c: f for c, f in given.items() if c in columns} if isinstance(given, Mapping)
                             else [c for c in given if c in columns])
        return out

    def width(columns: list[str]) -> int:
        return markdown_width(render_table(frame[keys + columns], "markdown", floatfmt=floatfmt,
                                           **part_options(columns)))

    if format == "csv" or width(values) <= max_width:
        return render_table(frame, format, floatfmt=floatfmt, caption=caption, **options)
    groups: list[list[str]] = [[]]
    for column in values:
        if groups[-1] and width([*groups[-1], column]) > max_width:
            groups.append([])
        groups[-1].append(column)
    return "\n".join(render_table(frame[keys + g], format, floatfmt=floatfmt, caption=caption and (
        f"{caption} Part {i} of {len(groups)}."), **part_options(g)) for i, g in enumerate(groups, 1))


def write_table(df: pd.DataFrame, path_or_None: str | os.PathLike | None = None, format: str | None = None,
                *, index: bool = False, floatfmt: str = ".4f", caption: str | None = None,
                label: str | None = None, bold: bool | Sequence[str] = False,
                lower_is_better: Iterable[str] | None = None,
                significance: bool | Mapping[str, str] = False, level: float = 0.05,
                test: str | None = None, correction: str | None = None, marker: str = "†",
                layout: str = "wide", short_labels: bool = False, hide: Sequence[str] = (),
                formats: Mapping[str, str] | None = None) -> str:
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
    * ``hide``: columns that decide marks or bold (a ``significance`` mapping's p-value columns, say) but
      are not printed, so that a paper's layout fits; the caption then names the test, the correction
      and the level, and the CSV (which ignores ``hide``) keeps them.
    * ``formats``: a format spec per column (``{"Wins": ".1f"}``) instead of ``floatfmt``.
    * ``short_labels``: risk-measure columns become ``U1``, ``T1``, ``Z1``, ``G1`` ... (same number =
      same base measure and α) and long ordinary measure names ``M1`` ...; a legend under the table
      maps each label to the full measure (``wide`` and ``transposed`` layouts).

    Args:
        df: the table (a Series is treated as a one-column table, a pandas ``Styler`` such as
            ``Experiment(..., highlight='bold')`` returns by its data).
        path_or_None: file to write (parent folders are created; replaced whole, so that an error or
            Ctrl-C leaves the previous file); ``None`` only returns the text.
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
        hide: columns not printed in Markdown and LaTeX (see above).
        formats: column -> format spec, for those columns (Markdown and LaTeX).

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
    format = table_format(path_or_None, format)
    text = render_table(df, format, index=index, floatfmt=floatfmt, caption=caption, label=label, bold=bold,
                        lower_is_better=lower_is_better, significance=significance, level=level, test=test,
                        correction=correction, marker=marker, layout=layout, short_labels=short_labels,
                        hide=hide, formats=dict(formats or {}))
    if path_or_None is not None:
        path = Path(path_or_None)
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            with atomic_write(path) as f:
                f.write(text)
        except OSError as e:
            raise OSError(e.errno, f"cannot write table to {path}: {e.strerror or e}") from e
    return text


def markdown_section(title: str, level: int = 2, body: str | Sequence[str] = "") -> str:
    """A Markdown heading followed by body paragraphs (used to assemble reports)."""
    paragraphs = [body] if isinstance(body, str) else list(body)
    text = "#" * level + " " + title + "\n\n"
    return text + "".join(p.rstrip("\n") + "\n\n" for p in paragraphs if p)
