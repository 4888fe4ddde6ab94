"""The ``pyterrier-risk demo`` study: its building blocks, and an end-to-end run on irds:vaswani."""

import io
import os
import subprocess
import sys

import ir_measures
import numpy as np
import pandas as pd
import pytest
from conftest import data_path

from pyterrier_risk.cli._demo import candidate_features, topic_folds, with_tail, write_trec_run
from pyterrier_risk.cli._main import main
from pyterrier_risk.data._trec import read_run


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


def test_with_tail_keeps_first_stage_order_below_reranked():
    first = _res([("1", d, s) for d, s in zip("abcdef", [6, 5, 4, 3, 2, 1], strict=True)])
    reranked = pd.DataFrame({"qid": "1", "query": "q", "docno": ["b", "a"], "score": [0.3, -0.2],
                             "rank": [0, 1]})
    out = with_tail(reranked, first, depth=2)
    assert out["docno"].tolist() == ["b", "a", "c", "d", "e", "f"]
    assert out["rank"].tolist() == list(range(6))
    assert (out["score"].diff().iloc[1:] < 0).all()


def test_write_trec_run_round_trip(tmp_path):
    res = _res([("2", "x", 1.5), ("1", "a", 0.25), ("1", "b", 0.75)])
    write_trec_run(res, tmp_path / "r.run", "tag")
    back = read_run(tmp_path / "r.run")
    assert back["name"].iloc[0] == "r"
    assert back[["qid", "docno", "rank"]].values.tolist() == [["1", "b", 1], ["1", "a", 2], ["2", "x", 1]]
    assert back["score"].tolist() == [0.75, 0.25, 1.5]


def test_unknown_dataset_and_unwritable_out(capsys, tmp_path):
    assert main(["demo", "--dataset", "irds:no-such-collection/v9", "--out", str(tmp_path / "o")]) == 2
    err = capsys.readouterr().err
    assert "unknown ir_datasets id 'no-such-collection/v9'" in err and "Traceback" not in err
    assert main(["demo", "--folds", "1", "--out", str(tmp_path / "o")]) == 2
    assert "--folds must be at least 2" in capsys.readouterr().err
    assert main(["demo", "--alpha", "-1", "--out", str(tmp_path / "o")]) == 2
    assert "alphas must be non-empty and >= 0" in capsys.readouterr().err
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
    assert "irds:vaswani" in proc.stderr
    assert "IR_DATASETS_HOME" in proc.stderr and "ir_datasets_home" in proc.stderr


@pytest.mark.slow
@pytest.mark.realdata
def test_demo_end_to_end_on_vaswani(capsys, tmp_path):
    data_path("ir_datasets_home", "vaswani")  # conftest points IR_DATASETS_HOME at a copy of it
    out = tmp_path / "study"
    assert main(["demo", "--quick", "--out", str(out)]) == 0
    stdout = capsys.readouterr().out
    assert "fold 3/3" in stdout and "report:" in stdout  # progress is shown

    report = (out / "report.md").read_text()
    for section in ["## Mean effectiveness", "## Risk against BM25", "## Risk against all systems",
                    "## Per-topic view", "What risk-sensitive training changed"]:
        assert section in report
    for png in ["risk_gain", "helped_hurt", "georisk_alpha", "topic_tj"]:
        path = out / "plots" / f"{png}.png"
        assert path.read_bytes()[:4] == b"\x89PNG" and path.stat().st_size > 5000
        assert f"plots/{png}.png" in report

    eff = pd.read_csv(out / "tables" / "effectiveness.csv").set_index("name")
    risk = pd.read_csv(out / "tables" / "risk.csv").set_index("name")
    assert {"BM25", "DPH", "U-CRO(a=0)", "U-CRO(a=5)"} <= set(eff.index)
    assert any(c.startswith("UE(") for c in eff.columns)

    # the run files reproduce the table with an independent ir_measures computation
    import ir_datasets

    qrels = list(ir_datasets.load("vaswani").qrels_iter())
    topics = sorted({q.query_id for q in qrels}, key=int)
    for name in ["BM25", "U-CRO(a=5)"]:
        run = list(ir_measures.read_trec_run(str(out / "runs" / f"{name}.run")))
        per_topic = {m.query_id: m.value for m in ir_measures.iter_calc([ir_measures.nDCG @ 10], qrels, run)}
        assert len(per_topic) == len(topics)  # cross-validation scored every topic
        assert eff.loc[name, "nDCG@10"] == pytest.approx(np.mean([per_topic[t] for t in topics]), abs=1e-12)

    # Experiment's URisk equals the 2012 decomposition: Reward - (1 + alpha) Risk
    for name in ["DPH", "U-CRO(a=0)", "U-CRO(a=5)"]:
        row = risk.loc[name]
        assert row["Gain"] == pytest.approx(eff.loc[name, "nDCG@10"] - eff.loc["BM25", "nDCG@10"], abs=1e-12)
        assert row["URisk α=5"] == pytest.approx(row["Reward"] - 6 * row["Risk"], abs=1e-12)

    # the runs can be re-evaluated from the shell: the eval command agrees with the report
    runs = sorted(str(p) for p in (out / "runs").glob("*.run"))
    assert main(["eval", "--qrels", "irds:vaswani", "--measure", "nDCG@10", "--alpha", "5", "--baseline",
                 str(out / "runs" / "BM25.run"), "--format", "csv", *runs]) == 0
    table = pd.read_csv(io.StringIO(capsys.readouterr().out)).set_index("run")
    assert sorted(table.index) == sorted(eff.index)  # run files are named like the systems
    multi = pd.read_csv(out / "tables" / "multi.csv").set_index("name")
    for name in risk.index:
        assert table.loc[name, "URisk(nDCG@10,alpha=5,baseline='BM25')"] == pytest.approx(
            risk.loc[name, "URisk α=5"], abs=1e-12)
    for name in eff.index:
        assert table.loc[name, "GeoRisk(nDCG@10,alpha=5)"] == pytest.approx(
            multi.loc[name, "GeoRisk α=5"], abs=1e-12)
