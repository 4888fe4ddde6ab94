"""The arguments of ``pyterrier-risk eval``: options with several values, and runs anywhere on the line.

argparse lets an option with several values (``--measure nDCG@20 AP``) swallow every word after it,
so ``--measure nDCG@20 AP a.run b.run`` would take the runs for measures, and ``--alpha 5 ql.run``
would read ``ql.run`` as a number. :func:`arrange_eval_argv` sorts the words out first, with one
rule, documented in docs/cli.md:

* ``--measure``, ``--alpha`` and ``--baselines`` take the word after them always, and the words
  after that as long as they are values of the option: a number for ``--alpha``, ``mean``,
  ``median`` or ``max`` for ``--baselines``, and for ``--measure`` a word that does not look like a
  file name (not an existing file or folder, no ``/`` unless it is a measure expression such as
  ``TRisk(AP,baseline='runs/bm25.run')``, no extension such as ``.run`` or ``.gz``);
* ``--evalfile`` takes every word up to the next option;
* every other word that is not an option's value is a run.

The options are then handed to argparse one value at a time (``--alpha=5``), and the runs last.
"""

from __future__ import annotations

import argparse
import os
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..core import DEFAULT_NULL, NULLS
from ._common import CLIError

__all__ = ["MAX_DECIMALS", "TOPIC_POLICIES", "EvalOptions", "add_eval_arguments", "add_sd_argument",
           "arrange_eval_argv", "check_alphas", "check_decimals", "expand_runs", "integer", "number",
           "resolve_topic_options"]

#: the most decimals ``--round`` accepts
MAX_DECIMALS = 20
_FILE_SUFFIX = re.compile(r"\.[A-Za-z][A-Za-z0-9]*$")  # .run, .gz, .res, .txt (not P.10 or IPrec@0.5)
#: a number as an option value: decimal digits, an optional fraction and exponent, or nan/inf (refused
#: later, with the option's own message); no spaces, no underscores, no hexadecimal
_NUMBER = re.compile(r"[-+]?(?:(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?|inf|infinity|nan)", re.IGNORECASE)
_INTEGER = re.compile(r"[-+]?\d+")
#: a measure expression such as TRisk(AP,baseline='runs/bm25.run'): a name, parentheses, maybe a cutoff
_MEASURE_CALL = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\(.*\)(?:@\d+(?:\.\d+)?)?", re.DOTALL)
_AGGREGATES = ("mean", "median", "max")
#: the topic policies of ``--topic-policy`` (``--topics`` before version 0.3)
TOPIC_POLICIES = ("qrels", "intersection")


class _Options:
    """The eval options, how many values each takes (``0``: a flag, ``1`` or ``'+'``) and their long names."""

    def __init__(self, parser: argparse.ArgumentParser) -> None:
        self.parser = parser
        self.arity: dict[str, int | str] = {}
        self.long: dict[str, str] = {}

    def add(self, *flags: str, **kwargs: Any) -> None:
        """``parser.add_argument``, recording the arity and the long name of each flag."""
        self.parser.add_argument(*flags, **kwargs)
        action, nargs = kwargs.get("action"), kwargs.get("nargs")
        arity: int | str = 0 if action in ("store_true", "store_false", "help") else "+" if nargs else 1
        long = next((f for f in flags if f.startswith("--")), flags[0])
        for flag in flags:
            if flag.startswith("-"):
                self.arity[flag], self.long[flag] = arity, long


def _io_arguments(opt: _Options) -> None:
    opt.add("runs", nargs="*", metavar="RUN",
            help="TREC run files (plain, gzip, bzip2 or xz, recognised by content) or folders (every file "
                 "in them, sorted); they may come anywhere on the line")
    opt.add("--runs-from", metavar="FILE", action="append", default=[],
            help="a file listing run files, one path per line (relative to the current folder; blank "
                 "lines and lines starting with # are skipped)")
    opt.add("--evalfile", nargs="+", action="extend", metavar="FILE",
            help="per-topic evaluation files (trec_eval -q output or gdeval.pl CSV) instead of runs")
    opt.add("--qrels", help="qrels file or ir_datasets id (irds:...); required with runs; with --evalfile "
                            "it gives the topic set (default: the topics in the files)")
    opt.add("--topic-policy", choices=list(TOPIC_POLICIES), default=None,
            help="qrels: every qrels topic, a run without results for one scores 0 there (trec_eval -c, "
                 "the default); intersection: only the topics every run has (gdeval.pl without -c)")
    opt.add("--topics", metavar="FILE",
            help="topics file with the query texts, as PyTerrier's topics (TREC SGML, TREC Web track XML or "
                 "qid<TAB>query; compressed or not): 'topics' adds a query column")
    opt.add("--drop-extra-topics", action="store_true",
            help="ignore results for topics absent from the qrels (default: an error)")


def _measure_arguments(opt: _Options) -> None:
    opt.add("--measure", nargs="+", action="extend", metavar="MEASURE",
            help="base measures, ir_measures or trec_eval names, e.g. nDCG@20 ndcg_cut_20 AP "
                 "\"P(rel=2)@10\" \"nDCG(gains={-2:0,0:0,1:1,2:3,3:7,4:15})@20\" nDCG_letor4@10 (LETOR 4.0's "
                 "Eval-Score-4.0.pl), or risk measures "
                 "evaluated as given, e.g. \"TRisk(AP,alpha=5,baseline='median')\" (default nDCG@20)")
    opt.add("--alpha", nargs="+", action="extend", type=number, metavar="A",
            help="risk-sensitivity values α, finite numbers >= 0 (default 0)")
    opt.add("--baseline", metavar="RUN",
            help="baseline run file (or the name of one of the runs) for URisk/TRisk")
    opt.add("--baselines", nargs="+", action="extend", choices=list(_AGGREGATES),
            help="unbiased baselines over all runs (Dinçer et al., ECIR 2014): URisk and T*Risk")
    opt.add("--no-zrisk", action="store_true", help="leave out ZRisk and GeoRisk")


def _test_arguments(opt: _Options) -> None:
    opt.add("--test", choices=["t", "randomization"], default="t",
            help="test of TRisk's p-value (and, with --significance, of the base measures): t "
                 "(Student's t, the default) or randomization (paired sign flips, under --null)")
    opt.add("--null", choices=list(NULLS), default=DEFAULT_NULL,
            help="null hypothesis of every randomization test (--test randomization, --all-pairs): "
                 "symmetric tests URisk = 0 (TRisk's own H0: the risk-weighted differences are "
                 "symmetric about 0; their signs are flipped); exchangeable tests that run and baseline "
                 "are exchangeable on every topic (Fisher's test: the raw differences' signs are flipped, "
                 f"then losses weighted 1 + α); one test at α = 0 (default {DEFAULT_NULL}, as in Python)")
    opt.add("--resamples", type=integer, default=10000, metavar="N",
            help="sign flips of a randomization test (default 10000; exact when 2^topics <= N)")
    opt.add("--seed", type=integer, default=0, help="seed of the randomization tests (default 0)")
    opt.add("--correction", metavar="METHOD",
            help="multiple-testing correction across runs of every p-value column (statsmodels' names: "
                 "bonferroni, holm, hs, fdr_bh, ...)")
    opt.add("--level", type=number, default=0.05,
            help="significance level of --correction's reject column and of the marks (default 0.05)")
    opt.add("--all-pairs", action="store_true",
            help="instead of the table, compare every pair of runs (one row per pair, base measure and α)")
    opt.add("--pairs-test", choices=["randomization", "t", "tukey"], default="randomization",
            help="test of --all-pairs: randomization (the default, under --null), t (TRisk's t-test "
                 "of URisk = 0) or tukey (Tukey's HSD with topics as blocks, α = 0 only)")
    opt.add("--perquery", action="store_true",
            help="per-topic values (name, qid, measure, value) instead of the averages, with the "
                 "per-topic p-values of T_R and T_J")
    add_sd_argument(opt)


def add_sd_argument(opt: _Options) -> None:
    """``--sd``: the standard deviation of TRisk, T_R and T_J alike (``--topic-sd``: its old name)."""
    opt.add("--sd", "--topic-sd", dest="sd", choices=["sample", "population"], default="sample",
            help="s_x of TRisk, the per-topic T_R and T_J and their p-values alike: sample (divides by "
                 "c - 1, the default: the t-test of Dinçer et al. 2014) or population (divides by c, as "
                 "rmit-ir/trisk: every t value times sqrt(c/(c-1)))")


def resolve_topic_options(args: argparse.Namespace, command: str) -> str | None:
    """Sort out ``--topics``, ``--topic-policy`` and ``--queries``; an error message, or None.

    ``--topics`` is the query-text file, as PyTerrier's ``topics`` (``topics`` command). Before it was the
    topic policy, now ``--topic-policy``: ``--topics qrels``/``--topics intersection`` still sets the
    policy (when no file has that name), with a note. ``--queries FILE`` is kept as ``--topics FILE``,
    with a note. Sets ``args.topic_policy`` (default ``'qrels'``) and ``args.queries`` (a path or None).
    """
    from ._common import note

    given = getattr(args, "topics", None)
    queries = getattr(args, "queries", None)
    if queries is not None:
        note("--queries FILE is now --topics FILE (the query texts, as PyTerrier's topics)")
        if given is not None and given not in TOPIC_POLICIES:
            return "give the query texts once: --topics FILE (--queries is its old name)"
    if given in TOPIC_POLICIES and not os.path.exists(given):
        if args.topic_policy not in (None, given):
            return (f"--topics {given} and --topic-policy {args.topic_policy} disagree; "
                    "give --topic-policy only")
        note(f"--topics {given} is now --topic-policy {given} (--topics FILE gives the query texts)")
        args.topic_policy, given = given, None
    if given is not None and command != "topics":
        return (f"--topics {given}: {command} uses no query texts; the topic policy is --topic-policy "
                "qrels|intersection (the query texts go to 'pyterrier-risk topics --topics FILE')")
    args.queries = Path(given) if given is not None else queries
    args.topic_policy = args.topic_policy or "qrels"
    return None


def _output_arguments(opt: _Options) -> None:
    opt.add("--format", choices=["markdown", "csv", "latex"], default=None,
            help="table format (default: from the --output suffix .md/.csv/.tex, else markdown)")
    opt.add("--output", "-o", type=Path, help="write the table to this file instead of stdout")
    opt.add("--round", type=integer, default=4,
            help=f"decimals in markdown/latex output, 0 to {MAX_DECIMALS} (default 4)")
    opt.add("--layout", choices=["auto", "wide", "long", "transposed"], default="auto",
            help="auto (the default: wide if it fits 160 characters, else wide with short labels, else "
                 "long; CSV: wide), wide (a row per run), long (a row per run, base measure and α) or "
                 "transposed")
    opt.add("--short-labels", action="store_true",
            help="short column labels (U1, T1, ...) with a legend under the table")
    opt.add("--caption", help="table caption (LaTeX: a table float; markdown: a 'Table:' line)")
    opt.add("--label", help="LaTeX \\label of the table")
    opt.add("--bold", action="store_true", help="the best value of each column in bold")
    opt.add("--significance", action="store_true",
            help="mark values significantly different from --baseline (†); the base measures are then "
                 "tested too; the caption names the test and the correction")
    opt.add("--plots", type=Path, metavar="DIR", help="write risk-gain, helped-hurt, GeoRisk and T_J plots "
                                                      "(PNG) to DIR")


@dataclass(frozen=True)
class EvalOptions:
    """What :func:`arrange_eval_argv` needs to know of the ``eval`` options.

    Attributes:
        arity: each option string -> its number of values (``0``, ``1`` or ``'+'``).
        long: each option string -> its long form (``-o`` -> ``--output``).
    """

    arity: dict[str, int | str]
    long: dict[str, str]


def add_eval_arguments(parser: argparse.ArgumentParser) -> EvalOptions:
    """Add the ``eval`` options to ``parser``; returns what :func:`arrange_eval_argv` needs."""
    opt = _Options(parser)
    for group in (_io_arguments, _measure_arguments, _test_arguments, _output_arguments):
        group(opt)
    return EvalOptions(opt.arity, opt.long)


def number(text: str) -> float:
    """An option's number, parsed strictly (:data:`_NUMBER`): ``5``, ``0.5``, ``1e308``, ``nan``, ``inf``.

    Raises:
        argparse.ArgumentTypeError: anything else (``1_0``, `` 5``, ``0x10``), named in argparse's error.
    """
    if not _NUMBER.fullmatch(text):
        raise argparse.ArgumentTypeError(f"invalid number: {text!r}")
    return float(text)


def integer(text: str) -> int:
    """An option's integer, parsed strictly: decimal digits with an optional sign (not ``5.0``, ``1_0``)."""
    if not _INTEGER.fullmatch(text):
        raise argparse.ArgumentTypeError(f"invalid integer: {text!r}")
    return int(text)


def _is_number(token: str) -> bool:
    return _NUMBER.fullmatch(token) is not None


def _is_option(token: str) -> bool:
    return token.startswith("-") and token != "-" and not _is_number(token)


def _names_a_file(token: str) -> bool:
    """A word that is a path: a file or folder of that name exists, or it has a ``/`` outside a measure.

    ``TRisk(AP,baseline='runs/bm25.run')`` is a measure expression that names a file inside it.
    """
    if os.path.exists(token):
        return True
    return ("/" in token or os.sep in token) and not _MEASURE_CALL.fullmatch(token)


def _takes(option: str, token: str) -> bool:
    """Whether ``token``, after the first value of a many-valued ``option``, is one more value of it."""
    if _is_option(token):
        return False
    if option == "--evalfile":
        return True
    if _names_a_file(token):
        return False
    if option == "--alpha":
        return _is_number(token)
    if option == "--baselines":
        return token in _AGGREGATES
    return not _FILE_SUFFIX.search(token)  # --measure


def _resolve(token: str, arity: dict[str, int | str]) -> tuple[str | None, str | None]:
    """The option a word names (exact, ``--opt=value``, ``-oVALUE``, a unique prefix) and its value."""
    name, eq, value = token.partition("=")
    if not token.startswith("--") and token[:2] in arity and len(token) > 2:
        return token[:2], token[2:]
    if name not in arity and name.startswith("--"):
        matches = [flag for flag in arity if flag.startswith(name)]
        name = matches[0] if len(matches) == 1 else name
    if name not in arity:
        return None, None
    return name, value if eq else None


def _first_value(token: str, n: int | str, arity: dict[str, int | str]) -> bool:
    """Whether the word after an option is its value: yes unless it is another option.

    A number is a value (``--alpha -1``, refused later with a clear message), and so is an
    option-like word that no option has, after a one-value option (``--caption '-x'``).
    """
    if not _is_option(token):
        return True
    return n == 1 and _resolve(token, arity)[0] is None


def arrange_eval_argv(tokens: Sequence[str], known: EvalOptions) -> list[str]:
    """``eval``'s words as argparse can read them: options (``--name=value``, one value each), then the runs.

    See the module docstring for the rule. Unknown options are passed on for argparse to refuse.

    Example:
        ``--measure nDCG@20 AP --alpha 5 a.run`` becomes
        ``--measure=nDCG@20 --measure=AP --alpha=5 a.run``.
    """
    arity = known.arity
    options: list[str] = []
    runs: list[str] = []
    words = list(tokens)
    i = 0
    while i < len(words):
        token = words[i]
        i += 1
        if token == "--":
            runs += words[i:]
            break
        if not _is_option(token):
            runs.append(token)
            continue
        name, inline = _resolve(token, arity)
        if name is None or arity[name] == 0:
            options.append(token if name is None else name)
            continue
        n = arity[name]
        values = [inline] if inline is not None else []
        if not values and i < len(words) and _first_value(words[i], n, arity):
            values.append(words[i])
            i += 1
        while n == "+" and values and i < len(words) and _takes(name, words[i]):
            values.append(words[i])
            i += 1
        name = known.long[name]
        options += [f"{name}={v}" for v in values] or [name]
    return [*options, *runs]


def _list_file(path: str) -> list[str]:
    """The run paths listed in a ``--runs-from`` file (blank lines and ``#`` comments skipped)."""
    try:
        text = Path(path).read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError) as e:
        raise CLIError(f"cannot read the run list {path}: {getattr(e, 'strerror', None) or e}") from e
    paths = [line.strip() for line in text.splitlines()]
    paths = [p for p in paths if p and not p.startswith("#")]
    if not paths:
        raise CLIError(f"the run list {path} names no run file")
    return paths


def _folder(path: str) -> list[str]:
    """Every file in a folder (not its subfolders, not hidden files), sorted by name."""
    files = sorted(str(p) for p in Path(path).iterdir() if p.is_file() and not p.name.startswith("."))
    if not files:
        raise CLIError(f"the run folder {path} has no files")
    return files


def expand_runs(runs: Sequence[str], lists: Sequence[str]) -> list[str]:
    """The run files: the RUNs (a folder stands for its files) and those listed in ``--runs-from`` files."""
    out: list[str] = []
    for path in [*runs, *(p for f in lists for p in _list_file(f))]:
        out += _folder(path) if os.path.isdir(path) else [path]
    return out


def check_alphas(alphas: Sequence[float] | None) -> list[float]:
    """The distinct ``--alpha`` values (default 0), each checked by the core's ``check_alpha``.

    The check is the one an ``alpha=`` inside a measure goes through, so ``--alpha 1e308`` and
    ``TRisk(AP,alpha=1e308)`` are accepted alike and ``nan``/``inf``/negative values refused alike.
    """
    from ..core import check_alpha

    checked, bad = [], []
    for a in [0.0] if not alphas else alphas:
        try:
            checked.append(check_alpha(a))
        except (TypeError, ValueError):
            bad.append(a)
    if bad:
        raise CLIError(f"--alpha values must be finite numbers >= 0, got {' '.join(f'{a:g}' for a in bad)}")
    return list(dict.fromkeys(checked))


def check_decimals(decimals: int) -> int:
    """The ``--round`` value: an integer from 0 to :data:`MAX_DECIMALS`."""
    if not 0 <= decimals <= MAX_DECIMALS:
        raise CLIError(f"--round must be an integer from 0 to {MAX_DECIMALS}, got {decimals}")
    return decimals
