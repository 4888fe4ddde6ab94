"""Tables as Markdown, LaTeX and CSV (pyterrier_risk.reporting.write_table)."""

import io
import math

import numpy as np
import pandas as pd
import pytest

from pyterrier_risk.reporting import write_table
from pyterrier_risk.reporting._tables import format_cell, latex_escape


@pytest.fixture
def table() -> pd.DataFrame:
    return pd.DataFrame({
        "name": ["BM25", "a|b_c&d"],
        "nDCG@10": [0.46671049, 0.1 + 0.2],
        "URisk(nDCG@10,alpha=5,baseline='BM25')": [0.0, -0.1234567],
        "wins": [0, 12],
    })


def test_markdown_header_separator_and_rows(table):
    text = write_table(table, None, format="markdown")
    lines = text.splitlines()
    assert len(lines) == 2 + len(table)
    header = [c.strip() for c in lines[0].strip("|").split(" | ")]
    assert header == list(table.columns)
    sep = lines[1].strip("|").split("|")
    assert len(sep) == len(table.columns)
    # text column left-aligned, numeric columns right-aligned (":" at the end)
    assert set(sep[0].strip()) == {"-"} and all(s.strip().endswith(":") for s in sep[1:])
    assert "0.4667" in lines[2] and "-0.1235" in lines[3]
    # a pipe inside a cell is escaped, so every row still has one cell per column
    assert r"a\|b_c&d" in lines[3]
    assert lines[3].replace(r"\|", "").count("|") == len(table.columns) + 1


def test_markdown_is_default_and_aligned(table):
    text = write_table(table)
    assert text == write_table(table, None, "markdown")
    assert len({len(line) for line in text.splitlines()}) == 1  # padded to equal widths


def test_csv_round_trips_full_precision(table, tmp_path):
    path = tmp_path / "sub" / "t.csv"
    text = write_table(table, path)  # format inferred from the suffix, folder created
    assert path.read_text() == text
    back = pd.read_csv(path)
    assert list(back.columns) == list(table.columns)
    pd.testing.assert_frame_equal(back, table)  # floats exactly, not rounded
    pd.testing.assert_frame_equal(pd.read_csv(io.StringIO(write_table(table, None, "csv"))), table)


def test_latex_tabular_escaped(table, tmp_path):
    text = write_table(table, tmp_path / "t.tex")
    assert text.startswith("\\begin{tabular}{lrrr}")
    assert "\\end{tabular}" in text and "\\toprule" in text and "\\midrule" in text
    assert r"a|b\_c\&d" in text
    body = [line for line in text.splitlines() if line.endswith(r"\\")]
    assert len(body) == 1 + len(table)
    assert all(line.count(" & ") == len(table.columns) - 1 for line in body)
    wrapped = write_table(table, None, "latex", caption="Risk 100%")
    assert wrapped.startswith("\\begin{table}") and r"\caption{Risk 100\%}" in wrapped


def test_latex_escape_specials():
    assert latex_escape("50%_$#{}~^\\&") == (r"50\%\_\$\#\{\}\textasciitilde{}\textasciicircum{}"
                                             r"\textbackslash{}\&")


def test_index_and_series(table):
    indexed = table.set_index("name")
    text = write_table(indexed, None, "markdown", index=True)
    assert text.splitlines()[0].startswith("| name ")
    assert "0.4667" in write_table(indexed["nDCG@10"], None, "markdown", index=True)


@pytest.mark.parametrize(("value", "expected"), [
    (0.123456, "0.1235"), (np.float32(0.5), "0.5000"), (3, "3"), (np.int64(7), "7"), (np.nan, ""),
    (None, ""), (pd.NA, ""), ("x", "x"), (True, "True"),
])
def test_format_cell(value, expected):
    assert format_cell(value) == expected


def test_styler_is_written_by_its_data(table):
    pytest.importorskip("jinja2")  # pandas needs it to build a Styler
    assert write_table(table.style.highlight_max(), None, "csv") == write_table(table, None, "csv")


def test_bad_format_and_input(table):
    with pytest.raises(ValueError, match="unknown table format 'html'"):
        write_table(table, None, "html")
    with pytest.raises(TypeError, match="DataFrame"):
        write_table([[1, 2]], None)


def test_unwritable_path_not_a_dir(table, tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    with pytest.raises(OSError, match="cannot write table to .*file/t.md"):
        write_table(table, blocker / "t.md")


from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402


@settings(max_examples=50, deadline=None)
@given(st.lists(st.tuples(st.text(alphabet="ab|_&% x", min_size=1, max_size=6),
                          st.floats(-1e6, 1e6, allow_nan=False), st.integers(-5, 5)), min_size=1, max_size=8))
def test_csv_round_trip_and_markdown_shape_property(rows):
    df = pd.DataFrame(rows, columns=["name", "value", "count"])
    back = pd.read_csv(io.StringIO(write_table(df, None, "csv")), keep_default_na=False,
                       dtype={"name": str})
    pd.testing.assert_frame_equal(back, df)
    md = write_table(df, None, "markdown").splitlines()
    assert len(md) == 2 + len(df)
    assert all(line.replace(r"\|", "").count("|") == 4 for line in md)
    tex = write_table(df, None, "latex")
    assert tex.count(r" \\") == 1 + len(df)


# -- paper-ready options: bold, significance marks, compact layouts ---------------------------------------

from pyterrier_risk import parse_measure, tidy_results  # noqa: E402
from pyterrier_risk.reporting import short_labels  # noqa: E402

SYSTEMS = ["BM25", "DPH", "QLD", "PL2"]


@pytest.fixture
def results() -> pd.DataFrame:
    """A wide table named as pyterrier_risk.Experiment names its columns (BM25 = the baseline)."""
    rng = np.random.default_rng(7)
    df = pd.DataFrame({"name": SYSTEMS, "nDCG@20": [0.40, 0.43, 0.38, 0.43], "AP": rng.uniform(0.1, 0.3, 4)})
    df["nDCG@20 +"] = [np.nan, 20, 14, 25]
    df["nDCG@20 -"] = [np.nan, 12, 30, 12]
    df["nDCG@20 p-value"] = [np.nan, 0.01, 0.2, 0.04]
    df["nDCG@20 p-value corrected"] = [np.nan, 0.03, 0.6, 0.12]
    for alpha, shift in ((1, 0.0), (5, -0.05)):
        df[f"URisk(nDCG@20,alpha={alpha})"] = [0.0, 0.02 + shift, -0.03 + shift, 0.01 + shift]
        df[f"TRisk(nDCG@20,alpha={alpha})"] = [np.nan, 2.5 + 10 * shift, -1.5 + 10 * shift, 0.9 + 10 * shift]
        df[f"TRisk(nDCG@20,alpha={alpha}) p-value"] = [np.nan, 0.015, 0.14 - shift, 0.37 + shift]
    df["ZRisk(nDCG@20,alpha=5)"] = [-1.0, 2.0, -3.0, 2.0]
    df["Losses"] = [0, 12, 30, 11]
    return df


def _md_cells(text: str) -> list[list[str]]:
    """The body cells of a markdown table (first table in ``text``)."""
    lines = [line for line in text.splitlines() if line.startswith("| ")][2:]
    return [[c.strip() for c in line.replace(r"\|", "\0").strip("|").split("|")] for line in lines]


def _column(text: str, header: str) -> list[str]:
    head = [c.strip() for c in text.splitlines()[0].strip("|").split("|")]
    j = head.index(header)
    return [row[j] for row in _md_cells(text)]


def test_bold_marks_the_best_value_of_each_column(results):
    text = write_table(results, bold=True)
    for column in ["nDCG@20", "AP", "ZRisk(nDCG@20,alpha=5)"]:
        cells = _column(text, column)
        best = results[column].round(4) == results[column].round(4).max()
        assert [c.startswith("**") for c in cells] == best.tolist(), column
    assert sum(c.startswith("**") for c in _column(text, "nDCG@20")) == 2  # a tie: both bold
    # lower is better: the default set (Losses) and the loss counts "X -"
    assert [c.startswith("**") for c in _column(text, "Losses")] == [True, False, False, False]
    assert [c.startswith("**") for c in _column(text, "nDCG@20 -")] == [False, True, False, True]
    # p-values are never bold; the baseline's URisk of 0 against itself (no p-value) does not compete
    p_cells = _column(text, "nDCG@20 p-value") + _column(text, "nDCG@20 p-value corrected")
    assert not any("**" in c for c in p_cells)
    urisk = _column(text, "URisk(nDCG@20,alpha=1)")
    assert urisk[0] == "0.0000" and urisk[1] == "**0.0200**"
    assert ("Best value per column in bold; lower is better for nDCG@20 -, Losses; the baseline's URisk "
            "against itself (0 by definition) is not ranked.") in text


def test_bold_options(results):
    text = write_table(results, bold=["AP", "Losses"], lower_is_better=["AP"])
    lowest = results["AP"] == results["AP"].min()
    assert [c.startswith("**") for c in _column(text, "AP")] == lowest.tolist()
    assert [c.startswith("**") for c in _column(text, "Losses")] == [False, False, True, False]  # now higher
    assert not any("**" in c for c in _column(text, "nDCG@20"))
    with pytest.raises(ValueError, match=r"bold: the table has no column\(s\) \['MAP'\]"):
        write_table(results, bold=["MAP"])


def test_significance_marks_follow_the_p_values(results):
    text = write_table(results, significance=True, level=0.05)
    # an ordinary measure uses its corrected p-value when there is one
    expected = (results["nDCG@20 p-value corrected"] <= 0.05).tolist()
    assert [c.endswith("†") for c in _column(text, "nDCG@20")] == expected == [False, True, False, False]
    for alpha in (1, 5):
        p = results[f"TRisk(nDCG@20,alpha={alpha}) p-value"] <= 0.05
        assert [c.endswith("†") for c in _column(text, f"TRisk(nDCG@20,alpha={alpha})")] == p.tolist()
        # URisk is marked by the TRisk t-test of the same base, alpha and baseline
        assert [c.endswith("†") for c in _column(text, f"URisk(nDCG@20,alpha={alpha})")] == p.tolist()
    assert not any(c.endswith("†") for c in _column(text, "ZRisk(nDCG@20,alpha=5)") + _column(text, "AP"))
    assert "† significantly different from the baseline (p ≤ 0.05;" in text
    assert "measures: corrected p-values; risk measures: uncorrected" in text
    loose = write_table(results, significance=True, level=0.2)
    assert [c.endswith("†") for c in _column(loose, "TRisk(nDCG@20,alpha=1)")] == [False, True, True, False]


def test_significance_mapping_test_and_correction_names(results):
    results = results.assign(**{"AP p": [np.nan, 0.5, 0.001, 0.01]})
    text = write_table(results, significance={"AP": "AP p"}, test="randomization test", correction="Holm",
                       marker="*")
    assert [c.endswith(r"\*") for c in _column(text, "AP")] == [False, False, True, True]
    assert not any(c.endswith(r"\*") for c in _column(text, "nDCG@20"))
    assert r"\* significantly different from the baseline (p ≤ 0.05; randomization test; Holm correction)" \
        in text
    with pytest.raises(ValueError, match="significance: the table has no column"):
        write_table(results, significance={"AP": "AP q"})


def test_latex_paper_table(results):
    text = write_table(results, None, "latex", bold=True, significance=True, caption="Risk on TREC-7 (50%).",
                       label="tab:risk", test="paired t-test", correction="Bonferroni")
    assert text.startswith("\\begin{table}\n\\centering\n\\caption{Risk on TREC-7 (50\\%). $^{\\dagger}$")
    assert "$p \\le 0.05$; paired t-test; measures: Bonferroni correction; risk measures: uncorrected" in text
    assert "\\label{tab:risk}" in text and text.rstrip().endswith("\\end{table}")
    assert text.index("\\caption") < text.index("\\begin{tabular}")  # caption above the table
    body = [line for line in text.splitlines() if line.endswith(r" \\")]
    assert len(body) == 1 + len(results)
    assert all(line.count(" & ") == results.shape[1] - 1 for line in body)
    md = write_table(results, bold=True, significance=True)
    assert text.count("\\textbf{") == md.count("**") // 2
    assert text.count("$^{\\dagger}$") == md.count("†")  # the cells and the legend


def test_markdown_caption_and_plain_tables_unchanged(results):
    plain = write_table(results)
    assert "**" not in plain and "†" not in plain and "Table:" not in plain
    assert len(plain.splitlines()) == 2 + len(results)
    styled = write_table(results, bold=True, significance=True, caption="TREC-7.")
    assert styled.startswith(plain.splitlines()[0][:6])
    assert "\n\nTable: TREC-7. † significantly" in styled
    rows = [line for line in styled.splitlines() if line.startswith("| ")]
    assert len(rows) == 2 + len(results)
    assert all(line.count("|") == results.shape[1] + 1 for line in rows)


def test_short_labels_share_numbers_by_base_and_alpha():
    columns = ["name", "nDCG@20", "URisk(nDCG@20,alpha=1)", "TRisk(nDCG@20,alpha=1)",
               "TRisk(nDCG@20,alpha=1) p-value", "URisk(nDCG@20,alpha=5)", "TRisk(nDCG@20,alpha=5)",
               "ZRisk(nDCG@20,alpha=5)", "GeoRisk(nDCG@20,alpha=5)", "nDCG(judged_only=True)@20"]
    rename, legend = short_labels(columns)
    assert rename == {"URisk(nDCG@20,alpha=1)": "U1", "TRisk(nDCG@20,alpha=1)": "T1",
                      "TRisk(nDCG@20,alpha=1) p-value": "T1 p", "URisk(nDCG@20,alpha=5)": "U2",
                      "TRisk(nDCG@20,alpha=5)": "T2", "ZRisk(nDCG@20,alpha=5)": "Z2",
                      "GeoRisk(nDCG@20,alpha=5)": "G2", "nDCG(judged_only=True)@20": "M1"}
    assert legend[0] == ("U1", "URisk(nDCG@20,alpha=1)") and ("M1", "nDCG(judged_only=True)@20") in legend
    # the full names are measures again
    assert all(repr(parse_measure(full)) == full for _, full in legend)
    # a short ordinary measure keeps its name, its p-value columns follow the short labels (issue 16)
    derived = [f"nDCG@20 {suffix}" for suffix in ("p-value", "p-value corrected", "reject")]
    rename, legend = short_labels(["nDCG@20", *derived])
    assert rename == {"nDCG@20 p-value": "nDCG@20 p", "nDCG@20 p-value corrected": "nDCG@20 p-adj",
                      "nDCG@20 reject": "nDCG@20 rej"} and legend == []
    # two baselines at one alpha: U1a, U1b; a clash with an existing column gets a prime
    rename, _ = short_labels(["URisk(AP,alpha=1,baseline='BM25')", "URisk(AP,alpha=1,baseline='mean')",
                              "U1b"])
    assert rename == {"URisk(AP,alpha=1,baseline='BM25')": "U1a", "URisk(AP,alpha=1,baseline='mean')": "U1b'"}


def test_short_labels_in_the_table_with_their_legend(results):
    text = write_table(results, short_labels=True)
    header = [c.strip() for c in text.splitlines()[0].strip("|").split("|")]
    assert header[:3] == ["name", "nDCG@20", "AP"] and "U1" in header and "T2 p" in header and "Z2" in header
    assert "- U1: `URisk(nDCG@20,alpha=1)`" in text and "- T2: `TRisk(nDCG@20,alpha=5)`" in text
    assert _column(text, "T2") == _column(write_table(results), "TRisk(nDCG@20,alpha=5)")
    tex = write_table(results, None, "latex", short_labels=True)
    assert r"U1: \texttt{URisk(nDCG@20,alpha=1)}" in tex and tex.startswith("\\begin{table}")


def test_tidy_results_round_trips_a_long_table():
    # build the wide table from a known long one, then melt it back
    rng = np.random.default_rng(3)
    rows = []
    for name in SYSTEMS:
        for base, mean in (("nDCG@20", rng.uniform()), ("AP", rng.uniform())):
            for alpha in (0.0, 1.0, 5.0):
                rows.append({"name": name, "measure": base, "alpha": alpha, "value": mean,
                             "URisk": rng.normal(), "TRisk": rng.normal(), "TRisk p-value": rng.uniform()})
    long = pd.DataFrame(rows)
    wide = pd.DataFrame({"name": SYSTEMS})
    for base in ("nDCG@20", "AP"):
        part = long[long["measure"] == base]
        wide[base] = part.groupby("name", sort=False)["value"].first().to_numpy()
        for alpha in (0.0, 1.0, 5.0):
            sel = part[part["alpha"] == alpha].set_index("name").loc[SYSTEMS]
            for family in ("URisk", "TRisk"):
                wide[f"{family}({base},alpha={alpha:g})"] = sel[family].to_numpy()
            wide[f"TRisk({base},alpha={alpha:g}) p-value"] = sel["TRisk p-value"].to_numpy()
    wide["mrt"] = [1.0, 2.0, 3.0, 4.0]
    got = tidy_results(wide)
    expected = long.assign(mrt=np.repeat(wide["mrt"].to_numpy(), 6))
    pd.testing.assert_frame_equal(got, expected)
    # the same table as CSV in the long layout
    back = pd.read_csv(io.StringIO(write_table(wide, None, "csv", layout="long")))
    pd.testing.assert_frame_equal(back, expected)


def test_tidy_results_labels_varying_parameters_and_plain_measures(results):
    wide = results[["name", "AP", "URisk(nDCG@20,alpha=1)"]].assign(
        **{"URisk(nDCG@20,alpha=1,baseline='mean')": [0.1, 0.2, 0.3, 0.4]})
    got = tidy_results(wide)
    assert list(got.columns) == ["name", "measure", "alpha", "value", "URisk", "URisk(baseline='mean')"]
    assert len(got) == 2 * len(SYSTEMS)  # AP (no alpha) and nDCG@20 at alpha 1
    ap = got[got["measure"] == "AP"]
    assert ap["alpha"].isna().all() and ap["value"].tolist() == results["AP"].tolist()
    ndcg = got[got["measure"] == "nDCG@20"]
    assert ndcg["value"].isna().all()  # nDCG@20 itself is not in this table
    assert ndcg["URisk(baseline='mean')"].tolist() == [0.1, 0.2, 0.3, 0.4]
    with pytest.raises(TypeError, match="DataFrame"):
        tidy_results([1, 2])


def test_long_layout_keeps_bold_and_marks_per_measure_and_alpha(results):
    text = write_table(results, layout="long", bold=True, significance=True)
    cells = _md_cells(text)
    head = [c.strip() for c in text.splitlines()[0].strip("|").split("|")]
    assert head[:4] == ["name", "measure", "alpha", "value"] and "TRisk p-value" in head
    assert len(cells) == len(SYSTEMS) * 3  # nDCG@20 at alpha 1 and 5, AP without alpha
    trisk = {(r[0], r[2]): r[head.index("TRisk")] for r in cells if r[1] == "nDCG@20"}
    wide = write_table(results, bold=True, significance=True)
    for alpha in ("1", "5"):
        assert [trisk[(s, alpha)] for s in SYSTEMS] == _column(wide, f"TRisk(nDCG@20,alpha={alpha})")
    assert "Best value per measure, α and column in bold; lower is better for value -, Losses; " in text


def test_transposed_layout(results):
    text = write_table(results, layout="transposed", bold=True)
    head = [c.strip() for c in text.splitlines()[0].strip("|").split("|")]
    assert head == ["measure", *SYSTEMS]
    rows = {r[0]: r[1:] for r in _md_cells(text)}
    assert list(rows) == [c for c in results.columns if c != "name"]
    assert rows["AP"] == [f"**{v:.4f}**" if v == results["AP"].max() else f"{v:.4f}" for v in results["AP"]]
    back = pd.read_csv(io.StringIO(write_table(results, None, "csv", layout="transposed")), index_col=0)
    np.testing.assert_allclose(back.loc["AP"].to_numpy(dtype=float), results["AP"].to_numpy())
    # without a name column the index names the systems
    head = write_table(results.set_index("name")[["AP"]], layout="transposed").splitlines()[0]
    assert [c.strip() for c in head.strip("|").split("|")] == ["measure", *SYSTEMS]


@pytest.mark.parametrize(("kwargs", "match"), [
    ({"layout": "wider"}, "unknown table layout 'wider'"),
    ({"level": 0}, "level must be a number in"),
    ({"level": True}, "level must be a number in"),
    ({"marker": ""}, "marker must be a non-empty string"),
])
def test_bad_style_options(results, kwargs, match):
    with pytest.raises(ValueError, match=match):
        write_table(results, **kwargs)
    with pytest.raises(ValueError, match=match):
        write_table(results, None, "csv", **kwargs)


def test_an_experiment_table_end_to_end():
    """The real column names of pyterrier_risk.Experiment (with a baseline and a correction)."""
    from ir_measures import AP, nDCG

    rng = np.random.default_rng(5)
    qids = [str(q) for q in range(1, 13)]
    qrels = pd.DataFrame([(q, f"d{d}", int(rng.integers(0, 3))) for q in qids for d in range(8)],
                         columns=["qid", "docno", "label"])
    runs = {}
    for name in SYSTEMS:
        run = pd.DataFrame([(q, f"d{d}", float(rng.random())) for q in qids for d in range(8)],
                           columns=["qid", "docno", "score"])
        run["rank"] = run.groupby("qid")["score"].rank(ascending=False, method="first").astype(int) - 1
        runs[name] = run
    topics = pd.DataFrame({"qid": qids, "query": ""})
    measures = [AP, nDCG @ 5] + [m(nDCG @ 5, alpha=a) for m in (pr_URisk, pr_TRisk) for a in (0, 5)]
    res = pr_Experiment(runs, topics, qrels, measures, baseline=0, correction="holm")
    text = write_table(res, significance=True, level=0.5, bold=True)
    assert "†" in text.split("\n\n")[0] and "**" in text  # some marks in the table itself
    for alpha in (0, 5):
        column = repr(pr_TRisk(nDCG @ 5, alpha=alpha, baseline="BM25"))  # alpha=0 left out, baseline named
        p = res[f"{column} p-value corrected"] <= 0.5
        assert [c.endswith("†") for c in _column(text, column)] == p.tolist()
        urisk = repr(pr_URisk(nDCG @ 5, alpha=alpha, baseline="BM25"))
        assert [c.endswith("†") for c in _column(text, urisk)] == p.tolist()
    assert [c.endswith("†") for c in _column(text, "AP")] == (res["AP p-value corrected"] <= 0.5).tolist()
    long = tidy_results(res)
    assert len(long) == len(SYSTEMS) * (1 + 2)  # AP without alpha; nDCG@5 at alpha 0 and 5
    # every number of the wide table is somewhere in the long one
    for column in ["AP", "nDCG@5", "URisk(nDCG@5,alpha=5,baseline='BM25')",
                   "TRisk(nDCG@5,baseline='BM25') p-value"]:
        assert set(res[column].dropna().round(12)) <= set(long.select_dtypes("number").stack().round(12))


from pyterrier_risk import Experiment as pr_Experiment  # noqa: E402
from pyterrier_risk import TRisk as pr_TRisk  # noqa: E402
from pyterrier_risk import URisk as pr_URisk  # noqa: E402

# -- markers derived from the printed numbers (issue 14) --------------------------------------------------

_VALUES = st.one_of(st.sampled_from([0.1, 0.25, 0.0, 0.04996, 0.05, 0.0500049]), st.floats(0, 1))


def _printed(cell: str) -> float:
    text = cell.replace("**", "").replace("†", "").strip()
    return float(text) if text else math.nan


@settings(max_examples=60, deadline=None)
@given(st.integers(2, 6).flatmap(lambda n: st.tuples(
    st.lists(st.tuples(*[_VALUES] * 5, st.integers(0, 3)), min_size=n, max_size=n),
    st.sampled_from([0.01, 0.05, 0.1]), st.sampled_from([".2f", ".3f", ".4f"]))))
def test_bold_and_marks_are_computed_from_the_printed_numbers(case):
    """Bold: the best printed value by the column's direction; †: exactly the printed p <= level cells.

    The baseline (row 0) competes in the base-measure columns; only in URisk, whose value against
    itself is 0 by definition, it is left out (its TRisk p-value is blank).
    """
    rows, level, fmt = case
    n = len(rows)
    u, t = "URisk(nDCG@20,alpha=5)", "TRisk(nDCG@20,alpha=5)"
    df = pd.DataFrame({
        "name": [f"s{i}" for i in range(n)],
        "nDCG@20": [r[0] for r in rows],
        "nDCG@20 p-value": [math.nan] + [r[1] for r in rows[1:]],
        u: [0.0] + [r[2] - 0.5 for r in rows[1:]],
        t: [math.nan] + [10 * (r[3] - 0.5) for r in rows[1:]],
        f"{t} p-value": [math.nan] + [r[4] for r in rows[1:]],
        "Losses": [float(r[5]) for r in rows],
    })
    text = write_table(df, bold=True, significance=True, level=level, floatfmt=fmt)
    assert "Best value per column in bold" in text
    printed = {c: [_printed(x) for x in _column(text, c)] for c in df.columns if c != "name"}
    competing = {c: [True] * n for c in ("nDCG@20", t, "Losses")}
    competing[u] = [not math.isnan(p) for p in printed[f"{t} p-value"]]
    for column, who in competing.items():
        values = [v for v, ok in zip(printed[column], who, strict=True) if ok and not math.isnan(v)]
        best = (min if column == "Losses" else max)(values) if len(values) >= 2 else None
        expected = [ok and best is not None and v == best for v, ok in zip(printed[column], who, strict=True)]
        assert [c.startswith("**") for c in _column(text, column)] == expected, column
    for column, p_column in (("nDCG@20", "nDCG@20 p-value"), (u, f"{t} p-value"), (t, f"{t} p-value")):
        assert [c.endswith("†") for c in _column(text, column)] == [p <= level for p in printed[p_column]]
    for p_column in ("nDCG@20 p-value", f"{t} p-value"):
        assert not any("**" in c or "†" in c for c in _column(text, p_column))


def test_bold_base_measure_keeps_the_baseline_in_the_contest():
    """Issue 14, item 1: with a p-value column, the baseline's base-measure value is still ranked."""
    df = pd.DataFrame({"name": ["base", "a", "b"], "AP": [0.1137, 0.0512, 0.0547],
                       "AP p-value": [math.nan, 0.0003, 0.0004],
                       "URisk(AP,baseline='base')": [0.0, -0.0625, -0.0590],
                       "TRisk(AP,baseline='base')": [math.nan, -3.88, -3.76],
                       "TRisk(AP,baseline='base') p-value": [math.nan, 0.0003, 0.0004]})
    text = write_table(df, bold=True, significance=True)
    assert _column(text, "AP") == ["**0.1137**", "0.0512†", "0.0547†"]
    assert _column(text, "URisk(AP,baseline='base')") == ["0.0000", "-0.0625†", "**-0.0590**†"]
    assert "the baseline's URisk against itself (0 by definition) is not ranked" in text
    # no risk column against the baseline: the caption does not claim an exception
    plain = write_table(df[["name", "AP", "AP p-value"]], bold=True, significance=True)
    assert "not ranked" not in plain and _column(plain, "AP")[0] == "**0.1137**"


def test_long_layout_with_short_labels_letters_families_and_baselines():
    """Issue 16, item 4: the long layout with short labels: U/T/Z/G, a letter per baseline, a legend."""
    df = pd.DataFrame({"name": ["A", "B"], "AP": [0.2, 0.3],
                       "URisk(AP,alpha=5,baseline='A')": [0.0, 0.1],
                       "URisk(AP,alpha=5,baseline='mean')": [-0.1, 0.1],
                       "TRisk(AP,alpha=5,baseline='A')": [math.nan, 1.5],
                       "TRisk(AP,alpha=5,baseline='A') p-value": [math.nan, 0.2],
                       "ZRisk(AP,alpha=5)": [-1.0, 1.0]})
    text = write_table(df, layout="long", short_labels=True)
    head = [c.strip() for c in text.splitlines()[0].strip("|").split("|")]
    assert head == ["name", "measure", "alpha", "value", "Ua", "Ub", "T", "T p", "Z"]
    assert "U: URisk, T: TRisk, Z: ZRisk. a: baseline='A'. b: baseline='mean'." in text
    assert "TRisk: baseline='A'." in text  # one baseline: its label leaves it out, the note names it
    assert _column(text, "Ub") == ["-0.1000", "0.1000"] and _column(text, "T p") == ["", "0.2000"]


def test_a_plain_markdown_table_keeps_its_caption():
    """A markdown table without styling options dropped its caption (eval/topics/baselines --caption)."""
    df = pd.DataFrame({"name": ["a", "b"], "AP": [0.25, 0.5]})
    text = write_table(df, caption="AP of two runs")
    assert text.rstrip("\n").endswith("Table: AP of two runs")
    assert write_table(df).count("Table:") == 0
    styled = write_table(df, caption="AP of two runs", bold=True)
    assert styled.rstrip("\n").split("\n")[-1].startswith("Table: AP of two runs")


def test_bold_true_never_bolds_a_p_value_column():
    """A p-value column whose stem is not a measure name ("Risk p-value corrected", "Foo p-value") is a test
    column: bold=True leaves it alone (it bolded the largest p-value)."""
    import pandas as pd

    from pyterrier_risk.reporting import render_table

    df = pd.DataFrame({"name": ["a", "b"], "Risk": [0.1, 0.2], "Risk p-value corrected": [0.01, 0.5],
                       "Foo p-value": [0.2, 0.9], "p_value": [0.3, 0.4]})
    lines = render_table(df, bold=True).splitlines()
    assert "**0.1000**" in lines[2]
    assert not any("**" in cell for line in lines[2:4] for cell in line.split("|")[3:])
