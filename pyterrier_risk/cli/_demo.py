"""``pyterrier-risk demo``: the arguments of the study and the call of :func:`pyterrier_risk.study.run_study`.

The study itself (PISA systems and cross-validated risk-sensitive re-rankers on an ir_datasets
collection, evaluated into ``OUT/report.md``) lives in :mod:`pyterrier_risk.study`.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from ..learning import get_objective, objective_names
from ..study import DEFAULT_ALPHAS, DEFAULT_DATASET, DEFAULT_OBJECTIVES, PLAIN_OBJECTIVE, risk_objectives
from ._args import check_alphas
from ._common import CLIError

__all__ = ["add_demo_arguments", "run_demo"]


def _say(message: str) -> None:
    print(f"[pyterrier-risk demo] {message}", flush=True)


def add_demo_arguments(demo: argparse.ArgumentParser) -> None:
    """The options of ``demo``."""
    # the study's default objective per kind of baseline, and the registered objectives that may replace it
    defaults = {get_objective(n).baseline: get_objective(n).label for n in DEFAULT_OBJECTIVES}
    families = {k: objective_names(k) for k in defaults}  # the registry's objectives of each kind
    replaces = " or ".join(f"{defaults[kind]} ({', '.join(names)})" for kind, names in families.items())
    demo.add_argument("--dataset", default=DEFAULT_DATASET,
                      help=f"ir_datasets id (default {DEFAULT_DATASET})")
    demo.add_argument("--out", default="pyterrier-risk-demo", type=Path,
                      help="output folder for report.md, plots/, tables/, runs/ "
                           "(default ./pyterrier-risk-demo)")
    demo.add_argument("--quick", action="store_true", help="fewer systems, α values, folds and trees")
    demo.add_argument("--alpha", nargs="+", type=float, default=None, metavar="A",
                      help=f"risk-sensitivity values (default {' '.join(f'{a:g}' for a in DEFAULT_ALPHAS)})")
    demo.add_argument("--folds", type=int, default=None, help="cross-validation folds (default 5; quick 3)")
    demo.add_argument("--objective", default=None, choices=[*risk_objectives(), PLAIN_OBJECTIVE],
                      help=f"replaces {replaces} in the study; {PLAIN_OBJECTIVE}: plain "
                           f"{get_objective(PLAIN_OBJECTIVE).label} only "
                           f"(default: {' and '.join(defaults.values())})")
    demo.add_argument("--seed", type=int, default=42, help="seed of the folds and of LightGBM")


def run_demo(args: argparse.Namespace) -> int:
    """Run ``pyterrier-risk demo`` with parsed ``args``; a user error raises :class:`CLIError`."""
    from ..study import StudyError, run_study  # PyTerrier, LightGBM: only when the study runs
    from ._eval import check_output_paths

    if args.alpha is not None:
        check_alphas(args.alpha)
    check_output_paths(None, folder=args.out)
    try:
        result = run_study(args.dataset, args.out, quick=args.quick, alphas=args.alpha, folds=args.folds,
                           seed=args.seed, objective=args.objective, log=_say)
    except StudyError as e:
        raise CLIError(str(e)) from e
    print(f"report: {result.report}")
    return 0
