"""Reader for LETOR / SVMlight learning-to-rank files.

The format (Joachims' SVMlight, used by LETOR 3.0/4.0, MSLR and LightGBM's examples) is one
query-document pair per line::

    <label> qid:<qid> <index>:<value> <index>:<value> ... # docid = <docno> ...

Feature indices are 1-based. Files may be gzip-, bzip2- or xz-compressed (recognised by their
magic bytes). When the lines carry no ``qid:`` token (as in LightGBM's
``examples/lambdarank/rank.train``) the grouping comes from a LightGBM ``.query`` file: one integer
per line, the number of consecutive rows of the next query.

Speed: the fast path (``_letor_fast``) reads the file once, in pieces of whole lines, with array
operations (numpy for the tokens, labels, qids and indices, pandas' C parser for the values) and fills
the dense matrix directly, with about 1.5 times its size besides (``benchmarks/bench_letor.py``).
Whenever that path cannot vouch for a file, the strict token-by-token parser reads it, so results and
error messages are those of the strict parser (``tests/test_fuzz.py`` compares the two on generated
files).
"""

from __future__ import annotations

import lzma
import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from ..core import check_int
from ._letor_fast import fast_rows
from ._trec import _label, open_text

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

__all__ = ["LetorData", "read_letor"]


@dataclass(frozen=True)
class LetorData:
    """A learning-to-rank data set read from a LETOR/SVMlight file.

    Rows are in file order and the rows of one query are contiguous.

    Attributes:
        X: ``n × f`` float64 dense feature matrix (absent sparse features are 0).
        y: ``n`` int64 relevance labels.
        qid: ``n`` query ids (str).
        docno: ``n`` document ids (str) from the ``#docid = ...`` comments, or ``None`` when the
            file has none.
        group: query sizes in file order (LightGBM's ``group``); ``group.sum() == n``.
        path: the file the data was read from.
    """

    X: np.ndarray
    y: np.ndarray
    qid: np.ndarray
    docno: np.ndarray | None
    group: np.ndarray
    path: str = ""

    @property
    def n_features(self) -> int:
        """Number of feature columns."""
        return int(self.X.shape[1])

    @property
    def n_queries(self) -> int:
        """Number of queries."""
        return int(len(self.group))

    def __len__(self) -> int:
        return int(self.X.shape[0])

    def to_frame(self) -> pd.DataFrame:
        """The data as a PyTerrier result frame.

        Returns:
            A DataFrame with columns ``qid``, ``docno``, ``features`` (one float64 numpy array per
            row, as PyTerrier's learning-to-rank transformers expect) and ``label``. When the file
            has no docids, ``docno`` is ``"<qid>_<position of the row within its query>"``.
        """
        import pandas as pd

        if self.docno is not None:
            docno = self.docno
        else:
            starts = np.repeat(np.cumsum(self.group) - self.group, self.group)
            pos = np.arange(len(self)) - starts
            docno = np.char.add(np.char.add(self.qid.astype(str), "_"), pos.astype(str)).astype(object)
        return pd.DataFrame(
            {
                "qid": self.qid.astype(object),
                "docno": np.asarray(docno).astype(object),
                "features": list(self.X),
                "label": self.y,
            }
        )


def _docid_from_comment(comment: str) -> str | None:
    # LETOR 4.0: "docid = GX008-86-4444840 inc = 1 prob = 0.08"; LETOR 3.0 / MSLR variants: "docid=X"
    pos = comment.find("docid")
    if pos < 0:
        return None
    rest = comment[pos + 5 :].lstrip()
    if not rest.startswith("="):
        return None
    parts = rest[1:].split()
    return parts[0] if parts else None


#: LightGBM stores feature indices as C ints
_MAX_INDEX = 2**31 - 1


def _pair(where: str, tok: str, n_features: int | None) -> tuple[int, float]:
    """One ``index:value`` token parsed strictly: 0-based column and value, or an error naming the line."""
    idx, sep, val = tok.partition(":")
    if not sep or not idx or not val or ":" in val:
        raise ValueError(f"{where}: malformed feature token {tok!r} (expected index:value)")
    if not (idx.isascii() and idx.isdigit()):
        raise ValueError(f"{where}: feature index {idx!r} is not an integer (write digits only)")
    i = int(idx)
    if not 1 <= i <= _MAX_INDEX:
        raise ValueError(f"{where}: feature index {i} is outside [1, {_MAX_INDEX}] (indices are 1-based)")
    if n_features is not None and i > n_features:
        raise ValueError(f"{where}: feature index {i} > n_features={n_features}")
    try:
        if not val.isascii() or "_" in val:
            raise ValueError
        value = float(val)
    except ValueError:
        raise ValueError(f"{where}: feature value {val!r} is not a number") from None
    return i - 1, value


def _read_group_file(path: Path) -> np.ndarray:
    sizes = []
    with open_text(path) as fh:
        for lineno, line in enumerate(fh, 1):
            text = line.strip()
            if not text:
                continue
            if not (text.isascii() and text.isdigit()):
                raise ValueError(f"{path}:{lineno}: query size {text!r} is not an integer")
            size = int(text)
            if size < 1:
                raise ValueError(f"{path}:{lineno}: query size {size} must be >= 1")
            sizes.append(size)
    return np.asarray(sizes, dtype=np.int64)


@dataclass
class _Rows:
    """The data lines of a LETOR file, parsed: one entry per line, and the feature triples."""

    y: np.ndarray  # int64 label per line
    qids: list[str] | np.ndarray  # empty when the lines carry no qid: token
    docnos: list[str | None] | np.ndarray
    rows: np.ndarray  # line position (0-based), column (0-based) and value of each feature token
    cols: np.ndarray
    vals: np.ndarray
    linenos: list[int] | np.ndarray
    has_qid: bool
    X: np.ndarray | None = None  # the dense matrix, when the fast path filled it

    @property
    def line_of(self) -> np.ndarray:
        return np.asarray(self.linenos)


def _lines(path: Path) -> Iterator[tuple[int, list[str], str | None]]:
    """``(line number, tokens, docid)`` of each data line (blank lines and whole-line comments skipped)."""
    lineno = 0
    try:
        with open_text(path) as fh:
            for lineno, line in enumerate(fh, 1):
                body, hashmark, comment = line.partition("#")
                tokens = body.split()
                if tokens:
                    yield lineno, tokens, _docid_from_comment(comment) if hashmark else None
    except UnicodeDecodeError as e:
        raise ValueError(f"{path}: not UTF-8 text (undecodable byte {e.object[e.start]:#04x})") from None
    except (OSError, EOFError, lzma.LZMAError) as e:  # a corrupt or truncated compressed file
        raise ValueError(f"{path}: cannot read the file after line {lineno}: {e}") from None


def _line_qid(where: str, tokens: list[str], has_qid: bool | None) -> str | None:
    """The line's qid (None without a ``qid:`` token); an error when lines disagree or the qid is empty."""
    line_has_qid = len(tokens) > 1 and tokens[1].startswith("qid:")
    if has_qid is not None and has_qid != line_has_qid:
        raise ValueError(f"{where}: 'qid:' token present on some lines but not on others")
    if line_has_qid and not tokens[1][4:]:
        raise ValueError(f"{where}: empty qid")
    return tokens[1][4:] if line_has_qid else None


def _strict_rows(path: Path, n_features: int | None) -> _Rows:
    """Every data line parsed token by token, with Python's ``int`` and ``float``.

    The first problem is an error naming the file and line. The reference that the fast path
    (:func:`_fast_rows`) must agree with.
    """
    labels: list[int] = []
    qids: list[str] = []
    docnos: list[str | None] = []
    triples: list[tuple[int, int, float]] = []
    linenos: list[int] = []
    has_qid: bool | None = None
    for lineno, tokens, docno in _lines(path):
        where = f"{path}:{lineno}"
        labels.append(_label(tokens[0], path, lineno))
        qid = _line_qid(where, tokens, has_qid)
        has_qid = qid is not None
        if qid is not None:
            qids.append(qid)
        seen: set[int] = set()
        for tok in tokens[2 if has_qid else 1 :]:
            col, value = _pair(where, tok, n_features)
            if col in seen:
                raise ValueError(f"{where}: feature index {col + 1} appears twice")
            seen.add(col)
            triples.append((len(linenos), col, value))
        docnos.append(docno)
        linenos.append(lineno)
    if not linenos:
        raise ValueError(f"{path}: no data lines")
    rows, cols, vals = (np.asarray(c) for c in zip(*triples, strict=True)) if triples else ([], [], [])
    return _Rows(
        np.asarray(labels, dtype=np.int64), qids, docnos, np.asarray(rows, dtype=np.int64),
        np.asarray(cols, dtype=np.int64), np.asarray(vals, dtype=np.float64), linenos, bool(has_qid),
    )  # fmt: skip


def _fast_rows(path: Path, n_features: int | None) -> _Rows | None:
    """:func:`_strict_rows`'s result from array operations on pieces of the file (``_letor_fast``).

    None whenever the strict parser could refuse or read a line differently (a token that is not
    ``index:value`` with a plain index and a number, a label the strict check refuses, a repeated
    index, lines that disagree on ``qid:``, a control character, bad UTF-8): the strict parser then
    reads the file and names the problem. ``tests/test_fuzz.py`` compares the two on generated files.
    The dense matrix comes filled (``X``) unless it would have more than 4 cells per feature token.
    """
    limit = _MAX_INDEX if n_features is None else min(n_features, _MAX_INDEX)
    got = fast_rows(path, n_features, limit, _docid_from_comment)
    return None if got is None else _Rows(*got)


#: A dense matrix sized by the file's largest feature index is refused when it would take more than
#: this many bytes while at most 1/:data:`_SPARSE_FACTOR` of its columns are used: one stray index
#: (``2147483647:1``) must not ask for 16 GiB. Real LETOR files use most of their indices (MQ2008 46
#: of 46, MSLR 136 of 136, LightGBM's example 218 of 300), so this never refuses one; ``n_features=``
#: sizes the matrix explicitly and lifts the check.
_MAX_INFERRED_BYTES = 1 << 30
_SPARSE_FACTOR = 16


def _inferred_width(path: Path, rows: _Rows) -> int:
    """The number of columns the largest index asks for, refused when absurd (:data:`_MAX_INFERRED_BYTES`)."""
    if not len(rows.cols):
        return 0
    top = int(np.argmax(rows.cols))
    width = int(rows.cols[top]) + 1
    size = len(rows.linenos) * width * 8
    if size > _MAX_INFERRED_BYTES:
        used = len(np.unique(rows.cols))
        if width > _SPARSE_FACTOR * used:
            raise ValueError(
                f"{path}:{rows.linenos[int(rows.rows[top])]}: feature index {width} would make the dense "
                f"{len(rows.linenos)} × {width} matrix {size / 2**30:.1f} GiB, but the file uses only {used} "
                "distinct indices (a stray index?); give n_features= to read it with that many columns"
            )
    return width


def _features(path: Path, rows: _Rows, n_features: int | None) -> np.ndarray:
    """The dense ``n × f`` feature matrix (absent features 0) of parsed lines."""
    if rows.X is not None:
        return rows.X
    if n_features is None:
        n_features = _inferred_width(path, rows)
    X = np.zeros((len(rows.linenos), n_features), dtype=np.float64)
    X[rows.rows, rows.cols] = rows.vals
    return X


def _docnos(path: Path, lines: _Rows) -> np.ndarray | None:
    """The ``#docid = ...`` comments: on every line or on none."""
    docnos = lines.docnos
    have_doc = np.fromiter((d is not None for d in docnos), dtype=bool, count=len(docnos))
    if have_doc.all():
        return np.asarray(docnos, dtype=object).astype(str)
    if not have_doc.any():
        return None
    i = int(np.flatnonzero(~have_doc)[0])
    raise ValueError(f"{path}:{lines.line_of[i]}: no '#docid = ...' comment, but other lines have one")


def _group_file(path: Path, lines: _Rows, query_file: str | os.PathLike | None) -> tuple[Path | None, Any]:
    """The LightGBM group file (given, or ``<path>.query``) and its query sizes, checked against the rows."""
    n = len(lines.linenos)
    if query_file is None and not lines.has_qid:
        candidate = Path(str(path) + ".query")
        if not candidate.is_file():
            raise ValueError(
                f"{path}: lines carry no 'qid:' token and no query_file was given "
                f"(nor does {candidate.name} exist)"
            )
        query_file = candidate
    if query_file is None:
        return None, None
    query_file = Path(query_file)
    if not query_file.is_file():
        raise FileNotFoundError(f"query file not found: {query_file}")
    file_group = _read_group_file(query_file)
    if int(file_group.sum()) != n:
        raise ValueError(f"{query_file}: query sizes sum to {int(file_group.sum())} but {path} has {n} rows")
    return query_file, file_group


def _grouping(
    path: Path, lines: _Rows, query_file: str | os.PathLike | None
) -> tuple[np.ndarray, np.ndarray]:
    """Per-row qid and per-query sizes, from the ``qid:`` tokens (contiguous) or the group file."""
    query_file, file_group = _group_file(path, lines, query_file)
    if not lines.has_qid:
        return np.repeat(np.arange(1, len(file_group) + 1).astype(str), file_group), file_group
    qid = np.asarray(lines.qids, dtype=str)
    starts = np.concatenate([[0], np.flatnonzero(qid[1:] != qid[:-1]) + 1])
    run_qids = qid[starts]
    uniq, first = np.unique(run_qids, return_index=True)
    if len(uniq) != len(run_qids):
        seen = np.zeros(len(run_qids), dtype=bool)
        seen[first] = True
        r = int(np.flatnonzero(~seen)[0])
        raise ValueError(
            f"{path}:{lines.line_of[starts[r]]}: rows of qid {str(run_qids[r])!r} are not contiguous "
            "(it appeared earlier in the file)"
        )
    group = np.diff(np.concatenate([starts, [len(qid)]])).astype(np.int64)
    if query_file is not None and not np.array_equal(group, file_group):
        raise ValueError(f"{query_file}: query sizes disagree with the qid: tokens of {path}")
    return qid, group


def read_letor(
    path: str | os.PathLike,
    query_file: str | os.PathLike | None = None,
    *,
    n_features: int | None = None,
) -> LetorData:
    """Read a LETOR/SVMlight ranking file (plain, gzip, bzip2 or xz).

    Args:
        path: the data file, e.g. ``MQ2008/Fold1/train.txt`` or ``rank.train``; compression is detected
            from the magic bytes.
        query_file: a LightGBM group file (one query size per line). Required when the lines carry
            no ``qid:`` token, unless ``<path>.query`` exists, which is then used (as LightGBM
            does). The query ids are then the 1-based line numbers of the group file (``"1"``,
            ``"2"``, ...). When the lines do carry ``qid:`` tokens, the group file must agree
            with them.
        n_features: number of feature columns; default the largest index in the file. Give it to
            align a test file with its training file (an index beyond it is an error), or to read a
            file whose largest index asks for a dense matrix over 1 GiB while it uses fewer than
            1/16 of the indices up to it (refused without ``n_features``: one stray
            ``2147483647:1`` asks for 16 GiB per row).

    Returns:
        A frozen :class:`LetorData`.

    Raises:
        FileNotFoundError: when ``path`` or ``query_file`` does not exist.
        ValueError: naming file and line, for a malformed line (a token that is not
            ``index:value`` with one colon), a label not written as an integer (the policy of
            :func:`~pyterrier_risk.data.read_qrels`: ``2`` or ``2.0``, not ``1.5`` or ``1e0``), a
            feature index that is not ASCII digits, < 1, > 2^31 - 1 or > ``n_features``, a value
            that is not an ASCII number (``nan`` and ``inf`` are numbers; LightGBM takes NaN as
            missing), a duplicate feature index in one line, a query whose rows are not contiguous,
            docids on some lines but not others, a group file that does not match the rows, or
            (without ``n_features``) a largest index that makes an absurd dense matrix (above).
        TypeError: ``n_features`` is not an integer.
    """
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"LETOR file not found: {path}")
    n_features = check_int(n_features, "n_features", minimum=0, allow_none=True)
    lines = _fast_rows(path, n_features) or _strict_rows(path, n_features)
    X = _features(path, lines, n_features)
    docno = _docnos(path, lines)
    qid, group = _grouping(path, lines, query_file)
    y = lines.y
    for arr in (X, y, qid, group) + ((docno,) if docno is not None else ()):
        arr.setflags(write=False)
    return LetorData(X=X, y=y, qid=qid, docno=docno, group=group, path=str(path))
