"""``pyterrier-risk baselines``: how much risk evaluation depends on its baseline (Dinçer et al., ECIR 2014).

The runs (or ``--evalfile`` files) are read and evaluated as ``eval`` does (:mod:`._inputs`: the
same topic policy, notes and errors); the numbers come from :func:`pyterrier_risk.baseline_sensitivity`.
One table is printed (``--table``, default URisk of every run against every baseline), with a caption derived
from the numbers: the Friedman test, the range of Kendall's τ, the correlation-vs-promotion test
(also printed as a note on stderr, whatever the format).
``--plots DIR`` writes the PCA (Figs. 1–2 of the paper) and the rankings plot.
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
from ._common import PROG, CLIError, note

__all__ = ["add_baselines_arguments", "run_baselines", "TABLES"]

#: the tables ``--table`` can print: the result's attribute for each
TABLES = ("urisk", "trisk", "ranks", "tau", "correlation", "bias", "pca")
_VIRTUAL = ("mean", "median", "max")  # run names that would be taken for the virtual baselines


def add_baselines_arguments(parser: argparse.ArgumentParser) -> EvalOptions:
    """Add the ``baselines`` options to ``parser``; returns what ``arrange_eval_argv`` needs."""
    opt = _Options(parser)
    _io_arguments(opt)  # eval's inputs: runs (or --evalfile files), --qrels and the topic policy
    opt.add("--measure", nargs="+", action="extend", metavar="MEASURE",
            help="the base measure, an ir_measures or trec_eval name (default nDCG@20); one per command")
    opt.add("--alpha", type=number, default=0.0, metavar="A", help="risk sensitivity α >= 0 (default 0)")
    opt.add("--table", choices=TABLES, default="urisk",
            help="the table to print: urisk (default), trisk, ranks (1 = best), tau (Kendall's τ between "
                 "baselines' rankings), correlation (per-topic Pearson r with each baseline), bias "
                 "(Spearman ρ of that correlation with the promotion in the ranking), pca")
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


def run_baselines(args: Any) -> int:
    """Run ``pyterrier-risk baselines`` with parsed ``args``; a user error raises :class:`CLIError`."""
    from ..core import baseline_sensitivity
    from ..reporting import write_table
    from ._eval import _parse_measures, check_output_paths
    from ._inputs import from_evalfiles, from_runs

    _check(args)
    check_output_paths(args.output, args.plots)
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
        result = baseline_sensitivity(matrix, args.alpha, permutations=args.permutations, seed=args.seed)
    except ValueError as e:
        raise CLIError(str(e)) from e
    table = getattr(result, args.table).rename_axis("run").reset_index()
    findings = _caption(result)
    caption = args.caption if args.caption is not None else f"{args.table} of {bases[0]!r}; {findings}"
    try:
        text = write_table(table, args.output, format=args.format, floatfmt=f".{args.round}f",
                           caption=caption, label=args.label)
    except (OSError, ValueError) as e:
        raise CLIError(getattr(e, "strerror", None) or str(e)) from e
    if args.output is None:
        sys.stdout.write(text)
    note(findings)
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
