"""Reader for LETOR / SVMlight learning-to-rank files.

The format (Joachims' SVMlight, used by LETOR 3.0/4.0, MSLR and LightGBM's examples) is one
query-document pair per line::

    <label> qid:<qid> <index>:<value> <index>:<value> ... # docid = <docno> ...

Feature indices are 1-based. Files may be gzip-, bzip2- or xz-compressed (recognised by their
magic bytes). When the lines carry no ``qid:`` token (as in LightGBM's
``examples/lambdarank/rank.train``) the grouping comes from a LightGBM ``.query`` file: one integer
per line, the number of consecutive rows of the next query.

Numeric core module: numpy only (pandas only inside :meth:`LetorData.to_frame`).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from ._trec import open_text

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


def _parse_pairs_slow(where: str, tokens: list[str]) -> None:
    """Find the malformed ``index:value`` token of one line and raise a precise error."""
    for tok in tokens:
        idx, sep, val = tok.partition(":")
        if not sep or ":" in val:
            raise ValueError(f"{where}: malformed feature token {tok!r} (expected index:value)")
        try:
            i = int(idx)
        except ValueError:
            raise ValueError(f"{where}: feature index {idx!r} is not an integer") from None
        if i < 1:
            raise ValueError(f"{where}: feature index {i} < 1 (LETOR/SVMlight indices are 1-based)")
        try:
            float(val)
        except ValueError:
            raise ValueError(f"{where}: feature value {val!r} is not a number") from None


def _read_group_file(path: Path) -> np.ndarray:
    sizes = []
    with open_text(path) as fh:
        for lineno, line in enumerate(fh, 1):
            text = line.strip()
            if not text:
                continue
            try:
                size = int(text)
            except ValueError:
                raise ValueError(f"{path}:{lineno}: query size {text!r} is not an integer") from None
            if size < 1:
                raise ValueError(f"{path}:{lineno}: query size {size} must be >= 1")
            sizes.append(size)
    return np.asarray(sizes, dtype=np.int64)


@dataclass
class _Lines:
    """The data lines of a LETOR file, split but not yet parsed."""

    labels: list[str]
    qids: list[str]
    docnos: list[str | None]
    chunks: list[str]  # the "index:value" tokens of each line, joined by spaces
    counts: list[int]  # the number of those tokens per line
    linenos: list[int]
    has_qid: bool

    @property
    def line_of(self) -> np.ndarray:
        return np.asarray(self.linenos)


def _scan(path: Path) -> _Lines:
    """Split every data line into label, qid, feature tokens and docid (comments and blanks skipped)."""
    out = _Lines([], [], [], [], [], [], False)
    has_qid: bool | None = None
    with open_text(path) as fh:
        for lineno, line in enumerate(fh, 1):
            body, hashmark, comment = line.partition("#")
            tokens = body.split()
            if not tokens:
                continue  # blank line or whole-line comment
            where = f"{path}:{lineno}"
            line_has_qid = len(tokens) > 1 and tokens[1].startswith("qid:")
            if has_qid is None:
                has_qid = line_has_qid
            elif has_qid != line_has_qid:
                raise ValueError(f"{where}: 'qid:' token present on some lines but not on others")
            if line_has_qid:
                if not tokens[1][4:]:
                    raise ValueError(f"{where}: empty qid")
                out.qids.append(tokens[1][4:])
            feats = tokens[2:] if line_has_qid else tokens[1:]
            rest = " ".join(feats)
            if rest.count(":") != len(feats):
                _parse_pairs_slow(where, feats)
                raise ValueError(f"{where}: malformed feature tokens")  # pragma: no cover
            out.labels.append(tokens[0])
            out.docnos.append(_docid_from_comment(comment) if hashmark else None)
            out.chunks.append(rest)
            out.counts.append(len(feats))
            out.linenos.append(lineno)
    if not out.labels:
        raise ValueError(f"{path}: no data lines")
    out.has_qid = bool(has_qid)
    return out


def _labels(path: Path, lines: _Lines) -> np.ndarray:
    """Integer labels (written "2" or "2.0"); a non-integer one is an error naming its line."""
    labels, line_of = lines.labels, lines.line_of
    try:
        yf = np.asarray(labels, dtype=np.float64)
    except ValueError:
        for i, lab in enumerate(labels):
            try:
                float(lab)
            except ValueError:
                raise ValueError(f"{path}:{line_of[i]}: label {lab!r} is not a number") from None
        raise  # pragma: no cover
    bad = ~np.isfinite(yf) | (yf != np.round(yf))
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise ValueError(
            f"{path}:{line_of[i]}: label {labels[i]!r} is not an integer (ranking labels are graded ints)"
        )
    return yf.astype(np.int64)


def _features(path: Path, lines: _Lines, n_features: int | None) -> np.ndarray:
    """The dense feature matrix: one vectorised parse of every "index:value" token."""
    n, line_of, chunks = len(lines.labels), lines.line_of, lines.chunks
    flat = " ".join(chunks).replace(":", " ").split()
    try:
        pairs = np.asarray(flat, dtype=np.float64).reshape(-1, 2)
    except ValueError:  # locate the bad line
        for i, chunk in enumerate(chunks):
            _parse_pairs_slow(f"{path}:{line_of[i]}", chunk.split())
        raise  # pragma: no cover
    idx_f = pairs[:, 0]
    rows = np.repeat(np.arange(n), np.asarray(lines.counts, dtype=np.int64))
    bad = (idx_f != np.round(idx_f)) | (idx_f < 1)
    if bad.any():
        k = int(np.flatnonzero(bad)[0])
        raise ValueError(
            f"{path}:{line_of[rows[k]]}: feature index {flat[2 * k]} < 1 or not an integer "
            "(LETOR/SVMlight indices are 1-based)"
        )
    cols = idx_f.astype(np.int64) - 1
    max_index = int(cols.max()) + 1 if len(cols) else 0
    if n_features is None:
        n_features = max_index
    elif max_index > n_features:
        k = int(np.flatnonzero(cols >= n_features)[0])
        raise ValueError(f"{path}:{line_of[rows[k]]}: feature index {cols[k] + 1} > n_features={n_features}")
    if len(cols):
        key = rows * max(n_features, 1) + cols
        order = np.argsort(key, kind="stable")
        dup = np.flatnonzero(key[order][1:] == key[order][:-1])
        if len(dup):
            k = int(order[dup[0] + 1])
            raise ValueError(f"{path}:{line_of[rows[k]]}: feature index {cols[k] + 1} appears twice")
    X = np.zeros((n, n_features), dtype=np.float64)
    X[rows, cols] = pairs[:, 1]
    return X


def _docnos(path: Path, lines: _Lines) -> np.ndarray | None:
    """The ``#docid = ...`` comments: on every line or on none."""
    docnos = lines.docnos
    have_doc = np.fromiter((d is not None for d in docnos), dtype=bool, count=len(docnos))
    if have_doc.all():
        return np.asarray(docnos, dtype=object).astype(str)
    if not have_doc.any():
        return None
    i = int(np.flatnonzero(~have_doc)[0])
    raise ValueError(f"{path}:{lines.line_of[i]}: no '#docid = ...' comment, but other lines have one")


def _group_file(path: Path, lines: _Lines, query_file: str | os.PathLike | None) -> tuple[Path | None, Any]:
    """The LightGBM group file (given, or ``<path>.query``) and its query sizes, checked against the rows."""
    n = len(lines.labels)
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
    path: Path, lines: _Lines, query_file: str | os.PathLike | None
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
            align a test file with its training file (an index beyond it is an error).

    Returns:
        A frozen :class:`LetorData`.

    Raises:
        FileNotFoundError: when ``path`` or ``query_file`` does not exist.
        ValueError: naming file and line, for a malformed line, a non-integer label, a feature index
            < 1 or > ``n_features``, a duplicate feature index in one line, a query whose rows are
            not contiguous, docids on some lines but not others, or a group file that does not
            match the rows.
    """
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"LETOR file not found: {path}")
    lines = _scan(path)
    y = _labels(path, lines)
    X = _features(path, lines, n_features)
    docno = _docnos(path, lines)
    qid, group = _grouping(path, lines, query_file)
    for arr in (X, y, qid, group) + ((docno,) if docno is not None else ()):
        arr.setflags(write=False)
    return LetorData(X=X, y=y, qid=qid, docno=docno, group=group, path=str(path))
