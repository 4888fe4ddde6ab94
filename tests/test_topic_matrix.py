"""``topic_matrices`` (every measure of every run in one pass) against ir_measures run per measure and run.

The reference is the straightforward computation: ``ir_measures.iter_calc`` on each run's DataFrame,
one measure at a time, under the topic policy (qrels topics, in first-seen order; a topic without
results scores the evaluator's default, 0; a topic outside the qrels scores 0; results for other
topics are ignored). On the 19 TREC-7 runs the values also match the official ``gdeval.pl -c``
output shipped with the data.
"""

from __future__ import annotations

import glob
import warnings

import ir_measures
import numpy as np
import pandas as pd
import pytest
from helpers import data_path

from pyterrier_risk import parse_measure
from pyterrier_risk.data import read_qrels, read_run
from pyterrier_risk.measures import topic_matrices, topic_matrix

MEASURES = [parse_measure(m) for m in ["nDCG@20", "ERR@20", "AP", "P@10", "RR", "nDCG(dcg='exp-log2')@20",
                                       "Judged@10", "UE(nDCG@10)", "ndcg_cut_5"]]


def reference_matrix(runs, qrels, measure, qids=None):
    """One measure, run by run, through ir_measures' own DataFrame conversion."""
    qrels_m = qrels.rename(columns={"qid": "query_id", "docno": "doc_id", "label": "relevance"})
    qrels_m = qrels_m.assign(query_id=qrels_m["query_id"].astype(str), doc_id=qrels_m["doc_id"].astype(str))
    topics = list(dict.fromkeys(qrels_m["query_id"]))
    columns = topics if qids is None else [str(q) for q in qids]
    rows = {}
    for name, res in runs.items():
        run = res[["qid", "docno", "score"]].rename(columns={"qid": "query_id", "docno": "doc_id"})
        run = run.assign(query_id=run["query_id"].astype(str), doc_id=run["doc_id"].astype(str))
        values = dict.fromkeys(topics, 0.0)
        if len(run):
            for metric in ir_measures.iter_calc([measure], qrels_m, run):
                if metric.query_id in values:
                    values[metric.query_id] = float(metric.value)
        rows[name] = pd.Series(values, dtype=float).reindex(columns, fill_value=0.0)
    return pd.DataFrame(rows).T.reindex(list(runs))


def assert_same(got, expected):
    """Equal labels and bit-identical values (the same evaluators on the same input)."""
    assert list(got.index) == list(expected.index) and list(got.columns) == list(expected.columns)
    np.testing.assert_array_equal(got.to_numpy(), expected.to_numpy(dtype=float))


def _read_trec7(folder, pattern):
    """The runs and qrels of a TREC-7 folder, and the data folder (with gdeval.pl's reference output)."""
    qrels = read_qrels(folder / "qrels.adhoc.351-400.txt")
    runs = {}
    for path in sorted(glob.glob(str(folder / "runs" / pattern))):
        run = read_run(path)
        runs[run["name"].iloc[0]] = run
    return runs, qrels, data_path("trec7-adhoc-terrier-runs")


@pytest.fixture(scope="module")
def trec7():
    """The 19 TREC-7 runs whole (the slow parameters)."""
    return _read_trec7(data_path("trec7-adhoc-terrier-runs"), "*.run.gz")


@pytest.fixture(scope="module")
def trec7_top(trec7_short):
    """The 19 TREC-7 runs' first 20 lines per topic (conftest), for the quick loop."""
    return _read_trec7(trec7_short, "*.run")


def _first_topics(runs, qrels, n):
    """The runs and qrels cut to the first ``n`` qrels topics (each topic's values depend on it alone)."""
    keep = list(dict.fromkeys(qrels["qid"]))[:n]
    return {k: r[r["qid"].isin(keep)] for k, r in runs.items()}, qrels[qrels["qid"].isin(keep)]


@pytest.mark.parametrize("size", [(2, 5), pytest.param((3, None), marks=pytest.mark.slow)], ids=str)
def test_all_measures_in_one_pass_equal_ir_measures_per_measure(request, size):
    n_runs, n_topics = size
    # the quick loop: 2 runs x 5 topics x 20 lines; CI (slow) 3 whole runs
    runs, qrels, _ = request.getfixturevalue("trec7" if n_topics is None else "trec7_top")
    some = dict(list(runs.items())[:n_runs])
    if n_topics is not None:
        some, qrels = _first_topics(some, qrels, n_topics)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # UE's own notes about the pool
        matrices = topic_matrices(some, qrels, MEASURES)
        assert list(matrices) == MEASURES
        for m in MEASURES:
            assert_same(matrices[m], reference_matrix(some, qrels, m))
            assert_same(topic_matrix(some, qrels, m), matrices[m])


@pytest.mark.parametrize("n_topics", [6, pytest.param(None, marks=pytest.mark.slow)])
def test_nineteen_runs_match_the_official_gdeval_output(request, n_topics):
    # the quick loop: 6 topics of the 19 runs' first 20 lines (all that @20 reads); CI (slow) the whole runs
    runs, qrels, folder = request.getfixturevalue("trec7" if n_topics is None else "trec7_top")
    if n_topics is not None:
        runs, qrels = _first_topics(runs, qrels, n_topics)
    nd, err = parse_measure("nDCG@20"), parse_measure("ERR@20")
    matrices = topic_matrices(runs, qrels, [nd, err])
    gdeval = pd.read_csv(folder / "reference_eval" / "gdeval_c.csv", dtype={"topic": str})
    gdeval = gdeval[(gdeval["k"] == 20) & (gdeval["topic"] != "amean")]
    for column, m in [("ndcg@k", nd), ("err@k", err)]:
        official = gdeval.pivot(index="run", columns="topic", values=column)
        official = official.reindex(index=list(runs), columns=list(matrices[m].columns))
        assert not official.isna().any().any()
        # gdeval prints 5 decimals; binary labels make its exp-log2 nDCG pytrec_eval's nDCG
        np.testing.assert_allclose(matrices[m].to_numpy(), official.to_numpy(), atol=5.1e-6, rtol=0)


def _small():
    qrels = pd.DataFrame({"qid": ["1", "1", "1", "2", "2", "3", "1"],
                          "docno": ["a", "b", "c", "a", "d", "e", "f"], "label": [1, 0, 2, 1, 1, 0, 1]})
    runs = {
        "full": pd.DataFrame({"qid": ["1", "1", "2", "2", "3"], "docno": ["a", "c", "d", "x", "e"],
                              "score": [3.0, 2.0, 1.0, 0.5, 1.0]}),
        # topic 2 missing, an extra topic 9, topic 1 split over two blocks of lines
        "split": pd.DataFrame({"qid": ["1", "9", "1", "3"], "docno": ["c", "a", "a", "e"],
                               "score": [1.0, 9.0, 2.0, 1.0]}),
        "only_extra": pd.DataFrame({"qid": ["9"], "docno": ["a"], "score": [1.0]}),
        "empty": pd.DataFrame({"qid": pd.Series([], dtype=object), "docno": pd.Series([], dtype=object),
                               "score": pd.Series([], dtype=float)}),
        # ids that are not str: compared as str, as the reference does
        "ints": pd.DataFrame({"qid": [1, 1, 2], "docno": ["b", "a", "a"], "score": [2, 1, 5]}),
    }
    return runs, qrels


def test_a_run_listing_a_pair_twice_or_a_nan_score_is_refused_as_read_run_refuses_it():
    runs, qrels = _small()
    m = parse_measure("AP")
    twice = pd.DataFrame({"qid": ["1", "1", "1"], "docno": ["a", "b", "a"], "score": [1.0, 2.0, 3.0]})
    with pytest.raises(ValueError, match=r"run 'twice': document 'a' is listed twice for topic '1' "
                                         r"\(first at row 0\); row 2 repeats it"):
        topic_matrices({**runs, "twice": twice}, qrels, [m])
    nan = twice.assign(docno=["a", "b", "c"], score=[1.0, np.nan, 3.0])
    with pytest.raises(ValueError, match=r"run 'nan': score is NaN for document 'b' of topic '1'"):
        topic_matrices({"nan": nan}, qrels, [m])


@pytest.mark.parametrize("qids", [None, ["3", "1"], ["1", "2", "3", "77"], ["2", "2", "1"], []])
def test_topic_policy_edge_cases_equal_the_reference(qids):
    runs, qrels = _small()
    measures = [parse_measure(m) for m in ["nDCG@2", "ERR@2", "AP", "P@1", "NumRet"]]
    matrices = topic_matrices(runs, qrels, measures, qids)
    for m in measures:
        assert_same(matrices[m], reference_matrix(runs, qrels, m, qids))


def test_default_columns_are_the_qrels_topics_in_first_seen_order():
    runs, qrels = _small()
    shuffled = qrels.iloc[[3, 0, 5, 1, 4, 2, 6]]  # topic 2 first, topic 1 in several blocks
    m = parse_measure("AP")
    got = topic_matrices(runs, shuffled, [m])[m]
    assert list(got.columns) == ["2", "1", "3"]
    assert_same(got, reference_matrix(runs, shuffled, m))


def test_qrels_with_a_pair_judged_twice_go_to_ir_measures_as_a_frame():
    runs, qrels = _small()
    twice = pd.concat([qrels, pd.DataFrame({"qid": ["1"], "docno": ["a"], "label": [0]})], ignore_index=True)
    for m in [parse_measure("AP"), parse_measure("ERR@2")]:
        assert_same(topic_matrices(runs, twice, [m])[m], reference_matrix(runs, twice, m))


def test_a_repeated_measure_is_evaluated_once_and_no_runs_give_empty_matrices():
    runs, qrels = _small()
    ap = parse_measure("AP")
    matrices = topic_matrices(runs, qrels, [ap, parse_measure("AP")])
    assert list(matrices) == [ap]
    empty = topic_matrices({}, qrels, [ap])[ap]
    assert empty.shape == (0, 3) and list(empty.columns) == ["1", "2", "3"]


def test_an_unsupported_measure_is_an_error():
    runs, qrels = _small()
    with pytest.raises(ValueError, match="nsupported"):
        topic_matrices(runs, qrels, [parse_measure("AP"), ir_measures.parse_measure("alpha_nDCG@5")])


def test_topic_scores_equal_the_reference_and_warn():
    from pyterrier_risk.core import TopicPolicyWarning
    from pyterrier_risk.measures._topics import topic_scores

    runs, qrels = _small()
    qrels_m = qrels.rename(columns={"qid": "query_id", "docno": "doc_id", "label": "relevance"})
    for name in ["full", "split"]:
        run = runs[name].rename(columns={"qid": "query_id", "docno": "doc_id"})
        for m in [parse_measure("AP"), parse_measure("ERR@2")]:
            if name == "full":  # every qrels topic, no other: no warning
                with warnings.catch_warnings():
                    warnings.simplefilter("error")
                    got = topic_scores(m, qrels_m, run, name)
            else:
                with pytest.warns(TopicPolicyWarning) as record:
                    got = topic_scores(m, qrels_m, run, name)
                assert any(f"{name} has no results for" in str(w.message) for w in record)
            expected = reference_matrix({name: runs[name]}, qrels, m).iloc[0]
            assert list(got.index) == list(expected.index) and got.name == str(m)
            np.testing.assert_array_equal(got.to_numpy(), expected.to_numpy())


def _tied_runs():
    """Runs whose 3rd-highest score is shared by several documents (gdeval breaks the tie by docno)."""
    qrels = pd.DataFrame({"qid": ["1"] * 6 + ["2"] * 3, "docno": list("abcdef") + list("abc"),
                          "label": [0, 2, 1, 0, 1, 2, 1, 0, 2]})
    run = pd.DataFrame({"qid": ["1"] * 8 + ["2"] * 5,
                        "docno": list("abcdefgh") + list("abcde"),
                        "score": [9.0, 8.0, 5.0, 5.0, 5.0, 5.0, 1.0, 0.5, 3.0, 3.0, 3.0, 3.0, 2.0]})
    return {"tied": run, "reversed": run.iloc[::-1].reset_index(drop=True)}, qrels


def test_gdeval_measures_see_only_the_top_of_each_topic_ties_included():
    from pyterrier_risk.measures._topics import top_depth, top_rows

    runs, qrels = _tied_runs()
    kept = top_rows(runs["tied"], 3)
    # topic 1: 9, 8 and every 5 (tied at the 3rd place); topic 2: all four 3s, not the 2
    assert kept["docno"].tolist() == list("abcdef") + list("abcd")
    assert top_rows(runs["tied"], 10) is runs["tied"]
    assert top_depth([parse_measure("ERR@3"), parse_measure("nDCG(dcg='exp-log2')@5")]) == 5
    assert top_depth([parse_measure("ERR_gdeval@4")]) == 4  # ERR@4 by another name
    assert top_depth([parse_measure("nDCG_gdeval@4")]) is None  # pytrec_eval's nDCG with gdeval's gains
    assert top_depth([parse_measure("ERR@3"), parse_measure("AP")]) is None  # AP reads the whole run
    assert top_depth([parse_measure("nDCG@3")]) is None  # pytrec_eval's, not gdeval's
    # the values are ir_measures' on the whole run, whatever the ties and the row order
    measures = [parse_measure(m) for m in ["ERR@3", "nDCG(dcg='exp-log2')@3", "ERR@1", "ERR_gdeval@3", "AP",
                                           "nDCG@3"]]
    matrices = topic_matrices(runs, qrels, measures)
    for m in measures:
        assert_same(matrices[m], reference_matrix(runs, qrels, m))
