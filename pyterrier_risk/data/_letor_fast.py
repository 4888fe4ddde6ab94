"""The fast path of the LETOR reader: the file in pieces of whole lines, each parsed by array operations.

The decompressed bytes are read once, in pieces of about 8 MiB that end at a line end (never held whole).
In each piece numpy finds the tokens, the lines and the colons; labels and qids are read as fixed-width
byte strings (each distinct label through the strict :func:`~._trec._label`); feature indices are
decoded digit by digit; the values are parsed by pandas' C parser (correctly rounded, as Python's
``float``: :func:`~._trec._pandas_float_options`) from the piece with everything but the values
blanked. Whenever a piece holds anything the strict parser could refuse or read differently, the
whole file is declined (None) and the strict parser reads it: results and error messages are those of
the strict parser (``tests/test_fuzz.py`` compares the two on generated files).

Peak memory: the parsed pieces hold 12 bytes per feature token (value and column); the dense matrix
is then filled piece by piece, each freed once copied.
"""

from __future__ import annotations

import csv
import io
import itertools
import lzma
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple

import numpy as np

from ._trec import _NO_PATH, _OPENERS, _compression, _label, _pandas_float_options

#: bytes of decompressed text per piece
_PIECE = 1 << 23
_BOM = b"\xef\xbb\xbf"
#: the ASCII characters other than the line end and the space that ``str.split`` splits at
_ASCII_SPACES = bytes.maketrans(b"\t\x0b\x0c\x1c\x1d\x1e\x1f", b" " * 7)
#: every character ``str.split`` splits at (``re``'s ``\s`` is ``str.isspace``), but the line end
_SPACES = re.compile(r"[^\S\n]")
_SPACE_TO_LINE_END = bytes.maketrans(b" ", b"\n")
#: the bytes a feature token may hold (digits, colon, and what decimal, ``nan`` and ``inf`` spellings
#: use), and the separators; a token with any other byte (``_``, non-ASCII, another letter) is left to
#: the strict parser
_FEATURE_BYTES = b"0123456789:.+-eEnNaAiIfFtTyY \n"
#: the spellings of NaN that Python's ``float`` takes (pandas' converter has none of them)
_NAN = ["".join(s) for s in itertools.product(("", "+", "-"), *zip("nan", "NAN", strict=True))]
_MAX_LABEL = 32  # bytes; longer labels, qids or indices (never valid or real) go to the strict parser
_MAX_QID = 256
_MAX_DIGITS = 10


class _Decline(Exception):  # noqa: N818 - a signal, not an error
    """The fast path cannot vouch for the file: the strict parser reads it (and names any error)."""


class FastRows(NamedTuple):
    """The fields of ``_letor._Rows``, in its order, with ``X`` filled when the matrix is dense."""

    y: np.ndarray
    qids: np.ndarray | list[str]
    docnos: np.ndarray | list[str | None]
    rows: np.ndarray
    cols: np.ndarray
    vals: np.ndarray
    linenos: np.ndarray
    has_qid: bool
    X: np.ndarray | None


@dataclass
class _Piece:
    """The data lines of one piece: label, qid, docid and line number per line, the feature tokens."""

    y: np.ndarray
    qids: np.ndarray | None
    docnos: np.ndarray | None
    linenos: np.ndarray
    counts: np.ndarray  # feature tokens per line
    cols: np.ndarray  # int32, 0-based
    vals: np.ndarray


def _raw_pieces(path: Path) -> Iterator[bytes]:
    """The decompressed bytes in pieces of whole lines, each ending in a line feed.

    As ``open_text`` reads text: a byte-order mark at the start is dropped; CR LF and a lone CR end lines.
    """
    with open(path, "rb") as fh:
        kind = _compression(fh.read(10))
    carry, start = b"", True
    with open(path, "rb") if kind is None else _OPENERS[kind](path, "rb") as fh:
        while True:
            block = fh.read(_PIECE)
            if start:
                block, start = block.removeprefix(_BOM), False
            data, carry = carry + block, b""
            if block and data.endswith(b"\r"):  # maybe the first half of "\r\n"
                data, carry = data[:-1], b"\r"
            if b"\r" in data:
                data = data.replace(b"\r\n", b"\n").replace(b"\r", b"\n")
            if not block:
                if data:
                    yield data if data.endswith(b"\n") else data + b"\n"
                return
            cut = data.rfind(b"\n") + 1
            if cut:
                yield data[:cut]
            carry = data[cut:] + carry


def _normalised(piece: bytes) -> bytes:
    """The piece with every character ``str.split`` splits at (but the line end) as a space."""
    if piece.isascii():
        return piece.translate(_ASCII_SPACES)
    try:
        text = piece.decode("utf-8")
    except UnicodeDecodeError:
        raise _Decline from None
    return _SPACES.sub(" ", text).encode("utf-8")


def _comments(piece: bytes, arr: np.ndarray, ends: np.ndarray, docid: Callable) -> np.ndarray | None:
    """Each line's docid (None: no comment), or None without comments; blanks the comments in ``arr``."""
    hashes = np.flatnonzero(arr == ord("#"))
    if not len(hashes):
        return None
    lines, first = np.unique(np.searchsorted(ends, hashes), return_index=True)
    docnos = np.full(len(ends), None, dtype=object)
    for line, start in zip(lines.tolist(), hashes[first].tolist(), strict=True):
        end = int(ends[line])
        docnos[line] = docid(piece[start + 1 : end].decode("utf-8"))
        arr[start:end] = ord(" ")
    return docnos


def _strings(arr: np.ndarray, starts: np.ndarray, lengths: np.ndarray, cap: int) -> np.ndarray:
    """The byte strings ``arr[start:start + length]`` as a fixed-width ``S`` array (no NUL in ``arr``)."""
    width = int(lengths.max(initial=1))
    if width > cap:
        raise _Decline
    j = np.arange(max(width, 1))
    at = np.minimum(starts[:, None] + j, len(arr) - 1)
    return np.where(j < lengths[:, None], arr[at], 0).astype(np.uint8).view(f"S{max(width, 1)}").ravel()


def _labels(labels: np.ndarray) -> np.ndarray:
    """The labels (``S`` array) as int64, each distinct spelling through the strict check."""
    uniq, inverse = np.unique(labels, return_inverse=True)
    try:
        values = np.array([_label(u.decode("utf-8"), _NO_PATH, 0) for u in uniq.tolist()], dtype=np.int64)
    except ValueError:
        raise _Decline from None
    return values[inverse.reshape(-1)]


def _qids(arr: np.ndarray, starts: np.ndarray, ends: np.ndarray, first: np.ndarray, ntok: np.ndarray,
          ascii_: bool) -> tuple[bool, np.ndarray | None]:  # fmt: skip
    """Whether the lines carry ``qid:`` (all or none, else declined) and their qids (str array)."""
    second = first + 1
    has = ntok >= 2
    s = starts[np.where(has, second, 0)]
    length = ends[np.where(has, second, 0)] - s
    has &= length >= 4
    for k, ch in enumerate(b"qid:"):
        has &= arr[np.minimum(s + k, len(arr) - 1)] == ch
    if has.all() and len(has):
        if (length <= 4).any():  # an empty qid
            raise _Decline
        qids = _strings(arr, s + 4, length - 4, _MAX_QID)
        return True, qids.astype(str) if ascii_ else np.char.decode(qids, "utf-8")
    if has.any():
        raise _Decline
    return False, None


def _tokens(arr: np.ndarray, line_ends: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Start and end of each token, the data lines (index among the piece's lines), their first token."""
    edges = np.diff((arr > ord(" ")).view(np.int8), prepend=np.int8(0), append=np.int8(0))
    starts, ends = np.flatnonzero(edges == 1), np.flatnonzero(edges == -1)
    after = np.searchsorted(starts, line_ends)  # tokens before each line end
    before = np.concatenate(([0], after[:-1]))
    data = np.flatnonzero(after > before)
    return starts, ends, data, before[data]


def _indices(arr: np.ndarray, starts: np.ndarray, colons: np.ndarray, limit: int) -> np.ndarray:
    """The feature indices (ASCII digits before the colon, 1..limit), digit by digit."""
    length = colons - starts
    if len(length) and (length.min() < 1 or length.max() > _MAX_DIGITS):
        raise _Decline
    index = np.zeros(len(starts), dtype=np.int64)
    shortest = int(length.min(initial=0))
    for j in range(int(length.max(initial=0))):
        on = None if j < shortest else length > j
        digit = arr[starts + j if on is None else np.where(on, starts + j, starts)] - np.uint8(ord("0"))
        if (digit > 9).any():  # a byte below "0" wraps around
            raise _Decline
        index = index * 10 + digit if on is None else np.where(on, index * 10 + digit, index)
    if len(index) and (index.min() < 1 or index.max() > limit):
        raise _Decline
    return index


def _blank(arr: np.ndarray, starts: np.ndarray, ends: np.ndarray) -> None:
    """Overwrite the tokens ``arr[start:end]`` (labels and qids: short) with spaces."""
    length = ends - starts
    for j in range(int(length.max(initial=0))):
        arr[starts[length > j] + j] = ord(" ")


def _values(text: bytes, n: int) -> np.ndarray:
    """The values of the ``index:value`` tokens (all that is left in ``text``), by pandas' C parser."""
    import pandas as pd

    if text.translate(None, _FEATURE_BYTES):  # a byte no number spelling has (``_``, non-ASCII, ...)
        raise _Decline
    try:
        frame = pd.read_csv(
            io.BytesIO(text.translate(_SPACE_TO_LINE_END)), sep=":", header=None, names=["i", "v"],
            usecols=["v"], dtype={"v": np.float64}, keep_default_na=False, na_values={"v": _NAN},
            quoting=csv.QUOTE_NONE, engine="c", skip_blank_lines=True, **_pandas_float_options(),
        )  # fmt: skip
    except Exception:  # whatever pandas refuses, the strict parser decides
        raise _Decline from None
    vals = frame["v"].to_numpy(dtype=np.float64, copy=True)  # pandas gives a read-only view
    if len(vals) != n:
        raise _Decline
    return vals


def _features(
    arr: np.ndarray, starts: np.ndarray, ends: np.ndarray, feature: np.ndarray, qid_tokens: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """The colon of each feature token (exactly one in each, else declined) and the token indices."""
    feat = np.flatnonzero(feature)
    colons = np.flatnonzero(arr == ord(":"))
    if len(qid_tokens):  # a qid may hold colons: drop those
        lo = np.searchsorted(colons, starts[qid_tokens])
        hi = np.searchsorted(colons, ends[qid_tokens])
        keep = np.ones(len(colons), dtype=bool)
        if (hi - lo == 1).all():
            keep[lo] = False
        else:
            inside = np.zeros(len(colons) + 1, dtype=np.int32)
            np.add.at(inside, lo, 1)
            np.add.at(inside, hi, -1)
            keep = np.cumsum(inside[:-1]) == 0
        colons = colons[keep]
    # as many colons as tokens, the k-th inside the k-th token: one colon in each
    if len(colons) != len(feat) or not ((starts[feat] < colons) & (colons < ends[feat] - 1)).all():
        raise _Decline
    return feat, colons


def _parse(piece: bytes, first_line: int, limit: int, has_qid: bool | None, docid: Callable) -> _Piece:
    """One normalised piece parsed (first_line: the file's line number of its first line)."""
    arr = np.frombuffer(piece, dtype=np.uint8).copy()
    line_ends = np.flatnonzero(arr == ord("\n"))
    if np.count_nonzero(arr < ord(" ")) != len(line_ends):  # a control character
        raise _Decline
    docnos = _comments(piece, arr, line_ends, docid)
    starts, ends, data, first = _tokens(arr, line_ends)
    ntok = np.diff(np.append(first, len(starts)))
    line_qid, qids = _qids(arr, starts, ends, first, ntok, piece.isascii())
    if has_qid is not None and len(data) and line_qid != has_qid:
        raise _Decline
    labels = _labels(_strings(arr, starts[first], ends[first] - starts[first], _MAX_LABEL))
    qid_tokens = first + 1 if line_qid else np.empty(0, dtype=np.int64)
    feature = np.ones(len(starts), dtype=bool)
    feature[first] = False
    feature[qid_tokens] = False
    feat, colons = _features(arr, starts, ends, feature, qid_tokens)
    index = _indices(arr, starts[feat], colons, limit)
    counts = ntok - 1 - int(line_qid)
    key = np.repeat(np.arange(len(data)), counts) * (int(index.max(initial=0)) + 1) + index
    if not (np.diff(key) > 0).all() and not (np.diff(np.sort(key)) > 0).all():  # an index twice on a line
        raise _Decline
    other = np.concatenate([first, qid_tokens])
    _blank(arr, starts[other], ends[other])
    vals = _values(arr.tobytes(), len(feat))
    for k in np.flatnonzero(np.isnan(vals)).tolist():  # the sign of "-nan", as float() reads it
        vals[k] = float(piece[colons[k] + 1 : ends[feat[k]]])
    return _Piece(
        labels, qids, None if docnos is None else docnos[data], first_line + data, counts,
        (index - 1).astype(np.int32), vals,
    )  # fmt: skip


def _pieces(path: Path, limit: int, docid: Callable) -> tuple[list[_Piece], bool]:
    """Every piece of the file parsed, and whether the lines carry ``qid:``; raises :class:`_Decline`."""
    pieces: list[_Piece] = []
    has_qid: bool | None = None
    line = 1
    try:
        for raw in _raw_pieces(path):
            got = _parse(_normalised(raw), line, limit, has_qid, docid)
            line += raw.count(b"\n")
            if len(got.y):
                has_qid = got.qids is not None
                pieces.append(got)
    except (OSError, EOFError, lzma.LZMAError):  # unreadable or corrupt: the strict parser says so
        raise _Decline from None
    if not pieces:
        raise _Decline
    return pieces, bool(has_qid)


def _dense(pieces: list[_Piece], n: int, width: int) -> np.ndarray:
    """The ``n × width`` matrix filled piece by piece; each piece's features are freed once copied."""
    X = np.zeros((n, width), dtype=np.float64)
    row = 0
    pieces.reverse()
    while pieces:
        p = pieces.pop()
        rows = np.repeat(np.arange(row, row + len(p.y)), p.counts)
        X[rows, p.cols] = p.vals
        row += len(p.y)
        p.cols = p.vals = np.empty(0)
    return X


def fast_rows(path: Path, n_features: int | None, limit: int, docid: Callable) -> FastRows | None:
    """The parsed lines of a LETOR file, or None when the strict parser must read it.

    Args:
        path: the file.
        n_features: the number of columns, or None (the largest index).
        limit: the largest feature index allowed.
        docid: the docid of a comment (the text after ``#``), or None.

    Returns:
        The fields of ``_letor._Rows``: ``X`` is filled (and ``rows``/``cols``/``vals`` empty) when
        ``n_features`` is given or the matrix has at most 4 cells per feature token; otherwise the
        triples are given and ``X`` is None (the caller builds and checks the matrix).
    """
    try:
        pieces, has_qid = _pieces(path, limit, docid)
    except _Decline:
        return None
    y = np.concatenate([p.y for p in pieces])
    qids: np.ndarray | list[str] = np.concatenate([p.qids for p in pieces]) if has_qid else []
    docnos: np.ndarray | list[str | None] = [None] * len(y)
    if any(p.docnos is not None for p in pieces):
        docnos = np.concatenate([np.full(len(p.y), None) if p.docnos is None else p.docnos for p in pieces])
    linenos = np.concatenate([p.linenos for p in pieces])
    n_tokens = sum(len(p.vals) for p in pieces)
    width = n_features if n_features is not None else max(int(p.cols.max(initial=-1)) + 1 for p in pieces)
    empty = np.empty(0, dtype=np.int64)
    if n_features is not None or len(y) * width <= 4 * n_tokens:
        X = _dense(pieces, len(y), width)
        return FastRows(y, qids, docnos, empty, empty, np.empty(0), linenos, has_qid, X)
    rows = np.repeat(np.arange(len(y)), np.concatenate([p.counts for p in pieces]))
    cols = np.concatenate([p.cols for p in pieces]).astype(np.int64)
    vals = np.concatenate([p.vals for p in pieces])
    return FastRows(y, qids, docnos, rows, cols, vals, linenos, has_qid, None)
