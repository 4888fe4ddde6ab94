"""The ``pyterrier-risk`` command: ``demo`` (a complete study) and ``eval`` (risk evaluation of run files).

``pyterrier-risk eval`` evaluates TREC run files against qrels (a file or an ``irds:`` id) and prints
one row per run (named by its file name without extension) and one column per measure, named by the
measure's ``repr``: the base measures, URisk/TRisk against ``--baseline`` for every ``--alpha``,
URisk/T*Risk against the ``--baselines`` aggregates, and ZRisk/GeoRisk over all the runs. Bad input
(an unreadable or malformed run, topics absent from the qrels, a document listed twice, an unknown
``irds:`` id or measure, a measure parameter an evaluator cannot take, an α that is not a finite
number >= 0, the same run file twice, a run named like a ``--baselines`` aggregate, an output that
cannot be written) ends with a one-line error naming the file/line/id and exit status 2; argparse's
usage errors are one line too. docs/cli.md lists the policies.
"""

from __future__ import annotations

import argparse
import math
import os
import re
import subprocess
import sys
import warnings
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any, NoReturn

from ..data._trec import ensure_writable_dir, read_run, run_name

EXIT_USAGE = 2
_PROG = "pyterrier-risk"


#: the largest rank cutoff accepted (trec_eval and pytrec_eval keep cutoffs in C ints)
MAX_CUTOFF = 2**31 - 1
#: the most decimals ``--round`` accepts
MAX_DECIMALS = 20
#: gdeval.pl (ERR, nDCG with exp-log2 gains) stops at labels above this (its $MAX_JUDGMENT)
GDEVAL_MAX_LABEL = 4


class CLIError(Exception):
    """A user error: printed as ``pyterrier-risk: error: <message>``, exit status 2."""


def _one_line(text: str) -> str:
    """``text`` with its line breaks (an evaluator's multi-line message, say) folded into ``; ``."""
    return re.sub(r"\s*[\r\n]+\s*", "; ", text.strip())


class _Parser(argparse.ArgumentParser):
    """argparse with a one-line usage error: ``pyterrier-risk: error: ... (see '... --help')``, exit 2."""

    def error(self, message: str) -> NoReturn:
        """Print the one-line error and exit with status 2."""
        self.exit(EXIT_USAGE, f"{_PROG}: error: {_one_line(message)} (see '{self.prog} --help')\n")


def _check_alphas(alphas: Sequence[float]) -> list[float]:
    """The distinct ``--alpha`` values, each a finite number ``>= 0`` (``nan``, ``inf``, ``-1``: an error)."""
    bad = [a for a in alphas if not (math.isfinite(a) and a >= 0)]
    if bad:
        raise CLIError(f"--alpha values must be finite numbers >= 0, got {' '.join(f'{a:g}' for a in bad)}")
    return list(dict.fromkeys(float(a) for a in alphas))


def _check_decimals(decimals: int) -> int:
    """The ``--round`` value: an integer from 0 to :data:`MAX_DECIMALS`."""
    if not 0 <= decimals <= MAX_DECIMALS:
        raise CLIError(f"--round must be an integer from 0 to {MAX_DECIMALS}, got {decimals}")
    return decimals


def _parser() -> argparse.ArgumentParser:
    from .. import __version__
    from ._demo import DEFAULT_ALPHAS, DEFAULT_DATASET

    parser = _Parser(
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
    ev.add_argument("runs", nargs="+", metavar="RUN",
                    help="TREC run files (plain, gzip, bzip2 or xz, recognised by content)")
    ev.add_argument("--qrels", required=True, help="qrels file or ir_datasets id (irds:...)")
    ev.add_argument("--measure", action="append", default=None, metavar="MEASURE",
                    help="base measure, e.g. nDCG@20, ERR@20, AP, "
                         "\"nDCG(gains={-2:0,0:0,1:1,2:3,3:7,4:15})@20\", or a risk measure evaluated "
                         "as given, e.g. \"TRisk(AP,alpha=5,baseline='median')\" "
                         "(repeatable; default nDCG@20)")
    ev.add_argument("--alpha", nargs="+", type=float, default=[0.0], metavar="A",
                    help="risk-sensitivity values α, finite numbers >= 0 (default 0)")
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
    ev.add_argument("--round", type=int, default=4,
                    help=f"decimals in markdown/latex output, 0 to {MAX_DECIMALS} (default 4)")
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


def _file_key(path: str) -> tuple[int, int] | str:
    """What identifies a file: (device, inode) when it exists (links and ``./a`` match), else its path."""
    try:
        st = os.stat(path)
    except OSError:
        return os.path.abspath(path)
    return (st.st_dev, st.st_ino)


def _run_paths(runs: Sequence[str], baseline: str | None) -> tuple[list[str], str | None]:
    """The run files to read and the baseline's run name (``--baseline``: a RUN's name or a file).

    A baseline file that is also one of the RUNs is read once. The same file given twice among the
    RUNs is an error (it would be evaluated twice, or silently once).
    """
    paths = list(runs)
    first: dict[tuple[int, int] | str, str] = {}
    for path in paths:
        key = _file_key(path)
        if key in first:
            raise CLIError(f"the same run file is given twice: {first[key]} and {path}")
        first[key] = path
    if baseline is None:
        return paths, None
    names = {run_name(p) for p in paths}
    if baseline in names:
        return paths, baseline
    if not Path(baseline).exists():
        raise CLIError(f"baseline run not found: {baseline} (give a run file or the name of "
                       f"one of the RUNs: {', '.join(sorted(names))})")
    same = first.get(_file_key(baseline))
    if same is not None:
        return paths, run_name(same)
    return [baseline, *paths], run_name(baseline)


def _load_run(path: str, name: str, topics: set[str], drop_extra: bool) -> Any:
    """One run file, with the topic policy applied (extra topics: an error, or dropped with a note)."""
    try:
        run = read_run(path, name=name)
    except (ValueError, FileNotFoundError, IsADirectoryError, PermissionError) as e:
        raise CLIError(str(e)) from e
    extra = sorted(set(run["qid"]) - topics)
    if extra:
        shown = ", ".join(repr(q) for q in extra[:5]) + (", ..." if len(extra) > 5 else "")
        if not drop_extra:
            raise CLIError(f"{path}: results for {len(extra)} topic(s) absent from the qrels ({shown}); "
                           "wrong qrels? (--drop-extra-topics ignores them)")
        if len(extra) == run["qid"].nunique():
            raise CLIError(f"{path}: none of its {len(extra)} topic(s) is in the qrels ({shown}); "
                           "--drop-extra-topics would leave it empty: wrong qrels?")
        print(f"{_PROG}: note: {path}: ignoring results for {len(extra)} topic(s) absent from the qrels",
              file=sys.stderr)
        run = run[run["qid"].isin(topics)].reset_index(drop=True)
    missing = len(topics - set(run["qid"]))
    if missing:  # the topic policy: such topics score 0, as with trec_eval -c / gdeval -c
        print(f"{_PROG}: note: {path} has no results for {missing} of the {len(topics)} qrels topics; "
              "they score 0", file=sys.stderr)
    return run


def _load_runs(paths: Sequence[str], qrels: Any, drop_extra: bool) -> dict[str, Any]:
    topics = set(qrels["qid"])
    runs: dict[str, Any] = {}
    origin: dict[str, str] = {}
    for path in paths:
        name = run_name(path)
        if name in runs:
            raise CLIError(f"two runs are named {name!r}: {origin[name]} and {path}; rename one")
        runs[name] = _load_run(path, name, topics, drop_extra)
        origin[name] = path
    return runs


def _check_aggregate_names(paths: dict[str, str], aggregates: set[str]) -> None:
    """A run named ``mean``/``median``/``max`` would be taken for that aggregate baseline: refuse it.

    Args:
        paths: run name -> run file.
        aggregates: the aggregate baselines asked for.
    """
    for name in sorted(aggregates & set(paths)):
        raise CLIError(f"run {paths[name]} is named {name!r}, like the aggregate baseline {name!r} (the "
                       f"per-topic {name} of all runs) that is asked for; rename the run file")


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
        problem = next(_parameter_problems(measure), None)
        if problem is not None:  # before any evaluator sees it: pytrec_eval aborts the process on @0
            raise CLIError(f"invalid measure {text!r}: {problem}")
        (given_risk if isinstance(measure, RiskMeasure) else bases).append(measure)
    return bases, given_risk


def _numbers(value: Any) -> Iterator[float]:
    """The numbers in a measure parameter (``gains={0: 0, 1: 1}`` included), bools left out."""
    if isinstance(value, bool):
        return
    if isinstance(value, (int, float)):
        yield float(value) if abs(value) < 2**1023 else math.inf
    elif isinstance(value, dict):
        for k, v in value.items():
            yield from _numbers(k)
            yield from _numbers(v)
    elif isinstance(value, (list, tuple, set, frozenset)):
        for v in value:
            yield from _numbers(v)


def _parameter_problems(measure: Any) -> Iterator[str]:
    """What no evaluator can take in ``measure``'s parameters, nested base measures included.

    ir_measures' ``validate_params`` checks types and choices, not ranges: ``nDCG@0`` passes it,
    then aborts the process inside pytrec_eval (an assertion in C), ``Judged@0`` divides by zero,
    ``ERR@0`` kills gdeval.pl, and ``P@99999999999999999999`` overflows a C int.
    """
    from ir_measures.measures import Measure

    for key, value in measure.params.items():
        if isinstance(value, Measure):
            yield from _parameter_problems(value)
            continue
        if any(not math.isfinite(v) for v in _numbers(value)):
            yield f"{measure!r}: {key}={value!r} is not a finite number"
        elif key == "cutoff" and isinstance(value, int) and not 1 <= value <= MAX_CUTOFF:
            yield f"{measure!r}: the rank cutoff must be an integer from 1 to {MAX_CUTOFF}, got {value}"
        elif key == "recall" and isinstance(value, (int, float)) and not 0 <= value <= 1:
            yield f"{measure!r}: the recall level must be in [0, 1], got {value}"


def _check_topic_labels(qrels: Any) -> None:
    """Refuse a qrels topic whose labels are all below -1: trec_eval (pytrec_eval) crashes on it.

    trec_eval sizes its per-topic table of relevance levels by the topic's largest label (+1); with
    only ``-2`` (the Web track's spam label) or lower that size is negative, and pytrec_eval reads
    out of bounds: a segmentation fault once another topic was evaluated before it.
    """
    top = qrels.groupby("qid", sort=False)["label"].max()
    low = top[top < -1]
    if len(low):
        raise CLIError(f"qrels topic {low.index[0]!r} has only labels below -1 (the largest is "
                       f"{int(low.iloc[0])}; {len(low)} such topic(s)): trec_eval/pytrec_eval crashes on "
                       "such a topic; judge one of its documents 0 (non-relevant) or leave the topic out")


def _evaluated_bases(measures: Sequence[Any]) -> Iterator[Any]:
    """The measures an evaluator computes: the base measures, and the bases of the risk measures."""
    from ..measures._risk import RiskMeasure

    for m in measures:
        yield m.base if isinstance(m, RiskMeasure) else m


def _check_gdeval(measures: Sequence[Any], qrels: Any) -> None:
    """gdeval.pl (ERR, nDCG with ``dcg='exp-log2'``) takes numeric topic ids and labels <= 4 only.

    Outside that it dies with a Perl error, or merges topics whose ids are the same number
    (``07`` and ``7``); refuse such qrels first, naming the measure.
    """
    served = [m for m in _evaluated_bases(measures)
              if m.NAME == "ERR" or (m.NAME == "nDCG" and m.params.get("dcg") == "exp-log2")]
    if not served:
        return
    who = f"{served[0]!r} is computed by gdeval.pl, which needs"
    numbered: dict[int, str] = {}
    for qid in dict.fromkeys(qrels["qid"]):
        if not re.fullmatch("[0-9]+", qid):
            raise CLIError(f"{who} numeric topic ids; the qrels have topic {qid!r}")
        other = numbered.setdefault(int(qid), qid)
        if other != qid:
            raise CLIError(f"{who} topic ids that are distinct numbers; the qrels have {other!r} and {qid!r}")
    top = int(qrels["label"].max())
    if top > GDEVAL_MAX_LABEL:
        raise CLIError(f"{who} relevance labels <= {GDEVAL_MAX_LABEL}; the qrels have label {top}")


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
    alphas = _check_alphas(args.alpha)
    _check_decimals(args.round)
    if args.output is not None:
        _check_writable(args.output.parent if str(args.output.parent) else Path("."), f"output {args.output}")
    if args.plots is not None:
        _check_writable(args.plots, "--plots folder")
    bases, given_risk = _parse_measures(args.measure)
    paths, baseline_name = _run_paths(args.runs, args.baseline)
    _check_aggregate_names({run_name(p): p for p in paths}, _aggregates_used(args.baselines, given_risk))
    qrels = _load_qrels(args.qrels)
    _check_topic_labels(qrels)
    _check_gdeval([*bases, *given_risk], qrels)
    runs = _load_runs(paths, qrels, args.drop_extra_topics)
    if baseline_name is not None:  # a given URisk/TRisk without its own baseline uses --baseline
        given_risk = [m(baseline=baseline_name) if m.USES_BASELINE and m.baseline is None else m
                      for m in given_risk]
    measures = [*bases, *given_risk, *_risk_measures(bases, alphas, baseline_name, args.baselines, len(runs),
                                                     not args.no_zrisk)]
    table = _experiment(runs, qrels, measures, bool(args.perquery))
    _check_finite(table, measures, bool(args.perquery))
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


def _aggregates_used(aggregates: Sequence[str], given_risk: Sequence[Any]) -> set[str]:
    """The aggregate baselines (``mean``, ``median``, ``max``) asked for, by ``--baselines`` or a measure."""
    from ..measures._risk import AGGREGATE_BASELINES

    return set(aggregates) | {m.baseline for m in given_risk if m.baseline in AGGREGATE_BASELINES}


def _experiment(runs: dict[str, Any], qrels: Any, measures: list[Any], perquery: bool) -> Any:
    """``pyterrier_risk.Experiment`` over the runs; an evaluator's failure is a one-line error."""
    import pandas as pd

    from ..experiment._experiment import Experiment

    topics = pd.DataFrame({"qid": sorted(set(qrels["qid"]))}).assign(query="")
    with warnings.catch_warnings():
        # the topic policy (missing topics score 0) is documented; do not drown the table in warnings
        warnings.simplefilter("ignore")
        try:
            return Experiment(dict(runs), topics, qrels, measures, perquery=perquery, verbose=False)
        except (ValueError, TypeError, KeyError) as e:
            raise CLIError(str(e)) from e
        except subprocess.CalledProcessError as e:  # gdeval.pl (its own message is on stderr above)
            raise CLIError(f"an evaluator failed: {Path(str(e.cmd[0])).name} exited with status "
                           f"{e.returncode}") from e


def _check_finite(table: Any, measures: Sequence[Any], perquery: bool) -> None:
    """Refuse a URisk/ZRisk value (or TRisk's per-topic x) that overflowed float64 at a huge α.

    ``(1 + α) · loss`` exceeds 1.8e308 only for α near the float64 limit; the value would print as
    ``-inf``. TRisk itself never overflows (it is computed in a scaled form); its ``±inf`` when the
    standard error is 0 follows ``scipy.stats.ttest_rel`` and is documented.
    """
    import numpy as np

    names = {repr(m) for m in measures if m.NAME in ("URisk", "ZRisk")}
    names |= {f"{m!r} x" for m in measures if m.NAME == "TRisk"}
    if perquery:
        rows = table[table["measure"].astype(str).isin(names)]
        bad = list(rows.loc[np.isinf(rows["value"].to_numpy(dtype=float)), "measure"].astype(str))
    else:
        bad = [c for c in table.columns if c in names and np.isinf(table[c].to_numpy(dtype=float)).any()]
    if bad:
        raise CLIError(f"{bad[0]} overflows float64 (its magnitude exceeds 1.8e308 at this α); "
                       "use a smaller --alpha")


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
    """The paper plots for run files: GeoRisk vs α, and against the baseline risk–gain, helped–hurt, T_J.

    GeoRisk is drawn over :func:`~pyterrier_risk.reporting._plots.alpha_grid` (21 even steps to the
    largest α, plus each α asked for), so the cost does not grow with the size of α.
    """
    import numpy as np
    import pandas as pd

    from ..core._trisk import trisk
    from ..core._urisk import risk_reward
    from ..measures._topics import topic_matrix
    from ..reporting._plots import (
        alpha_grid,
        plot_georisk_alpha,
        plot_helped_hurt,
        plot_risk_gain,
        plot_topic_tj,
    )

    qids = sorted(set(qrels["qid"]), key=lambda q: (len(q), q))
    matrix = topic_matrix(runs, qrels, measure, qids)
    written: list[Path] = []

    def safe(name: str) -> str:
        return re.sub(r"[^A-Za-z0-9._-]+", "_", name)

    try:
        if len(runs) >= 2:
            with np.errstate(over="ignore"):  # (1 + α) · z → -inf at α near 1e308: GeoRisk is then 0
                plot_georisk_alpha(matrix, alpha_grid(alphas), path=folder / "georisk_alpha.png",
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

    if args.alpha is not None:
        _check_alphas(args.alpha)
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
        print(f"{_PROG}: error: {_one_line(str(e))}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:  # pragma: no cover - interactive
        print(f"{_PROG}: interrupted", file=sys.stderr)
        return 130
