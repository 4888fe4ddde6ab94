"""The TREC examples (Web 2012, TREC-7) run as documented and print the tables they promise (apart from
tests/test_examples.py, so that the two halves of the examples can run on two workers).

Each runs as a subprocess, the way a user runs it. Numbers are checked against values published
with the data (gdeval.pl's means in trec-web-2012-risk/README.md and trec7 reference_eval), not
against our own output.
"""

from __future__ import annotations

import pytest
from helpers import data_path, run_example

pytestmark = pytest.mark.slow


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
