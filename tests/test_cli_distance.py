"""``pyterrier-risk distance``: the Kendall distance from the baseline's rankings, as Python computes it."""

from __future__ import annotations

import io
import itertools

import numpy as np
import pandas as pd
import pytest

import pyterrier_risk as ptr
from pyterrier_risk.cli import main

ORDERS = {"base": "abcde", "same": "abcde", "swap": "bacde", "rev": "edcba"}


@pytest.fixture
def runs(tmp_path):
    for name, order in ORDERS.items():
        lines = [f"{q} Q0 {d}{q} {r} {10 - r}.0 {name}\n" for q in (1, 2) for r, d in enumerate(order, 1)]
        (tmp_path / f"{name}.run").write_text("".join(lines))
    return tmp_path


def _run(capsys, argv):
    try:
        code = main([str(a) for a in argv])
    except SystemExit as e:
        code = e.code
    out, err = capsys.readouterr()
    return code, out, err


def _brute(order, base):
    """Discordant pairs over all pairs, by hand."""
    pos = {d: i for i, d in enumerate(order)}
    pairs = list(itertools.combinations(base, 2))
    return sum(pos[a] > pos[b] for a, b in pairs) / len(pairs)


def test_bins_and_per_topic_equal_the_python_api_and_a_brute_force(capsys, runs):
    others = [runs / f"{n}.run" for n in ("same", "swap", "rev")]
    code, out, err = _run(capsys, ["distance", others[0], "--baseline", runs / "base.run", *others[1:],
                                   "--format", "csv"])  # runs anywhere on the line, the baseline a file
    assert code == 0, err
    table = pd.read_csv(io.StringIO(out)).set_index("name")
    frames = {n: ptr.read_run(runs / f"{n}.run") for n in ORDERS}
    expected = ptr.rank_distance_bins({n: frames[n] for n in ("same", "swap", "rev")}, frames["base"])
    pd.testing.assert_frame_equal(table, expected, check_names=False)
    assert table.index.name == expected.index.name == "name"  # issue 23 #1: one name for the system column
    assert table.loc["same", "mean"] == 0 and table.loc["rev", "mean"] == 1
    assert table.loc["swap", "mean"] == pytest.approx(_brute(ORDERS["swap"], ORDERS["base"]))
    code, out, err = _run(capsys, ["distance", *others, runs / "base.run", "--baseline", "base", "--perquery",
                                   "--format", "csv"])
    per_topic = pd.read_csv(io.StringIO(out), dtype={"qid": str})
    assert list(per_topic.columns) == ["name", "qid", "distance"] and len(per_topic) == 6
    np.testing.assert_allclose(per_topic["distance"], [0, 0, 0.1, 0.1, 1, 1])
    code, out, _ = _run(capsys, ["distance", *others, "--baseline", runs / "base.run", "--counts",
                                 "--bins", "2"])
    assert code == 0 and out.splitlines()[0].split("|")[2:4] == [" 0.0-0.5 ", " 0.5-1.0 "]
    assert "| same |       2 |       0 |" in out


@pytest.mark.parametrize(("extra", "message"), [
    (["--bins", "0"], "--bins must be an integer from 1 to 1000"),
    (["--perquery", "--counts"], "leave them out with --perquery"),
    (["--round", "21"], "--round must be an integer from 0 to 20"),
])
def test_errors_are_one_line(capsys, runs, extra, message):
    code, out, err = _run(capsys, ["distance", runs / "swap.run", "--baseline", runs / "base.run", *extra])
    assert code == 2 and out == "" and message in err and err.count("\n") == 1


def test_missing_arguments_and_files(capsys, runs):
    code, _, err = _run(capsys, ["distance", runs / "swap.run"])
    assert code == 2 and "required: --baseline" in err
    code, _, err = _run(capsys, ["distance", runs / "base.run", "--baseline", "base"])
    assert code == 2 and "give at least one other run" in err
    code, _, err = _run(capsys, ["distance", runs / "gone.run", "--baseline", runs / "base.run"])
    assert code == 2 and "gone.run" in err and err.count("\n") == 1
    (runs / "bad.run").write_text("1 Q0 a1 1 nan x\n")
    code, _, err = _run(capsys, ["distance", runs / "bad.run", "--baseline", runs / "base.run"])
    assert code == 2 and err.startswith("pyterrier-risk: error:") and err.count("\n") == 1
