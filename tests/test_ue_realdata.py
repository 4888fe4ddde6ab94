"""UE measures on real systems: LETOR 4.0 MQ2008-agg qrels and three of its 25 runs."""

from __future__ import annotations

import warnings

import ir_measures
import numpy as np
import pandas as pd
import pytest
from helpers import data_path
from ir_measures import AP, nDCG

from pyterrier_risk import UE, read_qrels, ue, ue_bounds

pytestmark = pytest.mark.realdata

SYSTEMS = ["ranker09", "ranker01", "ranker25"]  # best, middle and worst by nDCG@10


@pytest.fixture(scope="module")
def mq2008agg():
    folder = data_path("letor4-mq2008-agg", "derived_trec")
    qrels = pd.read_csv(
        folder / "qrels.mq2008agg.txt", sep=r"\s+", names=["query_id", "it", "doc_id", "relevance"], dtype=str
    ).drop(columns="it")
    qrels["relevance"] = qrels["relevance"].astype(int)
    runs = {}
    for name in SYSTEMS:
        cols = ["query_id", "q0", "doc_id", "rank", "score", "tag"]
        run = pd.read_csv(folder / "runs" / f"{name}.run.gz", sep=r"\s+", names=cols, dtype=str)
        runs[name] = run[["query_id", "doc_id"]].assign(score=run["score"].astype(float))
    return qrels, runs


def _per_query(measures, qrels, run):
    out = pd.DataFrame({str(m): {x.query_id: x.value for x in m.iter_calc(qrels, run)} for m in measures})
    return out.sort_index()


@pytest.mark.parametrize("base", [nDCG(gains={0: 0, 1: 1, 2: 3}) @ 10, AP @ 10], ids=str)
def test_measure_matches_core_and_stays_in_range(mq2008agg, base):
    qrels, runs = mq2008agg
    b = ue_bounds(
        qrels["relevance"], qrels["query_id"], measure=base.NAME, cutoff=10, gains=base.params.get("gains")
    )
    no_rel = qrels.groupby("query_id")["relevance"].max() == 0
    assert no_rel.sum() == 220  # as the dataset README says
    means = {}
    for name, run in runs.items():
        v1, v2 = UE(base), UE(base, variant="V2")
        per = _per_query([base, v1, v2], qrels, run)
        assert len(per) == 784
        a = per[str(base)]
        iub, reb = b.iub.reindex(per.index), b.reb.reindex(per.index)
        assert per[str(v1)].between(0, 1).all() and per[str(v2)].between(-1, 1).all()
        np.testing.assert_allclose(per[str(v1)], ue(a, iub, reb, "V1"), atol=1e-12)
        np.testing.assert_allclose(per[str(v2)], ue(a, iub, reb, "V2"), atol=1e-12)
        # V1 never exceeds the upper-bound-normalised score; V2 > 0 exactly when A beats random
        assert (per[str(v1)] <= a / iub.where(iub > 0, 1) + 1e-12).all()
        has_rel = ~no_rel.reindex(per.index)
        assert ((per[str(v2)] > 0) == (a > reb + 1e-12))[has_rel].all()
        assert (per.loc[~has_rel] == 0).all().all()
        means[name] = per[has_rel].mean()
    assert means["ranker09"][str(UE(base, variant="V2"))] > means["ranker25"][str(UE(base, variant="V2"))]


def test_run_pool_reb_matches_random_shuffles_of_the_run(mq2008agg):
    """REB with pool='run' = mean AP@10 over random orderings of what the system retrieved."""
    qrels, runs = mq2008agg
    run = runs["ranker01"]
    judged = run.merge(qrels, on=["query_id", "doc_id"], how="left")
    num_rel = (qrels["relevance"] >= 1).groupby(qrels["query_id"]).sum()
    b = ue_bounds(judged["relevance"], judged["query_id"], measure="AP", cutoff=10, norm=num_rel)
    topics = b.reb.index[num_rel.reindex(b.reb.index) > 0]
    rng = np.random.default_rng(7)
    evaluator = ir_measures.evaluator([AP @ 10], qrels[qrels["query_id"].isin(topics)])
    samples = []
    for _ in range(40):
        shuffled = run.assign(score=rng.random(len(run)))
        samples.append(evaluator.calc_aggregate(shuffled[shuffled["query_id"].isin(topics)])[AP @ 10])
    samples = np.array(samples)
    expected = b.reb.reindex(topics).mean()
    se = samples.std(ddof=1) / np.sqrt(len(samples))
    assert abs(samples.mean() - expected) < 4 * se
    # the paper's independence formula is far off on the same pools
    paper = ue_bounds(
        judged["relevance"], judged["query_id"], measure="AP", cutoff=10, norm=num_rel, reb="paper"
    ).reb.reindex(topics)
    print(f"E[AP@10] exact {expected:.4f}, shuffled {samples.mean():.4f} +- {se:.4f}")
    print(f"E[AP@10] paper {paper.mean():.4f}")
    assert paper.mean() < 0.8 * expected


def test_pool_run_rewards_a_short_precise_list_more_than_pool_qrels(mq2008agg):
    """ranker25 retrieves few documents: it looks worse than random against all judged documents, but not
    against a random ordering of its own list."""
    qrels, runs = mq2008agg
    run = runs["ranker25"]
    m_q, m_r = UE(AP @ 10, variant="V2"), UE(AP @ 10, variant="V2", pool="run")
    res = ir_measures.calc_aggregate([m_q, m_r], qrels, run)
    assert res[m_q] < -0.5 < res[m_r]


def test_vaswani_qrels_list_only_relevant_documents_and_ue_warns():
    # Vaswani's qrels hold no non-relevant judgment: with pool='qrels' a random ordering of the judged
    # documents is ideal (REB = IUB), so V2 is nDCG - 1 on every topic, and UE warns; pool='run' does not
    qrels = read_qrels(data_path("vaswani-npl", "qrels")).rename(
        columns={"qid": "query_id", "docno": "doc_id", "label": "relevance"})
    assert qrels["relevance"].eq(1).all() and qrels["query_id"].nunique() == 93
    # a run per topic: every other relevant document, then three documents nobody judged
    rows = []
    for qid, docs in qrels.groupby("query_id")["doc_id"]:
        ranked = [*docs.tolist()[::2], "u1", "u2", "u3"]
        rows += [(qid, d, float(len(ranked) - i)) for i, d in enumerate(ranked)]
    run = pd.DataFrame(rows, columns=["query_id", "doc_id", "score"])
    with pytest.warns(UserWarning, match=r"on 93 of 93 topics the judged documents are all relevant"):
        v2 = _per_query([UE(nDCG@10, variant="V2")], qrels, run).iloc[:, 0]
    base = _per_query([nDCG@10], qrels, run).iloc[:, 0]
    np.testing.assert_allclose(v2, base - 1.0, atol=1e-12)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        by_run = _per_query([UE(nDCG@10, variant="V2", pool="run")], qrels, run).iloc[:, 0]
    assert (by_run > v2).all()
