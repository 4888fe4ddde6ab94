"""The inputs of ``pyterrier-risk eval`` as systems × topics matrices: from run files or evaluation files.

Both paths end in :class:`Inputs`: one matrix per base measure, the same runs (rows) and topics
(columns) in all of them, chosen by the topic policy of :mod:`pyterrier_risk.core._topics`
(``--topics qrels``: ``-c``; ``--topics intersection``: gdeval without ``-c``). The policy warns;
:func:`~._common.notes_from_warnings` prints the warnings as notes.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..data import read_run, run_name
from ._common import CLIError, note, notes_from_warnings

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["Inputs", "from_evalfiles", "from_runs", "load_qrels"]


@dataclass
class Inputs:
    """What the tables are computed from.

    Attributes:
        names: the runs, in table order.
        matrices: ``repr`` of each base measure -> its runs × topics matrix.
        baseline: the name of the ``--baseline`` run (None: none).
        qrels_irm: the qrels with ir_measures' column names (runs only: for external baseline runs).
    """

    names: list[str]
    matrices: dict[str, pd.DataFrame] = field(repr=False)
    baseline: str | None = None
    qrels_irm: pd.DataFrame | None = field(default=None, repr=False)


def _progress(items: Sequence[Any], desc: str) -> Iterable[Any]:
    """``items`` with a progress bar on an interactive stderr (none when it is a file or a pipe)."""
    from tqdm import tqdm

    return tqdm(items, desc=desc, disable=None, leave=False, file=sys.stderr)


def load_qrels(spec: str) -> pd.DataFrame:
    """The qrels of ``--qrels`` (a file or an ``irds:`` id); any failure is a one-line error."""
    from ..data import read_qrels

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


def _distinct_files(paths: Sequence[str], what: str) -> dict[tuple[int, int] | str, str]:
    """Each file's key (:func:`_file_key`) -> its path; a file given twice is an error naming both."""
    first: dict[tuple[int, int] | str, str] = {}
    for path in paths:
        key = _file_key(path)
        if key in first:
            raise CLIError(f"the same {what} is given twice: {first[key]} and {path}")
        first[key] = path
    return first


def run_paths(runs: Sequence[str], baseline: str | None) -> tuple[list[str], str | None]:
    """The run files to read and the baseline's run name (``--baseline``: a RUN's name or a file).

    A baseline file that is also one of the RUNs is read once. The same file given twice among the
    RUNs is an error (it would be evaluated twice, or silently once).
    """
    paths = list(runs)
    first = _distinct_files(paths, "run file")
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


def check_aggregate_names(names: dict[str, str], aggregates: set[str]) -> None:
    """A run named ``mean``/``median``/``max`` would be taken for that aggregate baseline: refuse it.

    Args:
        names: run name -> its file.
        aggregates: the aggregate baselines asked for.
    """
    for name in sorted(aggregates & set(names)):
        raise CLIError(f"run {names[name]} is named {name!r}, like the aggregate baseline {name!r} (the "
                       f"per-topic {name} of all runs) that is asked for; rename the run file")


def _load_run(path: str, name: str, topics: set[str], drop_extra: bool) -> pd.DataFrame:
    """One run file; results for topics absent from the qrels are an error, or dropped with a note."""
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
        note(f"{path}: ignoring results for {len(extra)} topic(s) absent from the qrels")
        run = run[run["qid"].isin(topics)].reset_index(drop=True)
    return run


def _read_runs(paths: Sequence[str], qrels: pd.DataFrame, drop_extra: bool) -> tuple[dict[str, Any], dict]:
    """The runs by name, and each run's file."""
    topics = set(qrels["qid"])
    runs: dict[str, Any] = {}
    origin: dict[str, str] = {}
    for path in _progress(paths, "reading runs"):
        name = run_name(path)
        if name in runs:
            raise CLIError(f"two runs are named {name!r}: {origin[name]} and {path}; rename one")
        runs[name] = _load_run(path, name, topics, drop_extra)
        origin[name] = path
    return runs, origin


def _evaluated(runs: dict[str, Any], qrels: pd.DataFrame, measures: Sequence[Any], topics: list[str]
               ) -> dict[str, pd.DataFrame]:
    """One runs × topics matrix per base measure; an evaluator's failure is a one-line error."""
    from ..measures import topic_matrix

    out: dict[str, pd.DataFrame] = {}
    for measure in _progress(measures, "evaluating"):
        try:
            out[repr(measure)] = topic_matrix(runs, qrels, measure, topics)
        except (ValueError, TypeError, KeyError) as e:
            raise CLIError(f"cannot evaluate {measure!r}: {e}") from e
        except subprocess.CalledProcessError as e:  # gdeval.pl (its own message is on stderr above)
            raise CLIError(f"an evaluator failed on {measure!r}: {Path(str(e.cmd[0])).name} exited with "
                           f"status {e.returncode}") from e
    return out


def from_runs(args: Any, bases: Sequence[Any], measures: Sequence[Any], aggregates: set[str],
              paths: Sequence[str]) -> Inputs:
    """Read and evaluate the run files under the topic policy.

    Args:
        args: the parsed options (``qrels``, ``baseline``, ``drop_extra_topics``, ``topics``).
        bases: the base measures to evaluate (each once).
        measures: every measure asked for (for the checks before any evaluator runs).
        aggregates: the aggregate baselines asked for.
        paths: the run files.
    """
    from ..core import qrels_topics, topic_set
    from ..measures import check_gdeval, check_letor, check_topic_labels

    paths, baseline = run_paths(paths, args.baseline)
    check_aggregate_names({run_name(p): p for p in paths}, aggregates)
    qrels = load_qrels(args.qrels)
    try:
        check_topic_labels(qrels)
        check_gdeval(list(measures), qrels)
        check_letor(list(measures), qrels)
    except ValueError as e:
        raise CLIError(str(e)) from e
    runs, origin = _read_runs(paths, qrels, args.drop_extra_topics)
    with notes_from_warnings():
        try:
            have = {origin[n]: set(r["qid"]) for n, r in runs.items()}
            topics = topic_set(qrels_topics(qrels["qid"]), have, args.topic_policy)
        except ValueError as e:
            raise CLIError(str(e)) from e
    with notes_from_warnings():  # the gains nDCG_gdeval used
        matrices = _evaluated(runs, qrels, bases, topics)
    qrels_irm = qrels.rename(columns={"qid": "query_id", "docno": "doc_id", "label": "relevance"})
    return Inputs(list(runs), matrices, baseline, qrels_irm)


def _read_evalfiles(paths: Sequence[str]) -> pd.DataFrame:
    import pandas as pd

    from ..data import read_eval_file

    _distinct_files(paths, "evaluation file")
    frames = []
    for path in paths:
        try:
            frames.append(read_eval_file(path))
        except (ValueError, FileNotFoundError, IsADirectoryError, PermissionError) as e:
            raise CLIError(str(e)) from e
    return pd.concat(frames, ignore_index=True)


def _aligned(matrices: dict[str, pd.DataFrame], names: list[str], mode: str) -> dict[str, pd.DataFrame]:
    """The matrices on one set of runs and topics (intersection mode: the topics all of them keep)."""
    for measure, matrix in matrices.items():
        lacking = [n for n in names if n not in matrix.index]
        if lacking:
            raise CLIError(f"run {lacking[0]!r} has no values of {measure} in the evaluation files")
    topics = list(next(iter(matrices.values())).columns)
    if mode == "intersection":
        for matrix in matrices.values():
            kept = set(matrix.columns)
            topics = [q for q in topics if q in kept]
    return {m: matrix.loc[names, topics].rename_axis(index=None, columns=None)
            for m, matrix in matrices.items()}


def _evalfile_error(message: str) -> str:
    """An :func:`~pyterrier_risk.data.eval_matrix` error in the command's words (its options)."""
    if "absent from the qrels" in message:
        return f"{message} (--drop-extra-topics ignores them)"
    found = re.search(r"the file's (\S+) (\(.*\)) is not (.*): ask for \S+ to use it$", message)
    if message.startswith("eval_matrix: no measure") and found:
        name, what, asked = found.groups()
        return (f"{message.split(' (found')[0].replace('eval_matrix: no', 'the evaluation files have no')}: "
                f"the evaluation files hold {name} {what}, which is not {asked}; ask for it with "
                f"--measure \"{name}\"")
    return message.replace("eval_matrix: ", "the evaluation files: ", 1)


def from_evalfiles(args: Any, bases: Sequence[Any], aggregates: set[str]) -> Inputs:
    """Per-topic values from evaluation files (``trec_eval -q``, gdeval CSV), under the topic policy."""
    from ..data import eval_matrix

    frame = _read_evalfiles(args.evalfile)
    names = list(dict.fromkeys(frame["name"]))
    if args.baseline is not None and args.baseline not in names:
        raise CLIError(f"baseline run {args.baseline!r} is not in the evaluation files (their runs: "
                       f"{', '.join(names)})")
    check_aggregate_names({n: f"{n!r} (evaluation files)" for n in names}, aggregates)
    if args.qrels is not None:
        topics = list(dict.fromkeys(str(q) for q in load_qrels(args.qrels)["qid"]))
    else:
        topics = list(dict.fromkeys(frame["qid"].astype(str)))
        note("no --qrels: the topic set is the topics of the evaluation files (a topic no run has is "
             "not counted)")
    on_extra = "warn" if args.drop_extra_topics else "error"
    matrices = {}
    with notes_from_warnings():
        for base in bases:
            try:
                matrices[repr(base)] = eval_matrix(frame, repr(base), topics=topics, mode=args.topic_policy,
                                                   on_extra=on_extra)
            except ValueError as e:
                raise CLIError(_evalfile_error(str(e))) from e
    return Inputs(names, _aligned(matrices, names, args.topic_policy), args.baseline, None)
