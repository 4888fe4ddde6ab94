"""Strict TREC run/qrels readers: good files, malformed lines, duplicates, unreadable files, irds ids."""

from __future__ import annotations

import gzip

import ir_measures
import pandas as pd
import pytest
from conftest import data_path

from pyterrier_risk import read_qrels, read_run
from pyterrier_risk.core._topics import TopicPolicyWarning

RUN_TEXT = "1 Q0 a 0 2.5 sys\n1 Q0 b 1 1.5 sys\n\n2 Q0 a 0 -3e-1 sys\n"
QRELS_TEXT = "1 0 a 1\n1 0 b 0\n2 0 a 2\n3 0 c 1\n"


def write(tmp_path, name, text, gz=False):
    path = tmp_path / name
    if gz:
        with gzip.open(path, "wt") as fh:
            fh.write(text)
    else:
        path.write_text(text)
    return path


@pytest.mark.parametrize("gz", [False, True])
def test_read_run(tmp_path, gz):
    path = write(tmp_path, "my.run.gz" if gz else "my.run", RUN_TEXT, gz)
    run = read_run(path)
    assert list(run.columns) == ["qid", "docno", "rank", "score", "name"]
    assert run["qid"].tolist() == ["1", "1", "2"] and run["docno"].tolist() == ["a", "b", "a"]
    assert run["score"].tolist() == [2.5, 1.5, -0.3] and run["rank"].tolist() == [0, 1, 0]
    assert set(run["name"]) == {"my"}
    assert read_run(path, name="x")["name"].iloc[0] == "x"
    dotted = write(tmp_path, "BM25b0.75", RUN_TEXT)
    assert read_run(dotted)["name"].iloc[0] == "BM25b0.75"


def test_read_run_gzip_detected_by_content(tmp_path):
    path = write(tmp_path, "noext", RUN_TEXT, gz=True)
    assert len(read_run(path)) == 3


@pytest.mark.parametrize(
    ("text", "match"),
    [
        ("1 Q0 a 0 2.5 sys\n1 Q0 b 1 1.5\n", r"bad.run:2: expected 6 fields"),
        ("1 Q0 a 0 2.5 sys extra\n", r"bad.run:1: expected 6 fields"),
        ("1 Q0 a 0 high sys\n", r"bad.run:1: score 'high' is not a number"),
        ("1 Q0 a first 1.0 sys\n", r"bad.run:1: rank 'first' is not an integer"),
        ("1 Q0 a 0 nan sys\n", r"bad.run:1: score is NaN"),
        (
            "1 Q0 a 0 2 s\n1 Q0 b 1 1 s\n1 Q0 a 2 0 s\n",
            r"bad.run:3: document 'a' is listed twice for topic '1'.*line 1",
        ),
        ("\n\n", r"bad.run: run file has no results"),
    ],
)
def test_read_run_malformed(tmp_path, text, match):
    path = write(tmp_path, "bad.run", text)
    with pytest.raises(ValueError, match=match):
        read_run(path)


def test_read_run_unreadable(tmp_path):
    with pytest.raises(FileNotFoundError, match="run file not found"):
        read_run(tmp_path / "missing.run")
    with pytest.raises(IsADirectoryError, match="directory"):
        read_run(tmp_path)
    binary = tmp_path / "binary.run"
    binary.write_bytes(bytes(range(128, 256)))
    with pytest.raises(ValueError, match="binary.run: not a text run file"):
        read_run(binary)
    broken = tmp_path / "broken.run.gz"
    broken.write_bytes(gzip.compress(RUN_TEXT.encode())[:20])
    with pytest.raises(ValueError, match="broken.run.gz: cannot read run file"):
        read_run(broken)


def test_read_run_topic_policy(tmp_path):
    qrels = read_qrels(write(tmp_path, "q.txt", QRELS_TEXT))
    run_text = RUN_TEXT + "9 Q0 z 0 1.0 sys\n"
    with pytest.warns(TopicPolicyWarning) as record:
        run = read_run(write(tmp_path, "r.run", run_text), qrels=qrels)
    messages = [str(w.message) for w in record]
    assert any("no results for 1 of the 3 qrels topics" in m for m in messages)  # topic 3
    assert any("1 topic(s) that are not in the qrels" in m for m in messages)  # topic 9
    assert sorted(set(run["qid"])) == ["1", "2"]


def test_read_qrels(tmp_path):
    qrels = read_qrels(write(tmp_path, "q.txt", QRELS_TEXT.replace("3 0 c 1", "3 0 c 1.0")))
    assert list(qrels.columns) == ["qid", "docno", "label"]
    assert qrels["label"].tolist() == [1, 0, 2, 1]
    assert qrels["qid"].tolist() == ["1", "1", "2", "3"]
    assert len(read_qrels(write(tmp_path, "q.gz", QRELS_TEXT, gz=True))) == 4


@pytest.mark.parametrize(
    ("text", "match"),
    [
        ("1 0 a 1\n1 0 b\n", r"bad.qrels:2: expected 4 fields"),
        ("1 0 a rel\n", r"bad.qrels:1: relevance label 'rel' is not an integer"),
        ("1 0 a 0.5\n", r"bad.qrels:1: relevance label '0.5'"),
        ("1 0 a 1\n1 0 a 0\n", r"bad.qrels:2: document 'a' is judged twice for topic '1'"),
        ("", r"bad.qrels: qrels file has no judgments"),
    ],
)
def test_read_qrels_malformed(tmp_path, text, match):
    with pytest.raises(ValueError, match=match):
        read_qrels(write(tmp_path, "bad.qrels", text))


def test_read_qrels_ir_datasets():
    qrels = read_qrels("irds:vaswani")
    assert list(qrels.columns) == ["qid", "docno", "label"]
    assert qrels["qid"].nunique() == 93
    pd.testing.assert_frame_equal(read_qrels("vaswani"), qrels)
    with pytest.raises(ValueError, match="unknown ir_datasets id 'no/such/dataset'"):
        read_qrels("irds:no/such/dataset")
    with pytest.raises(FileNotFoundError, match="not an ir_datasets id either"):
        read_qrels("no/such/file.txt")


def test_real_run_matches_ir_measures_reader():
    path = data_path("trec-web-2012-risk", "runs", "indri-rm-cata-filtered.run.gz")
    run = read_run(path)
    reference = list(ir_measures.read_trec_run(str(path)))
    assert len(run) == len(reference) == 8083
    assert run["name"].iloc[0] == "indri-rm-cata-filtered"
    assert [(r.query_id, r.doc_id, r.score) for r in reference[:50]] == list(
        run[["qid", "docno", "score"]].head(50).itertuples(index=False, name=None)
    )
    qrels = read_qrels(data_path("trec-web-2012-risk", "qrels.web.151-200.txt"))
    assert len(qrels) == 16055 and qrels["qid"].nunique() == 50
