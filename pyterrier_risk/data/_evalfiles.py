"""Strict readers for per-topic evaluation output (``trec_eval -q``, ``gdeval.pl``): when the runs are gone.

The readers return one tidy frame per file, one row per (run, topic, measure), with the columns

* ``name``: the run (trec_eval's ``runid``, gdeval's ``runid`` column);
* ``qid``: the topic (str); the aggregate rows (trec_eval's ``all``, gdeval's ``amean``) are dropped;
* ``measure``: the ``ir_measures`` name of the value's definition where one is known (``map`` ->
  ``AP``, ``P_10`` -> ``P@10``, ``ndcg_cut_20`` -> ``nDCG@20``, gdeval's ``ndcg@20`` ->
  ``nDCG(dcg='exp-log2')@20``, ``err@20`` -> ``ERR@20``), else the name as written;
* ``value``: the value (float);
* ``file_measure``: the measure's name as written in the file.

This is the layout of ``pt.Experiment(..., perquery=True)``, plus ``file_measure``.
:func:`eval_matrix` turns such frames into the systems × topics matrix that the risk functions take,
under the package's topic policy (:mod:`pyterrier_risk.core._topics`).

gdeval's nDCG uses the gains ``2^label - 1`` (labels <= 0 gain nothing), trec_eval's ``ndcg_cut``
the labels themselves: the two agree for binary qrels only. A name means one definition: gdeval's
is ``nDCG(dcg='exp-log2')@k`` (ir_measures computes that one with gdeval.pl), trec_eval's
``nDCG@k``; asking for one where a file holds the other is an error that says how to ask for it.

Every problem in a file is a ``ValueError`` naming the file and line. Files may be compressed (gzip,
bzip2, xz), start with a byte-order mark and use CRLF line ends.
"""

from __future__ import annotations

import functools
import math
import os
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ._trec import _open_lines, run_name

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["read_trec_eval", "read_gdeval", "read_eval_file", "eval_matrix", "EVAL_COLUMNS"]

EVAL_COLUMNS = ("name", "qid", "measure", "value", "file_measure")
_STRING_MEASURES = frozenset({"runid", "relstring"})  # trec_eval measures whose values are not numbers
_GDEVAL_MEASURE = re.compile(r"^(ndcg|err)@(\d+)$", re.IGNORECASE)
#: gdeval's measures by the ir_measures names of the same definitions: its nDCG gains 2^label - 1, as
#: ir_measures' ``nDCG(dcg='exp-log2')`` (computed by gdeval.pl itself); ir_measures' ERR is gdeval's
_GDEVAL_NAMES = {"ndcg": "nDCG(dcg='exp-log2')", "err": "ERR"}
#: what each tool's nDCG is, for the message that refuses one for the other
_DEFINITIONS = {"nDCG(dcg='exp-log2')": "gdeval's nDCG, gain 2^label - 1",
                "nDCG": "trec_eval's ndcg_cut, gain = label"}
_RUN_COLUMNS = ("runid", "run")
_SHOWN = 8


# -- measure names ----------------------------------------------------------------------------------
@functools.lru_cache(maxsize=4096)
def _trec_eval_name(name: str) -> str:
    """The ir_measures name of a trec_eval measure, or the name itself when ir_measures has none."""
    import ir_measures

    try:
        found = ir_measures.parse_trec_measure(name)
    except (ValueError, KeyError, TypeError):
        return name
    return str(found[0]) if len(found) == 1 else name


def _gdeval_name(name: str) -> str:
    """``ndcg@20`` -> ``nDCG(dcg='exp-log2')@20``, ``err@20`` -> ``ERR@20``; any other name as written."""
    found = _GDEVAL_MEASURE.match(name)
    return f"{_GDEVAL_NAMES[found.group(1).lower()]}@{int(found.group(2))}" if found else name


@functools.lru_cache(maxsize=1024)
def _requested_names(text: str) -> frozenset[str]:
    """The names a requested measure may have in a tidy frame (its ir_measures and trec_eval readings).

    gdeval's own spelling (``ndcg@20``) matches the file's column as written; ``nDCG@20`` is not
    read as gdeval's ``ndcg@20``, which is another definition.
    """
    import ir_measures

    names = {text}
    try:
        names.add(str(ir_measures.parse_measure(text)))
    except (ValueError, KeyError, TypeError, SyntaxError, NameError, AttributeError):
        pass
    try:
        names.update(str(m) for m in ir_measures.parse_trec_measure(text))
    except (ValueError, KeyError, TypeError):
        pass
    return frozenset(names)


def _as_requests(measure: Any) -> list[str]:
    """``measure=`` as a list of strings: one name or Measure, or an iterable of them."""
    if isinstance(measure, str) or not isinstance(measure, Iterable):
        measure = [measure]
    requests = [m if isinstance(m, str) else str(m) for m in measure]
    if not requests:
        raise ValueError("measure= is an empty list (give None for every measure)")
    return requests


def _family(name: str) -> tuple[str, str]:
    """A measure name without its cutoff, and the cutoff: ``nDCG(dcg='exp-log2')@20`` -> (stem, ``'20'``)."""
    stem, _, cutoff = name.rpartition("@") if "@" in name else (name, "", "")
    return stem, cutoff


def _asked_definitions(request: str) -> list[tuple[str, str]]:
    """The (stem, cutoff) of each definition a request names (gdeval's lower-case ``ndcg@20`` included)."""
    names = set(_requested_names(request))
    if request == request.lower() and _GDEVAL_MEASURE.match(request):
        names.add(_gdeval_name(request))
    return [_family(n) for n in names]


def _other_definition(request: str, known: list[str]) -> tuple[str, str] | None:
    """A measure in ``known`` of the same kind and cutoff as ``request`` but defined otherwise.

    Returns:
        ``(its name, a sentence: what it is, what the request is)``, or None.
    """
    asked = _asked_definitions(request)
    for name in known:
        stem, cutoff = _family(name)
        for other, at in asked:
            if at == cutoff and other != stem and other.split("(")[0] == stem.split("(")[0]:
                what, theirs = _DEFINITIONS.get(stem), _DEFINITIONS.get(other)
                return name, (f"{name}{f' ({what})' if what else ''} is not {other}@{at}"
                              f"{f' ({theirs})' if theirs else ''}")
    return None


def _select(frame: pd.DataFrame, measure: Any, where: str) -> pd.DataFrame:
    """The rows of ``frame`` for the requested measure(s); one that matches nothing is an error.

    A request matches its own definition only: ``nDCG@20`` and trec_eval's ``ndcg_cut_20`` do not
    match gdeval's ``ndcg@20`` (``nDCG(dcg='exp-log2')@20``); the error then says how to ask for it.
    """
    if measure is None:
        return frame
    file_measure = frame["file_measure"] if "file_measure" in frame else frame["measure"]
    keep = None
    for request in _as_requests(measure):
        hit = frame["measure"].isin(_requested_names(request)) | (file_measure == request)
        if not hit.any():
            known = list(dict.fromkeys(frame["measure"]))
            shown = ", ".join(known[:_SHOWN]) + (", ..." if len(known) > _SHOWN else "")
            other = _other_definition(request, known)
            hint = f"; the file's {other[1]}: ask for {other[0]} to use it" if other else ""
            raise ValueError(f"{where}: no measure {request!r} (found: {shown}){hint}")
        keep = hit if keep is None else keep | hit
    return frame[keep].reset_index(drop=True)


# -- reading ----------------------------------------------------------------------------------------
def _lines(p: Path) -> list[str]:
    """The file's lines, through the package's opener (gzip/bzip2/xz by magic bytes, BOM dropped)."""
    return _open_lines(p, "evaluation")


def _value(text: str, p: Path, lineno: int, what: str) -> float:
    """A finite, non-negative value; anything else is an error naming the file and line."""
    try:
        value = float(text)
    except ValueError:
        raise ValueError(f"{p}:{lineno}: value {text!r} of {what} is not a number") from None
    if not math.isfinite(value):
        raise ValueError(f"{p}:{lineno}: value of {what} is {text!r}; a per-topic value must be finite")
    if value < 0:
        raise ValueError(
            f"{p}:{lineno}: value of {what} is negative ({text}); per-topic effectiveness is >= 0 "
            "(risk-weighted differences, as gdeval -baseline prints, cannot be read: evaluate without it)"
        )
    return value


def _frame(rows: list[tuple[str, str, str, float, str]], p: Path) -> pd.DataFrame:
    import pandas as pd

    if not rows:
        raise ValueError(f"{p}: no per-topic values in the evaluation file")
    frame = pd.DataFrame(rows, columns=list(EVAL_COLUMNS))
    return frame.astype({"name": object, "qid": object, "measure": object, "file_measure": object})


@dataclass
class _Block:
    """One run's part of a trec_eval file: its rows, runid and first line."""

    start: int
    runid: str | None = None
    summary_seen: bool = False
    rows: list[tuple[str, str, str, float, str]] = field(default_factory=list)
    seen: dict[tuple[str, str], int] = field(default_factory=dict)


def _trec_eval_blocks(p: Path) -> list[_Block]:
    """The runs of a trec_eval file: a per-topic line after ``all`` lines starts the next run."""
    blocks = [_Block(start=1)]
    for lineno, line in enumerate(_lines(p), 1):
        fields = line.split()
        if not fields:
            continue
        if len(fields) != 3:
            raise ValueError(
                f"{p}:{lineno}: expected 3 fields 'measure qid value' (trec_eval -q output), "
                f"found {len(fields)}: {line!r}"
            )
        name, qid, text = fields
        block = blocks[-1]
        if qid == "all":
            block.summary_seen = True
            if name == "runid":
                block.runid = text
            continue
        if block.summary_seen:
            block = _Block(start=lineno)
            blocks.append(block)
        if name in _STRING_MEASURES:
            continue
        first = block.seen.setdefault((name, qid), lineno)
        if first != lineno:
            raise ValueError(f"{p}:{lineno}: {name} of topic {qid!r} is given twice (first at line {first})")
        value = _value(text, p, lineno, f"{name} for topic {qid!r}")
        block.rows.append(("", qid, _trec_eval_name(name), value, name))
    return blocks


def _name_blocks(blocks: list[_Block], p: Path, name: str | None) -> list[tuple[str, str, str, float, str]]:
    """Each block's rows with its run name (``name``, else its runid, else the file's name)."""
    if name is not None and len(blocks) > 1:
        raise ValueError(f"{p}: name= names one run, but the file has {len(blocks)} runs (lines "
                         f"{', '.join(str(b.start) for b in blocks)}); they are named by their runid lines")
    rows: list[tuple[str, str, str, float, str]] = []
    first_line: dict[str, int] = {}
    for block in blocks:
        if not block.rows and len(blocks) == 1 and not block.summary_seen:
            raise ValueError(f"{p}: no per-topic values in the evaluation file")
        if not block.rows:
            raise ValueError(f"{p}:{block.start}: a run without per-topic values (trec_eval without -q?)")
        run = name if name is not None else block.runid or run_name(p)
        if first_line.setdefault(run, block.start) != block.start:
            raise ValueError(f"{p}:{block.start}: a second run named {run!r} (the first starts at line "
                             f"{first_line[run]}); give the runs different run tags")
        rows += [(run, *row[1:]) for row in block.rows]
    return rows


def read_trec_eval(
    path: str | os.PathLike[str], measure: Any = None, *, name: str | None = None
) -> pd.DataFrame:
    """Read per-topic ``trec_eval -q`` output (any ``-m``, also ``-m all_trec``), plain or compressed.

    Each line is ``measure qid value`` (whitespace separated). Lines for the topic ``all`` (the
    averages, ``num_q``, ``runid``) are not per-topic values: ``runid`` names the run, the others
    are dropped, as is ``relstring``. Several outputs may be concatenated (``for r in runs; do
    trec_eval -q qrels $r; done``): a per-topic line that follows ``all`` lines starts the next run.

    Args:
        path: the file.
        measure: keep only this measure (a name as ir_measures or trec_eval spells it, or a
            ``Measure``), or a list of them; None keeps all.
        name: the run's name (only for a file with one run; default: its ``runid`` line, else the
            file name without extension).

    Returns:
        A tidy frame with the columns of :data:`EVAL_COLUMNS`, in file order.

    Raises:
        FileNotFoundError: the file does not exist.
        ValueError: naming file and line: a line without 3 fields, a value that is not a finite
            number >= 0, a measure given twice for a topic, a run without per-topic lines (no
            ``-q``), two runs with one name; or no such ``measure`` in the file.
    """
    p = Path(path)
    frame = _frame(_name_blocks(_trec_eval_blocks(p), p, name), p)
    return _select(frame, measure, str(p))


@dataclass(frozen=True)
class _Header:
    """The columns of a gdeval header line: run, topic, optional cutoff ``k``, the measures."""

    width: int
    run: int
    topic: int
    k: int | None
    measures: tuple[tuple[int, str], ...]


def _gdeval_header(fields: list[str], p: Path, lineno: int) -> _Header:
    lowered = [f.lower() for f in fields]
    if len(set(lowered)) != len(lowered) or "topic" not in lowered:
        raise ValueError(f"{p}:{lineno}: a gdeval header needs distinct columns 'runid,topic,<measures>', "
                         f"found {','.join(fields)!r}")
    named = {"runid", "run", "topic", "k"}
    measures = tuple((i, f) for i, f in enumerate(fields) if lowered[i] not in named)
    if not measures:
        raise ValueError(f"{p}:{lineno}: the gdeval header has no measure columns: {','.join(fields)!r}")
    k = lowered.index("k") if "k" in lowered else None
    return _Header(len(fields), 0, lowered.index("topic"), k, measures)


def _gdeval_row(fields: list[str], header: _Header, p: Path, lineno: int, line: str) -> list[tuple]:
    """The (run, topic, measure, value, file measure) rows of one per-topic line."""
    if len(fields) != header.width:
        if "(rel to. " in line:
            raise ValueError(f"{p}:{lineno}: gdeval -baseline output (risk-weighted differences) cannot be "
                             "read; evaluate the runs without -baseline")
        raise ValueError(f"{p}:{lineno}: expected {header.width} comma-separated fields, found "
                         f"{len(fields)}: {line!r}")
    run, topic = fields[header.run], fields[header.topic]
    if not run or not topic:
        raise ValueError(f"{p}:{lineno}: empty {'run' if not run else 'topic'} field: {line!r}")
    cutoff = None
    if header.k is not None:
        cutoff = fields[header.k]
        if not cutoff.isdigit() or int(cutoff) < 1:
            raise ValueError(f"{p}:{lineno}: cutoff k {cutoff!r} is not a positive integer")
    rows = []
    for i, written in header.measures:
        file_measure = re.sub(r"@k$", f"@{int(cutoff)}", written, flags=re.IGNORECASE) if cutoff else written
        value = _value(fields[i], p, lineno, f"{file_measure} for topic {topic!r}")
        rows.append((run, topic, _gdeval_name(file_measure), value, file_measure))
    return rows


def read_gdeval(path: str | os.PathLike[str], measure: Any = None) -> pd.DataFrame:
    """Read ``gdeval.pl`` per-topic output (CSV ``runid,topic,ndcg@K,err@K``), plain or compressed.

    Several outputs may be concatenated, each after its header line (so several runs and cutoffs
    may share a file). A ``k`` column (``run,k,topic,ndcg@k,err@k``) gives the cutoff of each row's
    ``@k`` measures. The ``amean`` rows (averages) are dropped. gdeval prints only topics of its
    qrels that have a relevant document; with ``-c`` its ``amean`` also counts topics that the run
    lacks, which have no line: give :func:`eval_matrix` the qrels topics to score them 0.

    Args:
        path: the file.
        measure: keep only this measure (``nDCG(dcg='exp-log2')@20``, ``ERR@20`` or gdeval's
            ``ndcg@20``), or a list of them; None keeps all.

    Returns:
        A tidy frame with the columns of :data:`EVAL_COLUMNS` (gdeval's ``ndcg@K`` is
        ``nDCG(dcg='exp-log2')@K``, ``err@K`` is ``ERR@K``), in file order.

    Raises:
        FileNotFoundError: the file does not exist.
        ValueError: naming file and line: no header first, a header without ``topic`` or measure
            columns, a wrong number of fields, ``-baseline`` (risk) output, a value that is not a
            finite number >= 0, a (run, topic, measure) given twice; or no such ``measure``.
    """
    p = Path(path)
    header: _Header | None = None
    rows: list[tuple] = []
    seen: dict[tuple[str, str, str], int] = {}
    for lineno, line in enumerate(_lines(p), 1):
        if not line.strip():
            continue
        fields = [f.strip() for f in line.split(",")]
        if fields[0].lower() in _RUN_COLUMNS:
            header = _gdeval_header(fields, p, lineno)
            continue
        if header is None:
            raise ValueError(f"{p}:{lineno}: expected gdeval's header 'runid,topic,ndcg@K,err@K' first, "
                             f"found {line!r}")
        for row in _gdeval_row(fields, header, p, lineno, line):
            if row[1].lower() == "amean":
                continue
            first = seen.setdefault((row[0], row[1], row[4]), lineno)
            if first != lineno:
                raise ValueError(f"{p}:{lineno}: {row[4]} of run {row[0]!r} for topic {row[1]!r} is given "
                                 f"twice (first at line {first})")
            rows.append(row)
    return _select(_frame(rows, p), measure, str(p))


def read_eval_file(path: str | os.PathLike[str], measure: Any = None) -> pd.DataFrame:
    """Read gdeval CSV or ``trec_eval -q`` output, telling them apart by the first non-blank line.

    A first line that starts with gdeval's ``runid,`` (or ``run,``) header is gdeval output; anything
    else is read as trec_eval output. See :func:`read_gdeval` and :func:`read_trec_eval`.
    """
    p = Path(path)
    first = next((line for line in _lines(p) if line.strip()), "")
    if first.split(",")[0].strip().lower() in _RUN_COLUMNS and "," in first:
        return read_gdeval(p, measure)
    return read_trec_eval(p, measure)


# -- the systems x topics matrix --------------------------------------------------------------------
def _one_definition(selected: pd.DataFrame, measure: Any) -> None:
    """Values of one measure must come from one definition (one spelling in the files)."""
    if "file_measure" not in selected:
        return
    spellings = selected.groupby("file_measure", sort=False)["name"].unique()
    if len(spellings) > 1:
        where = "; ".join(f"{spelling!r} for {', '.join(map(str, names[:3]))}"
                          for spelling, names in spellings.items())
        raise ValueError(
            f"measure {str(measure)!r} comes from differently named file measures ({where}); tools "
            "define them differently (gdeval's nDCG gains 2^label-1, trec_eval's the label): use files "
            "of one tool, or select one spelling"
        )


def _no_other_definition(frame: pd.DataFrame, selected: pd.DataFrame, measure: Any) -> None:
    """A run that has the measure only in another definition (gdeval's nDCG for trec_eval's) is an error.

    Leaving it out would make a matrix without that run, and taking its values would mix definitions.
    """
    request = _as_requests(measure)[0]
    lacking = frame[~frame["name"].isin(set(selected["name"]))]
    other = _other_definition(request, list(dict.fromkeys(lacking["measure"])))
    if other is not None:
        runs = list(dict.fromkeys(lacking.loc[lacking["measure"] == other[0], "name"]))
        raise ValueError(f"measure {request!r}: run(s) {', '.join(map(repr, runs[:3]))} have it only in "
                         f"another definition: {other[1]}; use files of one tool")


def eval_matrix(
    frames: pd.DataFrame | Iterable[pd.DataFrame],
    measure: Any,
    *,
    topics: Any = None,
    mode: str = "qrels",
    on_extra: str = "warn",
) -> pd.DataFrame:
    """Systems × topics matrix of one measure from tidy per-topic frames, under the topic policy.

    Args:
        frames: tidy frames (:func:`read_trec_eval`, :func:`read_gdeval`, or
            ``pt.Experiment(..., perquery=True)``), one or several.
        measure: the measure (a name as ir_measures, trec_eval or gdeval spells it, or a ``Measure``).
        topics: the qrels topics: a qrels frame (``qid`` column) or an iterable of topic ids. None
            takes the union of the topics in the frames (the tools print only qrels topics, so
            this misses only topics that no run has).
        mode: ``"qrels"`` (a topic a run lacks scores 0, as ``-c``) or ``"intersection"`` (only the
            topics every run has, as gdeval without ``-c``); see ``topic_set`` in the topic policy.
        on_extra: values for topics absent from ``topics`` are ignored with a warning (``"warn"``)
            or are an error (``"error"``).

    Returns:
        A float DataFrame: one row per run (index ``name``, first-seen order), one column per topic
        (``qid``), ready for :func:`pyterrier_risk.zrisk`, :func:`pyterrier_risk.georisk` or, row by
        row, :func:`pyterrier_risk.urisk` and :func:`pyterrier_risk.trisk`.

    Raises:
        ValueError: missing columns, no such measure, values of one measure from differently named
            file measures, a run with two values for one topic, or a topic-policy error.

    Warns:
        TopicPolicyWarning: as the topic policy says (missing, left-out or extra topics).
    """
    import pandas as pd

    from ..core import apply_topic_policy, check_topic_mode, qrels_topics

    check_topic_mode(mode)
    frame = frames if isinstance(frames, pd.DataFrame) else pd.concat(list(frames), ignore_index=True)
    lacking = [c for c in ("name", "qid", "measure", "value") if c not in frame.columns]
    if lacking:
        raise ValueError(f"eval_matrix: the frames lack the column(s) {lacking} (name, qid, measure, value)")
    selected = _select(frame, measure, "eval_matrix")
    _one_definition(selected, measure)
    _no_other_definition(frame, selected, measure)
    twice = selected.duplicated(["name", "qid"], keep=False)
    if twice.any():
        run, qid = selected.loc[twice, ["name", "qid"]].iloc[0]
        raise ValueError(f"eval_matrix: run {run!r} has two values of {str(measure)!r} for topic {qid!r} "
                         "(two files with one run name?)")
    scores = {name: dict(zip(group["qid"].astype(str), group["value"].astype(float), strict=True))
              for name, group in selected.groupby("name", sort=False)}
    if isinstance(topics, pd.DataFrame):
        topics = topics["qid"]
    universe = None if topics is None else qrels_topics(topics)
    return apply_topic_policy(scores, universe, mode, on_extra=on_extra, stacklevel=2)
