"""LETOR 4.0's official NDCG (Eval-Score-4.0.pl): the core function, the ir_measures measure, ``eval``.

The peer is the script itself: its per-query output on a sample of MQ2008 is committed under
tests/data/letor_eval (README there: source and command); with ``LETOR_EVAL_SCRIPT`` pointing at the
script and perl installed, the script also runs here on the whole of MQ2008's Fold1 test file.
"""

from __future__ import annotations

import gzip
import math
import os
import shutil
import subprocess
from pathlib import Path

import ir_measures
import numpy as np
import pandas as pd
import pytest
from helpers import data_path

import pyterrier_risk as pr
from pyterrier_risk.core import letor_ndcg, letor_ndcg_by_query

HERE = Path(__file__).parent / "data" / "letor_eval"
SAMPLE = pd.read_csv(HERE / "mq2008_fold1_sample.tsv", sep="\t", dtype={"qid": str, "docid": str})


def script_ndcg(path: Path) -> pd.DataFrame:
    """The NDCG block of the script's per-query output: qid -> NDCG@1..10 (rows), plus "Average"."""
    block = path.read_text().split("\n\n")[1].splitlines()
    rows = [line.rstrip("\t").split("\t") for line in block]
    frame = pd.DataFrame([r[1:11] for r in rows[1:]], index=[r[0] for r in rows[1:]], dtype=float)
    frame.columns = range(1, 11)
    return frame


def as4(values: pd.Series) -> list[str]:
    return [f"{v:.4f}" for v in values]


@pytest.mark.parametrize("column", ["ties", "f25"])
def test_core_matches_the_script_on_mq2008_sample(column: str) -> None:
    expected = script_ndcg(HERE / f"expected_{column}.txt")
    for k in range(1, 11):
        ours = letor_ndcg_by_query(SAMPLE["qid"], SAMPLE["label"], SAMPLE[f"pred_{column}"], k)
        assert list(ours.index) == list(expected.index[:-1])
        assert as4(ours) == as4(expected[k].iloc[:-1]), k
        assert f"{ours.mean():.4f}" == f"{expected.loc['Average', k]:.4f}"


@pytest.mark.parametrize("column", ["ties", "f25"])
def test_measure_matches_the_script_through_ir_measures(column: str) -> None:
    expected = script_ndcg(HERE / f"expected_{column}.txt")
    qrels = SAMPLE.rename(columns={"qid": "query_id", "docid": "doc_id", "label": "relevance"})
    run = qrels.assign(score=SAMPLE[f"pred_{column}"])[["query_id", "doc_id", "score"]]
    for k in (5, 10):
        measure = ir_measures.parse_measure(f"nDCG_letor4@{k}")
        got = {m.query_id: m.value for m in ir_measures.iter_calc([measure], qrels, run)}
        assert as4(pd.Series(got)[expected.index[:-1]]) == as4(expected[k].iloc[:-1])


def test_ties_keep_file_order_and_ranks_one_two_are_undiscounted() -> None:
    # ties: the relevant document listed second stays second (trec_eval would order by docno)
    assert letor_ndcg([0, 2, 0], [1.0, 1.0, 0.5], k=1) == 0.0
    assert letor_ndcg([2, 0, 0], [1.0, 1.0, 0.5], k=1) == 1.0
    # ranks 1 and 2 have the same weight: a relevant document at 2 instead of 1 loses nothing at k=2
    assert letor_ndcg([0, 1], [2.0, 1.0], k=2) == 1.0
    # rank 3 is divided by log2(3), rank 4 by log2(4) = 2: DCG@4 of [0, 0, 1, 2] = 1/log2 3 + 3/2
    ideal = 3 + 1
    assert letor_ndcg([0, 0, 1, 2], [4.0, 3.0, 2.0, 1.0], k=4) == pytest.approx(
        (1 / math.log2(3) + 3 / 2) / ideal)


def test_fewer_than_k_documents_or_no_relevant_scores_zero() -> None:
    assert letor_ndcg([2, 1, 0], [3.0, 2.0, 1.0], k=4) == 0.0
    assert letor_ndcg([2, 1, 0], [3.0, 2.0, 1.0], k=3) == 1.0
    assert letor_ndcg([0, 0, 0], [3.0, 2.0, 1.0], k=2) == 0.0


@pytest.mark.parametrize(("labels", "scores", "k", "match"), [
    ([0, 3], [1.0, 2.0], 1, "labels 0, 1, 2 only"),
    ([0, -1], [1.0, 2.0], 1, "labels 0, 1, 2 only"),
    ([0, 1], [1.0], 1, "differ in length"),
    ([0, 1], [1.0, float("nan")], 1, "NaN"),
    ([0, 1], [1.0, 2.0], 0, "positive integer"),
])
def test_bad_input_is_one_line_error(labels: list, scores: list, k: int, match: str) -> None:
    with pytest.raises(ValueError, match=match):
        letor_ndcg(labels, scores, k)


def test_measure_is_public_and_parsed_in_risk_measures() -> None:
    assert pr.nDCG_letor4 == ir_measures.parse_measure("nDCG_letor4")
    assert pr.letor_ndcg is letor_ndcg
    assert repr(pr.parse_measure("nDCG_letor4@10")) == "nDCG_letor4@10"
    assert repr(pr.parse_measure("URisk(nDCG_letor4@10,alpha=5)")) == "URisk(nDCG_letor4@10,alpha=5)"


def _trec_files(tmp_path: Path, column: str) -> tuple[Path, Path]:
    qrels, run = tmp_path / "s.qrels", tmp_path / f"{column}.run"
    judged = SAMPLE[["qid", "docid", "label"]].itertuples(index=False)
    qrels.write_text("".join(f"{q} 0 {d} {lab}\n" for q, d, lab in judged))
    run.write_text("".join(f"{q} Q0 {d} 0 {s} x\n"
                           for q, d, s in SAMPLE[["qid", "docid", f"pred_{column}"]].itertuples(False)))
    return qrels, run


def test_eval_command_prints_the_script_average(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    from pyterrier_risk.cli import main

    qrels, run = _trec_files(tmp_path, "ties")
    argv = ["eval", str(run), "--qrels", str(qrels), "--measure", "nDCG_letor4@10", "--format", "csv"]
    assert main(argv) == 0
    value = float(capsys.readouterr().out.splitlines()[1].split(",")[1])
    expected = script_ndcg(HERE / "expected_ties.txt").loc["Average", 10]
    assert f"{value:.4f}" == f"{expected:.4f}"


@pytest.mark.parametrize(("measure", "qrels_label", "match"), [
    ("nDCG_letor4", None, "needs a rank cutoff"),
    ("nDCG_letor4@10", 3, "labels 0, 1 and 2 only"),
])
def test_eval_command_refuses(tmp_path: Path, capsys: pytest.CaptureFixture, measure: str,
                              qrels_label: int | None, match: str) -> None:
    from pyterrier_risk.cli import main

    qrels, run = _trec_files(tmp_path, "ties")
    if qrels_label is not None:
        qrels.write_text(qrels.read_text().replace(" 2\n", f" {qrels_label}\n"))
    assert main(["eval", str(run), "--qrels", str(qrels), "--measure", measure]) == 2
    err = capsys.readouterr().err.strip()
    assert match in err and len(err.splitlines()) == 1


def _peer_script() -> tuple[str, str]:
    script = os.environ.get("LETOR_EVAL_SCRIPT")
    if not script or not Path(script).is_file():
        pytest.skip("set LETOR_EVAL_SCRIPT to LETOR 4.0's Eval-Score-4.0.pl to run the peer")
    perl = shutil.which("perl")
    if perl is None:
        pytest.skip("perl is not installed")
    return perl, script


def test_the_script_itself_on_mq2008_fold1(tmp_path: Path) -> None:
    perl, script = _peer_script()
    lines = gzip.open(data_path("letor4-mq2008", "Fold1", "test.txt.gz"), "rt").read().splitlines()
    feat = tmp_path / "test.txt"
    feat.write_text("\n".join(lines) + "\n")
    qids = [line.split()[1][4:] for line in lines]
    labels = [int(line.split()[0]) for line in lines]
    rng = np.random.default_rng(7)
    for name, preds in {"ties": rng.integers(0, 3, len(lines)).astype(float),
                        "scores": rng.normal(size=len(lines)).round(2)}.items():
        pred, out = tmp_path / f"{name}.pred", tmp_path / f"{name}.out"
        pred.write_text("\n".join(f"{p:g}" for p in preds) + "\n")
        subprocess.run([perl, script, str(feat), str(pred), str(out), "1"], check=True, capture_output=True)
        expected = script_ndcg(out)
        for k in range(1, 11):
            ours = letor_ndcg_by_query(qids, labels, preds, k)
            assert as4(ours[expected.index[:-1]]) == as4(expected[k].iloc[:-1]), (name, k)
