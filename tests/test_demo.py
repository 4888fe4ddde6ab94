"""The ``pyterrier-risk demo`` study (:mod:`pyterrier_risk.study`): its building blocks, and an end-to-end
run on irds:cranfield."""

import io
import os
import re
import string
import subprocess
import sys
from importlib import resources

import ir_measures
import numpy as np
import pandas as pd
import pytest
from helpers import data_path
from ir_measures import nDCG
from scipy.stats import norm

from pyterrier_risk import TRisk
from pyterrier_risk.cli import main
from pyterrier_risk.data import read_qrels, read_run, write_qrels, write_run
from pyterrier_risk.reporting._plots import _wrap
from pyterrier_risk.study import (
    PLAIN,
    Study,
    StudyError,
    candidate_features,
    folds_table,
    kendall_trend,
    make_model,
    relevance_labels,
    study_settings,
    topic_folds,
    trade_table,
    with_tail,
)
from pyterrier_risk.study._collection import system_score_features
from pyterrier_risk.study._crossval import _models_text
from pyterrier_risk.study._plots import tj_panels
from pyterrier_risk.study._report import (
    _alpha0_text,
    _breakeven_text,
    _hurt_text,
    _kendall_text,
    render_report,
    short_query,
)


def test_topic_folds_partition():
    qids = [str(q) for q in range(1, 94)]
    folds = topic_folds(qids, 5, seed=3)
    flat = np.concatenate(folds)
    assert sorted(flat.tolist()) == sorted(qids)  # every topic in exactly one fold
    assert max(map(len, folds)) - min(map(len, folds)) <= 1
    assert [f.tolist() for f in topic_folds(list(reversed(qids)), 5, seed=3)] == [f.tolist() for f in folds]
    assert [f.tolist() for f in topic_folds(qids, 5, seed=4)] != [f.tolist() for f in folds]


def _res(rows):
    df = pd.DataFrame(rows, columns=["qid", "docno", "score"]).assign(query="q")
    df["rank"] = df.groupby("qid")["score"].rank(ascending=False, method="first").astype(int) - 1
    return df


def test_candidate_features_fill_missing_with_query_minimum():
    bm25 = _res([("1", "a", 9.0), ("1", "b", 8.0), ("1", "c", 7.0), ("2", "a", 5.0), ("2", "d", 4.0)])
    other = _res([("1", "c", 3.0), ("1", "a", 2.0), ("2", "d", 6.0)])
    cand = candidate_features({"BM25": bm25, "X": other}, depth=2)
    assert cand[["qid", "docno"]].values.tolist() == [["1", "a"], ["1", "b"], ["2", "a"], ["2", "d"]]
    feats = np.stack(cand["features"])
    # columns: BM25 raw, BM25 / query max, X raw, X / query max
    np.testing.assert_allclose(feats[:, 0], [9, 8, 5, 4])
    np.testing.assert_allclose(feats[:, 1], [1, 8 / 9, 1, 0.8])
    # 'b' was not retrieved by X for query 1: it gets X's lowest score there (2.0)
    np.testing.assert_allclose(feats[:, 2], [2.0, 2.0, 6.0, 6.0])
    np.testing.assert_allclose(feats[:, 3], [2 / 3, 2 / 3, 1.0, 1.0])
    # the GeoRisk re-ranker's baselines are the raw-score columns
    assert system_score_features(2) == [0, 2]
    np.testing.assert_allclose(feats[:, system_score_features(2)], feats[:, [0, 2]])


def test_with_tail_keeps_first_stage_order_below_reranked():
    first = _res([("1", d, s) for d, s in zip("abcdef", [6, 5, 4, 3, 2, 1], strict=True)])
    reranked = pd.DataFrame({"qid": "1", "query": "q", "docno": ["b", "a"], "score": [0.3, -0.2],
                             "rank": [0, 1]})
    out = with_tail(reranked, first, depth=2)
    assert out["docno"].tolist() == ["b", "a", "c", "d", "e", "f"]
    assert out["rank"].tolist() == list(range(6))
    assert (out["score"].diff().iloc[1:] < 0).all()


def test_write_trec_run_and_qrels_round_trip(tmp_path):
    res = _res([("2", "x", 1.5), ("1", "a", 0.25), ("1", "b", 0.75)])
    write_run(res, tmp_path / "r.run", "tag")
    back = read_run(tmp_path / "r.run")
    assert back["name"].iloc[0] == "r"
    assert back[["qid", "docno", "rank"]].values.tolist() == [["1", "b", 1], ["1", "a", 2], ["2", "x", 1]]
    assert back["score"].tolist() == [0.75, 0.25, 1.5]
    qrels = pd.DataFrame({"qid": ["1", "1", "2"], "docno": ["a", "b", "x"], "label": [4, 0, 2]})
    write_qrels(qrels, tmp_path / "qrels.txt")
    back = read_qrels(tmp_path / "qrels.txt")
    assert back[["qid", "docno", "label"]].values.tolist() == qrels.values.tolist()


def test_relevance_labels_cranfield_codes_and_negative_labels():
    qrels = pd.DataFrame({"qid": "1", "docno": list("abcde"), "label": [1, 2, 3, 4, -1]})
    mapped, note = relevance_labels("irds:cranfield", qrels)
    # Cleverdon: 1 = complete answer (best) ... 4 = minimum interest; -1 = no interest
    assert mapped["label"].tolist() == [4, 3, 2, 1, 0]
    assert "Cleverdon" in note and qrels["label"].tolist() == [1, 2, 3, 4, -1]  # input left alone
    with pytest.raises(StudyError, match=r"relevance codes \[7\]"):
        relevance_labels("cranfield", qrels.assign(label=[1, 2, 3, 4, 7]))
    mapped, note = relevance_labels("irds:vaswani", qrels.assign(label=[2, 1, 0, -2, -1]))
    assert mapped["label"].tolist() == [2, 1, 0, 0, 0]
    assert "2 negative labels counted as 0" in note
    assert relevance_labels("irds:vaswani", qrels.assign(label=1))[1] == "as ir_datasets gives them"


def _settings(**kw):
    args = {"quick": False, "alphas": None, "folds": None, "depth": None, "seed": 1, "objective": None,
            "objectives": None}
    return study_settings("cranfield", **{**args, **kw})


def test_study_settings_and_rerankers():
    study = _settings(alphas=[5, 1])
    assert study.dataset == "irds:cranfield" and study.alphas == (0.0, 1.0, 5.0)  # alpha = 0 always added
    assert study.objectives == ("urisk", "georisk") and (study.folds, study.depth) == (5, 100)
    assert [(r.name, r.objective, r.alpha) for r in study.rerankers()] == [
        (PLAIN, "lambdarank", 0.0), ("U-CRO(a=1)", "urisk", 1.0), ("U-CRO(a=5)", "urisk", 5.0),
        ("GeoRisk-LM(a=1)", "georisk", 1.0), ("GeoRisk-LM(a=5)", "georisk", 5.0)]
    quick = _settings(quick=True)
    assert (quick.alphas, quick.folds, quick.depth, quick.num_boost_round) == ((0.0, 5.0), 3, 50, 30)
    # --objective replaces the default of its family (single baseline / all systems)
    assert _settings(objective="tsaro").objectives == ("tsaro", "georisk")
    assert _settings(objective="tfaro_star").objectives == ("urisk", "tfaro_star")
    assert _settings(objective="lambdarank").objectives == ()
    assert [r.name for r in _settings(objective="lambdarank").rerankers()] == [PLAIN]
    assert _settings(objectives=["tfaro"]).objectives == ("tfaro",)
    for bad, message in [({"objective": "nope"}, "unknown objective 'nope'"),
                         ({"objectives": ["urisk", "urisk"]}, "objectives must be distinct"),
                         ({"alphas": [float("nan")]}, "finite"), ({"alphas": [-1]}, ">= 0"),
                         ({"alphas": []}, "non-empty"), ({"depth": 5}, "at least 10")]:
        with pytest.raises(StudyError, match=message):
            _settings(**bad)


def test_models_use_the_learners_defaults_and_the_right_baselines():
    study = _settings(alphas=[5])
    models = {r.name: make_model(r, n_systems=3, num_boost_round=7, seed=2) for r in study.rerankers()}
    assert {n: m.objective for n, m in models.items()} == {
        PLAIN: "lambdarank", "U-CRO(a=5)": "urisk", "GeoRisk-LM(a=5)": "georisk"}
    assert models["U-CRO(a=5)"].baseline == "score" and models["U-CRO(a=5)"].alpha == 5.0
    assert models["GeoRisk-LM(a=5)"].baselines == [0, 2, 4]  # every system's raw score
    for m in models.values():
        assert m.objective_params is None  # the objectives run at RiskLambdaMART's defaults
        assert m.num_boost_round == 7 and m.cutoff == 10


def _georisk_by_formula(matrix, alpha):
    """GeoRisk, 2016 eqs. 4-7, written out cell by cell (independent of pyterrier_risk.georisk)."""
    x = matrix.to_numpy(dtype=float)
    s, t, n, c = x.sum(axis=1), x.sum(axis=0), x.sum(), x.shape[1]
    e = np.outer(s, t) / n
    z = np.divide(x - e, np.sqrt(e), out=np.zeros_like(x), where=e > 0)
    zrisk = np.where(z > 0, z, (1 + alpha) * z).sum(axis=1)
    return pd.Series(np.sqrt(s / c * norm.cdf(zrisk / c)), index=matrix.index)


def _toy_matrix(seed=0, topics=30):
    rng = np.random.default_rng(seed)
    names = ["BM25", "DPH", PLAIN, "U-CRO(a=5)", "GeoRisk-LM(a=5)"]
    return pd.DataFrame(rng.uniform(0, 1, (len(names), topics)), index=names,
                        columns=[str(q) for q in range(1, topics + 1)])


def test_trade_table_against_the_definitions():
    matrix = _toy_matrix()
    study = Study("irds:x", (0.0, 5.0), ("urisk", "georisk"), 3, 50, 30, 1, True)
    trade = trade_table(matrix, study, ["BM25", "DPH"], "BM25", "nDCG@10").set_index("α")
    assert list(trade.index) == ["0", "5"]
    base = matrix.loc["BM25"]
    cases = [("0", "U-CRO", PLAIN), ("5", "U-CRO", "U-CRO(a=5)"), ("5", "GeoRisk-LM", "GeoRisk-LM(a=5)")]
    for a, label, name in cases:
        run = matrix.loc[name]
        assert trade.loc[a, f"{label} nDCG@10"] == pytest.approx(run.mean(), abs=1e-12)
        assert trade.loc[a, f"{label} Risk"] == pytest.approx(np.maximum(base - run, 0).mean(), abs=1e-12)
        assert trade.loc[a, f"{label} Losses>20%"] == int(((base - run) / base > 0.2).sum())
        # GeoRisk among the PISA systems plus this run alone (the other re-rankers left out)
        geo = _georisk_by_formula(matrix.loc[["BM25", "DPH", name]], float(a))[name]
        assert trade.loc[a, f"{label} GeoRisk"] == pytest.approx(geo, abs=1e-12)
    geo0 = _georisk_by_formula(matrix.loc[["BM25", "DPH", PLAIN]], 5.0)[PLAIN]
    assert trade.loc["5", f"{PLAIN} GeoRisk"] == pytest.approx(geo0, abs=1e-12)
    # at alpha = 0 both re-rankers are LambdaMART
    assert trade.loc["0", "U-CRO nDCG@10"] == trade.loc["0", "GeoRisk-LM nDCG@10"]


@pytest.mark.parametrize("shift", [0.05, -0.05])
def test_alpha0_statement_says_what_was_measured(shift):
    matrix = _toy_matrix(seed=1)
    matrix.loc[PLAIN] = (matrix.loc["BM25"] + shift).clip(0, 1)
    study = Study("irds:x", (0.0, 5.0), ("urisk",), 3, 50, 30, 1, True)
    folds = folds_table(matrix, study, "BM25")
    parts = topic_folds(list(matrix.columns), 3, 1)
    assert folds["topics"].tolist() == [30, 10, 10, 10]
    for row, part in zip(folds.iloc[1:].itertuples(), parts, strict=True):
        assert row.BM25 == pytest.approx(matrix.loc["BM25", part].mean(), abs=1e-12)
    t_measure = TRisk(nDCG @ 10, alpha=0, baseline="BM25")
    averages = pd.DataFrame({repr(t_measure): [1.23], f"{t_measure!r} p-value": [0.045]}, index=[PLAIN])
    text = _alpha0_text(averages, folds, t_measure, nDCG @ 10, "BM25")
    word = "higher than" if matrix.loc[PLAIN].mean() > matrix.loc["BM25"].mean() else "lower than"
    assert f"re-ranker is {word} its baseline" in text
    assert f"LambdaMART has mean nDCG@10 {matrix.loc[PLAIN].mean():.4f} and BM25 " \
           f"{matrix.loc['BM25'].mean():.4f}" in text
    assert "t = TRisk at α = 0: 1.23, p = 0.045" in text


def test_report_template_fields():
    text = resources.files("pyterrier_risk.study").joinpath("report_template.md").read_text(encoding="utf-8")
    fields = {m.group("named") or m.group("braced") for m in string.Template.pattern.finditer(text)
              if m.group("named") or m.group("braced")}
    assert {"alpha0", "trade_table", "folds_table", "findings", "dataset"} <= fields
    rendered = render_report({f: f"<{f}>" for f in fields})
    assert "$" not in rendered and "<trade_table>" in rendered
    with pytest.raises(KeyError):  # a field the code does not fill is an error, not a "$name" in the report
        render_report({f: "" for f in fields - {"trade_table"}})


def test_unknown_dataset_and_unwritable_out(capsys, tmp_path):
    assert main(["demo", "--dataset", "irds:no-such-collection/v9", "--out", str(tmp_path / "o")]) == 2
    err = capsys.readouterr().err
    assert "unknown ir_datasets id 'no-such-collection/v9'" in err and "Traceback" not in err
    assert main(["demo", "--folds", "1", "--out", str(tmp_path / "o")]) == 2
    assert "--folds must be at least 3" in capsys.readouterr().err
    assert main(["demo", "--alpha", "-1", "--out", str(tmp_path / "o")]) == 2
    err = capsys.readouterr().err  # the CLI or run_demo refuses it, in one line
    assert err.count("\n") == 1 and "error:" in err and ">= 0" in err and "-1" in err
    (tmp_path / "file").write_text("x")
    assert main(["demo", "--out", str(tmp_path / "file" / "out")]) == 2
    err = capsys.readouterr().err
    assert "cannot write to the output folder" in err and "file" in err


@pytest.mark.slow
def test_offline_without_data_says_how_to_fix(tmp_path):
    """No collection in IR_DATASETS_HOME and no network: a clear message, exit 2, no traceback."""
    env = {**os.environ, "IR_DATASETS_HOME": str(tmp_path / "empty-home"),
           # make any download attempt fail at once, with or without a network
           "HTTP_PROXY": "http://127.0.0.1:9", "HTTPS_PROXY": "http://127.0.0.1:9",
           "http_proxy": "http://127.0.0.1:9", "https_proxy": "http://127.0.0.1:9", "NO_PROXY": ""}
    proc = subprocess.run([sys.executable, "-m", "pyterrier_risk", "demo", "--out", str(tmp_path / "out")],
                          capture_output=True, text=True, env=env, timeout=300)
    assert proc.returncode == 2, proc.stderr
    assert "Traceback" not in proc.stderr
    assert "irds:cranfield" in proc.stderr
    assert "IR_DATASETS_HOME" in proc.stderr and "ir_datasets_home" in proc.stderr


def _cleverdon_qrels():
    """Cranfield's qrels from ir_datasets, mapped here independently of the demo (1 = best ... 4, -1)."""
    import ir_datasets

    gain = {1: 4, 2: 3, 3: 2, 4: 1, -1: 0}
    return [ir_measures.Qrel(q.query_id, q.doc_id, gain[q.relevance])
            for q in ir_datasets.load("cranfield").qrels_iter()]


@pytest.fixture(scope="module")
def quick_study(tmp_path_factory):
    data_path("ir_datasets_home", "cranfield")  # conftest points IR_DATASETS_HOME at a copy of it
    out = tmp_path_factory.mktemp("demo") / "study"
    buffer = io.StringIO()
    sys_stdout, sys.stdout = sys.stdout, buffer
    try:
        status = main(["demo", "--quick", "--out", str(out)])
    finally:
        sys.stdout = sys_stdout
    return status, buffer.getvalue(), out


@pytest.mark.slow
@pytest.mark.realdata
def test_demo_report_shows_the_trade_of_both_rerankers(quick_study):
    status, stdout, out = quick_study
    assert status == 0
    assert "9 models (" in stdout and "report:" in stdout  # progress is shown (and the engine's bar)
    # early-stopped on the validation part (the study's default), at most 30 trees each
    sizes = re.search(r"3 models of (\d+)(?:–(\d+))? trees? on", stdout)
    assert sizes is not None and int(sizes.group(2) or sizes.group(1)) <= 30
    assert sizes.group(2) is None or int(sizes.group(1)) < int(sizes.group(2))
    report = (out / "report.md").read_text()
    for section in ["## The trade: what risk-sensitive training buys", "## Mean effectiveness",
                    "## Risk against BM25", "## Risk against all systems",
                    "## Which topics the re-rankers hurt", "## Up to which α each run beats BM25",
                    "## How far the re-rankers move from BM25's ranking",
                    "## How much the risk depends on the baseline",
                    "What risk-sensitive training changed", "Cleverdon"]:
        assert section in report
    assert "$" not in report  # every template field was filled
    for png in ["risk_gain", "helped_hurt", "georisk_alpha", "topic_tj", "kendall", "baselines_pca"]:
        path = out / "plots" / f"{png}.png"
        assert path.read_bytes()[:4] == b"\x89PNG" and path.stat().st_size > 5000
        assert f"plots/{png}.png" in report

    eff = pd.read_csv(out / "tables" / "effectiveness.csv").set_index("name")
    assert {"BM25", "DPH", PLAIN, "U-CRO(a=5)", "GeoRisk-LM(a=5)"} <= set(eff.index)
    trade = pd.read_csv(out / "tables" / "trade.csv", dtype={"α": str}).set_index("α")
    assert list(trade.index) == ["0", "5"]
    for label, name in [("U-CRO", "U-CRO(a=5)"), ("GeoRisk-LM", "GeoRisk-LM(a=5)")]:
        assert {f"{label} {c}" for c in ("nDCG@10", "Risk", "Losses>20%", "GeoRisk")} <= set(trade.columns)
        assert trade.loc["5", f"{label} nDCG@10"] == pytest.approx(eff.loc[name, "nDCG@10"], abs=1e-12)
        assert trade.loc["0", f"{label} nDCG@10"] == pytest.approx(eff.loc[PLAIN, "nDCG@10"], abs=1e-12)

    # the report states the alpha = 0 comparison as measured, whichever way it went
    means = eff["nDCG@10"]
    m = re.search(r"\*\*At α = 0 the re-ranker is (higher than|lower than|equal to) its baseline on the "
                  r"mean\.\*\*.*?LambdaMART has mean nDCG@10 ([\d.]+) and BM25 ([\d.]+) "
                  r"\(difference ([-+][\d.]+)", report)
    assert m, "the report must state LambdaMART's mean against BM25's"
    assert float(m.group(2)) == pytest.approx(means[PLAIN], abs=5e-5)
    assert float(m.group(3)) == pytest.approx(means["BM25"], abs=5e-5)
    diff = means[PLAIN] - means["BM25"]
    assert m.group(1) == ("higher than" if diff > 0 else "lower than" if diff < 0 else "equal to")
    folds = pd.read_csv(out / "tables" / "folds.csv", dtype={"fold": str}).set_index("fold")
    assert folds.loc["all", "difference"] == pytest.approx(diff, abs=1e-12)
    assert folds["topics"].iloc[1:].sum() == folds.loc["all", "topics"] == 225


@pytest.mark.slow
@pytest.mark.realdata
def test_demo_tables_agree_with_an_independent_evaluation(quick_study, capsys):
    _, _, out = quick_study
    qrels = _cleverdon_qrels()
    assert sorted((q.query_id, q.doc_id, q.relevance) for q in qrels) == sorted(
        read_qrels(out / "qrels.txt")[["qid", "docno", "label"]].itertuples(index=False, name=None))
    topics = sorted({q.query_id for q in qrels}, key=int)
    per_topic = {}
    for path in sorted((out / "runs").glob("*.run")):
        run = list(ir_measures.read_trec_run(str(path)))
        values = {v.query_id: v.value for v in ir_measures.iter_calc([ir_measures.nDCG @ 10], qrels, run)}
        assert len(values) == len(topics)  # cross-validation scored every topic
        per_topic[path.stem] = pd.Series([values[t] for t in topics], index=topics)
    matrix = pd.DataFrame(per_topic).T
    eff = pd.read_csv(out / "tables" / "effectiveness.csv").set_index("name")
    np.testing.assert_allclose(eff.loc[matrix.index, "nDCG@10"], matrix.mean(axis=1), atol=1e-12)

    # the trade table's GeoRisk: each re-ranker among the PISA systems only, by the paper's formula
    trade = pd.read_csv(out / "tables" / "trade.csv", dtype={"α": str}).set_index("α")
    pisa = ["BM25", "DPH", "PL2(c=1)", "QLD(mu=1000)"]
    for label, name in [("U-CRO", "U-CRO(a=5)"), ("GeoRisk-LM", "GeoRisk-LM(a=5)"), ("LambdaMART", PLAIN)]:
        expected = _georisk_by_formula(matrix.loc[[*pisa, name]], 5.0)[name]
        assert trade.loc["5", f"{label} GeoRisk"] == pytest.approx(expected, abs=1e-9)
        risk = np.maximum(matrix.loc["BM25"] - matrix.loc[name], 0).mean()
        if label != "LambdaMART":
            assert trade.loc["5", f"{label} Risk"] == pytest.approx(risk, abs=1e-12)

    # the runs can be re-evaluated from the shell with the written qrels: the eval command agrees
    risk = pd.read_csv(out / "tables" / "risk.csv").set_index("name")
    multi = pd.read_csv(out / "tables" / "multi.csv").set_index("name")
    runs = sorted(str(p) for p in (out / "runs").glob("*.run"))
    capsys.readouterr()
    assert main(["eval", "--qrels", str(out / "qrels.txt"), "--measure", "nDCG@10", "--alpha", "5",
                 "--baseline", str(out / "runs" / "BM25.run"), "--format", "csv", *runs]) == 0
    table = pd.read_csv(io.StringIO(capsys.readouterr().out)).set_index("name")
    assert sorted(table.index) == sorted(eff.index)  # run files are named like the systems
    for name in risk.index:
        assert table.loc[name, "URisk(nDCG@10,alpha=5,baseline='BM25')"] == pytest.approx(
            risk.loc[name, "URisk α=5"], abs=1e-12)
        row = risk.loc[name]
        assert row["URisk α=5"] == pytest.approx(row["Reward"] - 6 * row["Risk"], abs=1e-12)
    for name in eff.index:
        assert table.loc[name, "GeoRisk(nDCG@10,alpha=5)"] == pytest.approx(
            multi.loc[name, "GeoRisk α=5"], abs=1e-12)


def test_log_names_the_tree_count_once_when_all_models_have_it():
    assert _models_text([50] * 7) == "7 models of 50 trees"
    assert _models_text([12, 50, 50]) == "3 models of 12–50 trees"
    assert _models_text([1]) == "1 model of 1 tree"


def test_query_texts_are_cut_between_words():
    text = "what similarity laws must be obeyed when constructing aeroelastic models of heated high speed"
    short = short_query(text, 40)
    assert len(short) <= 40 and short.endswith(" …")
    kept = short.removesuffix(" …")
    assert text.startswith(kept) and text[len(kept)] == " "  # the cut falls on a space
    assert short_query("  a   short\nquery ", 40) == "a short query"  # short texts are kept whole
    # a hyphenated word is one word (textwrap would cut "time-to- …")
    text = "have any analytical studies been conducted on the time-to-failure mechanism"
    for width in range(12, len(text)):
        kept = short_query(text, width).removesuffix(" …")
        assert text.startswith(kept) and text[len(kept)] == " ", width
    # plot titles wrap between words too: a long run name is never split
    name = "GeoRisk-LM(a=10,baselines=BM25,DPH,PL2,QLD)"
    wrapped = _wrap(f"T_J of {name} against its first stage", 20)
    assert name in wrapped.split("\n")
    assert wrapped.replace("\n", " ") == f"T_J of {name} against its first stage"


def test_georisk_plot_gives_every_line_its_own_colour():
    from matplotlib.colors import to_rgba

    from pyterrier_risk import plot_georisk_alpha

    rng = np.random.default_rng(3)
    matrix = pd.DataFrame(rng.uniform(0, 1, (14, 20)), index=[f"run{i}" for i in range(14)])
    fig = plot_georisk_alpha(matrix, alphas=[0, 5, 10])
    lines = fig.axes[0].get_lines()
    assert len(lines) == 14
    assert len({to_rgba(line.get_color()) for line in lines}) == 14  # the demo's 14 runs: no colour twice
    wide = plot_georisk_alpha(pd.DataFrame(rng.uniform(0, 1, (25, 20))), alphas=[0, 5])
    styles = {(to_rgba(ln.get_color()), ln.get_linestyle()) for ln in wide.axes[0].get_lines()}
    assert len(styles) == 25  # beyond 20 lines the colours repeat with another line style


def test_topic_tj_panels_are_the_rerankers_against_their_first_stage():
    from pyterrier_risk import trisk

    matrix = _toy_matrix(seed=2)
    study = Study("irds:x", (0.0, 5.0), ("urisk", "georisk"), 3, 50, 30, 1, True)
    panels = tj_panels(matrix, study, "BM25")
    assert list(panels) == [f"{n} vs. BM25 (T_J at α=5)" for n in (PLAIN, "U-CRO(a=5)", "GeoRisk-LM(a=5)")]
    assert not any("DPH" in k for k in panels)
    expected = trisk(matrix.loc["U-CRO(a=5)"], matrix.loc["BM25"], alpha=5).t_j
    np.testing.assert_allclose(panels["U-CRO(a=5) vs. BM25 (T_J at α=5)"], expected)


def _exact_wilcoxon_p(d):
    """Two-sided exact p of the signed-rank statistic over every sign pattern (no ties, no zeros)."""
    d = np.asarray(d, dtype=float)
    ranks = np.argsort(np.argsort(np.abs(d))) + 1
    observed = ranks[d > 0].sum()
    signs = (np.arange(2 ** len(d))[:, None] >> np.arange(len(d))) & 1
    null = signs @ ranks
    mean = ranks.sum() / 2
    return np.mean(np.abs(null - mean) >= abs(observed - mean) - 1e-9)


def test_kendall_trend_counts_and_exact_wilcoxon_p():
    study = Study("irds:x", (0.0, 1.0, 10.0), ("urisk",), 3, 50, 30, 1, True)
    lo = np.array([0.30, 0.25, 0.41, 0.12, 0.33, 0.50, 0.27, 0.19, 0.05, 0.22])
    change = np.array([-0.11, -0.02, -0.23, 0.04, -0.15, -0.31, -0.07, 0.01, 0.0, -0.19])
    distances = pd.DataFrame({PLAIN: lo + 0.1, "U-CRO(a=1)": lo, "U-CRO(a=10)": lo + change})
    row = kendall_trend(distances, study).iloc[0]
    # with two alphas > 0 the smallest positive one is compared with the largest, not LambdaMART
    assert (row["α from"], row["α to"]) == ("1", "10")
    assert (row["closer"], row["further"], row["same"], row["topics"]) == (7, 2, 1, 10)
    assert row["bin 0 from"] == pytest.approx(0.1)  # 0.05
    assert row["bin 0 to"] == pytest.approx(0.2)  # 0.05, 0.03
    assert row["Wilcoxon p"] == pytest.approx(_exact_wilcoxon_p(change[change != 0]), abs=1e-12)
    only_one = Study("irds:x", (0.0, 5.0), ("urisk",), 3, 50, 30, 1, True)
    distances = pd.DataFrame({PLAIN: lo, "U-CRO(a=5)": lo + change})
    assert tuple(kendall_trend(distances, only_one).iloc[0][["α from", "α to"]]) == ("0", "5")
    plain_only = kendall_trend(distances[[PLAIN]], Study("irds:x", (0.0,), ("urisk",), 3, 50, 30, 1, True))
    assert plain_only.empty and "Wilcoxon p" in plain_only.columns  # α = 0 only: nothing to compare
    assert "no trend to test" in _kendall_text(plain_only, "BM25")


@pytest.mark.parametrize(("mean_to", "bin0_to", "p", "words"), [
    (0.10, 0.60, 0.001, "more topics stay close to BM25's ranking as α grows"),
    (0.30, 0.10, 0.001, "the rankings move further from BM25's as α grows"),
    (0.10, 0.60, 0.2, "no significant change in the distance from BM25"),
])
def test_kendall_sentence_follows_the_numbers(mean_to, bin0_to, p, words):
    trend = pd.DataFrame([{"re-ranker": "U-CRO", "α from": "1", "α to": "10", "topics": 9, "closer": 5,
                           "further": 3, "same": 1, "mean from": 0.2, "mean to": mean_to, "bin 0 from": 0.42,
                           "bin 0 to": bin0_to, "Wilcoxon p": p}])
    text = _kendall_text(trend, "BM25")
    assert words in text and f"{bin0_to:.0%} at α = 10" in text and f"p = {p:.2g}" in text


def test_breakeven_and_hurt_sentences_follow_the_numbers():
    study = Study("irds:x", (0.0, 1.0, 5.0), ("urisk",), 3, 50, 30, 1, True)
    table = pd.DataFrame({"name": ["DPH", PLAIN, "U-CRO(a=1)", "U-CRO(a=5)"], "Gain": 0.0, "Risk": 0.0,
                          "break-even α": [0.5, 2.0, 3.0, 1.5]})
    text = _breakeven_text(table, study, "BM25")
    assert "at α = 1, 3 of 4 runs (LambdaMART, U-CRO(a=1), U-CRO(a=5))" in text
    assert "at α = 5, 0 of 4 runs (none)" in text and "The largest α* is U-CRO(a=1)'s, 3.00." in text
    assert "does not move in one direction" in text and "2.00 → 3.00 → 1.50" in text
    hurt = pd.DataFrame({"name": ["A"] * 3 + ["B"] * 3, "difference": [-0.5, -0.1, 0.2, -0.3, 0.0, 0.1],
                         "loss_gt20": [True, True, False, True, False, False],
                         "t_j": [-3.0, -1.0, 1.0, -2.5, 0.0, 0.5],
                         "t_j_p_value": [0.01, 0.3, 0.3, 0.02, 1.0, 0.6]})
    text = _hurt_text(hurt, "BM25", 5.0)
    assert "A loses 2 of 3 topics, 2 by more than 20%, 1 with T_J ≤ −2" in text
    assert "B loses 1 of 3 topics, 1 by more than 20%, 1 with" in text
    assert "B loses more than 20% on fewer topics than A (1 vs 2)" in text


def _matrix_of_runs(out, qrels):
    """nDCG@10 per run (rows) and topic (columns) of the quick study's run files, by ir_measures."""
    topics = sorted({q.query_id for q in qrels}, key=int)
    rows = {}
    for path in sorted((out / "runs").glob("*.run")):
        run = list(ir_measures.read_trec_run(str(path)))
        values = {v.query_id: v.value for v in ir_measures.iter_calc([ir_measures.nDCG @ 10], qrels, run)}
        rows[path.stem] = [values.get(t, 0.0) for t in topics]
    return pd.DataFrame.from_dict(rows, orient="index", columns=topics)


def _brute_kendall(run, base):
    """Per topic: discordant pairs / all pairs of the common documents, pair by pair (ties not discordant)."""
    both = run.merge(base, on=["qid", "docno"], suffixes=("", "_b"))
    out = {}
    for qid, g in both.groupby("qid"):
        x, y = g["score"].to_numpy(), g["score_b"].to_numpy()
        sign = np.sign(x[:, None] - x[None, :]) * np.sign(y[:, None] - y[None, :])
        n = len(x)
        out[str(qid)] = np.triu(sign < 0, 1).sum() / (n * (n - 1) / 2)
    return pd.Series(out)


@pytest.mark.slow
@pytest.mark.realdata
def test_demo_answers_the_four_questions_from_the_numbers(quick_study):
    from scipy.stats import friedmanchisquare, wilcoxon

    _, _, out = quick_study
    report = (out / "report.md").read_text()
    matrix = _matrix_of_runs(out, _cleverdon_qrels())
    base = matrix.loc["BM25"]
    top = {n: read_run(out / "runs" / f"{n}.run") for n in ["BM25", PLAIN, "U-CRO(a=5)", "GeoRisk-LM(a=5)"]}
    top = {n: r[r["rank"] <= 50] for n, r in top.items()}  # the re-ranked depth of the quick study

    # 1. hurt topics: counts of the sentence against an independent count, queries cut between words
    hurt = pd.read_csv(out / "tables" / "hurt.csv", dtype={"qid": str})
    queries = {q.query_id: q.text for q in __import__("ir_datasets").load("cranfield").queries_iter()}
    for name in [PLAIN, "U-CRO(a=5)", "GeoRisk-LM(a=5)"]:
        run = matrix.loc[name]
        lost, gt20 = int((run < base).sum()), int(((base - run) / base > 0.2).sum())
        sig = int((hurt.loc[hurt["name"] == name, "t_j"] <= -2).sum())
        assert f"{name} loses {lost} of 225 topics, {gt20} by more than 20%, {sig} with T_J ≤ −2" in report
        assert int(hurt.loc[hurt["name"] == name, "loss_gt20"].sum()) == gt20
    section = report.split("## Which topics the re-rankers hurt")[1].split("##")[0]
    rows = [line.split("|")[1:-1] for line in section.splitlines() if re.match(r"\| \S+\s+\| \d+ ", line)]
    assert len(rows) == 15
    for row in rows:
        shown, full = row[2].strip(), " ".join(queries[row[1].strip()].split())
        assert shown == full or (shown.endswith(" …") and full.startswith(shown[:-2])
                                 and full[len(shown) - 2] == " ")

    # 2. break-even alpha = Gain / Risk from the per-topic scores
    be = pd.read_csv(out / "tables" / "break_even.csv").set_index("name")
    for name in be.index:
        d = matrix.loc[name] - base
        assert be.loc[name, "break-even α"] == pytest.approx(d.mean() / np.maximum(-d, 0).mean(), rel=1e-9)

    # 3. Kendall distances from BM25's top 50, pair by pair; the trend test from them
    dist = pd.read_csv(out / "tables" / "kendall_distance.csv", dtype={"qid": str}).set_index("qid")
    bins = pd.read_csv(out / "tables" / "kendall.csv").set_index("name")
    for name in [PLAIN, "U-CRO(a=5)", "GeoRisk-LM(a=5)"]:
        brute = _brute_kendall(top[name], top["BM25"]).reindex(dist.index)
        np.testing.assert_allclose(dist[name], brute, atol=1e-12)
        assert bins.loc[name, "0.0-0.1"] == pytest.approx((brute < 0.1).mean(), abs=1e-12)
        assert bins.loc[name].iloc[:10].sum() == pytest.approx(1.0)
    trend = pd.read_csv(out / "tables" / "kendall_trend.csv").set_index("re-ranker")
    for label, name in [("U-CRO", "U-CRO(a=5)"), ("GeoRisk-LM", "GeoRisk-LM(a=5)")]:
        d = dist[name] - dist[PLAIN]
        assert (trend.loc[label, "closer"], trend.loc[label, "further"]) == ((d < 0).sum(), (d > 0).sum())
        p = wilcoxon(dist[name], dist[PLAIN]).pvalue
        assert trend.loc[label, "Wilcoxon p"] == pytest.approx(p, rel=1e-9)
        counts = f"rises on {(d > 0).sum()}, stays on {(d == 0).sum()}"
        assert f"{counts} (Wilcoxon signed-rank p = {p:.2g})" in report

    # 4. baseline sensitivity: Friedman over every run's URisk at alpha = 5 under each PISA baseline; the
    # re-rankers are ranked too (issue 23 #18)
    pisa = ["BM25", "DPH", "PL2(c=1)", "QLD(mu=1000)"]
    d = matrix.to_numpy()[:, None, :] - matrix.loc[pisa].to_numpy()[None, :, :]  # run, baseline, topic
    urisk = np.where(d < 0, 6 * d, d).mean(axis=2)
    chi2 = friedmanchisquare(*urisk).statistic
    assert f"χ² = {chi2:.2f}, df = {len(matrix) - 1}" in report
    ranks = pd.read_csv(out / "tables" / "sensitivity.csv").set_index("name")
    assert sorted(ranks.index) == sorted(matrix.index)  # every run, the re-rankers too
    assert list(ranks.columns) == [*pisa, "MEAN", "MEDIAN", "MAX"]
    # issue 23 #19: LambdaMART's GeoRisk at alpha = 0 of the two tables, with why they differ
    trade = pd.read_csv(out / "tables" / "trade.csv").set_index("α")
    multi = pd.read_csv(out / "tables" / "multi.csv").set_index("name")
    assert (f"{PLAIN}'s GeoRisk at α = 0 is {multi.loc[PLAIN, 'GeoRisk α=0']:.4f} here, among all "
            f"{len(matrix)} runs, and {trade.loc[0, f'{PLAIN} GeoRisk']:.4f} in the trade table") in report


def _docs_tables(page):
    """``{csv name: rows of cells}`` of the ```text tables the page marks as the quick demo's output."""
    text = page.read_text(encoding="utf-8")
    found = re.findall(r"<!-- demo --quick: tables/(\w+)\.csv -->\n```text\n(.*?)\n```", text, re.S)
    return {name: [[c.strip() for c in line.strip().strip("|").split("|")] for line in body.splitlines()
                   if not set(line) <= set("|-: ")] for name, body in found}


def _cell_matches(shown, value):
    if not shown:
        return value == "" or pd.isna(value)
    try:
        number = float(shown)
    except ValueError:
        return shown == str(value)
    mantissa = shown.lower().partition("e")[0]
    exponent = int(shown.lower().partition("e")[2] or 0)
    unit = 10.0 ** (exponent - (len(mantissa.split(".")[1]) if "." in mantissa else 0))
    return abs(float(value) - number) <= unit * 0.5 + 1e-12


@pytest.mark.slow
@pytest.mark.realdata
def test_tutorial_tables_are_the_quick_demos(quick_study):
    """docs/tutorial.md shows the quick demo's tables: each one equals the run's CSV to the digits shown."""
    from helpers import REPO

    _, _, out = quick_study
    shown = _docs_tables(REPO / "docs" / "tutorial.md")
    assert set(shown) == {"folds", "trade", "kendall_trend"}
    for name, rows in shown.items():
        table = pd.read_csv(out / "tables" / f"{name}.csv", dtype=str, keep_default_na=False)
        assert rows[0] == list(table.columns), name
        assert len(rows) - 1 == len(table), name
        for row, (_, values) in zip(rows[1:], table.iterrows(), strict=True):
            bad = [(c, s, v) for c, s, v in zip(table.columns, row, values, strict=True)
                   if not _cell_matches(s, v)]
            assert not bad, f"docs/tutorial.md {name} table differs from the quick demo: {bad}"
    # the sentences around them
    folds = pd.read_csv(out / "tables" / "folds.csv", dtype={"fold": str}).set_index("fold")
    assert folds.loc["all", "difference"] < 0  # "plain LambdaMART is *below* BM25 on the mean"
    trade = pd.read_csv(out / "tables" / "trade.csv", dtype={"α": str}).set_index("α")
    # U-CRO: lower Risk, fewer Losses>20%, higher mean and GeoRisk at alpha 5
    assert trade.loc["5", "U-CRO Risk"] < trade.loc["0", "U-CRO Risk"]
    assert trade.loc["5", "U-CRO Losses>20%"] < trade.loc["0", "U-CRO Losses>20%"]
    assert trade.loc["5", "U-CRO nDCG@10"] > trade.loc["0", "U-CRO nDCG@10"]
    assert trade.loc["5", "U-CRO GeoRisk"] > trade.loc["5", "LambdaMART GeoRisk"]
    # GeoRisk-LM: fewer Losses>20%, but Risk, mean and GeoRisk "no better" than plain LambdaMART's
    assert trade.loc["5", "GeoRisk-LM Losses>20%"] < trade.loc["0", "GeoRisk-LM Losses>20%"]
    assert trade.loc["5", "GeoRisk-LM Risk"] >= trade.loc["0", "GeoRisk-LM Risk"]
    assert trade.loc["5", "GeoRisk-LM nDCG@10"] <= trade.loc["0", "GeoRisk-LM nDCG@10"]
    assert trade.loc["5", "GeoRisk-LM GeoRisk"] <= trade.loc["5", "LambdaMART GeoRisk"]
    trend = pd.read_csv(out / "tables" / "kendall_trend.csv").set_index("re-ranker")
    assert trend.loc["U-CRO", "Wilcoxon p"] < 0.05
    assert trend.loc["U-CRO", "mean to"] < trend.loc["U-CRO", "mean from"]
    assert trend.loc["U-CRO", "closer"] > trend.loc["U-CRO", "further"]
    # "so does the GeoRisk re-ranker ... but less (a smaller fall of the mean distance, fewer topics closer)"
    assert trend.loc["GeoRisk-LM", "Wilcoxon p"] < 0.05
    assert trend.loc["GeoRisk-LM", "closer"] > trend.loc["GeoRisk-LM", "further"]
    assert trend.loc["GeoRisk-LM", "closer"] < trend.loc["U-CRO", "closer"]
    fall = trend["mean from"] - trend["mean to"]
    assert 0 < fall["GeoRisk-LM"] < fall["U-CRO"]


# -- the shared PISA index, and Ctrl-C during retrieval ----------------------------------------------
_BUILD_CHILD = r"""
import hashlib, sys, time
from pathlib import Path
from pyterrier_risk.study._collection import build_index, index_lock, load_dataset, pisa_systems

ds, topics, _ = load_dataset("irds:vaswani")
print("ready", flush=True)
go = Path(sys.argv[2])
while not go.exists():  # both processes start building at the same moment
    time.sleep(0.002)
path = Path(sys.argv[1])
index = build_index(ds, path, path.parent / f"pisa-{sys.argv[3]}.log")
with index_lock(path):
    systems = pisa_systems(index)
digest = hashlib.sha256()
for name, system in systems.items():
    res = system(topics).sort_values(["qid", "docno"])  # PISA's threads return the queries in any order
    digest.update(res[["qid", "docno", "score", "rank"]].to_csv(index=False).encode())
print(digest.hexdigest(), flush=True)
"""


@pytest.mark.slow
@pytest.mark.realdata
def test_two_processes_building_one_index_wait_for_each_other(tmp_path):
    """Two demos sharing a cache used to abort (SIGABRT) in PISA, or retrieve from a half-built index."""
    pytest.importorskip("pyterrier_pisa")
    data_path("ir_datasets_home", "vaswani")  # conftest points IR_DATASETS_HOME at a copy of it
    cache = tmp_path / "cache"
    cache.mkdir()
    procs = [subprocess.Popen([sys.executable, "-c", _BUILD_CHILD, str(cache / "pisa-vaswani"),
                               str(tmp_path / "go"), str(i)], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              text=True) for i in range(2)]
    for proc in procs:
        assert proc.stdout.readline() == "ready\n", proc.communicate()[1]
    (tmp_path / "go").touch()
    outputs = [proc.communicate(timeout=300) for proc in procs]
    for proc, (_, err) in zip(procs, outputs, strict=True):
        assert proc.returncode == 0, err[-2000:]
    digests = [out.split()[-1] for out, _ in outputs]
    assert digests[0] == digests[1]  # the same index, the same results
    # one of them built it (its PISA log), the other waited and reused it; nothing else is left
    left = sorted(os.listdir(cache))
    assert left in ([f"pisa-{i}.log", "pisa-vaswani", "pisa-vaswani.lock"] for i in (0, 1)), left


class _Corpus:
    """A small synthetic collection; its corpus iterator can fail mid-way."""

    def __init__(self, failure=None):
        self.failure = failure

    def get_corpus_iter(self, verbose=False):
        words = ["risk", "gain", "query", "topic", "run", "baseline", "loss", "index"]
        for i in range(300):
            if i == 150 and self.failure is not None:
                raise self.failure
            yield {"docno": f"d{i}", "text": " ".join(words[(i * k) % 8] for k in range(1, 6))}


@pytest.mark.parametrize("failure", [KeyboardInterrupt(), OSError("corpus file truncated")])
def test_a_failed_index_build_leaves_nothing_and_the_next_one_builds(tmp_path, failure):
    """pyterrier-pisa reads the corpus in a thread and takes its error for the end of the corpus: a
    truncated index, cached for every later study. The build must fail, and leave nothing behind."""
    pytest.importorskip("pyterrier_pisa")
    from pyterrier_risk.study import StudyError
    from pyterrier_risk.study._collection import build_index

    path = tmp_path / "pisa-synthetic"
    (tmp_path / ".pisa-synthetic.99999.building").mkdir()  # left by a process that was killed
    expected = KeyboardInterrupt if isinstance(failure, KeyboardInterrupt) else StudyError
    with pytest.raises(expected, match="" if expected is KeyboardInterrupt else
                       r"pisa-synthetic stopped after 150 documents \(OSError: corpus file truncated\)"):
        build_index(_Corpus(failure), path, tmp_path / "pisa.log")
    assert sorted(os.listdir(tmp_path)) == ["pisa-synthetic.lock", "pisa.log"]  # no half-built index
    index = build_index(_Corpus(), path, tmp_path / "pisa.log")
    assert index.built() and index.num_docs() == 300
    assert sorted(os.listdir(tmp_path)) == ["pisa-synthetic", "pisa-synthetic.lock", "pisa.log"]


@pytest.mark.realdata
def test_demo_interrupted_during_pisa_retrieval_says_one_line(capsys, monkeypatch, tmp_path):
    """Ctrl-C while PISA retrieves (its C++ raises SystemError for it): one line, exit 130, no report."""
    import signal
    import threading

    pytest.importorskip("pyterrier_pisa")
    data_path("ir_datasets_home", "cranfield")
    from pyterrier_risk.study import _collection

    real = _collection.pisa_systems

    def retrieving_until_interrupted(index, quick=False, **kw):
        systems = real(index, quick=quick, **kw)
        first = next(iter(systems.values()))

        def retrieve(topics):
            threading.Timer(0.3, os.kill, (os.getpid(), signal.SIGINT)).start()
            many = pd.concat([topics] * 10, ignore_index=True)
            while True:  # ends with the interrupt, wherever it lands
                first(many)

        return {name: retrieve for name in systems}

    monkeypatch.setattr(_collection, "pisa_systems", retrieving_until_interrupted)
    out = tmp_path / "out"
    assert main(["demo", "--quick", "--out", str(out)]) == 130
    _, err = capsys.readouterr()
    assert err == "pyterrier-risk: interrupted\n"
    assert not (out / "report.md").exists() and not list(out.rglob("*.tmp"))


@pytest.mark.slow
@pytest.mark.realdata
def test_demo_leaves_no_temporary_files(quick_study):
    _, _, out = quick_study
    names = [p.name for p in out.rglob("*")]
    assert not [n for n in names if n.endswith((".tmp", ".building"))], names
    assert "pisa-irds_cranfield.lock" in names and (out / "report.md").stat().st_size > 0
