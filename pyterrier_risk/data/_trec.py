"""Strict readers for TREC run and qrels files (plain or gzipped) and ir_datasets qrels.

Unlike lenient readers, these stop at the first problem with an error that names the file and the
line: a wrong number of fields, a score that is not a number, a duplicated (qid, docno) pair.  The
topic policy (qrels topics define the topic set; missing topics score 0, extra topics are
ignored, each with a warning) is applied by :func:`read_run` when ``qrels`` is given, and by
:func:`pyterrier_risk.Experiment` otherwise.
"""

from __future__ import annotations

import gzip
import math
import os
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["read_run", "read_qrels"]

_COMPRESSION = (".gz", ".bz2", ".xz")


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


def _open_lines(path: str | os.PathLike[str], kind: str) -> list[str]:
    p = Path(path)
    if not p.exists():
        raise FileNotFoundError(f"{kind} file not found: {p}")
    if p.is_dir():
        raise IsADirectoryError(f"{kind} path is a directory, not a file: {p}")
    try:
        with open(p, "rb") as fh:
            magic = fh.read(2)
        opener = gzip.open if magic == b"\x1f\x8b" else open
        with opener(p, "rt", encoding="utf-8") as fh:
            return fh.read().splitlines()
    except UnicodeDecodeError as e:
        raise ValueError(f"{p}: not a text {kind} file (undecodable byte at offset {e.start})") from None
    except (OSError, EOFError) as e:
        raise ValueError(f"{p}: cannot read {kind} file: {e}") from None


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
        raise ValueError(
            f"{p}:{lineno}: document {docno!r} is {verb} twice for topic {qid!r} (first at line {first})"
        )


def read_run(
    path: str | os.PathLike[str],
    qrels: pd.DataFrame | None = None,
    *,
    name: str | None = None,
) -> pd.DataFrame:
    """Read a TREC run file (``qid Q0 docno rank score tag``, whitespace separated, optionally gzipped).

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
            fields, non-numeric rank or score, NaN score), or a (qid, docno) pair listed twice; the
            message names the file and line(s).
    """
    import numpy as np
    import pandas as pd

    p = Path(path)
    qids: list[str] = []
    docnos: list[str] = []
    ranks: list[int] = []
    scores: list[float] = []
    seen: dict[tuple[str, str], int] = {}
    for lineno, fields in _records(p, "run", "qid Q0 docno rank score tag"):
        qid, _, docno, rank, score, _ = fields
        try:
            rank_i = int(rank)
        except ValueError:
            raise ValueError(f"{p}:{lineno}: rank {rank!r} is not an integer") from None
        try:
            score_f = float(score)
        except ValueError:
            raise ValueError(f"{p}:{lineno}: score {score!r} is not a number") from None
        if math.isnan(score_f):
            raise ValueError(f"{p}:{lineno}: score is NaN")
        _first_time(seen, qid, docno, p, lineno, "listed")
        qids.append(qid)
        docnos.append(docno)
        ranks.append(rank_i)
        scores.append(score_f)
    if not qids:
        raise ValueError(f"{p}: run file has no results")
    if name is None:
        name = run_name(p)
    # plain numpy/object columns (not pandas extension arrays): ir_measures iterates them element by
    # element when it converts a run, which is several times slower on extension arrays
    run = pd.DataFrame(
        {
            "qid": pd.Series(qids, dtype=object),
            "docno": pd.Series(docnos, dtype=object),
            "rank": np.array(ranks, dtype=np.int64),
            "score": np.array(scores, dtype=np.float64),
            "name": pd.Series([name] * len(qids), dtype=object),
        }
    )
    if qrels is not None:
        from ..core._topics import qrels_topics, warn_extra, warn_missing

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
        path_or_id: a qrels file (optionally gzipped), or an ir_datasets id, with or without the
            ``irds:`` prefix PyTerrier uses (``irds:vaswani``, ``disks45/nocr/trec7``).  A string that
            names an existing file is read as a file.

    Returns:
        A DataFrame with PyTerrier's qrels columns ``qid``, ``docno`` (str) and ``label`` (int).

    Raises:
        FileNotFoundError: if a path that looks like a file (has a path separator or extension and no
            ``irds:`` prefix) does not exist and is not an ir_datasets id either.
        ValueError: for a malformed line (file and line named), a (qid, docno) pair judged twice, an
            empty file, an unknown ir_datasets id, or a dataset without qrels.
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


def _read_qrels_file(p: Path) -> pd.DataFrame:
    import pandas as pd

    rows: list[tuple[str, str, int]] = []
    seen: dict[tuple[str, str], int] = {}
    for lineno, fields in _records(p, "qrels", "qid iter docno label"):
        qid, _, docno, label = fields
        try:
            label_i = int(label)
        except ValueError:
            try:
                label_f = float(label)
            except ValueError:
                label_f = math.nan
            if not label_f.is_integer():
                raise ValueError(f"{p}:{lineno}: relevance label {label!r} is not an integer") from None
            label_i = int(label_f)
        _first_time(seen, qid, docno, p, lineno, "judged")
        rows.append((qid, docno, label_i))
    if not rows:
        raise ValueError(f"{p}: qrels file has no judgments")
    return pd.DataFrame(rows, columns=["qid", "docno", "label"]).astype({"qid": object, "docno": object})
