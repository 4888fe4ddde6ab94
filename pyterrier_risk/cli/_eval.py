"""``pyterrier-risk eval``: risk-sensitive evaluation of run files or evaluation files.

One row per run (named by its file name without extension, or by the run name in an evaluation
file) and one column per measure, named by the measure's ``repr``: the base measures, URisk/TRisk
against ``--baseline`` for every ``--alpha``, URisk/T*Risk against the ``--baselines`` aggregates,
and ZRisk/GeoRisk over all the runs. The numbers come from the same code as
:func:`pyterrier_risk.Experiment` (:mod:`pyterrier_risk.experiment._riskeval` and ``._render``):
the command only builds the runs × topics matrices (:mod:`._inputs`). Bad input ends with a
one-line error (:class:`~._common.CLIError`); docs/cli.md lists the policies.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from ..data import ensure_writable_dir
from ._args import check_alphas, check_decimals, expand_runs
from ._common import PROG, CLIError, note
from ._inputs import Inputs, from_evalfiles, from_runs

__all__ = ["run_eval"]

_STYLE_FLAGS = ("layout", "short_labels", "bold", "significance")


@dataclass(frozen=True)
class Settings:
    """The checked options of one ``eval`` call.

    Attributes:
        alphas: the distinct α values.
        correction: the canonical multiple-testing method, or None.
        risk_test: how TRisk's p-values (and the per-topic ones) are computed.
    """

    alphas: list[float]
    correction: str | None
    risk_test: Any


def _correction(method: str | None) -> str | None:
    """The canonical name of a ``--correction`` method (statsmodels' names and aliases)."""
    from ..core import CORRECTION_METHODS

    if method is None:
        return None
    for name, aliases in CORRECTION_METHODS.items():
        if method.lower() in aliases:
            return name
    raise CLIError(f"unknown --correction {method!r}; use one of {', '.join(CORRECTION_METHODS)}")


def _settings(args: Any) -> Settings:
    """Every option that can be checked before anything is read."""
    from ..core import MAX_RESAMPLES
    from ..experiment import RiskTest

    alphas = check_alphas(args.alpha)
    check_decimals(args.round)
    if not 1 <= args.resamples <= MAX_RESAMPLES or args.seed < 0:
        raise CLIError(f"--resamples must be in [1, {MAX_RESAMPLES:_}] and --seed >= 0, "
                       f"got {args.resamples} and {args.seed}")
    if not 0 < args.level < 1:
        raise CLIError(f"--level must be in (0, 1), got {args.level:g}")
    styled = any(getattr(args, f) not in (False, "wide", "auto") for f in _STYLE_FLAGS)
    if (args.perquery or args.all_pairs) and styled:
        raise CLIError("--layout, --short-labels, --bold and --significance shape the table of averages; "
                       "leave them out with --perquery or --all-pairs")
    if args.perquery and args.all_pairs:
        raise CLIError("--perquery and --all-pairs each replace the table of averages: give one of them")
    check_output_paths(args.output, args.plots)
    correction = _correction(args.correction)
    risk_test = RiskTest(args.test, args.resamples, args.seed, args.null, topic_p_values=bool(args.perquery),
                         topic_correction=correction, topic_sd=args.sd)
    return Settings(alphas, correction, risk_test)


def _check_writable(folder: Path, what: str) -> None:
    """``folder`` can be created and written in, or a :class:`CLIError` ``cannot write <what>: <why>``."""
    try:
        ensure_writable_dir(folder)
    except OSError as e:
        raise CLIError(f"cannot write {what}: {e.strerror or e}") from e


def check_output_paths(output: Path | None, plots: Path | None = None, *, folder: Path | None = None) -> None:
    """The folders a command writes to are writable, checked before anything is read.

    Args:
        output: the ``--output`` file (its folder is checked).
        plots: the ``--plots`` folder.
        folder: an output folder (``demo --out``).
    """
    if output is not None:
        _check_writable(output.parent, f"the output {output}: {output.parent}")
    if plots is not None:
        _check_writable(plots, f"the --plots folder: {plots}")
    if folder is not None:
        _check_writable(folder, f"to the output folder {folder}")


# -- measures ----------------------------------------------------------------------------------------
def _parse_measures(texts: Sequence[str] | None) -> tuple[list[Any], list[Any]]:
    """The ``--measure`` values split into base measures and risk measures given in full."""
    import os

    from ..measures import RiskMeasure, parameter_problems, parse_measure

    bases: list[Any] = []
    given_risk: list[Any] = []
    for text in texts or ["nDCG@20"]:
        try:
            measure = parse_measure(text)
            if isinstance(measure, RiskMeasure):
                measure.base  # noqa: B018 - raises a clear error when the base measure is missing
            else:
                measure.validate_params()  # ir_measures' own checks (P@5.0: the cutoff must be an int)
        except (ValueError, NameError, TypeError, KeyError, AssertionError) as e:
            hint = "" if os.path.exists(text) else "; a run file of that name does not exist either"
            raise CLIError(f"unknown or malformed measure {text!r}: {e}{hint}") from e
        problem = next(parameter_problems(measure), None)
        if problem is not None:  # before any evaluator sees it: pytrec_eval aborts the process on @0
            raise CLIError(f"invalid measure {text!r}: {problem}")
        (given_risk if isinstance(measure, RiskMeasure) else bases).append(measure)
    return bases, given_risk


def _risk_measures(bases: Sequence[Any], alphas: Sequence[float], names: list[str], baseline: str | None,
                   aggregates: Sequence[str], zrisk: bool) -> list[Any]:
    """The risk measures the options ask for, base by base and α by α (named as Experiment names them)."""
    from ..experiment import named_measure
    from ..measures import GeoRisk, TRisk, URisk, ZRisk

    row = None if baseline is None else names.index(baseline)
    out: list[Any] = []
    for base in bases:
        for a in alphas:
            if baseline is not None:
                out += [named_measure(m(base, alpha=a), names, row) for m in (URisk, TRisk)]
            for kind in aggregates:
                out += [URisk(base, alpha=a, baseline=kind), TRisk(base, alpha=a, baseline=kind)]
        if zrisk and len(names) >= 2:
            out += [m(base, alpha=a) for a in alphas for m in (ZRisk, GeoRisk)]
    return out


def _aggregates_used(aggregates: Sequence[str], given_risk: Sequence[Any]) -> set[str]:
    """The aggregate baselines (``mean``, ``median``, ``max``) asked for, by ``--baselines`` or a measure."""
    from ..measures import AGGREGATE_BASELINES

    return set(aggregates) | {m.baseline for m in given_risk if m.baseline in AGGREGATE_BASELINES}


def _unique(items: Sequence[Any]) -> list[Any]:
    return list(dict.fromkeys(items))


def _with_baseline(given_risk: Sequence[Any], names: list[str], baseline: str | None) -> list[Any]:
    """A given URisk/TRisk without its own baseline takes ``--baseline`` (an error without one).

    It is named with it by the naming rule of Python's Experiment
    (:func:`~pyterrier_risk.experiment._riskeval.named_measure`).
    """
    from ..experiment import named_measure

    out = []
    for m in given_risk:
        if m.USES_BASELINE and m.baseline is None and baseline is None:
            raise CLIError(f"{m!r} needs a baseline: give --baseline, or baseline=... in the measure")
        out.append(named_measure(m, names, None if baseline is None else names.index(baseline)))
    return out


# -- the tables --------------------------------------------------------------------------------------
def _base_test(args: Any) -> tuple[Any, str]:
    """The paired test of the base measures against ``--baseline`` (``--significance``), and its name."""
    from scipy import stats

    from ..core import randomization_test

    if args.test == "t":
        return stats.ttest_rel, "paired t-test"

    def flips(a: Any, b: Any) -> tuple[float, float]:
        result = randomization_test(a, b, n_resamples=args.resamples, seed=args.seed, null=args.null)
        return result.statistic, result.p_value

    return flips, f"paired randomization test ({args.resamples} sign flips, seed {args.seed})"


def _results(inputs: Inputs, bases: list[Any], risk: list[Any], args: Any, settings: Settings) -> Any:
    """The table of averages (or ``--perquery``'s per-topic table) through Experiment's renderer."""
    import numpy as np

    from ..experiment import TableOptions, render, tables_from_matrices

    try:
        # a value beyond float64 (ZRisk near α = 1e308) is refused by name in _check_finite, not
        # announced by numpy's warning with a source line
        with np.errstate(over="ignore"):
            tables = tables_from_matrices(inputs.matrices, [repr(b) for b in bases], risk, None,
                                          settings.risk_test, inputs.qrels_irm)
    except ValueError as e:
        raise CLIError(str(e)) from e
    if args.perquery:
        _check_per_topic(tables.risk, bases)
    tested = args.significance and inputs.baseline is not None and bool(bases)
    row = inputs.names.index(inputs.baseline) if tested and inputs.baseline is not None else None
    test, _ = _base_test(args)
    options = TableOptions(baseline=row, test=test, correction=settings.correction,
                           correction_alpha=args.level)
    table = render(tables, options, bool(args.perquery), True)
    if args.perquery:
        return table
    # the win/loss counts and reject flags of pt.Experiment's layout add width, not information here
    dropped = [c for c in table.columns if str(c).endswith((" +", " -", " reject"))]
    return table.drop(columns=dropped)


def _check_per_topic(results: Sequence[Any], bases: Sequence[Any]) -> None:
    """``--perquery`` prints per topic what has a per-topic value: say what it leaves out, and why.

    BreakEven (Gain/Risk, a ratio of sums over all topics) has none: a note names it and lists what
    is printed, or, when nothing is left to print, an error says so.
    """
    without = [repr(r.measure) for r in results if not r.per_topic]
    if not without:
        return
    shown = [*map(repr, bases), *(repr(r.measure) for r in results if r.per_topic)]
    why = (f"{', '.join(without)} {'has' if len(without) == 1 else 'have'} no per-topic value (Gain / Risk "
           "is a ratio of sums over all topics)")
    if not shown:
        raise CLIError(f"{why}: --perquery has nothing to print; add a per-topic measure (--measure AP) or "
                       "leave out --perquery")
    note(f"{why}: left out of --perquery, which prints per topic {', '.join(shown)}")


def _pair_settings(bases: Sequence[Any], given_risk: Sequence[Any], alphas: Sequence[float]
                   ) -> list[tuple[Any, float]]:
    """The (base measure, α) of each ``--all-pairs`` block.

    The base measures at every ``--alpha``, and each risk measure given in ``--measure`` at its own α
    (its baseline is not used: in a pair, the second run is the baseline of the first).
    """
    settings = [(base, float(a)) for base in bases for a in alphas]
    settings += [(m.base, m.alpha) for m in given_risk]
    ignored = [m for m in given_risk if m.USES_BASELINE and m.baseline is not None]
    if ignored:
        note(f"--all-pairs compares every pair of runs, each against the other: the baseline of "
             f"{ignored[0]!r} is not used, only its base measure and α")
    return _unique(settings)


def _pairs(inputs: Inputs, settings_: list[tuple[Any, float]], args: Any, settings: Settings) -> Any:
    """``--all-pairs``: :func:`pyterrier_risk.core.compare_systems` per base measure and α, one table."""
    import pandas as pd

    from ..core import compare_systems

    if args.pairs_test == "tukey" and any(a != 0 for _, a in settings_):
        raise CLIError("--pairs-test tukey compares mean effectiveness: it takes --alpha 0 only (and risk "
                       "measures at alpha=0)")
    frames = []
    for base, alpha in settings_:
        try:
            pairs = compare_systems(inputs.matrices[repr(base)], test=args.pairs_test, alpha=alpha,
                                    correction=settings.correction, level=args.level,
                                    n_resamples=args.resamples, seed=args.seed, null=args.null)
        except ValueError as e:
            raise CLIError(str(e)) from e
        frames.append(pairs.assign(measure=repr(base), alpha=alpha))
    table = pd.concat(frames, ignore_index=True)
    return table[["measure", "alpha", *(c for c in table.columns if c not in ("measure", "alpha"))]]


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


def _auto_layout(table: Any, args: Any, options: dict[str, Any]) -> tuple[str, bool]:
    """``--layout auto``: the first of wide, and long, each without then with short labels, that fits.

    Fits: no wider than ``reporting.MAX_WIDTH`` characters; when none does, the last (long, short labels).
    The width is that of the markdown table (LaTeX columns follow it); CSV, for machines, stays wide.
    A layout other than the plain wide one is named in a note, with the option that gives the wide one.
    """
    from ..reporting import MAX_WIDTH, markdown_width, table_format, write_table

    if args.layout != "auto":
        return args.layout, args.short_labels
    if args.perquery or args.all_pairs or table_format(args.output, args.format) == "csv":
        return "wide", args.short_labels
    candidates = [("wide", args.short_labels), ("wide", True), ("long", args.short_labels), ("long", True)]
    widths = []
    for layout, short in candidates:
        text = write_table(table, None, "markdown", **{**options, "layout": layout, "short_labels": short})
        widths.append(markdown_width(text))
        if widths[-1] <= MAX_WIDTH:
            break
    chosen = candidates[len(widths) - 1] if widths[-1] <= MAX_WIDTH else candidates[-1]
    if chosen != candidates[0]:
        shown = " and ".join(["the long layout"] * (chosen[0] == "long") + ["short labels"] * chosen[1])
        note(f"the wide table is {widths[0]} characters wide (more than {MAX_WIDTH}): printed with {shown}; "
             "--layout wide prints it wide")
    return chosen


def _render(table: Any, args: Any, settings: Settings) -> str:
    """The table as text, with the paper options passed on to ``write_table``."""
    from ..reporting import correction_name, table_format, write_table

    _, base_test = _base_test(args)
    test = f"{base_test}; risk measures: {settings.risk_test.describe()}"
    options = {"floatfmt": f".{args.round}f", "caption": args.caption, "label": args.label, "bold": args.bold,
               "significance": args.significance, "level": args.level, "test": test,
               "correction": correction_name(settings.correction)}
    try:
        layout, short = _auto_layout(table, args, options)
        return write_table(table, None, format=table_format(args.output, args.format), layout=layout,
                           short_labels=short, **options)
    except ValueError as e:
        raise CLIError(str(e)) from e


def save_output(text: str, output: Path | None) -> None:
    """``text`` on stdout, or as the ``--output`` file, replaced whole (``data.atomic_write``).

    An error, a full disk or Ctrl-C while writing leaves the previous file and no temporary file.
    """
    from ..data import atomic_write

    if output is None:
        sys.stdout.write(text)
        return
    try:
        with atomic_write(output) as f:
            f.write(text)
    except OSError as e:
        raise CLIError(f"cannot write table to {output}: {e.strerror or e}") from e


def _baseline_first(inputs: Inputs) -> Inputs:
    """The inputs with the ``--baseline`` run as the first row (also when the runs come from a folder)."""
    if inputs.baseline is None or inputs.names[0] == inputs.baseline:
        return inputs
    names = [inputs.baseline, *(n for n in inputs.names if n != inputs.baseline)]
    matrices = {measure: frame.loc[names] for measure, frame in inputs.matrices.items()}
    return replace(inputs, names=names, matrices=matrices)


# -- the command -------------------------------------------------------------------------------------
def run_eval(args: Any) -> int:
    """Run ``pyterrier-risk eval`` with parsed ``args``; a user error raises :class:`CLIError`."""
    settings = _settings(args)
    bases, given_risk = _parse_measures(args.measure)
    aggregates = _aggregates_used(args.baselines or [], given_risk)
    evaluated = _unique([*bases, *(m.base for m in given_risk)])
    if args.evalfile:
        inputs = from_evalfiles(args, evaluated, aggregates)
    else:
        inputs = from_runs(args, evaluated, [*bases, *given_risk], aggregates,
                           expand_runs(args.runs, args.runs_from))
    inputs = _baseline_first(inputs)
    if not args.all_pairs:  # in a pair, the second run is the baseline of the first
        given_risk = _with_baseline(given_risk, inputs.names, inputs.baseline)
    asked = _risk_measures(bases, settings.alphas, inputs.names, inputs.baseline, args.baselines or [],
                           not args.no_zrisk)
    risk = _unique([*given_risk, *asked])
    if args.all_pairs:
        alphas = settings.alphas if bases or not given_risk else []
        table = _pairs(inputs, _pair_settings(bases, given_risk, alphas), args, settings)
    else:
        table = _results(inputs, bases, risk, args, settings)
        _check_finite(table, risk, bool(args.perquery))
    text = _render(table, args, settings)
    if args.plots is not None:
        measures = _unique([*bases, *(m.base for m in given_risk)])
        written = [path for m in measures for path in _eval_plots(inputs, m, settings.alphas, args.plots)]
        print(f"{PROG}: wrote {len(written)} plots for {len(measures)} measure(s) to {args.plots}",
              file=sys.stderr)
    save_output(text, args.output)  # last: an interrupt before it leaves no --output file
    return 0


def _file_part(name: str) -> str:
    """A run or measure name as part of a file name: runs of other characters become ``_``."""
    return re.sub(r"[^A-Za-z0-9.@-]+", "_", name).strip("_")


def _eval_plots(inputs: Inputs, measure: Any, alphas: Sequence[float], folder: Path) -> list[Path]:
    """The paper plots of one base measure, each file name ending with it (``georisk_alpha_AP.png``).

    GeoRisk vs α and, against the baseline, risk–gain, helped–hurt and T_J per run, drawn by
    :func:`pyterrier_risk.study.plot_against_baseline` (as the demo's report draws them).

    GeoRisk is drawn over ``reporting.alpha_grid`` (21 even steps to the largest α, plus each α asked
    for), so the cost does not grow with the size of α.
    """
    from ..reporting import alpha_grid
    from ..study import plot_against_baseline

    matrix, baseline = inputs.matrices[repr(measure)], inputs.baseline
    others = [n for n in matrix.index if n != baseline]
    try:
        written = plot_against_baseline(matrix, baseline, folder, measure=str(measure), alphas=alphas,
                                        groups={f"_{_file_part(n)}": n for n in others},
                                        georisk_alphas=alpha_grid(alphas),
                                        suffix=f"_{_file_part(repr(measure))}")
    except OSError as e:  # the plots name the path in strerror
        raise CLIError(e.strerror or str(e)) from e
    return list(written.values())
