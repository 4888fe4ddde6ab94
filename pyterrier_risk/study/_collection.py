"""The collection of a study: an ir_datasets corpus, indexed with PISA, retrieved by several PISA systems.

:func:`retrieve` loads the collection (its relevance labels mapped to gains by :func:`relevance_labels`),
indexes it with pyterrier-pisa (cached) and runs the systems of :func:`pisa_systems`;
:func:`candidate_features` turns their results into the re-rankers' features.
"""

from __future__ import annotations

import contextlib
import os
import re
import sys
import time
import warnings
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from ..data import raised_by_interrupt
from ._settings import BASELINE, FEATURE_DEPTH, Study, StudyError

# Graded relevance codes that are not gains. Cranfield's codes run from 1 (complete answer) to 4 (minimum
# interest), -1 = no interest (Cleverdon, in the collection's cranqrel.readme; ir_datasets passes the codes
# through unchanged), so they are mapped to gains 4..1 and 0. Other collections: negative labels -> 0.
RELEVANCE_MAPS: dict[str, tuple[dict[int, int], str]] = {
    "cranfield": ({1: 4, 2: 3, 3: 2, 4: 1, -1: 0},
                  "Cleverdon's codes 1 (complete answer) … 4 (minimum interest) as gains 4 … 1, and −1 "
                  "(no interest) as 0"),
}

OFFLINE_HELP = (
    "ir_datasets could not load {dataset!r} ({reason}).\n"
    "The demo runs offline when the collection is already in ir_datasets' cache. Point it at a local copy:\n"
    "  home=$(mktemp -d) && cp -r /path/to/shared/data/ir_datasets_home/. \"$home\"\n"
    "  export IR_DATASETS_HOME=\"$home\"   # must be writable\n"
    "  pyterrier-risk demo\n"
    "(or connect to the internet once so that ir_datasets can download it)."
)



@contextlib.contextmanager
def _quiet_native_output(log_path: Path) -> Iterator[None]:
    """Send the process' C-level stdout and stderr (PISA's C++ logs and progress bars) to a log file."""
    sys.stdout.flush()
    sys.stderr.flush()
    try:
        saved = [os.dup(1), os.dup(2)]
    except OSError:  # pragma: no cover - no real fds (embedded interpreters)
        yield
        return
    with open(log_path, "ab") as log:
        os.dup2(log.fileno(), 1)
        os.dup2(log.fileno(), 2)
        try:
            yield
        finally:
            sys.stdout.flush()
            sys.stderr.flush()
            for fd, copy in ((1, saved[0]), (2, saved[1])):
                os.dup2(copy, fd)
                os.close(copy)


def _safe_name(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "_", text).strip("_") or "dataset"


def load_dataset(dataset: str) -> tuple[Any, pd.DataFrame, pd.DataFrame]:
    """The PyTerrier dataset, its topics and qrels, or a :class:`StudyError` that says how to fix it.

    Args:
        dataset: an ``irds:`` id (a bare ir_datasets id is accepted too).

    Returns:
        ``(dataset, topics, qrels)``; topics keep only ``qid`` and ``query``, qrels their labels as
        ir_datasets gives them (see :func:`relevance_labels`).
    """
    import pyterrier as pt

    dataset = dataset if dataset.startswith("irds:") else "irds:" + dataset
    irds_id = dataset[len("irds:"):]
    try:
        import ir_datasets

        known = irds_id in ir_datasets.registry
    except Exception as e:  # pragma: no cover - ir_datasets import failures (e.g. read-only home)
        raise StudyError(f"ir_datasets cannot start ({type(e).__name__}: {e}); IR_DATASETS_HOME="
                        f"{os.environ.get('IR_DATASETS_HOME', '~/.ir_datasets')} must be writable") from e
    if not known:
        raise StudyError(f"unknown ir_datasets id {irds_id!r} (from {dataset!r}); see "
                        "https://ir-datasets.com for the ids, e.g. irds:cranfield or irds:vaswani")
    try:
        ds: Any = pt.get_dataset(dataset)  # an irds: dataset, whose irds_ref() pyterrier's Dataset type lacks
        if not ds.irds_ref().has_docs():
            raise StudyError(f"{dataset} has no documents to index; the demo needs a corpus "
                            "(e.g. irds:cranfield or irds:vaswani)")
        try:
            topics = ds.get_topics()
        except (KeyError, ValueError, TypeError):
            topics = ds.get_topics("title")
        qrels = ds.get_qrels()
        # touch the corpus now, so that a missing corpus fails here with the helpful message
        next(iter(ds.get_corpus_iter(verbose=False)))
    except StudyError:
        raise
    except Exception as e:  # ir_datasets raises RuntimeError/OSError/ConnectionError when offline
        home = os.environ.get("IR_DATASETS_HOME", "~/.ir_datasets")
        if "download" in str(e).lower() or isinstance(e, (ConnectionError, OSError)):
            reason = f"its files are not in IR_DATASETS_HOME={home} and downloading them failed"
        else:
            reason = f"{type(e).__name__}: {str(e).splitlines()[0][:200] if str(e) else ''}"
        raise StudyError(OFFLINE_HELP.format(dataset=dataset, reason=reason)) from e
    topics = topics[["qid", "query"]].copy()
    qrels = qrels[["qid", "docno", "label"]].copy()
    topics = topics[topics["qid"].isin(set(qrels["qid"]))].reset_index(drop=True)
    if len(topics) < 10:
        raise StudyError(f"{dataset} has only {len(topics)} judged topics; the demo needs at least 10")
    return ds, topics, qrels


def relevance_labels(dataset: str, qrels: pd.DataFrame) -> tuple[pd.DataFrame, str]:
    """The qrels with the gains the study evaluates and trains with, and a sentence that says which.

    A collection listed in :data:`RELEVANCE_MAPS` has its codes mapped (Cranfield's 1 = best … 4, −1);
    elsewhere the labels are kept and negative ones (junk, no interest) become 0, as LightGBM needs.
    """
    irds_id = dataset[len("irds:"):] if dataset.startswith("irds:") else dataset
    if irds_id in RELEVANCE_MAPS:
        mapping, note = RELEVANCE_MAPS[irds_id]
        unknown = sorted(set(qrels["label"]) - set(mapping))
        if unknown:
            raise StudyError(f"{dataset}: relevance codes {unknown} are not in the demo's map {mapping}")
        return qrels.assign(label=qrels["label"].map(mapping).astype(int)), note
    negative = int((qrels["label"] < 0).sum())
    note = "as ir_datasets gives them" + (f"; {negative} negative labels counted as 0" if negative else "")
    return qrels.assign(label=qrels["label"].clip(lower=0).astype(int)), note


@contextlib.contextmanager
def index_lock(path: Path) -> Iterator[None]:
    """Hold an exclusive lock on the index at ``path`` across processes (waits for another holder).

    Two studies may share one cache folder: the index is built, and each scorer's data written into it
    (PISA writes those when a retriever is made), by one process at a time. The lock is ``flock`` on
    ``<path>.lock`` beside the index (the file stays; the kernel releases the lock when the process ends).
    """
    import fcntl

    with open(path.parent / f"{path.name}.lock", "a") as lock:
        fcntl.flock(lock.fileno(), fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(lock.fileno(), fcntl.LOCK_UN)


class _Feed:
    """The corpus as PISA's indexer reads it: counted, and with the error that stopped it kept.

    pyterrier-pisa reads the documents in a thread of its own and takes an error there for the end of
    the corpus: without this, a failing corpus would give a silently truncated index.
    """

    error: BaseException | None  # what stopped the corpus before its end

    def __init__(self, docs: Any) -> None:
        self.docs, self.count, self.finished, self.error = docs, 0, False, None

    def __iter__(self) -> Iterator[Any]:
        try:
            for doc in self.docs:
                yield doc
                self.count += 1
        except BaseException as e:
            self.error = e
            raise
        self.finished = True

    def check(self, path: Path) -> None:
        """Raise what stopped the corpus before its end (``KeyboardInterrupt`` for Ctrl-C)."""
        if self.finished:
            return
        if self.error is not None and raised_by_interrupt(self.error):
            raise KeyboardInterrupt from None
        reason = f"{type(self.error).__name__}: {self.error}" if self.error else "PISA stopped reading it"
        raise StudyError(f"indexing {path.name} stopped after {self.count} documents ({reason})")


def _build_into_place(ds: Any, path: Path, log_path: Path, threads: int) -> None:
    """Index the corpus, with every study scorer's data, in a new folder, then rename it to ``path``.

    Called with :func:`index_lock` held, so any unfinished ``.building`` folder left beside ``path``
    is from a process that died: it is removed. An error or Ctrl-C removes this one's.
    """
    import shutil

    from pyterrier_pisa import PisaIndex

    for stale in path.parent.glob(f".{path.name}.*.building"):
        shutil.rmtree(stale, ignore_errors=True)
    tmp = path.parent / f".{path.name}.{os.getpid()}.building"
    try:
        index = PisaIndex(str(tmp), threads=threads, overwrite=True)
        with _quiet_native_output(log_path), warnings.catch_warnings():
            # PISA indexes every str field when text_field is not given, which is what the demo wants
            warnings.filterwarnings("ignore", message="text_field not specified", category=UserWarning)
            feed = _Feed(ds.get_corpus_iter(verbose=False))
            index.index(iter(feed))
            feed.check(path)
            pisa_systems(index)  # writes each scorer's data now, before the index can be seen
        if path.exists():  # an unfinished index (no pt_meta.json) from before this lock existed
            shutil.rmtree(path)
        os.replace(tmp, path)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise


def build_index(ds: Any, path: Path, log_path: Path, threads: int = 2) -> Any:
    """Index the corpus with pyterrier-pisa into ``path`` (reused when already built).

    Safe when several processes share ``path``: the first builds it under :func:`index_lock` in a
    temporary folder that is renamed into place when complete; the others wait and reuse it.
    """
    try:
        from pyterrier_pisa import PisaIndex
    except ModuleNotFoundError as e:
        raise StudyError("the demo needs pyterrier-pisa: pip install 'pyterrier-risk[pisa]'") from e
    with index_lock(path):
        if not PisaIndex(str(path), threads=threads).built():
            _build_into_place(ds, path, log_path, threads)
    return PisaIndex(str(path), threads=threads)


def pisa_systems(index: Any, quick: bool = False, num_results: int = FEATURE_DEPTH) -> dict[str, Any]:
    """The PISA retrieval systems of the study, by name; the first one (BM25) is the risk baseline."""
    systems = {
        BASELINE: index.bm25(num_results=num_results),
        "BM25(k1=1.2,b=0.75)": index.bm25(k1=1.2, b=0.75, num_results=num_results),
        "DPH": index.dph(num_results=num_results),
        "PL2(c=1)": index.pl2(c=1.0, num_results=num_results),
        "PL2(c=5)": index.pl2(c=5.0, num_results=num_results),
        "QLD(mu=1000)": index.qld(mu=1000.0, num_results=num_results),
        "QLD(mu=100)": index.qld(mu=100.0, num_results=num_results),
    }
    if quick:
        keep = (BASELINE, "DPH", "PL2(c=1)", "QLD(mu=1000)")
        systems = {k: v for k, v in systems.items() if k in keep}
    return systems


def candidate_features(results: dict[str, pd.DataFrame], depth: int) -> pd.DataFrame:
    """BM25's top-``depth`` candidates with a ``features`` column built from every system's scores.

    For each system two features: its raw score for the document (feature ``2·i`` for the ``i``-th
    system, see :func:`system_score_features`) and that score divided by the system's best score for
    the query (raw retrieval scores are not comparable across queries, the ratio is). A system that did
    not retrieve a candidate contributes its lowest score for that query (the score of its last
    retrieved document): "not retrieved" ranks below everything it retrieved.

    Args:
        results: result frames by system name; must contain :data:`BASELINE`.
        depth: candidates per query.

    Returns:
        Result frame (``qid``, ``query``, ``docno``, ``score``, ``rank``, ``features``).
    """
    cand = results[BASELINE]
    cand = cand[cand["rank"] < depth][["qid", "query", "docno", "score", "rank"]].reset_index(drop=True)
    columns = []
    for _name, res in results.items():
        scores = res[["qid", "docno", "score"]].rename(columns={"score": "s"})
        stats = res.groupby("qid")["score"].agg(["min", "max"])
        merged = cand[["qid", "docno"]].merge(scores, on=["qid", "docno"], how="left")
        merged = merged.merge(stats, left_on="qid", right_index=True, how="left")
        raw = merged["s"].fillna(merged["min"]).fillna(0.0).to_numpy(dtype=np.float64)
        top = merged["max"].to_numpy(dtype=np.float64)
        ratio = np.divide(raw, top, out=np.zeros_like(raw), where=np.isfinite(top) & (top > 0))
        columns += [raw, ratio]
    cand["features"] = list(np.column_stack(columns))
    return cand


def system_score_features(n_systems: int) -> list[int]:
    """Feature indices of the systems' raw scores in :func:`candidate_features` (the GeoRisk baselines)."""
    return [2 * i for i in range(n_systems)]


@dataclass
class Collection:
    """What :func:`retrieve` produced: the collection as evaluated and the PISA systems' results.

    Attributes:
        topics: the judged topics (``qid``, ``query``).
        qrels: the qrels with the gains the study evaluates and trains with (:func:`relevance_labels`).
        labels: a sentence that says how the relevance labels were mapped.
        results: result frames (top :data:`FEATURE_DEPTH` per topic) by system name, :data:`BASELINE` first.
        n_docs: the number of indexed documents.
    """

    topics: pd.DataFrame
    qrels: pd.DataFrame
    labels: str
    results: dict[str, pd.DataFrame]
    n_docs: int

    @property
    def systems(self) -> list[str]:
        """The names of the PISA systems (the first is :data:`BASELINE`)."""
        return list(self.results)


def retrieve(study: Study, out: Path, log: Callable[[str], None] = print) -> Collection:
    """Load the collection (qrels mapped by :func:`relevance_labels`), index it (``out/cache``), retrieve."""
    log(f"loading {study.dataset} (IR_DATASETS_HOME={os.environ.get('IR_DATASETS_HOME', '~/.ir_datasets')})")
    ds, topics, qrels = load_dataset(study.dataset)
    qrels, labels = relevance_labels(study.dataset, qrels)
    log(f"  {len(topics)} judged topics, {len(qrels)} qrels")
    if study.folds > len(topics):
        raise StudyError(f"--folds {study.folds} is more than the {len(topics)} judged topics "
                        f"of {study.dataset}")
    cache = out / "cache"
    cache.mkdir(exist_ok=True)
    index_path = cache / f"pisa-{_safe_name(study.dataset)}"
    t0 = time.perf_counter()
    log(f"indexing the corpus with PISA into {index_path} (C++ log: {cache / 'pisa.log'})")
    index = build_index(ds, index_path, cache / "pisa.log")
    log(f"  {index.num_docs()} documents, {index.num_terms()} terms ({time.perf_counter() - t0:.1f}s)")
    results: dict[str, pd.DataFrame] = {}
    with _quiet_native_output(cache / "pisa.log"):
        with index_lock(index_path):  # PISA writes a scorer's missing data when a retriever is made
            systems = pisa_systems(index, quick=study.quick)
        for name, system in systems.items():
            results[name] = system(topics)
    log(f"retrieved with {len(systems)} PISA systems: {', '.join(systems)}")
    return Collection(topics, qrels, labels, results, index.num_docs())
