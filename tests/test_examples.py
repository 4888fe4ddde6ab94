"""The real-data examples run as documented and print the tables they promise.

Each runs as a subprocess, the way a user runs it. Numbers are checked against values published
with the data (gdeval.pl's means in trec-web-2012-risk/README.md and trec7 reference_eval), not
against our own output.
"""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
from conftest import REPO, data_path

pytestmark = pytest.mark.slow


def run_example(*args: str) -> str:
    env = {**os.environ, "PYTERRIER_RISK_DATA": str(data_path())}
    out = subprocess.run(
        [sys.executable, *args], cwd=REPO, env=env, capture_output=True, text=True, timeout=300
    )
    assert out.returncode == 0, out.stderr[-3000:]
    return out.stdout


def test_trec_web_2012_example():
    runs = data_path("trec-web-2012-risk", "runs")
    text = run_example("examples/risk_trec_web2012.py")
    for path in runs.glob("*.run.gz"):
        assert path.name.removesuffix(".run.gz") in text
    # gdeval.pl -c means of the official baseline (data README): ERR@20 0.1947, nDCG@20 0.1118
    baseline_row = next(line for line in text.splitlines() if line.startswith("indri-rm-cata-filtered "))
    assert baseline_row.split()[1:3] == ["0.1947", "0.1118"]
    for alpha in (0, 1, 5, 10):
        assert f"alpha={alpha}" in text


def test_trec7_example():
    reference = data_path("trec7-adhoc-terrier-runs", "reference_eval", "gdeval_c.csv")
    import pandas as pd

    ref = pd.read_csv(reference)
    err20 = ref[(ref["k"] == 20) & (ref["topic"] == "amean")].set_index("run")["err@k"]
    text = run_example("examples/risk_trec7.py")
    assert "base measure ERR@20" in text and "base measure nDCG@20" in text
    rows = [line.split() for line in text.splitlines() if line.split()[:1] and line.split()[0] in err20.index]
    assert len({r[0] for r in rows}) == 19
    for row in rows[:19]:  # the first table is ERR@20 at alpha = 0: value (rank) in the second column
        assert float(row[1]) == pytest.approx(err20[row[0]], abs=6e-5)


def test_mq2008_learning_example_quick():
    text = run_example("examples/mq2008_risk_ltr.py", "--quick")
    kinds = ("lambdarank", "urisk", "tsaro", "tfaro", "tfaro_star", "georisk")
    table = [line.split() for line in text.splitlines() if line.split()[:1] and line.split()[0] in kinds]
    assert {row[0] for row in table} == set(kinds)
    at_zero = {tuple(row[2:]) for row in table if float(row[1]) == 0}
    assert len(at_zero) == 1, "at alpha = 0 every objective must train LambdaMART's model"


def test_mq2008_risk_study_quick(tmp_path):
    import pandas as pd

    out = tmp_path / "study.csv"
    text = run_example("examples/mq2008_risk_study.py", "--quick", "--out", str(out))
    table = pd.read_csv(out)
    # agg: native + {urisk, georisk} x {default, weighted} x alpha {0, 5}; learned (four rankers fitted
    # on the validation queries): native + georisk (urisk's baseline is BM25 whatever the set), fold 1's 156
    # test queries
    assert list(table["baselines"].value_counts().sort_index().items()) == [("agg", 9), ("learned", 5)]
    assert set(table["n_queries"]) == {156} and set(table["seeds"]) == {1}
    pairs = set(zip(table["baselines"], table["kind"], table["recipe"], strict=True))
    risk = {("agg", k, r) for k in ("urisk", "georisk") for r in ("default", "weighted")}
    learned = {("learned", "georisk", r) for r in ("default", "weighted")}
    assert pairs == risk | learned | {("agg", "lambdarank", "default"), ("learned", "lambdarank", "default")}
    at_zero = table[table["alpha"] == 0]
    assert len(at_zero) == 8
    # alpha = 0 is native lambdarank for every kind and recipe: identical per-query NDCG@10
    assert (at_zero["max_abs_diff_native"] == 0).all() and (at_zero["d_risk_bm25"] == 0).all()
    geo = table[(table["kind"] == "georisk") & (table["alpha"] == 5)]
    assert geo["p_georisk_at_alpha"].between(0, 1).all()
    assert (geo["ci_georisk_at_alpha_lo"] <= geo["d_georisk_at_alpha"]).all()
    markdown = out.with_suffix(".md").read_text()
    assert markdown.count("\n") == 2 + len(table) and "ΔGeoRisk α_e=α (p)" in markdown
    assert f"wrote {out}" in text
    # the page's tables from the same CSV: one row per risk model of each kind's table
    tables = run_example("examples/mq2008_risk_tables.py", str(out))
    urisk_rows = [line for line in tables.splitlines() if line.startswith("| urisk | 5 | 50 |")]
    assert len(urisk_rows) == 2 and any("**default**" in line for line in urisk_rows)
    starts = ("| agg | 5 | 50 |", "| learned | 5 | 50 |")
    geo_rows = [line for line in tables.splitlines() if line.startswith(starts)]
    assert len(geo_rows) == 4 and all(line.count("|") == 10 for line in geo_rows)
    row = table[(table["kind"] == "urisk") & (table["recipe"] == "default") & (table["alpha"] == 5)].iloc[0]
    assert f"{row['d_risk_bm25']:+.4f}" in next(line for line in urisk_rows if "**default**" in line)


def test_cvar_objective_example_quick():
    text = run_example("examples/cvar_objective.py", "--quick")
    rows = {cells[0]: cells for cells in (
        [c.strip() for c in line.strip("|").split("|")] for line in text.splitlines() if line.startswith("| ")
    ) if cells[0] in ("lambdarank", "urisk", "cvar")}  # fmt: skip
    assert set(rows) == {"lambdarank", "urisk", "cvar"} and "156 test queries" in text
    assert rows["cvar"][1] == "5" and rows["lambdarank"][-1] == "1.0000"
    for cells in rows.values():  # hurt + helped never exceed the 156 test queries
        assert 0 <= int(cells[6]) + int(cells[7]) <= 156 and 0 < float(cells[3]) < 1
    # the closing line names exactly the models whose p-value is shown below 0.05
    significant = sorted(m for m, cells in rows.items() if m != "lambdarank" and float(cells[-1]) < 0.05)
    assert f"with p < 0.05: {', '.join(significant) if significant else 'none'} (one fold" in text
