"""Real-data evidence: TREC Web 2012 official risk baseline runs, and 19 Terrier runs on TREC-7.

Every risk value produced by ``pyterrier_risk.Experiment`` is checked against an independent
computation: per-topic scores from a separate numpy transcription of gdeval.pl's nDCG/ERR (Web
2012) or the official ``gdeval.pl -c`` per-topic output shipped with the TREC-7 runs, then numpy /
``scipy.stats.ttest_rel``.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pandas as pd
import pytest
from helpers import data_path
from ir_measures import ERR, nDCG
from scipy import stats

import pyterrier_risk as pr
from pyterrier_risk.core import TopicPolicyWarning

pytestmark = [pytest.mark.realdata, pytest.mark.slow]

GDEVAL_NDCG20 = nDCG(gains={-2: 0, 0: 0, 1: 1, 2: 3, 3: 7, 4: 15}) @ 20
ALPHAS = (0, 1, 5, 10)
WEB_BASELINE = "indri-rm-cata-filtered"
# gdeval.pl -c means from trec-web-2012-risk/README.md (nDCG@20, ERR@20), 4 decimals
WEB_README = {
    "indri-ql-cata": (0.0495, 0.1018),
    "indri-ql-cata-filtered": (0.1053, 0.1617),
    "indri-ql-catb": (0.0971, 0.1797),
    "indri-ql-catb-filtered": (0.1057, 0.1781),
    "indri-rm-cata": (0.0488, 0.0904),
    "indri-rm-cata-filtered": (0.1118, 0.1947),
    "indri-rm-catb": (0.0996, 0.1550),
    "indri-rm-catb-filtered": (0.1065, 0.1909),
}


def _read_runs(folder, depth: int = 20) -> dict[str, pd.DataFrame]:
    """The runs, each topic cut to the lines scoring at least its ``depth``-th score (ties kept): all
    that the measures here (nDCG@20, ERR@20) read, so the same values, for 1/50 of the evaluation."""
    runs = {}
    for path in sorted(folder.glob("*.run.gz")):
        run = pr.read_run(path)
        higher = run.groupby("qid")["score"].rank(method="min", ascending=False)  # 1 + the higher scores
        runs[run["name"].iloc[0]] = run[higher <= depth]
    return runs


def _collection(folder_name: str, qrels_name: str) -> tuple:
    """Runs, qrels and a topics frame (one row per qrels topic) of a shared-data folder."""
    folder = data_path(folder_name)
    qrels = pr.read_qrels(folder / qrels_name)
    topics = pd.DataFrame({"qid": sorted(qrels["qid"].unique()), "query": ""})
    return folder, _read_runs(folder / "runs"), qrels, topics


def gdeval_per_topic(run: pd.DataFrame, qrels: pd.DataFrame, k: int = 20, max_grade: int = 4):
    """Independent numpy/pandas nDCG@k (2^rel - 1 gains) and ERR@k, computed as gdeval.pl does.

    Ranking by score descending, ties by docno descending; negative labels count as 0; ideal DCG
    from all judged documents with rel > 0; ERR stop probability (2^rel - 1) / 2^max_grade.
    Topics are the qrels topics; a topic without results scores 0.
    """
    labels = qrels.assign(label=qrels["label"].clip(lower=0))
    keys = zip(labels["qid"], labels["docno"], strict=True)
    gain = dict(zip(keys, 2.0 ** labels["label"] - 1, strict=True))
    ranked = run.sort_values(["qid", "score", "docno"], ascending=[True, False, False])
    top = ranked.groupby("qid", sort=False).head(k)
    g = np.array([gain.get(key, 0.0) for key in zip(top["qid"], top["docno"], strict=True)])
    pos = top.groupby("qid", sort=False).cumcount().to_numpy() + 1
    dcg = pd.Series(g / np.log2(pos + 1)).groupby(top["qid"].to_numpy()).sum()
    ideal = {}
    for qid, grp in labels[labels["label"] > 0].groupby("qid"):
        best = np.sort(2.0 ** grp["label"].to_numpy() - 1)[::-1][:k]
        ideal[qid] = float((best / np.log2(np.arange(2, len(best) + 2))).sum())
    stop = g / 2.0**max_grade
    err = {}
    for qid, idx in top.groupby("qid", sort=False).indices.items():
        not_stopped, value = 1.0, 0.0
        for rank, r in enumerate(stop[idx], 1):
            value += not_stopped * r / rank
            not_stopped *= 1 - r
        err[qid] = value
    topics = sorted(labels["qid"].unique())
    ndcg = pd.Series({q: dcg.get(q, 0.0) / ideal[q] if ideal.get(q) else 0.0 for q in topics})
    return ndcg, pd.Series(err, dtype=float).reindex(topics, fill_value=0.0)


@pytest.fixture(scope="module")
def web2012():
    _, runs, qrels, topics = _collection("trec-web-2012-risk", "qrels.web.151-200.txt")
    measures = [GDEVAL_NDCG20, ERR @ 20]
    risk = [
        kind(base, alpha=a, baseline=WEB_BASELINE)
        for base in measures
        for a in ALPHAS
        for kind in (pr.URisk, pr.TRisk)
    ]
    with warnings.catch_warnings():
        warnings.simplefilter("error", TopicPolicyWarning)  # every run covers all 50 topics
        table = pr.Experiment(runs, topics, qrels, [*measures, *risk]).set_index("name")
    independent = {GDEVAL_NDCG20: {}, ERR @ 20: {}}
    for name, run in runs.items():
        independent[GDEVAL_NDCG20][name], independent[ERR @ 20][name] = gdeval_per_topic(run, qrels)
    return table, {m: pd.DataFrame(v).T for m, v in independent.items()}, risk


def test_web2012_base_means_match_gdeval(web2012):
    table, _, _ = web2012
    assert sorted(table.index) == sorted(WEB_README)
    for run, (ndcg, err) in WEB_README.items():
        assert table.loc[run, repr(GDEVAL_NDCG20)] == pytest.approx(ndcg, abs=6e-5)
        assert table.loc[run, "ERR@20"] == pytest.approx(err, abs=6e-5)


def test_web2012_urisk_trisk_against_independent_computation(web2012):
    """Risk values vs numpy on independently computed gdeval per-topic scores.

    nDCG agrees with ir_measures exactly; ir_measures' ERR@20 comes from gdeval.pl's printed output,
    rounded to 5 decimals, hence the ERR tolerances (a per-topic error <= 5e-6).
    """
    table, independent, risk = web2012
    for m in risk:
        scores = independent[m.base]
        exact = m.base == GDEVAL_NDCG20
        base = scores.loc[WEB_BASELINE].to_numpy()
        for run in scores.index:
            if run == WEB_BASELINE:
                continue
            d = scores.loc[run].to_numpy() - base
            x = np.where(d < 0, (1 + m.alpha) * d, d)
            if m.NAME == "URisk":
                tol = 1e-12 if exact else (1 + m.alpha) * 1e-5
                assert table.loc[run, repr(m)] == pytest.approx(x.mean(), abs=tol)
                continue
            t = x.mean() / (x.std(ddof=1) / math.sqrt(len(x)))
            p = 2 * stats.t.sf(abs(t), len(x) - 1)
            t_tol, p_tol = (1e-9, 1e-10) if exact else (2e-3, 5e-4)
            assert table.loc[run, repr(m)] == pytest.approx(t, abs=t_tol)
            assert table.loc[run, f"{m!r} p-value"] == pytest.approx(p, abs=p_tol)
            if m.alpha == 0:
                ref = stats.ttest_rel(scores.loc[run].to_numpy(), base)
                assert table.loc[run, repr(m)] == pytest.approx(ref.statistic, abs=t_tol)
                assert table.loc[run, f"{m!r} p-value"] == pytest.approx(ref.pvalue, abs=p_tol)


def test_web2012_risk_grows_with_alpha(web2012):
    table, _, _ = web2012
    for base in (GDEVAL_NDCG20, ERR @ 20):
        values = np.array([table[repr(pr.URisk(base, alpha=a, baseline=WEB_BASELINE))] for a in ALPHAS])
        assert np.all(np.diff(values, axis=0) <= 1e-15)
        # every other official baseline run loses on average to the filtered RM run under nDCG@20
        if base == GDEVAL_NDCG20:
            assert (values[0][table.index != WEB_BASELINE] < 0).all()


@pytest.fixture(scope="module")
def trec7():
    folder, runs, qrels, topics = _collection("trec7-adhoc-terrier-runs", "qrels.adhoc.351-400.txt")
    risk = [kind(nDCG @ 20, alpha=a) for a in ALPHAS for kind in (pr.ZRisk, pr.GeoRisk)]
    averages, perquery = pr.Experiment(runs, topics, qrels, [nDCG @ 20, *risk], perquery="both")
    reference = pd.read_csv(folder / "reference_eval" / "gdeval_c.csv", dtype={"topic": str})
    reference = reference[(reference["k"] == 20) & (reference["topic"] != "amean")]
    gdeval = reference.pivot(index="run", columns="topic", values="ndcg@k")
    return averages.set_index("name"), perquery, gdeval, risk


def test_trec7_per_topic_ndcg_matches_gdeval(trec7):
    averages, perquery, gdeval, _ = trec7
    assert len(averages) == 19 and gdeval.shape == (19, 50)
    ours = perquery[perquery["measure"] == "nDCG@20"].pivot(index="name", columns="qid", values="value")
    ours = ours.reindex(index=gdeval.index, columns=gdeval.columns)
    # gdeval prints 5 decimals; ties are broken alike (docno descending), so only rounding differs
    np.testing.assert_allclose(ours.to_numpy(), gdeval.to_numpy(), atol=1e-5 + 1e-9)


def test_trec7_zrisk_georisk_against_gdeval_matrix(trec7):
    averages, _, gdeval, risk = trec7
    for m in risk:
        func = pr.zrisk if m.NAME == "ZRisk" else pr.georisk
        expected = func(gdeval, m.alpha)
        got = averages.loc[expected.index, repr(m)]
        np.testing.assert_allclose(
            got.to_numpy(), expected.to_numpy(), atol=2e-3 if m.NAME == "ZRisk" else 1e-5
        )
    geo = averages[[repr(m) for m in risk if m.NAME == "GeoRisk"]].to_numpy()
    assert ((geo > 0) & (geo < 1)).all()
    zr = averages[[repr(m) for m in risk if m.NAME == "ZRisk"]].to_numpy()
    assert np.all(np.diff(zr, axis=1) <= 1e-12)  # ZRisk never increases with alpha


def test_trec7_perquery_z_sums_to_zrisk(trec7):
    averages, perquery, _, risk = trec7
    m = risk[2]  # ZRisk(nDCG@20,alpha=1)
    assert m.NAME == "ZRisk" and m.alpha == 1
    z = perquery[perquery["measure"] == f"{m!r} z"].pivot(index="name", columns="qid", values="value")
    weighted = z.where(z > 0, 0).sum(axis=1) + 2 * z.where(z < 0, 0).sum(axis=1)
    np.testing.assert_allclose(weighted.reindex(averages.index), averages[repr(m)], rtol=1e-10, atol=1e-12)


def test_web2012_urisk_in_plain_pt_experiment_with_baseline_run_file(web2012):
    import pyterrier as pt

    table, _, _ = web2012
    folder = data_path("trec-web-2012-risk")
    qrels = pr.read_qrels(folder / "qrels.web.151-200.txt")
    topics = pd.DataFrame({"qid": sorted(qrels["qid"].unique()), "query": ""})
    names = ["indri-ql-catb-filtered", "indri-rm-catb"]
    runs = [pr.read_run(folder / "runs" / f"{n}.run.gz") for n in names]
    baseline_file = str(folder / "runs" / f"{WEB_BASELINE}.run.gz")
    plain = pt.Experiment(
        runs, topics, qrels, [pr.URisk(GDEVAL_NDCG20, alpha=5, baseline=baseline_file)], names=names
    )
    ours = table[repr(pr.URisk(GDEVAL_NDCG20, alpha=5, baseline=WEB_BASELINE))]
    np.testing.assert_allclose(plain.iloc[:, 1].to_numpy(), ours.loc[names].to_numpy(), rtol=1e-12)
