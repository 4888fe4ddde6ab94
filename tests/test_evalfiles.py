"""Evaluation files as input: ``trec_eval -q`` and ``gdeval.pl`` readers, ``eval_matrix``, and on real
data (TREC-7, 19 runs) the risk values from the reference gdeval per-topic file against those from
the runs evaluated by ir_measures."""

from __future__ import annotations

import bz2
import gzip
import lzma
import re
import warnings

import numpy as np
import pandas as pd
import pytest
from helpers import data_path
from ir_measures import AP, ERR, P, nDCG

import pyterrier_risk as pr
from pyterrier_risk import parse_measure
from pyterrier_risk.data import EVAL_COLUMNS, eval_matrix, read_eval_file, read_gdeval, read_trec_eval


def trec_eval_lines(runid: str, per_topic: dict[str, dict[str, str]], summary: dict[str, str]) -> str:
    """Text laid out as trec_eval 9 prints ``-q`` output: '%-22s\\t%s\\t%s', the topic lines first."""
    lines = [f"{m:<22}\t{qid}\t{v}" for qid, values in per_topic.items() for m, v in values.items()]
    lines += [f"{'runid':<22}\tall\t{runid}"] + [f"{m:<22}\tall\t{v}" for m, v in summary.items()]
    return "\n".join(lines) + "\n"


BM25 = {
    "401": {"num_ret": "1000", "num_rel_ret": "12", "map": "0.2500", "P_10": "0.3000",
            "ndcg_cut_20": "0.4123", "11pt_avg": "0.2702", "relstring": "1010000000"},
    "402": {"num_ret": "1000", "num_rel_ret": "3", "map": "0.0625", "P_10": "0.1000",
            "ndcg_cut_20": "0.1500", "11pt_avg": "0.0800", "relstring": "0000000001"},
}
BM25_SUMMARY = {"num_q": "2", "map": "0.1562", "gm_map": "0.1250", "P_10": "0.2000"}
QL = {"401": {"map": "0.3000", "P_10": "0.5000", "ndcg_cut_20": "0.5000"},
      "403": {"map": "0.1000", "P_10": "0.0000", "ndcg_cut_20": "0.0000"}}

GD20, GD10 = "nDCG(dcg='exp-log2')@20", "nDCG(dcg='exp-log2')@10"  # gdeval's ndcg@k, by definition
GDEVAL = """runid,topic,ndcg@20,err@20
bm25,401,0.41230,0.15536
bm25,402,0.15000,0.06261
bm25,amean,0.28115,0.10899
"""
GDEVAL_QL = """runid,topic,ndcg@20,err@20
ql,401,0.50000,0.20000
ql,403,0.00000,0.00000
ql,amean,0.25000,0.10000
"""


def write(tmp_path, name: str, text: str, *, encoding: str = "utf-8", newline: str = "\n", gz: bool = False,
          compress=None):
    path = tmp_path / name
    data = text.replace("\n", newline).encode(encoding)
    compress = gzip.compress if gz else compress
    path.write_bytes(compress(data) if compress else data)
    return path


# -- trec_eval ---------------------------------------------------------------------------------------
def test_trec_eval_per_topic_values_and_ir_measures_names(tmp_path):
    path = write(tmp_path, "bm25.treceval", trec_eval_lines("BM25", BM25, BM25_SUMMARY))
    frame = read_trec_eval(path)
    assert list(frame.columns) == list(EVAL_COLUMNS)
    assert set(frame["name"]) == {"BM25"}  # from the runid line
    assert "all" not in set(frame["qid"]) and "relstring" not in set(frame["file_measure"])
    names = dict(zip(frame["file_measure"], frame["measure"], strict=False))
    assert names == {"num_ret": "NumRet", "num_rel_ret": "NumRet(rel=1)", "map": "AP", "P_10": "P@10",
                     "ndcg_cut_20": "nDCG@20", "11pt_avg": "11pt_avg"}  # 11pt_avg: no ir_measures name
    expected = [(qid, m, float(v)) for qid, vals in BM25.items() for m, v in vals.items() if m != "relstring"]
    assert list(zip(frame["qid"], frame["file_measure"], frame["value"], strict=True)) == expected


@pytest.mark.parametrize("request_", ["nDCG@20", "ndcg_cut_20", nDCG @ 20])
def test_trec_eval_measure_by_any_name(tmp_path, request_):
    path = write(tmp_path, "bm25.treceval", trec_eval_lines("BM25", BM25, BM25_SUMMARY))
    frame = read_trec_eval(path, request_)
    assert frame["value"].tolist() == [0.4123, 0.15] and set(frame["measure"]) == {"nDCG@20"}
    both = read_trec_eval(path, ["map", P @ 10])
    assert sorted(set(both["measure"])) == ["AP", "P@10"] and len(both) == 4
    with pytest.raises(ValueError, match=r"bm25.treceval: no measure 'ERR@20' \(found: NumRet, "):
        read_trec_eval(path, "ERR@20")


def test_trec_eval_concatenated_runs_gzip_bom_crlf(tmp_path):
    text = trec_eval_lines("BM25", BM25, BM25_SUMMARY) + trec_eval_lines("QL", QL, {"map": "0.2000"})
    plain = read_trec_eval(write(tmp_path, "all.txt", text))
    assert list(dict.fromkeys(plain["name"])) == ["BM25", "QL"]
    assert plain[plain["name"] == "QL"]["qid"].tolist() == ["401"] * 3 + ["403"] * 3
    for variant in (
        write(tmp_path, "all.txt.gz", text, gz=True),
        write(tmp_path, "all.bz2", text, compress=bz2.compress),
        write(tmp_path, "all.xz", text, compress=lzma.compress),
        write(tmp_path, "bom.txt", text, encoding="utf-8-sig", newline="\r\n"),
    ):
        pd.testing.assert_frame_equal(read_trec_eval(variant), plain)


def test_trec_eval_run_names(tmp_path):
    no_runid = "\n".join(f"map\t{q}\t{v['map']}" for q, v in BM25.items()) + "\n"
    assert set(read_trec_eval(write(tmp_path, "my-bm25.run.treceval", no_runid))["name"]) == {"my-bm25.run"}
    one = write(tmp_path, "one.txt", trec_eval_lines("BM25", BM25, BM25_SUMMARY))
    assert set(read_trec_eval(one, name="renamed")["name"]) == {"renamed"}
    two = write(tmp_path, "two.txt", trec_eval_lines("A", BM25, {}) + trec_eval_lines("B", QL, {}))
    one_run = r"two.txt: name= names one run, but the file has 2 runs \(lines 1, 16\)"
    with pytest.raises(ValueError, match=one_run):
        read_trec_eval(two, name="x")
    same = write(tmp_path, "same.txt", trec_eval_lines("A", BM25, {}) + trec_eval_lines("A", QL, {}))
    with pytest.raises(ValueError, match=r"same.txt:16: a second run named 'A' \(the first starts at line 1"):
        read_trec_eval(same)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("map\t401\t0.25\nmap 402\n", r":2: expected 3 fields 'measure qid value' \(trec_eval -q output"),
        ("map\t401\t0.25\nP_10\t401\tabc\n", r":2: value 'abc' of P_10 for topic '401' is not a number"),
        ("map\t401\tnan\n", r":1: value of map for topic '401' is 'nan'; a per-topic value must be finite"),
        ("map\t401\t-0.1\n", r":1: value of map for topic '401' is negative \(-0.1\)"),
        ("map\t401\t0.1\nP_10\t401\t0.2\nmap\t401\t0.3\n",
         r":3: map of topic '401' is given twice \(first at line 1\)"),
        ("runid\tall\tx\nmap\tall\t0.2\n", r":1: a run without per-topic values \(trec_eval without -q\?\)"),
        ("", r": no per-topic values in the evaluation file"),
    ],
)
def test_trec_eval_malformed_input_names_file_and_line(tmp_path, text, message):
    path = write(tmp_path, "bad.txt", text)
    with pytest.raises(ValueError, match=re.escape(str(path)) + message):
        read_trec_eval(path)


def test_missing_file_and_directory(tmp_path):
    with pytest.raises(FileNotFoundError, match="evaluation file not found"):
        read_trec_eval(tmp_path / "nope.txt")
    with pytest.raises(IsADirectoryError):
        read_gdeval(tmp_path)


# -- gdeval -----------------------------------------------------------------------------------------
def test_gdeval_per_topic_values_amean_dropped(tmp_path):
    frame = read_gdeval(write(tmp_path, "bm25.csv", GDEVAL))
    assert list(frame.columns) == list(EVAL_COLUMNS)
    assert frame[["name", "qid", "measure", "value", "file_measure"]].values.tolist() == [
        ["bm25", "401", GD20, 0.4123, "ndcg@20"], ["bm25", "401", "ERR@20", 0.15536, "err@20"],
        ["bm25", "402", GD20, 0.15, "ndcg@20"], ["bm25", "402", "ERR@20", 0.06261, "err@20"],
    ]
    assert read_gdeval(write(tmp_path, "b.csv", GDEVAL), "ndcg@20")["value"].tolist() == [0.4123, 0.15]
    assert read_gdeval(write(tmp_path, "c.csv", GDEVAL), ERR @ 20)["value"].tolist() == [0.15536, 0.06261]


def test_gdeval_concatenated_outputs_and_k_column(tmp_path):
    text = GDEVAL + GDEVAL_QL + GDEVAL.replace("@20", "@10")
    frame = read_gdeval(write(tmp_path, "all.csv.gz", text, gz=True, encoding="utf-8-sig", newline="\r\n"))
    assert list(dict.fromkeys(frame["name"])) == ["bm25", "ql"]
    assert sorted(set(frame["measure"])) == ["ERR@10", "ERR@20", GD10, GD20]
    derived = "run,k,topic,ndcg@k,err@k\nbm25,10,401,0.5,0.1\nbm25,20,401,0.4,0.2\nbm25,20,amean,0.4,0.2\n"
    frame = read_gdeval(write(tmp_path, "derived.csv", derived))
    assert frame[["measure", "value", "file_measure"]].values.tolist() == [
        [GD10, 0.5, "ndcg@10"], ["ERR@10", 0.1, "err@10"],
        [GD20, 0.4, "ndcg@20"], ["ERR@20", 0.2, "err@20"],
    ]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("bm25,401,0.4,0.1\n", r":1: expected gdeval's header 'runid,topic,ndcg@K,err@K' first"),
        ("runid,ndcg@20,err@20\n", r":1: a gdeval header needs distinct columns 'runid,topic,<measures>'"),
        ("runid,topic\n", r":1: the gdeval header has no measure columns"),
        (GDEVAL + "bm25,403,0.4\n", r":5: expected 4 comma-separated fields, found 3"),
        ("runid,topic,ndcg@20,err@20\nbm25 (rel to. base, rs=1+a, a=1),401,-0.1,0.0\n",
         r":2: gdeval -baseline output \(risk-weighted differences\) cannot be read"),
        ("runid,topic,ndcg@20,err@20\nbm25,401,0.4,x\n",
         r":2: value 'x' of err@20 for topic '401' is not a number"),
        ("runid,topic,ndcg@20,err@20\nbm25,401,0.4,0.1\nbm25,401,0.5,0.2\n",
         r":3: ndcg@20 of run 'bm25' for topic '401' is given twice \(first at line 2\)"),
        ("runid,topic,ndcg@20,err@20\nbm25,,0.4,0.1\n", r":2: empty topic field"),
        ("run,k,topic,ndcg@k\nbm25,0,401,0.4\n", r":2: cutoff k '0' is not a positive integer"),
    ],
)
def test_gdeval_malformed_input_names_file_and_line(tmp_path, text, message):
    path = write(tmp_path, "bad.csv", text)
    with pytest.raises(ValueError, match=re.escape(str(path)) + message):
        read_gdeval(path)


def test_read_eval_file_tells_the_formats_apart(tmp_path):
    g = write(tmp_path, "g.csv", "\n" + GDEVAL)
    t = write(tmp_path, "t.txt", trec_eval_lines("BM25", BM25, BM25_SUMMARY))
    pd.testing.assert_frame_equal(read_eval_file(g), read_gdeval(g))
    pd.testing.assert_frame_equal(read_eval_file(t, "map"), read_trec_eval(t, "map"))


# -- eval_matrix ------------------------------------------------------------------------------------
def test_eval_matrix_qrels_and_intersection_modes(tmp_path):
    frames = [read_gdeval(write(tmp_path, "a.csv", GDEVAL)), read_gdeval(write(tmp_path, "b.csv", GDEVAL_QL))]
    with pytest.warns(pr.TopicPolicyWarning) as caught:
        union = eval_matrix(frames, "ndcg@20")
    assert list(union.columns) == ["401", "402", "403"] and list(union.index) == ["bm25", "ql"]
    assert union.to_numpy().tolist() == [[0.4123, 0.15, 0.0], [0.5, 0.0, 0.0]]
    assert [str(w.message).split(" of ")[0] for w in caught] == ["system 'bm25' has no results for 1",
                                                                 "system 'ql' has no results for 1"]
    assert {w.filename for w in caught} == {__file__}  # the warnings point at the caller
    with pytest.warns(pr.TopicPolicyWarning) as caught:
        qrels = eval_matrix(frames, "ERR@20", topics=pd.DataFrame({"qid": ["401", "402", "404"]}))
    assert [str(w.message).split(";")[0] for w in caught] == [
        "system 'bm25' has no results for 1 of the 3 qrels topics",
        "system 'ql' has results for 1 topic(s) that are not in the qrels",  # 403
        "system 'ql' has no results for 2 of the 3 qrels topics",
    ]
    assert qrels.to_numpy().tolist() == [[0.15536, 0.06261, 0.0], [0.2, 0.0, 0.0]]
    with pytest.warns(pr.TopicPolicyWarning, match="intersection mode: 2 of the 3 qrels topics are left out"):
        common = eval_matrix(frames, "ndcg@20", mode="intersection")
    assert common.to_numpy().tolist() == [[0.4123], [0.5]]
    with pytest.raises(ValueError, match="unknown topic mode 'union'"):
        eval_matrix(frames, "ndcg@20", mode="union")


def test_eval_matrix_refuses_mixed_definitions_and_duplicates(tmp_path):
    gd = read_gdeval(write(tmp_path, "a.csv", GDEVAL))
    te = read_trec_eval(write(tmp_path, "t.txt", trec_eval_lines("QL", QL, {})))
    # gdeval's nDCG (gain 2^label - 1) and trec_eval's (gain = label) are two measures, never mixed
    with pytest.raises(ValueError, match=r"run\(s\) 'bm25' have it only in another definition: "
                                         r"nDCG\(dcg='exp-log2'\)@20 \(gdeval's nDCG"):
        eval_matrix([gd, te], "nDCG@20")
    with pytest.raises(ValueError, match=r"run\(s\) 'QL' have it only in another definition: nDCG@20 "):
        eval_matrix([gd, te], "ndcg@20")
    with pytest.raises(ValueError, match=r"run 'bm25' has two values of 'ERR@20' for topic '401'"):
        eval_matrix([gd, gd], "ERR@20")
    with pytest.raises(ValueError, match=r"the frames lack the column\(s\) \['value'\]"):
        eval_matrix(gd.drop(columns="value"), "ERR@20")
    with pytest.raises(ValueError, match=r"eval_matrix: no measure 'AP'"):
        eval_matrix(gd, AP)


@pytest.mark.parametrize("request_", ["ndcg_cut_20", "nDCG@20", nDCG @ 20])
def test_a_trec_eval_name_does_not_select_gdeval_values(tmp_path, request_):
    """Issue 14, item 3: one name, one definition; the refusal says what the file holds and how to ask."""
    gd = read_gdeval(write(tmp_path, "gd.csv", GDEVAL))
    message = (r"no measure '(ndcg_cut_20|nDCG@20)' \(found: nDCG\(dcg='exp-log2'\)@20, ERR@20\); the file's "
               r"nDCG\(dcg='exp-log2'\)@20 \(gdeval's nDCG, gain 2\^label - 1\) is not nDCG@20 \(trec_eval's "
               r"ndcg_cut, gain = label\): ask for nDCG\(dcg='exp-log2'\)@20 to use it$")
    with pytest.raises(ValueError, match=message):
        eval_matrix(gd, request_)
    for asked in (GD20, "ndcg@20", parse_measure(GD20)):  # the definition, by its name or gdeval's spelling
        assert eval_matrix(gd, asked).to_numpy().tolist() == [[0.4123, 0.15]]
    te = read_trec_eval(write(tmp_path, "t.txt", trec_eval_lines("QL", QL, {})))
    with pytest.raises(ValueError, match=r"the file's nDCG@20 \(trec_eval's ndcg_cut, gain = label\) is not "
                                         r"nDCG\(dcg='exp-log2'\)@20 .*: ask for nDCG@20 to use it$"):
        eval_matrix(te, GD20)


def test_eval_matrix_takes_pt_experiment_perquery_frames():
    # the tidy layout is pt.Experiment(perquery=True)'s: name, qid, measure, value
    frame = pd.DataFrame({"name": ["a", "a", "b", "b"], "qid": ["1", "2", "1", "2"],
                          "measure": ["AP"] * 4, "value": [0.5, 0.25, 0.5, 0.75]})
    matrix = eval_matrix(frame, "map")
    assert matrix.to_numpy().tolist() == [[0.5, 0.25], [0.5, 0.75]]


# -- real data: TREC-7, reference gdeval -c per-topic output vs the 19 runs ---------------------------
GAINS = {0: 0, 1: 1, 2: 3, 3: 7, 4: 15}  # gdeval's 2^label - 1 (TREC-7 labels are 0/1)
MEASURES = {GD20: nDCG(gains=GAINS) @ 20, "ERR@20": ERR @ 20, GD10: nDCG(gains=GAINS) @ 10}
BASELINE = "stem-stop_BM25b0.75_1"
ALPHAS = (0, 1, 5, 10)
HALF_UNIT = 5e-6  # gdeval prints 5 decimals


@pytest.fixture(scope="module")
def trec7():
    """The reference file (tidy, and its amean rows) and per-topic values computed from the runs."""
    import ir_measures

    folder = data_path("trec7-adhoc-terrier-runs")
    reference = read_gdeval(folder / "reference_eval" / "gdeval_c.csv")
    amean = pd.read_csv(folder / "reference_eval" / "gdeval_c.csv", dtype={"topic": str})
    amean = amean[amean["topic"] == "amean"]
    qrels = pr.read_qrels(folder / "qrels.adhoc.351-400.txt")
    qrels_irm = qrels.rename(columns={"qid": "query_id", "docno": "doc_id", "label": "relevance"})
    rows, runs = [], {}
    label = {repr(m): name for name, m in MEASURES.items()}
    for path in sorted((folder / "runs").glob("*.run.gz")):
        run = pr.read_run(path)
        name = run["name"].iloc[0]
        runs[name] = run
        # the measures read the first 20 of each topic: hand ir_measures the lines scoring at least each
        # topic's 20th score (ties kept, so the same values), not all 1000
        top = run[run.groupby("qid")["score"].rank(method="min", ascending=False) <= 20]
        run_irm = top.rename(columns={"qid": "query_id", "docno": "doc_id"})
        for m in ir_measures.iter_calc(list(MEASURES.values()), qrels_irm, run_irm):
            rows.append((name, str(m.query_id), label[repr(m.measure)], float(m.value)))
    from_runs = pd.DataFrame(rows, columns=["name", "qid", "measure", "value"])
    return reference, amean, from_runs, qrels, runs


def _first_order_bound(func, x: np.ndarray) -> np.ndarray:
    """Worst change of ``func`` (per output) when each entry of ``x`` moves by HALF_UNIT, to first order."""
    base = np.asarray(func(x), dtype=float)
    total = np.zeros_like(base)
    for idx in np.ndindex(x.shape):
        up, down = x.copy(), x.copy()
        up[idx] += HALF_UNIT
        down[idx] = max(down[idx] - HALF_UNIT, 0.0)
        total += np.maximum(np.abs(func(up) - base), np.abs(func(down) - base))
    return total


def _pairwise(func, names: list[str]):
    """A function of the matrix: ``func(system row, baseline row)`` for every system but the baseline."""
    b = names.index(BASELINE)
    return lambda x: np.array([func(x[i], x[b]) for i in range(len(names)) if i != b])


def _pairwise_bound(func, x: np.ndarray, names: list[str]) -> np.ndarray:
    """:func:`_first_order_bound` of ``func(system, baseline)``, which depends on two rows only."""
    b = names.index(BASELINE)
    pairs = [x[[i, b]] for i in range(len(names)) if i != b]
    return np.array([_first_order_bound(lambda p: np.array([func(p[0], p[1])]), p)[0] for p in pairs])


@pytest.mark.realdata
@pytest.mark.slow
@pytest.mark.parametrize("measure", list(MEASURES))
def test_trec7_risk_from_reference_file_equals_risk_from_runs(trec7, measure):
    reference, _, from_runs, _, _ = trec7
    with warnings.catch_warnings():
        warnings.simplefilter("error", pr.TopicPolicyWarning)  # all 19 runs have all 50 topics
        ref = eval_matrix(reference, measure)
        ours = eval_matrix(from_runs, measure).loc[ref.index, ref.columns]
    assert ref.shape == (19, 50)
    # per topic: gdeval's printed values are the runs' values rounded to 5 decimals
    assert np.abs(ours - ref).to_numpy().max() <= HALF_UNIT + 1e-12
    names, x_ours, x_ref = list(ref.index), ours.to_numpy(), ref.to_numpy()
    for alpha in ALPHAS:
        # each risk value from the rounded reference is within the first-order effect of the rounding
        urisk = lambda s, b, a=alpha: pr.urisk(s, b, a)  # noqa: E731
        trisk = lambda s, b, a=alpha: pr.trisk(s, b, a).trisk  # noqa: E731
        for kind, func in (("URisk", urisk), ("TRisk", trisk)):
            diff = np.abs(_pairwise(func, names)(x_ours) - _pairwise(func, names)(x_ref))
            assert np.all(diff <= 1.5 * _pairwise_bound(func, x_ref, names) + 1e-12), (kind, alpha)
        for kind, func in (("ZRisk", pr.zrisk), ("GeoRisk", pr.georisk)):
            matrix_func = lambda x, f=func, a=alpha: np.asarray(f(x, a))  # noqa: E731
            diff = np.abs(matrix_func(x_ours) - matrix_func(x_ref))
            assert np.all(diff <= 1.5 * _first_order_bound(matrix_func, x_ref) + 1e-12), (kind, alpha)


@pytest.mark.realdata
@pytest.mark.slow
def test_trec7_qrels_mode_means_are_gdeval_c_amean(trec7):
    reference, amean, _, qrels, _ = trec7
    for k in (10, 20):
        for col, measure in (("ndcg@k", f"nDCG(dcg='exp-log2')@{k}"), ("err@k", f"ERR@{k}")):
            matrix = eval_matrix(reference, measure, topics=qrels)
            printed = amean[amean["k"] == k].set_index("run")[col]
            # amean is the exact mean printed to 5 decimals; our mean is over values printed to 5 decimals
            assert np.abs(matrix.mean(axis=1) - printed.loc[matrix.index]).max() <= 2 * HALF_UNIT + 1e-12


@pytest.mark.realdata
@pytest.mark.slow
def test_trec7_intersection_mode_is_gdeval_without_c(trec7):
    """A run that lacks 8 topics: intersection = gdeval without -c (mean over the run's topics), qrels = -c.

    gdeval computes each topic from that topic's results alone, so gdeval's values for the remaining
    topics are the reference file's; its amean without -c is their mean, with -c their sum over 50.
    """
    import ir_measures

    reference, _, _, qrels, runs = trec7
    run = runs["stem-stop_DFIC_6"]
    dropped = sorted(set(run["qid"]))[::7]
    holey = run[~run["qid"].isin(dropped)]
    qrels_irm = qrels.rename(columns={"qid": "query_id", "docno": "doc_id", "label": "relevance"})
    run_irm = holey.rename(columns={"qid": "query_id", "docno": "doc_id"})
    kept = set(holey["qid"])
    # per-topic output as an evaluation tool prints it for the holey run: only the topics it has
    calc = ir_measures.iter_calc([MEASURES[GD20]], qrels_irm, run_irm)
    values = [("holey", m.query_id, GD20, float(m.value)) for m in calc if m.query_id in kept]
    frame = pd.DataFrame(values, columns=["name", "qid", "measure", "value"])
    ref = eval_matrix(reference, GD20).loc["stem-stop_DFIC_6"]
    gdeval_without_c = ref[sorted(kept)].mean()
    gdeval_c = ref[sorted(kept)].sum() / 50
    with pytest.warns(pr.TopicPolicyWarning, match="8 of the 50 qrels topics are left out"):
        inter = eval_matrix(frame, GD20, topics=qrels, mode="intersection")
    assert inter.shape == (1, 42)
    assert inter.loc["holey"].mean() == pytest.approx(gdeval_without_c, abs=HALF_UNIT)
    with pytest.warns(pr.TopicPolicyWarning, match="no results for 8 of the 50 qrels topics; they score 0"):
        full = eval_matrix(frame, GD20, topics=qrels)
    assert full.loc["holey"].mean() == pytest.approx(gdeval_c, abs=HALF_UNIT)
    # with the full baseline, intersection keeps the topics both have: URisk over those 42 topics
    both = pd.concat([frame, eval_matrix(reference, GD20).loc[[BASELINE]].stack().rename("value")
                      .reset_index().assign(measure=GD20)], ignore_index=True)
    with pytest.warns(pr.TopicPolicyWarning, match="system 'holey' lacks 8"):
        pair = eval_matrix(both, GD20, topics=qrels, mode="intersection")
    base = eval_matrix(reference, GD20).loc[BASELINE, sorted(kept)]
    expected = pr.urisk(ref[sorted(kept)], base, 5)
    got = pr.urisk(pair.loc["holey"], pair.loc[BASELINE], 5)
    assert got == pytest.approx(expected, abs=6 * 2 * HALF_UNIT)
