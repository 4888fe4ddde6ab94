"""``pyterrier-risk topics``: the topics each run hurts against a baseline, most-hurt first.

The answer first: one row per run with the topics it loses, those it loses by more than 20% (Wang et
al. 2012), those with T_R ≤ −2 (Dinçer et al. 2014) and its mean change; then, per run, its most-hurt
topics (``--top``, default 5; ``--all`` for every topic): the run's value, the baseline's, the
difference and relative change, Loss > 20%, and T_R (and T_J where it differs) with their p-values.
The numbers are :func:`pyterrier_risk.hurt_topics`'s; the inputs are read as ``eval`` reads them
(:mod:`._inputs`: the same run, qrels and evaluation-file readers and the same topic policy), and
the options follow ``eval``'s conventions (:mod:`._args`: runs anywhere on the line, one-line errors,
``--format``/``--output``/``--round``). docs/hurt_topics.md shows it at work.
"""

from __future__ import annotations

import argparse
import sys
import textwrap
from pathlib import Path
from typing import Any

from ..reporting import MAX_WIDTH  # the widest table printed by default: the query texts are cut to fit
from ._args import (
    EvalOptions,
    _io_arguments,
    _Options,
    add_sd_argument,
    check_alphas,
    check_decimals,
    expand_runs,
    integer,
    number,
)
from ._common import CLIError, note, notes_from_warnings

__all__ = ["DEFAULT_TOP", "MAX_WIDTH", "add_topics_arguments", "run_topics"]

#: the most-hurt topics shown per run and measure unless ``--top``/``--all`` say otherwise
DEFAULT_TOP = 5
_MIN_QUERY = 16  # a query is not cut shorter than this


def add_topics_arguments(parser: argparse.ArgumentParser) -> EvalOptions:
    """Add the ``topics`` options (``eval``'s inputs, a baseline, ``--top``/``--all``, output)."""
    opt = _Options(parser)
    _io_arguments(opt)
    opt.add("--baseline", metavar="RUN", help="the baseline: a run file, or the name of one of the RUNs "
                                              "(required)")
    opt.add("--measure", nargs="+", action="extend", metavar="MEASURE",
            help="base measures, ir_measures or trec_eval names (default nDCG@20)")
    opt.add("--alpha", type=number, default=0.0, metavar="A",
            help="risk-sensitivity α of T_R and T_J: a loss weighs 1 + α (default 0)")
    opt.add("--se", choices=["parametric", "jackknife"], default="parametric",
            help="TRisk's standard error behind T_R and T_J (default parametric)")
    add_sd_argument(opt)
    opt.add("--top", type=integer, default=None, metavar="N",
            help=f"the N most-hurt topics of each run and measure (default {DEFAULT_TOP})")
    opt.add("--all", action="store_true", help="every topic of each run and measure (not only the most hurt)")
    opt.add("--queries", type=Path, metavar="FILE", help="the old name of --topics FILE (kept, with a note)")
    opt.add("--format", choices=["markdown", "csv", "latex"], default=None,
            help="table format (default: from the --output suffix .md/.csv/.tex, else markdown)")
    opt.add("--output", "-o", type=Path, help="write the tables to this file instead of stdout")
    opt.add("--round", type=integer, default=4, help="decimals in markdown/latex output, 0 to 20 (default 4)")
    opt.add("--caption",
            help="caption of the per-topic table (LaTeX: a table float; markdown: a 'Table:' line)")
    return EvalOptions(opt.arity, opt.long)


def _settings(args: Any) -> None:
    """Every option that can be checked before anything is read."""
    from ._eval import check_output_paths

    check_alphas([args.alpha])
    check_decimals(args.round)
    if args.top is not None and args.top < 1:
        raise CLIError(f"--top must be an integer >= 1, got {args.top}")
    if args.top is not None and args.all:
        raise CLIError("give --top N or --all, not both")
    check_output_paths(args.output)


def _queries(path: Path | None) -> dict[str, str] | None:
    from ..experiment import query_texts

    if path is None:
        return None
    try:
        return query_texts(path)
    except FileNotFoundError as e:
        raise CLIError(f"{e} (--topics is the query-text file; the topic policy is --topic-policy "
                       "qrels|intersection)") from e
    except (ValueError, IsADirectoryError, PermissionError) as e:
        raise CLIError(str(e)) from e


def _hurt(inputs: Any, args: Any, queries: dict[str, str] | None) -> Any:
    """:func:`pyterrier_risk.hurt_topics` of the inputs' matrices, every topic."""
    import pandas as pd

    from ..experiment import hurt_topics

    frames = [matrix.rename_axis(index="name", columns="qid").reset_index()
              .melt(id_vars="name", var_name="qid", value_name="value").assign(measure=label)
              for label, matrix in inputs.matrices.items()]
    long = pd.concat(frames, ignore_index=True)
    try:
        return hurt_topics(long, inputs.baseline, measures=list(inputs.matrices), topics=queries,
                           alpha=args.alpha, se=args.se, sd=args.sd)
    except ValueError as e:
        raise CLIError(str(e).removeprefix("hurt_topics: ")) from e


def summary(hurt: Any) -> Any:
    """Per run and measure: topics, lost, lost by more than 20%, with T_R ≤ −2, and the mean change."""
    import pandas as pd

    rows = []
    for (name, measure), block in hurt.groupby(["name", "measure"], sort=False):
        rows.append({"name": name, "measure": measure, "topics": len(block),
                     "lost": int((block["difference"] < 0).sum()),
                     "loss > 20%": int(block["loss_gt20"].sum()),
                     "T_R ≤ −2": int((block["t_r"] <= -2).sum()),
                     "mean change": float(block["difference"].mean())})
    return pd.DataFrame(rows)


def _shown(hurt: Any, top: int | None, decimals: int) -> tuple[Any, bool]:
    """The most-hurt ``top`` rows of each block; T_J's columns left out where they print as T_R's."""
    import numpy as np

    shown = hurt if top is None else hurt.groupby(["name", "measure"], sort=False).head(top)
    same = bool(np.allclose(hurt["t_j"], hurt["t_r"], rtol=0, atol=0.5 * 10.0**-decimals, equal_nan=True))
    if same:
        shown = shown.drop(columns=["t_j", "t_j_p_value"])
    return shown.reset_index(drop=True), same


def _fit_queries(table: Any, render: Any) -> Any:
    """The table with its query texts cut between words so that it is at most :data:`MAX_WIDTH` wide.

    The width is that of the rendered Markdown table (its longest table line); the texts are cut again
    until it fits, but never shorter than ``_MIN_QUERY`` characters.
    """
    from ..reporting import markdown_width

    if "query" not in table.columns:
        return table
    room = int(table["query"].str.len().max() or 0)
    fitted = table
    while (excess := markdown_width(render(fitted)) - MAX_WIDTH) > 0 and room > _MIN_QUERY:
        room = max(_MIN_QUERY, room - excess)
        fitted = table.assign(query=[textwrap.shorten(q, room, placeholder=" …") if len(q) > room else q
                                     for q in table["query"]])
    return fitted


def _footer(hurt: Any, top: int | None, same: bool, caption: str | None) -> str:
    """The per-topic table's caption: what it shows, how to see the rest, why T_J is missing."""
    topics = int(hurt.groupby(["name", "measure"], sort=False).size().max())
    parts = [caption] if caption else []
    if top is not None and top < topics:
        parts.append(f"The {top} most-hurt of {topics} topics per run and measure (--all: every topic).")
    if same:
        parts.append("T_J equals T_R (for URisk the jackknife pseudo-values are the x_i themselves); its "
                     "columns are left out.")
    return " ".join(parts)


def write_text_output(text: str, output: Path | None) -> None:
    """``text`` to stdout, or to ``output`` through ``data.atomic_write`` (whole or not at all)."""
    from ..data import atomic_write

    if output is None:
        sys.stdout.write(text)
        return
    try:
        output.parent.mkdir(parents=True, exist_ok=True)
        with atomic_write(output) as f:
            f.write(text)
    except OSError as e:
        raise CLIError(f"cannot write the output {output}: {e.strerror or e}") from e


def _render(hurt: Any, args: Any) -> str:
    """The text printed: the per-run summary, then the most-hurt topics (CSV: the topics only)."""
    from ..reporting import markdown_width, render_table, table_format

    fmt = table_format(args.output, args.format)
    top = None if args.all else args.top or DEFAULT_TOP
    shown, same = _shown(hurt, top, args.round)
    footer = _footer(hurt, top, same, args.caption)
    floatfmt = f".{args.round}f"
    if fmt == "csv":  # for machines: every column of hurt_topics, the rows of --top/--all
        if top is not None and top < int(hurt.groupby(["name", "measure"], sort=False).size().max()):
            note(f"the {top} most-hurt topics per run and measure (--all: every topic)")
        return render_table(hurt if top is None else hurt.groupby(["name", "measure"], sort=False).head(top),
                            "csv")
    shown = _fit_queries(shown, lambda t: render_table(t, fmt, floatfmt=floatfmt))
    if markdown_width(render_table(shown, "markdown", floatfmt=floatfmt)) > MAX_WIDTH and (
            shown["measure"].nunique() == 1):  # one measure: named in the caption instead of on every row
        footer = f"Measure: {shown['measure'].iloc[0]}. {footer}".strip()
        shown = _fit_queries(shown.drop(columns=["measure"]),
                             lambda t: render_table(t, fmt, floatfmt=floatfmt))
    first = render_table(summary(hurt), fmt, floatfmt=floatfmt,
                         caption="per run: topics lost, lost by more than 20%, with T_R ≤ −2, mean change")
    return first + "\n" + render_table(shown, fmt, floatfmt=floatfmt, caption=footer or None)


def run_topics(args: Any) -> int:
    """Run ``pyterrier-risk topics`` with parsed ``args``; a user error raises :class:`CLIError`."""
    from ._eval import _parse_measures
    from ._inputs import from_evalfiles, from_runs

    _settings(args)
    bases, given_risk = _parse_measures(args.measure)
    if given_risk:
        raise CLIError(f"topics compares base measures with the baseline; {given_risk[0]!r} is a risk "
                       "measure (T_R and T_J take --alpha)")
    queries = _queries(args.queries)
    if args.evalfile:
        inputs = from_evalfiles(args, bases, set())
    else:
        inputs = from_runs(args, bases, bases, set(), expand_runs(args.runs, args.runs_from))
    with notes_from_warnings():
        hurt = _hurt(inputs, args, queries)
    write_text_output(_render(hurt, args), args.output)
    return 0
