"""The ``pyterrier-risk`` command: ``demo``, ``eval``, ``topics`` (hurt topics), ``baselines``, ``distance``.

``baselines`` reports how a risk evaluation depends on its baseline (:mod:`._baselines`), ``topics`` the
topics each run hurts (:mod:`._topics`), ``distance`` how far each run's rankings are from the baseline's
(:mod:`._distance`).

``eval`` (:mod:`._eval`) evaluates TREC run files, or per-topic evaluation files, and prints one row
per run and one column per measure; its arguments are sorted out by :mod:`._args` (several values
per option, runs anywhere on the line), its inputs read by :mod:`._inputs`. Bad input ends with a
one-line error naming the file/line/id and exit status 2; argparse's usage errors are one line too.
docs/cli.md lists the policies.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING, NoReturn

from ._common import EXIT_USAGE, PROG, CLIError, one_line, report_interrupt

if TYPE_CHECKING:
    from ._args import EvalOptions

__all__ = ["CLIError", "main"]

_PROG = PROG


class _Parser(argparse.ArgumentParser):
    """argparse with a one-line usage error: ``pyterrier-risk: error: ... (see '... --help')``, exit 2."""

    def error(self, message: str) -> NoReturn:
        """Print the one-line error and exit with status 2."""
        self.exit(EXIT_USAGE, f"{_PROG}: error: {one_line(message)} (see '{self.prog} --help')\n")


def _parser() -> tuple[argparse.ArgumentParser, dict[str, tuple[argparse.ArgumentParser, EvalOptions]]]:
    """The command's parser; per command that takes runs, its subparser and its option arities."""
    from .. import __version__
    from ._args import add_eval_arguments
    from ._baselines import add_baselines_arguments
    from ._demo import add_demo_arguments
    from ._distance import add_distance_arguments
    from ._learn import add_learn_arguments
    from ._topics import add_topics_arguments

    parser = _Parser(
        prog=_PROG, description="Risk-sensitive evaluation for PyTerrier: URisk, TRisk, ZRisk, GeoRisk.")
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    sub = parser.add_subparsers(dest="command", required=True,
                                metavar="{demo,eval,topics,baselines,distance,learn}")

    demo = sub.add_parser(
        "demo", help="run a complete risk-sensitive study on an ir_datasets collection (PISA + LambdaMART)",
        description="Index an ir_datasets corpus with PISA, run several systems and risk-sensitive "
                    "re-rankers (U-CRO against BM25, GeoRisk against all systems; cross-validated over "
                    "topics), and write a Markdown report with the trade per alpha and plots.")
    add_demo_arguments(demo)

    ev = sub.add_parser(
        "eval", help="risk-sensitive evaluation of TREC run files or per-topic evaluation files",
        description="Evaluate TREC run files (or trec_eval -q / gdeval.pl output): one row per run, one "
                    "column per measure (named by its repr). Runs may come anywhere on the line.")
    topics = sub.add_parser(
        "topics", help="the topics each run hurts against a baseline, most-hurt first",
        description="Per run against --baseline: the topics lost, lost by more than 20% (Wang et al. "
                    "2012), with T_R <= -2 and the mean change; then each run's most-hurt topics with both "
                    "values, the difference and relative change, Loss > 20%, T_R (and T_J) with p-values. "
                    "Runs may come anywhere on the line.")
    bl = sub.add_parser(
        "baselines", help="URisk/TRisk of every run against every run and MEAN/MEDIAN/MAX as the baseline",
        description="How much the risk ranking of the runs depends on the baseline (Dinçer et al., ECIR "
                    "2014): rankings, Kendall's tau, the Friedman test, correlation with the baseline, PCA. "
                    "Runs may come anywhere on the line.")
    dist = sub.add_parser(
        "distance",
        help="the Kendall distance of each run's rankings from the baseline's, per topic and binned",
        description="Per topic, the normalised Kendall distance between each run's ranking and the "
                    "baseline's over the documents both retrieved (Wang et al., SIGIR 2012, §5.9): the "
                    "share of the topics in 10 bins and the mean (Figure 5), or --perquery. Runs may come "
                    "anywhere on the line.")
    learn = sub.add_parser(
        "learn", help="a risk-sensitive learning study on LETOR folds: every objective, α and seed against "
                      "LambdaMART (the papers' learner tables)",
        description="Train every objective at every α and seed on every LETOR fold against plain LambdaMART "
                    "of the same seed, on every core or a Dask cluster; print the papers' learner tables.")
    add_learn_arguments(learn)
    return parser, {"eval": (ev, add_eval_arguments(ev)), "topics": (topics, add_topics_arguments(topics)),
                    "baselines": (bl, add_baselines_arguments(bl)),
                    "distance": (dist, add_distance_arguments(dist))}


def _check_usage(args: argparse.Namespace, sub: argparse.ArgumentParser) -> None:
    """The usage errors argparse cannot see, the same for every command that takes runs (exit 2)."""
    if args.command == "distance":
        if not (args.runs or args.runs_from):
            sub.error("the following arguments are required: RUN (or --runs-from FILE)")
        if args.baseline is None:
            sub.error("the following arguments are required: --baseline")
        return
    if not (args.runs or args.runs_from or args.evalfile):
        sub.error("the following arguments are required: RUN (or --runs-from FILE, or --evalfile FILE)")
    if args.evalfile and (args.runs or args.runs_from):
        sub.error("give run files or --evalfile files, not both")
    if not args.evalfile and args.qrels is None:
        sub.error("the following arguments are required: --qrels")
    if args.command == "topics" and args.baseline is None:
        sub.error("the following arguments are required: --baseline")
    from ._args import resolve_topic_options

    problem = resolve_topic_options(args, args.command)
    if problem:
        sub.error(problem)


def _parse(argv: Sequence[str] | None) -> argparse.Namespace:
    """The parsed arguments; a command's runs may come anywhere on the line (:mod:`._args` sorts them)."""
    from ._args import arrange_eval_argv

    parser, commands = _parser()
    words = list(sys.argv[1:] if argv is None else argv)
    if words and words[0] in commands:
        words = [words[0], *arrange_eval_argv(words[1:], commands[words[0]][1])]
    args = parser.parse_args(words)
    if args.command in commands:
        _check_usage(args, commands[args.command][0])
    return args


def _run(args: argparse.Namespace) -> int:
    """Dispatch the parsed command."""
    if args.command == "demo":
        from ._demo import run_demo

        return run_demo(args)
    if args.command == "topics":
        from ._topics import run_topics

        return run_topics(args)
    if args.command == "baselines":
        from ._baselines import run_baselines

        return run_baselines(args)
    if args.command == "distance":
        from ._distance import run_distance

        return run_distance(args)
    if args.command == "learn":
        from ._learn import run_learn

        return run_learn(args)
    from ._eval import run_eval

    return run_eval(args)


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``pyterrier-risk`` command (also ``python -m pyterrier_risk``).

    Ctrl-C ends every command with one line, ``pyterrier-risk: interrupted``, and exit status 130; the
    file being written is left as it was (every file is written to a temporary name, then renamed).
    An error that only wraps the interrupt (PISA's C++ turns one into a ``SystemError``) counts as one.
    The module imports nothing heavy, so that the console script reaches this function at once; the
    package's own import is covered in ``pyterrier_risk/__init__.py``.

    Args:
        argv: the arguments (default ``sys.argv[1:]``).

    Returns:
        The exit status: 0 on success, 2 on a usage or input error (message on stderr, no traceback),
        130 when interrupted.
    """
    from ..data import raised_by_interrupt

    try:
        return _run(_parse(argv))
    except KeyboardInterrupt:
        return report_interrupt()
    except CLIError as e:
        if raised_by_interrupt(e):
            return report_interrupt()
        print(f"{_PROG}: error: {one_line(str(e))}", file=sys.stderr)
        return EXIT_USAGE
    except Exception as e:
        if raised_by_interrupt(e):
            return report_interrupt()
        raise
