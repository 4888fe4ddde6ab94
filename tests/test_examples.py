"""The learning examples (MQ2008, a CVaR objective) run as documented and print the tables they promise.

Each runs as a subprocess, the way a user runs it (the TREC examples: tests/test_examples_trec.py).
"""

from __future__ import annotations

import pytest
from helpers import run_example

pytestmark = pytest.mark.slow


def test_mq2008_learning_example_quick():
    text = run_example("examples/mq2008_risk_ltr.py", "--quick")
    kinds = ("lambdarank", "urisk", "tsaro", "tfaro", "tfaro_star", "georisk")
    table = [line.split() for line in text.splitlines() if line.split()[:1] and line.split()[0] in kinds]
    assert {row[0] for row in table} == set(kinds)
    at_zero = {tuple(row[2:]) for row in table if float(row[1]) == 0}
    assert len(at_zero) == 1, "at alpha = 0 every objective must train LambdaMART's model"


def test_mq2008_risk_study_quick(tmp_path):
    """The example runs ``pyterrier-risk learn``: every test query of the five folds, the tables printed."""
    import pandas as pd

    text = run_example("examples/mq2008_risk_study.py", "--quick", "--out", str(tmp_path))
    out = tmp_path / "features_fixed"
    per_query = pd.read_csv(out / "per_query.csv", comment="#", dtype={"qid": str})
    assert set(per_query["objective"]) == {"lambdarank", "urisk", "georisk"}
    assert per_query.groupby("objective")["qid"].nunique().eq(784).all()  # MQ2008's queries, each tested once
    assert [c for c in per_query.columns if c.startswith("base:")] == [
        f"base:F{n}" for n in (25, 15, 21, 30, 35, 40)]
    assert len(pd.read_csv(out / "models.csv")) == 15  # 5 folds x (LambdaMART, U-CRO, GeoRisk)
    labels = ("| LambdaMART", "| U-CRO", "| GeoRisk-LM")
    rows = [line for line in text.splitlines() if line.startswith(labels)]
    assert rows and all(line in (out / "tables.md").read_text() for line in rows)


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
