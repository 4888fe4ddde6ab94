"""Measure objects: parameters, canonical repr, parsing, and URisk inside plain pt.Experiment."""

from __future__ import annotations

import re
import warnings

import ir_measures
import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from ir_measures import AP, ERR, P, nDCG

import pyterrier_risk as pr
from pyterrier_risk import parse_measure
from pyterrier_risk.core import TopicPolicyWarning
from pyterrier_risk.measures import RiskMeasure

GDEVAL_NDCG = nDCG(gains={-2: 0, 0: 0, 1: 1, 2: 3, 3: 7, 4: 15}) @ 20


# -- small hand-checked collection: 3 topics ------------------------------------------------------
QRELS = pd.DataFrame(
    {"qid": ["1", "1", "2", "2", "3"], "docno": ["a", "b", "a", "c", "d"], "label": [1, 0, 2, 1, 1]}
)
TOPICS = pd.DataFrame({"qid": ["1", "2", "3"], "query": ["x", "y", "z"]})


def make_run(rows: list[tuple[str, str, float]]) -> pd.DataFrame:
    run = pd.DataFrame(rows, columns=["qid", "docno", "score"])
    return run.assign(rank=run.groupby("qid").cumcount())


# AP per topic: SYS = (1, 1, 1); BASE = (0.5, 1, 0) and BASE has no result for topic 3
SYS = make_run([("1", "a", 2), ("1", "b", 1), ("2", "c", 2), ("2", "a", 1), ("3", "d", 1)])
BASE = make_run([("1", "b", 2), ("1", "a", 1), ("2", "a", 2), ("2", "c", 1)])
WORSE = make_run([("1", "b", 2), ("1", "a", 1), ("2", "c", 2), ("2", "a", 1), ("3", "x", 1)])


def test_names_params_and_descriptions():
    for m, name in [(pr.URisk, "URisk"), (pr.TRisk, "TRisk"), (pr.ZRisk, "ZRisk"), (pr.GeoRisk, "GeoRisk")]:
        assert isinstance(m, ir_measures.Measure) and isinstance(m, RiskMeasure)
        assert m.NAME == name and ir_measures.measures.registry[name] is m
        assert {"base", "alpha"} <= set(m.SUPPORTED_PARAMS)
        assert all(p.desc for p in m.SUPPORTED_PARAMS.values())
    assert set(pr.TRisk.SUPPORTED_PARAMS) == {"base", "alpha", "baseline", "pool", "se"}
    assert "baseline" not in pr.ZRisk.SUPPORTED_PARAMS


def test_canonical_repr_is_order_independent():
    a = pr.URisk(nDCG @ 20, alpha=5, baseline="BM25")
    b = pr.URisk(baseline="BM25", alpha=5.0)(nDCG @ 20)
    c = pr.URisk(base=nDCG @ 20)(baseline="BM25", alpha=5)
    assert repr(a) == repr(b) == repr(c) == "URisk(nDCG@20,alpha=5,baseline='BM25')"
    assert a == b == c and hash(a) == hash(b)
    assert repr(pr.URisk(AP, alpha=0)) == "URisk(AP)"  # defaults omitted
    assert repr(pr.URisk(AP, alpha=0.5)) == "URisk(AP,alpha=0.5)"
    assert repr(pr.TRisk(AP, se="parametric")) == "TRisk(AP)"
    assert repr(pr.TRisk(AP, se="jackknife", baseline=2)) == "TRisk(AP,baseline=2,se='jackknife')"
    assert repr(pr.URisk(AP, baseline="mean", pool=["a", "b"])) == "URisk(AP,baseline='mean',pool=('a','b'))"
    assert repr(pr.GeoRisk(ERR @ 20, alpha=10)) == "GeoRisk(ERR@20,alpha=10)"
    assert pr.URisk(AP, alpha=1) != pr.URisk(AP, alpha=2)
    assert pr.URisk(AP) != pr.TRisk(AP)
    assert pr.URisk(AP, alpha=3).alpha == 3.0 and pr.URisk(AP).alpha == 0.0
    assert pr.URisk(AP, baseline=None, pool=None) == pr.URisk(AP)  # None = not given
    pr.URisk(AP, baseline=None, pool=None).validate_params()


@pytest.mark.parametrize(
    "measure",
    [
        pr.URisk(nDCG @ 20, alpha=5, baseline="BM25"),
        pr.URisk(GDEVAL_NDCG, alpha=1, baseline=0),
        pr.TRisk(ERR @ 20, alpha=10, baseline="mean", pool=("a", "b"), se="jackknife"),
        pr.ZRisk(AP, alpha=1),
        pr.GeoRisk(P(rel=2) @ 5, alpha=0.25),
        pr.URisk(nDCG(dcg="exp-log2") @ 10, baseline="max"),
    ],
)
def test_repr_round_trips_through_parse_measure(measure):
    parsed = parse_measure(repr(measure))
    assert parsed == measure and type(parsed) is type(measure)
    assert parsed.base == measure.base


def test_parse_accepted_spellings():
    expected = pr.URisk(nDCG @ 20, alpha=5, baseline="BM25")
    for text in [
        "URisk(nDCG@20,alpha=5,baseline='BM25')",
        "URisk(nDCG@20, baseline='BM25', alpha=5.0)",
        "URisk(base='nDCG@20',alpha=5,baseline='BM25')",  # keyword + string form
        "URisk(base=nDCG@20,alpha=5,baseline='BM25')",
        "URisk(ndcg_cut_20,alpha=5,baseline='BM25')",  # trec_eval names inside
        "URisk(ndcg_cut.20,alpha=5,baseline='BM25')",
        "URisk(base='ndcg_cut_20',alpha=5,baseline='BM25')",
    ]:
        assert parse_measure(text) == expected
    # the stock parser alone accepts the keyword form with the base as a string (the measures are
    # registered through ir_measures' public register)
    assert ir_measures.parse_measure("URisk(base='nDCG@20',alpha=5,baseline='BM25')") == expected
    # negative labels in a gains dict (not accepted by the stock parser)
    m = parse_measure("TRisk(nDCG(gains={-2:0,0:0,1:1,2:3,3:7,4:15})@20,baseline=0)")
    assert m.base == GDEVAL_NDCG and m.baseline == 0


@pytest.mark.parametrize("text", ["nDCG@10", "AP", "P(rel=2)@5", "ERR@20", "nDCG(dcg='exp-log2')@10"])
def test_parse_measure_agrees_with_ir_measures_on_its_names(text):
    assert parse_measure(text) == ir_measures.parse_measure(text)


@pytest.mark.parametrize(
    "text", ["ndcg_cut_10", "ndcg_cut.10", "P.10", "P_5", "map", "recip_rank", "ndcg", "iprec_at_recall_0.10"]
)
def test_parse_measure_reads_trec_eval_names(text):
    (expected,) = ir_measures.parse_trec_measure(text)
    assert parse_measure(text) == expected
    assert parse_measure(f"TRisk({text},alpha=5)") == pr.TRisk(expected, alpha=5)
    if expected.NAME in ("nDCG", "AP", "P", "RR"):
        assert parse_measure(f"UE({text})") == pr.UE(expected)


STOCK_NAMES = """AP AP@10 AP(rel=2) AP(rel=2)@10 nDCG nDCG@20 nDCG@5.0 nDCG(dcg='exp-log2')@10
nDCG(judged_only=True)@10 nDCG(gains={0:0,1:1,2:3})@20 P@5 P(rel=2)@10 R@100 RR RR(rel=2) RR@10
ERR@20 ERR Judged@10 NumRet NumRet(rel=1) NumRel NumQ NumRelRet IPrec@0.5 Rprec SetP SetR SetF
SetAP Success@10 Bpref infAP alpha_nDCG@20 alpha_nDCG(alpha=0.5)@20 NERR8@10 STREC@10
Compat(p=0.8) INSQ INST(T=2) P_5 map ndcg_cut_20 ndcg_cut.20 AP(judged_only=True) Accuracy@5
SDCG@10 P( AP() AP@ Foo@5 AP@5@6 P@-1 nDCG@+5 nDCG@-5 P@1e3 R@'x' nDCG(gains={'a':1})@5
AP(rel=True) 5 [] AP+P nDCG@(5) nDCG(AP) URisk(AP)@5 nDCG(x=1)""".split()
# the only names whose parse changes: the measures registered through ir_measures' public register
ADDED = {"URisk", "URisk(base='AP')", "UE(base='nDCG')@10"}
REGISTERED = ("URisk", "TRisk", "ZRisk", "GeoRisk", "UE")

_PARSE_ALL = r"""
import json, sys, ir_measures, ir_measures.util
parsers = ("parse_measure", "parse_trec_measure")
before = [getattr(m, p) for m in (ir_measures, ir_measures.util) for p in parsers]
if sys.argv[1] == "with":
    import pyterrier_risk
    pyterrier_risk.parse_measure("URisk(nDCG@20,alpha=5)"), pyterrier_risk.UE  # and its lazy parts
after = [getattr(m, p) for m in (ir_measures, ir_measures.util) for p in parsers]
out = {"untouched": all(a is b for a, b in zip(before, after, strict=True))}
for name in json.loads(sys.argv[2]):
    for fn in parsers:
        try:
            value = getattr(ir_measures, fn)(name)
            has = hasattr(value, "params")
            params = sorted(value.params.items(), key=str) if has else [repr(v) for v in value]
            out[fn + ":" + name] = f"OK {value!r} {params!r}"
        except Exception as e:
            out[fn + ":" + name] = f"{type(e).__name__} {e}"
print(json.dumps(out))
"""


def test_import_leaves_ir_measures_parsers_untouched():
    """Fresh interpreters without and with pyterrier_risk: the same parser functions (identity), the
    same measures and errors, except the names of the measures registered through ir_measures' register."""
    import json
    import subprocess
    import sys

    names = [*STOCK_NAMES, *ADDED]
    runs = {
        mode: json.loads(
            subprocess.run(
                [sys.executable, "-c", _PARSE_ALL, mode, json.dumps(names)],
                capture_output=True, text=True, check=True,
            ).stdout
        )
        for mode in ("without", "with")
    }  # fmt: skip
    assert runs["without"].pop("untouched") is True and runs["with"].pop("untouched") is True
    changed = {key for key in runs["without"] if runs["without"][key] != runs["with"][key]}
    # a registered name with positional args fails either way (now with the stock parser's words)
    reworded = {k for k in changed if k.split(":", 1)[1].startswith(REGISTERED)}
    reworded = {k for k in reworded if not runs["with"][k].startswith("OK")}
    assert {k.split(":", 1)[1] for k in changed - reworded} == ADDED
    assert all(not runs["without"][k].startswith("OK") for k in reworded)
    for name in ADDED:
        assert runs["with"][f"parse_measure:{name}"].startswith("OK ")
    assert "args must be named" in runs["with"]["parse_measure:URisk(AP)@5"]  # the stock parser's own error


@pytest.mark.parametrize(
    ("text", "error", "match"),
    [
        ("URisk(nDCG@20,alpha=-1)", ValueError, "alpha must be a finite number >= 0"),
        ("URisk(Foo@20)", NameError, "Foo"),
        ("URisk(nDCG@20,beta=1)", TypeError, "unknown parameter"),
        ("URisk(nDCG@20,AP)", ValueError, "positional"),
        ("nDCG(AP)", ValueError, "args must be named"),  # stock error kept for ordinary measures
        ("Nope@3", NameError, "Nope"),
        ("URisk(nDCG@20", ValueError, "pars"),
    ],
)
def test_parse_errors(text, error, match):
    parser = ir_measures.parse_measure if text == "nDCG(AP)" else parse_measure
    with pytest.raises(error, match=match):
        parser(text)


@pytest.mark.parametrize(
    ("text", "match"),
    [
        ("URisk(Foo@20)", r"^cannot parse measure 'URisk\(Foo@20\)': unknown measure 'Foo'"),
        ("TRisk(ndcg_cut_1O)", "unknown measure 'ndcg_cut_1O'"),
        ("Nope", "unknown measure 'Nope'"),
        ("nDCG(AP)", "only the base of a risk measure or UE may be positional"),
        ("ndcg_cut_10,20", "names 2 measures"),
        ("", "empty name"),
        ("nDCG@0", r"cutoff must be >= 1"),
        ("ndcg_cut_0", r"'ndcg_cut_0', read as nDCG@0: the cutoff must be >= 1"),
        ("TRisk(P.0)", r"TRisk: invalid base measure P@0: the cutoff must be >= 1"),
        ("UE(base='nDCG')@0", r"cutoff must be >= 1"),
        ("P@2.5", r"invalid measure P@2.5: invalid param cutoff=2.5"),
        ("P@5.0", r"invalid measure P@5.0: invalid param cutoff=5.0"),  # in a base: made P@5
        ("nDCG(x=1)@5", r"unsupported parameter\(s\) \['x'\]"),
        ("URisk(P)", r"the parameter cutoff is required \(e.g. P@10\)"),
    ],
)
def test_parse_measure_errors_are_one_line_value_errors_naming_the_problem(text, match):
    with pytest.raises(ValueError, match=match) as caught:
        parse_measure(text)
    assert "\n" not in str(caught.value)
    # a measure without its cutoff parses, as in ir_measures (UE(base='P')@10 gives it outside)
    assert parse_measure("P") == ir_measures.parse_measure("P")


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"alpha": -0.5}, ValueError, "alpha"),
        ({"alpha": float("nan")}, ValueError, "alpha"),
        ({"alpha": float("inf")}, ValueError, "alpha"),
        ({"alpha": True}, TypeError, "alpha"),
        ({"alpha": "5"}, TypeError, "alpha"),
        ({"baseline": -1}, ValueError, "index"),
        ({"baseline": 1.5}, TypeError, "baseline"),
        ({"baseline": ""}, ValueError, "empty"),
        ({"baseline": pd.DataFrame({"qid": ["1"]})}, ValueError, "columns"),
        ({"pool": ["a"]}, ValueError, "aggregate baseline"),
        ({"baseline": "mean", "pool": []}, TypeError, "pool"),
        ({"nope": 1}, TypeError, "unknown parameter"),
    ],
)
def test_bad_parameters(kwargs, error, match):
    with pytest.raises(error, match=match):
        pr.URisk(AP, **kwargs)


def test_bad_base_and_se():
    with pytest.raises(TypeError, match="base must be an ir_measures measure"):
        pr.URisk(42)
    with pytest.raises(TypeError, match="cannot itself be a risk measure"):
        pr.URisk(pr.URisk(AP))
    with pytest.raises(NameError):
        pr.URisk("NotAMeasure@5")
    with pytest.raises(ValueError, match="se must be"):
        pr.TRisk(AP, se="bootstrap")
    with pytest.raises(ValueError, match="no base measure"):
        pr.URisk(alpha=1).base  # noqa: B018
    with pytest.raises(TypeError, match="given twice"):
        pr.URisk(AP)(AP, base=AP)


# -- URisk against an external run, inside ir_measures and plain pt.Experiment ---------------------
def _urisk_by_hand(sys_ap, base_ap, alpha):
    d = np.asarray(sys_ap) - np.asarray(base_ap)
    return float(np.mean(np.where(d < 0, (1 + alpha) * d, d)))


def test_urisk_external_run_in_ir_measures_and_pt_experiment():
    import pyterrier as pt

    # per-topic AP: SYS (1, 1, 1), WORSE (0.5, 1, 0), BASE (0.5, 1, missing -> 0)
    m = pr.URisk(AP, alpha=2, baseline=BASE)
    with pytest.warns(TopicPolicyWarning, match="1 of the 3 qrels topics"):
        res = pt.Experiment([SYS, WORSE], TOPICS, QRELS, [AP, m], names=["sys", "worse"])
    res = res.set_index("name")
    assert res.loc["sys", repr(m)] == pytest.approx(_urisk_by_hand([1, 1, 1], [0.5, 1, 0], 2))
    assert res.loc["worse", repr(m)] == pytest.approx(0.0)
    # the same through ir_measures directly and through pyterrier_risk.Experiment
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", TopicPolicyWarning)
        agg = ir_measures.calc_aggregate([m], pt.model.to_ir_measures(QRELS), pt.model.to_ir_measures(SYS))
        ours = pr.Experiment([SYS, WORSE], TOPICS, QRELS, [m], names=["sys", "worse"]).set_index("name")
    assert agg[m] == pytest.approx(0.5)
    assert ours.loc["sys", repr(m)] == pytest.approx(0.5)
    assert ours.loc["worse", repr(m)] == pytest.approx(0.0)


def test_urisk_external_run_file(tmp_path):
    import pyterrier as pt

    path = tmp_path / "base.run"
    path.write_text("".join(f"{q} Q0 {d} {r} {s} base\n" for q, d, s, r in BASE.itertuples(index=False)))
    m = pr.URisk(AP, alpha=1, baseline=str(path))
    assert repr(m) == f"URisk(AP,alpha=1,baseline={str(path)!r})"
    with pytest.warns(TopicPolicyWarning):
        res = pt.Experiment([SYS], TOPICS, QRELS, [m], names=["sys"])
    assert res[repr(m)].iloc[0] == pytest.approx(0.5)


def test_non_decomposable_measures_fail_clearly_in_pt_experiment():
    import pyterrier as pt

    measures = [pr.TRisk(AP, baseline=BASE), pr.ZRisk(AP)]
    measures += [pr.URisk(AP, baseline="BM25"), pr.URisk(AP, baseline=0)]
    for m in measures:
        with pytest.raises(ValueError, match="pyterrier_risk.Experiment"):
            pt.Experiment([SYS], TOPICS, QRELS, [m], names=["sys"])


def test_dataframe_baseline_repr_identifies_content():
    a = pr.URisk(AP, baseline=BASE)
    b = pr.URisk(AP, baseline=BASE.copy())
    c = pr.URisk(AP, baseline=SYS)
    assert a == b and a != c
    assert repr(a).startswith("URisk(AP,baseline='<run ")


@settings(max_examples=25, deadline=None)
@given(
    st.lists(st.tuples(st.floats(0, 1), st.floats(0, 1)), min_size=1, max_size=6),
    st.floats(0, 20),
)
def test_urisk_runtime_equals_mean_of_weighted_differences(pairs, alpha):
    """Property: URisk through ir_measures = numpy mean of α-weighted per-topic AP differences."""
    # topic t has one relevant doc "r"; a run places it at rank 1 or 2 according to the draw
    qrels = pd.DataFrame({"query_id": [str(t) for t in range(len(pairs))], "doc_id": "r", "relevance": 1})

    def run(k):
        rows = []
        for t, pair in enumerate(pairs):
            first = pair[k] >= 0.5
            rows += [(str(t), "r", 2.0 if first else 1.0), (str(t), "n", 1.0 if first else 2.0)]
        return pd.DataFrame(rows, columns=["query_id", "doc_id", "score"])

    sys_run, base_run = run(0), run(1)
    ap = [[1.0 if p[k] >= 0.5 else 0.5 for p in pairs] for k in (0, 1)]
    m = pr.URisk(AP, alpha=alpha, baseline=base_run.rename(columns={"query_id": "qid", "doc_id": "docno"}))
    got = ir_measures.calc_aggregate([m], qrels, sys_run)[m]
    assert got == pytest.approx(_urisk_by_hand(ap[0], ap[1], alpha))
    assert got == pytest.approx(pr.urisk(np.array(ap[0]), np.array(ap[1]), alpha))


def test_pt_risk_namespace():
    import pyterrier as pt

    assert pt.risk.URisk is pr.URisk
    assert pt.risk.Experiment is pr.Experiment


@settings(max_examples=60, deadline=None)
@given(
    kind=st.sampled_from([pr.URisk, pr.TRisk]),
    alpha=st.floats(0, 1e6, allow_nan=False),
    baseline=st.one_of(
        st.text(min_size=1, max_size=12), st.integers(0, 50), st.sampled_from(["mean", "max"])
    ),
    base=st.sampled_from([AP, nDCG @ 10, ERR @ 20, GDEVAL_NDCG, P(rel=2) @ 5]),
)
def test_repr_parse_round_trip_property(kind, alpha, baseline, base):
    m = kind(base, alpha=alpha, baseline=baseline)
    parsed = parse_measure(repr(m))
    assert parsed == m and parsed.alpha == m.alpha and parsed.baseline == m.baseline


def test_integral_float_cutoff_of_the_base_is_canonical():
    assert pr.URisk(nDCG @ 20.0, alpha=5.0) == pr.URisk(nDCG @ 20, alpha=5)
    assert repr(pr.GeoRisk(nDCG @ 20.0)) == "GeoRisk(nDCG@20)"
    assert parse_measure("TRisk(nDCG@20.0,alpha=1.0)") == pr.TRisk(nDCG @ 20, alpha=1)
    assert repr(pr.URisk(ir_measures.IPrec @ 1.0)) == "URisk(IPrec@1.0)"  # a float parameter stays float
    with pytest.raises(ValueError, match=r"invalid base measure P@2.5: invalid param cutoff=2.5"):
        pr.URisk(P @ 2.5)  # ir_measures' own check, now rather than when evaluating


# -- alpha in a measure name: the core's check, as --alpha (issue 14) -------------------------------------

@pytest.mark.parametrize("text", ["TRisk(AP,alpha=nan)", "TRisk(AP,alpha=inf)", "URisk(AP,alpha=-inf)",
                                  "URisk(AP,alpha=NaN)", "ZRisk(AP,alpha=1e309)"])
def test_non_finite_alpha_in_a_name_is_refused_by_the_alpha_check(text):
    with pytest.raises(ValueError, match=r"alpha must be a finite number >= 0 \(the risk sensitivity\), got "
                                         r"(nan|inf|-inf)$"):
        parse_measure(text)


def test_huge_finite_alpha_in_a_name_passes_every_check():
    from pyterrier_risk.measures import parameter_problems

    measure = parse_measure("TRisk(AP,alpha=1e308)")
    assert measure.alpha == 1e308 and list(parameter_problems(measure)) == []
    # other parameters keep the overflow guard, with a message that says what is wrong
    gains = parse_measure("nDCG(gains={0:0,1:1e308})@5")
    assert list(parameter_problems(gains)) == [
        "nDCG(gains={1:1e+308})@5: gains={0: 0, 1: 1e+308} is too large (2^1023 or more: its sums "
        "overflow float64)"]
    with pytest.raises(ValueError, match=r"baseline=BM25 is not a value \(a number, or a name in quotes: "
                                         r"baseline='BM25'\)"):
        parse_measure("URisk(AP,baseline=BM25)")


def test_dataframe_baseline_is_named_by_its_run_name():
    """Issue 16: an external run read by pr.read_run shows its name, not only a digest."""
    named = BASE.assign(name="bm25")
    m = pr.URisk(AP, alpha=5, baseline=named)
    assert re.fullmatch(r"URisk\(AP,alpha=5,baseline='<run bm25 [0-9a-f]{8}>'\)", repr(m))
    assert m != pr.URisk(AP, alpha=5, baseline=named.assign(score=named["score"] * 2 + 1))  # content counts
    assert re.fullmatch(r"URisk\(AP,baseline='<run [0-9a-f]{8}>'\)", repr(pr.URisk(AP, baseline=BASE)))
    for odd in ("it's", " "):  # a name that would break the quoted name is left out
        assert "<run " + odd not in repr(pr.URisk(AP, baseline=BASE.assign(name=odd)))
