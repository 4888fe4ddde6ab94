"""``pyterrier-risk topics`` fits 160 characters on the 19 TREC-7 runs (issue 29, item 11)."""

from __future__ import annotations

import pytest

from pyterrier_risk.cli import main


def _widest(text: str) -> int:
    return max(len(line) for line in text.splitlines() if line.startswith("|"))


@pytest.mark.parametrize("extra", [["--alpha", "1", "--se", "jackknife"], ["--all", "--round", "8"]])
def test_topics_rows_fit_160_characters_on_the_trec7_runs(capsys, extra, trec7_short):
    folder = trec7_short  # the 19 runs' first 20 lines per topic: the widths are the same
    runs = sorted(str(p) for p in (folder / "runs").glob("*.run"))
    assert len(runs) == 19
    assert main(["topics", *runs, "--qrels", str(folder / "qrels.adhoc.351-400.txt"), "--baseline", runs[4],
                 "--topics", str(folder / "topics.adhoc.351-400.txt"), *extra]) == 0
    out = capsys.readouterr().out
    assert _widest(out) <= 160
    assert "…" in out  # the query texts are cut between words to fit
    if "--round" in extra:  # the one measure moves from every row to the caption
        assert "Measure: nDCG@20." in out and "| measure | qid" not in out
