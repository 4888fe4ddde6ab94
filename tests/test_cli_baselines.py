"""``pyterrier-risk baselines``: every run against every baseline, checked by hand and with scipy, and
on real runs (TREC-7) equal to the Python API's numbers on an independent matrix, eval's conventions,
one-line errors.

The synthetic runs are built so that their per-topic P@1 is a known 0/1 matrix; URisk against each
baseline is then the mean of ``d + α·min(d, 0)`` (Wang et al. 2012, eq. 4) computed here with numpy,
and the Friedman test and Kendall's τ the caption reports are scipy's on the printed table.
"""

from __future__ import annotations

import io
import re
import shutil

import ir_measures
import numpy as np
import pandas as pd
import pytest
from scipy import stats

import pyterrier_risk as ptr
from pyterrier_risk.cli import main

# per-topic P@1 of each run on topics 1-5: 1 where the run puts the relevant document first
PATTERN = {"A": [1, 1, 1, 0, 1], "B": [1, 0, 1, 0, 0], "C": [0, 1, 1, 1, 0], "D": [1, 1, 0, 0, 0]}


@pytest.fixture
def runs(tmp_path):
    topics = range(1, 6)
    (tmp_path / "qrels.txt").write_text("".join(f"{t} 0 r{t} 1\n{t} 0 n{t} 0\n" for t in topics))
    for name, hits in PATTERN.items():
        lines = []
        for t, hit in zip(topics, hits, strict=True):
            first, second = (f"r{t}", f"n{t}") if hit else (f"n{t}", f"r{t}")
            lines += [f"{t} Q0 {first} 1 2.0 {name}\n", f"{t} Q0 {second} 2 1.0 {name}\n"]
        (tmp_path / f"{name}.run").write_text("".join(lines))
    return tmp_path


def _argv(folder, *extra):
    alpha = [] if "--alpha" in extra else ["--alpha", "1"]
    return ["baselines", *(str(folder / f"{n}.run") for n in PATTERN), "--qrels", str(folder / "qrels.txt"),
            "--measure", "P@1", "--permutations", "0", *alpha, *extra]


def _fails(capsys, argv, fragment):
    try:
        code = main(argv)
    except SystemExit as e:
        code = e.code
    out, err = capsys.readouterr()
    assert code == 2 and out == "", (out, err)
    lines = [line for line in err.splitlines() if not line.startswith("pyterrier-risk: note:")]
    assert len(lines) == 1 and lines[0].startswith("pyterrier-risk: error: "), err
    assert fragment in lines[0], err


def _urisk(s, b, alpha):
    d = np.asarray(s, float) - np.asarray(b, float)
    return float(np.mean(d + alpha * np.minimum(d, 0)))


@pytest.mark.parametrize("alpha", [0.0, 5.0])
def test_urisk_table_by_hand_and_the_note_from_scipy(capsys, runs, alpha):
    assert main(_argv(runs, "--alpha", f"{alpha:g}", "--format", "csv")) == 0
    out, err = capsys.readouterr()
    table = pd.read_csv(io.StringIO(out)).set_index("name")
    m = pd.DataFrame(PATTERN).T
    base = {**{n: m.loc[n] for n in PATTERN}, "MEAN": m.mean(), "MEDIAN": m.median(), "MAX": m.max()}
    assert list(table.index) == list(PATTERN) and list(table.columns) == list(base)
    for s in PATTERN:
        for b, vector in base.items():
            assert table.loc[s, b] == pytest.approx(_urisk(m.loc[s], vector, alpha), abs=1e-12)
    friedman = stats.friedmanchisquare(*table[list(PATTERN)].to_numpy())
    note = err.strip().splitlines()[-1]
    assert note.startswith("pyterrier-risk: note: ")
    assert f"chi2 = {friedman.statistic:.2f}, df = 3, p = {friedman.pvalue:.2g}" in note
    taus = [stats.kendalltau(table.loc[[s for s in PATTERN if s not in (a, b)], a],
                             table.loc[[s for s in PATTERN if s not in (a, b)], b]).statistic
            for i, a in enumerate(PATTERN) for b in list(PATTERN)[i + 1:]]
    taus = [t for t in taus if not np.isnan(t)]
    if taus:
        assert f"tau between run baselines' rankings {min(taus):.3f} to {max(taus):.3f}" in note


def test_round_format_from_suffix_caption_and_runs_anywhere(capsys, runs, tmp_path):
    qrels = str(runs / "qrels.txt")
    first, *rest = (str(runs / f"{n}.run") for n in PATTERN)
    target = tmp_path / "deep" / "tau.tex"
    argv = ["baselines", first, "--measure", "P@1", *rest[:1], "--qrels", qrels, "--table", "tau", "--alpha",
            "0", "--round", "2", *rest[1:], "--permutations", "0", "-o", str(target), "--label", "tab:tau"]
    assert main(argv) == 0
    out, err = capsys.readouterr()
    assert out == "" and "note: alpha = 0" in err  # the findings: in the file, and once on stderr
    assert "every baseline ranks the runs alike by construction" in err  # issue 23 #4: why, at alpha = 0
    text = target.read_text()
    assert "\\begin{tabular}" in text and "\\label{tab:tau}" in text
    assert "Friedman over 4 run baselines" in text
    body = text.split("\\midrule")[1]
    assert re.search(r"\b1\.00\b", body) and not re.search(r"\d\.\d{3}", body)  # --round 2
    assert main(_argv(runs, "--table", "ranks", "--round", "0", "--caption", "mine")) == 0
    out, _ = capsys.readouterr()
    assert out.startswith("| name ") and "| A " in out


def test_plots_are_written_and_nothing_is_written_on_an_error(capsys, runs, tmp_path):
    folder = tmp_path / "plots"
    assert main(_argv(runs, "--plots", str(folder))) == 0
    assert sorted(p.name for p in folder.iterdir()) == ["baseline_ranks.png", "baselines_pca.png"]
    assert "wrote 2 plots" in capsys.readouterr().err
    blocker = tmp_path / "a_file"
    blocker.write_text("")
    table = tmp_path / "t.md"
    _fails(capsys, _argv(runs, "-o", str(table), "--plots", str(blocker / "sub")), "cannot write the --plots")
    assert not table.exists()  # checked before anything is computed or written, like eval
    _fails(capsys, _argv(runs, "-o", str(blocker / "t.md")), "cannot write the output")


def test_errors_are_one_line(capsys, runs):
    qrels = str(runs / "qrels.txt")
    two = [str(runs / "A.run"), str(runs / "B.run")]
    _fails(capsys, ["baselines", *two, "--qrels", qrels, "--alpha", "1"], "at least 3 runs, got 2")
    _fails(capsys, ["baselines", *two, str(runs / "C.run"), "--alpha", "1"], "required: --qrels")
    _fails(capsys, ["baselines", *two, str(runs / "C.run"), "--qrels", qrels], "required: --alpha")
    _fails(capsys, _argv(runs, "--measure", "AP"), "one base measure, got 2 (P@1, AP)")
    _fails(capsys, ["baselines", *two, str(runs / "C.run"), "--qrels", qrels, "--measure", "URisk(AP)",
                    "--alpha", "1"], "takes a base measure")
    _fails(capsys, _argv(runs, "--alpha", "-1"), "--alpha values must be finite numbers >= 0")
    _fails(capsys, _argv(runs, "--alpha", "1e308"), "overflows float64")
    _fails(capsys, _argv(runs, "--round", "21"), "--round must be an integer from 0 to 20")
    _fails(capsys, _argv(runs, "--round", "2.0"), "invalid integer: '2.0'")
    _fails(capsys, _argv(runs, "--seed", "-1"), "must be >= 0")
    _fails(capsys, _argv(runs, "--table", "nope"), "invalid choice: 'nope'")
    (runs / "mean.run").write_text((runs / "A.run").read_text())
    _fails(capsys, ["baselines", *two, str(runs / "mean.run"), "--qrels", qrels, "--alpha", "1"], "mean")


def test_evaluation_files_give_the_table_of_the_runs(capsys, runs):
    lines = ["".join(f"P_1\t{t}\t{v:.4f}\n" for t, v in enumerate(hits, 1)) + f"runid\tall\t{name}\n"
             f"P_1\tall\t{np.mean(hits):.4f}\n" for name, hits in PATTERN.items()]  # trec_eval -q output
    (runs / "p1.txt").write_text("".join(lines))
    assert main(_argv(runs, "--format", "csv")) == 0
    from_runs = capsys.readouterr().out
    qrels = str(runs / "qrels.txt")
    argv = ["baselines", "--measure", "P@1", "--permutations", "0", "--format", "csv", "--qrels", qrels,
            "--alpha", "1", "--evalfile", str(runs / "p1.txt")]
    assert main(argv) == 0
    assert capsys.readouterr().out == from_runs
    _fails(capsys, [*argv, str(runs / "A.run")], "expected 3 fields")  # --evalfile takes every word, as eval
    _fails(capsys, ["baselines", str(runs / "A.run"), "--qrels", qrels, "--alpha", "1", "--evalfile",
                    str(runs / "p1.txt")], "not both")
    (runs / "two.txt").write_text("".join(lines[:2]))
    _fails(capsys, ["baselines", "--measure", "P@1", "--alpha", "1", "--evalfile", str(runs / "two.txt")],
           "at least 3 runs, got 2")


def test_the_caption_is_printed_once(capsys, runs):
    """Issue 23 #7: the findings went to stdout (caption) and stderr (note) alike."""
    assert main(_argv(runs, "--alpha", "5")) == 0
    out, err = capsys.readouterr()
    assert "Friedman over 4 run baselines" in out and "Friedman" not in err
    assert main(_argv(runs, "--alpha", "5", "--format", "csv")) == 0  # CSV has no caption: the note says it
    out, err = capsys.readouterr()
    assert "Friedman" not in out and err.count("Friedman over 4 run baselines") == 1


def test_ranks_print_as_integers_and_pca_gives_the_explained_variance(capsys, runs):
    """Issue 23 #5 and #8: a rank table prints 3, not 3.0000; each axis's explained variance is shown."""
    assert main(_argv(runs, "--alpha", "5", "--table", "ranks")) == 0
    out = capsys.readouterr().out
    cells = [c.strip() for line in out.splitlines()[2:6] for c in line.split("|")[2:-1]]
    assert cells and all(re.fullmatch(r"(\d+(\.5)?)?", c) for c in cells), cells
    assert main(_argv(runs, "--alpha", "5", "--table", "pca", "--format", "csv")) == 0
    frame = pd.read_csv(io.StringIO(capsys.readouterr().out))
    m = pd.DataFrame(PATTERN).T.to_numpy(dtype=float)
    centred = m - m.mean(axis=0)
    share = np.linalg.svd(centred, compute_uv=False) ** 2 / (centred**2).sum()
    assert list(frame.columns) == ["name", f"PC1 ({share[0]:.1%})", f"PC2 ({share[1]:.1%})"]


# ------------------------------------------------------------ real runs: TREC-7 (was test_baselines_cli.py)
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
