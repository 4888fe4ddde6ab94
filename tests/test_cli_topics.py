"""``pyterrier-risk topics``: the hurt topics of run files against a baseline, and its one-line errors."""

from __future__ import annotations

import io

import pandas as pd
import pytest
from helpers import data_path

import pyterrier_risk as ptr
from pyterrier_risk.cli import main

QRELS = "1 0 d1 1\n1 0 d2 0\n2 0 d3 1\n2 0 d1 1\n3 0 d4 1\n"
BASE = "1 Q0 d1 1 2.0 t\n1 Q0 d2 2 1.0 t\n2 Q0 d3 1 3.0 t\n2 Q0 d1 2 1.5 t\n3 Q0 d4 1 1.0 t\n"
# new: topic 1 ranks the non-relevant d2 first (P@1 1 -> 0), topic 2 unchanged, topic 3 misses d4
NEW = "1 Q0 d2 1 2.0 t\n1 Q0 d1 2 1.0 t\n2 Q0 d3 1 3.0 t\n2 Q0 d1 2 1.5 t\n3 Q0 d9 1 1.0 t\n"


@pytest.fixture
def small(tmp_path):
    (tmp_path / "qrels.txt").write_text(QRELS)
    (tmp_path / "base.run").write_text(BASE)
    (tmp_path / "new.run").write_text(NEW)
    (tmp_path / "topics.tsv").write_text("1\tfirst query\n2\tsecond query\n3\tthird\n")
    return tmp_path


def _run(capsys, argv):
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


def _fails(capsys, argv, fragment):
    try:
        code = main(argv)
    except SystemExit as e:  # a usage error, as argparse exits
        code = e.code
    out, err = capsys.readouterr()
    assert code == 2, (out, err)
    lines = [line for line in err.splitlines() if not line.startswith("pyterrier-risk: note:")]
    assert len(lines) == 1 and lines[0].startswith("pyterrier-risk: error: "), err
    assert fragment in lines[0], err
    assert out == ""


def test_topics_csv_equals_the_python_api(capsys, small):
    q, base, new = (str(small / f) for f in ("qrels.txt", "base.run", "new.run"))
    code, out, err = _run(capsys, ["topics", new, "--qrels", q, "--measure", "P@1", "AP", "--baseline", base,
                                   "--format", "csv", "--topics", str(small / "topics.tsv")])
    assert code == 0, err
    table = pd.read_csv(io.StringIO(out), dtype={"qid": str})
    expected = ptr.hurt_topics({"base": base, "new": new}, "base", qrels=q, measures=["P@1", "AP"],
                               topics=small / "topics.tsv")
    pd.testing.assert_frame_equal(table, expected, check_dtype=False)
    p1 = table[table["measure"] == "P@1"]
    assert p1["qid"].tolist() == ["1", "3", "2"]  # most hurt first
    assert p1["query"].tolist() == ["first query", "third", "second query"]
    assert p1["loss_gt20"].tolist() == [True, True, False]


def test_topics_top_markdown_and_output(capsys, small, tmp_path):
    q, base, new = (str(small / f) for f in ("qrels.txt", "base.run", "new.run"))
    out_file = tmp_path / "out" / "hurt.md"
    code, out, err = _run(capsys, ["topics", "--qrels", q, new, "--baseline", "base", base, "--top", "1",
                                   "--measure", "P@1", "--round", "2", "-o", str(out_file)])
    assert code == 0, err
    assert out == ""
    tables = [t.splitlines() for t in out_file.read_text().split("\n\n") if t.startswith("|")]
    assert len(tables) == 2  # the per-run summary, then the most-hurt topics
    summary, lines = tables
    columns = ("name", "measure", "topics", "lost", "loss > 20%", "T_R ≤ −2", "mean change")
    assert summary[0].split("|")[1:-1] == [f" {c} " for c in columns]
    assert [c.strip() for c in summary[2].split("|")[1:-1]] == ["new", "P@1", "3", "2", "2", "0", "-0.67"]
    assert lines[0].startswith("| name ") and len(lines) == 3  # header, rule, the one most-hurt topic
    assert "| new " in lines[2] and "| 1 " in lines[2] and "-1.00" in lines[2]
    assert "The 1 most-hurt of 3 topics per run and measure (--all: every topic)." in out_file.read_text()


def test_topics_alpha_changes_t_r_as_trisk(capsys, small):
    q, base, new = (str(small / f) for f in ("qrels.txt", "base.run", "new.run"))
    code, out, err = _run(capsys, ["topics", new, base, "--qrels", q, "--baseline", "base", "--measure", "AP",
                                   "--alpha", "5", "--se", "jackknife", "--format", "csv"])
    assert code == 0, err
    table = pd.read_csv(io.StringIO(out), dtype={"qid": str}).set_index("qid")
    ap = table["baseline"], table["value"]
    ref = ptr.trisk(ap[1], ap[0], alpha=5, se="jackknife")
    pd.testing.assert_series_equal(table["t_j"], ref.t_j, check_names=False)


def test_topics_errors_are_one_line(capsys, small):
    q, base, new = (str(small / f) for f in ("qrels.txt", "base.run", "new.run"))
    _fails(capsys, ["topics", new, base, "--qrels", q], "required: --baseline")
    _fails(capsys, ["topics", "--qrels", q, "--baseline", base], "required: RUN")
    _fails(capsys, ["topics", new, "--baseline", base], "required: --qrels")
    _fails(capsys, ["topics", new, "--qrels", q, "--baseline", "nope"], "baseline run not found: nope")
    _fails(capsys, ["topics", base, "--qrels", q, "--baseline", base], "error: at least two systems are")
    _fails(capsys, ["topics", new, base, "--qrels", q, "--baseline", "base", "--top", "0"],
           "--top must be an integer >= 1")
    _fails(capsys, ["topics", new, base, "--qrels", q, "--baseline", "base", "--alpha", "-1"],
           "--alpha values must be finite numbers >= 0")
    _fails(capsys, ["topics", new, base, "--qrels", q, "--baseline", "base", "--measure", "URisk(AP)"],
           "is a risk measure")
    _fails(capsys, ["topics", new, base, "--qrels", q, "--baseline", "base", "--queries", str(small / "no")],
           "topics file not found")
    _fails(capsys, ["topics", new, base, "--qrels", q, "--baseline", "base", "--topics", str(small / "no")],
           "--topics is the query-text file; the topic policy is --topic-policy qrels|intersection")
    _fails(capsys, ["eval", new, base, "--qrels", q, "--topics", str(small / "topics.tsv")],
           "the topic policy is --topic-policy qrels|intersection")
    _fails(capsys, ["topics", new, base, "--qrels", q, "--baseline", "base", "--top", "2", "--all"],
           "give --top N or --all")
    (small / "same.run").write_text(BASE)
    _fails(capsys, ["topics", str(small / "same.run"), base, "--qrels", q, "--baseline", "base"],
           "ties the baseline on every topic")
    (small / "one.txt").write_text("1 0 d1 1\n")
    _fails(capsys, ["topics", new, base, "--qrels", str(small / "one.txt"), "--baseline", "base",
                    "--drop-extra-topics"], "at least two topics")


@pytest.mark.realdata
def test_topics_web2012_most_hurt_of_ql_cata(capsys):
    root = data_path("trec-web-2012-risk")
    code, out, err = _run(capsys, [
        "topics", str(root / "runs" / "indri-ql-cata.run.gz"), "--qrels", str(root / "qrels.web.151-200.txt"),
        "--baseline", str(root / "runs" / "indri-rm-cata-filtered.run.gz"), "--measure", "ERR@20",
        "--topics", str(root / "topics.web.151-200.xml.gz"), "--format", "csv", "--all"])
    assert code == 0, err
    table = pd.read_csv(io.StringIO(out), dtype={"qid": str})
    assert len(table) == 50 and table["difference"].is_monotonic_increasing
    assert table["value"].mean() == pytest.approx(0.1018, abs=5e-5)  # gdeval -c, the data README
    assert table["baseline"].mean() == pytest.approx(0.1947, abs=5e-5)
    assert (table["query"].notna()).all()
    # T_R sums to sqrt(c) TRisk (Dinçer et al. 2014, eq. 20)
    ref = ptr.trisk(table["value"], table["baseline"])
    assert table["t_r"].sum() == pytest.approx(50 ** 0.5 * ref.trisk)


@pytest.mark.realdata
def test_topics_from_evaluation_files_trec7(capsys):
    root = data_path("trec7-adhoc-terrier-runs")
    gdeval = root / "reference_eval" / "gdeval_c.csv"
    bm25, dph = "stem-stop_BM25b0.75_1", "stem-stop_DLH13_2"
    code, out, err = _run(capsys, ["topics", "--evalfile", str(gdeval), "--baseline", bm25,
                                   "--measure", "nDCG(dcg='exp-log2')@20",
                                   "--qrels", str(root / "qrels.adhoc.351-400.txt"), "--format", "csv",
                                   "--topics", str(root / "topics.adhoc.351-400.txt"), "--all"])
    assert code == 0, err
    table = pd.read_csv(io.StringIO(out), dtype={"qid": str})
    ref = pd.read_csv(gdeval, dtype={"topic": str})
    ref = ref[(ref["k"] == 20) & (ref["topic"] != "amean")]
    ref = ref.pivot(index="topic", columns="run", values="ndcg@k")
    block = table[table["name"] == dph].set_index("qid")
    assert len(block) == 50 and block["difference"].is_monotonic_increasing
    pd.testing.assert_series_equal(block["value"], ref[dph].reindex(block.index), check_names=False)
    pd.testing.assert_series_equal(block["baseline"], ref[bm25].reindex(block.index), check_names=False)
    assert block.loc["351", "query"] == "Falkland petroleum exploration"


def test_old_spellings_keep_working_with_a_note(capsys, small):
    """Issue 23 #2: --topics was the topic policy and --queries the query texts; both still work."""
    q, base, new = (str(small / f) for f in ("qrels.txt", "base.run", "new.run"))
    argv = ["topics", new, base, "--qrels", q, "--baseline", "base", "--measure", "AP", "--format", "csv"]
    texts = str(small / "topics.tsv")
    code, now, err = _run(capsys, [*argv, "--topic-policy", "intersection", "--topics", texts])
    assert code == 0 and "note" not in err, err
    code, old, err = _run(capsys, [*argv, "--topics", "intersection", "--queries", str(small / "topics.tsv")])
    assert code == 0 and old == now
    notes = err.splitlines()
    assert len(notes) == 2 and all(n.startswith("pyterrier-risk: note: ") for n in notes)
    assert "--queries FILE is now --topics FILE" in err and "--topic-policy intersection" in err
    code, _, err = _run(capsys, ["eval", new, base, "--qrels", q, "--topics", "qrels", "--format", "csv"])
    assert code == 0 and "--topics qrels is now --topic-policy qrels" in err


def test_markdown_reads_as_an_answer(capsys, small):
    """Issue 23 #5: one T column where T_J = T_R; tiny p-values in 1e-6 form; --help has no '%%'."""
    q, base, new = (str(small / f) for f in ("qrels.txt", "base.run", "new.run"))
    code, out, err = _run(capsys, ["topics", new, base, "--qrels", q, "--baseline", "base", "--measure",
                                   "AP"])
    assert code == 0, err
    header = out.split("\n\n")[2].splitlines()[0]
    assert "t_r" in header and "t_j" not in header and "T_J equals T_R" in out
    from pyterrier_risk.reporting import write_table

    text = write_table(pd.DataFrame({"t_r_p_value": [3.2e-7, 0.2], "x": [1e-7, 0.5]}))
    assert " 3e-7 |" in text and "0.2000" in text and "0.0000" in text  # x is no p-value: 4 decimals
    with pytest.raises(SystemExit):
        main(["topics", "--help"])
    help_text = capsys.readouterr().out
    assert "Loss > 20%" in help_text and "%%" not in help_text


@pytest.mark.realdata
def test_trec7_default_table_fits_a_terminal(capsys, trec7_short):
    """Issue 23 #6: `topics` with the query texts on the 19 TREC-7 runs was 193 characters wide."""
    root = trec7_short  # the 19 runs' first 20 lines per topic: the same names, texts and nDCG@20
    code, out, err = _run(capsys, ["topics", "--qrels", str(root / "qrels.adhoc.351-400.txt"), "--topics",
                                   str(root / "topics.adhoc.351-400.txt"), "--baseline",
                                   "stem-stop_BM25b0.75_1",
                                   str(root / "runs")])
    assert code == 0, err
    rows = [line for line in out.splitlines() if line.startswith("|")]
    assert max(map(len, rows)) <= 160
    assert len(rows) == (2 + 18) + (2 + 18 * 5)  # the summary, then the 5 most-hurt topics of each run
