"""MQ2008 folds and the MQ2008-agg systems as aligned multiple baselines."""

from __future__ import annotations

import gzip

import ir_measures
import numpy as np
import pandas as pd
import pytest
from helpers import data_path
from ir_measures import nDCG

from pyterrier_risk.data import (
    MQ2008_FOLDS,
    N_SYSTEMS,
    MQ2008Fold,
    agg_baseline_scores,
    mq2008_fold,
    read_letor,
    read_mq2008_agg,
    read_mq2008_part,
    system_runs,
)


def _agg_line(label, qid, ranks, docid):
    cells = " ".join(f"{j}:{'NULL' if r is None else r}" for j, r in enumerate(ranks, 1))
    return f"{label} qid:{qid} {cells} #docid = {docid} inc = 1 prob = 0.5\n"


@pytest.fixture
def tiny_agg(tmp_path):
    """Query q1 with 5 documents; system 1 retrieved d3 (rank 2) and d1 (rank 7), system 2 nothing."""
    ranks = {"d1": 7, "d2": None, "d3": 2, "d4": None, "d5": None}
    labels = {"d1": 0, "d2": 2, "d3": 1, "d4": 0, "d5": 1}
    lines = [_agg_line(labels[d], "q1", [r, None] + [1] * (N_SYSTEMS - 2), d) for d, r in ranks.items()]
    path = tmp_path / "agg.txt.gz"
    with gzip.open(path, "wt") as fh:
        fh.writelines(lines)
    return path


def test_fold_table_follows_the_letor_readme():
    assert MQ2008_FOLDS[1] == (("S1", "S2", "S3"), "S4", "S5")
    assert MQ2008_FOLDS[5] == (("S5", "S1", "S2"), "S3", "S4")
    for train, valid, test in MQ2008_FOLDS.values():
        assert sorted([*train, valid, test]) == ["S1", "S2", "S3", "S4", "S5"]
    # every partition is the test set of exactly one fold
    assert sorted(t for _, _, t in MQ2008_FOLDS.values()) == ["S1", "S2", "S3", "S4", "S5"]


def test_bad_fold_and_part(tmp_path):
    with pytest.raises(ValueError, match="fold must be 1..5"):
        mq2008_fold(6, tmp_path)
    with pytest.raises(ValueError, match="unknown MQ2008 partition 'S6'"):
        read_mq2008_part("S6", tmp_path)
    with pytest.raises(FileNotFoundError, match="partition S1 not found"):
        read_mq2008_part("S1", tmp_path)


def test_read_agg_parses_nulls_as_nan(tiny_agg):
    agg = read_mq2008_agg(tiny_agg)
    assert list(agg.columns[:3]) == ["qid", "docno", "label"] and agg.shape == (5, 3 + N_SYSTEMS)
    assert agg["ranker01"].tolist()[0] == 7 and np.isnan(agg["ranker01"].tolist()[1])
    assert agg["ranker02"].isna().all() and (agg["ranker25"] == 1).all()
    assert agg["label"].tolist() == [0, 2, 1, 0, 1]


def test_read_agg_rejects_malformed_lines(tmp_path):
    path = tmp_path / "agg.txt"
    path.write_text("0 qid:1 1:3 2:NULL #docid = GX1\n")
    with pytest.raises(ValueError, match=r"agg.txt:1: expected 'label qid:N 1:r .. 25:r"):
        read_mq2008_agg(path)
    with pytest.raises(FileNotFoundError):
        read_mq2008_agg(tmp_path / "nothing.txt")
    ranks = [1] * N_SYSTEMS
    for line, message in [
        (
            _agg_line(0, 1, ranks, "GX1").replace(" 1:1 ", " 26:1 ", 1),
            r"agg.txt:1: system 1 expected, found '26:1'",
        ),
        (
            _agg_line(0, 1, ranks, "GX1").replace(" 2:1 ", " 1:1 ", 1),
            r"agg.txt:1: system 2 expected, found '1:1'",
        ),
        (_agg_line(0, 1, [None, "abc"] + ranks[2:], "GX1"), r"agg.txt:1: could not convert string to float"),
        (_agg_line(0, 1, [None, "1_0"] + ranks[2:], "GX1"), r"agg.txt:1: rank '1_0' of system 2 is not a"),
        (_agg_line("x", 1, ranks, "GX1"), r"agg.txt:1: relevance label 'x' is not an integer"),
        (_agg_line("0.99999999999999999999", 1, ranks, "GX1"), r"agg.txt:1: relevance label .* is not an"),
    ]:
        path.write_text(line)
        with pytest.raises(ValueError, match=message):
            read_mq2008_agg(path)


def test_agg_scores_put_unretrieved_documents_last_lowest_labels_first(tiny_agg):
    agg = read_mq2008_agg(tiny_agg)
    frame = agg[["qid", "docno"]].iloc[::-1].reset_index(drop=True)  # any row order
    scores = agg_baseline_scores(frame, agg)
    assert scores.shape == (5, N_SYSTEMS)
    order = frame["docno"].to_numpy()[np.argsort(-scores[:, 0], kind="stable")]
    # retrieved by rank (d3 at 2, d1 at 7), then unretrieved by ascending label: d4 (0), d5 (1), d2 (2)
    assert order.tolist() == ["d3", "d1", "d4", "d5", "d2"]
    assert np.all(scores[:, 0][frame["docno"].isin(["d2", "d4", "d5"])] < -7)
    # system 2 retrieved nothing: every document below every rank in the file
    order2 = frame["docno"].to_numpy()[np.argsort(-scores[:, 1], kind="stable")]
    assert order2.tolist() == ["d4", "d1", "d5", "d3", "d2"]
    np.testing.assert_array_equal(scores[:, 2], -np.ones(5))


def test_agg_scores_error_when_a_row_is_not_covered(tiny_agg):
    agg = read_mq2008_agg(tiny_agg)
    frame = pd.DataFrame({"qid": ["q1", "q1"], "docno": ["d1", "dX"]})
    with pytest.raises(ValueError, match=r"1 rows have no MQ2008-agg entry, e.g. qid/docno \['q1', 'dX'\]"):
        agg_baseline_scores(frame, agg)


def test_system_runs_keep_only_retrieved_documents(tiny_agg):
    runs = system_runs(read_mq2008_agg(tiny_agg))
    assert list(runs) == [f"ranker{j:02d}" for j in range(1, 26)]
    assert runs["ranker01"]["docno"].tolist() == ["d1", "d3"] and runs["ranker01"]["score"].tolist() == [
        -7,
        -2,
    ]
    assert runs["ranker02"].empty
    assert len(system_runs(read_mq2008_agg(tiny_agg), qids={"other"})["ranker03"]) == 0


# ---------------------------------------------------------------------- real data
@pytest.fixture(scope="module")
def agg():
    return read_mq2008_agg(data_path("letor4-mq2008-agg"))


@pytest.mark.realdata
def test_fold1_equals_the_distributed_fold1_files():
    root = data_path("letor4-mq2008")
    fold = mq2008_fold(1, root)
    assert (len(fold.train), len(fold.valid), len(fold.test)) == (9630, 2707, 2874)
    assert (fold.train.qid.nunique(), fold.valid.qid.nunique(), fold.test.qid.nunique()) == (471, 157, 156)
    train = read_letor(root / "Fold1" / "train.txt.gz")
    assert fold.train["docno"].tolist() == train.docno.tolist()
    np.testing.assert_array_equal(np.stack(fold.train["features"].to_numpy()), train.X)
    np.testing.assert_array_equal(fold.train["label"].to_numpy(), train.y)
    assert MQ2008Fold.candidates(fold.test).columns.tolist() == ["qid", "docno", "features"]
    assert MQ2008Fold.qrels(fold.test).columns.tolist() == ["qid", "docno", "label"]


@pytest.mark.realdata
def test_agg_matches_the_readme_and_aligns_with_mq2008(agg):
    assert agg.shape == (15211, 28) and agg["qid"].nunique() == 784
    assert agg["label"].value_counts().to_dict() == {0: 12279, 1: 2001, 2: 931}
    assert round(float(agg.filter(like="ranker").isna().to_numpy().mean()), 2) == 0.65
    fold = mq2008_fold(3, data_path("letor4-mq2008"))
    rows = pd.concat([fold.train, fold.valid, fold.test], ignore_index=True)
    assert len(rows) == 15211
    joined = rows.merge(agg, on=["qid", "docno"], suffixes=("", "_agg"))
    assert len(joined) == 15211 and (joined["label"] == joined["label_agg"]).all()
    scores = agg_baseline_scores(rows, agg)
    assert scores.shape == (15211, 25) and np.isfinite(scores).all()


@pytest.mark.realdata
def test_system_runs_reproduce_the_readme_quick_check(agg):
    qrels = agg[["qid", "docno", "label"]].rename(
        columns={"qid": "query_id", "docno": "doc_id", "label": "relevance"}
    )
    with_relevant = set(agg.loc[agg["label"] > 0, "qid"])
    assert len(with_relevant) == 564
    runs = system_runs(agg, qids=with_relevant)
    measure = nDCG(gains={0: 0, 1: 1, 2: 3}) @ 10  # the readme's nDCG uses 2^label - 1 gains
    for name, expected in [("ranker09", 0.658), ("ranker06", 0.632), ("ranker01", 0.318)]:
        run = runs[name].rename(columns={"qid": "query_id", "docno": "doc_id"})
        per_query = {m.query_id: m.value for m in ir_measures.iter_calc([measure], qrels, run)}
        value = sum(per_query.values()) / len(with_relevant)  # queries a system missed count 0
        assert value == pytest.approx(expected, abs=5e-4), name
    # the same documents in the same order as the derived TREC run shipped with the data
    shipped = pd.DataFrame(
        ir_measures.read_trec_run(
            str(data_path("letor4-mq2008-agg", "derived_trec", "runs", "ranker09.run.gz"))
        )
    )
    ours = system_runs(agg)["ranker09"].rename(columns={"qid": "query_id", "docno": "doc_id"})
    key = ["query_id", "doc_id"]
    pd.testing.assert_frame_equal(
        ours.sort_values(key).reset_index(drop=True)[[*key, "score"]],
        shipped.sort_values(key).reset_index(drop=True)[[*key, "score"]],
        check_dtype=False,
    )
