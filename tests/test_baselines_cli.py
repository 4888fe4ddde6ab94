"""``pyterrier-risk baselines``: eval's conventions, numbers equal to the Python API's, one-line errors."""

from __future__ import annotations

import io
import re
import shutil

import ir_measures
import numpy as np
import pandas as pd
import pytest

import pyterrier_risk as ptr
from pyterrier_risk.cli import main

RUNS = ["stem-stop_BM25b0.75_1", "stem-stop_DLH13_2", "stem-stop_TF_IDF_5", "nostem-nostop_BB2_noSM_noSW"]


@pytest.fixture(scope="module")
def trec7(trec7_short):
    """Four of the TREC-7 runs, their first 20 lines per topic (conftest), and the qrels."""
    return trec7_short / "qrels.adhoc.351-400.txt", [trec7_short / "runs" / f"{r}.run" for r in RUNS]


def _run(capsys, argv):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def _independent_matrix(qrels_path, runs, measure="AP"):
    qrels = list(ir_measures.read_trec_qrels(str(qrels_path)))
    topics = sorted({q.query_id for q in qrels})
    m = ir_measures.parse_measure(measure)
    rows = {}
    for path in runs:
        run = ir_measures.read_trec_run(str(path))
        values = {v.query_id: v.value for v in ir_measures.iter_calc([m], qrels, run)}
        rows[path.name.split(".run")[0]] = [values.get(t, 0.0) for t in topics]
    return pd.DataFrame.from_dict(rows, orient="index", columns=topics)


@pytest.mark.realdata
def test_csv_equals_the_python_api_on_an_independent_matrix(capsys, trec7):
    qrels, runs = trec7
    # runs anywhere on the line, as with eval
    code, out, err = _run(capsys, ["baselines", runs[0], "--qrels", qrels, "--measure", "nDCG@20", runs[1],
                                   "--alpha", "5", *runs[2:], "--format", "csv"])
    assert code == 0, err
    table = pd.read_csv(io.StringIO(out)).set_index("name")
    expected = ptr.baseline_sensitivity(_independent_matrix(qrels, runs, "nDCG@20"), alpha=5.0)
    assert list(table.index) == RUNS and list(table.columns) == [*RUNS, "MEAN", "MEDIAN", "MAX"]
    np.testing.assert_allclose(table.to_numpy(), expected.urisk.to_numpy(), atol=1e-12)
    f = expected.friedman
    assert f"chi2 = {f.statistic:.2f}" in err and f"p = {f.p_value:.2g}" in err and err.count("\n") == 1
    # issue 23 #9: the permutation p of the CLI (files in argument order) is the Python API's on any row order
    python = ptr.baseline_sensitivity(_independent_matrix(qrels, runs[::-1], "nDCG@20"), alpha=5.0)
    assert f"permutation p = {python.bias_test['p_value']:.2g}" in err


@pytest.mark.realdata
@pytest.mark.parametrize(("table", "columns"), [("tau", 7), ("ranks", 7), ("bias", 4), ("pca", 2),
                                                 ("correlation", 7), ("trisk", 7)])
def test_each_table(capsys, trec7, table, columns):
    qrels, runs = trec7
    code, out, err = _run(capsys, ["baselines", "--qrels", qrels, "--measure", "AP", "--alpha", "2",
                                   "--table", table, "--format", "csv", "--permutations", "0", *runs])
    assert code == 0, err
    frame = pd.read_csv(io.StringIO(out))
    assert frame.shape[1] == columns + 1 and frame.columns[0] == "name"


@pytest.mark.realdata
def test_output_round_latex_and_plots(capsys, trec7, tmp_path):
    qrels, runs = trec7
    out_file = tmp_path / "t.tex"
    code, out, err = _run(capsys, ["baselines", "--qrels", qrels, "--measure", "AP", "--alpha", "5", "-o",
                                   out_file, "--round", "2", "--plots", tmp_path / "plots", *runs])
    assert code == 0 and out == "", err
    text = out_file.read_text()
    assert "\\begin{tabular}" in text and "\\caption{" in text and "Friedman" in text
    assert "0.0000" not in text and "0.00" in text
    for name in ("baselines_pca.png", "baseline_ranks.png"):
        assert (tmp_path / "plots" / name).read_bytes()[:4] == b"\x89PNG"
    code, out, _ = _run(capsys, ["baselines", "--qrels", qrels, "--measure", "AP", "--round", "3", "--alpha",
                                 "1", *runs])
    assert code == 0 and out.startswith("| name")
    cells = [c.strip() for c in out.splitlines()[2].split("|")[2:-1]]
    assert all(re.fullmatch(r"-?\d+\.\d{3}", c) for c in cells), cells


@pytest.mark.realdata
@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--alpha", "-1"], "--alpha values must be finite numbers >= 0"),
        (["--measure", "URisk(AP)"], "--measure takes a base measure"),
        (["--measure", "NoSuch@3"], "unknown or malformed measure"),
        (["--round", "30"], "--round must be an integer"),
        (["--permutations", "-2"], "--permutations and --seed must be >= 0"),
    ],
)
def test_bad_options_are_one_line_errors(capsys, trec7, extra, message):
    qrels, runs = trec7
    alpha = [] if "--alpha" in extra else ["--alpha", "1"]
    code, out, err = _run(capsys, ["baselines", "--qrels", qrels, *alpha, *extra, *runs])
    assert code == 2 and out == "" and message in err
    assert err.count("\n") == 1 and err.startswith("pyterrier-risk: error:")


@pytest.mark.realdata
def test_too_few_runs_no_qrels_and_a_run_named_like_a_virtual_baseline(capsys, trec7, tmp_path):
    qrels, runs = trec7
    code, _, err = _run(capsys, ["baselines", "--qrels", qrels, "--alpha", "1", *runs[:2]])
    assert code == 2 and "at least 3 runs, got 2" in err
    with pytest.raises(SystemExit) as e:
        main(["baselines", "--alpha", "1", *map(str, runs)])
    assert e.value.code == 2 and "required: --qrels" in capsys.readouterr().err
    shutil.copy(runs[0], tmp_path / "median.run")
    code, _, err = _run(capsys, ["baselines", "--qrels", qrels, "--alpha", "1", *runs[1:],
                                 tmp_path / "median.run"])
    assert code == 2 and "named 'median'" in err and err.count("\n") == 1


@pytest.mark.realdata
def test_the_default_table_fits_a_terminal_on_the_19_trec7_runs(capsys, trec7_short):
    """Issue 23 #6: on the 19 TREC-7 runs the wide URisk table is 589 characters wide."""
    root = trec7_short  # the 19 runs' first 20 lines per topic: the same names, so the same widths
    argv = ["baselines", "--qrels", root / "qrels.adhoc.351-400.txt", "--measure", "AP", "--alpha", "5",
            "--permutations", "0", root / "runs"]
    code, out, err = _run(capsys, argv)
    assert code == 0, err
    table = [line for line in out.splitlines() if line.startswith("|")]
    assert len(table) == 21 and max(map(len, table)) <= 160
    assert "--layout wide prints it whole" in err
    code, wide, _ = _run(capsys, [*argv, "--layout", "wide", "--format", "csv"])
    wide = pd.read_csv(io.StringIO(wide)).set_index("name")
    code, summary, _ = _run(capsys, [*argv, "--format", "csv", "--layout", "summary"])
    summary = pd.read_csv(io.StringIO(summary)).set_index("name")
    runs = [c for c in wide.columns if c not in ("MEAN", "MEDIAN", "MAX")]
    own = wide[runs].mask(np.eye(len(runs), dtype=bool))  # a run against itself is left out
    np.testing.assert_allclose(summary["min"], own.min(axis=1))
    np.testing.assert_allclose(summary["median"], own.median(axis=1))
    np.testing.assert_allclose(summary["MEAN"], wide["MEAN"])
