"""``pyterrier-risk baselines``: how much risk evaluation depends on its baseline (Dinçer et al., ECIR 2014).

The runs (or ``--evalfile`` files) are read and evaluated as ``eval`` does (:mod:`._inputs`: the
same topic policy, notes and errors); the numbers come from :func:`pyterrier_risk.baseline_sensitivity`.
One table is printed (``--table``, default URisk of every run against every baseline; when it is wider
than a terminal, min/median/max over the run baselines), with a caption derived from the numbers: the
Friedman test, the range of Kendall's τ, the correlation-vs-promotion test (a note on stderr instead
when stdout does not show the caption: CSV, ``--output`` or a ``--caption`` of one's own).
``--plots DIR`` writes the PCA (Figs. 1–2 of the paper) and the rankings plot.
"""

from __future__ import annotations

import argparse
import sys
import warnings
from pathlib import Path
from typing import Any

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
from ._common import PROG, CLIError, note
from ._topics import MAX_WIDTH, write_text_output

__all__ = ["LAYOUTS", "TABLES", "add_baselines_arguments", "run_baselines", "summary_table", "table_of"]

#: the tables ``--table`` can print: the result's attribute for each
TABLES = ("urisk", "trisk", "ranks", "tau", "correlation", "bias", "pca")
_VIRTUAL = ("mean", "median", "max")  # run names that would be taken for the virtual baselines
VIRTUAL_BASELINES = ("MEAN", "MEDIAN", "MAX")
#: ``--layout``: ``auto`` (wide when it fits :data:`MAX_WIDTH` characters, else summary), wide, summary
LAYOUTS = ("auto", "wide", "summary")


def add_baselines_arguments(parser: argparse.ArgumentParser) -> EvalOptions:
    """Add the ``baselines`` options to ``parser``; returns what ``arrange_eval_argv`` needs."""
    opt = _Options(parser)
    _io_arguments(opt)  # eval's inputs: runs (or --evalfile files), --qrels and the topic policy
    opt.add("--measure", nargs="+", action="extend", metavar="MEASURE",
            help="the base measure, an ir_measures or trec_eval name (default nDCG@20); one per command")
    opt.add("--alpha", type=number, required=True, metavar="A",
            help="risk sensitivity α >= 0 (required: at α = 0 every baseline ranks the runs alike)")
    add_sd_argument(opt)
    opt.add("--table", choices=TABLES, default="urisk",
            help="the table to print: urisk (default), trisk, ranks (1 = best), tau (Kendall's τ between "
                 "baselines' rankings), correlation (per-topic Pearson r with each baseline), bias "
                 "(Spearman ρ of that correlation with the promotion in the ranking), pca")
    opt.add("--layout", choices=LAYOUTS, default="auto",
            help="auto (the default: wide if it fits 160 characters, else summary; CSV: wide), wide (a "
                 "column per baseline) or summary (min, median and max over the run baselines, then MEAN, "
                 "MEDIAN and MAX)")
    opt.add("--permutations", type=integer, default=1999, metavar="N",
            help="permutations of the correlation-vs-promotion test (default 1999; 0 skips it)")
    opt.add("--seed", type=integer, default=0, help="seed of the permutations (default 0)")
    opt.add("--format", choices=["markdown", "csv", "latex"], default=None,
            help="table format (default: from the --output suffix .md/.csv/.tex, else markdown)")
    opt.add("--output", "-o", type=Path, help="write the table to this file instead of stdout")
    opt.add("--round", type=integer, default=4, help="decimals in markdown/latex output, 0 to 20 (default 4)")
    opt.add("--caption", help="table caption (default: the Friedman test, τ range and bias test)")
    opt.add("--label", help="LaTeX \\label of the table")
    opt.add("--plots", type=Path, metavar="DIR",
            help="write baselines_pca.png and baseline_ranks.png to DIR")
    return EvalOptions(opt.arity, opt.long)


def _caption(result: Any) -> str:
    """One sentence per finding, each printed from the numbers it states."""
    parts = [f"alpha = {result.alpha:g}"]
    f = result.friedman
    if f is not None:
        parts.append(f"Friedman over {f.blocks} run baselines chi2 = {f.statistic:.2f}, df = {f.df}, "
                     f"p = {f.p_value:.2g}, Kendall's W = {f.kendall_w:.3f} (1: the baselines rank alike)")
    lo, hi = result.tau_range()
    if lo == lo:  # not NaN
        parts.append(f"Kendall's tau between run baselines' rankings {lo:.3f} to {hi:.3f}")
    b = result.bias_test
    if b:
        parts.append(f"correlation with the baseline vs promotion: mean Spearman rho = {b['mean_rho']:.3f}, "
                     f"permutation p = {b['p_value']:.2g}")
    return "; ".join(parts)


def _check(args: Any) -> None:
    check_alphas([args.alpha])
    check_decimals(args.round)
    if args.permutations < 0 or args.seed < 0:
        raise CLIError(f"--permutations and --seed must be >= 0, got {args.permutations} and {args.seed}")


def _result(args: Any) -> tuple[Any, Any]:
    """The base measure and :func:`pyterrier_risk.baseline_sensitivity` of the runs (or evaluation files)."""
    from ..core import baseline_sensitivity
    from ._eval import _parse_measures
    from ._inputs import from_evalfiles, from_runs

    if args.measure is not None and len(args.measure) > 1:
        raise CLIError(f"baselines ranks the runs on one base measure, got {len(args.measure)} "
                       f"({', '.join(args.measure)}): run it once per measure")
    bases, given_risk = _parse_measures(args.measure)
    if given_risk:
        raise CLIError(f"--measure takes a base measure (nDCG@20, AP, ...), not {args.measure[0]!r}")
    args.baseline = None
    if args.evalfile:
        inputs = from_evalfiles(args, bases, set(_VIRTUAL))
    else:
        paths = expand_runs(args.runs, args.runs_from)
        if len(paths) < 3:  # before any run is read
            raise CLIError(f"baselines needs at least 3 runs, got {len(paths)}")
        inputs = from_runs(args, bases, bases, set(_VIRTUAL), paths)
    matrix = inputs.matrices[repr(bases[0])]
    if len(matrix) < 3:
        raise CLIError(f"baselines needs at least 3 runs, got {len(matrix)}")
    try:
        return bases[0], baseline_sensitivity(matrix, args.alpha, permutations=args.permutations,
                                              seed=args.seed, sd=args.sd)
    except ValueError as e:
        raise CLIError(str(e)) from e


def table_of(result: Any, name: str) -> Any:
    """The ``--table`` frame with a ``name`` column.

    Ranks are integers where no tie makes a half; the PCA's axes are labelled with their explained variance.
    """
    frame = getattr(result, name).rename_axis("name").reset_index()
    if name == "ranks":
        frame = _integers(frame)
    if name == "pca":
        frame = frame.rename(columns={k: f"{k} ({v:.1%})" for k, v in result.explained.items()})
    return frame


def summary_table(table: Any, result: Any) -> Any:  # noqa: ARG001 - one signature for every table
    """Min, median and max of each row over the run baselines (its own left out), then MEAN/MEDIAN/MAX."""
    import numpy as np

    runs = [c for c in table.columns[1:] if c not in VIRTUAL_BASELINES]
    values = table[runs].to_numpy(dtype=float, na_value=np.nan, copy=True)
    values[np.asarray(table["name"])[:, None] == np.asarray(runs)[None, :]] = np.nan  # a run against itself
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # a row without any value: NaN, printed empty
        stats = {"min": np.nanmin(values, axis=1), "median": np.nanmedian(values, axis=1),
                 "max": np.nanmax(values, axis=1)}
    out = table[["name"]].assign(**stats).join(table[[c for c in table.columns if c in VIRTUAL_BASELINES]])
    return _integers(out) if str(table[runs[0]].dtype) == "Int64" else out


def _integers(frame: Any) -> Any:
    """``frame`` with its whole-number float columns as integers (ranks print as 3, not 3.0000)."""
    import pandas as pd

    for column in frame.columns[1:]:
        values = frame[column].to_numpy(dtype=float, na_value=float("nan"))
        if ((values == values.round()) | pd.isna(values)).all():
            frame = frame.astype({column: "Int64"})
    return frame


def _shaped(table: Any, result: Any, args: Any, fmt: str, render: Any) -> tuple[Any, bool, str | None]:
    """The table in ``--layout``; whether it is the summary; a note when ``auto`` chose the summary."""
    runs = sum(c in result.urisk.columns and c not in VIRTUAL_BASELINES for c in table.columns[1:])
    if args.layout == "wide" or runs < 2:  # bias, pca: no column per baseline
        return table, False, None
    if args.layout == "summary":
        return summary_table(table, result), True, None
    width = max(len(line) for line in render(table).splitlines())
    if width <= MAX_WIDTH or fmt == "csv":
        return table, False, None
    return summary_table(table, result), True, (
        f"the wide table is {width} characters wide (more than {MAX_WIDTH}): printed min, median and max "
        f"over the {runs} run baselines, then MEAN, MEDIAN and MAX; --layout wide prints it whole")


def run_baselines(args: Any) -> int:
    """Run ``pyterrier-risk baselines`` with parsed ``args``; a user error raises :class:`CLIError`."""
    from ..reporting import render_table, table_format
    from ._eval import check_output_paths

    _check(args)
    check_output_paths(args.output, args.plots)
    base, result = _result(args)
    findings = _caption(result)
    fmt = table_format(args.output, args.format)
    floatfmt = "g" if args.table == "ranks" else f".{args.round}f"  # a rank: 3, or 2.5 for a tie
    table, summarized, shaped = _shaped(table_of(result, args.table), result, args, fmt,
                                        lambda t: render_table(t, fmt, floatfmt=floatfmt))
    caption = args.caption if args.caption is not None else f"{args.table} of {base!r}; {findings}"
    if summarized and args.caption is None:
        caption += "; min, median and max: over the run baselines, each row's own left out"
    try:
        text = render_table(table, fmt, floatfmt=floatfmt, caption=caption, label=args.label)
    except ValueError as e:
        raise CLIError(str(e)) from e
    write_text_output(text, args.output)
    if shaped:
        note(shaped)
    if args.alpha == 0:
        note("at alpha = 0 URisk against any baseline is a run's mean minus the baseline's mean, so every "
             "baseline ranks the runs alike by construction (Kendall's W = 1); give --alpha > 0 to see how "
             "the baseline changes the ranking")
    if args.output is not None or fmt == "csv" or args.caption is not None:
        note(findings)  # otherwise the default caption on stdout states them: printed once
    if args.plots is not None:
        _plots(result, args.plots)
    return 0


def _plots(result: Any, folder: Path) -> None:
    from ..reporting import plot_baseline_ranks, plot_baselines_pca

    try:
        plot_baselines_pca(result, path=folder / "baselines_pca.png")
        plot_baseline_ranks(result, path=folder / "baseline_ranks.png")
    except OSError as e:
        raise CLIError(e.strerror or str(e)) from e
    print(f"{PROG}: wrote 2 plots to {folder}", file=sys.stderr)
