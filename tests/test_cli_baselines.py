"""``pyterrier-risk baselines``: every run against every baseline, checked by hand and with scipy.

The runs are built so that their per-topic P@1 is a known 0/1 matrix; URisk against each baseline is
then the mean of ``d + α·min(d, 0)`` (Wang et al. 2012, eq. 4) computed here with numpy, and the
Friedman test and Kendall's τ the caption reports are scipy's on the printed table.
"""

from __future__ import annotations

import io
import re

import numpy as np
import pandas as pd
import pytest
from scipy import stats

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
