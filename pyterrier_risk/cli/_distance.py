"""``pyterrier-risk distance``: how far each run's rankings are from the baseline's (Wang et al. 2012, §5.9).

Per topic, the normalised Kendall distance between a run's ranking and the baseline's over the
documents both retrieved (:func:`pyterrier_risk.rank_distance`); by default the share of the topics
in each of the paper's 10 bins (Figure 5) with the mean distance (:func:`pyterrier_risk.rank_distance_bins`),
with ``--perquery`` one row per run and topic. Runs are read and named as ``eval`` reads them
(:mod:`._inputs`), anywhere on the line; errors are one line; ``--format``/``--output``/``--round`` as
``eval``. No qrels are needed: the distance compares two rankings, not relevance.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from ._args import EvalOptions, _Options, check_decimals, expand_runs, integer
from ._common import CLIError
from ._topics import write_text_output

__all__ = ["add_distance_arguments", "run_distance"]

_MAX_BINS = 1000  # far more than a table can show


def add_distance_arguments(parser: argparse.ArgumentParser) -> EvalOptions:
    """Add the ``distance`` options to ``parser``; returns what ``arrange_eval_argv`` needs."""
    opt = _Options(parser)
    opt.add("runs", nargs="*", metavar="RUN",
            help="TREC run files (plain or compressed) or folders (every file in them, sorted); they may "
                 "come anywhere on the line")
    opt.add("--runs-from", metavar="FILE", action="append", default=[],
            help="a file listing run files, one path per line (blank lines and # comments skipped)")
    opt.add("--baseline", metavar="RUN", help="the baseline: a run file, or the name of one of the RUNs "
                                              "(required)")
    opt.add("--bins", type=integer, default=10, metavar="N",
            help="bins of the distance over [0, 1] (default 10, as the paper's Figure 5)")
    opt.add("--counts", action="store_true", help="topics per bin rather than their share")
    opt.add("--perquery", action="store_true", help="one row per run and topic (name, qid, distance)")
    opt.add("--format", choices=["markdown", "csv", "latex"], default=None,
            help="table format (default: from the --output suffix .md/.csv/.tex, else markdown)")
    opt.add("--output", "-o", type=Path, help="write the table to this file instead of stdout")
    opt.add("--round", type=integer, default=4, help="decimals in markdown/latex output, 0 to 20 (default 4)")
    opt.add("--caption", help="table caption (default: what the table shows)")
    return EvalOptions(opt.arity, opt.long)


def _read(paths: list[str], baseline: str) -> tuple[dict[str, Any], str]:
    """The runs by name (the baseline's file added when it is not a RUN) and the baseline's name."""
    from ..data import read_run, run_name
    from ._inputs import run_paths

    paths, base = run_paths(paths, baseline)
    runs: dict[str, Any] = {}
    origin: dict[str, str] = {}
    for path in paths:
        name = run_name(path)
        if name in runs:
            raise CLIError(f"two runs are named {name!r}: {origin[name]} and {path}; rename one")
        try:
            runs[name], origin[name] = read_run(path, name=name), path
        except (ValueError, FileNotFoundError, IsADirectoryError, PermissionError) as e:
            raise CLIError(str(e)) from e
    if len(runs) < 2:
        raise CLIError(f"distance compares runs with the baseline {base}: give at least one other run")
    return runs, str(base)


def _table(runs: dict[str, Any], base: str, args: Any) -> tuple[Any, str]:
    """The bins (or per-topic) table and its default caption."""
    import pandas as pd

    from ..core import rank_distance, rank_distance_bins

    others = {n: r for n, r in runs.items() if n != base}
    try:
        if args.perquery:
            frames = [rank_distance(r, runs[base]).rename("distance").reset_index().assign(name=n)
                      for n, r in others.items()]
            table = pd.concat(frames, ignore_index=True)[["name", "qid", "distance"]]
            return table, (f"Kendall distance of each run's ranking from {base}'s per topic (Wang et al. "
                           "2012, §5.9; empty: fewer than two common documents, or one ranking ties them "
                           "all)")
        table = rank_distance_bins(others, runs[base], bins=args.bins, normalize=not args.counts)
    except ValueError as e:
        raise CLIError(str(e)) from e
    if args.counts:  # topics per bin print as integers
        table = table.astype({c: int for c in table.columns[:args.bins]})
    what = "topics" if args.counts else "share of the topics"
    return table.reset_index(), (f"{what} per Kendall-distance bin of each run's ranking from {base}'s "
                                 f"(Wang et al. 2012, Fig. 5); undefined: topics without a distance "
                                 "(fewer than two common documents, or one ranking ties them all); mean: the "
                                 "mean distance")


def run_distance(args: Any) -> int:
    """Run ``pyterrier-risk distance`` with parsed ``args``; a user error raises :class:`CLIError`."""
    from ..reporting import render_table, table_format
    from ._eval import check_output_paths

    check_decimals(args.round)
    if not 1 <= args.bins <= _MAX_BINS:
        raise CLIError(f"--bins must be an integer from 1 to {_MAX_BINS}, got {args.bins}")
    if args.perquery and (args.counts or args.bins != 10):
        raise CLIError("--bins and --counts shape the bins table; leave them out with --perquery")
    check_output_paths(args.output)
    runs, base = _read(expand_runs(args.runs, args.runs_from), args.baseline)
    table, caption = _table(runs, base, args)
    fmt = table_format(args.output, args.format)
    text = render_table(table, fmt, floatfmt=f".{args.round}f",
                        caption=args.caption if args.caption is not None else caption)
    write_text_output(text, args.output)
    return 0
