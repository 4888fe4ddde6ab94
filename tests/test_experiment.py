"""pyterrier_risk.Experiment: drop-in behaviour, risk columns, per-query components, topic policy."""

from __future__ import annotations

import re
import warnings

import ir_measures
import numpy as np
import pandas as pd
import pyterrier as pt
import pytest
from ir_measures import AP, P, nDCG
from scipy import stats

import pyterrier_risk as pr
from pyterrier_risk.core import TopicPolicyWarning

RNG = np.random.default_rng(7)
N_TOPICS, N_DOCS = 8, 6
QIDS = [str(q) for q in range(101, 101 + N_TOPICS)]
TOPICS = pd.DataFrame({"qid": QIDS, "query": [f"query {q}" for q in QIDS]})
QRELS = pd.DataFrame(
    [(q, f"d{d}", int(RNG.integers(0, 3))) for q in QIDS for d in range(N_DOCS)],
    columns=["qid", "docno", "label"],
)


def random_run(seed: int, drop: tuple[str, ...] = ()) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    rows = [(q, f"d{d}", float(rng.random())) for q in QIDS if q not in drop for d in range(N_DOCS)]
    run = pd.DataFrame(rows, columns=["qid", "docno", "score"])
    run["rank"] = run.groupby("qid")["score"].rank(ascending=False, method="first").astype(int) - 1
    return run


RUNS = {"bm25": random_run(1), "dph": random_run(2), "pl2": random_run(3), "qld": random_run(4)}
NAMES = list(RUNS)


def per_topic(measure, run: pd.DataFrame) -> np.ndarray:
    """Independent per-topic scores in QIDS order (missing topics 0), straight from ir_measures."""
    values = {
        m.query_id: m.value
        for m in ir_measures.iter_calc(
            [measure], pt.model.to_ir_measures(QRELS), pt.model.to_ir_measures(run)
        )
    }
    return np.array([values.get(q, 0.0) for q in QIDS])


def matrix(measure, runs=RUNS) -> np.ndarray:
    return np.vstack([per_topic(measure, r) for r in runs.values()])


def test_without_risk_measures_it_is_pt_experiment():
    kwargs = {"baseline": 0, "correction": "bonferroni", "round": 4}
    ours = pr.Experiment(list(RUNS.values()), TOPICS, QRELS, [AP, nDCG @ 5], names=NAMES, **kwargs)
    theirs = pt.Experiment(list(RUNS.values()), TOPICS, QRELS, [AP, nDCG @ 5], names=NAMES, **kwargs)
    pd.testing.assert_frame_equal(ours, theirs)


def test_ordinary_columns_unchanged_and_risk_columns_added():
    measures = [AP, nDCG @ 5]
    risk = [
        pr.URisk(AP, alpha=5),
        pr.TRisk(nDCG @ 5),
        pr.URisk(AP, baseline="mean"),
        pr.ZRisk(AP, alpha=1),
        pr.GeoRisk(AP, alpha=1),
    ]
    kwargs = {"baseline": "bm25", "correction": "holm", "test": "t"}
    ours = pr.Experiment(RUNS, TOPICS, QRELS, [*measures, *risk], **kwargs)
    theirs = pt.Experiment(RUNS, TOPICS, QRELS, measures, **kwargs)
    pd.testing.assert_frame_equal(ours[theirs.columns], theirs)
    extra = [c for c in ours.columns if c not in theirs.columns]
    assert extra == [
        "URisk(AP,alpha=5,baseline='bm25')",  # named by the baseline it was computed against (issue 16)
        "TRisk(nDCG@5,baseline='bm25')",
        "TRisk(nDCG@5,baseline='bm25') p-value",
        "TRisk(nDCG@5,baseline='bm25') reject",  # correction= covers the TRisk p-values too (issue 11)
        "TRisk(nDCG@5,baseline='bm25') p-value corrected",
        "URisk(AP,baseline='mean')",
        "ZRisk(AP,alpha=1)",
        "GeoRisk(AP,alpha=1)",
    ]
    ap, nd = matrix(AP), matrix(nDCG @ 5)
    ours = ours.set_index("name")
    for i, n in enumerate(NAMES):
        d = ap[i] - ap[0]
        urisk5 = ours.loc[n, "URisk(AP,alpha=5,baseline='bm25')"]
        assert urisk5 == pytest.approx(np.mean(np.where(d < 0, 6 * d, d)))
        assert ours.loc[n, "URisk(AP,baseline='mean')"] == pytest.approx(np.mean(ap[i] - ap.mean(axis=0)))
        if i:  # TRisk at alpha = 0 is the paired t-test against the baseline system
            t = stats.ttest_rel(nd[i], nd[0])
            assert ours.loc[n, "TRisk(nDCG@5,baseline='bm25')"] == pytest.approx(t.statistic)
            assert ours.loc[n, "TRisk(nDCG@5,baseline='bm25') p-value"] == pytest.approx(t.pvalue)
    assert np.isnan(ours.loc["bm25", "TRisk(nDCG@5,baseline='bm25')"])  # the baseline against itself
    np.testing.assert_allclose(ours["ZRisk(AP,alpha=1)"], pr.zrisk(ap, 1.0))
    np.testing.assert_allclose(ours["GeoRisk(AP,alpha=1)"], pr.georisk(ap, 1.0))


def test_each_base_measure_is_computed_once(monkeypatch):
    calls = []
    original = pt.Experiment

    def spy(*args, **kwargs):
        calls.append(list(args[3]))
        return original(*args, **kwargs)

    monkeypatch.setattr(pt, "Experiment", spy)
    risk = [
        pr.URisk(AP, baseline=0),
        pr.URisk(AP, baseline=0, alpha=5),
        pr.ZRisk(AP),
        pr.TRisk(nDCG @ 5, baseline=0),
    ]
    pr.Experiment(RUNS, TOPICS, QRELS, [AP, *risk])
    assert len(calls) == 1
    names = [str(m) for m in calls[0]]
    assert names.count("AP") == 1 and names.count("nDCG@5") == 1


def test_transformers_and_string_measures():
    systems = [pt.Transformer.from_df(RUNS["bm25"]), pt.Transformer.from_df(RUNS["dph"])]
    res = pr.Experiment(
        systems, TOPICS, QRELS, ["map", "URisk(AP,alpha=1,baseline='bm25')"], names=["bm25", "dph"]
    ).set_index("name")
    ap = matrix(AP)
    d = ap[1] - ap[0]
    assert res.loc["dph", "URisk(AP,alpha=1,baseline='bm25')"] == pytest.approx(
        np.mean(np.where(d < 0, 2 * d, d))
    )
    assert res.loc["dph", "map"] == pytest.approx(ap[1].mean())


def test_perquery_components():
    risk = [
        pr.URisk(AP, alpha=2, baseline="dph"),
        pr.TRisk(AP, baseline="max", se="jackknife"),
        pr.ZRisk(AP, alpha=3),
    ]
    pq = pr.Experiment(RUNS, TOPICS, QRELS, [AP, *risk], perquery=True)
    assert list(pq.columns) == ["name", "qid", "measure", "value"]
    parts = ("x", "T_R", "T_J", "T_R p-value", "T_J p-value")  # the p-values as `eval --perquery`
    expected = {"AP", repr(risk[0]), *(f"{risk[1]!r} {c}" for c in parts), f"{risk[2]!r} z"}
    assert set(pq["measure"]) == expected
    assert len(pq) == len(expected) * len(NAMES) * N_TOPICS
    avg = pr.Experiment(RUNS, TOPICS, QRELS, risk).set_index("name")
    wide = pq.pivot_table(index=["name", "measure"], columns="qid", values="value")
    for n in NAMES:
        assert wide.loc[(n, repr(risk[0]))].mean() == pytest.approx(avg.loc[n, repr(risk[0])])  # mean of x_i
        z = wide.loc[(n, f"{risk[2]!r} z")].to_numpy()
        assert z[z > 0].sum() + 4 * z[z < 0].sum() == pytest.approx(avg.loc[n, repr(risk[2])])
        res = pr.trisk(per_topic(AP, RUNS[n]), matrix(AP).max(axis=0), se="jackknife")
        np.testing.assert_allclose(wide.loc[(n, f"{risk[1]!r} T_J")].to_numpy(), res.t_j)
        np.testing.assert_allclose(wide.loc[(n, f"{risk[1]!r} x")].to_numpy(), res.x)
        # each topic's two-sided p-value of Student's t with c - 1 degrees of freedom
        for part, t in (("T_R", res.t_r), ("T_J", res.t_j)):
            p = 2 * stats.t.sf(np.abs(np.asarray(t)), N_TOPICS - 1)
            np.testing.assert_allclose(wide.loc[(n, f"{risk[1]!r} {part} p-value")].to_numpy(), p)


def test_perquery_both_and_dict_outputs():
    m = pr.URisk(AP, baseline=0)
    both = pr.Experiment(RUNS, TOPICS, QRELS, [AP, m], perquery="both")
    averages, perq = both
    assert repr(m) in averages.columns and repr(m) in set(perq["measure"])
    as_dict = pr.Experiment(RUNS, TOPICS, QRELS, [AP, m, pr.TRisk(AP, baseline=0)], dataframe=False)
    assert set(as_dict) == set(NAMES)
    assert as_dict["dph"][repr(m)] == pytest.approx(averages.set_index("name").loc["dph", repr(m)])
    assert "TRisk(AP,baseline=0) p-value" in as_dict["dph"]
    nested = pr.Experiment(RUNS, TOPICS, QRELS, [AP, m], perquery=True, dataframe=False)
    assert set(nested) == {0, 1, 2, 3} and set(nested[1]) == set(QIDS)
    assert set(nested[1][QIDS[0]]) == {"AP", repr(m)}


def test_round_highlight_and_save_dir(tmp_path):
    m = pr.URisk(AP, alpha=1, baseline=0)
    res = pr.Experiment(RUNS, TOPICS, QRELS, [AP, m], round=2)
    assert all(v == round(v, 2) for v in res[repr(m)])
    res = pr.Experiment(RUNS, TOPICS, QRELS, [AP, m], round={repr(m): 1})
    assert all(v == round(v, 1) for v in res[repr(m)])
    styled = pr.Experiment(RUNS, TOPICS, QRELS, [AP, m], highlight="bold")
    assert isinstance(styled, pd.io.formats.style.Styler) and "font-weight: bold" in styled.to_html()
    pr.Experiment({"bm25": RUNS["bm25"], "dph": RUNS["dph"]}, TOPICS, QRELS, [AP], save_dir=str(tmp_path))
    with pytest.warns(UserWarning, match="Evaluation measures differ"):  # as pt.Experiment: AP -> AP, URisk
        pr.Experiment({"dph": RUNS["dph"], "pl2": RUNS["pl2"]}, TOPICS, QRELS, [AP, m],
                      save_dir=str(tmp_path))
    saved = pd.read_csv(tmp_path / "aggregated.csv").set_index("name")
    assert sorted(saved.index) == ["bm25", "dph", "pl2"]  # bm25 kept from the first call, as pt does
    assert list(saved.columns) == ["AP", repr(m)]  # no internal NumRet column
    d = per_topic(AP, RUNS["pl2"]) - per_topic(AP, RUNS["dph"])
    assert saved.loc["pl2", repr(m)] == pytest.approx(np.mean(np.where(d < 0, 2 * d, d)))
    saved_pq = pd.read_csv(tmp_path / "perquery.csv", dtype={"qid": str})
    assert set(saved_pq["measure"]) == {"AP", repr(m)} and set(saved_pq["name"]) == {"bm25", "dph", "pl2"}


def test_pool_subset_and_external_baseline(tmp_path):
    ap = matrix(AP)
    res = pr.Experiment(
        RUNS, TOPICS, QRELS,
        [pr.URisk(AP, baseline="median", pool=["dph", "pl2", 3]), pr.URisk(AP, baseline=RUNS["pl2"])],
    ).set_index("name")  # fmt: skip
    med = np.median(ap[1:], axis=0)
    assert res.loc["bm25", "URisk(AP,baseline='median',pool=('dph','pl2',3))"] == pytest.approx(
        np.mean(ap[0] - med)
    )
    ext = [c for c in res.columns if "<run" in c][0]
    assert res.loc["bm25", ext] == pytest.approx(np.mean(ap[0] - ap[2]))
    path = tmp_path / "pl2.run"
    pt.io.write_results(RUNS["pl2"], str(path))
    res2 = pr.Experiment(RUNS, TOPICS, QRELS, [pr.URisk(AP, baseline=str(path))]).set_index("name")
    np.testing.assert_allclose(res2.iloc[:, 0], res[ext])


def test_topic_policy_missing_topics_score_zero():
    runs = {"full": RUNS["bm25"], "holes": random_run(9, drop=(QIDS[0], QIDS[3]))}
    with pytest.warns(TopicPolicyWarning, match=r"system 'holes' has no results for 2 of the 8 qrels topics"):
        res = pr.Experiment(runs, TOPICS, QRELS, [pr.URisk(AP, baseline="full")]).set_index("name")
    holes = per_topic(AP, runs["holes"])
    assert holes[0] == 0 and holes[3] == 0
    assert res.loc["holes", "URisk(AP,baseline='full')"] == pytest.approx(
        np.mean(holes - matrix(AP, runs)[0])
    )


def test_topic_policy_extra_topics_ignored():
    # a copy of one topic's results as topic 999 (all topics as 999 would list documents twice)
    dph = RUNS["dph"]
    extra = pd.concat([dph, dph[dph["qid"] == dph["qid"].iloc[0]].assign(qid="999")], ignore_index=True)
    runs = {"bm25": RUNS["bm25"], "extra": extra}
    with pytest.warns(TopicPolicyWarning, match="1 topic"):
        res = pr.Experiment(runs, TOPICS, QRELS, [pr.URisk(AP, baseline=0)]).set_index("name")
    ap = matrix(AP)
    assert res.loc["extra", "URisk(AP,baseline=0)"] == pytest.approx(np.mean(ap[1] - ap[0]))


def test_qrels_topics_define_topic_set():
    # a topic with qrels but absent from the topics frame is dropped (filter_by_topics, as pt.Experiment)
    topics = TOPICS.iloc[:-1]
    with pytest.warns(TopicPolicyWarning, match="results for 1 topic"):  # the dropped topic, per system
        res = pr.Experiment(RUNS, topics, QRELS, [AP, pr.URisk(AP, baseline=0)]).set_index("name")
    ap = matrix(AP)[:, :-1]
    assert res.loc["dph", "URisk(AP,baseline=0)"] == pytest.approx(np.mean(ap[1] - ap[0]))
    assert res.loc["dph", "AP"] == pytest.approx(ap[1].mean())


@pytest.mark.parametrize(
    ("measures", "kwargs", "error", "match"),
    [
        ([pr.URisk(AP, baseline="bm26")], {}, ValueError, "unknown baseline 'bm26'"),
        ([pr.URisk(AP, baseline=7)], {}, ValueError, "out of range"),
        ([pr.URisk(AP)], {}, ValueError, "needs a baseline"),
        ([pr.URisk(AP, baseline="mean", pool=["x"])], {}, ValueError, "unknown pool"),
        ([pr.URisk(AP)], {"baseline": "nope"}, ValueError, "unknown baseline 'nope'"),
        ([pr.URisk(alpha=1)], {}, ValueError, "no base measure"),
        (["URisk(Nope@5)"], {}, NameError, "Nope"),
    ],
)
def test_bad_input(measures, kwargs, error, match):
    with pytest.raises(error, match=match):
        pr.Experiment(RUNS, TOPICS, QRELS, measures, **kwargs)


def test_too_few_systems_and_topics():
    with pytest.raises(ValueError, match="at least two systems"):
        pr.Experiment({"one": RUNS["bm25"]}, TOPICS, QRELS, [pr.ZRisk(AP)])
    too_few = pytest.raises(ValueError, match="at least two topics")
    with too_few, pytest.warns(TopicPolicyWarning, match="7 topic"):
        pr.Experiment(RUNS, TOPICS.iloc[:1], QRELS, [pr.TRisk(AP, baseline=0)])
    with pytest.raises(ValueError, match="unique system names"):
        pr.Experiment([RUNS["bm25"], RUNS["dph"]], TOPICS, QRELS, [pr.ZRisk(AP)], names=["a", "a"])
    with pytest.raises(ValueError, match="same length"):
        pr.Experiment([RUNS["bm25"]], TOPICS, QRELS, [pr.ZRisk(AP)], names=["a", "b"])


def test_irds_topics_and_qrels():
    topics = pt.get_dataset("irds:vaswani").get_topics()
    qrels = pt.get_dataset("irds:vaswani").get_qrels()
    # two synthetic systems over the real qrels: one ranks judged-relevant docs first for even topics
    rows = []
    for i, (qid, group) in enumerate(qrels.groupby("qid")):
        for j, docno in enumerate(group["docno"]):
            rows.append((qid, docno, float(j if i % 2 else -j)))
    a = pd.DataFrame(rows, columns=["qid", "docno", "score"])
    b = a.assign(score=-a["score"])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = pr.Experiment(
            {"a": a, "b": b}, "irds:vaswani", "irds:vaswani", [P @ 5, pr.URisk(P @ 5, baseline="b")]
        )
    res = res.set_index("name")
    assert len(qrels["qid"].unique()) == 93 and len(topics) == 93
    assert res.loc["a", "URisk(P@5,baseline='b')"] == pytest.approx(res.loc["a", "P@5"] - res.loc["b", "P@5"])
    with pytest.raises(ValueError, match="unknown ir_datasets id"):
        pr.Experiment({"a": a}, "irds:no/such/dataset", "irds:vaswani", [pr.URisk(AP, baseline=0)])


def test_system_order_and_topic_order_do_not_matter():
    risk = [pr.URisk(AP, alpha=3, baseline="dph"), pr.TRisk(AP, baseline="mean"), pr.GeoRisk(AP, alpha=2)]
    forward = pr.Experiment(RUNS, TOPICS, QRELS, risk).set_index("name")
    backward_runs = {n: RUNS[n].sample(frac=1.0, random_state=0) for n in reversed(NAMES)}
    backward = pr.Experiment(backward_runs, TOPICS.iloc[::-1], QRELS.iloc[::-1], risk).set_index("name")
    pd.testing.assert_frame_equal(backward.loc[forward.index], forward, check_exact=False, rtol=1e-12)


def test_transformers_with_batch_size_and_mrt():
    systems = {n: pt.Transformer.from_df(RUNS[n]) for n in ("bm25", "dph")}
    m = pr.URisk(AP, alpha=1, baseline="bm25")
    with pytest.warns(UserWarning, match="'mrt' is not reported"):
        batched = pr.Experiment(systems, TOPICS, QRELS, [AP, m, "mrt"], batch_size=3).set_index("name")
    whole = pr.Experiment(RUNS, TOPICS, QRELS, [AP, m]).set_index("name")
    assert "mrt" not in batched.columns
    pd.testing.assert_frame_equal(batched[[repr(m), "AP"]], whole.loc[["bm25", "dph"], [repr(m), "AP"]])


def test_plain_pt_experiment_perquery_matches_ours_for_external_urisk():
    m = pr.URisk(AP, alpha=2, baseline=RUNS["pl2"])
    theirs = pt.Experiment([RUNS["bm25"]], TOPICS, QRELS, [m], names=["bm25"], perquery=True)
    ours = pr.Experiment({"bm25": RUNS["bm25"], "dph": RUNS["dph"]}, TOPICS, QRELS, [m], perquery=True)
    ours = ours[ours["name"] == "bm25"].set_index("qid")["value"]
    theirs = theirs.set_index("qid")["value"]
    np.testing.assert_allclose(ours.loc[QIDS], theirs.loc[QIDS])


def test_mismatched_topics_and_qrels():
    other_topics = pd.DataFrame({"qid": ["x1", "x2"], "query": ["a", "b"]})
    with pytest.raises(ValueError, match="no overlap"):
        pr.Experiment(RUNS, other_topics, QRELS, [pr.URisk(AP, baseline=0)])


def test_external_baseline_warning_repeats_on_cached_use():
    holes = random_run(11, drop=(QIDS[1],))
    m = pr.URisk(AP, baseline=holes)
    for _ in range(2):  # the second call hits the baseline cache and must still warn
        with pytest.warns(
            TopicPolicyWarning, match=r"baseline run '<run [0-9a-f]{8}>' has no results for 1 of"
        ):
            pr.Experiment(RUNS, TOPICS, QRELS, [m])


def test_perquery_components_follow_topic_labels_not_positions():
    risk = [pr.TRisk(AP, alpha=1, baseline="mean"), pr.ZRisk(AP, alpha=1)]
    forward = pr.Experiment(RUNS, TOPICS, QRELS, risk, perquery=True)
    shuffled_qrels = QRELS.sample(frac=1.0, random_state=3)
    backward = pr.Experiment(RUNS, TOPICS.iloc[::-1], shuffled_qrels, risk, perquery=True)
    key = ["name", "qid", "measure"]
    a = forward.set_index(key)["value"].sort_index()
    b = backward.set_index(key)["value"].sort_index()
    pd.testing.assert_series_equal(a, b, check_exact=False, rtol=1e-12)


def test_topic_policy_for_transformers_uses_numret():
    holes = pt.Transformer.from_df(random_run(9, drop=(QIDS[0], QIDS[3], QIDS[5])))
    systems = {"full": pt.Transformer.from_df(RUNS["bm25"]), "holes": holes}
    with pytest.warns(TopicPolicyWarning, match=r"system 'holes' has no results for 3 of the 8 qrels topics"):
        res = pr.Experiment(systems, TOPICS, QRELS, [pr.URisk(AP, baseline="full")]).set_index("name")
    expected = per_topic(AP, random_run(9, drop=(QIDS[0], QIDS[3], QIDS[5]))) - per_topic(AP, RUNS["bm25"])
    assert res.loc["holes", "URisk(AP,baseline='full')"] == pytest.approx(expected.mean())


def test_rounding_matches_pt_experiment_exactly():
    # pt.Experiment rounds with builtins.round (then pandas); np.round differs on some halfway cases
    runs = {n: random_run(s) for n, s in zip("abcdef", range(20, 26), strict=True)}
    measures = [AP, nDCG @ 5, P @ 3, nDCG @ 3]
    m = pr.URisk(AP, baseline=0)
    theirs = pt.Experiment(runs, TOPICS, QRELS, measures, perquery=True, round=2)
    ours = pr.Experiment(runs, TOPICS, QRELS, [*measures, m], perquery=True, round=2)
    ours = ours[ours["measure"] != repr(m)]
    key = ["name", "qid", "measure"]
    pd.testing.assert_frame_equal(
        ours.sort_values(key).reset_index(drop=True), theirs.sort_values(key).reset_index(drop=True),
        check_exact=True,
    )
    # the nested per-query dict is not rounded, as in pt.Experiment
    nested = pr.Experiment(runs, TOPICS, QRELS, [AP, m], perquery=True, dataframe=False, round=1)
    plain = pt.Experiment(runs, TOPICS, QRELS, [AP], perquery=True, dataframe=False, round=1)
    assert all(nested[i][q]["AP"] == plain[i][q]["AP"] for i in plain for q in plain[i])


@pytest.mark.parametrize("bad", [-1, 2.0, "2", {"AP": -1}, {"AP": 1.5}])
def test_bad_round_is_rejected_like_pt_experiment(bad):
    with pytest.raises(ValueError, match="round"):
        pr.Experiment(RUNS, TOPICS, QRELS, [AP, pr.URisk(AP, baseline=0)], round=bad)


def test_topic_matrix_scores_missing_topics_zero_without_warnings():
    from pyterrier_risk.measures import topic_matrix

    runs = {"bm25": RUNS["bm25"], "holes": random_run(9, drop=(QIDS[0], QIDS[3]))}
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = topic_matrix(runs, QRELS, AP)
    assert list(got.index) == ["bm25", "holes"] and list(got.columns) == QIDS
    np.testing.assert_allclose(got.to_numpy(), matrix(AP, runs))
    assert got.loc["holes", QIDS[0]] == 0.0
    extra = topic_matrix(runs, QRELS, AP, qids=["999", *QIDS[::-1]])  # a topic outside the qrels: 0
    assert list(extra.columns) == ["999", *QIDS[::-1]] and (extra["999"] == 0).all()
    np.testing.assert_allclose(extra[QIDS].to_numpy(), matrix(AP, runs))


def _without_risk(ours, risk_columns):
    """Our output with the risk columns/rows removed (the rest must be pt.Experiment's)."""
    if isinstance(ours, tuple):
        return tuple(_without_risk(o, risk_columns) for o in ours)
    if hasattr(ours, "to_html") and not isinstance(ours, pd.DataFrame):  # a Styler
        return _without_risk(ours.data, risk_columns)
    if isinstance(ours, pd.DataFrame):
        if "measure" in ours.columns:
            return ours[~ours["measure"].isin(risk_columns)]
        return ours.drop(columns=[c for c in ours.columns if c in risk_columns])
    if isinstance(ours, dict):
        return {k: _without_risk(v, risk_columns) if isinstance(v, dict) else v
                for k, v in ours.items() if k not in risk_columns}
    return ours


def _same(theirs, ours):
    if isinstance(theirs, tuple):
        assert isinstance(ours, tuple) and len(ours) == len(theirs)
        for t, o in zip(theirs, ours, strict=True):
            _same(t, o)
    elif hasattr(theirs, "to_html") and not isinstance(theirs, pd.DataFrame):  # a Styler (ours: its data)
        _same(theirs.data, ours)
    elif isinstance(theirs, pd.DataFrame):
        if "measure" in theirs.columns:  # long per-query table: row order within a query is unspecified
            key = ["name", "qid", "measure"]
            theirs = theirs.sort_values(key).reset_index(drop=True)
            ours = ours.sort_values(key).reset_index(drop=True)
        pd.testing.assert_frame_equal(ours, theirs, check_exact=True)
    else:
        assert ours == theirs


HOLEY = {n: random_run(s, drop=d) for n, s, d in [("a", 31, ()), ("b", 32, (QIDS[2],)), ("c", 33, ()),
                                                  ("d", 34, ())]}


@pytest.mark.parametrize(
    ("systems", "measures", "kwargs"),
    [
        ("dict", [AP, nDCG @ 5, P @ 3], {}),
        ("list", [AP, nDCG @ 5], {}),  # names from str(system)
        ("list", [AP, nDCG @ 5], {"names": list(HOLEY)}),
        ("dict", [AP, nDCG @ 5], {"baseline": "b"}),
        ("list", [AP, P @ 3], {"names": list(HOLEY), "baseline": 1, "test": "wilcoxon"}),
        ("dict", [AP, P @ 3], {"baseline": 0, "test": lambda a, b: (0.0, float(np.mean(a) > np.mean(b)))}),
        ("dict", [AP, nDCG @ 5, P @ 3], {"baseline": 0, "correction": "holm", "correction_alpha": 0.2}),
        ("dict", [AP, nDCG @ 5], {"baseline": 0, "correction": "bonferroni", "round": 3}),
        ("dict", [AP, nDCG @ 5], {"baseline": "c", "correction": "sidak", "correction_alpha": 0.1}),
        ("dict", [AP, nDCG @ 5], {"perquery": True}),
        ("dict", [AP, nDCG @ 5], {"perquery": "both"}),
        ("dict", [AP, nDCG @ 5], {"perquery": "both", "dataframe": False}),
        ("dict", [AP, nDCG @ 5], {"perquery": True, "dataframe": False}),
        ("dict", [AP, nDCG @ 5], {"perquery": True, "round": 2}),
        ("dict", [AP, nDCG @ 5], {"round": {"AP": 2}}),
        ("dict", [AP, nDCG @ 5], {"highlight": "bold"}),
        ("dict", [AP, nDCG @ 5], {"highlight": "color", "baseline": 0}),
        ("dict", [AP, nDCG @ 5], {"dataframe": False, "baseline": 0}),
        ("dict", ["map", "ndcg_cut_5", "P_3", "recip_rank"], {"baseline": 0}),
        ("dict", [AP, nDCG @ 5], {"filter_by_qrels": True}),
        ("transformers", [AP, nDCG @ 5], {}),
        ("transformers", [AP, nDCG @ 5], {"batch_size": 3, "baseline": 0, "correction": "hs"}),
    ],
)
def test_ordinary_output_is_pt_experiments_for_many_arguments(systems, measures, kwargs):
    """With risk measures added, everything else is exactly what pt.Experiment returns."""
    if systems == "dict":
        retr = dict(HOLEY)
    elif systems == "list":
        retr = list(HOLEY.values())
    else:
        retr = {n: pt.Transformer.from_df(r) for n, r in HOLEY.items()}
    risk = [pr.URisk(AP, alpha=1, baseline=0), pr.TRisk(nDCG @ 5, baseline="mean")]
    with pytest.warns(TopicPolicyWarning, match="1 of the 8 qrels topics"):  # system b misses a topic
        ours = pr.Experiment(retr, TOPICS, QRELS, [*measures, *risk], **kwargs)
    theirs = pt.Experiment(retr, TOPICS, QRELS, measures, **kwargs)
    parts = ("p-value", "reject", "p-value corrected", "x", "T_R", "T_J", "T_R p-value", "T_J p-value",
             "T_R p-value corrected", "T_J p-value corrected")
    components = (f"{risk[1]!r} {c}" for c in parts)
    risk_columns = {repr(risk[0]), repr(risk[1]), *components}
    assert type(ours) is type(theirs)
    _same(theirs, _without_risk(ours, risk_columns))
    averages = ours[0] if isinstance(ours, tuple) else ours
    if kwargs.get("perquery") is not True:  # and the risk columns are there
        data = getattr(averages, "data", averages)
        row = data["b"] if isinstance(data, dict) else data.set_index("name").iloc[1]
        assert np.isfinite(row[repr(risk[0])]) and np.isfinite(row[repr(risk[1])])


@pytest.mark.parametrize("as_transformers", [False, True])
def test_numret_as_a_base_measure(as_transformers):
    # NumRet is also what Experiment asks for internally (topic policy of transformers)
    systems = {n: pt.Transformer.from_df(RUNS[n]) if as_transformers else RUNS[n] for n in ("bm25", "dph")}
    m = pr.URisk(ir_measures.NumRet, baseline="bm25")
    res = pr.Experiment(systems, TOPICS, QRELS, [ir_measures.NumRet, m]).set_index("name")
    assert res.loc["dph", repr(m)] == 0.0  # both return every document of every topic
    assert res.loc["dph", "NumRet"] == N_TOPICS * N_DOCS  # pt.Experiment sums NumRet over topics


def test_save_dir_repeated_call_does_not_warn_about_its_own_columns(tmp_path):
    systems = {n: pt.Transformer.from_df(RUNS[n]) for n in ("bm25", "dph")}
    m = pr.URisk(AP, baseline="bm25")
    for _ in range(2):  # the second call reuses the saved runs; same measures, so no column warning
        with warnings.catch_warnings():
            warnings.simplefilter("error", UserWarning)
            res = pr.Experiment(systems, TOPICS, QRELS, [AP, m], save_dir=str(tmp_path), save_mode="reuse")
    saved = pd.read_csv(tmp_path / "aggregated.csv")
    pd.testing.assert_frame_equal(saved, res, check_exact=False, rtol=1e-12)


def test_perquery_both_averages_ignore_topics_without_qrels():
    # pt.Experiment's 'both' averages are NaN here (its NaN placeholder rows enter the mean): a difference
    topics = pd.concat([TOPICS, pd.DataFrame({"qid": ["999"], "query": ["no qrels"]})], ignore_index=True)
    systems = {n: pt.Transformer.from_df(RUNS[n]) for n in ("bm25", "dph")}
    measures = [AP, pr.URisk(AP, baseline="bm25")]
    with pytest.warns(UserWarning, match="1 topic\\(s\\) not found in qrels"):  # pt.Experiment's own warning
        averages, per_query = pr.Experiment(systems, topics, QRELS, measures, perquery="both")
    alone = pr.Experiment(systems, topics, QRELS, measures)
    pd.testing.assert_frame_equal(averages, alone)
    assert per_query.loc[per_query["qid"] == "999", "value"].isna().all()  # pt's placeholder rows kept
    assert averages.set_index("name").loc["dph", "AP"] == pytest.approx(matrix(AP)[1].mean())


def test_round_dict_with_perquery_rounds_the_named_rows():
    m = pr.URisk(AP, alpha=1, baseline=0)
    pq = pr.Experiment(RUNS, TOPICS, QRELS, [AP, nDCG @ 5, m], perquery=True, round={"AP": 1, repr(m): 2})
    for measure, digits in (("AP", 1), (repr(m), 2)):
        values = pq.loc[pq["measure"] == measure, "value"]
        assert all(v == round(v, digits) for v in values) and values.nunique() > 1
    ndcg = pq.loc[pq["measure"] == "nDCG@5", "value"]
    assert any(v != round(v, 4) for v in ndcg)  # not named: not rounded


@pytest.mark.parametrize("risk", [False, True])
def test_missing_topics_or_qrels_file_is_named(risk, tmp_path):
    measures = [AP, pr.URisk(AP, baseline=0)] if risk else [AP]
    with pytest.raises(ValueError, match="topics 'no/such/topics.txt': no such file"):
        pr.Experiment(RUNS, "no/such/topics.txt", QRELS, measures)
    with pytest.raises(ValueError, match="qrels '.*missing.qrels': no such file"):
        pr.Experiment(RUNS, TOPICS, tmp_path / "missing.qrels", measures)
    # existing files are read as pt.Experiment reads them
    qrels_file = tmp_path / "q.txt"
    qrels_file.write_text("".join(f"{q} 0 {d} {label}\n" for q, d, label in QRELS.itertuples(index=False)))
    res = pr.Experiment(RUNS, TOPICS, qrels_file, measures).set_index("name")
    assert res.loc["dph", "AP"] == pytest.approx(matrix(AP)[1].mean())


def _spy_on_pt_experiment(monkeypatch):
    calls = []
    original = pt.Experiment

    def spy(*args, **kwargs):
        calls.append(kwargs)
        return original(*args, **kwargs)

    monkeypatch.setattr(pt, "Experiment", spy)
    return calls


def test_measure_names_as_strings_with_and_without_risk_measures():
    # ir_measures names (pt.Experiment alone reads trec_eval names only), trec_eval names, UE, risk
    alone = pr.Experiment(RUNS, TOPICS, QRELS, ["nDCG@5", "P(rel=2)@3", "UE(base='nDCG@5')"])
    theirs = pt.Experiment(RUNS, TOPICS, QRELS, [nDCG @ 5, P(rel=2) @ 3, pr.UE(nDCG @ 5)])
    pd.testing.assert_frame_equal(alone, theirs)
    alone = alone.set_index("name")
    with_risk = pr.Experiment(
        RUNS, TOPICS, QRELS,
        ["nDCG@5", "P_3", "UE(nDCG@5)", "TRisk(ndcg_cut_5,alpha=5,baseline='bm25')", "URisk(P.3,baseline=1)"],
    ).set_index("name")  # fmt: skip
    assert sorted(with_risk.columns[:3]) == sorted(["nDCG@5", "P_3", "UE(nDCG@5)"])  # pt's order
    assert list(with_risk.columns[3:]) == [
        "TRisk(nDCG@5,alpha=5,baseline='bm25')", "TRisk(nDCG@5,alpha=5,baseline='bm25') p-value",
        "URisk(P@3,baseline=1)",
    ]  # fmt: skip
    nd, p3, p3_rel2 = matrix(nDCG @ 5), matrix(P @ 3), matrix(P(rel=2) @ 3)
    ue = matrix(pr.UE(nDCG @ 5))
    for frame in (alone, with_risk):
        np.testing.assert_allclose(frame["nDCG@5"], nd.mean(axis=1))
        np.testing.assert_allclose(frame["UE(nDCG@5)"], ue.mean(axis=1))
    np.testing.assert_allclose(alone["P(rel=2)@3"], p3_rel2.mean(axis=1))
    np.testing.assert_allclose(with_risk["P_3"], p3.mean(axis=1))
    np.testing.assert_allclose(with_risk["URisk(P@3,baseline=1)"], (p3 - p3[1]).mean(axis=1))
    expected = [pr.trisk(nd[i], nd[0], 5.0).trisk for i in range(1, len(NAMES))]
    np.testing.assert_allclose(with_risk["TRisk(nDCG@5,alpha=5,baseline='bm25')"].iloc[1:], expected)


@pytest.mark.parametrize("risk", [False, True])
@pytest.mark.parametrize("bad", ["nDGC@5", "TRisk(ndcg_cut_1O,baseline=0)", "URisk(AP"])
def test_bad_measure_name_is_a_one_line_value_error_before_anything_runs(monkeypatch, bad, risk):
    calls = _spy_on_pt_experiment(monkeypatch)
    measures = [AP, pr.URisk(AP, baseline=0), bad] if risk else [AP, bad]
    with pytest.raises(ValueError, match=re.escape(repr(bad))) as caught:
        pr.Experiment(RUNS, TOPICS, QRELS, measures)
    assert "\n" not in str(caught.value) and calls == []


@pytest.mark.parametrize(
    "measures",
    [
        [pr.URisk(AP, baseline="bm26")],
        [pr.TRisk(AP, baseline="mean", pool=["bm25", "nope"])],
        [pr.URisk(AP)],
        ["nDCG@0"],  # pytrec_eval would abort the process on a zero cutoff
    ],
)
def test_bad_risk_measures_fail_before_pt_experiment_runs(monkeypatch, measures):
    calls = _spy_on_pt_experiment(monkeypatch)
    with pytest.raises(ValueError):
        pr.Experiment(RUNS, TOPICS, QRELS, [AP, pr.ZRisk(AP), *measures])
    assert calls == []


def test_one_public_pt_experiment_call_for_per_query_values(monkeypatch):
    calls = _spy_on_pt_experiment(monkeypatch)
    pr.Experiment(RUNS, TOPICS, QRELS, [AP, pr.URisk(AP, baseline=0)], baseline=0, correction="holm", round=2)
    assert len(calls) == 1
    assert calls[0]["perquery"] is True and calls[0]["dataframe"] is False
    assert not {"baseline", "round", "correction", "highlight"} & set(calls[0])


def test_compat_tuple_is_pt_experiments():
    """Guard of the one use of PyTerrier's private modules (experiment/_compat.py)."""
    from pyterrier_risk.experiment._compat import evaluation_tuple

    theirs = pt.Experiment(RUNS, TOPICS, QRELS, [AP], perquery="both")
    ours = evaluation_tuple("a", "b")
    assert type(ours) is type(theirs) and type(ours).__module__.startswith("pyterrier.")
    assert ours.averages == "a" and ours.perquery == "b"


def test_no_private_imports_of_pyterrier_or_ir_measures_outside_the_compat_module():
    import ast
    from pathlib import Path

    package = Path(pr.__file__).parent
    found = []
    for path in sorted(package.rglob("*.py")):
        try:
            source = path.read_text()
        except FileNotFoundError:  # a probe file another test creates and removes
            continue
        for node in ast.walk(ast.parse(source)):
            modules = []
            if isinstance(node, ast.Import):
                modules = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                modules = [node.module] + [f"{node.module}.{alias.name}" for alias in node.names]
            for module in modules:
                parts = module.split(".")
                if parts[0] in ("pyterrier", "ir_measures") and any(p.startswith("_") for p in parts[1:]):
                    found.append(f"{path.relative_to(package)}: {module}")
    assert found == [
        "experiment/_compat.py: pyterrier._evaluation._rendering",
        "experiment/_compat.py: pyterrier._evaluation._rendering.EvaluationDataTuple",
    ]


def test_save_dir_tables_are_restored_when_a_later_step_fails(tmp_path, monkeypatch):
    from pyterrier_risk.experiment import _experiment

    m = pr.URisk(AP, baseline="bm25")
    pr.Experiment({"bm25": RUNS["bm25"], "dph": RUNS["dph"]}, TOPICS, QRELS, [AP, m], save_dir=str(tmp_path))
    before = {name: (tmp_path / name).read_bytes() for name in ("aggregated.csv", "perquery.csv")}

    def broken(*args, **kwargs):
        raise RuntimeError("boom")

    monkeypatch.setattr(_experiment, "_evaluate_risk", broken)  # fails after pt.Experiment wrote its tables
    with pytest.raises(RuntimeError, match="boom"):
        pr.Experiment({"pl2": RUNS["pl2"]}, TOPICS, QRELS, [AP, m(baseline="pl2")], save_dir=str(tmp_path))
    assert {name: (tmp_path / name).read_bytes() for name in before} == before
    assert sorted(p.name for p in tmp_path.iterdir() if p.suffix == ".csv") == sorted(before)
    assert not [p for p in tmp_path.iterdir() if "pyterrier-risk" in p.name]
    (tmp_path / "aggregated.csv").unlink()
    (tmp_path / "perquery.csv").unlink()
    with pytest.raises(RuntimeError, match="boom"):  # no earlier tables: the inner call's are removed
        pr.Experiment({"pl2": RUNS["pl2"]}, TOPICS, QRELS, [AP, m(baseline="pl2")], save_dir=str(tmp_path))
    assert not [p for p in tmp_path.iterdir() if p.suffix == ".csv"]


def test_averages_do_not_warn_about_per_query_placeholders():
    # topics without qrels: only pt.Experiment's per-query output has (and warns about) NaN rows for them
    topics = pd.concat([TOPICS, pd.DataFrame({"qid": ["999"], "query": ["no qrels"]})], ignore_index=True)
    systems = {n: pt.Transformer.from_df(RUNS[n]) for n in ("bm25", "dph")}
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        res = pr.Experiment(systems, topics, QRELS, [AP, pr.URisk(AP, baseline="bm25")]).set_index("name")
    assert res.loc["dph", "AP"] == pytest.approx(matrix(AP)[1].mean())


@pytest.mark.parametrize("method", ["fdr_bh", "fdr_by", "simes-hochberg", "hommel", "sidak", "h", "fdr_i"])
def test_corrections_of_the_ordinary_measures_match_pt_experiment(method):
    """pt.Experiment corrects with statsmodels' multipletests; ours with core.adjust_p_values."""
    runs = {n: random_run(s) for n, s in zip("abcdef", range(40, 46), strict=True)}
    kwargs = {"baseline": 2, "correction": method, "correction_alpha": 0.3}
    ours = pr.Experiment(runs, TOPICS, QRELS, [AP, nDCG @ 5, P @ 3, pr.URisk(AP)], **kwargs)
    theirs = pt.Experiment(runs, TOPICS, QRELS, [AP, nDCG @ 5, P @ 3], **kwargs)
    ours = ours[theirs.columns]
    corrected = [c for c in theirs.columns if c.endswith("corrected")]
    assert len(corrected) == 3 and theirs[corrected].notna().sum().sum() == 15
    rest = [c for c in theirs.columns if c not in corrected]
    pd.testing.assert_frame_equal(ours[rest], theirs[rest], check_exact=True)
    pd.testing.assert_frame_equal(ours[corrected], theirs[corrected], check_exact=True)


# -- issue 11: checks before any evaluator, corrections of the risk p-values, a randomization test ---------
def test_measures_and_qrels_that_would_crash_an_evaluator_are_value_errors():
    """In a subprocess: pytrec_eval aborts (SIGABRT) on nDCG@0, crashes on a topic with only labels < -1."""
    import subprocess
    import sys

    script = (
        "import numpy as np, pandas as pd, pyterrier_risk as pr\n"
        "from ir_measures import AP, ERR, nDCG\n"
        "qids = ['1', '2', '3']\n"
        "qrels = pd.DataFrame([(q, f'd{d}', d % 2) for q in qids for d in range(4)],\n"
        "                     columns=['qid', 'docno', 'label'])\n"
        "topics = pd.DataFrame({'qid': qids, 'query': 'q'})\n"
        "run = pd.DataFrame([(q, f'd{d}', 4.0 - d, d) for q in qids for d in range(4)],\n"
        "                   columns=['qid', 'docno', 'score', 'rank'])\n"
        "spam = pd.concat([qrels, pd.DataFrame({'qid': ['9'], 'docno': ['d0'], 'label': [-2]})])\n"
        "named = qrels.assign(qid='q' + qrels['qid'])\n"
        "cases = [([nDCG@0], qrels, {}), (['ndcg_cut_0'], qrels, {}),\n"
        "         ([pr.URisk(AP, baseline=0), nDCG@0], qrels, {}),\n"
        "         ([AP], spam, {'filter_by_topics': False}), ([ERR@5], named, {'filter_by_topics': False})]\n"
        "for measures, q, kw in cases:\n"
        "    try:\n"
        "        pr.Experiment({'a': run, 'b': run}, topics, q, measures, **kw)\n"
        "        print('no error')\n"
        "    except ValueError as e:\n"
        "        print('ValueError', str(e).splitlines()[0], flush=True)\n"
    )
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]
    lines = proc.stdout.splitlines()
    assert len(lines) == 5 and all(line.startswith("ValueError") for line in lines), lines
    assert "cutoff" in lines[0] and "cutoff" in lines[1] and "cutoff" in lines[2]
    assert "topic '9' has only labels below -1" in lines[3]
    assert "gdeval.pl" in lines[4] and "'q1'" in lines[4]


@pytest.mark.parametrize("method", ["holm", "fdr_bh", "bonferroni", "hommel"])
def test_correction_covers_the_trisk_p_values_as_statsmodels(method):
    multipletests = pytest.importorskip("statsmodels.stats.multitest").multipletests
    runs = {n: random_run(s) for n, s in zip("abcdef", range(50, 56), strict=True)}
    risk = [pr.TRisk(AP, alpha=2), pr.TRisk(nDCG @ 5, baseline="median")]
    res = pr.Experiment(runs, TOPICS, QRELS, [AP, *risk], baseline="a", correction=method,
                        correction_alpha=0.2)
    for m in risk:
        named = m(baseline="a") if m.baseline is None else m  # the column names the baseline used
        col = f"{named!r} p-value"
        assert list(res.columns).index(f"{named!r} p-value corrected") == list(res.columns).index(col) + 2
        known = res[col].notna()
        assert known.sum() == (5 if m.baseline is None else 6)  # the baseline system is not a test
        reject, corrected = multipletests(res.loc[known, col], alpha=0.2, method=method)[:2]
        np.testing.assert_allclose(res.loc[known, f"{col} corrected"], corrected, rtol=1e-12)
        assert list(res.loc[known, f"{named!r} reject"]) == list(reject)
        assert res.loc[~known, f"{col} corrected"].isna().all()
        assert not res.loc[~known, f"{named!r} reject"].any()


def test_correction_of_trisk_needs_no_experiment_baseline():
    res = pr.Experiment(RUNS, TOPICS, QRELS, [pr.TRisk(AP, baseline="mean")], correction="holm")
    assert res["TRisk(AP,baseline='mean') p-value corrected"].notna().all()
    with pytest.raises(ValueError, match="no baseline was specified"):
        pr.Experiment(RUNS, TOPICS, QRELS, [AP, pr.URisk(AP, baseline="mean")], correction="holm")


def _exact_sign_flip_p(x: np.ndarray) -> float:
    """All 2^c sign flips of x, studentised mean (TRisk's statistic), two-sided; written out here."""
    import itertools

    flips = np.array(list(itertools.product([1.0, -1.0], repeat=len(x))))
    y = flips * x
    t = y.mean(axis=1) / (y.std(axis=1, ddof=1) / np.sqrt(len(x)))
    return float(np.mean(np.abs(t) >= abs(t[0]) * (1 - 1e-12)))


def test_risk_test_randomization_is_the_exact_sign_flip_test():
    risk = [pr.TRisk(AP, alpha=3, baseline="bm25"), pr.TRisk(nDCG @ 5, baseline="mean")]
    res = pr.Experiment(RUNS, TOPICS, QRELS, risk, risk_test="randomization").set_index("name")
    t_res = pr.Experiment(RUNS, TOPICS, QRELS, risk).set_index("name")
    ap, nd = matrix(AP), matrix(nDCG @ 5)
    for i, n in enumerate(NAMES):
        if i:
            d = ap[i] - ap[0]
            x = np.where(d < 0, 4 * d, d)
            assert res.loc[n, f"{risk[0]!r} p-value"] == pytest.approx(_exact_sign_flip_p(x), abs=1e-12)
        x = nd[i] - nd.mean(axis=0)
        assert res.loc[n, f"{risk[1]!r} p-value"] == pytest.approx(_exact_sign_flip_p(x), abs=1e-12)
    pd.testing.assert_series_equal(res[repr(risk[0])], t_res[repr(risk[0])])  # the statistic stays TRisk
    # fewer resamples than 2^8: random flips, the same for the same seed
    kw = {"risk_test": "randomization", "risk_resamples": 50, "risk_seed": 5}
    first = pr.Experiment(RUNS, TOPICS, QRELS, risk, **kw)
    pd.testing.assert_frame_equal(first, pr.Experiment(RUNS, TOPICS, QRELS, risk, **kw))
    assert (first.filter(like="p-value").dropna(how="all").fillna(1) >= 1 / 51).all().all()
    with pytest.raises(ValueError, match="unknown risk test 'bootstrap'"):
        pr.Experiment(RUNS, TOPICS, QRELS, risk, risk_test="bootstrap")
    with pytest.raises(ValueError, match="resamples"):
        pr.Experiment(RUNS, TOPICS, QRELS, risk, risk_test="randomization", risk_resamples=0)
