"""The ``pyterrier-risk`` command: ``demo`` (a complete study) and ``eval`` (risk evaluation of run files).

``pyterrier-risk eval`` evaluates TREC run files against qrels (a file or an ``irds:`` id) and prints
one row per run (named by its file name without extension) and one column per measure, named by the
measure's ``repr``: the base measures, URisk/TRisk against ``--baseline`` for every ``--alpha``,
URisk/T*Risk against the ``--baselines`` aggregates, and ZRisk/GeoRisk over all the runs. Bad input
(an unreadable or malformed run, topics absent from the qrels, a document listed twice, an unknown
``irds:`` id or measure, an output that cannot be written) ends with a one-line error naming the
file/line/id and exit status 2.
"""

from __future__ import annotations

import argparse
import os
import sys
import warnings
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ..data._trec import ensure_writable_dir, read_run, run_name

EXIT_USAGE = 2
_PROG = "pyterrier-risk"


class CLIError(Exception):
    """A user error: printed as ``pyterrier-risk: error: <message>``, exit status 2."""


def _parser() -> argparse.ArgumentParser:
    from .. import __version__
    from ._demo import DEFAULT_ALPHAS, DEFAULT_DATASET

    parser = argparse.ArgumentParser(
        prog=_PROG, description="Risk-sensitive evaluation for PyTerrier: URisk, TRisk, ZRisk, GeoRisk.")
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="{demo,eval}")

    demo = sub.add_parser(
        "demo", help="run a complete risk-sensitive study on an ir_datasets collection (PISA + LambdaMART)",
        description="Index an ir_datasets corpus with PISA, run several systems and a risk-sensitive "
                    "re-ranker (cross-validated over topics), and write a Markdown report with plots.")
    demo.add_argument("--dataset", default=DEFAULT_DATASET,
                      help=f"ir_datasets id (default {DEFAULT_DATASET})")
    demo.add_argument("--out", default="pyterrier-risk-demo", type=Path,
                      help="output folder for report.md, plots/, tables/, runs/ "
                           "(default ./pyterrier-risk-demo)")
    demo.add_argument("--quick", action="store_true", help="fewer systems, α values, folds and trees")
    demo.add_argument("--alpha", nargs="+", type=float, default=None, metavar="A",
                      help=f"risk-sensitivity values (default {' '.join(f'{a:g}' for a in DEFAULT_ALPHAS)})")
    demo.add_argument("--folds", type=int, default=None, help="cross-validation folds (default 5; quick 3)")
    demo.add_argument("--objective", default="urisk",
                      choices=["urisk", "tsaro", "tfaro", "tfaro_star", "georisk", "lambdarank"],
                      help="objective of the re-ranker (default urisk = U-CRO)")
    demo.add_argument("--seed", type=int, default=42, help="seed of the folds and of LightGBM")

    ev = sub.add_parser(
        "eval", help="risk-sensitive evaluation of TREC run files",
        description="Evaluate TREC run files: one row per run, one column per measure (named by its repr).")
    ev.add_argument("runs", nargs="+", metavar="RUN", help="TREC run files (plain or .gz)")
    ev.add_argument("--qrels", required=True, help="qrels file or ir_datasets id (irds:...)")
    ev.add_argument("--measure", action="append", default=None, metavar="MEASURE",
                    help="base measure, e.g. nDCG@20, ERR@20, AP, "
                         "\"nDCG(gains={-2:0,0:0,1:1,2:3,3:7,4:15})@20\", or a risk measure evaluated "
                         "as given, e.g. \"TRisk(AP,alpha=5,baseline='median')\" "
                         "(repeatable; default nDCG@20)")
    ev.add_argument("--alpha", nargs="+", type=float, default=[0.0], metavar="A",
                    help="risk-sensitivity values α (default 0)")
    ev.add_argument("--baseline", metavar="RUN",
                    help="baseline run file (or the name of one of the RUNs) for URisk/TRisk")
    ev.add_argument("--baselines", nargs="+", choices=["mean", "median", "max"], default=[],
                    help="unbiased baselines over all runs (Dinçer et al., ECIR 2014): URisk and T*Risk")
    ev.add_argument("--no-zrisk", action="store_true", help="leave out ZRisk and GeoRisk")
    ev.add_argument("--format", choices=["markdown", "csv", "latex"], default=None,
                    help="table format (default: from the --output suffix .md/.csv/.tex, else markdown)")
    ev.add_argument("--output", "-o", type=Path, help="write the table to this file instead of stdout")
    ev.add_argument("--perquery", action="store_true",
                    help="per-topic values (name, qid, measure, value) instead of the averages")
    ev.add_argument("--plots", type=Path, metavar="DIR", help="write risk-gain, helped-hurt, GeoRisk and "
                                                              "T_J plots (PNG) to DIR")
    ev.add_argument("--drop-extra-topics", action="store_true",
                    help="ignore results for topics absent from the qrels (default: an error)")
    ev.add_argument("--round", type=int, default=4, help="decimals in markdown/latex output (default 4)")
    return parser


def _load_qrels(spec: str) -> Any:
    from ..data._trec import read_qrels

    try:
        qrels = read_qrels(spec)
    except (ValueError, FileNotFoundError, IsADirectoryError) as e:
        raise CLIError(str(e)) from e
    except Exception as e:  # ir_datasets download failures when offline
        home = os.environ.get("IR_DATASETS_HOME", "~/.ir_datasets")
        raise CLIError(f"cannot load qrels {spec!r}: {type(e).__name__}: {str(e).splitlines()[0][:200]} "
                       f"(is the dataset in IR_DATASETS_HOME={home}?)") from e
    return qrels


def _load_runs(paths: Sequence[str], qrels: Any, drop_extra: bool) -> dict[str, Any]:
    topics = set(qrels["qid"])
    runs: dict[str, Any] = {}
    origin: dict[str, str] = {}
    for path in paths:
        name = run_name(path)
        if name in runs:
            if os.path.abspath(origin[name]) == os.path.abspath(path):
                continue
            raise CLIError(f"two runs are named {name!r}: {origin[name]} and {path}; rename one")
        try:
            run = read_run(path, name=name)
        except (ValueError, FileNotFoundError, IsADirectoryError, PermissionError) as e:
            raise CLIError(str(e)) from e
        extra = sorted(set(run["qid"]) - topics)
        if extra:
            if not drop_extra:
                shown = ", ".join(repr(q) for q in extra[:5]) + (", ..." if len(extra) > 5 else "")
                raise CLIError(f"{path}: results for {len(extra)} topic(s) absent from the qrels ({shown}); "
                               "wrong qrels? (--drop-extra-topics ignores them)")
            print(f"{_PROG}: note: {path}: ignoring results for {len(extra)} topic(s) absent from the qrels",
                  file=sys.stderr)
            run = run[run["qid"].isin(topics)].reset_index(drop=True)
        missing = len(topics - set(run["qid"]))
        if missing:  # the topic policy: such topics score 0, as with trec_eval -c / gdeval -c
            print(f"{_PROG}: note: {path} has no results for {missing} of the {len(topics)} qrels topics; "
                  "they score 0", file=sys.stderr)
        runs[name] = run
        origin[name] = path
    return runs


def _parse_measures(texts: Sequence[str] | None) -> tuple[list[Any], list[Any]]:
    """The ``--measure`` values split into base measures and risk measures given in full."""
    from ..measures._risk import RiskMeasure, parse_measure

    bases, given_risk = [], []
    for text in texts or ["nDCG@20"]:
        try:
            measure = parse_measure(text)
            if isinstance(measure, RiskMeasure):
                measure.base  # noqa: B018 - raises a clear error when the base measure is missing
            else:
                measure.validate_params()  # ir_measures' own checks (P@5.0: the cutoff must be an int)
        except (ValueError, NameError, TypeError, KeyError, AssertionError) as e:
            raise CLIError(f"unknown or malformed measure {text!r}: {e}") from e
        (given_risk if isinstance(measure, RiskMeasure) else bases).append(measure)
    return bases, given_risk


def _risk_measures(bases: Sequence[Any], alphas: Sequence[float], baseline: str | None,
                   aggregates: Sequence[str], n_runs: int, zrisk: bool) -> list[Any]:
    from ..measures._risk import GeoRisk, TRisk, URisk, ZRisk

    out: list[Any] = []
    for base in bases:
        for a in alphas:
            if baseline is not None:
                out += [URisk(base, alpha=a, baseline=baseline), TRisk(base, alpha=a, baseline=baseline)]
            for kind in aggregates:
                out += [URisk(base, alpha=a, baseline=kind), TRisk(base, alpha=a, baseline=kind)]
        if zrisk and n_runs >= 2:
            out += [m(base, alpha=a) for a in alphas for m in (ZRisk, GeoRisk)]
    return out


def _evaluate(args: argparse.Namespace) -> int:
    import pandas as pd

    from ..experiment._experiment import Experiment

    alphas = list(dict.fromkeys(float(a) for a in args.alpha))
    if any(a < 0 for a in alphas):
        raise CLIError(f"--alpha values must be >= 0, got {' '.join(f'{a:g}' for a in alphas)}")
    if args.output is not None:
        _check_writable(args.output.parent if str(args.output.parent) else Path("."), f"output {args.output}")
    if args.plots is not None:
        _check_writable(args.plots, "--plots folder")
    bases, given_risk = _parse_measures(args.measure)
    qrels = _load_qrels(args.qrels)

    paths = list(args.runs)
    baseline_name = None
    if args.baseline is not None:
        names = {run_name(p) for p in paths}
        if args.baseline in names:
            baseline_name = args.baseline
        else:
            if not Path(args.baseline).exists():
                raise CLIError(f"baseline run not found: {args.baseline} (give a run file or the name of "
                               f"one of the RUNs: {', '.join(sorted(names))})")
            paths.insert(0, args.baseline)
            baseline_name = run_name(args.baseline)
    runs = _load_runs(paths, qrels, args.drop_extra_topics)
    if baseline_name is not None:  # a given URisk/TRisk without its own baseline uses --baseline
        given_risk = [m(baseline=baseline_name) if m.USES_BASELINE and m.baseline is None else m
                      for m in given_risk]
    measures = [*bases, *given_risk, *_risk_measures(bases, alphas, baseline_name, args.baselines, len(runs),
                                                     not args.no_zrisk)]
    topics = pd.DataFrame({"qid": sorted(set(qrels["qid"]))}).assign(query="")
    with warnings.catch_warnings():
        # the topic policy (missing topics score 0) is documented; do not drown the table in warnings
        warnings.simplefilter("ignore")
        try:
            table = Experiment(dict(runs), topics, qrels, measures, perquery=bool(args.perquery),
                               verbose=False)
        except (ValueError, TypeError, KeyError) as e:
            raise CLIError(str(e)) from e
    if not args.perquery:
        table = table.rename(columns={"name": "run"})
    text = _write(table, args)
    if args.output is None:
        sys.stdout.write(text)
    if args.plots is not None:
        base = bases[0] if bases else given_risk[0].base
        written = _eval_plots(runs, qrels, base, baseline_name, alphas, args.plots)
        print(f"{_PROG}: wrote {len(written)} plots to {args.plots}", file=sys.stderr)
    return 0


def _write(table: Any, args: argparse.Namespace) -> str:
    from ..reporting._tables import write_table

    try:
        return write_table(table, args.output, format=args.format, floatfmt=f".{args.round}f")
    except OSError as e:  # write_table / the plots name the path in strerror
        raise CLIError(e.strerror or str(e)) from e


def _check_writable(folder: Path, what: str) -> None:
    try:
        ensure_writable_dir(folder)
    except OSError as e:
        raise CLIError(f"cannot write the {what}: {folder}: {e.strerror or e}") from e


def _eval_plots(runs: dict[str, Any], qrels: Any, measure: Any, baseline: str | None,
                alphas: Sequence[float], folder: Path) -> list[Path]:
    """The paper plots for run files: GeoRisk vs α, and against the baseline risk–gain, helped–hurt, T_J."""
    import re

    import pandas as pd

    from ..core._trisk import trisk
    from ..core._urisk import risk_reward
    from ..measures._topics import topic_matrix
    from ..reporting._plots import plot_georisk_alpha, plot_helped_hurt, plot_risk_gain, plot_topic_tj

    qids = sorted(set(qrels["qid"]), key=lambda q: (len(q), q))
    matrix = topic_matrix(runs, qrels, measure, qids)
    written: list[Path] = []

    def safe(name: str) -> str:
        return re.sub(r"[^A-Za-z0-9._-]+", "_", name)

    try:
        if len(runs) >= 2:
            grid = sorted({*alphas, *(float(a) for a in range(0, int(max(10, *alphas)) + 1))})
            plot_georisk_alpha(matrix, grid, path=folder / "georisk_alpha.png",
                               title=f"GeoRisk of {len(runs)} runs on {measure}")
            written.append(folder / "georisk_alpha.png")
        if baseline is not None:
            base = matrix.loc[baseline]
            others = [n for n in matrix.index if n != baseline]
            rows = [{"name": n, **risk_reward(matrix.loc[n], base).as_dict()} for n in others]
            if rows:
                plot_risk_gain(pd.DataFrame(rows), label=None, path=folder / "risk_gain.png",
                               title=f"Risk–gain of each run against {baseline} on {measure}")
                written.append(folder / "risk_gain.png")
            for n in others:
                plot_helped_hurt(matrix.loc[n], base, measure=str(measure),
                                 path=folder / f"helped_hurt_{safe(n)}.png", title=f"{n} vs. {baseline}")
                tj = {f"α={a:g}": trisk(matrix.loc[n], base, alpha=a).t_j for a in alphas}
                plot_topic_tj(tj, path=folder / f"topic_tj_{safe(n)}.png",
                              title=f"T_J per topic: {n} vs. {baseline} on {measure}")
                written += [folder / f"helped_hurt_{safe(n)}.png", folder / f"topic_tj_{safe(n)}.png"]
    except OSError as e:  # write_table / the plots name the path in strerror
        raise CLIError(e.strerror or str(e)) from e
    return written


def _demo(args: argparse.Namespace) -> int:
    from ._demo import DemoError, run_demo

    try:
        result = run_demo(args.dataset, args.out, quick=args.quick, alphas=args.alpha, folds=args.folds,
                          seed=args.seed, objective=args.objective)
    except DemoError as e:
        raise CLIError(str(e)) from e
    print(f"report: {result.report}")
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``pyterrier-risk`` command (also ``python -m pyterrier_risk``).

    Args:
        argv: the arguments (default ``sys.argv[1:]``).

    Returns:
        The exit status: 0 on success, 2 on a usage or input error (message on stderr, no traceback).
    """
    parser = _parser()
    args = parser.parse_args(argv)
    try:
        if args.command == "demo":
            return _demo(args)
        return _evaluate(args)
    except CLIError as e:
        print(f"{_PROG}: error: {e}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:  # pragma: no cover - interactive
        print(f"{_PROG}: interrupted", file=sys.stderr)
        return 130
