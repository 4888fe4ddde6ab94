"""Tables as Markdown, LaTeX and CSV (pyterrier_risk.reporting._tables.write_table)."""

import io

import numpy as np
import pandas as pd
import pytest

from pyterrier_risk.reporting._tables import format_cell, latex_escape, write_table


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
