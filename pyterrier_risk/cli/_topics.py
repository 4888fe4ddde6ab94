"""``pyterrier-risk topics``: the topics each run hurts against a baseline, most-hurt first.

Per topic and run: the run's value, the baseline's, the difference and relative change, whether the
topic lost more than 20% (Wang et al. 2012), and T_R/T_J with their p-values (Dinçer et al. 2014).
The numbers are :func:`pyterrier_risk.hurt_topics`'s; the inputs are read as ``eval`` reads them
(:mod:`._inputs`: the same run, qrels and evaluation-file readers and the same topic policy), and
the options follow ``eval``'s conventions (:mod:`._args`: runs anywhere on the line, one-line errors,
``--format``/``--output``/``--round``). docs/hurt_topics.md shows it at work.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from ._args import (
    EvalOptions,
    _io_arguments,
    _Options,
    check_alphas,
    check_decimals,
    expand_runs,
    integer,
    number,
)
from ._common import CLIError, notes_from_warnings

__all__ = ["add_topics_arguments", "run_topics"]


def add_topics_arguments(parser: argparse.ArgumentParser) -> EvalOptions:
    """Add the ``topics`` options (``eval``'s inputs, a baseline, ``--top``, ``--queries``, output)."""
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
    opt.add("--top", type=integer, default=None, metavar="N",
            help="the N most-hurt topics of each run and measure (default: every topic)")
    opt.add("--queries", type=Path, metavar="FILE",
            help="topics file for the query texts (TREC SGML, TREC Web track XML or qid<TAB>query; "
                 "compressed or not)")
    opt.add("--format", choices=["markdown", "csv", "latex"], default=None,
            help="table format (default: from the --output suffix .md/.csv/.tex, else markdown)")
    opt.add("--output", "-o", type=Path, help="write the table to this file instead of stdout")
    opt.add("--round", type=integer, default=4, help="decimals in markdown/latex output, 0 to 20 (default 4)")
    opt.add("--caption", help="table caption (LaTeX: a table float; markdown: a 'Table:' line)")
    return EvalOptions(opt.arity, opt.long)


def _settings(args: Any) -> None:
    """Every option that can be checked before anything is read."""
    from ._eval import check_output_paths

    check_alphas([args.alpha])
    check_decimals(args.round)
    if args.top is not None and args.top < 1:
        raise CLIError(f"--top must be an integer >= 1, got {args.top}")
    check_output_paths(args.output)


def _queries(path: Path | None) -> dict[str, str] | None:
    from ..experiment import query_texts

    if path is None:
        return None
    try:
        return query_texts(path)
    except (ValueError, FileNotFoundError, IsADirectoryError, PermissionError) as e:
        raise CLIError(str(e)) from e


def _table(inputs: Any, args: Any, queries: dict[str, str] | None) -> Any:
    """:func:`pyterrier_risk.hurt_topics` of the inputs' matrices (as a ``perquery`` table)."""
    import pandas as pd

    from ..experiment import hurt_topics

    frames = [matrix.rename_axis(index="name", columns="qid").reset_index()
              .melt(id_vars="name", var_name="qid", value_name="value").assign(measure=label)
              for label, matrix in inputs.matrices.items()]
    long = pd.concat(frames, ignore_index=True)
    try:
        table = hurt_topics(long, inputs.baseline, measures=list(inputs.matrices), topics=queries,
                            alpha=args.alpha, se=args.se, top=args.top)
    except ValueError as e:
        raise CLIError(str(e).removeprefix("hurt_topics: ")) from e
    return table.rename(columns={"system": "run"})


def run_topics(args: Any) -> int:
    """Run ``pyterrier-risk topics`` with parsed ``args``; a user error raises :class:`CLIError`."""
    from ..reporting import write_table
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
        table = _table(inputs, args, queries)
    try:
        text = write_table(table, args.output, format=args.format, floatfmt=f".{args.round}f",
                           caption=args.caption)
    except OSError as e:
        raise CLIError(e.strerror or str(e)) from e
    if args.output is None:
        sys.stdout.write(text)
    return 0
