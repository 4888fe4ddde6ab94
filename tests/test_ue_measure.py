"""The UE ir_measures measure: naming/parsing, and exhaustive enumeration scored by ir_measures itself."""

from __future__ import annotations

import itertools
import warnings

import ir_measures
import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from ir_measures import AP, RR, R, nDCG
from ir_measures import P as Prec

from pyterrier_risk import UE, parse_measure, ue

# --- naming, parsing, equality --------------------------------------------------------------------


def test_repr_is_canonical_and_parseable():
    spellings = [
        UE(nDCG@10, variant="V2", pool="run"),
        UE(pool="run", variant="V2", base="nDCG@10"),
        UE(base="nDCG", pool="run", variant="V2") @ 10,
        UE(variant="V2")(base=nDCG, pool="run") @ 10,
        ir_measures.parse_measure("UE(base='nDCG@10', variant='V2', pool='run')"),
        ir_measures.parse_measure("UE(pool='run', variant='V2', base='nDCG')@10"),
    ]
    assert {repr(m) for m in spellings} == {"UE(nDCG@10,variant='V2',pool='run')"}  # as written (issue 16)
    assert len(set(spellings)) == 1
    assert spellings[0] == spellings[-1] and hash(spellings[0]) == hash(spellings[-1])
    # defaults are not spelled out; a different parameter is a different measure
    assert repr(UE(AP@5, variant="V1", reb="exact", pool="qrels")) == "UE(AP@5)"
    assert UE(AP@5) != UE(AP@5, reb="paper") != UE(AP@10)
    for m in [UE(RR), UE(AP(rel=2)@5, reb="paper"), UE(nDCG(gains={0: 0, 1: 1, 2: 3})@10, variant="V2")]:
        assert parse_measure(repr(m)) == m  # the package's parser reads the positional base
    assert repr(UE(nDCG(gains={0: 0, 1: 1, 2: 3})@10)) == "UE(nDCG(gains={2:3})@10)"


def test_parameter_metadata():
    assert UE.NAME == "UE"
    assert set(UE.SUPPORTED_PARAMS) == {"base", "cutoff", "variant", "reb", "pool"}
    assert all(info.desc for info in UE.SUPPORTED_PARAMS.values())
    m = UE(AP@5, variant="V2")
    assert (m["variant"], m["reb"], m["pool"], m["cutoff"]) == ("V2", "exact", "qrels", 5)
    assert m.base_measure() == AP@5
    assert m.base == AP@5 and m["base"] == AP  # .base is the base with its cutoff, as for URisk etc.


@pytest.mark.parametrize(
    ("make", "error", "match"),
    [
        (lambda: UE(ir_measures.ERR@10), ValueError, "unsupported base"),
        (lambda: UE(base="NoSuchMeasure@3"), ValueError, "cannot parse"),
        (lambda: UE(base=3), TypeError, "base must be"),
        (lambda: UE(nDCG(dcg="exp-log2")@10), ValueError, "gains"),
        (lambda: UE(base="nDCG@5", cutoff=10), ValueError, "conflicting cutoffs"),
    ],
)
def test_bad_construction(make, error, match):
    with pytest.raises(error, match=match):
        make()


@pytest.mark.parametrize(
    ("measure", "match"),
    [
        (UE(base="P"), "needs a cutoff"),
        (UE(nDCG@10, variant="V3"), "variant"),
        (UE(nDCG@10, pool="corpus"), "pool"),
        (UE, "needs a base"),
    ],
)
def test_bad_parameters_fail_at_evaluation_with_a_clear_message(measure, match):
    qrels = pd.DataFrame({"query_id": ["q"], "doc_id": ["a"], "relevance": [1]})
    run = pd.DataFrame({"query_id": ["q"], "doc_id": ["a"], "score": [1.0]})
    with pytest.raises(ValueError, match=match):
        ir_measures.calc_aggregate([measure], qrels, run)


# --- exhaustive enumeration, every ordering scored by ir_measures ----------------------------------

QRELS_POOL = {"a": 2, "b": 1, "c": 0, "d": -1, "e": 1, "f": 0}  # one label < 0 (trec_eval: gain 0)
RUN_POOL = ["a", "c", "d", "e", "x1", "x2"]  # two unjudged documents, b and f not retrieved

BASES = [
    nDCG@3,
    nDCG,
    nDCG(gains={0: 0, 1: 1, 2: 3})@4,
    nDCG(judged_only=True)@3,
    AP@3,
    AP,
    AP(rel=2)@4,
    AP(judged_only=True)@2,
    Prec@2,
    Prec(rel=2)@10,
    R@3,
    RR,
    RR@2,
    RR(rel=2),
]


def _permutation_frames(pool_docs):
    perms = list(itertools.permutations(pool_docs))
    qids = [f"p{i:04d}" for i in range(len(perms))]
    n = len(pool_docs)
    run = pd.DataFrame(
        {
            "query_id": np.repeat(qids, n),
            "doc_id": np.concatenate(perms),
            "score": np.tile(np.arange(n, 0, -1, dtype=float), len(perms)),
        }
    )
    qrels = pd.DataFrame(
        {
            "query_id": np.repeat(qids, len(QRELS_POOL)),
            "doc_id": np.tile(list(QRELS_POOL), len(qids)),
            "relevance": np.tile(list(QRELS_POOL.values()), len(qids)),
        }
    )
    return qrels, run


@pytest.fixture(scope="module")
def enumerations():
    return {"qrels": _permutation_frames(list(QRELS_POOL)), "run": _permutation_frames(RUN_POOL)}


@pytest.mark.parametrize("pool", ["qrels", "run"])
@pytest.mark.parametrize("base", BASES, ids=repr)
def test_ue_equals_enumerated_bounds_for_every_ordering(enumerations, base, pool):
    qrels, run = enumerations[pool]
    measures = [base, UE(base, pool=pool), UE(base, variant="V2", pool=pool)]
    per = {m: {} for m in measures}
    for metric in ir_measures.iter_calc(measures, qrels, run):
        per[metric.measure][metric.query_id] = metric.value
    a = pd.Series(per[base]).sort_index()
    iub, reb = a.max(), a.mean()  # IUB = best ordering, REB = average over all n! orderings
    assert reb > 0
    for variant, measure in zip(["V1", "V2"], measures[1:], strict=True):
        got = pd.Series(per[measure]).sort_index()
        assert got.index.equals(a.index)
        np.testing.assert_allclose(got.to_numpy(), ue(a.to_numpy(), iub, reb, variant), atol=1e-12, rtol=0)
    # the best ordering scores 1 in both variants unless IUB = REB
    if iub > reb * (1 + 1e-9):
        best = a.idxmax()
        assert per[measures[2]][best] == pytest.approx(1.0)


@pytest.mark.parametrize("base", [nDCG@3, AP@3, RR], ids=repr)
def test_paper_reb_mode_differs_only_for_ap(enumerations, base):
    qrels, run = enumerations["qrels"]
    exact, paper = UE(base, variant="V2"), UE(base, variant="V2", reb="paper")
    res = ir_measures.calc_aggregate([exact, paper], qrels, run)
    if base.NAME == "AP":
        assert res[paper] > res[exact]  # the paper's REB is smaller, so scores are higher
    else:
        assert res[paper] == res[exact]


# --- behaviour on hand-built topics -----------------------------------------------------------------


def _frames():
    qrels = pd.DataFrame(
        {
            "query_id": ["q1"] * 4 + ["q2"] * 3 + ["q3"] * 2,
            "doc_id": ["a", "b", "c", "d", "a", "b", "c", "a", "b"],
            "relevance": [1, 0, 0, 0, 0, 0, 0, 1, 1],
        }
    )
    run = pd.DataFrame(
        {
            "query_id": ["q1", "q1", "q1", "q2", "q2", "q3", "q3", "q9"],
            "doc_id": ["b", "a", "zz", "a", "b", "a", "b", "a"],
            "score": [3.0, 2.0, 1.0, 2.0, 1.0, 2.0, 1.0, 1.0],
        }
    )
    return qrels, run


def test_known_values_and_edge_cases_end_to_end():
    qrels, run = _frames()
    per = {}
    ms = [AP@2, UE(AP@2), UE(AP@2, variant="V2"), UE(AP@2, variant="V2", pool="run")]
    ms.append(UE(Prec@5, variant="V2"))
    for metric in ir_measures.iter_calc(ms, qrels, run):
        per[(str(metric.measure), metric.query_id)] = metric.value
    # q1: one relevant among 4 judged, found at rank 2: AP@2 = 1/2; E[SP@2] = (1/4)(1 + 1/2) = 3/8
    assert per[("AP@2", "q1")] == 0.5
    assert per[("UE(AP@2)", "q1")] == pytest.approx(0.5 * 0.5 / (0.5 + 0.375))
    assert per[("UE(AP@2,variant='V2')", "q1")] == pytest.approx((0.5 - 0.375) / (1 - 0.375))
    # pool='run' for q1: {b, a, zz}, zz unjudged: E[SP@2] = (1/3)(1 + 1/2)
    assert per[("UE(AP@2,variant='V2',pool='run')", "q1")] == pytest.approx((0.5 - 0.5) / (1 - 0.5))
    # q2 has no relevant document: every variant is 0, as the base measure
    assert all(per[(str(m), "q2")] == 0.0 for m in ms)
    # q3: every judged document relevant -> every ordering is ideal: V1 = 1/2, V2 = 0
    assert per[("UE(AP@2)", "q3")] == pytest.approx(0.5)
    assert per[("UE(AP@2,variant='V2')", "q3")] == 0.0
    # P@5 with k > pool: q3 retrieves both relevant -> IUB = REB = 2/5, V2 = 0
    assert per[("UE(P@5,variant='V2')", "q3")] == 0.0
    # q9 is not in the qrels: not reported, as for the base measure
    assert not any(q == "q9" for _, q in per)


def test_topic_missing_from_run_scores_as_empty_ranking():
    qrels, run = _frames()
    run = run[run["query_id"] != "q1"]
    metrics = ir_measures.iter_calc([UE(AP@2), UE(AP@2, variant="V2")], qrels, run)
    res = {m.measure: m.value for m in metrics if m.query_id == "q1"}
    assert res == {UE(AP@2): 0.0, UE(AP@2, variant="V2"): -1.0}


def test_calc_aggregate_iter_calc_and_evaluator_agree():
    qrels, run = _frames()
    m = UE(nDCG@3, variant="V2")
    per = [x.value for x in m.iter_calc(qrels, run)]
    assert m.calc_aggregate(qrels, run) == pytest.approx(np.mean(per))
    assert ir_measures.evaluator([m], qrels).calc_aggregate(run)[m] == pytest.approx(np.mean(per))


def test_plain_pyterrier_experiment():
    pt = pytest.importorskip("pyterrier")
    qrels, run = _frames()
    res = run.rename(columns={"query_id": "qid", "doc_id": "docno"})
    topics = pd.DataFrame({"qid": ["q1", "q2", "q3"], "query": ["x", "y", "z"]})
    pt_qrels = qrels.rename(columns={"query_id": "qid", "doc_id": "docno", "relevance": "label"})
    measures = [nDCG@3, UE(nDCG@3), UE(nDCG@3, variant="V2")]
    table = pt.Experiment([res], topics, pt_qrels, eval_metrics=measures, names=["sys"])
    expected = ir_measures.calc_aggregate(measures, qrels, run[run["query_id"] != "q9"])
    for m in measures:
        assert table.loc[0, str(m)] == pytest.approx(expected[m])


def test_measure_module_constants_match_the_numeric_core_and_import_stays_light():
    import subprocess
    import sys

    from pyterrier_risk.core import _ue as _ue
    from pyterrier_risk.measures import _ue as _ue_measure

    assert (_ue_measure.BASES, _ue_measure.VARIANTS, _ue_measure.REB_MODES) == (
        _ue.BASES,
        _ue.VARIANTS,
        _ue.REB_MODES,
    )
    # the measure is imported by `import pyterrier_risk`; the numeric core (numpy, pandas) loads on first use
    code = "import sys, pyterrier_risk.measures._ue; print('pyterrier_risk.core._ue' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["False"]


def test_repeated_judgements_count_once_and_a_repeated_retrieval_is_refused():
    qrels, run = _frames()
    doubled_qrels = pd.concat([qrels, qrels.iloc[[0, 1]]]).sort_values(["query_id", "doc_id"], kind="stable")
    measures = [UE(AP@2, variant="V2"), UE(AP@2, variant="V2", pool="run")]
    assert ir_measures.calc_aggregate(measures, doubled_qrels, run) == pytest.approx(
        ir_measures.calc_aggregate(measures, qrels, run)
    )
    # the run policy of read_run (issue 21): a (qid, docno) pair listed twice is an error, not merged
    doubled_run = pd.concat([run, run.iloc[[0]]])
    with pytest.raises(ValueError, match=r"the run evaluated by UE\(.*\): document '.*' is listed twice"):
        ir_measures.calc_aggregate(measures, qrels, doubled_run)


@given(
    labels=st.lists(st.sampled_from([-1, 0, 0, 1, 2]), min_size=1, max_size=12),
    retrieved=st.lists(st.integers(0, 15), min_size=0, max_size=14, unique=True),
    base=st.sampled_from([nDCG@5, nDCG(judged_only=True)@3, AP@5, AP(rel=2), Prec@3, R@5, RR, RR@3]),
    pool=st.sampled_from(["qrels", "run"]),
)
@settings(max_examples=60, deadline=None)
def test_any_run_scores_within_the_variant_ranges(labels, retrieved, base, pool):
    """Random judged pools and runs (with unjudged documents, i >= len(labels)) through ir_measures."""
    docs = [f"d{i}" for i in range(len(labels))]
    qrels = pd.DataFrame({"query_id": "q", "doc_id": docs, "relevance": labels})
    run = pd.DataFrame(
        {"query_id": "q", "doc_id": [f"d{i}" for i in retrieved], "score": np.arange(len(retrieved), 0, -1.0)}
    )
    res = ir_measures.calc_aggregate([UE(base, pool=pool), UE(base, variant="V2", pool=pool)], qrels, run)
    v1, v2 = res[UE(base, pool=pool)], res[UE(base, variant="V2", pool=pool)]
    assert 0.0 <= v1 <= 1.0 and -1.0 <= v2 <= 1.0


def test_unquoted_nested_base_parses_with_the_package_parser():
    # stock ir_measures only takes literal values (so the canonical name quotes the base);
    # pyterrier_risk.parse_measure reads nested measures, by keyword or positionally, as in Python
    from pyterrier_risk import parse_measure

    assert parse_measure("UE(base=nDCG@10)") == UE(nDCG@10)
    m = parse_measure("UE(base=nDCG(gains={0:0,1:1,2:3}), variant='V2')@10")
    assert m == UE(nDCG(gains={0: 0, 1: 1, 2: 3})@10, variant="V2")
    with pytest.raises(ValueError):
        ir_measures.parse_measure("UE(nDCG@10)")  # a positional base: not the stock parser
    spellings = ["UE(nDCG@10)", "UE(base='nDCG@10')", "UE(base='nDCG')@10", "UE(ndcg_cut_10)"]
    spellings.append("UE(base=nDCG)@10")
    for text in spellings:
        assert parse_measure(text) == UE(nDCG@10) == UE(base="nDCG@10")
        assert parse_measure(text).base == nDCG@10
    assert parse_measure("UE(AP(rel=2)@5,variant='V2')") == UE(AP(rel=2)@5, variant="V2")


def test_one_wrapped_measure_design_for_ue_and_the_risk_measures():
    from pyterrier_risk import URisk, parse_measure
    from pyterrier_risk.measures import RiskMeasure

    for wrapped in [UE(nDCG@10, variant="V2"), URisk(nDCG@10, alpha=2)]:
        assert wrapped.base == nDCG@10  # a Measure, with its cutoff
        assert parse_measure(repr(wrapped)) == wrapped
        assert type(wrapped)(base="nDCG@10", **{k: v for k, v in wrapped.params.items() if k not in
                                               ("base", "cutoff")}) == wrapped
        assert wrapped(AP@5).base == AP@5  # a new base (positional) replaces the old one, cutoff too
        with pytest.raises(TypeError, match="unknown parameter"):
            wrapped(nope=1)
        with pytest.raises(TypeError, match="given twice"):
            wrapped(AP, base=AP)
    assert not isinstance(UE, RiskMeasure)
    assert URisk(UE(nDCG@10)).base == UE(nDCG@10)  # UE is a per-topic measure: a valid risk base
    for bare in (UE, URisk):
        with pytest.raises(ValueError, match="no base measure"):
            bare.base  # noqa: B018


# ----------------------------------------------- a judged pool without non-relevant documents warns
def _judged(labels_by_topic):
    rows = [(q, f"{q}-{i}", lab) for q, labels in labels_by_topic.items() for i, lab in enumerate(labels)]
    qrels = pd.DataFrame(rows, columns=["query_id", "doc_id", "relevance"])
    run = pd.DataFrame({"query_id": qrels["query_id"], "doc_id": qrels["doc_id"],
                        "score": np.arange(len(qrels), 0, -1, dtype=float)})
    return qrels, run


@pytest.mark.parametrize(
    ("measure", "labels", "flagged"),
    [
        # Vaswani-like qrels: only relevant documents listed, on two of three topics
        (UE(nDCG@10, variant="V2"), {"a": [1, 1, 1], "b": [1, 2], "c": [1, 0]}, 2),
        (UE(AP@5), {"a": [1, 1, 1], "b": [1, 2], "c": [1, 0]}, 2),
        # non-relevant as the base sees it: label 1 is below rel=2, and a gain mapped to 0 is no gain
        (UE(AP(rel=2)@5), {"a": [1, 2], "b": [2, 2]}, 1),
        (UE(nDCG(gains={0: 0, 1: 0, 2: 1})@5), {"a": [1, 2], "b": [2, 2]}, 1),
        (UE(RR), {"a": [-1, 1], "b": [0, 0]}, 0),  # a negative label is non-relevant; b has no relevant one
    ],
    ids=str,
)
def test_a_judged_pool_without_non_relevant_documents_warns(measure, labels, flagged):
    qrels, run = _judged(labels)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        values = {m.query_id: m.value for m in measure.iter_calc(qrels, run)}
        by_run = {m.query_id: m.value for m in UE(**{**measure.params, "pool": "run"}).iter_calc(qrels, run)}
    messages = [str(w.message) for w in caught if "judged documents are all relevant" in str(w.message)]
    if flagged:
        assert messages == [
            f"{measure}: on {flagged} of {len(labels)} topics the judged documents are all relevant (qrels "
            "that list only relevant documents?), so a random ordering of them is ideal and UE cannot "
            "credit any ranking there; use pool='run' (docs/ue.md, 'Which pool?')"
        ]
    else:
        assert messages == []
    assert len(values) == len(by_run) == len(labels)


def test_all_relevant_pool_gives_v2_equal_to_the_base_minus_one():
    # the case: every judged document relevant, so REB = IUB and V2 = (A - IUB) / IUB = A/IUB - 1
    qrels, run = _judged({"a": [1] * 6})
    run = run.iloc[[0, 2]].assign(doc_id=["a-0", "x"])  # one relevant found at rank 1, one miss
    with pytest.warns(UserWarning, match="1 of 1 topics"):
        v2 = UE(nDCG@10, variant="V2").calc_aggregate(qrels, run)
    ndcg = (nDCG@10).calc_aggregate(qrels, run)
    assert v2 == pytest.approx(ndcg - 1.0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # pool='run' does not warn
        by_run = UE(nDCG@10, variant="V2", pool="run").calc_aggregate(qrels, run)
    assert by_run > v2
