"""Hurt topics and the break-even α (Wang et al. 2012 §5.7; Dinçer et al. 2014 §5.1).

Every number is checked against an independent computation: URisk at the break-even α is 0 by
``ptr.urisk``; T_R/T_J against ``ptr.trisk``; p-values against scipy's t distribution; Loss > 20%
against a loop over topics; real data against the gdeval means of the Web 2012 README.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st
from scipy import stats

import pyterrier_risk as ptr
from pyterrier_risk.core import HURT_COLUMNS, topic_hurt
from pyterrier_risk.core._urisk import rounding_bound

scores = st.lists(st.floats(0, 1, allow_nan=False), min_size=2, max_size=30)


# -- break-even α -------------------------------------------------------------------------------------
@given(st.data())
def test_urisk_is_zero_at_the_break_even_alpha(data):
    s = data.draw(scores)
    b = data.draw(st.lists(st.floats(0, 1, allow_nan=False), min_size=len(s), max_size=len(s)))
    a = ptr.break_even_alpha(s, b)
    d = [x - y for x, y in zip(s, b, strict=True)]
    risk = sum(-x for x in d if x < 0) / len(d)
    reward = sum(x for x in d if x > 0) / len(d)
    if abs(reward - risk) <= rounding_bound(np.asarray(s), np.asarray(b)):  # Gain 0 up to rounding
        assert a == 0.0 if risk > 0 else math.isnan(a)
        return
    if risk == 0:
        assert math.isinf(a) if reward > 0 else math.isnan(a)
        return
    assert a == pytest.approx((reward - risk) / risk, rel=1e-9, abs=1e-12)
    if a >= 0:
        assert ptr.urisk(s, b, alpha=a) == pytest.approx(0.0, abs=1e-12)
    if a > 1e-6:  # below α*, the system beats the baseline; above, it loses
        assert ptr.urisk(s, b, alpha=a / 2) > 0
    assert ptr.urisk(s, b, alpha=max(a, 0) * 2 + 1) < 0


def test_break_even_alpha_edge_cases():
    assert ptr.break_even_alpha([0.5, 0.25], [0.25, 0.25]) == math.inf  # a win, no loss
    assert math.isnan(ptr.break_even_alpha([0.5, 0.25], [0.5, 0.25]))  # every topic a tie
    assert ptr.break_even_alpha([0.5, 0.25], [0.25, 0.5]) == 0.0  # Gain = 0: URisk(0) = 0
    a = ptr.break_even_alpha([0.25, 0.25], [0.5, 0.125])  # Gain < 0: URisk < 0 at every α >= 0
    assert a == pytest.approx(-0.5)  # Gain = -0.125/2 over Risk = 0.25/2
    assert ptr.urisk([0.25, 0.25], [0.5, 0.125]) < 0
    # 2012 §5.7 worked by hand: wins 0.5 and 0.25, one loss 0.125 -> Gain/Risk = 0.625/0.125
    assert ptr.break_even_alpha([0.75, 0.375, 0.5], [0.25, 0.5, 0.25]) == pytest.approx(5.0, rel=1e-15)


@given(st.lists(st.integers(0, 10_000), min_size=2, max_size=40), st.randoms(use_true_random=False))
def test_break_even_alpha_is_exactly_zero_when_the_decimal_gain_is_zero(written, rnd):
    """Property (issue 21): a baseline that is a permutation of the scores, as written in decimals, has Gain
    exactly 0; the binary differences sum to a residue (1.4e-16), which must give α* = 0, not 1e-16."""
    s = [k / 10_000 for k in written]
    b = s[:]
    rnd.shuffle(b)
    a = ptr.break_even_alpha(s, b)
    if s == b:
        assert math.isnan(a)  # every topic ties
    else:
        assert a == 0.0


def test_break_even_alpha_of_the_issue_example_is_zero():
    assert ptr.break_even_alpha([0.3, 0.1, 0.5], [0.2, 0.2, 0.5]) == 0.0  # was -2.1e-16
    # a genuine tiny loss stays a loss: no win is lost in the tolerance
    assert ptr.break_even_alpha([0.0, 0.0, 1.0], [0.0, 1.5e-121, 0.0]) == pytest.approx(1 / 1.5e-121 - 1)


def test_break_even_alpha_refuses_bad_input():
    with pytest.raises(ValueError, match="negative"):
        ptr.break_even_alpha([0.5, -0.1], [0.2, 0.2])
    with pytest.raises(ValueError, match="different lengths"):
        ptr.break_even_alpha([0.5], [0.2, 0.2])


# -- topic_hurt ---------------------------------------------------------------------------------------
@pytest.fixture
def pair():
    rng = np.random.default_rng(7)
    topics = [f"q{i}" for i in range(25)]
    b = pd.Series(rng.uniform(0, 1, 25), index=topics)
    s = pd.Series(np.clip(b.to_numpy() + rng.normal(0, 0.3, 25), 0, 1), index=topics)
    b.iloc[3] = 0.0  # a baseline zero: relative change undefined
    s.iloc[3] = 0.2
    return s, b


@pytest.mark.parametrize("alpha", [0.0, 1.0, 5.0])
@pytest.mark.parametrize("se", ["parametric", "jackknife"])
def test_topic_hurt_against_trisk_and_a_loop(pair, alpha, se):
    s, b = pair
    hurt = topic_hurt(s, b, alpha, se=se)
    assert list(hurt.columns) == list(HURT_COLUMNS)
    assert sorted(hurt.index) == sorted(s.index)
    ref = ptr.trisk(s, b, alpha, se=se)
    pd.testing.assert_series_equal(hurt["t_r"], ref.t_r.reindex(hurt.index), check_names=False)
    pd.testing.assert_series_equal(hurt["t_j"], ref.t_j.reindex(hurt.index), check_names=False)
    # Dinçer et al. 2014, eq. 20: the T_R sum to sqrt(c) TRisk
    assert hurt["t_r"].sum() == pytest.approx(math.sqrt(len(s)) * ref.trisk)
    df = len(s) - 1
    for q, row in hurt.iterrows():
        assert row["value"] == s[q] and row["baseline"] == b[q]
        assert row["difference"] == s[q] - b[q]
        assert row["t_r_p_value"] == pytest.approx(2 * stats.t.sf(abs(row["t_r"]), df))
        assert row["t_j_p_value"] == pytest.approx(2 * stats.t.sf(abs(row["t_j"]), df))
        if b[q] > 0:
            rel = (s[q] - b[q]) / b[q]
            assert row["relative"] == pytest.approx(rel)
            assert row["loss_gt20"] == (rel < -0.2) or abs(rel + 0.2) < 1e-12
        else:
            assert math.isnan(row["relative"]) and not row["loss_gt20"]
    assert hurt["difference"].is_monotonic_increasing  # most-hurt first
    assert hurt["loss_gt20"].sum() == ptr.risk_reward(s, b).losses_gt20


def test_topic_hurt_plain_arrays_and_ties_keep_topic_order():
    hurt = topic_hurt([0.5, 0.25, 0.5, 0.75, 0.375], [0.25, 0.5, 0.5, 0.25, 0.625])
    assert hurt.index.tolist() == [1, 4, 2, 0, 3]  # -0.25 and -0.25: topic order kept
    assert hurt.index.name == "qid"


def test_topic_hurt_refuses_one_topic_and_all_ties():
    with pytest.raises(ValueError, match="at least two topics"):
        topic_hurt([0.5], [0.2])
    with pytest.raises(ValueError, match="ties the baseline on every topic"):
        topic_hurt([0.5, 0.2], [0.5, 0.2])


# -- hurt_topics: the three inputs --------------------------------------------------------------------
@pytest.fixture
def matrix():
    rng = np.random.default_rng(3)
    values = rng.uniform(0, 1, (3, 12))
    return pd.DataFrame(values, index=["base", "new", "other"], columns=[f"t{i}" for i in range(12)])


def test_hurt_topics_of_a_matrix(matrix):
    out = ptr.hurt_topics(matrix, "base", measures="nDCG@10", top=4)
    assert list(out.columns) == ["name", "measure", "qid", *HURT_COLUMNS]
    assert out["name"].tolist() == ["new"] * 4 + ["other"] * 4
    assert set(out["measure"]) == {"nDCG@10"}
    for name in ("new", "other"):
        d = (matrix.loc[name] - matrix.loc["base"]).sort_values(kind="stable")
        block = out[out["name"] == name]
        assert block["qid"].tolist() == d.index[:4].tolist()  # the four largest losses, worst first
        assert block["difference"].tolist() == pytest.approx(d.iloc[:4].tolist())
    by_index = ptr.hurt_topics(matrix, 0, top=4)
    assert by_index.drop(columns="measure").equals(out.drop(columns="measure"))
    assert set(by_index["measure"]) == {"score"}


def test_hurt_topics_of_a_perquery_table_equals_the_matrix(matrix):
    long = matrix.rename_axis("name").reset_index().melt(id_vars="name", var_name="qid", value_name="value")
    long = pd.concat([long.assign(measure="AP"), long.assign(measure="URisk(AP,baseline='base')")])
    from_long = ptr.hurt_topics(long, "base")  # the risk rows are not a measure of their own
    assert set(from_long["measure"]) == {"AP"}
    from_matrix = ptr.hurt_topics(matrix, "base", measures="AP")
    pd.testing.assert_frame_equal(from_long, from_matrix)
    with pytest.raises(ValueError, match="not in the perquery table"):
        ptr.hurt_topics(long, "base", measures="nDCG@10")


def _runs_and_qrels():
    qrels = pd.DataFrame({"qid": ["1", "1", "2", "2", "3"], "docno": ["a", "b", "a", "c", "d"],
                          "label": [1, 0, 1, 1, 1]})
    def run(rows):
        return pd.DataFrame(rows, columns=["qid", "docno", "score"])
    runs = {
        "base": run([("1", "a", 2.0), ("1", "b", 1.0), ("2", "a", 2.0), ("2", "c", 1.0), ("3", "d", 1.0)]),
        "new": run([("1", "b", 2.0), ("1", "a", 1.0), ("2", "c", 2.0), ("2", "a", 1.0), ("3", "x", 1.0)]),
    }
    return runs, qrels


def test_hurt_topics_of_runs_with_queries():
    runs, qrels = _runs_and_qrels()
    topics = pd.DataFrame({"qid": ["1", "2", "3"], "query": ["one", "two", "three"]})
    out = ptr.hurt_topics(runs, "base", qrels=qrels, measures=["P@1"], topics=topics)
    # P@1: base 1, 1, 1; new 0 (b first), 1, 0 (x unjudged)
    assert out["qid"].tolist() == ["1", "3", "2"]
    assert out["query"].tolist() == ["one", "three", "two"]
    assert out["value"].tolist() == [0.0, 0.0, 1.0]
    assert out["loss_gt20"].tolist() == [True, True, False]
    assert out["relative"].tolist() == [-1.0, -1.0, 0.0]
    with_dict = ptr.hurt_topics(runs, "base", qrels=qrels, measures=["P@1"], topics={"1": "one"})
    assert with_dict["query"].tolist() == ["one", "", ""]


def test_hurt_topics_warns_about_a_run_without_a_topic():
    runs, qrels = _runs_and_qrels()
    runs["new"] = runs["new"][runs["new"]["qid"] != "2"]
    with pytest.warns(ptr.TopicPolicyWarning, match="no results for 1 of the 3"):
        out = ptr.hurt_topics(runs, "base", qrels=qrels, measures="P@1")
    assert out.set_index("qid").loc["2", "value"] == 0.0
    runs, qrels = _runs_and_qrels()
    runs["new"] = pd.concat([runs["new"], pd.DataFrame({"qid": ["9"], "docno": ["a"], "score": [1.0]})])
    with pytest.warns(ptr.TopicPolicyWarning, match="1 topic.*not in the qrels"):
        extra = ptr.hurt_topics(runs, "base", qrels=qrels, measures="P@1")
    assert sorted(extra["qid"]) == ["1", "2", "3"]


def test_hurt_topics_bad_input(matrix):
    with pytest.raises(ValueError, match="unknown baseline 'nope'"):
        ptr.hurt_topics(matrix, "nope")
    with pytest.raises(ValueError, match="at least two systems"):
        ptr.hurt_topics(matrix.iloc[:1], "base")
    with pytest.raises(ValueError, match="at least two topics"):
        ptr.hurt_topics(matrix.iloc[:, :1], "base")
    tied = matrix.copy()
    tied.loc["new"] = tied.loc["base"]
    with pytest.raises(ValueError, match="new against base.*ties the baseline"):
        ptr.hurt_topics(tied, "base")
    with pytest.raises(ValueError, match="top must be an integer >= 1"):
        ptr.hurt_topics(matrix, "base", top=0)
    with pytest.raises(ValueError, match="need qrels= and measures="):
        ptr.hurt_topics(_runs_and_qrels()[0], "base")
    with pytest.raises(TypeError, match="systems must be"):
        ptr.hurt_topics([[0.1, 0.2]], "base")
    with pytest.raises(ValueError, match="one measure"):
        ptr.hurt_topics(matrix, "base", measures=["AP", "P@5"])


def test_hurt_topics_refuses_a_name_twice_a_hole_a_risk_row_and_a_bad_alpha_first(matrix):
    twice = pd.concat([matrix, matrix.loc[["new"]]])
    with pytest.raises(ValueError, match=r"system name\(s\) \['new'\] listed twice"):
        ptr.hurt_topics(twice, "base")  # not two blocks named 'new' that cannot be told apart
    long = matrix.rename_axis("name").reset_index().melt(id_vars="name", var_name="qid", value_name="value")
    holey = long.assign(measure="AP").drop(index=long.index[(long["name"] == "new") & (long["qid"] == "t3")])
    with pytest.raises(ValueError, match="no AP value of system 'new' for topic 't3'"):
        ptr.hurt_topics(holey, "base")  # a missing row is not a NaN score
    risk = pd.concat([long.assign(measure="AP"), long.assign(measure="URisk(AP,baseline='base')")])
    with pytest.raises(ValueError, match="risk measure's per-topic term"):
        ptr.hurt_topics(risk, "base", measures=["URisk(AP,baseline='base')"])
    with pytest.raises(ValueError, match="alpha must be a finite number"):
        ptr.hurt_topics({"a": "never/read.run"}, "a", qrels="never/read.qrels", measures="AP", alpha=-1)


def test_hurt_topics_of_experiment_perquery():
    pytest.importorskip("pyterrier")
    runs, qrels = _runs_and_qrels()
    topics = pd.DataFrame({"qid": ["1", "2", "3"], "query": ["one", "two", "three"]})
    from ir_measures import P

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        measures = [P @ 1, ptr.URisk(P @ 1, baseline="base")]
        perquery = ptr.Experiment(runs, topics, qrels, measures, perquery=True)
    out = ptr.hurt_topics(perquery, "base", topics=topics)
    assert set(out["measure"]) == {"P@1"}
    assert out["qid"].tolist() == ["1", "3", "2"]
    assert out["query"].tolist() == ["one", "three", "two"]


# -- read_topics ----------------------------------------------------------------------------------------
def test_read_topics_layouts(tmp_path):
    sgml = tmp_path / "t.sgml"
    sgml.write_text("<top>\n<num> Number: 351\n<title> Falkland  petroleum\n\n<desc> Description:\n"
                    "x\n</top>\n"
                    "<top>\n<num> Number: 352\n<title> Chunnel\n</top>\n")
    xml = tmp_path / "t.xml"
    xml.write_text('<webtrack2012><topic number="151" type="faceted"><query>403b</query>'
                   "<description>d</description></topic><topic number=\"152\"><query>a  b</query></topic>"
                   "</webtrack2012>")
    tsv = tmp_path / "t.tsv"
    tsv.write_text("1\tfirst query\n2 second\n")
    assert ptr.read_topics(sgml).values.tolist() == [["351", "Falkland petroleum"], ["352", "Chunnel"]]
    assert ptr.read_topics(xml).values.tolist() == [["151", "403b"], ["152", "a b"]]
    assert ptr.read_topics(tsv).values.tolist() == [["1", "first query"], ["2", "second"]]
    bad = tmp_path / "bad.tsv"
    bad.write_text("1\tq\n1\tagain\n")
    with pytest.raises(ValueError, match="listed twice"):
        ptr.read_topics(bad)
    bad.write_text("1\n")
    with pytest.raises(ValueError, match=r"bad\.tsv:1: expected"):
        ptr.read_topics(bad)
    with pytest.raises(FileNotFoundError):
        ptr.read_topics(tmp_path / "missing")


# -- real data: TREC Web 2012, the official risk baseline ---------------------------------------------
@pytest.mark.realdata
def test_web2012_hurt_topics_and_break_even_alpha():
    from helpers import data_path
    from test_realdata_risk import GDEVAL_NDCG20, WEB_BASELINE, WEB_README, gdeval_per_topic

    folder = data_path("trec-web-2012-risk")
    names = ["indri-ql-cata", "indri-rm-catb", WEB_BASELINE]
    runs = {n: folder / "runs" / f"{n}.run.gz" for n in names}
    qrels = ptr.read_qrels(folder / "qrels.web.151-200.txt")
    out = ptr.hurt_topics(runs, WEB_BASELINE, qrels=qrels, measures=[GDEVAL_NDCG20, "ERR@20"],
                          topics=folder / "topics.web.151-200.xml.gz")
    assert len(out) == 2 * 2 * 50 and (out["query"] != "").all()
    ndcg = out[out["measure"] == str(GDEVAL_NDCG20)]
    for name in ("indri-ql-cata", "indri-rm-catb"):
        block = ndcg[ndcg["name"] == name].set_index("qid")
        assert block["value"].mean() == pytest.approx(WEB_README[name][0], abs=5e-5)  # gdeval -c means
        assert block["baseline"].mean() == pytest.approx(WEB_README[WEB_BASELINE][0], abs=5e-5)
        err = out[(out["measure"] == "ERR@20") & (out["name"] == name)]
        assert err["value"].mean() == pytest.approx(WEB_README[name][1], abs=5e-5)
        # independent per-topic nDCG@20 (gdeval's definition, numpy): the most-hurt topic and Loss > 20%
        s, _ = gdeval_per_topic(ptr.read_run(runs[name]), qrels)
        b, _ = gdeval_per_topic(ptr.read_run(runs[WEB_BASELINE]), qrels)
        d = (s - b).sort_values(kind="stable")
        assert block.index[0] == d.index[0]
        assert block["difference"].iloc[:5].tolist() == pytest.approx(d.iloc[:5].tolist(), abs=1e-9)
        loop = sum(1 for q in s.index if b[q] > 0 and (s[q] - b[q]) / b[q] < -0.2)
        assert int(block["loss_gt20"].sum()) == loop
        a = ptr.break_even_alpha(s, b)
        if a >= 0:
            assert ptr.urisk(s, b, alpha=a) == pytest.approx(0.0, abs=1e-12)
        else:  # Gain < 0: URisk negative at every α
            assert ptr.urisk(s, b) < 0


# -- BreakEven, the measure: Experiment and eval -------------------------------------------------------
def _ap_runs():
    rng = np.random.default_rng(11)
    qids = [str(q) for q in range(1, 9)]
    docs = [f"d{i}" for i in range(6)]
    qrels = pd.DataFrame([(q, d, int(rng.integers(0, 2))) for q in qids for d in docs],
                         columns=["qid", "docno", "label"])
    runs = {name: pd.DataFrame([(q, d, float(rng.uniform())) for q in qids for d in docs],
                               columns=["qid", "docno", "score"]) for name in ("base", "a", "b")}
    topics = pd.DataFrame({"qid": qids, "query": "x"})
    return runs, qrels, topics


def test_break_even_measure_in_experiment():
    from ir_measures import AP

    runs, qrels, topics = _ap_runs()
    per_topic = ptr.Experiment(runs, topics, qrels, [AP], perquery=True)
    matrix = per_topic.pivot(index="name", columns="qid", values="value")
    table = ptr.Experiment(runs, topics, qrels, [AP, ptr.BreakEven(AP), "BreakEven(AP,baseline='mean')"],
                           baseline="base").set_index("name")
    col = "BreakEven(AP,baseline='base')"  # named with the Experiment's baseline it was computed against
    assert col in table.columns and math.isnan(table.loc["base", col])  # the baseline ties itself
    for name in ("a", "b"):
        a = table.loc[name, col]
        assert a == ptr.break_even_alpha(matrix.loc[name], matrix.loc["base"])
        if a >= 0:  # URisk at α* is 0, by Experiment's own URisk
            u = ptr.Experiment(runs, topics, qrels, [ptr.URisk(AP, alpha=a, baseline="base")])
            assert u.set_index("name").iloc[:, 0][name] == pytest.approx(0.0, abs=1e-12)
        mean = ptr.baseline_scores(matrix, "mean")
        value = ptr.break_even_alpha(matrix.loc[name], mean)  # rows summed in another order: approx
        assert table.loc[name, "BreakEven(AP,baseline='mean')"] == pytest.approx(value, rel=1e-12)


def test_break_even_measure_names_and_errors():
    m = ptr.parse_measure("BreakEven(nDCG@20,baseline='BM25')")
    assert m == ptr.BreakEven(ptr.parse_measure("nDCG@20"), baseline="BM25")
    assert repr(m) == "BreakEven(nDCG@20,baseline='BM25')"
    with pytest.raises((TypeError, ValueError), match="unknown parameter.*alpha"):
        ptr.parse_measure("BreakEven(nDCG@20,alpha=5)")
    runs, qrels, topics = _ap_runs()
    with pytest.raises(ValueError, match="needs a baseline"):
        ptr.Experiment(runs, topics, qrels, ["BreakEven(AP)"])


def test_break_even_measure_in_eval(capsys, tmp_path):
    import io

    from pyterrier_risk.cli import main

    runs, qrels, _ = _ap_runs()
    qrels_file = tmp_path / "qrels"
    qrels_file.write_text("".join(f"{q} 0 {d} {lab}\n" for q, d, lab in qrels.itertuples(index=False)))
    for name, run in runs.items():
        lines = [f"{q} Q0 {d} 0 {s} t\n" for q, d, s in run.itertuples(index=False)]
        (tmp_path / f"{name}.run").write_text("".join(lines))
    argv = ["eval", "--qrels", str(qrels_file), *(str(tmp_path / f"{n}.run") for n in runs),
            "--measure", "AP", "BreakEven(AP)", "--format", "csv", "--no-zrisk"]
    assert main([*argv, "--baseline", "base"]) == 0
    table = pd.read_csv(io.StringIO(capsys.readouterr().out)).set_index("name")
    expected = ptr.Experiment(runs, _ap_runs()[2], qrels, ["BreakEven(AP)"], baseline="base")
    expected = expected.set_index("name").rename(columns={"BreakEven(AP)": "BreakEven(AP,baseline='base')"})
    pd.testing.assert_series_equal(table["BreakEven(AP,baseline='base')"],
                                   expected["BreakEven(AP,baseline='base')"], check_names=False)
    assert main(argv) == 2
    assert "needs a baseline" in capsys.readouterr().err


# -- the near-optimal hull on the risk-gain plot (2012 §5.7) -------------------------------------------
@pytest.mark.parametrize("p", [0.2, 0.5, 0.9])
def test_a_coin_flip_with_the_baseline_scales_risk_and_gain(pair, p):
    # the expected per-topic score of "the model with probability p, else the baseline"
    s, b = pair
    full, mixed = ptr.risk_reward(s, b), ptr.risk_reward(p * s + (1 - p) * b, b)
    assert mixed.risk == pytest.approx(p * full.risk) and mixed.gain == pytest.approx(p * full.gain)
    assert ptr.break_even_alpha(p * s + (1 - p) * b, b) == pytest.approx(ptr.break_even_alpha(s, b))


def test_plot_risk_gain_marks_the_near_optimal_hull(tmp_path):
    pytest.importorskip("matplotlib")
    points = pd.DataFrame({
        "name": ["U-CRO"] * 4 + ["run", "loser"],
        "alpha": [10, 0, 5, 1, np.nan, np.nan],
        "risk": [0.004, 0.02, 0.008, 0.012, 0.04, 0.05],
        "gain": [0.02, 0.1, 0.05, 0.08, 0.06, -0.01],
    })
    fig = ptr.plot_risk_gain(points, path=tmp_path / "rg.png")
    ax = fig.axes[0]
    lines = {(tuple(ln.get_xdata()), tuple(ln.get_ydata())): ln for ln in ax.get_lines()}
    # gain-only model (α = 0): α* = 0.1 / 0.02 = 5; its break-even line to the origin, dotted
    assert lines[((0.0, 0.02), (0.0, 0.1))].get_linestyle() == ":"
    # the hull, drawn as the envelope: along the curve from α = 0 to the largest computed α <= 5 (α = 5:
    # risk 0.008, gain 0.05), then the coin flips to the origin
    hull = lines[((0.02, 0.012, 0.008, 0.0), (0.1, 0.08, 0.05, 0.0))]
    assert hull.get_linestyle() == "-" and hull.get_label() == "near-optimal hull: U-CRO"
    ringed = lines[((0.02, 0.012, 0.008), (0.1, 0.08, 0.05))]  # α = 0, 1, 5 are in [0, α*]
    assert ringed.get_marker() == "o"
    labels = [t.get_text().replace("\n", " ") for t in ax.get_legend().get_texts()]
    assert labels[:3] == ["U-CRO", "run", "loser"]  # issue 23 #12: a curve's entry is its name
    assert "break-even α* = 5 (U-CRO)" in labels  # issue 29 #7: short entries
    assert "break-even α* = 1.5 (run)" in labels
    assert ((0.0, 0.05), (0.0, -0.01)) not in lines  # Gain < 0: no break-even α >= 0, no line
    plain = ptr.plot_risk_gain(points, hull=False).axes[0]
    assert len(plain.get_lines()) == 3 + 1  # three curves and the zero line
