"""The ``pyterrier-risk demo`` study: PISA systems and risk-sensitive re-rankers on an ir_datasets collection.

The study (default ``irds:cranfield``) runs offline when the collection is in ``IR_DATASETS_HOME``:

1. index the ir_datasets corpus with pyterrier-pisa (cached under ``OUT/cache``);
2. retrieve with several PISA systems: BM25 (two parameter settings), DPH, PL2 (two), QLD (two);
3. re-rank BM25's top candidates with :class:`~pyterrier_risk.RiskLambdaMART` over the PISA scores as
   features, by k-fold cross-validation over the topics (every topic is scored by a model that never
   saw it): plain LambdaMART (α = 0, what every objective reduces to), U-CRO against BM25 and the
   multi-baseline GeoRisk objective against all the PISA systems, for several α;
4. evaluate everything and write ``OUT/report.md`` (prose from ``report_template.md``) with PNG plots:
   the trade per α (mean, Risk, Losses>20%, GeoRisk among the systems) for each re-ranker; four
   questions, each sentence worded from the numbers: the topics the re-rankers hurt against BM25
   (:func:`pyterrier_risk.hurt_topics`, T_J bars, helped–hurt histograms), the break-even α of every
   run (:data:`pyterrier_risk.BreakEven`), the Kendall distance of the re-rankers' rankings from BM25's
   per α with a paired test of the trend (:func:`pyterrier_risk.rank_distance`, Wang et al. 2012,
   §5.9) and the baseline sensitivity of the PISA systems (:func:`pyterrier_risk.baseline_sensitivity`:
   Friedman, Kendall's τ, PCA); then mean effectiveness and UE-normalised nDCG, URisk/TRisk against
   BM25 with the 2012 paper's decomposition, and ZRisk/GeoRisk over all runs.

The runs are also written as TREC files (``OUT/runs``) and the qrels as evaluated (``OUT/qrels.txt``),
so ``pyterrier-risk eval`` can re-evaluate them.
"""

from __future__ import annotations

import contextlib
import os
import re
import string
import sys
import time
import warnings
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

DEFAULT_DATASET = "irds:cranfield"
DEFAULT_ALPHAS: tuple[float, ...] = (0.0, 1.0, 5.0, 10.0)
QUICK_ALPHAS: tuple[float, ...] = (0.0, 5.0)
DEFAULT_OBJECTIVES: tuple[str, ...] = ("urisk", "georisk")
BASELINE = "BM25"
RUN_DEPTH = 100  # documents per topic of every evaluated run (the measures look at the top 100 at most)
FEATURE_DEPTH = 1000  # documents per topic the systems retrieve for the re-rankers' features
PLAIN = "LambdaMART"  # the α = 0 model: every objective trains plain LambdaMART at α = 0
OBJECTIVE_LABELS = {"urisk": "U-CRO", "tsaro": "T-SARO", "tfaro": "T-FARO", "tfaro_star": "T*-FARO",
                    "georisk": "GeoRisk-LM"}
_SINGLE_BASELINE = ("urisk", "tsaro", "tfaro")  # trained against BM25's score; the others against all systems
_OBJECTIVE_NOTES = {
    "urisk": "U-CRO against {baseline}'s score (Wang et al., SIGIR 2012, §4.3)",
    "tsaro": "T-SARO against {baseline}'s score (Dinçer et al., SIGIR 2014, §6.3)",
    "tfaro": "T-FARO against {baseline}'s score (Dinçer et al., SIGIR 2014, §6.3)",
    "tfaro_star": "T*-FARO against the per-topic mean of the {n} PISA systems' scores "
                  "(Dinçer et al., SIGIR 2016, §6)",
    "georisk": "GeoRisk against the {n} PISA systems' scores at once (Dinçer et al., SIGIR 2016, §6)",
}
# LightGBM's tree settings for ~20,000 training rows of ~200 topics (its defaults, 31 leaves and 20 rows
# per leaf, overfit them); the objectives themselves run at RiskLambdaMART's defaults.
TREE_PARAMS: dict[str, Any] = {"learning_rate": 0.05, "num_leaves": 7, "min_data_in_leaf": 50,
                               "num_threads": 1, "deterministic": True, "force_row_wise": True}
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


class DemoError(Exception):
    """A problem the user can fix (missing data, unknown dataset, unwritable output); no traceback."""


@dataclass
class DemoResult:
    """What :func:`run_demo` produced.

    Attributes:
        out: the output folder.
        report: path of ``report.md``.
        tables: the report's tables by name (``trade``, ``folds``, ``effectiveness``, ``risk``,
            ``multi``, ``per_topic``, ``experiment``, and those of :func:`_analysis_tables`: ``hurt``,
            ``break_even``, ``kendall``, ``kendall_trend``, ``kendall_distance``, ``sensitivity``).
        plots: paths of the PNG plots by name.
        seconds: wall-clock time of the whole study.
    """

    out: Path
    report: Path
    tables: dict[str, pd.DataFrame] = field(default_factory=dict)
    plots: dict[str, Path] = field(default_factory=dict)
    seconds: float = 0.0


@dataclass(frozen=True)
class Reranker:
    """One re-ranker of the study: ``RiskLambdaMART(objective, alpha=alpha, ...)`` named ``name``."""

    name: str
    objective: str
    alpha: float
    label: str


@dataclass(frozen=True)
class Study:
    """The settings of one study (see :func:`run_demo` for their meaning)."""

    dataset: str
    alphas: tuple[float, ...]
    objectives: tuple[str, ...]
    folds: int
    depth: int
    num_boost_round: int
    seed: int
    quick: bool

    def rerankers(self) -> list[Reranker]:
        """LambdaMART (α = 0) first, then every objective at every α > 0."""
        out = [Reranker(PLAIN, "lambdarank", 0.0, PLAIN)]
        for objective in self.objectives:
            label = OBJECTIVE_LABELS[objective]
            out += [Reranker(f"{label}(a={a:g})", objective, a, label) for a in self.alphas if a > 0]
        return out


def _say(message: str) -> None:
    print(f"[pyterrier-risk demo] {message}", flush=True)


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


def _file_name(name: str) -> str:
    """``name`` without the characters file systems reject (``BM25(k1=1.2,b=0.75)`` stays as it is)."""
    return re.sub(r'[\\/:*?"<>|\s]+', "_", name).strip("._") or "run"


def load_dataset(dataset: str) -> tuple[Any, pd.DataFrame, pd.DataFrame]:
    """The PyTerrier dataset, its topics and qrels, or a :class:`DemoError` that says how to fix it.

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
        raise DemoError(f"ir_datasets cannot start ({type(e).__name__}: {e}); IR_DATASETS_HOME="
                        f"{os.environ.get('IR_DATASETS_HOME', '~/.ir_datasets')} must be writable") from e
    if not known:
        raise DemoError(f"unknown ir_datasets id {irds_id!r} (from {dataset!r}); see "
                        "https://ir-datasets.com for the ids, e.g. irds:cranfield or irds:vaswani")
    try:
        ds = pt.get_dataset(dataset)
        if not ds.irds_ref().has_docs():
            raise DemoError(f"{dataset} has no documents to index; the demo needs a corpus "
                            "(e.g. irds:cranfield or irds:vaswani)")
        try:
            topics = ds.get_topics()
        except (KeyError, ValueError, TypeError):
            topics = ds.get_topics("title")
        qrels = ds.get_qrels()
        # touch the corpus now, so that a missing corpus fails here with the helpful message
        next(iter(ds.get_corpus_iter(verbose=False)))
    except DemoError:
        raise
    except Exception as e:  # ir_datasets raises RuntimeError/OSError/ConnectionError when offline
        home = os.environ.get("IR_DATASETS_HOME", "~/.ir_datasets")
        if "download" in str(e).lower() or isinstance(e, (ConnectionError, OSError)):
            reason = f"its files are not in IR_DATASETS_HOME={home} and downloading them failed"
        else:
            reason = f"{type(e).__name__}: {str(e).splitlines()[0][:200] if str(e) else ''}"
        raise DemoError(OFFLINE_HELP.format(dataset=dataset, reason=reason)) from e
    topics = topics[["qid", "query"]].copy()
    qrels = qrels[["qid", "docno", "label"]].copy()
    topics = topics[topics["qid"].isin(set(qrels["qid"]))].reset_index(drop=True)
    if len(topics) < 10:
        raise DemoError(f"{dataset} has only {len(topics)} judged topics; the demo needs at least 10")
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
            raise DemoError(f"{dataset}: relevance codes {unknown} are not in the demo's map {mapping}")
        return qrels.assign(label=qrels["label"].map(mapping).astype(int)), note
    negative = int((qrels["label"] < 0).sum())
    note = "as ir_datasets gives them" + (f"; {negative} negative labels counted as 0" if negative else "")
    return qrels.assign(label=qrels["label"].clip(lower=0).astype(int)), note


def build_index(ds: Any, path: Path, log_path: Path, threads: int = 2) -> Any:
    """Index the corpus with pyterrier-pisa into ``path`` (reused when already built)."""
    try:
        from pyterrier_pisa import PisaIndex
    except ModuleNotFoundError as e:
        raise DemoError("the demo needs pyterrier-pisa: pip install 'pyterrier-risk[pisa]'") from e
    index = PisaIndex(str(path), threads=threads)
    if index.built():
        return index
    index = PisaIndex(str(path), threads=threads, overwrite=True)
    with _quiet_native_output(log_path), warnings.catch_warnings():
        # PISA indexes every str field when text_field is not given, which is what the demo wants
        warnings.filterwarnings("ignore", message="text_field not specified", category=UserWarning)
        index.index(ds.get_corpus_iter(verbose=False))
    return index


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


def with_tail(reranked: pd.DataFrame, first_stage: pd.DataFrame, depth: int) -> pd.DataFrame:
    """Append the first stage's ranking below the re-ranked top ``depth`` (the usual re-ranking setup).

    The tail keeps its order and is scored below every re-ranked document of its query
    (``min re-ranked score − 1 − 0.001·(rank − depth)``), so every run of the study has the same depth
    and depth-dependent measures (AP@100, UE over the run's pool) compare like with like.
    """
    tail = first_stage[first_stage["rank"] >= depth][["qid", "query", "docno", "rank"]]
    floor = reranked.groupby("qid")["score"].min()
    tail = tail.assign(score=tail["qid"].map(floor).to_numpy() - 1.0 - 0.001 * (tail["rank"] - depth))
    tail = tail[tail["score"].notna()]
    out = pd.concat([reranked.drop(columns=["features"], errors="ignore"), tail], ignore_index=True)
    out = out.sort_values(["qid", "score"], ascending=[True, False], kind="stable").reset_index(drop=True)
    out["rank"] = out.groupby("qid", sort=False).cumcount()
    return out


def topic_folds(qids: Sequence[str], k: int, seed: int) -> list[np.ndarray]:
    """Split the topics into ``k`` folds of (almost) equal size, shuffled with ``seed``."""
    qids = np.array(sorted(set(qids), key=lambda q: (len(q), q)))
    rng = np.random.default_rng(seed)
    rng.shuffle(qids)
    return [np.sort(f) for f in np.array_split(qids, k)]


def make_model(spec: Reranker, n_systems: int, num_boost_round: int, seed: int) -> Any:
    """The :class:`~pyterrier_risk.RiskLambdaMART` of ``spec``, at the learner's objective defaults.

    Single-baseline objectives (U-CRO, T-SARO, T-FARO) are trained against the candidates' first-stage
    score (BM25); multi-baseline ones (GeoRisk, T*-FARO) against every PISA system's score of the same
    candidates. The model has a fixed number of trees (no early stopping: with ~20–40 validation topics
    the stopping point is noise).
    """
    from .. import RiskLambdaMART

    if spec.objective == "lambdarank":
        kwargs: dict[str, Any] = {}
    elif spec.objective in _SINGLE_BASELINE:
        kwargs = {"baseline": "score"}
    else:
        kwargs = {"baselines": system_score_features(n_systems)}
    return RiskLambdaMART(spec.objective, alpha=spec.alpha, cutoff=10, num_boost_round=num_boost_round,
                          verbose=False, seed=seed, **kwargs, **TREE_PARAMS)


def cross_validated_rerank(cand: pd.DataFrame, qrels: pd.DataFrame, rerankers: Sequence[Reranker], *,
                           n_systems: int, folds: int, seed: int, num_boost_round: int,
                           log: Callable[[str], None] = _say) -> dict[str, pd.DataFrame]:
    """Re-rank ``cand`` with every re-ranker by k-fold cross-validation over topics.

    Fold ``f`` (:func:`topic_folds` with ``seed``) is scored by models trained on all other folds.

    Returns:
        re-ranker name -> result frame over all topics (each topic scored by a model that did not see it).
    """
    parts = topic_folds(cand["qid"].unique(), folds, seed)
    out: dict[str, list[pd.DataFrame]] = {r.name: [] for r in rerankers}
    for f, test in enumerate(parts):
        t0 = time.perf_counter()
        train = cand[~cand["qid"].isin(test)]
        qrels_train = qrels[qrels["qid"].isin(set(train["qid"]))]
        trees = []
        for spec in rerankers:
            model = make_model(spec, n_systems, num_boost_round, seed).fit(train, qrels_train)
            out[spec.name].append(model.transform(cand[cand["qid"].isin(test)]))
            trees.append(model.best_iteration_)
        log(f"  fold {f + 1}/{folds}: {_models_text(trees)} on {train['qid'].nunique()} topics "
            f"({time.perf_counter() - t0:.1f}s)")
    return {name: pd.concat(v, ignore_index=True) for name, v in out.items()}


def _models_text(trees: Sequence[int]) -> str:
    """``"7 models of 50 trees"``, or ``"7 models of 12–50 trees"`` when their sizes differ."""
    lo, hi = min(trees), max(trees)
    size = f"{lo}" if lo == hi else f"{lo}–{hi}"
    return f"{len(trees)} model{'s' if len(trees) != 1 else ''} of {size} tree{'s' if hi != 1 else ''}"


def write_trec_run(res: pd.DataFrame, path: Path, tag: str) -> None:
    """Write a result frame as a TREC run file (``qid Q0 docno rank score tag``)."""
    res = res.sort_values(["qid", "score"], ascending=[True, False], kind="stable")
    ranks = res.groupby("qid", sort=False).cumcount() + 1
    # repr(float): the shortest text that reads back as the same number, so no ties are created
    lines = [f"{q} Q0 {d} {r} {float(s)!r} {tag}\n" for q, d, r, s in
             zip(res["qid"], res["docno"], ranks, res["score"], strict=False)]
    path.write_text("".join(lines), encoding="utf-8")


def write_trec_qrels(qrels: pd.DataFrame, path: Path) -> None:
    """Write qrels as a TREC qrels file (``qid 0 docno label``)."""
    lines = [f"{q} 0 {d} {int(v)}\n" for q, d, v in zip(qrels["qid"], qrels["docno"], qrels["label"],
                                                          strict=True)]
    path.write_text("".join(lines), encoding="utf-8")


def _ensure_writable(out: Path) -> None:
    try:
        out.mkdir(parents=True, exist_ok=True)
        probe = out / f".pyterrier-risk-write-test-{os.getpid()}"
        probe.write_text("")
        probe.unlink()
    except OSError as e:
        raise DemoError(f"cannot write to the output folder {out}: {e.strerror or e}") from e


def _objectives(objective: str | None, objectives: Sequence[str] | None) -> tuple[str, ...]:
    """The risk-sensitive objectives to train (``objective``: one that replaces its family's default)."""
    if objectives is None:
        if objective is None:
            return DEFAULT_OBJECTIVES
        if objective == "lambdarank":
            return ()
        if objective not in OBJECTIVE_LABELS:
            raise DemoError(f"unknown objective {objective!r}; expected lambdarank or one of "
                            f"{', '.join(OBJECTIVE_LABELS)}")
        single = objective in _SINGLE_BASELINE
        return (objective, DEFAULT_OBJECTIVES[1]) if single else (DEFAULT_OBJECTIVES[0], objective)
    objectives = tuple(objectives)
    bad = [o for o in objectives if o not in OBJECTIVE_LABELS]
    if bad or len(set(objectives)) != len(objectives):
        raise DemoError(f"objectives must be distinct names among {', '.join(OBJECTIVE_LABELS)}, "
                        f"got {list(objectives)}")
    return objectives


def study_settings(dataset: str, *, quick: bool, alphas: Sequence[float] | None, folds: int | None,
                   depth: int | None, seed: int, objective: str | None,
                   objectives: Sequence[str] | None) -> Study:
    """Check the arguments of :func:`run_demo` and fill in the defaults (α = 0 is always included)."""
    alphas = tuple(float(a) for a in (alphas if alphas is not None else
                                      (QUICK_ALPHAS if quick else DEFAULT_ALPHAS)))
    if not alphas or min(alphas) < 0 or not all(np.isfinite(alphas)):
        raise DemoError(f"alphas must be non-empty, finite and >= 0, got {alphas}")
    alphas = tuple(sorted({0.0, *alphas}))
    folds = folds or (3 if quick else 5)
    if folds < 2:
        raise DemoError(f"--folds must be at least 2 (train on some topics, test on the others), got {folds}")
    depth = depth or (50 if quick else 100)
    if depth < 10:
        raise DemoError(f"the re-ranking depth must be at least 10 (the cutoff of nDCG@10), got {depth}")
    return Study(dataset=dataset if dataset.startswith("irds:") else "irds:" + dataset, alphas=alphas,
                 objectives=_objectives(objective, objectives), folds=folds, depth=depth,
                 num_boost_round=30 if quick else 50, seed=seed, quick=quick)


@dataclass
class _Retrieved:
    topics: pd.DataFrame
    qrels: pd.DataFrame
    labels: str
    results: dict[str, pd.DataFrame]
    n_docs: int


def _retrieve(study: Study, out: Path, log: Callable[[str], None]) -> _Retrieved:
    """Load the collection (qrels mapped by :func:`relevance_labels`), index it and retrieve."""
    log(f"loading {study.dataset} (IR_DATASETS_HOME={os.environ.get('IR_DATASETS_HOME', '~/.ir_datasets')})")
    ds, topics, qrels = load_dataset(study.dataset)
    qrels, labels = relevance_labels(study.dataset, qrels)
    log(f"  {len(topics)} judged topics, {len(qrels)} qrels")
    if study.folds > len(topics):
        raise DemoError(f"--folds {study.folds} is more than the {len(topics)} judged topics "
                        f"of {study.dataset}")
    cache = out / "cache"
    cache.mkdir(exist_ok=True)
    index_path = cache / f"pisa-{_safe_name(study.dataset)}"
    t0 = time.perf_counter()
    log(f"indexing the corpus with PISA into {index_path} (C++ log: {cache / 'pisa.log'})")
    index = build_index(ds, index_path, cache / "pisa.log")
    log(f"  {index.num_docs()} documents, {index.num_terms()} terms ({time.perf_counter() - t0:.1f}s)")
    results: dict[str, pd.DataFrame] = {}
    with _quiet_native_output(cache / "pisa.log"):  # PISA builds scorer data when a retriever is made
        systems = pisa_systems(index, quick=study.quick)
        for name, system in systems.items():
            results[name] = system(topics)
    log(f"retrieved with {len(systems)} PISA systems: {', '.join(systems)}")
    return _Retrieved(topics, qrels, labels, results, index.num_docs())


def run_demo(dataset: str = DEFAULT_DATASET, out: str | os.PathLike = "pyterrier-risk-demo", *,
             quick: bool = False, alphas: Sequence[float] | None = None, folds: int | None = None,
             depth: int | None = None, seed: int = 42, objective: str | None = None,
             objectives: Sequence[str] | None = None, log: Callable[[str], None] = _say) -> DemoResult:
    """Run the whole study and write the report (see the module docstring).

    Args:
        dataset: ir_datasets id with a corpus, topics and qrels (``irds:cranfield``).
        out: output folder (created; the PISA index is cached in ``out/cache``).
        quick: fewer systems, α values, folds and trees (for tests and a first look).
        alphas: α values of the risk-sensitive re-rankers and of the risk measures (0 is always added).
        folds: number of cross-validation folds over the topics (default 5, quick 3).
        depth: re-ranking depth (BM25 candidates per topic; default 100, quick 50).
        seed: seed of the fold split and of LightGBM.
        objective: one objective that replaces the default of its family (``'urisk'`` for the single-
            baseline ones ``'urisk'``, ``'tsaro'``, ``'tfaro'``; ``'georisk'`` for ``'tfaro_star'``,
            ``'georisk'``); ``'lambdarank'`` trains only plain LambdaMART.
        objectives: the risk-sensitive objectives to train (default ``('urisk', 'georisk')``); takes
            precedence over ``objective``.
        log: progress callback (one line per step).

    Returns:
        A :class:`DemoResult`.

    Raises:
        DemoError: missing data, unknown dataset, unwritable output; the message says what to do.
    """
    t_start = time.perf_counter()
    out = Path(out)
    _ensure_writable(out)
    study = study_settings(dataset, quick=quick, alphas=alphas, folds=folds, depth=depth, seed=seed,
                           objective=objective, objectives=objectives)
    data = _retrieve(study, out, log)
    results, pisa, rerankers = data.results, list(data.results), study.rerankers()
    log(f"re-ranking BM25 top-{study.depth} with {len(rerankers)} RiskLambdaMART models "
        f"({', '.join(r.name for r in rerankers)}): {study.folds}-fold cross-validation over topics")
    t0 = time.perf_counter()
    reranked = cross_validated_rerank(candidate_features(results, study.depth), data.qrels, rerankers,
                                      n_systems=len(pisa), folds=study.folds, seed=study.seed,
                                      num_boost_round=study.num_boost_round, log=log)
    log(f"  trained {study.folds * len(rerankers)} models ({time.perf_counter() - t0:.1f}s)")
    run_depth = max(RUN_DEPTH, study.depth)
    results = {name: res[res["rank"] < run_depth] for name, res in results.items()}
    for name, res in reranked.items():
        results[name] = with_tail(res, results[BASELINE], study.depth)
    _write_runs(out, results, data.qrels)
    log("evaluating (pyterrier_risk.Experiment) and writing the report with plots")
    t0 = time.perf_counter()
    result = write_report(out=out, study=study, topics=data.topics, qrels=data.qrels, results=results,
                          pisa=pisa, n_docs=data.n_docs, labels=data.labels)
    log(f"  report written ({time.perf_counter() - t0:.1f}s)")
    result.seconds = time.perf_counter() - t_start
    log(f"done in {result.seconds:.1f}s: {result.report}")
    return result


def _write_runs(out: Path, results: dict[str, pd.DataFrame], qrels: pd.DataFrame) -> None:
    runs_dir = out / "runs"
    runs_dir.mkdir(exist_ok=True)
    for name, res in results.items():
        # file name = system name, so that `pyterrier-risk eval` names the rows as the report does
        write_trec_run(res, runs_dir / f"{_file_name(name)}.run", _safe_name(name))
    write_trec_qrels(qrels, out / "qrels.txt")


def _ue_measures(measure: Any) -> list[Any]:
    """UE-normalised ``measure`` (V1, V2) over the run's pool."""
    from .. import UE

    # pool='run': Vaswani's and Cranfield's qrels list (almost) only relevant documents, so a qrels pool
    # would be degenerate
    return [UE(measure, variant="V1", pool="run"), UE(measure, variant="V2", pool="run")]


def _fmt_alpha(a: float) -> str:
    return f"α={a:g}"


def evaluate_study(results: dict[str, pd.DataFrame], topics: pd.DataFrame, qrels: pd.DataFrame,
                   baseline: str, alphas: Sequence[float], measure: Any = None) -> dict[str, Any]:
    """Evaluate all systems with one :func:`pyterrier_risk.Experiment` call (``perquery='both'``).

    Args:
        results: result frames by system name.
        topics: the topics.
        qrels: the qrels.
        baseline: name of the single risk baseline.
        alphas: α values of the risk measures.
        measure: the measure the risk measures are built on (default ``nDCG@10``).

    Returns:
        ``averages`` (the Experiment table, indexed by name), ``matrix`` (systems × topics of
        ``measure``), ``measures`` (the plain measures), ``risk`` (the risk measures by kind and α) and
        ``measure``.
    """
    from ir_measures import AP, P, nDCG

    from .. import BreakEven, Experiment, GeoRisk, TRisk, URisk, ZRisk

    measure = nDCG @ 10 if measure is None else measure
    plain = [measure, AP @ 100, P @ 10, *_ue_measures(measure)]
    risk = {}
    for a in alphas:
        risk[("URisk", a)] = URisk(measure, alpha=a, baseline=baseline)
        risk[("TRisk", a)] = TRisk(measure, alpha=a, baseline=baseline)
        risk[("T*Risk", a)] = TRisk(measure, alpha=a, baseline="mean")
        risk[("ZRisk", a)] = ZRisk(measure, alpha=a)
        risk[("GeoRisk", a)] = GeoRisk(measure, alpha=a)
    break_even = BreakEven(measure, baseline=baseline)
    averages, per_query = Experiment(results, topics, qrels, [*plain, *risk.values(), break_even],
                                     perquery="both", verbose=False)
    qids = sorted(qrels["qid"].unique(), key=lambda q: (len(q), q))
    values = per_query[per_query["measure"] == str(measure)]
    matrix = (values.pivot(index="name", columns="qid", values="value")
              .reindex(index=list(results), columns=qids).fillna(0.0))
    return {"averages": averages.set_index("name"), "matrix": matrix, "measures": plain, "risk": risk,
            "break_even": break_even, "measure": measure}


def risk_table(ev: dict[str, Any], baseline: str, alphas: Sequence[float]) -> pd.DataFrame:
    """Against ``baseline``: the 2012 decomposition (independent of α) and URisk/TRisk for every α."""
    from .. import risk_reward

    matrix, averages, risk_m = ev["matrix"], ev["averages"], ev["risk"]
    others = [n for n in matrix.index if n != baseline]
    rows = [risk_reward(matrix.loc[n], matrix.loc[baseline]) for n in others]
    table = pd.DataFrame({"name": others, "Risk": [r.risk for r in rows], "Reward": [r.reward for r in rows],
                          "Gain": [r.gain for r in rows], "Wins": [r.wins for r in rows],
                          "Losses": [r.losses for r in rows], "Losses>20%": [r.losses_gt20 for r in rows]})
    for a in alphas:
        table[f"URisk {_fmt_alpha(a)}"] = averages.loc[others, repr(risk_m[("URisk", a)])].to_numpy()
        table[f"TRisk {_fmt_alpha(a)}"] = averages.loc[others, repr(risk_m[("TRisk", a)])].to_numpy()
    return table


def multi_table(ev: dict[str, Any], alphas: Sequence[float]) -> pd.DataFrame:
    """Against all runs: T*Risk (per-topic mean of all runs), ZRisk and GeoRisk for every α."""
    names = list(ev["matrix"].index)
    table = pd.DataFrame({"name": names})
    for kind in ("T*Risk", "ZRisk", "GeoRisk"):
        for a in alphas:
            column = ev["averages"].loc[names, repr(ev["risk"][(kind, a)])]
            table[f"{kind} {_fmt_alpha(a)}"] = column.to_numpy()
    return table


def trade_table(matrix: pd.DataFrame, study: Study, pisa: Sequence[str], baseline: str,
                measure: str) -> pd.DataFrame:
    """One row per training α: mean, Risk, Losses>20% and GeoRisk among ``pisa`` of every re-ranker.

    GeoRisk_α of a run is computed over the PISA systems plus that run alone (:func:`pyterrier_risk.georisk`,
    2016 eq. 7), so it does not depend on the other re-rankers; ``LambdaMART GeoRisk`` is the α = 0
    model's GeoRisk_α over the same set. The α = 0 row of every re-ranker is LambdaMART.
    """
    from .. import georisk, risk_reward

    base = matrix.loc[baseline]

    def geo(name: str, a: float) -> float:
        return float(georisk(matrix.loc[[*pisa, name]], alpha=a).loc[name])

    rows = []
    for a in study.alphas:
        row: dict[str, Any] = {"α": f"{a:g}", f"{PLAIN} GeoRisk": geo(PLAIN, a)}
        for objective in study.objectives:
            label = OBJECTIVE_LABELS[objective]
            name = PLAIN if a == 0 else f"{label}(a={a:g})"
            rr = risk_reward(matrix.loc[name], base)
            row.update({f"{label} {measure}": matrix.loc[name].mean(),
                        f"{label} Risk": rr.risk, f"{label} Losses>20%": rr.losses_gt20,
                        f"{label} GeoRisk": geo(name, a)})
        rows.append(row)
    return pd.DataFrame(rows)


def folds_table(matrix: pd.DataFrame, study: Study, baseline: str) -> pd.DataFrame:
    """Mean of ``baseline`` and of LambdaMART (α = 0) per cross-validation fold, and over all topics."""
    parts = topic_folds(list(matrix.columns), study.folds, study.seed)
    rows = [("all", matrix.columns)] + [(str(f + 1), part) for f, part in enumerate(parts)]
    table = pd.DataFrame([{"fold": f, "topics": len(q), baseline: matrix.loc[baseline, q].mean(),
                           PLAIN: matrix.loc[PLAIN, q].mean()} for f, q in rows])
    table["difference"] = table[PLAIN] - table[baseline]
    return table


HURT_TOP = 5  # most-hurt topics the report shows per re-ranker
QUERY_WIDTH = 60  # characters of a query text in the report's tables (cut between words)


def compared_runs(study: Study) -> list[str]:
    """LambdaMART and each risk-sensitive re-ranker at the largest α: the runs set against the first stage."""
    top = max(study.alphas)
    return [PLAIN] + [f"{OBJECTIVE_LABELS[o]}(a={top:g})" for o in study.objectives if top > 0]


def _run_name(objective: str, alpha: float) -> str:
    """The re-ranker an objective trained at ``alpha`` (LambdaMART at α = 0)."""
    return PLAIN if alpha == 0 else f"{OBJECTIVE_LABELS[objective]}(a={alpha:g})"


def short_query(text: str, width: int = QUERY_WIDTH) -> str:
    """``text`` cut to at most ``width`` characters between two words (``" …"`` marks a cut)."""
    import textwrap

    text = " ".join(str(text).split())
    return textwrap.shorten(text, width, placeholder=" …") if len(text) > width else text


def hurt_table(matrix: pd.DataFrame, topics: pd.DataFrame, study: Study, baseline: str,
               measure: str) -> pd.DataFrame:
    """Every topic of :func:`compared_runs` against ``baseline``, most-hurt first.

    The table is :func:`pyterrier_risk.hurt_topics`'s; ``T_R``/``T_J`` and their p-values are at the
    largest training α (Dinçer et al. 2014, eqs. 21–23).
    """
    from .. import hurt_topics

    names = [baseline, *compared_runs(study)]
    return hurt_topics(matrix.loc[names], baseline, measures=[measure], topics=topics,
                       alpha=max(study.alphas))


def _hurt_view(hurt: pd.DataFrame, baseline: str, measure: str, top: int = HURT_TOP) -> pd.DataFrame:
    """The ``top`` most-hurt topics of each run, with their query cut between words, for the report."""
    view = hurt.groupby("system", sort=False).head(top)
    return pd.DataFrame({"run": view["system"], "qid": view["qid"], "query": view["query"].map(short_query),
                         baseline: view["baseline"], measure: view["value"], "difference": view["difference"],
                         "relative": view["relative"], "T_J": view["t_j"],
                         "p(T_J)": view["t_j_p_value"].map(_p_text)})


def _p_text(p: float) -> str:
    """A p-value with two significant digits (``3e-14``, ``0.096``): a table's 4 decimals would show 0."""
    return f"{p:.2g}" if np.isfinite(p) else ""


def _hurt_text(hurt: pd.DataFrame, baseline: str, alpha: float) -> str:
    """Per run: topics lost, lost by more than 20%, and with T_J <= −2 (a significant loss at about 5%)."""
    parts = []
    counts = {}
    for name, rows in hurt.groupby("system", sort=False):
        lost = int((rows["difference"] < 0).sum())
        gt20 = int(rows["loss_gt20"].sum())
        sig = int((rows["t_j"] <= -2).sum())  # the T_J plot's red bars
        counts[name] = gt20
        parts.append(f"{name} loses {lost} of {len(rows)} topics, {gt20} by more than 20%, {sig} with "
                     f"T_J ≤ −2")
    text = f"Against {baseline} (T_J at α = {alpha:g}): " + "; ".join(parts) + "."
    names = list(counts)
    for name in names[1:]:
        word = ("fewer" if counts[name] < counts[names[0]] else "more" if counts[name] > counts[names[0]]
                else "as many")
        text += (f" {name} loses more than 20% on {word} topics than {names[0]} "
                 f"({counts[name]} vs {counts[names[0]]}).")
    return text


def breakeven_table(ev: dict[str, Any], risk: pd.DataFrame, baseline: str) -> pd.DataFrame:
    """Gain, Risk and break-even α* = Gain/Risk of every run against ``baseline`` (Wang et al. 2012, §5.7).

    α* is the Experiment's :data:`pyterrier_risk.BreakEven` column; URisk at α is positive exactly when
    α < α*.
    """
    names = [n for n in risk["name"] if n != baseline]
    column = repr(ev["break_even"])
    return pd.DataFrame({"name": names, "Gain": risk.set_index("name").loc[names, "Gain"].to_numpy(),
                         "Risk": risk.set_index("name").loc[names, "Risk"].to_numpy(),
                         "break-even α": ev["averages"].loc[names, column].to_numpy(dtype=float)})


def _breakeven_text(table: pd.DataFrame, study: Study, baseline: str) -> str:
    """Which runs still beat ``baseline`` at each α, and how each objective's α* moves with the training α."""
    star = table.set_index("name")["break-even α"]
    parts = []
    for a in (a for a in study.alphas if a > 0):
        ahead = [n for n, v in star.items() if v > a]
        parts.append(f"at α = {a:g}, {len(ahead)} of {len(star)} runs ({', '.join(ahead) or 'none'})")
    text = f"URisk against {baseline} is positive for α < α*: " + "; ".join(parts) + "." if parts else ""
    best = star.idxmax() if star.notna().any() else None
    if best is not None:
        text += f" The largest α* is {best}'s, {star[best]:.2f}."
    for objective in study.objectives:
        values = [float(star[_run_name(objective, a)]) for a in study.alphas]
        steps = np.diff(values)
        trend = ("rises with every step of the training α" if (steps > 0).all() else
                 "falls with every step of the training α" if (steps < 0).all() else
                 "does not move in one direction with the training α")
        path = " → ".join(f"{v:.2f}" for v in values)
        alphas = " → ".join(f"{a:g}" for a in study.alphas)
        text += f" {OBJECTIVE_LABELS[objective]}'s α* {trend}: {path} (training α {alphas})."
    return text.strip()


def kendall_distances(results: dict[str, pd.DataFrame], study: Study, baseline: str) -> pd.DataFrame:
    """Per topic (rows) and re-ranker (columns), the Kendall distance of its ranking from the first stage's.

    Both rankings hold the same documents, the first stage's top ``study.depth`` (the tail below is the
    first stage's own order and is left out). :func:`pyterrier_risk.rank_distance` (Wang et al. 2012, §5.9).
    """
    from .. import rank_distance

    first = _top(results[baseline], study.depth)
    return pd.DataFrame({r.name: rank_distance(_top(results[r.name], study.depth), first)
                         for r in study.rerankers()})


def _top(run: pd.DataFrame, depth: int) -> pd.DataFrame:
    return run[run["rank"] < depth]


def kendall_bins(results: dict[str, pd.DataFrame], study: Study, baseline: str) -> pd.DataFrame:
    """The share of the topics per Kendall-distance bin of each re-ranker (Wang et al. 2012, Fig. 5).

    :func:`pyterrier_risk.rank_distance_bins` of the rankings of :func:`kendall_distances`.
    """
    from .. import rank_distance_bins

    first = _top(results[baseline], study.depth)
    runs = {r.name: _top(results[r.name], study.depth) for r in study.rerankers()}
    return rank_distance_bins(runs, first).reset_index()


TREND_COLUMNS = ("re-ranker", "α from", "α to", "topics", "closer", "further", "same", "mean from", "mean to",
                 "bin 0 from", "bin 0 to", "Wilcoxon p")


def trend_alphas(study: Study) -> tuple[float, float]:
    """The two training α compared by the trend test: the smallest α > 0 (0 when only one) and the largest."""
    positive = [a for a in study.alphas if a > 0]
    return (positive[0] if len(positive) >= 2 else 0.0), max(study.alphas)


def kendall_trend(distances: pd.DataFrame, study: Study) -> pd.DataFrame:
    """Per objective: do the topics stay closer to the first stage at the largest α than at the smallest?

    Over the topics with a distance at both α (see :func:`trend_alphas`): how many moved closer, further
    or stayed, the mean distance and the share in bin 0 (distance < 0.1) at each, and the two-sided
    Wilcoxon signed-rank test of the paired distances (zero differences dropped; NaN when all are zero).
    """
    from scipy.stats import wilcoxon

    lo, hi = trend_alphas(study)
    rows = []
    for objective in study.objectives if hi > 0 else ():
        pair = distances[[_run_name(objective, lo), _run_name(objective, hi)]].dropna()
        d_lo, d_hi = pair.iloc[:, 0].to_numpy(), pair.iloc[:, 1].to_numpy()
        diff = d_hi - d_lo
        p = float(wilcoxon(d_hi, d_lo).pvalue) if np.any(diff != 0) else float("nan")
        rows.append({"re-ranker": OBJECTIVE_LABELS[objective], "α from": f"{lo:g}", "α to": f"{hi:g}",
                     "topics": len(pair), "closer": int((diff < 0).sum()), "further": int((diff > 0).sum()),
                     "same": int((diff == 0).sum()), "mean from": d_lo.mean(), "mean to": d_hi.mean(),
                     "bin 0 from": float((d_lo < 0.1).mean()), "bin 0 to": float((d_hi < 0.1).mean()),
                     "Wilcoxon p": p})
    return pd.DataFrame(rows, columns=list(TREND_COLUMNS))


def _kendall_text(trend: pd.DataFrame, baseline: str, level: float = 0.05) -> str:
    """One sentence per objective, its direction and wording decided by the trend table's numbers."""
    if trend.empty:
        return "No risk-sensitive re-ranker was trained with α > 0: there is no trend to test."
    parts = []
    for row in trend.to_dict("records"):
        name, lo, hi, p = row["re-ranker"], row["α from"], row["α to"], row["Wilcoxon p"]
        numbers = (f"bin 0 (distance < 0.1) holds {row['bin 0 from']:.0%} of the topics at α = {lo} and "
                   f"{row['bin 0 to']:.0%} at α = {hi}; the distance falls on {row['closer']} topics, rises "
                   f"on {row['further']}, stays on {row['same']} (Wilcoxon signed-rank p = {p:.2g})")
        if not p < level:
            parts.append(f"**{name}**: no significant change in the distance from {baseline} between "
                         f"α = {lo} and α = {hi}: {numbers}.")
        elif row["mean to"] < row["mean from"]:
            more = "more topics stay" if row["bin 0 to"] > row["bin 0 from"] else "the topics move"
            parts.append(f"**{name}**: {more} close to {baseline}'s ranking as α grows: {numbers}.")
        else:
            parts.append(f"**{name}**: the rankings move further from {baseline}'s as α grows: {numbers}.")
    return "\n\n".join(parts)


def baseline_study(matrix: pd.DataFrame, pisa: Sequence[str], alpha: float) -> Any:
    """:func:`pyterrier_risk.baseline_sensitivity` of the PISA systems at ``alpha`` (ECIR 2014)."""
    from .. import baseline_sensitivity

    return baseline_sensitivity(matrix.loc[list(pisa)], alpha=alpha, seed=0)


def _sensitivity_text(sens: Any, level: float = 0.05) -> str:
    """The Friedman test, Kendall's τ range and the PCA's explained variance, worded from the numbers."""
    parts = []
    f = sens.friedman
    if f is not None:
        verdict = ("the run baselines rank the systems alike more than chance would" if f.p_value < level
                   else "no evidence that the run baselines rank the systems alike")
        parts.append(f"Friedman test over the {f.blocks} run baselines (each ranks the {f.df + 1} systems "
                     f"by URisk at α = {sens.alpha:g}, its own 0 included; ECIR 2014, Table 2): χ² = "
                     f"{f.statistic:.2f}, df = {f.df}, p = {f.p_value:.2g}, Kendall's W = {f.kendall_w:.3f}: "
                     f"{verdict}.")
    lo, hi = sens.tau_range()
    if not np.isnan(lo):
        change = ("every run baseline ranks the systems the same" if lo == 1 else
                  "the ranking changes with the baseline")
        parts.append(f"Kendall's τ between two run baselines' rankings lies between {lo:.3f} and {hi:.3f}: "
                     f"{change}.")
    explained = ", ".join(f"{k} {v:.1%}" for k, v in sens.explained.items())
    parts.append(f"The first two principal axes of the systems × topics matrix explain {explained} of the "
                 "variance.")
    return " ".join(parts)


def _alpha0_text(averages: pd.DataFrame, folds: pd.DataFrame, ev: dict[str, Any], baseline: str) -> str:
    """The honest comparison of LambdaMART (α = 0) with the baseline on the mean, with its paired test."""
    overall = folds.iloc[0]
    diff = float(overall["difference"])
    word = "higher than" if diff > 0 else "lower than" if diff < 0 else "equal to"
    t_name = repr(ev["risk"][("TRisk", 0.0)])
    t, p = averages.loc[PLAIN, t_name], averages.loc[PLAIN, f"{t_name} p-value"]
    better = int((folds["difference"].iloc[1:] > 0).sum())
    return (f"**At α = 0 the re-ranker is {word} its baseline on the mean.** Over the {len(folds) - 1} "
            f"cross-validation folds ({int(overall['topics'])} topics, each scored by a model that never "
            f"saw it), LambdaMART has mean {ev['measure']} {overall[PLAIN]:.4f} and {baseline} "
            f"{overall[baseline]:.4f} (difference {diff:+.4f}; paired t = TRisk at α = 0: {t:.2f}, "
            f"p = {p:.3f}); LambdaMART is ahead in {better} of the {len(folds) - 1} folds:")


def _findings(trade: pd.DataFrame, study: Study, measure: Any) -> str:
    """One data-driven sentence per objective: what training with the largest α changed."""
    top = max(study.alphas)
    if top == 0 or not study.objectives:
        return ""
    first, last = trade.iloc[0], trade.iloc[-1]
    parts = [f"**What risk-sensitive training changed** (α = 0 → {top:g}):"]
    for objective in study.objectives:
        label = OBJECTIVE_LABELS[objective]
        parts.append(
            f"{label}: {measure} {first[f'{label} {measure}']:.4f} → {last[f'{label} {measure}']:.4f}, "
            f"Risk {first[f'{label} Risk']:.4f} → {last[f'{label} Risk']:.4f}, Losses>20% "
            f"{int(first[f'{label} Losses>20%'])} → {int(last[f'{label} Losses>20%'])}, GeoRisk at α = "
            f"{top:g} {last[f'{PLAIN} GeoRisk']:.4f} (LambdaMART) → {last[f'{label} GeoRisk']:.4f}.")
    return " ".join(parts)


def tj_panels(matrix: pd.DataFrame, study: Study, baseline: str) -> dict[str, pd.Series]:
    """Per-topic T_J at the largest α of :func:`compared_runs` against the first stage ``baseline``."""
    from .. import trisk

    top, base = max(study.alphas), matrix.loc[baseline]
    return {f"{name} vs. {baseline} (T_J at α={top:g})": trisk(matrix.loc[name], base, alpha=top).t_j
            for name in compared_runs(study)}


def make_plots(ev: dict[str, Any], risk: pd.DataFrame, study: Study, pisa: Sequence[str], plots_dir: Path,
               baseline: str, *, kendall: pd.DataFrame | None = None,
               sensitivity: Any = None) -> dict[str, Path]:
    """The report's PNG plots: risk–gain, helped–hurt, GeoRisk vs α, T_J per topic, and two optional ones.

    With ``kendall`` (:func:`kendall_bins`) the Kendall-distance bins, with ``sensitivity``
    (:func:`baseline_study`) the systems' PCA.
    """
    from ..reporting import (
        plot_baselines_pca,
        plot_georisk_alpha,
        plot_helped_hurt,
        plot_rank_distance,
        plot_risk_gain,
        plot_topic_tj,
    )

    matrix, primary, top = ev["matrix"], ev["measure"], max(study.alphas)
    base = matrix.loc[baseline]
    points = [{"name": n, "alpha": float("nan"), "risk": r, "gain": g}
              for n, r, g in zip(risk["name"], risk["Risk"], risk["Gain"], strict=True) if n in pisa]
    by_name = risk.set_index("name")
    for spec in study.rerankers():
        # LambdaMART (α = 0) is the first point of every objective's curve
        curves = [OBJECTIVE_LABELS[o] for o in study.objectives] or [PLAIN]
        labels = [spec.label] if spec.alpha > 0 else curves
        points += [{"name": lab, "alpha": spec.alpha, "risk": by_name.loc[spec.name, "Risk"],
                    "gain": by_name.loc[spec.name, "Gain"]} for lab in labels]
    names = ["risk_gain", "helped_hurt", "georisk_alpha", "topic_tj"]
    names += ["kendall"] * (kendall is not None) + ["baselines_pca"] * (sensitivity is not None)
    plots = {k: plots_dir / f"{k}.png" for k in names}
    plot_risk_gain(pd.DataFrame(points), path=plots["risk_gain"],
                   title=f"Risk–gain against {baseline} on {primary} (labels: training α)")
    plot_helped_hurt({n: matrix.loc[n] for n in compared_runs(study)}, base, measure=str(primary),
                     path=plots["helped_hurt"],
                     title=f"Helped–hurt against {baseline}: LambdaMART and the re-rankers with α={top:g}")
    plot_georisk_alpha(matrix, path=plots["georisk_alpha"],
                       title=f"GeoRisk of {len(matrix)} runs on {primary} ({study.dataset})")
    plot_topic_tj(tj_panels(matrix, study, baseline), path=plots["topic_tj"],
                  title=f"Per-topic T_J of the re-rankers against their first stage {baseline}")
    if kendall is not None:
        labels = {r.name: f"{r.label}\nα={r.alpha:g}" for r in study.rerankers()}  # two short lines per bar
        bars = kendall.assign(run=kendall["run"].map(labels)).set_index("run").rename_axis("re-ranker")
        plot_rank_distance(bars, path=plots["kendall"],
                           title=f"Kendall distance of each re-ranker's top {study.depth} from {baseline}'s")
    if sensitivity is not None:
        plot_baselines_pca(sensitivity, path=plots["baselines_pca"],
                           title=f"The {len(pisa)} PISA systems × {matrix.shape[1]} topics (squares: "
                                 "virtual baselines)")
    return plots


def _reranker_lines(study: Study, n_pisa: int, baseline: str) -> str:
    alphas = ", ".join(f"{a:g}" for a in study.alphas if a > 0)
    lines = [f"  - **{PLAIN}**: `RiskLambdaMART('lambdarank')`, i.e. α = 0, what every objective reduces to."]
    for objective in study.objectives:
        note = _OBJECTIVE_NOTES[objective].format(baseline=baseline, n=n_pisa)
        spec = "baseline='score'" if objective in _SINGLE_BASELINE else f"baselines=[{n_pisa} PISA scores]"
        lines.append(f"  - **{OBJECTIVE_LABELS[objective]}(a=α)**: `RiskLambdaMART({objective!r}, alpha=α, "
                     f"{spec})`, α ∈ {{{alphas}}}: {note}.")
    return "\n".join(lines)


def render_report(fields: dict[str, Any]) -> str:
    """``report_template.md`` (next to this module) with ``fields`` substituted (``string.Template``)."""
    text = resources.files(__package__).joinpath("report_template.md").read_text(encoding="utf-8")
    return string.Template(text).substitute({k: str(v) for k, v in fields.items()})


def _report_fields(ev: dict[str, Any], tables: dict[str, pd.DataFrame], study: Study, pisa: Sequence[str],
                   n_docs: int, labels: str) -> dict[str, Any]:
    from ..reporting import write_table

    def md(df: pd.DataFrame) -> str:
        return write_table(df).rstrip("\n")

    matrix, measure, baseline = ev["matrix"], ev["measure"], BASELINE
    alphas = " ".join(f"{a:g}" for a in study.alphas)
    return {
        "dataset": study.dataset, "n_docs": n_docs, "n_topics": matrix.shape[1], "labels": labels,
        "n_pisa": len(pisa), "systems": ", ".join(pisa), "baseline": baseline, "depth": study.depth,
        "num_boost_round": study.num_boost_round, "num_leaves": TREE_PARAMS["num_leaves"],
        "learning_rate": TREE_PARAMS["learning_rate"], "run_depth": max(RUN_DEPTH, study.depth),
        "feature_depth": FEATURE_DEPTH,
        "folds": study.folds, "rerankers": _reranker_lines(study, len(pisa), baseline), "measure": measure,
        "example_measure": repr(ev["risk"][("URisk", max(study.alphas))]), "n_systems": len(matrix),
        "eval_command": f"pyterrier-risk eval --qrels qrels.txt --measure {measure} --alpha {alphas} "
                        f"--baseline runs/{baseline}.run runs/*.run",
        "alpha0": _alpha0_text(ev["averages"], tables["folds"], ev, baseline),
        "folds_table": md(tables["folds"]), "baseline_mean": f"{matrix.loc[baseline].mean():.4f}",
        "trade_table": md(tables["trade"]), "findings": _findings(tables["trade"], study, measure),
        "effectiveness_table": md(tables["effectiveness"]),
        "risk_table": md(tables["risk"]),
        "multi_table": md(tables["multi"]),
        **_analysis_fields(tables, ev["sensitivity"], study, measure, baseline, md),
    }


def _analysis_fields(tables: dict[str, pd.DataFrame], sens: Any, study: Study, measure: Any, baseline: str,
                     md: Callable[[pd.DataFrame], str]) -> dict[str, Any]:
    """The report's fields of the four questions: hurt topics, break-even α, Kendall distance, baselines."""
    lo, hi = trend_alphas(study)
    return {
        "hurt_top": HURT_TOP, "top_alpha": f"{max(study.alphas):g}",
        "hurt_text": _hurt_text(tables["hurt"], baseline, max(study.alphas)),
        "hurt_table": md(_hurt_view(tables["hurt"], baseline, str(measure))),
        "breakeven_text": _breakeven_text(tables["break_even"], study, baseline),
        "breakeven_table": md(tables["break_even"]),
        "kendall_table": md(tables["kendall"]),
        "kendall_trend_table": md(tables["kendall_trend"].assign(
            **{"Wilcoxon p": tables["kendall_trend"]["Wilcoxon p"].map(_p_text)})),
        "kendall_text": _kendall_text(tables["kendall_trend"], baseline), "trend_from": f"{lo:g}",
        "trend_to": f"{hi:g}", "sensitivity_text": _sensitivity_text(sens),
        "ranks_table": md(tables["sensitivity"].set_index("system").map(
            lambda r: f"{r:g}" if np.isfinite(r) else "").reset_index()),
    }


def _analysis_tables(ev: dict[str, Any], risk: pd.DataFrame, results: dict[str, pd.DataFrame],
                     topics: pd.DataFrame, study: Study, pisa: Sequence[str]) -> dict[str, pd.DataFrame]:
    """The tables of the four questions, and :func:`baseline_study`'s result in ``ev["sensitivity"]``.

    ``hurt``, ``break_even``, ``kendall``, ``kendall_trend``, ``kendall_distance`` and ``sensitivity``
    (the systems' URisk ranks under each baseline).
    """
    matrix = ev["matrix"]
    distances = kendall_distances(results, study, BASELINE)
    sens = ev["sensitivity"] = baseline_study(matrix, pisa, max(study.alphas))
    ranks = sens.ranks.loc[list(pisa)].rename_axis(index="system").reset_index()
    return {"hurt": hurt_table(matrix, topics, study, BASELINE, str(ev["measure"])),
            "break_even": breakeven_table(ev, risk, BASELINE),
            "kendall": kendall_bins(results, study, BASELINE),
            "kendall_trend": kendall_trend(distances, study),
            "kendall_distance": distances.rename_axis(index="qid").reset_index(), "sensitivity": ranks}


def write_report(*, out: Path, study: Study, topics: pd.DataFrame, qrels: pd.DataFrame,
                 results: dict[str, pd.DataFrame], pisa: Sequence[str], n_docs: int,
                 labels: str) -> DemoResult:
    """Evaluate ``results`` and write ``out/report.md``, its tables (CSV) and plots (PNG).

    Args:
        out: output folder.
        study: the study's settings.
        topics: the evaluated topics (``qid``, ``query``).
        qrels: the qrels as evaluated.
        results: result frames by name: the PISA systems, then the re-rankers (:meth:`Study.rerankers`).
        pisa: the names of the PISA systems (the first is :data:`BASELINE`).
        n_docs: the number of indexed documents (for the text).
        labels: how the relevance labels were mapped (:func:`relevance_labels`; for the text).

    Returns:
        A :class:`DemoResult` (``seconds`` left at 0).
    """
    from ..reporting import write_table

    ev = evaluate_study(results, topics, qrels, BASELINE, study.alphas)
    matrix = ev["matrix"]
    tables = {"trade": trade_table(matrix, study, pisa, BASELINE, str(ev["measure"])),
              "folds": folds_table(matrix, study, BASELINE),
              "effectiveness": ev["averages"][[str(m) for m in ev["measures"]]].reset_index(),
              "risk": risk_table(ev, BASELINE, study.alphas), "multi": multi_table(ev, study.alphas),
              "per_topic": matrix.T.rename_axis(index="qid").reset_index(),
              "experiment": ev["averages"].reset_index()}
    tables.update(_analysis_tables(ev, tables["risk"], results, topics, study, pisa))
    plots = make_plots(ev, tables["risk"], study, pisa, out / "plots", BASELINE, kendall=tables["kendall"],
                       sensitivity=ev["sensitivity"])
    for key, df in tables.items():
        write_table(df, out / "tables" / f"{key}.csv")
    text = render_report(_report_fields(ev, tables, study, pisa, n_docs, labels))
    report = out / "report.md"
    try:
        report.write_text(text, encoding="utf-8")
    except OSError as e:
        raise DemoError(f"cannot write the report {report}: {e.strerror or e}") from e
    return DemoResult(out=out, report=report, tables=tables, plots=plots)
