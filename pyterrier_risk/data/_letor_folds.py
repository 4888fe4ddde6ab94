r"""LETOR cross-validation folds: a folder of folds, LETOR 4.0's partitions, or one file split by query.

Three layouts give the folds of a learning-to-rank study (:func:`letor_folds`):

- a folder of ``Fold1..FoldK`` folders, each with a training, a validation and a test file (MSLR-WEB10K/30K,
  MQ2007/8 and OHSUMED ship them so). The file names read are ``train``/``trainingset``,
  ``vali``/``valid``/``validation``/``validationset`` and ``test``/``testset``, each with or without
  ``.txt`` and with or without ``.gz``/``.bz2``/``.xz``. A folder holding those three files itself (as
  Istella-S ships them) is one fold, ``Fold1``;
- a folder of LETOR 4.0's query partitions ``S1..SK`` (``S1.txt``, ``S1.txt.gz``, ...). Fold *k* trains on
  S\ :sub:`k` .. S\ :sub:`k+K-3`, validates on S\ :sub:`k+K-2` and tests on S\ :sub:`k+K-1` (indices
  modulo K, from 1): for K = 5 this is LETOR's table (Fold1 = S1, S2, S3 / S4 / S5). When a folder has
  both the partitions and ``Fold`` folders, the partitions win (LETOR derives its folds from them);
- one LETOR file with ``folds=K``: its queries, in file order, are permuted by
  ``numpy.random.default_rng(seed)`` and cut into K near-equal parts (``numpy.array_split``), rotated as
  the partitions are. Each part keeps the file order of its queries.

A fold holds file paths only (:class:`LetorSplit`); its data is read when asked
(:meth:`LetorSplit.load`, :meth:`LetorFold.load`), so that a worker holds one fold at a time. A split's
:meth:`~LetorSplit.digest` is computed from the bytes of its files and the queries it keeps, never from
a path, so it is the same on every machine that holds the same files.
"""

from __future__ import annotations

import hashlib
import json
import lzma
import os
import re
import stat
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from ..core import check_int
from ._letor import LetorData, _read_group_file, read_letor
from ._letor_fast import _raw_pieces
from ._trec import open_text

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

__all__ = [
    "LetorFold",
    "LetorSplit",
    "check_feature_number",
    "letor_folds",
    "letor_n_features",
    "run_baseline_scores",
]

#: the file names of each split in a fold folder, before ``.txt`` and a compression suffix
SPLIT_NAMES: dict[str, tuple[str, ...]] = {
    "train": ("train", "trainingset"),
    "vali": ("vali", "valid", "validation", "validationset"),
    "test": ("test", "testset"),
}
_SUFFIXES = tuple(t + c for t in (".txt", "") for c in ("", ".gz", ".bz2", ".xz"))
_PARTITION = re.compile(r"S([0-9]+)(?:\.txt)?(?:\.gz|\.bz2|\.xz)?")
_FOLD_DIR = re.compile(r"Fold([0-9]+)")
_CHUNK = 1 << 23
#: file digest, largest feature index and queries per (path, mtime, size), within this process
_FILE_CACHE: dict[tuple[str, str, int, int], str | int | tuple[str, ...]] = {}
#: a data line's qid (the second token, when it is ``qid:...``) and the rest of the line before a comment
_QID_LINE = re.compile(rb"^[ \t\v\f]*[^\s#]+[ \t\v\f]+qid:([^\s#]*)([^\n#]*)", re.MULTILINE)
_NOT_REGULAR = (
    (stat.S_ISFIFO, "a FIFO (named pipe)"), (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket"), (stat.S_ISDIR, "a folder"),
)  # fmt: skip


def check_regular_file(path: str | os.PathLike) -> str:
    """``path`` as an absolute path when it is a regular file (links followed), else a one-line error.

    Checked with ``os.stat`` before anything opens the file: a FIFO would block the reader forever and
    ``/dev/zero`` would fill the memory.

    Raises:
        FileNotFoundError: nothing is there.
        ValueError: a FIFO, a device, a socket or a folder.
    """
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        raise FileNotFoundError(f"LETOR file not found: {path}") from None
    if not stat.S_ISREG(mode):
        kind = next((name for test, name in _NOT_REGULAR if test(mode)), "a special file")
        raise ValueError(f"{path} is {kind}, not a regular file: LETOR data must be a file")
    return os.path.abspath(path)


def _pieces(path: str) -> Iterator[bytes]:
    """The file's decompressed bytes in pieces of whole lines (CR LF and a lone CR end lines).

    A truncated or corrupt compressed file is a one-line error naming the file.
    """
    try:
        yield from _raw_pieces(Path(path))
    except (OSError, EOFError, lzma.LZMAError) as e:
        raise ValueError(f"{path}: cannot read the file (truncated or corrupt?): {e}") from None


def _stat_key(kind: str, path: str) -> tuple[str, str, int, int]:
    st = os.stat(path)
    return kind, os.path.abspath(path), st.st_mtime_ns, st.st_size


def _file_digest(path: str) -> str:
    """sha256 of a file's bytes (as stored, compressed or not), read in chunks and cached."""
    key = _stat_key("sha256", path)
    if key not in _FILE_CACHE:
        h = hashlib.sha256()
        with open(path, "rb") as fh:
            while block := fh.read(_CHUNK):
                h.update(block)
        _FILE_CACHE[key] = h.hexdigest()
    return str(_FILE_CACHE[key])


def _chunk_max_index(buf: bytes) -> int:
    """The largest ``index`` of the ``index:value`` tokens of whole lines, comments (after ``#``) skipped."""
    arr = np.frombuffer(buf, dtype=np.uint8)
    colons = np.flatnonzero(arr == ord(":"))
    hashes = np.flatnonzero(arr == ord("#"))
    if len(colons) and len(hashes):
        newlines = np.flatnonzero(arr == ord("\n"))
        h = np.searchsorted(hashes, colons) - 1
        n = np.searchsorted(newlines, colons) - 1
        last_hash = np.where(h >= 0, hashes[np.maximum(h, 0)], -1)
        last_newline = np.where(n >= 0, newlines[np.maximum(n, 0)], -1) if len(newlines) else -1
        colons = colons[last_hash <= last_newline]  # no '#' earlier on the colon's line
    value = np.zeros(len(colons), dtype=np.int64)
    live = np.ones(len(colons), dtype=bool)
    for k in range(11):  # the digits before the colon, last first (2^31 - 1 has 10; 'qid:' gives 0)
        pos = colons - k - 1
        digit = arr[np.maximum(pos, 0)].astype(np.int64) - ord("0")
        live &= (pos >= 0) & (digit >= 0) & (digit <= 9)
        if not live.any():
            break
        value += np.where(live, digit * 10**k, 0)
    return int(value.max(initial=0))


def _max_feature_index(path: str) -> int:
    """The largest feature index of a LETOR file, from one vectorised pass over its bytes (cached).

    Lines end at LF, CR LF or a lone CR, as the readers split them.
    """
    key = _stat_key("width", path)
    if key not in _FILE_CACHE:
        _FILE_CACHE[key] = max((_chunk_max_index(piece) for piece in _pieces(path)), default=0)
    width = _FILE_CACHE[key]
    assert isinstance(width, int)
    return width


def _scan_queries(path: str) -> tuple[str, ...]:
    """The distinct ``qid:`` values of a LETOR file in file order, from a regex pass over its bytes (cached).

    Empty for a file whose lines carry no ``qid:`` (its queries come from a group file).
    """
    key = _stat_key("qids", path)
    if key not in _FILE_CACHE:
        seen: dict[str, None] = {}
        for piece in _pieces(path):
            for match in _QID_LINE.finditer(piece):
                seen.setdefault(match.group(1).decode("utf-8", "replace"), None)
        _FILE_CACHE[key] = tuple(seen)
    queries = _FILE_CACHE[key]
    assert isinstance(queries, tuple)
    return queries


def _feature_varies(path: str, feature: int) -> bool:
    """Whether feature ``feature`` (1-based) takes two values within some query of the file.

    A line without the feature holds 0 (the sparse format). Stops at the first such query; a file whose
    lines carry no ``qid:`` counts as varying (its queries are not known from the lines).
    """
    token = re.compile(rb"(?:^|[ \t\v\f])" + str(feature).encode() + rb":([^\s#]+)")
    values: dict[bytes, set[float]] = {}
    any_line = False
    for piece in _pieces(path):
        for match in _QID_LINE.finditer(piece):
            any_line = True
            found = token.search(match.group(2))
            try:
                value = float(found.group(1)) if found else 0.0
            except ValueError:
                return True  # a malformed value: the reader names its line later
            seen = values.setdefault(match.group(1), set())
            seen.add(value)
            if len(seen) > 1:
                return True
    return not any_line


@dataclass(frozen=True)
class LetorSplit:
    """One split (training, validation or test) of one fold: the files it reads, loaded when asked.

    Attributes:
        files: the LETOR files whose rows it holds, in order (LETOR 4.0 partitions, or one file).
        qids: the queries it keeps of its files (in file order); ``None`` keeps every row.
        query_file: a LightGBM group file (one query size per line) for a file whose lines carry no
            ``qid:``; its queries are then ``"1"``, ``"2"``, ... as :func:`read_letor` numbers them.
    """

    files: tuple[str, ...]
    qids: tuple[str, ...] | None = None
    query_file: str | None = None

    def n_features(self) -> int:
        """The largest feature index of its files (a scan of their bytes, cached per file)."""
        return max(_max_feature_index(f) for f in self.files)

    def load(self, n_features: int | None = None) -> LetorData:
        """Read the split: its files' rows concatenated in order, kept to :attr:`qids`.

        Args:
            n_features: the width of ``X``; default the largest feature index of its files. Give the
                fold's width (:meth:`LetorFold.load` does) so that train, vali and test align.

        Returns:
            A :class:`LetorData` (``group`` and ``qid`` of the kept rows; ``path`` names its files).

        Raises:
            ValueError: as :func:`read_letor`, or a query in two of the files, docids in some of the
                files only, or a query of :attr:`qids` not in the file (it changed after the split).
        """
        width = self.n_features() if n_features is None else check_int(n_features, "n_features", minimum=0)
        parts = [read_letor(f, self.query_file, n_features=width) for f in self.files]
        data = parts[0] if len(parts) == 1 else _concat(parts)
        return data if self.qids is None else _keep_queries(data, self.qids)

    def digest(self) -> str:
        """sha256 of the split: its files' bytes (in order), its group file's and the queries it keeps.

        Paths do not enter it: the same files give the same digest on any machine or folder.
        """
        spec = {
            "files": [_file_digest(f) for f in self.files],
            "query_file": None if self.query_file is None else _file_digest(self.query_file),
            "qids": None if self.qids is None else list(self.qids),
        }
        return hashlib.sha256(json.dumps(spec).encode()).hexdigest()

    def feature_varies(self, feature: int) -> bool:
        """Whether feature ``feature`` (1-based) takes two values within some query of the split's files.

        A scan of the files' bytes that stops at the first such query (absent features are 0); files
        whose lines carry no ``qid:`` count as varying. A baseline feature that varies in no query
        ranks nothing.
        """
        return self.query_file is not None or any(_feature_varies(f, feature) for f in self.files)

    def queries(self) -> tuple[str, ...] | None:
        """The split's query ids, from a scan of its files' ``qid:`` tokens (cached per file).

        None for files without ``qid:`` tokens (their queries are numbered from a group file).
        """
        if self.qids is not None:
            return None if self.query_file is not None else self.qids
        if self.query_file is not None:
            return None
        return tuple(q for f in self.files for q in _scan_queries(f))


_ROLES = ("train", "vali", "test")


def _check_disjoint(name: str, splits: dict[str, tuple[str, Sequence[str]]]) -> None:
    """A query in two splits of one fold is an error naming it, both splits and their files."""
    owner: dict[str, str] = {}
    for role, (where, queries) in splits.items():
        for q in dict.fromkeys(queries):
            if q in owner:
                raise ValueError(
                    f"{name}: qid {q!r} is in both the {owner[q]} split ({splits[owner[q]][0]}) and the "
                    f"{role} split ({where}): a fold's training, validation and test queries must be disjoint"
                )
            owner[q] = role


@dataclass(frozen=True)
class LetorFold:
    """One cross-validation fold: a training, a validation and a test split.

    Attributes:
        name: ``"Fold1"`` .. ``"FoldK"``.
        train: the training split.
        vali: the validation split (early stopping).
        test: the test split: its queries are in neither of the others (:meth:`check_disjoint`).
        layout: how the folds were found (``"Fold1..Fold5 folders"``, ``"partitions S1..S5"``, ...).
    """

    name: str
    train: LetorSplit
    vali: LetorSplit
    test: LetorSplit
    layout: str = ""

    def check_disjoint(self) -> None:
        """Check that no query is in two of the fold's splits (a scan of the ``qid:`` tokens, cached).

        Splits whose files carry no ``qid:`` (numbered from a group file) are not checked.

        Raises:
            ValueError: a qid in two splits, naming it, the splits and their files.
        """
        splits = {r: getattr(self, r) for r in _ROLES}
        queries = {r: s.queries() for r, s in splits.items()}
        if all(q is not None for q in queries.values()):
            _check_disjoint(self.name, {r: (" + ".join(splits[r].files), queries[r]) for r in _ROLES})

    def digest(self) -> str:
        """sha256 of the three splits' digests, each under its role (the fold's name does not enter it)."""
        spec = {"train": self.train.digest(), "vali": self.vali.digest(), "test": self.test.digest()}
        return hashlib.sha256(json.dumps(spec).encode()).hexdigest()

    def load(self, n_features: int | None = None) -> tuple[LetorData, LetorData, LetorData]:
        """Read the training, validation and test data, all ``n_features`` wide (default: the fold's widest).

        A fold of one file split by query reads the file once.
        """
        width = letor_n_features([self]) if n_features is None else n_features
        splits = (self.train, self.vali, self.test)
        train, vali, test = (s.qids for s in splits)
        if (train is not None and vali is not None and test is not None
                and len({(s.files, s.query_file) for s in splits}) == 1):
            whole = LetorSplit(self.train.files, None, self.train.query_file).load(width)
            return _keep_queries(whole, train), _keep_queries(whole, vali), _keep_queries(whole, test)
        loaded = (self.train.load(width), self.vali.load(width), self.test.load(width))
        if all(s.query_file is None for s in splits):  # the data as read, whatever the files became
            _check_disjoint(self.name, {r: (d.path, d.qid[_query_starts(d)].tolist())
                                        for r, d in zip(_ROLES, loaded, strict=True)})  # fmt: skip
        return loaded


def _freeze(
    X: np.ndarray, y: np.ndarray, qid: np.ndarray, docno: np.ndarray | None, group: np.ndarray, path: str
) -> LetorData:
    for arr in (X, y, qid, group) + ((docno,) if docno is not None else ()):
        arr.setflags(write=False)
    return LetorData(X=X, y=y, qid=qid, docno=docno, group=group, path=path)


def _query_starts(data: LetorData) -> np.ndarray:
    return np.cumsum(data.group) - data.group


def _concat(parts: list[LetorData]) -> LetorData:
    """The rows of several files in order (LETOR partitions hold disjoint queries)."""
    names = [p.path for p in parts]
    if len({p.docno is None for p in parts}) > 1:
        raise ValueError(f"{' + '.join(names)}: '#docid = ...' comments in some of the files only")
    owner: dict[str, str] = {}
    for p in parts:
        for q in p.qid[_query_starts(p)].tolist():
            if q in owner:
                raise ValueError(f"qid {q!r} is in both {owner[q]} and {p.path} (partitions share no query)")
            owner[q] = p.path
    docno = None if parts[0].docno is None else np.concatenate([p.docno for p in parts])
    return _freeze(
        np.concatenate([p.X for p in parts]), np.concatenate([p.y for p in parts]),
        np.concatenate([p.qid for p in parts]), docno, np.concatenate([p.group for p in parts]),
        " + ".join(names),
    )  # fmt: skip


def _keep_queries(data: LetorData, qids: Sequence[str]) -> LetorData:
    """The rows of the queries ``qids`` (each query kept whole; file order)."""
    keep = np.isin(data.qid, np.asarray(qids, dtype=str))
    kept_queries = keep[_query_starts(data)]
    if int(kept_queries.sum()) != len(set(qids)):
        missing = sorted(set(qids) - set(data.qid[keep].tolist()))
        raise ValueError(
            f"{data.path}: {len(missing)} of the split's queries are missing, e.g. qid {missing[0]!r} "
            "(did the file change after the split?)"
        )
    docno = None if data.docno is None else data.docno[keep]
    return _freeze(data.X[keep], data.y[keep], data.qid[keep], docno, data.group[kept_queries], data.path)


def letor_n_features(folds: Sequence[LetorFold]) -> int:
    """The largest feature index over every file of ``folds`` (the width that aligns all their splits).

    A vectorised scan of each file's bytes (comments skipped), cached per file within the process.
    """
    files = {f for fold in folds for split in (fold.train, fold.vali, fold.test) for f in split.files}
    return max((_max_feature_index(f) for f in sorted(files)), default=0)


def check_feature_number(n: int, n_features: int, where: str) -> int:
    """Check a feature number as the LETOR file numbers it (from 1) and return its 0-based column.

    Args:
        n: the feature number (``--baseline 25`` is column 24 of ``X``).
        n_features: the data's feature count (:func:`letor_n_features`).
        where: what to name in the message (e.g. ``'--baseline'``).

    Raises:
        TypeError: ``n`` is not an integer.
        ValueError: ``n`` is outside ``1..n_features``.
    """
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)):
        raise TypeError(f"{where}: feature number must be an integer, got {type(n).__name__} {n!r}")
    if not 1 <= n <= n_features:
        raise ValueError(
            f"{where}: feature {n} is out of range: the data has {n_features} features (1..{n_features})"
        )
    return int(n) - 1


def _rotation(k: int, n_parts: int) -> tuple[list[int], int, int]:
    """Fold ``k``'s training parts, validation part and test part (all 0-based), as LETOR rotates them."""
    train = [(k + i) % n_parts for i in range(n_parts - 2)]
    return train, (k + n_parts - 2) % n_parts, (k + n_parts - 1) % n_parts


def _check_first_line(path: str, query_file: str | None) -> None:
    """An empty file, or lines without ``qid:`` and no group file, fail here, before any fold is loaded."""
    check_regular_file(path)
    try:
        with open_text(path) as fh:
            for line in fh:
                tokens = line.partition("#")[0].split(None, 2)
                if tokens:
                    break
            else:
                raise ValueError(f"{path}: no data lines")
    except UnicodeDecodeError as e:
        raise ValueError(f"{path}: not UTF-8 text (undecodable byte {e.object[e.start]:#04x})") from None
    except (OSError, EOFError, lzma.LZMAError) as e:
        raise ValueError(f"{path}: cannot read the file (truncated or corrupt?): {e}") from None
    if not (len(tokens) > 1 and tokens[1].startswith("qid:")) and query_file is None:
        raise ValueError(
            f"{path}: lines carry no 'qid:' token and no query_file was given "
            f"(nor does {Path(path).name}.query exist)"
        )


def _group_file_of(path: str, query_file: str | os.PathLike | None = None) -> str | None:
    """The given group file, or ``<path>.query`` when it exists (as :func:`read_letor` resolves it)."""
    if query_file is not None:
        if not Path(query_file).is_file():
            raise FileNotFoundError(f"query file not found: {query_file}")
        return os.path.abspath(query_file)
    candidate = path + ".query"
    return candidate if os.path.isfile(candidate) else None


def _numbered(folder: Path, pattern: re.Pattern[str], want_dir: bool, what: str) -> dict[int, str]:
    """``{number: path}`` of the entries of ``folder`` named as ``pattern``; duplicates, gaps: errors."""
    found: dict[int, str] = {}
    for entry in sorted(os.scandir(folder), key=lambda e: e.name):
        match = pattern.fullmatch(entry.name)
        if match is None or entry.is_dir() != want_dir:
            continue
        if not want_dir:
            check_regular_file(entry.path)  # a FIFO or a device named S1 is refused, not opened
        k = int(match.group(1))
        if k in found:
            raise ValueError(f"{folder}: {what}{k} twice ({Path(found[k]).name} and {entry.name})")
        found[k] = os.path.abspath(entry.path)
    missing = sorted(set(range(1, max(found, default=0) + 1)) - set(found))
    if missing:
        have = ", ".join(Path(found[k]).name for k in sorted(found))
        raise ValueError(f"{folder}: {what}{missing[0]} is missing (found {have}); number them 1..K")
    return found


def _split_file(folder: Path, role: str) -> str | None:
    """The one file of ``role`` in a fold folder, None when there is none; an error when there are two."""
    names = [s + x for s in SPLIT_NAMES[role] for x in _SUFFIXES]
    found = [n for n in names if (folder / n).exists() and not (folder / n).is_dir()]
    if len(found) > 1:
        raise ValueError(f"{folder}: {len(found)} {role} files ({', '.join(found)}); keep one")
    return check_regular_file(folder / found[0]) if found else None


def _fold_of_folder(name: str, folder: Path, layout: str) -> LetorFold:
    splits = {}
    for role in SPLIT_NAMES:
        path = _split_file(folder, role)
        if path is None:
            expected = "/".join(SPLIT_NAMES[role])
            raise FileNotFoundError(f"{folder}: no {role} file ({expected}, .txt, .gz/.bz2/.xz)")
        group = _group_file_of(path)
        _check_first_line(path, group)
        splits[role] = LetorSplit((path,), None, group)
    return LetorFold(name, splits["train"], splits["vali"], splits["test"], layout)


def _partition_folds(folder: Path, parts: dict[int, str]) -> list[LetorFold]:
    if len(parts) < 3:
        raise ValueError(f"{folder}: {len(parts)} partitions S1..S{len(parts)}; folds need at least 3")
    for path in parts.values():
        _check_first_line(path, None)  # partitions are concatenated: their queries need qid: tokens
    files = [parts[k] for k in sorted(parts)]
    layout = f"partitions S1..S{len(files)}"
    folds = []
    for k in range(len(files)):
        train, vali, test = _rotation(k, len(files))
        folds.append(
            LetorFold(
                f"Fold{k + 1}", LetorSplit(tuple(files[i] for i in train)), LetorSplit((files[vali],)),
                LetorSplit((files[test],)), layout,
            )  # fmt: skip
        )
    return folds


def _folder_folds(folder: Path) -> list[LetorFold]:
    parts = _numbered(folder, _PARTITION, False, "partition S")
    if parts:
        return _partition_folds(folder, parts)
    dirs = _numbered(folder, _FOLD_DIR, True, "fold folder Fold")
    if dirs:
        layout = "fold folder Fold1" if len(dirs) == 1 else f"fold folders Fold1..Fold{len(dirs)}"
        return [_fold_of_folder(Path(dirs[k]).name, Path(dirs[k]), layout) for k in sorted(dirs)]
    if any(_split_file(folder, role) for role in SPLIT_NAMES):
        return [_fold_of_folder("Fold1", folder, "train/vali/test files of one fold")]
    raise FileNotFoundError(
        f"{folder}: no Fold1..FoldK folders, S1..SK partitions or train/vali/test files (not a LETOR folder?)"
    )


def _file_queries(path: str, query_file: str | None) -> list[str]:
    """The queries of one LETOR file in file order, from a light scan (the ``qid:`` token of each line)."""
    first: dict[str, int] = {}
    runs, previous, has_qid = 0, None, None
    _max_feature_index(path)  # reads every byte: a truncated or corrupt file fails here, naming itself
    with open_text(path) as fh:
        for lineno, line in enumerate(fh, 1):
            tokens = line.partition("#")[0].split(None, 2)
            if not tokens:
                continue
            line_has_qid = len(tokens) > 1 and tokens[1].startswith("qid:")
            if has_qid is not None and line_has_qid != has_qid:
                raise ValueError(f"{path}:{lineno}: 'qid:' token present on some lines but not on others")
            has_qid = line_has_qid
            qid = tokens[1][4:] if line_has_qid else ""
            if qid != previous:
                if qid in first:
                    raise ValueError(
                        f"{path}:{lineno}: rows of qid {qid!r} are not contiguous "
                        "(it appeared earlier in the file)"
                    )
                first[qid], previous, runs = lineno, qid, runs + 1
    if not has_qid:  # no data lines, or no qid: tokens
        _check_first_line(path, query_file)
        assert query_file is not None  # _check_first_line refuses lines without qid: and no group file
        return [str(i) for i in range(1, len(_read_group_file(Path(query_file))) + 1)]
    return list(first)


def _file_folds(path: str, n_parts: int, seed: int, query_file: str | None) -> list[LetorFold]:
    qids = np.asarray(_file_queries(path, query_file), dtype=object)
    if n_parts > len(qids):
        raise ValueError(f"{path}: folds={n_parts} but the file has only {len(qids)} queries")
    parts = [np.sort(p) for p in np.array_split(np.random.default_rng(seed).permutation(len(qids)), n_parts)]

    def split(indices: list[int]) -> LetorSplit:
        rows = np.sort(np.concatenate([parts[i] for i in indices]))
        return LetorSplit((path,), tuple(str(q) for q in qids[rows]), query_file)

    folds = []
    layout = f"one file split by query into {n_parts} parts (split seed {seed})"
    for k in range(n_parts):
        train, vali, test = _rotation(k, n_parts)
        folds.append(LetorFold(f"Fold{k + 1}", split(train), split([vali]), split([test]), layout))
    return folds


def letor_folds(
    path: str | os.PathLike,
    *,
    folds: int | None = None,
    seed: int = 0,
    query_file: str | os.PathLike | None = None,
) -> list[LetorFold]:
    """The cross-validation folds of a LETOR data set (see the module's description of the layouts).

    Args:
        path: a folder of ``Fold1..FoldK`` folders, a folder of partitions ``S1..SK``, a folder holding
            train/vali/test files (one fold), or one LETOR file (then ``folds`` is required).
        folds: for one file, the number of parts K (>= 3) its queries are split into; K folds result.
        seed: for one file, the seed of the split (``numpy.random.default_rng(seed)``).
        query_file: for one file whose lines carry no ``qid:``, its LightGBM group file (default
            ``<path>.query`` when it exists, as :func:`read_letor` does).

    Returns:
        The folds in order, ``Fold1`` first (each with its :attr:`~LetorFold.layout`). No data is
        parsed: each file's first line is checked and its ``qid:`` tokens scanned (a regular-expression
        pass over its bytes, cached per file), so that a query in two splits of a fold is found here.

    Raises:
        FileNotFoundError: ``path`` does not exist, a fold lacks a split, the folder holds no folds.
        ValueError: a gap in the fold or partition numbers, two files for one split, ``folds`` given for
            a folder or not for a file, ``folds`` < 3 or more than the queries, an empty file, a file
            whose lines carry no ``qid:`` without a group file, a query in two splits of one fold
            (:meth:`LetorFold.check_disjoint`), a data file that is not a regular file (a FIFO, a
            device: refused before it is opened), a truncated or corrupt compressed file.
        TypeError: ``folds`` or ``seed`` is not an integer.
    """
    p = Path(path)
    if not p.exists():
        raise FileNotFoundError(f"LETOR data not found: {p}")
    if p.is_dir():
        if folds is not None:
            raise ValueError(f"{p} is a folder of folds: folds= splits one LETOR file, leave it out")
        found = _folder_folds(p)
    else:
        file = check_regular_file(p)
        if folds is None:
            raise ValueError(f"{p} is one LETOR file: give folds=K (K >= 3) to split its queries into K "
                             "folds")
        n_parts = check_int(folds, "folds", minimum=3)
        seed = check_int(seed, "seed", minimum=0)
        found = _file_folds(file, n_parts, seed, _group_file_of(file, query_file))
    for fold in found:
        fold.check_disjoint()
    return found


def run_baseline_scores(data: LetorData, run: pd.DataFrame, *, name: str) -> np.ndarray:
    """A TREC run's ranking of the rows of ``data``, matched by qid and LETOR docid, as a baseline column.

    The column keeps the run's order, not its values: a row the run ranks gets ``1 + r``, ``r`` the
    rank of its score among the distinct scores of the matched rows (0 the lowest; tied scores stay
    tied); a row it does not rank (the run left the document out, or has no list for the query) gets
    ``−(ℓ − ℓmin) / (ℓmax − ℓmin + 1)`` in (−1, 0], ``ℓ`` the row's label and ``ℓmin``/``ℓmax`` the
    labels' range in ``data``. Unranked rows thus follow the ranked ones, lower labels first, so they
    add no gain the run did not earn while the query has enough non-relevant unranked rows to fill
    the cutoff (else the baseline's NDCG is an upper bound of the run's). Ranks, not an offset added
    to the scores, so that no score's size (1e18) can merge an unranked row with a ranked one. For
    MQ2008-agg's runs this orders every query as :func:`~pyterrier_risk.data.agg_baseline_scores` does.

    Args:
        data: LETOR rows with docids (``#docid = ...`` comments).
        run: a run frame with ``qid``, ``docno`` and ``score`` (:func:`~pyterrier_risk.data.read_run`).
        name: the run's name, for messages.

    Returns:
        One float64 value per row of ``data``: larger ranks higher.

    Raises:
        ValueError: ``data`` has no docids, the run lacks a column, lists a (qid, docno) twice, has an
            infinite or NaN score for a row of ``data``, or ranks no row of ``data``.
    """
    import pandas as pd

    if data.docno is None:
        raise ValueError(f"{data.path}: rows without '#docid = ...' comments: run {name!r} cannot be matched")
    lacking = [c for c in ("qid", "docno", "score") if c not in run.columns]
    if lacking:
        raise ValueError(f"run {name!r} lacks the column(s) {', '.join(lacking)}")
    ranked = run[["qid", "docno", "score"]].astype({"qid": str, "docno": str, "score": np.float64})
    if ranked.duplicated(["qid", "docno"]).any():
        raise ValueError(f"run {name!r} lists a (qid, docno) pair twice")
    keys = pd.DataFrame({"qid": data.qid.astype(str), "docno": data.docno.astype(str)})
    joined = keys.merge(ranked, on=["qid", "docno"], how="left", indicator=True)
    score = joined["score"].to_numpy(dtype=np.float64)
    hit = (joined["_merge"] == "both").to_numpy()
    if not hit.any():
        raise ValueError(f"run {name!r} matches none of the {len(data)} rows of {data.path} by qid and docid")
    if not np.isfinite(score[hit]).all():
        raise ValueError(f"run {name!r} has an infinite or NaN score for a row of {data.path}")
    order = np.unique(score[hit], return_inverse=True)[1].reshape(-1)
    y = data.y.astype(np.float64)
    out = -(y - y.min()) / (y.max() - y.min() + 1.0)
    out[hit] = 1.0 + order
    return out
