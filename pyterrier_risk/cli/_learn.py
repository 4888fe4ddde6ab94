"""``pyterrier-risk learn``: a risk-sensitive learning study on LETOR folds (``ptr.risk_study``).

Every objective at every α and seed on every fold, against plain LambdaMART of the same seed; prints the
papers' learner tables (Dinçer et al. 2016 Table 7, convergence and Kendall distance per α, Wang et al.
2012) in ``eval``'s conventions (``--format``, ``--round``) and, with ``--out``, writes the per-query
values, one TREC run per model, the qrels, the tables and the risk–gain plot. docs/learn.md shows it.
"""

from __future__ import annotations

import argparse
import contextlib
import sys
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from ._args import check_decimals, integer, number
from ._common import CLIError, note

__all__ = ["FLAGS", "add_learn_arguments", "run_learn"]

#: the study's settings (``LearnSettings`` fields) and the ``args`` attribute each is parsed into; an
#: option not given (None) is left out, so that its default is ``LearnSettings``'s (the one source)
_SETTINGS = {
    "data": "data", "baseline": "baseline", "baselines": "baselines", "objectives": "objectives",
    "imports": "imports", "alphas": "alphas", "seeds": "seeds", "rounds": "rounds",
    "early_stopping": "early_stopping", "params": "params", "options": "options", "folds": "folds",
    "split_seed": "split_seed", "eval_alpha": "eval_alpha", "threads": "threads", "measure": "measure",
    "feature_names": "feature_names", "learner": "learner", "device": "device",
}  # fmt: skip


def _default(name: str) -> Any:
    """A setting's default: the :class:`~pyterrier_risk.engine.LearnSettings` field's."""
    import dataclasses

    from ..engine import LearnSettings

    return next(f.default for f in dataclasses.fields(LearnSettings) if f.name == name)

#: ``risk_study``'s arguments as this command names them: a study's errors name arguments by neutral
#: keys (``SettingError``), rendered here in the command's words (``--rounds``, ``--folds K``)
FLAGS = {
    "data": "DATA", "baseline": "--baseline", "baselines": "--baselines", "objectives": "--objective",
    "imports": "--import", "alpha": "--alpha", "alphas": "--alpha", "seeds": "--seeds", "rounds": "--rounds",
    "early_stopping": "--early-stopping", "params": "--param", "options": "--option", "folds": "--folds",
    "split_seed": "--split-seed", "eval_alpha": "--eval-alpha", "threads": "--threads",
    "workers": "--workers", "scheduler": "--scheduler", "out": "--out", "test": "--test",
    "correction": "--correction", "format": "--format", "decimals": "--round", "layout": "--layout",
    "measure": "--measure", "feature_names": "--feature-names", "learner": "--learner", "device": "--device",
    "worker_timeout": "--worker-timeout", "progress": "--no-progress", "store": "--out",
}  # fmt: skip


def add_learn_arguments(parser: argparse.ArgumentParser) -> None:
    """Add the ``learn`` options (data, baselines, objectives, the grid, LightGBM, execution, output)."""
    from ..engine import DEFAULT_WORKER_TIMEOUT

    add = parser.add_argument
    add("data", metavar="DATA", help="a folder of Fold1..FoldK/{train,vali,test}.txt or of LETOR 4.0 "
                                     "partitions S1..SK (plain or compressed), or one LETOR file with "
                                     "--folds K")
    listed = [add("--baseline", metavar="F|RUN"),
              add("--baselines", nargs="+", action="extend", metavar="F|RUN")]
    add("--feature-names", type=Path, metavar="FILE",
        help="name the feature baselines: one 'NUMBER NAME' a line (25 BM25), # comments")
    listed.append(add("--objective", dest="objectives", nargs="+", action="extend", metavar="NAME"))
    add("--import", dest="imports", action=_Import, metavar="MODULE", listed=listed,
        help="import a module first (in every worker too): user objectives register themselves (and are "
             "listed by --help after it)")
    _list_objectives(listed)
    add("--alpha", dest="alphas", nargs="+", action="extend", type=number, metavar="A",
        help=f"risk sensitivities α >= 0 (default {' '.join(f'{a:g}' for a in _default('alphas'))})")
    add("--seeds", nargs="+", action="extend", type=integer, metavar="S",
        help=f"LightGBM seeds (default {' '.join(map(str, _default('seeds')))})")
    _stopping_arguments(add)
    add("--param", dest="params", nargs="+", action="extend", metavar="NAME=VALUE",
        help="LightGBM parameters, read as LightGBM reads them (true/false, numbers, comma lists)")
    add("--option", dest="options", nargs="+", action="extend", metavar="NAME=VALUE",
        help="objective options (e.g. risk_norm=weighted), for the objectives that have them")
    add("--folds", type=integer, metavar="K",
        help="with one LETOR file: split its queries into K folds (>= 3); with a folder: its fold count, "
             "checked (--folds 1 runs a folder of one fold, which is refused otherwise)")
    add("--split-seed", type=integer, metavar="S",
        help=f"seed of the --folds split (default {_default('split_seed')})")
    add("--eval-alpha", type=number, metavar="A",
        help=f"the α of GeoRisk in the table (default {_default('eval_alpha'):g})")
    add("--learner", choices=["lambdamart", "neural"], help="every model's learner: "
        "LambdaMART (default) or RiskNeuralRanker (neural extra; --rounds: epochs, --param: its arguments)")
    add("--device", metavar="DEVICE", help="the neural learner's device: cpu (default; deterministic), cuda, "
                                           "cuda:N or auto")
    add("--threads", type=integer, metavar="N",
        help=f"threads per fit (LightGBM and numba), a study setting (default {_default('threads')})")
    add("--workers", type=integer, metavar="N", help="local worker processes (default: cores // --threads)")
    add("--scheduler", metavar="ADDRESS", help="run the tasks on this Dask scheduler (tcp://host:8786)")
    add("--worker-timeout", type=number, default=DEFAULT_WORKER_TIMEOUT, metavar="SECONDS",
        help="with --scheduler: how long to wait for a worker when the cluster has none (default "
             f"{DEFAULT_WORKER_TIMEOUT:g})")
    _add_output_arguments(parser)


#: the help of the options that list the registered objectives by kind of baseline
_LISTED_HELP = {
    "baseline": "the single baseline ({single}; the table's single half): a feature number from 1, or a TREC "
                "run; F=NAME names it (25=BM25)",
    "baselines": "the multiple baselines ({multiple}; the table's macro half): feature numbers or TREC runs "
                 "matched by qid and LETOR docid, each maybe F=NAME",
    "objectives": "registered objectives: with --baseline {single_names}; with --baselines {multiple_names} "
                 "(default: every one whose baselines are given; {reference}, the reference, is always "
                 "trained)",
}  # fmt: skip


def _list_objectives(actions: list[argparse.Action]) -> None:
    """Write the registered objectives of each kind of baseline into the help of ``actions``."""
    from ..learning import get_objective, objective_names, reference_objective

    kinds = {k: objective_names(k) for k in ("single", "multiple")}
    words = {**{k: ", ".join(get_objective(n).label for n in names) or "none registered"
                for k, names in kinds.items()},
             **{f"{k}_names": " ".join(names) or "none" for k, names in kinds.items()},
             "reference": reference_objective()}  # fmt: skip
    for action in actions:
        action.help = _LISTED_HELP[action.dest].format(**words).replace("%", "%%")


class _Import(argparse.Action):
    """``--import MODULE``: kept in a list and imported at once, so that ``--help`` lists its objectives.

    A module that fails to import is reported by the study's check of ``--import`` (one line).
    """

    def __init__(self, *args: Any, listed: list[argparse.Action], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.listed = listed

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace, values: Any,
                 option_string: str | None = None) -> None:
        import importlib

        setattr(namespace, self.dest, [*(getattr(namespace, self.dest, None) or []), values])
        try:
            importlib.import_module(str(values))
        except Exception:  # noqa: BLE001, S110 - the study's check names the module and the error
            return
        _list_objectives(self.listed)


def _stopping_arguments(add: Any) -> None:
    """``--rounds``, ``--early-stopping`` and ``--measure``: how many trees, chosen by which measure."""
    add("--rounds", type=integer, metavar="N",
        help=f"boosting rounds, the cap of early stopping (default {_default('rounds')})")
    add("--early-stopping", type=_patience, metavar="PATIENCE",
        help="stop after PATIENCE rounds without a gain in the validation split's measure and keep the best "
             f"round's trees (default {_default('early_stopping')}); 0 or none: --rounds trees")
    add("--measure", choices=["ndcg", "letor"],
        help="the study's measure, of the tables and of early stopping: ndcg, NDCG@10 with gains 2^label-1 "
             "(default), or letor, LETOR 4.0's Eval-Score-4.0.pl NDCG@10")


def _patience(text: str) -> int:
    """``--early-stopping``: a count, or 0 or ``none``: none (0, as the study reads it)."""
    return 0 if text.strip().lower() == "none" else integer(text)


def _add_output_arguments(parser: argparse.ArgumentParser) -> None:
    """Add the ``learn`` output options (the folder, the tables' test, correction, format and layout)."""
    from ..engine import DEFAULT_CORRECTION, DEFAULT_TEST

    add = parser.add_argument
    add("--out", type=Path, metavar="DIR", help="folder for the task results (resumable), per_query.csv, "
                                                "runs/, qrels.txt, the tables, the plot and settings.json")
    add("--store", type=Path, metavar="DIR", help="folder for the task results instead of --out (a cache "
                                                  "that several --out folders may share; default --out)")
    add("--test", choices=["t", "randomization"], default=DEFAULT_TEST,
        help=f"the tables' paired test of each row against LambdaMART (default {DEFAULT_TEST})")
    add("--correction", default=DEFAULT_CORRECTION, metavar="METHOD",
        help="multiple-testing correction over the rows of a column (statsmodels' names: bonferroni, holm, "
             f"fdr_bh, ...; none: none; default {DEFAULT_CORRECTION})")
    add("--format", choices=["markdown", "latex", "csv"], default="markdown", help="table format")
    add("--layout", choices=["default", "paper"], default="default",
        help="the learner table's layout: default (NDCG@10 Δ%%, both halves and GeoRisk, bold best values) "
             "or paper (Dinçer et al. 2016 Table 7 as printed: NDCG in each half, ↑/↓ in the header)")
    add("--round", type=integer, default=4, help="decimals in markdown/latex output, 0 to 20 (default 4)")
    add("--no-progress", action="store_true", help="no progress output (a bar, or lines without a terminal)")


def _correction(args: Any) -> str | None:
    return None if args.correction == "none" else args.correction


def _in_command_words(error: Exception, args: Any = None) -> str:
    """A study error's message with its arguments named as this command's flags."""
    from ..engine import SettingError

    flags = {**FLAGS, "store": "--store" if getattr(args, "store", None) else "--out"}
    return error.render(flags) if isinstance(error, SettingError) else str(error)


@contextlib.contextmanager
def _notes() -> Iterator[None]:
    """Print a study's notes (:class:`~pyterrier_risk.engine.StudyNote`) in the command's words, as raised."""
    from ..engine import StudyNote

    with warnings.catch_warnings():  # restores showwarning and the filters after the block
        shown = warnings.showwarning
        warnings.simplefilter("always", StudyNote)

        def show(message: Any, category: Any, *args: Any, **kwargs: Any) -> None:
            if isinstance(message, StudyNote):
                note(message.render(FLAGS))
            else:
                shown(message, category, *args, **kwargs)

        warnings.showwarning = show
        yield


def run_learn(args: Any) -> int:
    """Run ``pyterrier-risk learn`` with parsed ``args``; a user error raises :class:`CLIError`."""
    from ..engine import StudyError, check_write_options, held_folder, risk_study

    check_decimals(args.round)
    given = {key: getattr(args, dest) for key, dest in _SETTINGS.items() if getattr(args, dest) is not None}
    try:
        check_write_options(format=args.format, decimals=args.round, test=args.test,
                            correction=_correction(args), layout=args.layout)
        with held_folder(args.out):  # one study in --out from its first task to its last file
            with _notes():
                result = risk_study(out=None, store=args.store or args.out, workers=args.workers,
                                    scheduler=args.scheduler, worker_timeout=args.worker_timeout,
                                    progress=not args.no_progress, **given)
            tables = result.tables(test=args.test, correction=_correction(args), layout=args.layout)
            text = tables.render(args.format, floatfmt=f".{args.round}f")
            if args.out is not None:
                result.write(args.out, format=args.format, decimals=args.round, tables=tables)
    except StudyError as e:
        raise CLIError(_in_command_words(e, args)) from None
    except ValueError as e:  # e.g. a per_query value the tables refuse
        raise CLIError(str(e)) from None
    sys.stdout.write(text)
    return 0
