"""``pyterrier-risk eval`` as IR people use it (issue 11): several values per option, runs anywhere,
run lists, trec_eval names, compact and paper-ready tables, corrections, randomization and all-pairs
tests, per-topic p-values, evaluation files as input and topic modes.

Every number is checked against an independent computation: ir_measures for per-topic values,
scipy for t-tests, statsmodels' ``multipletests`` for corrections, and a brute-force enumeration of
all sign flips for the randomization tests.
"""

from __future__ import annotations

import io
import itertools
import math

import ir_measures
import numpy as np
import pandas as pd
import pytest
from helpers import data_path
from scipy import stats

from pyterrier_risk import parse_measure
from pyterrier_risk.cli import main
from pyterrier_risk.cli._args import arrange_eval_argv
from pyterrier_risk.cli._main import _parser

N_TOPICS = 10  # 2^10 = 1024 sign flips: the randomization tests below are exact
RUNS = ("a", "b", "c", "d")


def _write_collection(folder):
    rng = np.random.default_rng(11)
    qrels = []
    for q in range(1, N_TOPICS + 1):
        labels = rng.integers(0, 3, size=8)
        labels[q % 8] = 2  # every topic has a relevant document
        qrels += [f"{q} 0 d{d} {label}\n" for d, label in enumerate(labels)]
    (folder / "qrels.txt").write_text("".join(qrels))
    for k, name in enumerate(RUNS):
        r = np.random.default_rng(100 + k)
        lines = [f"{q} Q0 d{d} {i} {float(s):.6f} {name}\n"
                 for q in range(1, N_TOPICS + 1)
                 for i, (d, s) in enumerate(sorted(enumerate(r.random(8)), key=lambda t: -t[1]))]
        (folder / f"{name}.run").write_text("".join(lines))


@pytest.fixture
def coll(tmp_path):
    _write_collection(tmp_path)
    return tmp_path


def _run(capsys, argv):
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


def _csv(capsys, argv):
    code, out, err = _run(capsys, [*argv, "--format", "csv"])
    assert code == 0, err
    return pd.read_csv(io.StringIO(out))


def per_topic(folder, measure, name, topics=None):
    """ir_measures' per-topic values of a run, missing topics 0, in topic order 1..N."""
    qrels = list(ir_measures.read_trec_qrels(str(folder / "qrels.txt")))
    run = list(ir_measures.read_trec_run(str(folder / f"{name}.run")))
    values = {m.query_id: m.value for m in ir_measures.iter_calc([parse_measure(measure)], qrels, run)}
    return np.array([values.get(str(q), 0.0) for q in (topics or range(1, N_TOPICS + 1))])


def weighted(s, b, alpha):
    d = s - b
    return np.where(d < 0, (1 + alpha) * d, d)


# -- the words of the command line -----------------------------------------------------------------------
def test_arranging_the_words():
    _, commands = _parser()
    known = commands["eval"][1]
    cases = {
        ("--measure", "nDCG@20", "AP", "--alpha", "0", "5", "a.run", "b.run"):
            ["--measure=nDCG@20", "--measure=AP", "--alpha=0", "--alpha=5", "a.run", "b.run"],
        ("--alpha", "5", "ql.run"): ["--alpha=5", "ql.run"],
        ("x/a", "--measure", "AP", "P(rel=2)@10", "b.res", "--baselines", "mean", "max", "c"):
            ["--measure=AP", "--measure=P(rel=2)@10", "--baselines=mean", "--baselines=max",
             "x/a", "b.res", "c"],
        ("--alpha", "-1", "2", "--meas", "AP", "-o", "t.md", "--caption", "-x", "--", "--odd.run"):
            ["--alpha=-1", "--alpha=2", "--measure=AP", "--output=t.md", "--caption=-x", "--odd.run"],
        ("--evalfile", "e1.csv", "e2", "--alpha", "foo"):
            ["--evalfile=e1.csv", "--evalfile=e2", "--alpha=foo"],
    }
    for words, expected in cases.items():
        assert arrange_eval_argv(list(words), known) == expected, words


def test_a_measure_word_with_a_slash_is_a_measure(capsys, coll):
    """Issue 14: a --measure word that names a baseline file (a ``/`` inside) is not taken for a run."""
    _, commands = _parser()
    known = commands["eval"][1]
    measure = f"TRisk(AP,alpha=5,baseline='{coll / 'a.run'}')"
    assert arrange_eval_argv(["--measure", "AP", measure, "x/b.run"], known) == [
        "--measure=AP", f"--measure={measure}", "x/b.run"]
    table = _csv(capsys, ["eval", "--qrels", str(coll / "qrels.txt"), "--measure", "AP", measure,
                          str(coll / "b.run"), "--no-zrisk"]).set_index("name")
    expected = stats.ttest_1samp(weighted(per_topic(coll, "AP", "b"), per_topic(coll, "AP", "a"), 5), 0)
    assert table.loc["b", repr(parse_measure(measure))] == pytest.approx(expected.statistic, rel=1e-9)


@pytest.mark.parametrize(("option", "value", "message"), [
    ("--alpha", "1_0", "argument --alpha: invalid number: '1_0'"),
    ("--alpha", "0x10", "argument --alpha: invalid number: '0x10'"),
    ("--level", " 0.05", "argument --level: invalid number: ' 0.05'"),
    ("--resamples", "1e3", "argument --resamples: invalid integer: '1e3'"),
    ("--round", "4.0", "argument --round: invalid integer: '4.0'"),
    ("--seed", "1_000", "argument --seed: invalid integer: '1_000'"),
])
def test_option_values_are_parsed_strictly(capsys, coll, option, value, message):
    """No float()/int() of user strings: Python's literals (1_0, spaces) are not option values."""
    with pytest.raises(SystemExit) as e:
        main(["eval", "--qrels", str(coll / "qrels.txt"), str(coll / "a.run"), f"{option}={value}"])
    err = capsys.readouterr().err
    assert e.value.code == 2 and message in err and len(err.strip().splitlines()) == 1


def test_alpha_in_a_measure_and_in_alpha_go_through_one_check(capsys, coll):
    """Issue 14: alpha=1e308 is accepted in both places, nan/inf refused in both with one message."""
    argv = ["eval", "--qrels", str(coll / "qrels.txt"), *(str(coll / f"{r}.run") for r in "ab"), "--no-zrisk"]
    given = _csv(capsys, [*argv, "--measure", "URisk(AP,alpha=1e308,baseline='a')"]).set_index("name")
    asked = _csv(capsys, [*argv, "--measure", "AP", "--alpha", "1e308", "--baseline", "a"]).set_index("name")
    column = "URisk(AP,alpha=1e+308,baseline='a')"
    expected = weighted(per_topic(coll, "AP", "b"), per_topic(coll, "AP", "a"), 1e308).mean()
    assert np.isfinite(expected) and given.loc["b", column] == asked.loc["b", column] == expected
    for bad in ("nan", "inf", "-1", "1e309", "NaN"):
        code, _, err = _run(capsys, [*argv, "--measure", f"URisk(AP,alpha={bad},baseline='a')"])
        assert code == 2 and len(err.strip().splitlines()) == 1
        assert "alpha must be a finite number >= 0" in err and "unknown measure" not in err, bad
        code, _, err = _run(capsys, [*argv, "--measure", "AP", "--baseline", "a", f"--alpha={bad}"])
        assert code == 2 and "--alpha values must be finite numbers >= 0" in err, bad
    code, _, err = _run(capsys, [*argv, "--measure", "URisk(AP,baseline=a)"])
    assert code == 2 and "baseline=a is not a value (a number, or a name in quotes: baseline='a')" in err


def test_issue_examples_several_measures_and_alphas_runs_anywhere(capsys, coll, monkeypatch):
    """The two command lines of issue 11 that failed: AP taken as a run, ql.run as an α."""
    monkeypatch.chdir(coll)
    table = _csv(capsys, ["eval", "--qrels", "qrels.txt", "--measure", "nDCG@5", "AP", "--alpha", "0", "5",
                          "a.run", "b.run", "--baseline", "a", "--no-zrisk"]).set_index("name")
    for col in ("nDCG@5", "AP", "URisk(nDCG@5,baseline='a')", "TRisk(AP,alpha=5,baseline='a')"):
        assert col in table.columns, col
    assert table.loc["b", "AP"] == pytest.approx(per_topic(coll, "AP", "b").mean(), abs=1e-12)
    expected = weighted(per_topic(coll, "nDCG@5", "b"), per_topic(coll, "nDCG@5", "a"), 5).mean()
    assert table.loc["b", "URisk(nDCG@5,alpha=5,baseline='a')"] == pytest.approx(expected, abs=1e-12)
    table = _csv(capsys, ["eval", "--qrels", "qrels.txt", "--alpha", "5", "b.run", "--measure", "P@3",
                          "--baseline", "a", "a.run", "--no-zrisk"]).set_index("name")
    assert list(table.index) == ["a", "b"]  # the baseline row first (issue 16)
    assert [c for c in table.columns if c.startswith("URisk")] == ["URisk(P@3,alpha=5,baseline='a')"]
    # a word that is not a number ends --alpha; a missing run is named as a run, a typo as a measure
    code, _, err = _run(capsys, ["eval", "--qrels", "qrels.txt", "--alpha", "5", "gone.run", "a.run"])
    assert code == 2 and "gone.run" in err and "measure" not in err
    code, _, err = _run(capsys, ["eval", "--qrels", "qrels.txt", "--measure", "AP", "nDGC@5", "a.run"])
    assert code == 2 and "unknown or malformed measure 'nDGC@5'" in err


def test_run_list_file_and_folder(capsys, coll, monkeypatch):
    monkeypatch.chdir(coll)
    argv = ["eval", "--qrels", "qrels.txt", "--measure", "AP", "--no-zrisk"]
    direct = _csv(capsys, [*argv, "a.run", "b.run", "c.run"])
    (coll / "list.txt").write_text("# my runs\na.run\n\nb.run\nc.run\n")
    pd.testing.assert_frame_equal(_csv(capsys, [*argv, "--runs-from", "list.txt"]), direct)
    (coll / "runs").mkdir()
    for name in ("c", "a", "b"):
        (coll / "runs" / f"{name}.run").write_text((coll / f"{name}.run").read_text())
    (coll / "runs" / ".hidden").write_text("not a run")
    pd.testing.assert_frame_equal(_csv(capsys, [*argv, "runs"]), direct)  # sorted by file name
    (coll / "empty").mkdir()
    code, _, err = _run(capsys, [*argv, "empty"])
    assert code == 2 and "has no files" in err
    (coll / "none.txt").write_text("# nothing\n")
    code, _, err = _run(capsys, [*argv, "--runs-from", "none.txt"])
    assert code == 2 and "names no run file" in err


def test_trec_eval_and_ir_measures_names_also_inside_risk_measures(capsys, coll):
    table = _csv(capsys, ["eval", "--qrels", str(coll / "qrels.txt"), "--measure", "ndcg_cut_5", "P(rel=2)@3",
                          "map", "TRisk(ndcg_cut_5,alpha=2,baseline='a')", str(coll / "a.run"),
                          str(coll / "b.run"), "--no-zrisk"]).set_index("name")
    assert list(table.columns) == ["nDCG@5", "P(rel=2)@3", "AP", "TRisk(nDCG@5,alpha=2,baseline='a')",
                                   "TRisk(nDCG@5,alpha=2,baseline='a') p-value"]
    for measure in ("nDCG@5", "P(rel=2)@3", "AP"):
        assert table.loc["b", measure] == pytest.approx(per_topic(coll, measure, "b").mean(), abs=1e-12)
    x = weighted(per_topic(coll, "nDCG@5", "b"), per_topic(coll, "nDCG@5", "a"), 2)
    t = stats.ttest_1samp(x, 0.0)
    assert table.loc["b", "TRisk(nDCG@5,alpha=2,baseline='a')"] == pytest.approx(t.statistic, rel=1e-9)


def test_huge_alpha_column_names_stay_short_and_parse_back(capsys, coll):
    table = _csv(capsys, ["eval", "--qrels", str(coll / "qrels.txt"), "--measure", "P@3", "--alpha", "1e200",
                          "--baseline", "a", str(coll / "a.run"), str(coll / "b.run")])
    urisk = next(c for c in table.columns if c.startswith("URisk("))
    assert urisk == "URisk(P@3,alpha=1e+200,baseline='a')"
    assert parse_measure(urisk).alpha == 1e200 and repr(parse_measure(urisk)) == urisk
    assert max(len(c) for c in table.columns) < 60


# -- output forms ----------------------------------------------------------------------------------------
def _base_argv(coll):
    return ["eval", "--qrels", str(coll / "qrels.txt"), "--measure", "nDCG@5", "AP", "--alpha", "0", "5",
            "--baseline", "a", "--no-zrisk", *(str(coll / f"{r}.run") for r in RUNS)]


def test_layouts_and_short_labels(capsys, coll):
    code, out, err = _run(capsys, [*_base_argv(coll), "--layout", "long"])
    assert code == 0, err
    lines = [line for line in out.splitlines() if line.startswith("|")]
    assert [c.strip() for c in lines[0].split("|")[1:4]] == ["name", "measure", "alpha"]
    assert len(lines) == 2 + len(RUNS) * 2 * 2  # runs x base measures x alphas
    code, out, err = _run(capsys, [*_base_argv(coll), "--layout", "transposed"])
    assert code == 0, err
    header = [c.strip() for c in out.splitlines()[0].strip("|").split("|")]
    assert header == ["measure", *RUNS]
    code, out, err = _run(capsys, [*_base_argv(coll), "--short-labels"])
    assert code == 0, err
    assert "- U2: `URisk(nDCG@5,alpha=5,baseline='a')`" in out
    assert "| U1 " in out.splitlines()[0] and "URisk(" not in out.splitlines()[0]


def test_latex_caption_label_bold_and_marks_follow_the_corrected_p_values(capsys, coll):
    argv = [*_base_argv(coll), "--correction", "holm", "--significance"]
    table = _csv(capsys, argv).set_index("name")
    code, out, err = _run(capsys, [*argv, "--format", "latex", "--bold", "--caption", "Four runs.",
                                   "--label", "tab:four", "--layout", "wide"])
    assert code == 0, err
    assert "\\caption{Four runs. $^{\\dagger}$ significantly different from the baseline ($p \\le 0.05$; " \
           "paired t-test; risk measures: TRisk's t-test of URisk = 0; Holm correction)." in out
    assert "\\label{tab:four}" in out and "\\textbf{" in out
    rows = {line.split(" & ")[0]: line.split(" & ") for line in out.splitlines() if " & " in line}
    header = rows.pop("name")
    t_col = "TRisk(AP,alpha=5,baseline='a')"
    j = header.index(t_col.replace("_", "\\_"))
    for run in RUNS[1:]:
        marked = rows[run][j].endswith("$^{\\dagger}$")
        assert marked == (table.loc[run, f"{t_col} p-value corrected"] <= 0.05), run
    # the base measures are tested too (--significance): their p-values are the paired t-test's
    p = table.loc["b", "AP p-value"]
    assert p == pytest.approx(stats.ttest_rel(per_topic(coll, "AP", "b"), per_topic(coll, "AP", "a")).pvalue)


def test_default_table_fits_a_terminal_and_the_wide_one_stays_reachable(capsys, coll):
    """Issue 16, item 4: the default table is at most 160 characters wide; the baseline row comes first."""
    (coll / "runs").mkdir()
    for r in RUNS:  # the baseline 'c' is not first in the folder
        (coll / "runs" / f"{r}.run").write_text((coll / f"{r}.run").read_text())
    argv = ["eval", "--qrels", str(coll / "qrels.txt"), "--measure", "nDCG@5", "AP", "P@3",
            "--alpha", "0", "1", "5", "10", "--baseline", "c", str(coll / "runs")]
    code, out, err = _run(capsys, argv)
    table = [line for line in out.splitlines() if line.startswith("|")]
    assert code == 0 and max(map(len, table)) <= 160
    assert table[2].split("|")[1].strip() == "c"  # the baseline row first
    assert "printed with the long layout; --layout wide prints it wide" in err
    assert "URisk, TRisk: baseline='c'." in out  # the long labels leave the baseline out: the note names it
    code, wide, _ = _run(capsys, [*argv, "--layout", "wide"])
    assert code == 0 and len(wide.splitlines()[0]) > 160 and "URisk(AP,alpha=5,baseline='c')" in wide
    csv = _csv(capsys, argv)  # CSV, for machines, stays wide
    assert list(csv["name"]) == ["c", "a", "b", "d"] and "TRisk(P@3,alpha=10,baseline='c') p-value" in csv
    code, tex, _ = _run(capsys, [*argv, "--format", "latex"])
    assert code == 0 and r"\begin{tabular}{llrrrrrrr}" in tex  # 9 columns, not 63
    # a table that fits stays wide, and one line of notes says nothing
    small = ["eval", "--qrels", str(coll / "qrels.txt"), "--measure", "AP", "--baseline", "a"]
    code, out, err = _run(capsys, [*small, str(coll / "a.run"), str(coll / "b.run")])
    assert code == 0 and "URisk(AP,baseline='a')" in out.splitlines()[0] and "layout" not in err


def test_corrected_p_value_columns_follow_short_labels(capsys, coll):
    argv = [*_base_argv(coll), "--short-labels", "--correction", "holm", "--significance", "--layout", "wide"]
    code, out, _ = _run(capsys, argv)
    header = [c.strip() for c in out.splitlines()[0].strip("|").split("|")]
    assert code == 0 and "AP p" in header and "AP p-adj" in header and "T1 p-adj" in header
    assert not [c for c in header if "p-value" in c]


def test_style_options_do_not_apply_to_perquery(capsys, coll):
    code, _, err = _run(capsys, [*_base_argv(coll), "--perquery", "--layout", "long"])
    assert code == 2 and "--layout" in err


# -- multiple testing ------------------------------------------------------------------------------------
@pytest.mark.parametrize("method", ["holm", "fdr_bh", "bonferroni", "hs"])
def test_correction_of_risk_and_base_p_values_matches_statsmodels(capsys, coll, method):
    multipletests = pytest.importorskip("statsmodels.stats.multitest").multipletests
    table = _csv(capsys, [*_base_argv(coll), "--baselines", "mean", "--correction", method,
                          "--significance"]).set_index("name")
    p_columns = [c for c in table.columns if c.endswith(" p-value")]
    assert any(c.startswith("TRisk(") and "'mean'" in c for c in p_columns)
    for col in p_columns:
        p = table[col]
        known = p.notna()
        expected = multipletests(p[known].to_numpy(), method=method)[1]
        np.testing.assert_allclose(table.loc[known, f"{col} corrected"], expected, rtol=1e-12)
        assert table.loc[~known, f"{col} corrected"].isna().all()  # the baseline itself: no test


def test_unknown_correction_is_one_line(capsys, coll):
    code, _, err = _run(capsys, [*_base_argv(coll), "--correction", "nope"])
    assert code == 2 and "unknown --correction 'nope'" in err


# -- randomization and all pairs -----------------------------------------------------------------------
def _all_flips(n):
    return np.array(list(itertools.product([1.0, -1.0], repeat=n)))


def brute_force_p(s, b, alpha, null, statistic):
    """Exact two-sided sign-flip p-value over all 2^c assignments (written out, not the package's code)."""
    flips = _all_flips(len(s))
    if null == "symmetric":
        x = flips * weighted(s, b, alpha)[None, :]
    else:
        d = flips * (s - b)[None, :]
        x = np.where(d < 0, (1 + alpha) * d, d)
    mean = x.mean(axis=1)
    value = mean if statistic == "urisk" else mean / (x.std(axis=1, ddof=1) / math.sqrt(len(s)))
    observed = value[0]  # the first assignment flips nothing
    return float(np.mean(np.abs(value) >= abs(observed) * (1 - 1e-12)))


@pytest.mark.parametrize("null", ["symmetric", "exchangeable"])
def test_randomization_test_of_trisk_is_the_exact_sign_flip_p_value(capsys, coll, null):
    table = _csv(capsys, [*_base_argv(coll), "--test", "randomization", "--null", null]).set_index("name")
    t_table = _csv(capsys, _base_argv(coll)).set_index("name")
    for run in RUNS[1:]:
        for measure in ("nDCG@5", "AP"):
            s, b = per_topic(coll, measure, run), per_topic(coll, measure, "a")
            for alpha in (0, 5):
                col = f"TRisk({measure}{'' if alpha == 0 else f',alpha={alpha}'},baseline='a')"
                expected = brute_force_p(s, b, alpha, null, "trisk")
                assert table.loc[run, f"{col} p-value"] == pytest.approx(expected, abs=1e-12), (run, col)
                assert table.loc[run, col] == t_table.loc[run, col]  # the statistic is TRisk either way


def test_randomization_is_seeded(capsys, coll):
    argv = [*_base_argv(coll), "--test", "randomization", "--resamples", "300"]  # fewer than 2^10: random
    first, again = _csv(capsys, [*argv, "--seed", "3"]), _csv(capsys, [*argv, "--seed", "3"])
    pd.testing.assert_frame_equal(first, again)
    p = first.filter(like="p-value").to_numpy(dtype=float)
    p = p[~np.isnan(p)]
    assert (p >= 1 / 301).all() and (p <= 1).all()


def test_all_pairs_t_and_randomization_with_correction(capsys, coll):
    multipletests = pytest.importorskip("statsmodels.stats.multitest").multipletests
    argv = ["eval", "--qrels", str(coll / "qrels.txt"), "--measure", "AP", "--alpha", "0", "2", "--all-pairs",
            *(str(coll / f"{r}.run") for r in RUNS)]
    pairs = _csv(capsys, [*argv, "--pairs-test", "t", "--correction", "holm"])
    assert list(pairs.columns[:4]) == ["measure", "alpha", "system_a", "system_b"]
    assert len(pairs) == 2 * 6  # two alphas x the six pairs of four runs
    ap = {r: per_topic(coll, "AP", r) for r in RUNS}
    for alpha, group in pairs.groupby("alpha"):
        for row in group.itertuples():
            x = weighted(ap[row.system_a], ap[row.system_b], alpha)
            assert row.p_value == pytest.approx(stats.ttest_1samp(x, 0.0).pvalue, rel=1e-9)
        np.testing.assert_allclose(group["p_adjusted"], multipletests(group["p_value"], method="holm")[1],
                                   rtol=1e-12)
    pairs = _csv(capsys, [*argv, "--pairs-test", "randomization"])
    for row in pairs.itertuples():
        expected = brute_force_p(ap[row.system_a], ap[row.system_b], row.alpha, "symmetric", "urisk")
        assert row.p_value == pytest.approx(expected, abs=1e-12)
    code, _, err = _run(capsys, [*argv, "--pairs-test", "tukey"])
    assert code == 2 and "tukey" in err and "--alpha 0" in err


def test_all_pairs_takes_the_alpha_of_a_risk_measure(capsys, coll):
    """Issue 14, item 2: a risk measure in --measure is compared at its own α, not at --alpha's."""
    runs = [str(coll / f"{r}.run") for r in RUNS]
    argv = ["eval", "--qrels", str(coll / "qrels.txt"), "--all-pairs", *runs, "--format", "csv"]
    code, out, err = _run(capsys, [*argv, "--measure", "TRisk(AP,alpha=5,baseline='a')"])
    pairs = pd.read_csv(io.StringIO(out))
    assert code == 0 and set(pairs["alpha"]) == {5.0} and len(pairs) == 6
    assert "baseline of TRisk(AP,alpha=5,baseline='a') is not used" in err
    ap = {r: per_topic(coll, "AP", r) for r in RUNS}
    for row in pairs.itertuples():
        assert row.urisk == pytest.approx(weighted(ap[row.system_a], ap[row.system_b], 5).mean(), rel=1e-12)
        expected = brute_force_p(ap[row.system_a], ap[row.system_b], 5, "symmetric", "urisk")
        assert row.p_value == pytest.approx(expected, abs=1e-12)
    mixed = _csv(capsys, [*argv[:-2], "--measure", "AP", "URisk(nDCG@5,alpha=3)", "--alpha", "1"])
    assert sorted(set(zip(mixed["measure"], mixed["alpha"], strict=True))) == [("AP", 1.0), ("nDCG@5", 3.0)]
    code, _, err = _run(capsys, [*argv, "--measure", "URisk(AP,alpha=2)", "--pairs-test", "tukey"])
    assert code == 2 and "tukey" in err


def test_tukey_pairs_at_alpha_zero(capsys, coll):
    pairs = _csv(capsys, ["eval", "--qrels", str(coll / "qrels.txt"), "--measure", "AP", "--all-pairs",
                          "--pairs-test", "tukey", *(str(coll / f"{r}.run") for r in RUNS)])
    values = np.vstack([per_topic(coll, "AP", r) for r in RUNS])
    k, c = values.shape
    resid = values - values.mean(1, keepdims=True) - values.mean(0, keepdims=True) + values.mean()
    mse = (resid**2).sum() / ((k - 1) * (c - 1))
    for row in pairs.itertuples():
        i, j = RUNS.index(row.system_a), RUNS.index(row.system_b)
        q = abs(values[i].mean() - values[j].mean()) / math.sqrt(mse / c)
        expected = stats.studentized_range.sf(q, k, (k - 1) * (c - 1))
        assert row.p_value == pytest.approx(expected, rel=1e-6)


def test_perquery_gives_topic_p_values_of_t_r_and_t_j(capsys, coll):
    multipletests = pytest.importorskip("statsmodels.stats.multitest").multipletests
    pq = _csv(capsys, ["eval", "--qrels", str(coll / "qrels.txt"), "--measure", "AP", "--alpha", "3",
                       "--baseline", "a", "--perquery", "--correction", "holm", "--no-zrisk",
                       str(coll / "a.run"), str(coll / "b.run")])
    pq["qid"] = pq["qid"].astype(str)
    wide = pq.pivot_table(index=["name", "measure"], columns="qid", values="value")
    topics = [str(q) for q in range(1, N_TOPICS + 1)]
    col = "TRisk(AP,alpha=3,baseline='a')"
    x = weighted(per_topic(coll, "AP", "b"), per_topic(coll, "AP", "a"), 3)
    t_r = x / x.std(ddof=1)
    np.testing.assert_allclose(wide.loc[("b", f"{col} T_R"), topics], t_r, rtol=1e-9)
    p = 2 * stats.t.sf(np.abs(t_r), N_TOPICS - 1)  # rmit-ir/trisk's per-topic p-value (sample sd here)
    np.testing.assert_allclose(wide.loc[("b", f"{col} T_R p-value"), topics], p, rtol=1e-9)
    np.testing.assert_allclose(wide.loc[("b", f"{col} T_J p-value"), topics], p, rtol=1e-6)  # T_J = T_R
    np.testing.assert_allclose(wide.loc[("b", f"{col} T_R p-value corrected"), topics],
                               multipletests(p, method="holm")[1], rtol=1e-9)
    baseline_rows = pq[(pq["name"] == "a") & (pq["measure"] == f"{col} T_R p-value")]
    assert len(baseline_rows) == N_TOPICS and baseline_rows["value"].isna().all()  # no test against itself


def test_perquery_topic_p_values_with_the_population_sd_of_rmit_trisk(capsys, coll):
    """Issue 16, item 7: --topic-sd population divides s_x by c, as rmit-ir/trisk does."""
    argv = ["eval", "--qrels", str(coll / "qrels.txt"), "--measure", "AP", "--alpha", "3", "--baseline", "a",
            "--perquery", "--no-zrisk", str(coll / "a.run"), str(coll / "b.run")]
    pq = _csv(capsys, [*argv, "--topic-sd", "population"])
    pq["qid"] = pq["qid"].astype(str)
    wide = pq.pivot_table(index=["name", "measure"], columns="qid", values="value")
    x = weighted(per_topic(coll, "AP", "b"), per_topic(coll, "AP", "a"), 3)
    p = 2 * stats.t.sf(np.abs(x / x.std(ddof=0)), N_TOPICS - 1)  # rmit-ir/trisk: population sd, c - 1 df
    topics = [str(q) for q in range(1, N_TOPICS + 1)]
    row = ("b", "TRisk(AP,alpha=3,baseline='a') T_R p-value")
    np.testing.assert_allclose(wide.loc[row, topics], p, rtol=1e-9)
    # issue 23 #10: one option sets TRisk's SD too (T_R and TRisk of the peer: ours times sqrt(c/(c-1)))
    c = N_TOPICS
    t_r = wide.loc[("b", "TRisk(AP,alpha=3,baseline='a') T_R"), topics].to_numpy()
    np.testing.assert_allclose(t_r, x / x.std(ddof=0), rtol=1e-9)
    averages = [a for a in argv if a != "--perquery"]
    sample = _csv(capsys, averages).set_index("name")
    population = _csv(capsys, [*averages, "--sd", "population"]).set_index("name")
    col = "TRisk(AP,alpha=3,baseline='a')"
    assert population.loc["b", col] == pytest.approx(sample.loc["b", col] * np.sqrt(c / (c - 1)), rel=1e-12)
    assert population.loc["b", col] == pytest.approx(x.mean() / (x.std(ddof=0) / np.sqrt(c)), rel=1e-12)
    assert population.loc["b", f"{col} p-value"] < sample.loc["b", f"{col} p-value"]
    old = _csv(capsys, [*averages, "--topic-sd", "population"]).set_index("name")  # the old name still works
    pd.testing.assert_frame_equal(old, population)


# -- evaluation files as input ---------------------------------------------------------------------------
def _trec_eval_file(coll, path, runs, measures):
    """trec_eval -q output of the runs (full precision): per topic every measure, then the ``all`` lines."""
    lines = []
    for run in runs:
        values = {trec_name: per_topic(coll, measure, run) for trec_name, measure in measures.items()}
        for i in range(N_TOPICS):
            lines += [f"{trec_name}\t{i + 1}\t{float(v[i])!r}\n" for trec_name, v in values.items()]
        lines.append(f"runid\tall\t{run}\n")
        lines += [f"{trec_name}\tall\t{float(v.mean())!r}\n" for trec_name, v in values.items()]
    path.write_text("".join(lines))


GDEVAL_NDCG5 = "nDCG(gains={0:0,1:1,2:3})@5"  # gdeval.pl's nDCG (gains 2^label - 1) on labels 0..2


def test_evalfiles_give_the_runs_results(capsys, coll):
    """trec_eval -q and gdeval files holding the runs' per-topic values give the runs' table."""
    _trec_eval_file(coll, coll / "te.txt", RUNS, {"map": "AP", "ndcg_cut_5": "nDCG@5"})
    rows = ["runid,topic,ndcg@5,err@5\n"]
    for run in RUNS:
        nd = per_topic(coll, GDEVAL_NDCG5, run)
        rows += [f"{run},{q},{float(v)!r},0.0\n" for q, v in zip(range(1, N_TOPICS + 1), nd, strict=True)]
        rows.append(f"{run},amean,{float(nd.mean())!r},0.0\n")
    (coll / "gd.csv").write_text("".join(rows))
    options = ["--qrels", str(coll / "qrels.txt"), "--alpha", "0", "5", "--baseline", "a", "--baselines",
               "median"]
    runs = [str(coll / f"{r}.run") for r in RUNS]
    from_runs = _csv(capsys, ["eval", *options, "--measure", "nDCG@5", "AP", *runs])
    te, gd = str(coll / "te.txt"), str(coll / "gd.csv")
    from_files = _csv(capsys, ["eval", *options, "--measure", "nDCG@5", "AP", "--evalfile", te])
    assert list(from_files.columns) == list(from_runs.columns)
    pd.testing.assert_frame_equal(from_files, from_runs, rtol=1e-12, atol=1e-12)
    from_runs = _csv(capsys, ["eval", *options, "--measure", GDEVAL_NDCG5, *runs])
    from_files = _csv(capsys, ["eval", *options, "--measure", "nDCG(dcg='exp-log2')@5", "--evalfile", gd])
    from_runs.columns = [c.replace(repr(parse_measure(GDEVAL_NDCG5)), "nDCG(dcg='exp-log2')@5")
                         for c in from_runs.columns]
    pd.testing.assert_frame_equal(from_files, from_runs, rtol=1e-12, atol=1e-12)
    code, _, err = _run(capsys, ["eval", "--evalfile", str(coll / "te.txt"), "--measure", "AP", "--baseline",
                                 "zz"])
    assert code == 2 and "baseline run 'zz' is not in the evaluation files" in err
    code, _, err = _run(capsys, ["eval", "--evalfile", str(coll / "te.txt"), "--measure", "AP", "--format",
                                 "csv"])
    assert code == 0 and "no --qrels: the topic set is the topics of the evaluation files" in err
    # both tools' nDCG@5 in the files: nDCG@5 is trec_eval's (gain = label), gdeval's is another measure
    gd5 = "nDCG(dcg='exp-log2')@5"
    both = _csv(capsys, ["eval", *options, "--measure", "nDCG@5", gd5, "--evalfile", te, gd])
    alone = _csv(capsys, ["eval", *options, "--measure", "nDCG@5", "--evalfile", te])
    pd.testing.assert_frame_equal(both[alone.columns], alone)
    assert (both["nDCG@5"] != both[gd5]).any()  # graded labels: the two differ
    lines = (coll / "gd.csv").read_text().splitlines(True)
    (coll / "gd_only_b.csv").write_text("".join(x for x in lines if not x.startswith(("a,", "c,", "d,"))))
    te_acd = coll / "te_acd.txt"
    _trec_eval_file(coll, te_acd, ("a", "c", "d"), {"ndcg_cut_5": "nDCG@5"})
    code, _, err = _run(capsys, ["eval", "--evalfile", str(te_acd), str(coll / "gd_only_b.csv"), "--measure",
                                 "nDCG@5"])
    assert code == 2 and "run(s) 'b' have it only in another definition" in err
    # issue 14, item 3: a trec_eval name never selects gdeval's values; the error says how to ask for them
    code, _, err = _run(capsys, ["eval", "--evalfile", gd, "--measure", "ndcg_cut_5", "--qrels",
                                 str(coll / "qrels.txt")])
    assert code == 2 and len(err.strip().splitlines()) == 1
    assert "the evaluation files hold nDCG(dcg='exp-log2')@5 (gdeval's nDCG, gain 2^label - 1)" in err
    assert """--measure "nDCG(dcg='exp-log2')@5\"""" in err
    with pytest.raises(SystemExit) as e:
        main(["eval", "--qrels", str(coll / "qrels.txt"), runs[0], "--evalfile", str(coll / "te.txt")])
    assert e.value.code == 2 and "not both" in capsys.readouterr().err


@pytest.mark.realdata
@pytest.mark.slow
def test_trec7_reference_gdeval_file_equals_the_runs(capsys):
    """The 19 TREC-7 runs and gdeval.pl -c's per-topic output of them: the same results.

    gdeval prints five decimals; the runs' per-topic nDCG@20 rounded to five decimals is the file's
    value exactly, so every table value computed from the file equals the one computed from the
    rounded runs, and the means differ from the unrounded runs' by at most half a unit of the 5th
    decimal.
    """
    import pyterrier_risk as pr

    root = data_path("trec7-adhoc-terrier-runs")
    base = "stem-stop_BM25b0.75_1"
    options = ["--qrels", str(root / "qrels.adhoc.351-400.txt"), "--measure", "nDCG@20", "--alpha", "0", "5",
               "--baseline", base]
    gdeval = str(root / "reference_eval" / "gdeval_c.csv")
    gd20 = "nDCG(dcg='exp-log2')@20"  # gdeval's nDCG: on TREC-7's binary labels trec_eval's nDCG@20 too
    files = _csv(capsys, ["eval", *options[:3], gd20, *options[4:], "--evalfile", gdeval])
    files.columns = [c.replace(gd20, "nDCG@20") for c in files.columns]
    runs_pq = _csv(capsys, ["eval", *options, str(root / "runs"), "--perquery"])
    runs = _csv(capsys, ["eval", *options, str(root / "runs")]).set_index("name")
    files = files.set_index("name").loc[runs.index]
    runs_pq["qid"] = runs_pq["qid"].astype(str)
    matrix = runs_pq[runs_pq["measure"] == "nDCG@20"].pivot(index="name", columns="qid", values="value")
    rounded = matrix.loc[runs.index].round(5)
    assert (files["nDCG@20"] - runs["nDCG@20"]).abs().max() <= 5e-6 + 1e-12
    np.testing.assert_allclose(files["nDCG@20"], rounded.mean(axis=1), atol=1e-12)
    b = rounded.loc[base]
    for alpha, suffix in ((0, ""), (5, ",alpha=5")):
        for run in runs.index.drop(base):
            result = pr.trisk(rounded.loc[run], b, alpha=alpha)
            assert files.loc[run, f"URisk(nDCG@20{suffix},baseline='{base}')"] == pytest.approx(result.urisk,
                                                                                                 abs=1e-12)
            assert files.loc[run, f"TRisk(nDCG@20{suffix},baseline='{base}')"] == pytest.approx(result.trisk,
                                                                                                 rel=1e-9)
            urisk_runs = runs.loc[run, f"URisk(nDCG@20{suffix},baseline='{base}')"]
            assert abs(files.loc[run, f"URisk(nDCG@20{suffix},baseline='{base}')"] - urisk_runs) <= (
                (1 + alpha) * 1e-5 + 1e-12)
        np.testing.assert_allclose(files[f"GeoRisk(nDCG@20{suffix})"], pr.georisk(rounded, alpha), rtol=1e-9)
        np.testing.assert_allclose(files[f"ZRisk(nDCG@20{suffix})"], pr.zrisk(rounded, alpha), rtol=1e-9)


# -- topic modes -----------------------------------------------------------------------------------------
def test_topic_modes_qrels_and_intersection(capsys, coll):
    holey = "".join(line for line in (coll / "b.run").read_text().splitlines(keepends=True)
                    if line.split()[0] not in ("2", "7"))
    (coll / "h.run").write_text(holey)
    argv = ["eval", "--qrels", str(coll / "qrels.txt"), "--measure", "AP", "--baseline", "a", "--no-zrisk",
            str(coll / "a.run"), str(coll / "h.run")]
    code, out, err = _run(capsys, [*argv, "--format", "csv"])
    assert code == 0 and "h.run has no results for 2 of the 10 qrels topics; they score 0" in err
    qrels_mode = pd.read_csv(io.StringIO(out)).set_index("name")
    ap_a, ap_h = per_topic(coll, "AP", "a"), per_topic(coll, "AP", "h")
    assert qrels_mode.loc["h", "AP"] == pytest.approx(ap_h.mean(), abs=1e-12)  # -c: the two topics count 0
    code, out, err = _run(capsys, [*argv, "--format", "csv", "--topic-policy", "intersection"])
    assert code == 0, err
    assert "pyterrier-risk: note: intersection mode: 2 of the 10 qrels topics are left out" in err
    inter = pd.read_csv(io.StringIO(out)).set_index("name")
    kept = [i for i in range(N_TOPICS) if i + 1 not in (2, 7)]
    assert inter.loc["h", "AP"] == pytest.approx(ap_h[kept].mean(), abs=1e-12)  # gdeval without -c
    assert inter.loc["a", "AP"] == pytest.approx(ap_a[kept].mean(), abs=1e-12)  # one topic set for all
    urisk = (ap_h[kept] - ap_a[kept]).mean()
    assert inter.loc["h", "URisk(AP,baseline='a')"] == pytest.approx(urisk, abs=1e-12)
    with pytest.raises(SystemExit) as e:
        main([*argv, "--topic-policy", "both"])
    assert e.value.code == 2 and "invalid choice: 'both'" in capsys.readouterr().err
    with pytest.raises(SystemExit) as e:  # the old spelling with a wrong value: what to type
        main([*argv, "--topics", "both"])
    err = capsys.readouterr().err
    assert e.value.code == 2 and "the topic policy is --topic-policy qrels|intersection" in err
