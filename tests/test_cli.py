"""The ``pyterrier-risk eval`` command on real TREC runs, and its errors on bad input (exit status 2)."""

import io
import subprocess
import sys
from pathlib import Path

import ir_measures
import numpy as np
import pandas as pd
import pytest
from helpers import data_path

from pyterrier_risk.cli import main
from pyterrier_risk.measures import parse_measure

GDEVAL_NDCG = "nDCG(gains={-2:0,0:0,1:1,2:3,3:7,4:15})@20"
WEB_RUNS = ["indri-ql-cata-filtered", "indri-rm-catb", "indri-ql-catb-filtered"]


def _run(capsys, argv):
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def web():
    root = data_path("trec-web-2012-risk")
    return root / "qrels.web.151-200.txt", {r: root / "runs" / f"{r}.run.gz" for r in
                                              [*WEB_RUNS, "indri-rm-cata-filtered"]}


@pytest.mark.realdata
def test_eval_web2012_against_ir_measures(capsys, web):
    qrels_path, runs = web
    code, out, err = _run(capsys, [
        "eval", "--qrels", str(qrels_path), "--measure", GDEVAL_NDCG, "--alpha", "0", "5",
        "--baseline", str(runs["indri-rm-cata-filtered"]), "--format", "csv",
        *[str(runs[r]) for r in WEB_RUNS]])
    assert code == 0, err
    table = pd.read_csv(io.StringIO(out)).set_index("name")
    # one row per run, named by the file name without extension; the baseline run is listed too
    assert sorted(table.index) == sorted([*WEB_RUNS, "indri-rm-cata-filtered"])
    base = parse_measure(GDEVAL_NDCG)
    urisk5 = parse_measure(f"URisk({GDEVAL_NDCG},alpha=5,baseline='indri-rm-cata-filtered')")
    assert {repr(base), repr(urisk5), f"{parse_measure(repr(urisk5)).__repr__()}"} <= set(table.columns)

    # independent computation with ir_measures: per-topic nDCG, missing topics score 0 (gdeval -c)
    qrels = list(ir_measures.read_trec_qrels(str(qrels_path)))
    topics = sorted({q.query_id for q in qrels})

    def per_topic(name):
        run = list(ir_measures.read_trec_run(str(runs[name])))
        values = {m.query_id: m.value for m in ir_measures.iter_calc([base], qrels, run)}
        return np.array([values.get(t, 0.0) for t in topics])

    b = per_topic("indri-rm-cata-filtered")
    assert table.loc["indri-rm-cata-filtered", repr(base)] == pytest.approx(b.mean(), abs=1e-12)
    assert round(b.mean(), 4) == 0.1118  # the official gdeval.pl value (data README)
    for name in WEB_RUNS:
        s = per_topic(name)
        assert table.loc[name, repr(base)] == pytest.approx(s.mean(), abs=1e-12)
        d = s - b
        expected = np.mean(np.where(d < 0, 6 * d, d))  # Wang et al. 2012 eq. 4 with alpha = 5
        assert table.loc[name, repr(urisk5)] == pytest.approx(expected, abs=1e-12)


@pytest.mark.slow
@pytest.mark.realdata
def test_eval_trec7_multiple_baselines_markdown_and_plots(capsys, tmp_path):
    root = data_path("trec7-adhoc-terrier-runs")
    runs = sorted((root / "runs").glob("stem-stop_*.run.gz"))[:3]
    code, out, err = _run(capsys, [
        "eval", "--qrels", str(root / "qrels.adhoc.351-400.txt"), "--measure", "AP", "--measure", "nDCG@20",
        "--alpha", "0", "5", "--baseline", runs[1].name[: -len(".run.gz")], "--baselines", "mean", "max",
        "--plots", str(tmp_path / "plots"), "--layout", "wide", *map(str, runs)])
    assert code == 0, err
    lines = out.splitlines()
    assert lines[1].startswith("| ---") and len(lines) == 2 + len(runs)
    for col in ["AP", "nDCG@20", "TRisk(AP,alpha=5,baseline='mean')", "URisk(nDCG@20,baseline='max')",
                "GeoRisk(nDCG@20,alpha=5)", "ZRisk(AP)"]:
        assert f" {col} " in lines[0], col
    pngs = sorted(p.name for p in (tmp_path / "plots").glob("*.png"))
    for measure in ("AP", "nDCG@20"):  # every measure, named in the file (issue 16, item 5)
        assert f"georisk_alpha_{measure}.png" in pngs and f"risk_gain_{measure}.png" in pngs
        other = runs[0].name[: -len(".run.gz")]
        assert f"helped_hurt_{other}_{measure}.png" in pngs and f"topic_tj_{other}_{measure}.png" in pngs
    assert len(pngs) == 2 * (2 + 2 * (len(runs) - 1))
    assert "wrote 12 plots for 2 measure(s)" in err
    assert all((tmp_path / "plots" / p).stat().st_size > 5000 for p in pngs)


@pytest.mark.realdata
def test_eval_perquery_and_latex(capsys, web, tmp_path):
    qrels_path, runs = web
    out_file = tmp_path / "pq.csv"
    code, out, err = _run(capsys, [
        "eval", "--qrels", str(qrels_path), "--measure", "P@10", "--perquery", "--format", "csv",
        "--baseline", "indri-rm-cata-filtered", "--output", str(out_file),
        str(runs["indri-rm-cata-filtered"]), str(runs["indri-rm-catb"])])
    assert code == 0, err
    assert out == ""
    pq = pd.read_csv(out_file, dtype={"qid": str})
    assert {"name", "qid", "measure", "value"} <= set(pq.columns)
    assert set(pq.loc[pq["measure"] == "P@10", "qid"]) == {str(t) for t in range(151, 201)}
    code, out, err = _run(capsys, ["eval", "--qrels", str(qrels_path), "--format", "latex",
                                   str(runs["indri-rm-catb"])])
    assert code == 0, err
    assert out.startswith("\\begin{tabular}") and "indri-rm-catb" in out and "nDCG@20" in out
    # without --format, the output file's suffix decides
    assert main(["eval", "--qrels", str(qrels_path), "--output", str(tmp_path / "t.tex"),
                 str(runs["indri-rm-catb"])]) == 0
    assert (tmp_path / "t.tex").read_text() == out


# ---------------------------------------------------------------------------------------- bad input
QRELS = "1 0 d1 1\n1 0 d2 0\n2 0 d1 0\n2 0 d3 2\n"
RUN = "1 Q0 d1 1 2.0 t\n1 Q0 d2 2 1.0 t\n2 Q0 d3 1 3.0 t\n2 Q0 d1 2 1.5 t\n"


@pytest.fixture
def small(tmp_path):
    (tmp_path / "qrels.txt").write_text(QRELS)
    (tmp_path / "a.run").write_text(RUN)
    (tmp_path / "b.run").write_text(RUN.replace("3.0", "0.5"))
    return tmp_path


def _fails(capsys, argv, *fragments):
    code, out, err = _run(capsys, argv)
    assert code == 2, (out, err)
    assert err.startswith("pyterrier-risk: error: ")
    assert "Traceback" not in err
    for fragment in fragments:
        assert fragment in err, err
    return err


def test_small_eval_works(capsys, small):
    code, out, err = _run(capsys, ["eval", "--qrels", str(small / "qrels.txt"), "--measure", "P@1",
                                   "--baseline", "a", "--format", "csv", str(small / "a.run"),
                                   str(small / "b.run")])
    assert code == 0, err
    assert err == ""
    table = pd.read_csv(io.StringIO(out)).set_index("name")
    assert table.loc["a", "P@1"] == 1.0 and table.loc["b", "P@1"] == 0.5
    assert table.loc["b", "URisk(P@1,baseline='a')"] == -0.5


def test_malformed_run_names_file_and_line(capsys, small):
    (small / "bad.run").write_text(RUN + "2 Q0 d9 3 1.0\n")
    _fails(capsys, ["eval", "--qrels", str(small / "qrels.txt"), str(small / "bad.run")], "bad.run:5",
           "6 fields")
    (small / "nan.run").write_text(RUN.replace("1.5", "high"))
    _fails(capsys, ["eval", "--qrels", str(small / "qrels.txt"), str(small / "nan.run")], "nan.run:4",
           "'high' is not a number")


def test_unreadable_run(capsys, small):
    _fails(capsys, ["eval", "--qrels", str(small / "qrels.txt"), str(small / "missing.run")], "missing.run")
    (small / "binary.run").write_bytes(b"\xff\xfe\x00garbage")
    _fails(capsys, ["eval", "--qrels", str(small / "qrels.txt"), str(small / "binary.run")], "binary.run")
    _fails(capsys, ["eval", "--qrels", str(small / "qrels.txt"), str(small)], str(small))


def test_topics_absent_from_qrels(capsys, small):
    (small / "extra.run").write_text(RUN + "99 Q0 d1 1 1.0 t\n")
    _fails(capsys, ["eval", "--qrels", str(small / "qrels.txt"), str(small / "extra.run")], "extra.run",
           "1 topic(s) absent from the qrels ('99')")
    code, out, err = _run(capsys, ["eval", "--qrels", str(small / "qrels.txt"), "--drop-extra-topics",
                                   "--format", "csv", "--measure", "P@1", str(small / "extra.run")])
    assert code == 0 and pd.read_csv(io.StringIO(out))["P@1"].iloc[0] == 1.0
    assert "ignoring results for 1 topic(s) absent from the qrels" in err


def test_topics_missing_from_a_run_score_zero_with_a_note(capsys, small):
    (small / "part.run").write_text("1 Q0 d1 1 2.0 t\n")
    code, out, err = _run(capsys, ["eval", "--qrels", str(small / "qrels.txt"), "--measure", "P@1",
                                   "--format", "csv", str(small / "part.run")])
    assert code == 0
    assert "part.run has no results for 1 of the 2 qrels topics; they score 0" in err
    assert pd.read_csv(io.StringIO(out))["P@1"].iloc[0] == 0.5  # topic 2 counts as 0


def test_duplicate_document(capsys, small):
    (small / "dup.run").write_text(RUN + "1 Q0 d1 3 0.5 t\n")
    _fails(capsys, ["eval", "--qrels", str(small / "qrels.txt"), str(small / "dup.run")], "dup.run:5",
           "'d1'", "line 1")


def test_unknown_irds_id_and_bad_qrels(capsys, small):
    _fails(capsys, ["eval", "--qrels", "irds:no-such/dataset", str(small / "a.run")], "no-such/dataset")
    (small / "bad_qrels.txt").write_text(QRELS + "3 0 d1\n")
    _fails(capsys, ["eval", "--qrels", str(small / "bad_qrels.txt"), str(small / "a.run")], "bad_qrels.txt:5")


def test_unwritable_outputs(capsys, small):
    (small / "blocker").write_text("a file, not a folder")
    _fails(capsys, ["eval", "--qrels", str(small / "qrels.txt"), "--output", str(small / "blocker" / "t.md"),
                    str(small / "a.run")], "blocker")
    _fails(capsys, ["eval", "--qrels", str(small / "qrels.txt"), "--plots", str(small / "blocker" / "p"),
                    "--baseline", "a", str(small / "a.run"), str(small / "b.run")],
           "--plots folder", "blocker")


def test_bad_measure_baseline_alpha_and_names(capsys, small):
    _fails(capsys, ["eval", "--qrels", str(small / "qrels.txt"), "--measure", "NoSuchMeasure@3",
                    str(small / "a.run")], "NoSuchMeasure@3")
    _fails(capsys, ["eval", "--qrels", str(small / "qrels.txt"), "--baseline", "zzz", str(small / "a.run")],
           "baseline run not found: zzz")
    _fails(capsys, ["eval", "--qrels", str(small / "qrels.txt"), str(small / "a.run"), "--alpha", "-1"],
           "--alpha")
    (small / "other").mkdir()
    (small / "other" / "a.run").write_text(RUN)
    _fails(capsys, ["eval", "--qrels", str(small / "qrels.txt"), str(small / "a.run"),
                    str(small / "other" / "a.run")], "two runs are named 'a'")


def test_usage_errors_exit_2(capsys):
    with pytest.raises(SystemExit) as e:
        main(["eval"])
    assert e.value.code == 2
    with pytest.raises(SystemExit) as e:
        main([])
    assert e.value.code == 2
    capsys.readouterr()


def test_python_m_entry_point(small):
    argv = ["eval", "--qrels", str(small / "qrels.txt"), str(small / "missing.run")]
    proc = subprocess.run([sys.executable, "-m", "pyterrier_risk", *argv], capture_output=True, text=True,
                          timeout=120)
    assert proc.returncode == 2
    assert "missing.run" in proc.stderr and "Traceback" not in proc.stderr


@pytest.mark.parametrize(("path", "name"), [
    ("runs/bm25.run.gz", "bm25"),
    ("stem-stop_BM25b0.75_1.run", "stem-stop_BM25b0.75_1"),
    ("BM25b0.75", "BM25b0.75"),
    ("dph.res", "dph"),
    ("plain", "plain"),
    (".hidden", ".hidden"),
])
def test_run_names_drop_only_real_extensions(path, name, tmp_path):
    from pyterrier_risk.data import read_run, run_name

    assert run_name(path) == name
    if name != ".hidden":  # read_run names a run the same way
        (tmp_path / Path(path).name).write_text("1 Q0 d 1 1.0 t\n")
        assert read_run(tmp_path / Path(path).name)["name"].iloc[0] == name


def test_risk_measure_given_in_full_and_invalid_base_parameters(capsys, small):
    qrels, a, b = str(small / "qrels.txt"), str(small / "a.run"), str(small / "b.run")
    code, out, err = _run(capsys, ["eval", "--qrels", qrels, "--measure", "P@1", "--measure",
                                   "URisk(P@1,alpha=1,baseline='a')", "--baseline", "a", "--format", "csv",
                                   a, b])
    assert code == 0, err
    table = pd.read_csv(io.StringIO(out)).set_index("name")
    assert table.loc["b", "URisk(P@1,alpha=1,baseline='a')"] == -1.0  # (1 + 1) x (0.5 - 1)
    assert table.loc["b", "URisk(P@1,baseline='a')"] == -0.5  # derived from the base P@1 and --baseline
    # a risk measure as the only --measure: not used as a base of further risk measures
    code, out, err = _run(capsys, ["eval", "--qrels", qrels, "--measure", "GeoRisk(P@1)", "--baseline", "a",
                                   "--format", "csv", a, b])
    assert code == 0, err
    assert list(pd.read_csv(io.StringIO(out)).columns) == ["name", "GeoRisk(P@1)"]
    _fails(capsys, ["eval", "--qrels", qrels, "--measure", "P@5.0", a], "P@5.0", "cutoff=5.0")
    _fails(capsys, ["eval", "--qrels", qrels, "--measure", "URisk(P@2.5)", a], "URisk(P@2.5)", "cutoff=2.5")
    _fails(capsys, ["eval", "--qrels", qrels, "--measure", "URisk(alpha=1)", a], "no base measure")
    _fails(capsys, ["eval", "--qrels", qrels, "--measure", "URisk(P@1)", a, b], "needs a baseline")
    code, out, err = _run(capsys, ["eval", "--qrels", qrels, "--measure", "TRisk(P@1,alpha=1)", "--baseline",
                                   "a", "--format", "csv", a, b])  # --baseline fills in the missing one
    assert code == 0, err
    assert "TRisk(P@1,alpha=1,baseline='a')" in pd.read_csv(io.StringIO(out)).columns


def test_output_that_is_a_folder(capsys, small):
    argv = ["eval", "--qrels", str(small / "qrels.txt"), "--output", str(small), str(small / "a.run")]
    err = _fails(capsys, argv, f"cannot write table to {small}")
    assert "Errno" not in err


# ------------------------------------------------------------------ issue 8: every input, one line
def _one_error_line(err):
    lines = [line for line in err.splitlines() if not line.startswith("pyterrier-risk: note:")]
    assert len(lines) == 1 and lines[0].startswith("pyterrier-risk: error: "), err
    assert "Traceback" not in err
    return lines[0]


@pytest.mark.parametrize("alpha", ["nan", "inf", "1e400", "-1", "-0.5"])
def test_alpha_must_be_finite_and_not_negative(capsys, small, alpha):
    err = _fails(capsys, ["eval", "--qrels", str(small / "qrels.txt"), str(small / "a.run"), "--alpha", "0",
                          alpha], "--alpha values must be finite numbers >= 0")
    _one_error_line(err)


@pytest.mark.parametrize("decimals", ["-1", "21"])
def test_round_range(capsys, small, decimals):
    _one_error_line(_fails(capsys, ["eval", "--qrels", str(small / "qrels.txt"), "--round", decimals,
                                    str(small / "a.run")], "--round must be an integer from 0 to 20"))


def test_usage_errors_are_one_line(capsys, small):
    with pytest.raises(SystemExit) as e:
        main(["eval", "--qrels", str(small / "qrels.txt"), str(small / "a.run"), "--alpha", "foo"])
    assert e.value.code == 2
    line = _one_error_line(capsys.readouterr().err)
    assert "--alpha" in line and "'foo'" in line and "--help" in line


BAD_MEASURES = ["nDCG@0", "P@0", "AP@0", "R@0", "Success@0", "nDCG(judged_only=True)@0", "ERR@0", "Judged@0",
                "URisk(nDCG@0,alpha=5,baseline='mean')", "TRisk(P@0,baseline='a')", "P@99999999999999999999",
                "IPrec@1.5", "nDCG(gains={0:0,1:1e999})@5"]


def test_invalid_measure_parameters_never_reach_an_evaluator(small):
    """In a subprocess: pytrec_eval aborts the whole process (SIGABRT) on a cutoff of 0."""
    script = (
        "import contextlib, io, sys\n"
        "from pyterrier_risk.cli import main\n"
        "for m in sys.argv[3:]:\n"
        "    err = io.StringIO()\n"
        "    with contextlib.redirect_stderr(err):\n"
        "        code = main(['eval', '--qrels', sys.argv[1], '--measure', m, '--baseline', 'a',\n"
        "                     sys.argv[2], sys.argv[2].replace('a.run', 'b.run')])\n"
        "    print(code, repr(err.getvalue()), flush=True)\n"
    )
    proc = subprocess.run([sys.executable, "-c", script, str(small / "qrels.txt"), str(small / "a.run"),
                           *BAD_MEASURES], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]
    results = proc.stdout.splitlines()
    assert len(results) == len(BAD_MEASURES)
    for measure, result in zip(BAD_MEASURES, results, strict=True):
        code, err = result.split(" ", 1)
        err = eval(err)  # noqa: S307 - the repr printed above
        assert code == "2", (measure, err)
        line = _one_error_line(err)
        assert "measure" in line, line


def test_huge_alpha_trisk_is_the_losses_only_t_statistic(capsys, small):
    """TRisk at alpha = 1e200 is finite: the one-sample t statistic of min(delta, 0) (its limit)."""
    # one relevant document per topic, d(q % 4); the system wins on topics 1, 3, 6 and loses on 2, 4, 5
    orders = {1: [1, 0, 2, 3], 2: [0, 1, 3, 2], 3: [3, 0, 1, 2],
              4: [1, 2, 0, 3], 5: [0, 2, 3, 1], 6: [2, 0, 1, 3]}
    pairs = [(q, j) for q in orders for j in range(4)]
    (small / "q4.txt").write_text("".join(f"{q} 0 d{j} {int(j == q % 4)}\n" for q, j in pairs))
    (small / "base.run").write_text("".join(f"{q} Q0 d{j} {j} {9 - j} t\n" for q, j in pairs))
    (small / "sys.run").write_text("".join(f"{q} Q0 d{d} {i} {9 - i} t\n" for q, order in orders.items()
                                          for i, d in enumerate(order)))
    code, out, err = _run(capsys, ["eval", "--qrels", str(small / "q4.txt"), "--measure", "AP", "--format",
                                   "csv", "--baseline", "base", "--alpha", "1e200", "--no-zrisk",
                                   str(small / "base.run"), str(small / "sys.run")])
    assert code == 0, err
    table = pd.read_csv(io.StringIO(out)).set_index("name")
    trisk_col = next(c for c in table.columns if c.startswith("TRisk(") and not c.endswith("p-value"))
    qrels = list(ir_measures.read_trec_qrels(str(small / "q4.txt")))

    def per_topic(name):
        run = list(ir_measures.read_trec_run(str(small / f"{name}.run")))
        values = {m.query_id: m.value for m in ir_measures.iter_calc([ir_measures.AP], qrels, run)}
        return np.array([values.get(str(q), 0.0) for q in range(1, 7)])

    delta = per_topic("sys") - per_topic("base")
    assert (delta < 0).sum() == 3 and (delta > 0).sum() == 3
    limit = stats_ttest_1samp(np.minimum(delta, 0.0))
    assert table.loc["sys", trisk_col] == pytest.approx(limit.statistic, rel=1e-9)
    assert table.loc["sys", f"{trisk_col} p-value"] == pytest.approx(limit.pvalue, rel=1e-6)


def stats_ttest_1samp(x):
    from scipy import stats

    return stats.ttest_1samp(x, 0.0)


def test_urisk_beyond_the_float_range_is_an_error(capsys, small):
    (small / "q3.txt").write_text("1 0 d1 1\n2 0 d1 1\n3 0 d1 1\n")
    (small / "good.run").write_text("1 Q0 d1 1 1 t\n2 Q0 d1 1 1 t\n3 Q0 d1 1 1 t\n")
    (small / "bad.run").write_text("1 Q0 d2 1 1 t\n2 Q0 d2 1 1 t\n3 Q0 d2 1 1 t\n")
    argv = ["eval", "--qrels", str(small / "q3.txt"), "--measure", "P@1", "--baseline", "good", "--no-zrisk",
            "--format", "csv", str(small / "good.run"), str(small / "bad.run")]
    code, out, err = _run(capsys, [*argv, "--alpha", "1e300"])  # URisk = -(1 + 1e300): representable
    assert code == 0, err
    table = pd.read_csv(io.StringIO(out)).set_index("name")
    urisk_col = next(c for c in table.columns if c.startswith("URisk("))
    assert table.loc["bad", urisk_col] == pytest.approx(-1e300, rel=1e-12)
    # P@1 differences are >= -1, so URisk >= -(1 + alpha) is representable for any finite alpha (the
    # core falls back to (1 + alpha) * mean(losses)); a count such as NumRet can go beyond float64
    lines = [f"{q} Q0 d{d} {d} {9 - d} t\n" for q in (1, 2, 3) for d in (1, 2, 3)]
    (small / "three.run").write_text("".join(lines))
    argv = [*argv[:3], "--measure", "NumRet", *argv[5:-2], str(small / "three.run"), str(small / "bad.run")]
    argv[argv.index("good")] = "three"
    line = _one_error_line(_fails(capsys, [*argv, "--alpha", "1.7e308", "1e308"], "overflows float64",
                                  "--alpha"))
    assert "URisk(NumRet" in line


@pytest.mark.parametrize("name", ["mean", "median", "max"])
def test_run_named_like_an_aggregate_baseline(capsys, small, name):
    (small / f"{name}.run").write_text(RUN.replace("3.0", "0.1"))
    qrels, a, clash = str(small / "qrels.txt"), str(small / "a.run"), str(small / f"{name}.run")
    _one_error_line(_fails(capsys, ["eval", "--qrels", qrels, a, clash, "--baselines", name],
                           f"is named {name!r}", "rename the run file"))
    _fails(capsys, ["eval", "--qrels", qrels, "--measure", f"URisk(P@1,baseline='{name}')", a, clash],
           f"is named {name!r}")
    # without the aggregate the name is fine, and --baselines of another kind too
    other = next(k for k in ("mean", "median", "max") if k != name)
    code, out, err = _run(capsys, ["eval", "--qrels", qrels, "--measure", "P@1", "--format", "csv", a, clash,
                                   "--baselines", other])
    assert code == 0, err
    assert name in set(pd.read_csv(io.StringIO(out))["name"])


def test_aggregate_baseline_is_the_per_topic_aggregate(capsys, small):
    """The value --baselines mean gives is the per-topic mean of the runs (checked by hand)."""
    code, out, err = _run(capsys, ["eval", "--qrels", str(small / "qrels.txt"), "--measure", "P@1",
                                   "--format", "csv", "--no-zrisk", str(small / "a.run"),
                                   str(small / "b.run"), "--baselines", "mean"])
    assert code == 0, err
    table = pd.read_csv(io.StringIO(out)).set_index("name")
    # P@1 per topic: a = (1, 1), b = (1, 0); mean baseline = (1, 0.5); URisk(b) = mean(0, -0.5)
    assert table.loc["b", "URisk(P@1,baseline='mean')"] == pytest.approx(-0.25)
    assert table.loc["a", "URisk(P@1,baseline='mean')"] == pytest.approx(0.25)


def test_qrels_and_run_with_a_byte_order_mark(capsys, small):
    (small / "bom_qrels.txt").write_bytes(b"\xef\xbb\xbf" + QRELS.encode())
    (small / "bom.run").write_bytes(b"\xef\xbb\xbf" + RUN.replace("3.0", "0.5").encode())
    outs = []
    for qrels, run in [("qrels.txt", "b.run"), ("bom_qrels.txt", "bom.run")]:
        code, out, err = _run(capsys, ["eval", "--qrels", str(small / qrels), "--measure", "AP", "--measure",
                                       "P@1", "--format", "csv", str(small / run)])
        assert code == 0 and err == "", err  # no note about a topic without results
        outs.append(pd.read_csv(io.StringIO(out)).drop(columns="name"))
    pd.testing.assert_frame_equal(outs[0], outs[1])


def test_drop_extra_topics_that_removes_every_topic_names_the_run(capsys, small):
    (small / "elsewhere.run").write_text("98 Q0 d1 1 1.0 t\n99 Q0 d1 1 1.0 t\n")
    line = _one_error_line(_fails(capsys, ["eval", "--qrels", str(small / "qrels.txt"), "--drop-extra-topics",
                                           str(small / "a.run"), str(small / "elsewhere.run")],
                                  "elsewhere.run", "none of its 2 topic(s) is in the qrels"))
    assert "'98'" in line


@pytest.mark.parametrize("suffix", [".gz", ".bz2", ".xz", ""])
def test_compressed_runs_are_read(capsys, small, suffix):
    import bz2
    import gzip
    import lzma

    compress = {".gz": gzip.compress, ".bz2": bz2.compress, ".xz": lzma.compress, "": lzma.compress}[suffix]
    (small / f"c.run{suffix}").write_bytes(compress(RUN.replace("3.0", "0.5").encode()))
    code, out, err = _run(capsys, ["eval", "--qrels", str(small / "qrels.txt"), "--measure", "P@1",
                                   "--format", "csv", str(small / "b.run"), str(small / f"c.run{suffix}")])
    assert code == 0, err
    table = pd.read_csv(io.StringIO(out)).set_index("name")
    assert table.loc["c", "P@1"] == table.loc["b", "P@1"] == 0.5


def test_the_same_run_file_twice_is_refused(capsys, small, monkeypatch):
    qrels, a = str(small / "qrels.txt"), str(small / "a.run")
    (small / "link.run").symlink_to(small / "a.run")
    monkeypatch.chdir(small)
    for twice in (["a.run", "a.run"], ["a.run", "./a.run"], [a, "a.run"], ["a.run", "link.run"]):
        err = _fails(capsys, ["eval", "--qrels", qrels, *twice], "the same run file is given twice")
        _one_error_line(err)
    # a --baseline file that is also one of the RUNs is read once
    code, out, err = _run(capsys, ["eval", "--qrels", qrels, "--measure", "P@1", "--baseline", "./a.run",
                                   "--format", "csv", "--no-zrisk", "a.run", "b.run"])
    assert code == 0, err
    table = pd.read_csv(io.StringIO(out)).set_index("name")
    assert sorted(table.index) == ["a", "b"] and table.loc["b", "URisk(P@1,baseline='a')"] == -0.5


def test_gdeval_measures_refuse_what_gdeval_cannot_read(capsys, small):
    (small / "named.txt").write_text("q1 0 d1 1\nq2 0 d3 2\n")
    (small / "named.run").write_text("q1 Q0 d1 1 1 t\nq2 Q0 d3 1 1 t\n")
    _one_error_line(_fails(capsys, ["eval", "--qrels", str(small / "named.txt"), "--measure", "ERR@5",
                                    str(small / "named.run")], "ERR@5", "gdeval.pl", "'q1'"))
    (small / "zeros.txt").write_text("07 0 d1 1\n7 0 d3 2\n")
    (small / "zeros.run").write_text("07 Q0 d1 1 1 t\n7 Q0 d3 1 1 t\n")
    _fails(capsys, ["eval", "--qrels", str(small / "zeros.txt"), "--measure", "URisk(ERR@5,baseline='mean')",
                    str(small / "zeros.run")], "'07' and '7'")
    (small / "high.txt").write_text(QRELS.replace("3 2", "3 7"))
    _fails(capsys, ["eval", "--qrels", str(small / "high.txt"), "--measure", "nDCG(dcg='exp-log2')@5",
                    str(small / "a.run")], "labels <= 4", "label 7")
    code, out, err = _run(capsys, ["eval", "--qrels", str(small / "qrels.txt"), "--measure", "ERR@5",
                                   "--format", "csv", str(small / "a.run")])
    assert code == 0, err


def test_plots_cost_does_not_grow_with_alpha(capsys, small, monkeypatch):
    import pyterrier_risk.study._plots as plots  # the plot path eval --plots shares with the demo

    sizes = []
    original = plots.plot_georisk_alpha

    def recording(matrix, alphas, **kwargs):  # our own function: record the grid the CLI asks for
        sizes.append(len(alphas))
        return original(matrix, alphas, **kwargs)

    monkeypatch.setattr(plots, "plot_georisk_alpha", recording)
    code, out, err = _run(capsys, ["eval", "--qrels", str(small / "qrels.txt"), "--measure", "P@1",
                                   "--baseline", "a", "--alpha", "0", "1e5",
                                   "--plots", str(small / "plots"), str(small / "a.run"),
                                   str(small / "b.run")])
    assert code == 0, err
    assert sizes and sizes[0] <= 21 + 2  # was one point per integer up to 1e5
    assert (small / "plots" / "georisk_alpha_P@1.png").stat().st_size > 5000
    assert (small / "plots" / "topic_tj_b_P@1.png").stat().st_size > 5000


def test_topic_with_only_labels_below_minus_one_is_refused(small):
    """In a subprocess: pytrec_eval segfaults on such a topic once another topic came first."""
    (small / "spam.txt").write_text("1 0 d1 -2\n5 0 d3 1\n")
    (small / "spam.run").write_text("5 Q0 d3 1 1.0 t\n1 Q0 d3 2 1.0 t\n")
    proc = subprocess.run([sys.executable, "-m", "pyterrier_risk", "eval", "--qrels", str(small / "spam.txt"),
                           "--measure", "P@2", str(small / "spam.run")], capture_output=True, text=True,
                          timeout=120)
    assert proc.returncode == 2, proc
    line = _one_error_line(proc.stderr)
    assert "topic '1' has only labels below -1" in line
    # one label of -1 or more in the topic is enough (the Web track's -2 spam labels are common)
    (small / "spam.txt").write_text("1 0 d1 -2\n1 0 d2 0\n5 0 d3 1\n")
    proc = subprocess.run([sys.executable, "-m", "pyterrier_risk", "eval", "--qrels", str(small / "spam.txt"),
                           "--measure", "P@2", "--format", "csv", str(small / "spam.run")],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert pd.read_csv(io.StringIO(proc.stdout))["P@2"].iloc[0] == 0.25
