"""The ``pyterrier-risk demo`` study: PISA systems + a risk-sensitive re-ranker on an ir_datasets collection.

The study (default ``irds:vaswani``) runs offline when the collection is in ``IR_DATASETS_HOME``:

1. index the ir_datasets corpus with pyterrier-pisa (cached under ``OUT/cache``);
2. retrieve with several PISA systems: BM25 (two parameter settings), DPH, PL2 (two), QLD (two);
3. re-rank BM25's top candidates with :class:`~pyterrier_risk.RiskLambdaMART` (U-CRO objective, the
   first-stage BM25 score as baseline) over the PISA scores as features, for several α, with k-fold
   cross-validation over the topics (every topic is scored by a model that never saw it);
4. evaluate everything and write ``OUT/report.md`` with PNG plots: mean effectiveness and UE-normalised
   nDCG, URisk/TRisk against BM25 with the 2012 paper's decomposition, ZRisk/GeoRisk over all systems,
   and the per-topic view (T_J bars, helped–hurt histograms, per-topic CSV).

The runs are also written as TREC files (``OUT/runs``) so ``pyterrier-risk eval`` can re-evaluate them.
"""

from __future__ import annotations

import contextlib
import os
import re
import sys
import time
import warnings
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

DEFAULT_DATASET = "irds:vaswani"
DEFAULT_ALPHAS: tuple[float, ...] = (0.0, 1.0, 5.0, 10.0)
QUICK_ALPHAS: tuple[float, ...] = (0.0, 5.0)
BASELINE = "BM25"
_OBJECTIVE_LABELS = {"urisk": "U-CRO", "tsaro": "T-SARO", "tfaro": "T-FARO", "tfaro_star": "T*-FARO",
                     "georisk": "GeoRisk-LM", "lambdarank": "LambdaMART"}

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
        tables: the report's tables by name (``effectiveness``, ``risk``, ``multi``, ``per_topic``).
        plots: paths of the PNG plots by name.
        seconds: wall-clock time of the whole study.
    """

    out: Path
    report: Path
    tables: dict[str, pd.DataFrame] = field(default_factory=dict)
    plots: dict[str, Path] = field(default_factory=dict)
    seconds: float = 0.0


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
        ``(dataset, topics, qrels)``; topics keep only ``qid`` and ``query``.
    """
    import pyterrier as pt

    if not dataset.startswith("irds:"):
        dataset = "irds:" + dataset
    irds_id = dataset[len("irds:"):]
    try:
        import ir_datasets

        known = irds_id in ir_datasets.registry
    except Exception as e:  # pragma: no cover - ir_datasets import failures (e.g. read-only home)
        raise DemoError(f"ir_datasets cannot start ({type(e).__name__}: {e}); IR_DATASETS_HOME="
                        f"{os.environ.get('IR_DATASETS_HOME', '~/.ir_datasets')} must be writable") from e
    if not known:
        raise DemoError(f"unknown ir_datasets id {irds_id!r} (from {dataset!r}); see "
                        "https://ir-datasets.com for the ids, e.g. irds:vaswani")
    try:
        ds = pt.get_dataset(dataset)
        if not ds.irds_ref().has_docs():
            raise DemoError(f"{dataset} has no documents to index; the demo needs a corpus "
                            "(e.g. irds:vaswani or irds:cranfield)")
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
    judged = set(qrels["qid"])
    topics = topics[topics["qid"].isin(judged)].reset_index(drop=True)
    if len(topics) < 10:
        raise DemoError(f"{dataset} has only {len(topics)} judged topics; the demo needs at least 10")
    return ds, topics, qrels


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


def pisa_systems(index: Any, quick: bool = False, num_results: int = 1000) -> dict[str, Any]:
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

    For each system two features: its raw score for the document and that score divided by the
    system's best score for the query (raw retrieval scores are not comparable across queries, the
    ratio is). A system that did not retrieve a candidate contributes its lowest score for that query
    (the score of its last retrieved document): "not retrieved" ranks below everything it retrieved.

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


def cross_validated_rerank(cand: pd.DataFrame, qrels: pd.DataFrame, alphas: Sequence[float], *, folds: int,
                           seed: int, num_boost_round: int, objective: str = "urisk",
                           log: Callable[[str], None] = _say) -> dict[float, pd.DataFrame]:
    """Re-rank ``cand`` with RiskLambdaMART for every α by k-fold cross-validation over topics.

    Fold ``f`` is scored by a model trained on all other folds. The model is small and has a fixed
    number of trees (no early stopping: with ~20 validation topics the stopping point is noise and
    stopped after one to three trees here). The baseline of the risk-sensitive objective is the
    candidates' first-stage score (BM25).

    Returns:
        α -> result frame over all topics (each topic scored by a model that did not see it).
    """
    from ..learning._lambdamart import RiskLambdaMART

    parts = topic_folds(cand["qid"].unique(), folds, seed)
    qrels = qrels.assign(label=qrels["label"].clip(lower=0))
    out: dict[float, list[pd.DataFrame]] = {float(a): [] for a in alphas}
    for f in range(folds):
        test = parts[f]
        train = np.setdiff1d(np.concatenate(parts), test)
        tr, te = cand[cand["qid"].isin(train)], cand[cand["qid"].isin(test)]
        qr_tr = qrels[qrels["qid"].isin(train)]
        for a in alphas:
            t0 = time.perf_counter()
            model = RiskLambdaMART(objective, alpha=float(a), baseline="score", cutoff=10,
                                   num_boost_round=num_boost_round, verbose=False, learning_rate=0.05,
                                   num_leaves=7, min_data_in_leaf=50, num_threads=1, seed=seed,
                                   deterministic=True, force_row_wise=True)
            model.fit(tr, qr_tr)
            out[float(a)].append(model.transform(te))
            log(f"  fold {f + 1}/{folds}, alpha={a:g}: {model.best_iteration_} trees on {len(train)} topics "
                f"({time.perf_counter() - t0:.1f}s)")
    return {a: pd.concat(v, ignore_index=True) for a, v in out.items()}


def write_trec_run(res: pd.DataFrame, path: Path, tag: str) -> None:
    """Write a result frame as a TREC run file (``qid Q0 docno rank score tag``)."""
    res = res.sort_values(["qid", "score"], ascending=[True, False], kind="stable")
    ranks = res.groupby("qid", sort=False).cumcount() + 1
    # repr(float): the shortest text that reads back as the same number, so no ties are created
    lines = [f"{q} Q0 {d} {r} {float(s)!r} {tag}\n" for q, d, r, s in
             zip(res["qid"], res["docno"], ranks, res["score"], strict=False)]
    path.write_text("".join(lines), encoding="utf-8")


def _ensure_writable(out: Path) -> None:
    from ..data._trec import ensure_writable_dir

    try:
        ensure_writable_dir(out)
    except OSError as e:
        raise DemoError(f"cannot write to the output folder {out}: {e.strerror or e}") from e


def run_demo(dataset: str = DEFAULT_DATASET, out: str | os.PathLike = "pyterrier-risk-demo", *,
             quick: bool = False, alphas: Sequence[float] | None = None, folds: int | None = None,
             depth: int | None = None, seed: int = 42, objective: str = "urisk",
             log: Callable[[str], None] = _say) -> DemoResult:
    """Run the whole study and write the report (see the module docstring).

    Args:
        dataset: ir_datasets id with a corpus, topics and qrels (``irds:vaswani``).
        out: output folder (created; the PISA index is cached in ``out/cache``).
        quick: fewer systems, α values, folds and trees (for tests and a first look).
        alphas: α values of the risk-sensitive re-ranker and of the risk measures.
        folds: number of cross-validation folds over the topics (default 5, quick 3).
        depth: re-ranking depth (BM25 candidates per topic; default 100, quick 50).
        seed: seed of the fold split and of LightGBM.
        objective: the re-ranker's objective (``'urisk'`` = U-CRO, ``'tfaro'``, ``'georisk'``, ...; see
            :class:`~pyterrier_risk.RiskLambdaMART`); its baseline is the BM25 score.
        log: progress callback (one line per step).

    Returns:
        A :class:`DemoResult`.

    Raises:
        DemoError: missing data, unknown dataset, unwritable output; the message says what to do.
    """
    t_start = time.perf_counter()
    out = Path(out)
    _ensure_writable(out)
    alphas = tuple(float(a) for a in (alphas if alphas is not None else
                                      (QUICK_ALPHAS if quick else DEFAULT_ALPHAS)))
    if not alphas or min(alphas) < 0:
        raise DemoError(f"alphas must be non-empty and >= 0, got {alphas}")
    folds = folds or (3 if quick else 5)
    if folds < 2:
        raise DemoError(f"--folds must be at least 2 (train on some topics, test on the others), got {folds}")
    depth = depth or (50 if quick else 100)
    num_boost_round = 30 if quick else 50

    log(f"loading {dataset} (IR_DATASETS_HOME={os.environ.get('IR_DATASETS_HOME', '~/.ir_datasets')})")
    ds, topics, qrels = load_dataset(dataset)
    log(f"  {len(topics)} judged topics, {len(qrels)} qrels")
    if folds > len(topics):
        raise DemoError(f"--folds {folds} is more than the {len(topics)} judged topics of {dataset}")

    cache = out / "cache"
    cache.mkdir(exist_ok=True)
    index_path = cache / f"pisa-{_safe_name(dataset)}"
    t0 = time.perf_counter()
    log(f"indexing the corpus with PISA into {index_path} (C++ log: {cache / 'pisa.log'})")
    index = build_index(ds, index_path, cache / "pisa.log")
    log(f"  {index.num_docs()} documents, {index.num_terms()} terms ({time.perf_counter() - t0:.1f}s)")

    results: dict[str, pd.DataFrame] = {}
    with _quiet_native_output(cache / "pisa.log"):  # PISA builds scorer data when a retriever is made
        systems = pisa_systems(index, quick=quick)
        for name, system in systems.items():
            results[name] = system(topics)
    log(f"retrieved with {len(systems)} PISA systems: {', '.join(systems)}")

    cand = candidate_features(results, depth)
    log(f"re-ranking BM25 top-{depth} with RiskLambdaMART({objective!r}, baseline = BM25 score) over "
        f"{len(systems)} PISA features: {folds}-fold CV over topics, alpha in {list(alphas)}")
    t0 = time.perf_counter()
    reranked = cross_validated_rerank(cand, qrels, alphas, folds=folds, seed=seed,
                                      num_boost_round=num_boost_round, objective=objective, log=log)
    log(f"  trained {folds * len(alphas)} models ({time.perf_counter() - t0:.1f}s)")
    label = _OBJECTIVE_LABELS.get(objective, objective)
    ltr_names = {a: f"{label}(a={a:g})" for a in alphas}
    first_stage = results[BASELINE]
    for a, res in reranked.items():
        results[ltr_names[a]] = with_tail(res, first_stage, depth)

    runs_dir = out / "runs"
    runs_dir.mkdir(exist_ok=True)
    for name, res in results.items():
        # file name = system name, so that `pyterrier-risk eval` names the rows as the report does
        write_trec_run(res, runs_dir / f"{_file_name(name)}.run", _safe_name(name))

    log("evaluating (pyterrier_risk.Experiment) and writing the report with plots")
    t0 = time.perf_counter()
    result = write_report(out=out, dataset=dataset, topics=topics, qrels=qrels, results=results,
                          baseline=BASELINE, alphas=alphas, ltr_names=ltr_names,
                          settings={"folds": folds, "depth": depth, "num_boost_round": num_boost_round,
                                    "seed": seed, "quick": quick, "n_docs": index.num_docs(),
                                    "objective": objective})
    log(f"  report written ({time.perf_counter() - t0:.1f}s)")
    result.seconds = time.perf_counter() - t_start
    log(f"done in {result.seconds:.1f}s: {result.report}")
    return result


def _ue_measures(measure: Any) -> list[Any]:
    """UE-normalised ``measure`` (V1, V2) over the run's pool when the UE measure is installed."""
    try:
        from ..measures._ue import UE
    except ImportError:  # the UE measure is optional for the demo
        return []
    # pool='run': Vaswani's qrels list only relevant documents, so a qrels pool would be degenerate
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
        ``averages`` (the Experiment table), ``per_query`` (its long per-topic table), ``matrix``
        (systems × topics of ``measure``), ``measures`` (the plain measures), ``risk`` (the risk
        measures by kind and α) and ``measure``.
    """
    from ir_measures import AP, P, nDCG

    from ..experiment._experiment import Experiment
    from ..measures._risk import GeoRisk, TRisk, URisk, ZRisk

    measure = nDCG @ 10 if measure is None else measure
    plain = [measure, AP @ 100, P @ 10, *_ue_measures(measure)]
    risk = {}
    for a in alphas:
        risk[("URisk", a)] = URisk(measure, alpha=a, baseline=baseline)
        risk[("TRisk", a)] = TRisk(measure, alpha=a, baseline=baseline)
        risk[("T*Risk", a)] = TRisk(measure, alpha=a, baseline="mean")
        risk[("ZRisk", a)] = ZRisk(measure, alpha=a)
        risk[("GeoRisk", a)] = GeoRisk(measure, alpha=a)
    averages, per_query = Experiment(results, topics, qrels, [*plain, *risk.values()], perquery="both",
                                     verbose=False)
    qids = sorted(qrels["qid"].unique(), key=lambda q: (len(q), q))
    values = per_query[per_query["measure"] == str(measure)]
    matrix = (values.pivot(index="name", columns="qid", values="value")
              .reindex(index=list(results), columns=qids).fillna(0.0))
    return {"averages": averages, "per_query": per_query, "matrix": matrix, "measures": plain,
            "risk": risk, "measure": measure}


def _findings(risk: pd.DataFrame, multi: pd.DataFrame, ltr_names: dict[float, str], baseline: str,
              measure: Any) -> str:
    """One data-driven paragraph: what risk-sensitive training changed (numbers from the tables)."""
    lo, hi = min(ltr_names), max(ltr_names)
    if lo == hi:
        return ""
    r = risk.set_index("name")
    m = multi.set_index("name")
    a, b = r.loc[ltr_names[lo]], r.loc[ltr_names[hi]]
    geo = f"GeoRisk α={hi:g}"
    best_geo = m[geo].idxmax()
    parts = [
        f"**What risk-sensitive training changed.** Against {baseline} on {measure}, the re-ranker trained",
        f"with α={hi:g} has Risk {b['Risk']:.4f} (α={lo:g}: {a['Risk']:.4f}),",
        f"{int(b['Losses'])} losses (α={lo:g}: {int(a['Losses'])}),",
        f"{int(b['Losses>20%'])} of them by more than 20% (α={lo:g}: {int(a['Losses>20%'])}),",
        f"and Gain {b['Gain']:+.4f} (α={lo:g}: {a['Gain']:+.4f}).",
        f"Over all systems, the highest GeoRisk at α={hi:g} is {best_geo}'s ({m.loc[best_geo, geo]:.4f}"
        + (f"; {baseline}: {m.loc[baseline, geo]:.4f})." if best_geo != baseline else ")."),
    ]
    return " ".join(parts)


def write_report(*, out: Path, dataset: str, topics: pd.DataFrame, qrels: pd.DataFrame,
                 results: dict[str, pd.DataFrame], baseline: str, alphas: Sequence[float],
                 ltr_names: dict[float, str], settings: dict[str, Any]) -> DemoResult:
    """Evaluate ``results`` and write ``out/report.md``, its tables (CSV) and plots (PNG).

    Args:
        out: output folder.
        dataset: the dataset id (for the text).
        topics: the evaluated topics (``qid``, ``query``).
        qrels: the qrels.
        results: result frames by system name (PISA systems and the re-ranker per α).
        baseline: name of the single baseline (BM25).
        alphas: the α values.
        ltr_names: α -> name of the re-ranker trained with that α.
        settings: study settings to print.

    Returns:
        A :class:`DemoResult` (``seconds`` left at 0).
    """
    from ..core._trisk import trisk
    from ..core._urisk import risk_reward
    from ..reporting._plots import plot_georisk_alpha, plot_helped_hurt, plot_risk_gain, plot_topic_tj
    from ..reporting._tables import markdown_section, write_table

    ev = evaluate_study(results, topics, qrels, baseline, alphas)
    averages, matrix, primary, risk_m = ev["averages"], ev["matrix"], ev["measure"], ev["risk"]
    averages = averages.set_index("name")
    base = matrix.loc[baseline]
    tables_dir, plots_dir = out / "tables", out / "plots"

    effectiveness = averages[[str(m) for m in ev["measures"]]].reset_index()

    # against the single baseline: the 2012 decomposition (independent of α) and URisk/TRisk per α
    others = [n for n in matrix.index if n != baseline]
    decomposition = pd.DataFrame([{"name": n, **risk_reward(matrix.loc[n], base).as_dict()} for n in others])
    risk = pd.DataFrame({
        "name": others,
        "Risk": decomposition["risk"].to_numpy(), "Reward": decomposition["reward"].to_numpy(),
        "Gain": decomposition["gain"].to_numpy(), "Wins": decomposition["wins"].to_numpy(),
        "Losses": decomposition["losses"].to_numpy(), "Losses>20%": decomposition["losses_gt20"].to_numpy(),
    })
    for a in alphas:
        risk[f"URisk {_fmt_alpha(a)}"] = averages.loc[others, repr(risk_m[("URisk", a)])].to_numpy()
        risk[f"TRisk {_fmt_alpha(a)}"] = averages.loc[others, repr(risk_m[("TRisk", a)])].to_numpy()

    # against all systems: T*Risk (per-topic mean of all systems), ZRisk, GeoRisk
    multi = pd.DataFrame({"name": list(matrix.index)})
    for kind in ("T*Risk", "ZRisk", "GeoRisk"):
        for a in alphas:
            column = averages.loc[list(matrix.index), repr(risk_m[(kind, a)])]
            multi[f"{kind} {_fmt_alpha(a)}"] = column.to_numpy()

    # the per-topic view: where the re-ranker trained with the smallest α loses most
    ltr0, ltr_max = ltr_names[min(alphas)], ltr_names[max(alphas)]
    hurt = (matrix.loc[ltr0] - base).sort_values(kind="stable").index[:5]
    worst = pd.DataFrame({"qid": hurt, baseline: base[hurt].to_numpy(),
                          ltr0: matrix.loc[ltr0, hurt].to_numpy(),
                          ltr_max: matrix.loc[ltr_max, hurt].to_numpy(),
                          "query": topics.set_index("qid").loc[hurt, "query"].str.slice(0, 50).to_numpy()})
    per_topic = matrix.T.rename_axis(index="qid").reset_index()

    plots: dict[str, Path] = {}
    # Risk and Gain do not depend on the evaluation α; the curve's labels are the training α
    trained_with = {v: a for a, v in ltr_names.items()}
    learner = f"RiskLambdaMART({settings['objective']})"
    rg = pd.DataFrame({"name": [learner if n in trained_with else n for n in others],
                       "alpha": [trained_with.get(n, float("nan")) for n in others],
                       "risk": risk["Risk"].to_numpy(), "gain": risk["Gain"].to_numpy()})
    plots["risk_gain"] = plots_dir / "risk_gain.png"
    plot_risk_gain(rg, path=plots["risk_gain"],
                   title=f"Risk–gain against {baseline} on {primary} (labels: training α)")
    plots["helped_hurt"] = plots_dir / "helped_hurt.png"
    plot_helped_hurt({ltr0: matrix.loc[ltr0], ltr_max: matrix.loc[ltr_max]}, base, measure=str(primary),
                     path=plots["helped_hurt"],
                     title=f"Helped–hurt against {baseline}: the re-ranker trained with α={min(alphas):g} "
                           f"and with α={max(alphas):g}")
    plots["georisk_alpha"] = plots_dir / "georisk_alpha.png"
    plot_georisk_alpha(matrix, path=plots["georisk_alpha"],
                       title=f"GeoRisk of {len(matrix)} systems on {primary} ({dataset})")
    pisa_only = effectiveness[~effectiveness["name"].isin([baseline, *ltr_names.values()])]
    best_pisa = pisa_only.sort_values(str(primary), ascending=False, kind="stable")["name"].iloc[0]
    tj = {f"{name} vs. {baseline}, α={a:g}": trisk(matrix.loc[name], base, alpha=a).t_j
          for name in (ltr0, best_pisa) for a in (min(alphas), max(alphas))}
    plots["topic_tj"] = plots_dir / "topic_tj.png"
    plot_topic_tj(tj, path=plots["topic_tj"])

    tables = {"effectiveness": effectiveness, "risk": risk, "multi": multi, "per_topic": per_topic,
              "most_hurt": worst, "experiment": averages.reset_index()}
    for key, df in tables.items():
        write_table(df, tables_dir / f"{key}.csv")

    a_list = ", ".join(f"{a:g}" for a in alphas)
    n_pisa = len(matrix) - len(ltr_names)
    example = repr(risk_m[("URisk", max(alphas))])
    text = [f"# Risk-sensitive evaluation study: {dataset}\n\n"]
    text.append(markdown_section("Setup", 2, [
        f"- collection: `{dataset}`, {settings['n_docs']} documents indexed with PISA (Porter2 stemming, "
        f"Terrier stopwords); {matrix.shape[1]} judged topics; every run has up to 1000 documents per topic.",
        f"- {n_pisa} PISA systems; **{baseline}** (k1=0.9, b=0.4) is the single risk baseline.",
        f"- re-ranker: `RiskLambdaMART({settings['objective']!r}, alpha=α, baseline='score')` over two "
        f"features per PISA system (score, score / best score of the query) for {baseline}'s top "
        f"{settings['depth']} documents (the rest of {baseline}'s ranking follows unchanged), "
        f"{settings['folds']}-fold cross-validation over topics, {settings['num_boost_round']} trees, "
        f"α ∈ {{{a_list}}}: every topic is scored by a model that never saw it.",
        f"- all measures from one `pyterrier_risk.Experiment` call; risk measures on **{primary}**; a topic "
        "missing from a run scores 0.",
        "- runs are in `runs/` (TREC format) and every table is in `tables/` (CSV, full precision; "
        "`tables/experiment.csv` has the columns under their measure names, e.g. "
        f"`{example}`). Re-evaluate the runs from the shell with\n"
        f"  `pyterrier-risk eval --qrels {dataset} --measure {primary} "
        f"--alpha {' '.join(f'{a:g}' for a in alphas)}"
        f" --baseline runs/{baseline}.run runs/*.run`",
    ]))
    text.append(markdown_section("Mean effectiveness", 2, [
        "Means over topics. `UE(...)` normalises nDCG by both its ideal value and its expected value "
        "under a random ordering of the run's documents (Feng & Karmaker Santu; V1 ∈ [0, 1], V2 ∈ [−1, 1]).",
        write_table(effectiveness),
    ]))
    text.append(markdown_section(f"Risk against {baseline}", 2, [
        _findings(risk, multi, ltr_names, baseline, primary),
        "Risk and Reward are the mean per-topic loss and win against the baseline, Gain = Reward − Risk "
        "(Wang et al., SIGIR 2012, eqs. 1–3); Wins/Losses count topics above/below it, Losses>20% those "
        "more than 20% below it. URisk = Reward − (1+α)·Risk (eq. 4); TRisk = URisk / SE (Dinçer et al., "
        "SIGIR 2014): below −2 the losses are significant at about 5%.",
        write_table(risk),
        f"![risk-gain](plots/risk_gain.png)\n\n*Risk vs. gain against {baseline} (2012 paper, Fig. 2); "
        "the re-ranker's points are labelled by the α it was trained with.*",
        f"![helped-hurt](plots/helped_hurt.png)\n\n*Per-topic change against {baseline} "
        "(2012 paper, Figs. 1 and 3).*",
    ]))
    text.append(markdown_section("Risk against all systems", 2, [
        f"T*Risk is TRisk against the per-topic mean of all {len(matrix)} systems (Dinçer et al., "
        "ECIR 2014); "
        "ZRisk and GeoRisk score each system against all the others at once (Dinçer et al., SIGIR 2016, "
        "eqs. 4–7). Higher is better for all three.",
        write_table(multi),
        "![georisk](plots/georisk_alpha.png)\n\n*GeoRisk as α grows (2016 paper, Figs. 2–3).*",
    ]))
    text.append(markdown_section("Per-topic view", 2, [
        f"The five topics where the re-ranker trained with α={min(alphas):g} loses most against {baseline}, "
        f"and the model trained with α={max(alphas):g} on them ({primary}):",
        write_table(worst),
        "![tj](plots/topic_tj.png)\n\n*Standardised jackknife bias T_J per topic (Dinçer et al., SIGIR "
        f"2014, Fig. 2): bars beyond ±2 are topics whose loss (red) or win (green) against {baseline} is "
        "significant.* The systems × topics matrix is in `tables/per_topic.csv`.",
    ]))
    report = out / "report.md"
    try:
        report.write_text("".join(text), encoding="utf-8")
    except OSError as e:
        raise DemoError(f"cannot write the report {report}: {e.strerror or e}") from e
    return DemoResult(out=out, report=report, tables=tables, plots=plots)
