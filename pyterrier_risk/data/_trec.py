"""Strict readers for TREC run and qrels files (plain, gzip, bzip2 or xz) and ir_datasets qrels.

Unlike lenient readers, these stop at the first problem with an error that names the file and the
line: a wrong number of fields, a score that is not a number, a duplicated (qid, docno) pair, a NUL
byte, a relevance label outside the C ``int`` range the evaluators use.  Compression is recognised
by its magic bytes, not by the file name (:func:`open_text`, shared with the LETOR readers). A UTF-8
byte-order mark at the start of the file, or at the start of a line (as ``cat a b`` leaves it), is
ignored; it never becomes part of a topic id.  Numbers are ASCII (Python's ``int``/``float`` would
also take ``1_0`` and non-ASCII digits, which ``trec_eval`` does not).  The
topic policy (qrels topics define the topic set; missing topics score 0, extra topics are
ignored, each with a warning) is applied by :func:`read_run` when ``qrels`` is given, and by
:func:`pyterrier_risk.Experiment` otherwise.

Speed: a file is first parsed by pandas' C parser, with the same checks done column-wise (field
count, each distinct rank or label through the strict check, NaN scores, repeated pairs, and a
byte scan for what ``str.split`` reads unlike pandas: NUL, vertical tab, form feed, the ASCII
separators 28-31, non-ASCII spaces, a byte-order mark past the start). Whenever that path cannot
vouch for a file, the strict line-by-line parser reads it, so results and error messages are those
of the strict parser (``tests/test_io.py`` compares the two on generated files).
"""

from __future__ import annotations

import bz2
import csv
import gzip
import lzma
import math
import os
import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any, TypeVar

from ._atomic import raised_by_interrupt, watch_interrupts

if TYPE_CHECKING:
    import numpy as np
    import pandas as pd

__all__ = ["read_run", "read_qrels"]

_COMPRESSION = (".gz", ".bz2", ".xz")
#: relevance labels are C ints in pytrec_eval: outside this range they wrap around silently
_LABEL_RANGE = (-(2**31), 2**31 - 1)
_RANK_RANGE = (-(2**63), 2**63 - 1)
#: The spellings of a relevance label: ASCII digits with an optional sign and an optional fraction of
#: zeros ("2", "+2", "2.0", "2."). trec_eval reads a label with C's ``atol`` (the leading integer
#: part: "1.5" is 1, "1e1" is 1, "0.99999999999999999999" is 0) and ir_measures' own file reader
#: with Python's ``int`` (which refuses "2.0"): on these spellings both agree with the exact value.
_INT_SPELLING = re.compile(r"[+-]?[0-9]+(?:\.0*)?")
_LINE_BOM = re.compile("^\ufeff+", re.MULTILINE)
#: What the strict parser splits at (``str.split``, ``str.splitlines``) and pandas' C parser does not
#: (it splits fields at space and tab, lines at LF and CR), the NUL byte, and a byte-order mark (the
#: strict parser drops one at a line start): a file holding any of them is read by the strict parser
#: only. ``tests/test_io.py`` checks the list against ``str.isspace``.
_STRICT_ONLY_CHARS = (
    "\x00\x0b\x0c\x1c\x1d\x1e\x1f\x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007"
    "\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000\ufeff"
)
_ASCII_STRICT_ONLY = tuple(ch.encode() for ch in _STRICT_ONLY_CHARS if ch.isascii())
_UTF8_STRICT_ONLY = re.compile(b"|".join(re.escape(ch.encode()) for ch in _STRICT_ONLY_CHARS))
_BOM = "\ufeff".encode()
_NO_PATH = Path()


def run_name(path: str | os.PathLike[str]) -> str:
    """A run's name from its file name, without compression and extension (``bm25.run.gz`` -> ``bm25``).

    A last dotted part without letters is a number, not an extension: ``BM25b0.75`` stays whole.
    """
    name = Path(path).name
    for compression in _COMPRESSION:
        name = name.removesuffix(compression)
    stem, dot, ext = name.rpartition(".")
    return stem if dot and stem and any(ch.isalpha() for ch in ext) else name


def ensure_writable_dir(folder: str | os.PathLike[str]) -> Path:
    """Create ``folder`` (with parents) and check a file can be written in it.

    Raises:
        OSError: the folder cannot be created or written; ``strerror`` says why.
    """
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    probe = folder / f".pyterrier-risk-write-test-{os.getpid()}"
    probe.write_text("")
    probe.unlink()
    return folder


def _compression(head: bytes) -> str | None:
    """``'gzip'``, ``'bzip2'``, ``'xz'`` or ``None`` from a file's first bytes (its magic number)."""
    if head.startswith(b"\x1f\x8b"):
        return "gzip"
    if head.startswith(b"\xfd7zXZ\x00"):
        return "xz"
    # "BZh" + block size digit + the block (pi) or end-of-stream (sqrt pi) magic: a text file that
    # happens to start with "BZh" is not taken for bzip2
    if re.match(rb"BZh[1-9](1AY&SY|\x17rE8P\x90)", head):
        return "bzip2"
    return None


_OPENERS: dict[str, Callable[..., Any]] = {"gzip": gzip.open, "bzip2": bz2.open, "xz": lzma.open}


def open_text(path: str | os.PathLike[str], encoding: str = "utf-8-sig") -> IO[str]:
    """Open a file for reading as text, decompressing gzip, bzip2 or xz recognised by its magic bytes.

    The one opener of the package's file readers (TREC runs and qrels, LETOR, MQ2008-agg): the file
    name does not matter, so ``run.gz`` holding plain text and ``run`` holding gzip both read.

    Args:
        path: the file.
        encoding: the text encoding; the default ``utf-8-sig`` drops a leading byte-order mark.

    Returns:
        A text stream (universal newlines); close it (or use ``with``).

    Raises:
        OSError: the file cannot be opened (a corrupt compressed stream raises ``OSError``,
            ``EOFError`` or ``lzma.LZMAError`` when read).
    """
    with open(path, "rb") as fh:
        kind = _compression(fh.read(10))
    if kind is None:
        return open(path, encoding=encoding)
    return _OPENERS[kind](path, "rt", encoding=encoding)


def _read_text(p: Path, kind: str) -> str:
    if not p.exists():
        raise FileNotFoundError(f"{kind} file not found: {p}")
    if p.is_dir():
        raise IsADirectoryError(f"{kind} path is a directory, not a file: {p}")
    try:
        with open_text(p) as fh:
            return fh.read()
    except UnicodeDecodeError as e:
        raise ValueError(f"{p}: not a text {kind} file (undecodable byte at offset {e.start})") from None
    except (OSError, EOFError, lzma.LZMAError) as e:
        raise ValueError(f"{p}: cannot read {kind} file: {e}") from None


class _StrictOnly(Exception):  # noqa: N818 - a signal, not an error
    """The fast parser cannot vouch for this file: the strict parser reads it (and names any error)."""


class _ByteCheck:
    """Raises :class:`_StrictOnly` on bytes that pandas would read unlike ``str.split``, chunk by chunk."""

    def __init__(self) -> None:
        self._tail = b""  # the last bytes of the previous chunk: a UTF-8 sequence may span two

    def __call__(self, chunk: bytes) -> bytes:
        """Check the next chunk of the file (after the byte-order mark) and return it."""
        if chunk.isascii():
            if any(bad in chunk for bad in _ASCII_STRICT_ONLY):
                raise _StrictOnly
        elif _UTF8_STRICT_ONLY.search(self._tail + chunk):
            raise _StrictOnly
        self._tail = chunk[-2:]
        return chunk


class _CheckedBytes:
    """A binary stream that checks each chunk (:class:`_ByteCheck`) as pandas pulls it.

    It drops one byte-order mark at the start (as ``utf-8-sig`` does); the file is read once and
    never held whole in memory.
    """

    def __init__(self, raw: IO[bytes]) -> None:
        self._raw = raw
        self._start = True
        self._check = _ByteCheck()

    def read(self, size: int = -1) -> bytes:
        """The next chunk of at most ``size`` bytes (all that is left when ``size`` is negative)."""
        chunk = self._raw.read(size)
        if self._start and chunk:
            self._start = False
            chunk = chunk.removeprefix(_BOM)
        return self._check(chunk)

    def __iter__(self) -> Iterator[bytes]:  # pandas takes an object with read() and __iter__ for a file
        return iter(lambda: self.read(1 << 18), b"")

    def close(self) -> None:
        """Close the underlying file."""
        self._raw.close()


def _source(p: Path) -> _CheckedBytes:
    """The checking stream pandas reads ``p`` through, decompressed when ``p`` is compressed (close it).

    A stream, not the path: given a path, pandas is a little faster but holds the whole file in
    memory (about +40% peak memory on a 10-million-line run); the stream keeps one chunk at a time.
    """
    with open(p, "rb") as fh:
        kind = _compression(fh.read(10))
    return _CheckedBytes(open(p, "rb") if kind is None else _OPENERS[kind](p, "rb"))


def _pandas_float_options() -> dict[str, str]:
    """The ``read_csv`` option that makes pandas' C parser read floats as Python's ``float`` does.

    pandas >= 3.1 has one float converter, correctly rounded; before, only ``"round_trip"`` gives
    Python's float for every spelling (the default is off by an ulp on long mantissas).
    """
    import pandas as pd

    version = tuple(int(x) for x in re.findall(r"\d+", pd.__version__)[:2])
    return {} if version >= (3, 1) else {"float_precision": "round_trip"}


def _pandas_table(source: _CheckedBytes, names: list[str], dtypes: dict[str, Any]) -> pd.DataFrame:
    """The table pandas' C parser reads from ``source``: ``names`` and one more column, no NA words."""
    import numpy as np
    import pandas as pd

    precision = _pandas_float_options()
    return pd.read_csv(
        source, sep=r"\s+", header=None, names=[*names, "_extra"], index_col=False,
        dtype={**{c: object for c in names}, "_extra": np.float64, **dtypes}, keep_default_na=False,
        na_values={names[-1]: [""], "_extra": [""]}, quoting=csv.QUOTE_NONE, engine="c",
        encoding="utf-8", encoding_errors="strict", compression=None, **precision,
    )  # fmt: skip


def _fast_table(p: Path, names: list[str], dtypes: dict[str, Any]) -> pd.DataFrame | None:
    """The whitespace-separated fields of ``p`` parsed by pandas' C parser; None when it cannot vouch.

    One more column than ``names`` is read (as a number: a text field there fails to parse), so that a
    line with a field too many is seen (None then); a missing trailing field is ``NaN`` in the last
    named column (checked here). Any failure (an unreadable or corrupt file, bad UTF-8, two fields
    too many, a number pandas cannot parse, anything else pandas raises) also gives None: the strict
    parser then reads the file and names the problem.

    Only Ctrl-C is not a failure. pandas' C parser turns a ``KeyboardInterrupt`` raised as it calls
    the stream's ``read`` into a ``ParserError``, sometimes without the interrupt in its chain: a SIGINT
    while pandas reads (:func:`~._atomic.watch_interrupts`) is raised again as ``KeyboardInterrupt``.
    """
    source = None
    with watch_interrupts() as watch:
        try:
            source = _source(p)
            table = _pandas_table(source, names, dtypes)
        except Exception as e:  # whatever the cause, the strict parser decides (and names the line)
            if watch.hit or raised_by_interrupt(e):
                raise KeyboardInterrupt from None
            return None
        finally:
            if source is not None:
                source.close()
    if watch.hit:  # pandas dropped the interrupt and went on
        raise KeyboardInterrupt
    if table.empty or table[names[-1]].isna().any() or table["_extra"].notna().any():
        return None
    return table


def _checked_codes(column: pd.Series, check: Callable[[str], int]) -> np.ndarray | None:
    """``column`` (strings) as int64 with ``check`` applied to each distinct value; None if one fails.

    Ranks and labels have few distinct values: the strict per-value check costs little this way.
    """
    import numpy as np
    import pandas as pd

    codes, uniques = pd.factorize(column.to_numpy(), use_na_sentinel=False)
    try:
        values = np.array([check(u) for u in uniques], dtype=np.int64)
    except (ValueError, TypeError, OverflowError):
        return None
    return values[codes]


def _unique_pairs(qids: np.ndarray, docnos: np.ndarray) -> bool:
    """Whether no (qid, docno) pair repeats; topic by topic, on the topics' blocks of lines."""
    import numpy as np
    import pandas as pd

    if len(qids) == 0:
        return True
    starts = np.flatnonzero(qids[1:] != qids[:-1]) + 1
    if len(starts) + 1 != len(pd.unique(qids[np.concatenate([[0], starts])])):  # a topic in several blocks
        order = np.argsort(pd.factorize(qids)[0], kind="stable")
        qids, docnos = qids[order], docnos[order]
        starts = np.flatnonzero(qids[1:] != qids[:-1]) + 1
    bounds = [0, *starts.tolist(), len(qids)]
    docs = docnos.tolist()
    return all(len(set(docs[a:b])) == b - a for a, b in zip(bounds[:-1], bounds[1:], strict=True))


def _open_lines(path: str | os.PathLike[str], kind: str) -> list[str]:
    """The lines of a run or qrels file; a NUL byte is an error naming the line."""
    p = Path(path)
    text = _read_text(p, kind)
    if "\ufeff" in text:  # a byte-order mark at a line start (files joined with cat keep theirs)
        text = _LINE_BOM.sub("", text)
    lines = text.splitlines()
    if "\x00" in text:  # C evaluators would cut a NUL-containing id short: two documents could merge
        lineno = next(i for i, line in enumerate(lines, 1) if "\x00" in line)
        raise ValueError(f"{p}:{lineno}: NUL byte in the {kind} file (a binary or corrupted file?)")
    return lines


_Number = TypeVar("_Number", int, float)


def _number(text: str, parse: Callable[[str], _Number], p: Path, lineno: int, what: str) -> _Number:
    """``parse(text)`` for an ASCII number without ``_`` (``int('1_0')`` is 10 in Python, not in C)."""
    try:
        if not text.isascii() or "_" in text:
            raise ValueError
        return parse(text)
    except ValueError:
        kind = "an integer" if parse is int else "a number"
        raise ValueError(f"{p}:{lineno}: {what} {text!r} is not {kind}") from None


def _records(p: Path, kind: str, layout: str) -> Iterator[tuple[int, list[str]]]:
    """``(line number, fields)`` of each non-blank line; a wrong field count names the file and line."""
    width = len(layout.split())
    for lineno, line in enumerate(_open_lines(p, kind), 1):
        fields = line.split()
        if not fields:
            continue
        if len(fields) != width:
            raise ValueError(
                f"{p}:{lineno}: expected {width} fields '{layout}', found {len(fields)}: {line!r}"
            )
        yield lineno, fields


def _first_time(
    seen: dict[tuple[str, str], int], qid: str, docno: str, p: Path, lineno: int, verb: str
) -> None:
    """Record a (qid, docno) pair; a pair seen before is an error naming both lines."""
    first = seen.setdefault((qid, docno), lineno)
    if first != lineno:
        if verb == "listed":  # a run: the run policy's message (core), as for frames
            from ..core import repeated_pair_message

            raise ValueError(repeated_pair_message(f"{p}:{lineno}", qid, docno, f"line {first}"))
        raise ValueError(
            f"{p}:{lineno}: document {docno!r} is {verb} twice for topic {qid!r} (first at line {first})"
        )


def _run_columns(p: Path) -> tuple[list[str], list[str], list[int], list[float]]:
    """The qid, docno, rank and score columns of a run file, each line checked (see :func:`read_run`)."""
    qids: list[str] = []
    docnos: list[str] = []
    ranks: list[int] = []
    scores: list[float] = []
    seen: dict[tuple[str, str], int] = {}
    for lineno, fields in _records(p, "run", "qid Q0 docno rank score tag"):
        qid, _, docno, rank, score, _ = fields
        try:  # the common case inline: a call per field is measurably slower on million-line runs
            rank_i, score_f = int(rank), float(score)
            plain = rank.isascii() and score.isascii() and "_" not in rank and "_" not in score
        except ValueError:
            plain = False
        if not plain:
            rank_i = _number(rank, int, p, lineno, "rank")
            score_f = _number(score, float, p, lineno, "score")
        if not _RANK_RANGE[0] <= rank_i <= _RANK_RANGE[1]:
            raise ValueError(f"{p}:{lineno}: rank {rank} does not fit in 64 bits")
        if math.isnan(score_f):
            from ..core import nan_score_message

            raise ValueError(nan_score_message(f"{p}:{lineno}", qid, docno))
        _first_time(seen, qid, docno, p, lineno, "listed")
        qids.append(qid)
        docnos.append(docno)
        ranks.append(rank_i)
        scores.append(score_f)
    if not qids:
        raise ValueError(f"{p}: run file has no results")
    return qids, docnos, ranks, scores


def _rank_value(text: str) -> int:
    """A rank as the strict parser takes it (ASCII integer, no ``_``, 64 bits); else ``ValueError``."""
    value = _number(text, int, _NO_PATH, 0, "rank")
    if not _RANK_RANGE[0] <= value <= _RANK_RANGE[1]:
        raise ValueError(text)
    return value


def _fast_run_columns(p: Path) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray] | None:
    """The columns of :func:`_run_columns` from pandas' C parser, or None: the strict parser decides.

    None for anything the strict parser could refuse or read differently: a wrong field count, a
    rank or score it would not take (each distinct rank goes through the strict check), a NaN
    score, a repeated (qid, docno) pair, a character ``str.split`` treats unlike pandas
    (:data:`_STRICT_ONLY_CHARS`), an unreadable file. pandas' float parser gives the same doubles
    as Python's ``float`` (checked in ``tests/test_io.py``).
    """
    import numpy as np

    # Q0 and tag are only counted: as categories they cost a hash per line, not a string object
    dtypes = {"q0": "category", "score": np.float64, "tag": "category"}
    table = _fast_table(p, ["qid", "q0", "docno", "rank", "score", "tag"], dtypes)
    if table is None:
        return None
    scores = table["score"].to_numpy(dtype=np.float64)
    ranks = _checked_codes(table["rank"], _rank_value)
    if ranks is None or np.isnan(scores).any():
        return None
    qids, docnos = table["qid"].to_numpy(), table["docno"].to_numpy()
    if not _unique_pairs(qids, docnos):
        return None
    return qids, docnos, ranks, scores


def read_run(
    path: str | os.PathLike[str],
    qrels: pd.DataFrame | None = None,
    *,
    name: str | None = None,
) -> pd.DataFrame:
    """Read a TREC run file (``qid Q0 docno rank score tag``, whitespace separated, optionally compressed).

    Args:
        path: the run file.
        qrels: optional qrels DataFrame (``qid`` column); when given, results for topics absent from
            the qrels are dropped, and a :class:`~pyterrier_risk.TopicPolicyWarning` gives
            the count of dropped topics and of qrels topics without results (those score 0 when
            evaluated).
        name: value of the ``name`` column (default: :func:`run_name`, the file name without its
            compression suffix and an extension with letters: ``bm25.run.gz`` -> ``bm25``,
            ``BM25b0.75`` stays whole).

    Returns:
        A DataFrame with PyTerrier's result columns ``qid``, ``docno``, ``rank``, ``score``, ``name``
        (qid/docno as str, score as float, rank as int), in file order.

    Raises:
        FileNotFoundError: if the file does not exist.
        ValueError: for an unreadable file, an empty run, or a malformed line (wrong number of
            fields, non-numeric rank or score, a rank beyond 64 bits, NaN score, a NUL byte), or a
            (qid, docno) pair listed twice; the message names the file and line(s). Infinite scores
            (``inf``, ``1e400``) are kept: scores only order the documents. This is the run policy
            of the whole package: result frames given to ``Experiment``, ``hurt_topics``, the risk
            measures or ``rank_distance`` are refused for a NaN score or a repeated pair alike, with
            the same messages (``pyterrier_risk.core.check_run_frame``).
    """
    import numpy as np
    import pandas as pd

    p = Path(path)
    qids, docnos, ranks, scores = _fast_run_columns(p) or _run_columns(p)
    if name is None:
        name = run_name(p)
    # plain numpy/object columns (not pandas extension arrays): ir_measures iterates them element by
    # element when it converts a run, which is several times slower on extension arrays
    run = pd.DataFrame(
        {
            "qid": pd.Series(qids, dtype=object, copy=False),
            "docno": pd.Series(docnos, dtype=object, copy=False),
            "rank": np.asarray(ranks, dtype=np.int64),
            "score": np.asarray(scores, dtype=np.float64),
            "name": pd.Series([name] * len(qids), dtype=object),
        },
        copy=False,
    )
    if qrels is not None:
        from ..core import qrels_topics, warn_extra, warn_missing

        topics = qrels_topics(qrels["qid"])
        topic_set = set(topics)
        run_topics = set(run["qid"])
        warn_missing(len(topic_set - run_topics), len(topics), f"run {str(p)!r}")
        extra = run_topics - topic_set
        warn_extra(len(extra), f"run {str(p)!r}")
        if extra:
            run = run[run["qid"].isin(topic_set)].reset_index(drop=True)
    return run


def read_qrels(path_or_id: str | os.PathLike[str]) -> pd.DataFrame:
    """Read qrels from a TREC qrels file (``qid iter docno label``) or an ir_datasets id.

    Args:
        path_or_id: a qrels file (plain, gzip, bzip2 or xz), or an ir_datasets id, with or without the
            ``irds:`` prefix PyTerrier uses (``irds:vaswani``, ``disks45/nocr/trec7``).  A string that
            names an existing file is read as a file.

    Returns:
        A DataFrame with PyTerrier's qrels columns ``qid``, ``docno`` (str) and ``label`` (int).

    Raises:
        FileNotFoundError: if a path that looks like a file (has a path separator or extension and no
            ``irds:`` prefix) does not exist and is not an ir_datasets id either.
        ValueError: for a malformed line (file and line named; labels must be integers in the 32-bit
            range), a (qid, docno) pair judged twice, an empty file, an unknown ir_datasets id, or a
            dataset without qrels.

    Label policy: a label is written as an integer: ASCII digits, an optional sign and an optional
    fraction of zeros (``2``, ``+2``, ``2.0``, ``2.``). Anything else is refused, naming the line:
    ``1.5``, ``1e1``, ``0.99999999999999999999``. On these spellings trec_eval (which reads the
    integer part with C's ``atol``: ``1.5`` as 1, ``1e1`` as 1, ``0.99999999999999999999`` as 0) and
    the exact value agree. ir_measures' own file reader (Python's ``int``) also refuses ``2.0``;
    this reader takes it, as trec_eval does, since its value is exact.
    """
    import pandas as pd

    text = os.fspath(path_or_id)
    if not text.startswith("irds:") and os.path.exists(text):
        return _read_qrels_file(Path(text))
    dataset_id = text[len("irds:") :] if text.startswith("irds:") else text
    try:
        import ir_datasets

        dataset = ir_datasets.load(dataset_id)
    except KeyError:
        if not text.startswith("irds:"):
            raise FileNotFoundError(
                f"qrels file not found, and not an ir_datasets id either: {text}"
            ) from None
        raise ValueError(f"unknown ir_datasets id {dataset_id!r} (from {text!r})") from None
    if not dataset.has_qrels():
        raise ValueError(f"ir_datasets dataset {dataset_id!r} has no qrels")
    frame = pd.DataFrame(
        [(str(q.query_id), str(q.doc_id), int(q.relevance)) for q in dataset.qrels_iter()],
        columns=["qid", "docno", "label"],
    ).astype({"qid": object, "docno": object})
    if frame.empty:
        raise ValueError(f"ir_datasets dataset {dataset_id!r} has empty qrels")
    return frame


def _label(text: str, p: Path, lineno: int) -> int:
    """A relevance label: an integer spelling (:data:`_INT_SPELLING`) in the evaluators' C ``int`` range."""
    if _INT_SPELLING.fullmatch(text) is None:
        raise ValueError(
            f"{p}:{lineno}: relevance label {text!r} is not an integer "
            "(labels are written as integers, such as 2 or 2.0)"
        )
    value = int(text.partition(".")[0])
    if not _LABEL_RANGE[0] <= value <= _LABEL_RANGE[1]:
        raise ValueError(
            f"{p}:{lineno}: relevance label {text} is outside [{_LABEL_RANGE[0]}, {_LABEL_RANGE[1]}] "
            "(evaluators store labels as 32-bit ints)"
        )
    return value


def _fast_qrels(p: Path) -> pd.DataFrame | None:
    """:func:`_read_qrels_file`'s frame from pandas' C parser, or None: the strict parser decides.

    As :func:`_fast_run_columns`: each distinct label goes through the strict :func:`_label`.
    """
    import pandas as pd

    table = _fast_table(p, ["qid", "iter", "docno", "label"], {"iter": "category"})
    if table is None:
        return None
    labels = _checked_codes(table["label"], lambda text: _label(text, p, 0))
    qids, docnos = table["qid"].to_numpy(), table["docno"].to_numpy()
    if labels is None or not _unique_pairs(qids, docnos):
        return None
    columns = {"qid": qids, "docno": docnos}
    frame = {k: pd.Series(v, dtype=object, copy=False) for k, v in columns.items()}
    return pd.DataFrame({**frame, "label": labels}, copy=False)


def _strict_qrels_rows(p: Path) -> list[tuple[str, str, int]]:
    """The (qid, docno, label) of each judgment, each line checked (see :func:`read_qrels`)."""
    rows: list[tuple[str, str, int]] = []
    seen: dict[tuple[str, str], int] = {}
    for lineno, fields in _records(p, "qrels", "qid iter docno label"):
        qid, _, docno, label = fields
        label_i = _label(label, p, lineno)
        _first_time(seen, qid, docno, p, lineno, "judged")
        rows.append((qid, docno, label_i))
    if not rows:
        raise ValueError(f"{p}: qrels file has no judgments")
    return rows


def _read_qrels_file(p: Path) -> pd.DataFrame:
    """A qrels file: pandas' C parser when it can vouch for the file, else the strict parser."""
    import pandas as pd

    fast = _fast_qrels(p)
    if fast is not None:
        return fast
    rows = _strict_qrels_rows(p)
    return pd.DataFrame(rows, columns=["qid", "docno", "label"]).astype({"qid": object, "docno": object})
