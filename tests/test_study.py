"""The study layer (:mod:`pyterrier_risk.study`) used from Python on a small synthetic collection (no PISA).

The stages run one after the other on three synthetic systems: the typed results they pass on
(:class:`Collection`, :class:`Evaluation`, :class:`StudyTables`) and the files they write are checked
against independent computations.
"""

import numpy as np
import pandas as pd
import pytest

import pyterrier_risk as ptr
from pyterrier_risk import risk_reward
from pyterrier_risk.data import letor_folds, read_letor, read_qrels, read_run
from pyterrier_risk.learning import get_objective, objective_names
from pyterrier_risk.study import (
    BASELINE,
    PLAIN,
    Collection,
    Evaluation,
    Study,
    StudyTables,
    candidate_features,
    engine_rerank,
    evaluate_study,
    make_model,
    make_plots,
    objective_label,
    rerank,
    risk_gain_points,
    risk_objectives,
    study_settings,
    study_tables,
    topic_folds,
    write_candidates,
    write_report,
    write_runs,
)

TOPICS, DOCS = 18, 30  # 6 topics (120 candidates) per part: LightGBM needs 2 × min_data_in_leaf rows


def _collection(seed=0):
    """Three systems that score 30 documents per topic: BM25 is noisy relevance, the others noisier."""
    rng = np.random.default_rng(seed)
    qids = [str(q) for q in range(1, TOPICS + 1)]
    labels = {(q, f"d{q}_{d}"): int(rng.integers(0, 3)) for q in qids for d in range(DOCS)}
    results = {}
    for name, noise in [(BASELINE, 0.8), ("DPH", 1.0), ("QLD", 1.5)]:
        rows = [(q, "query " + q, doc, lab + rng.normal(0, noise)) for (q, doc), lab in labels.items()]
        res = pd.DataFrame(rows, columns=["qid", "query", "docno", "score"])
        res = res.sort_values(["qid", "score"], ascending=[True, False], kind="stable").reset_index(drop=True)
        res["rank"] = res.groupby("qid").cumcount()
        results[name] = res
    qrels = pd.DataFrame([(q, d, lab) for (q, d), lab in labels.items()], columns=["qid", "docno", "label"])
    topics = pd.DataFrame({"qid": qids, "query": ["query " + q for q in qids]})
    return Collection(topics=topics, qrels=qrels, labels="synthetic", results=results, n_docs=TOPICS * DOCS)


def test_the_objectives_come_from_the_learners_registry():
    assert set(risk_objectives()) == {n for n in objective_names() if get_objective(n).baseline != "none"}
    study = study_settings("x", alphas=[2], objectives=list(risk_objectives()))
    for spec in study.rerankers()[1:]:
        assert spec.label == get_objective(spec.objective).label == objective_label(spec.objective)
        model = make_model(spec, n_systems=3, num_boost_round=2, seed=0)
        single = get_objective(spec.objective).baseline == "single"
        # one baseline: the candidates' first-stage score; several: every system's raw-score feature
        assert model.baselines == (None if single else [0, 2, 4]) and model.baseline == "score"
    # --objective replaces the default of its family, the family read from the registry
    for name in risk_objectives():
        replaced = study_settings("x", objective=name).objectives
        assert name in replaced and len(replaced) == 2


def test_every_objective_is_described_from_its_own_label_citation_and_baseline():
    from pyterrier_risk.study._report import objective_note

    notes = {name: objective_note(name, "BM25", 4) for name in risk_objectives()}
    for name, note in notes.items():
        spec = get_objective(name)
        assert note.startswith(f"{spec.label} against ") and note.endswith(f"({spec.citation})")
        assert ("BM25's score" in note) == (spec.baseline == "single")
    assert "against the per-topic mean of the 4 PISA systems' scores" in notes["tfaro_star"]
    assert "against the 4 PISA systems' scores at once" in notes["georisk"]


class Hedge(ptr.Objective):
    """A user's objective: the queries below the baseline weigh 1 + alpha."""

    name, label, baseline = "t_hedge", "Hedge-LM", "single"
    citation = "A. Nonymous, a user's own objective (2031)"

    def weights(self, r):
        return 1.0 + r.alpha * (r.model < r.baseline)


def test_a_user_objective_appears_in_the_report_with_its_own_label_and_citation(tmp_path):
    ptr.register_objective(Hedge)
    try:
        collection = _collection(seed=3)
        study = study_settings("synthetic", alphas=[5.0], objectives=["t_hedge"], folds=3, depth=20)
        study = Study(**{**study.__dict__, "num_boost_round": 2})
        results = rerank(collection, study, log=lambda _: None, out=tmp_path / "study", workers=1)
        ev = evaluate_study(results, collection.topics, collection.qrels, BASELINE, study.alphas)
        tables = study_tables(ev, results, collection.topics, study, collection.systems)
        report = write_report(tmp_path, study, ev, tables, collection.systems, n_docs=collection.n_docs,
                              labels=collection.labels).read_text(encoding="utf-8")
    finally:
        ptr.unregister_objective("t_hedge")
    assert "Hedge-LM(a=5)" in results
    assert ("**Hedge-LM(a=α)**: `RiskLambdaMART('t_hedge', alpha=α, baseline='score')`, α ∈ {5}: Hedge-LM "
            "against BM25's score (A. Nonymous, a user's own objective (2031)).") in report


@pytest.fixture(scope="module")
def pipeline(tmp_path_factory):
    out = tmp_path_factory.mktemp("study")
    collection = _collection()
    study = Study("irds:synthetic", (0.0, 5.0), ("urisk",), folds=3, depth=20, num_boost_round=3, seed=1,
                  quick=True)
    results = rerank(collection, study, log=lambda _: None, out=out, workers=1)
    write_runs(out, results, collection.qrels)
    ev = evaluate_study(results, collection.topics, collection.qrels, BASELINE, study.alphas)
    tables = study_tables(ev, results, collection.topics, study, collection.systems)
    plots = make_plots(ev, tables, study, collection.systems, out / "plots", BASELINE)
    report = write_report(out, study, ev, tables, collection.systems, n_docs=collection.n_docs,
                          labels=collection.labels)
    return out, collection, study, results, ev, tables, plots, report


def test_the_stages_pass_typed_results(pipeline):
    out, collection, study, results, ev, tables, plots, report = pipeline
    assert isinstance(ev, Evaluation) and isinstance(tables, StudyTables)
    assert list(results) == [*collection.systems, PLAIN, "U-CRO(a=5)"]
    assert list(ev.matrix.index) == list(results) and ev.matrix.shape[1] == TOPICS
    # every run covers every topic, to the same depth: the re-ranked top 20, then BM25's order
    for name, res in results.items():
        assert res.groupby("qid").size().eq(DOCS).all(), name
        if name not in collection.systems:
            first = results[BASELINE]
            tail = res[res["rank"] >= 20].merge(first, on=["qid", "docno"], suffixes=("", "_b"))
            assert (tail["rank"] == tail["rank_b"]).all()
    # the risk table is the 2012 decomposition of the matrix against BM25
    risk = tables.risk.set_index("name")
    for name in ev.matrix.index.drop(BASELINE):
        rr = risk_reward(ev.matrix.loc[name], ev.matrix.loc[BASELINE])
        assert risk.loc[name, "Risk"] == pytest.approx(rr.risk, abs=1e-12)
        assert risk.loc[name, "Gain"] == pytest.approx(rr.gain, abs=1e-12)
    points = risk_gain_points(ev.matrix, BASELINE).set_index("name")
    np.testing.assert_allclose(points.loc[risk.index, "gain"], risk["Gain"], atol=1e-12)
    assert tables.folds["topics"].iloc[1:].sum() == tables.folds["topics"].iloc[0] == TOPICS


def test_the_stages_write_runs_tables_plots_and_report(pipeline):
    out, collection, study, results, ev, tables, plots, report = pipeline
    back = read_qrels(out / "qrels.txt")
    assert sorted(back.itertuples(index=False, name=None)) == sorted(
        collection.qrels.itertuples(index=False, name=None))
    run = read_run(out / "runs" / "U-CRO(a=5).run")
    assert len(run) == TOPICS * DOCS and run.groupby("qid")["rank"].min().eq(1).all()
    names = [name for name, _ in tables.items()]
    assert sorted(p.stem for p in (out / "tables").glob("*.csv")) == sorted(names)
    assert "baselines" not in names  # the analysis object is not a table
    assert set(plots) == {"risk_gain", "helped_hurt", "georisk_alpha", "topic_tj", "kendall", "baselines_pca"}
    assert all(p.read_bytes()[:4] == b"\x89PNG" for p in plots.values())
    text = report.read_text(encoding="utf-8")
    assert "$" not in text and "irds:synthetic" in text
    assert "U-CRO(a=α)**: `RiskLambdaMART('urisk', alpha=α, baseline='score')`" in text


def test_write_run_refuses_a_tag_that_is_not_one_word(tmp_path):
    from pyterrier_risk.data import write_run

    res = pd.DataFrame({"qid": ["1"], "docno": ["a"], "score": [1.0]})
    for tag in ["", "two words", "tab\tted"]:
        with pytest.raises(ValueError, match="one non-empty word"):
            write_run(res, tmp_path / "r.run", tag)
    assert not (tmp_path / "r.run").exists()


@pytest.mark.parametrize("seed", [1, 7])
def test_candidates_as_letor_round_trip_and_split_as_topic_folds(tmp_path, seed):
    """The engine reads back the candidates' features, labels and docnos, and splits their topics as the
    report's per-fold table (:func:`topic_folds`) does."""
    collection = _collection()
    cand = candidate_features(collection.results, 20)
    write_candidates(cand, collection.qrels, tmp_path / "c.txt")
    data = read_letor(tmp_path / "c.txt")
    back = pd.DataFrame({"qid": data.qid, "docno": data.docno, "label": data.y, "row": range(len(data.y))})
    merged = cand.merge(back, on=["qid", "docno"]).merge(collection.qrels, on=["qid", "docno"], how="left",
                                                           suffixes=("", "_qrels"))
    assert len(merged) == len(cand) == len(data.y)
    np.testing.assert_array_equal(merged["label"], merged["label_qrels"].fillna(0))
    np.testing.assert_array_equal(data.X[merged["row"]], np.stack(merged["features"]))  # every digit
    folds = letor_folds(tmp_path / "c.txt", folds=3, seed=seed)
    parts = topic_folds(cand["qid"].unique(), 3, seed)
    assert sorted(sorted(f.test.qids) for f in folds) == sorted(sorted(p) for p in parts)
    for f in folds:
        assert not set(f.test.qids) & (set(f.train.qids) | set(f.vali.qids))


def test_the_engine_trains_the_rerankers_once_and_a_rerun_reuses_them(pipeline, tmp_path):
    out, collection, study, results, *_ = pipeline
    stored = sorted((out / "study" / "tasks").iterdir())
    assert len(stored) == study.folds * len(study.rerankers())  # the tasks of the demo's models, stored
    per_query = pd.read_csv(out / "study" / "per_query.csv", dtype={"qid": str}, skiprows=1)  # a caption
    tested = per_query.groupby(["objective", "alpha"])["qid"].agg(lambda q: q.is_unique and len(q))
    assert tested.eq(TOPICS).all()  # every topic tested once per model kind
    cand = candidate_features(collection.results, study.depth)
    mtimes = [p.stat().st_mtime_ns for p in stored]
    again = engine_rerank(cand, collection.qrels, study, n_systems=3, cache=out / "cache", out=out / "study",
                          workers=1, progress=False)
    assert [p.stat().st_mtime_ns for p in sorted((out / "study" / "tasks").iterdir())] == mtimes
    for name, run in again.items():
        top = results[name][results[name]["rank"] < study.depth].reset_index(drop=True)
        pd.testing.assert_frame_equal(run[top.columns], top)
    plain = Study("irds:synthetic", (0.0,), ("urisk",), folds=3, depth=20, num_boost_round=3, seed=1,
                  quick=True)  # no α > 0: LambdaMART only, as the demo's --objective lambdarank
    lambdarank = Study("irds:synthetic", (0.0, 5.0), (), folds=3, depth=20, num_boost_round=3, seed=1,
                       quick=True)  # --objective lambdarank: no objective, whatever the α
    for settings in (plain, lambdarank):
        only = engine_rerank(cand, collection.qrels, settings, n_systems=3, cache=tmp_path,
                             out=tmp_path / "s", workers=1, progress=False)
        assert list(only) == [PLAIN]
        pd.testing.assert_frame_equal(only[PLAIN][["qid", "docno", "score"]],
                                      again[PLAIN][["qid", "docno", "score"]])
    # the same tasks both times: LambdaMART alone per fold (no objective trained and thrown away)
    assert len(list((tmp_path / "s" / "tasks").iterdir())) == 3
