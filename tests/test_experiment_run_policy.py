"""One run policy for files and frames (issue 21, item 14): a NaN score or a (qid, docno) pair listed twice.

``read_run`` refused both in a file; ``Experiment``, ``hurt_topics`` and ``BreakEven`` took them in a frame
and the numbers moved (one repeated row moved nDCG@10 from 0.5961 to 0.6074). Every entry point now calls
``pyterrier_risk.core.check_run_frame`` (or, for a file, the reader's line check with the same messages):
the property below injects one defect into a random run and asks each entry point for the same one-line
message, naming the same topic and document.
"""

from __future__ import annotations

import re
import warnings

import numpy as np
import pandas as pd
import pyterrier as pt
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from ir_measures import AP, nDCG

import pyterrier_risk as pr
from pyterrier_risk.measures import topic_matrices

QRELS = pd.DataFrame({"qid": ["1", "1", "2", "2", "3"], "docno": ["d0", "d1", "d0", "d2", "d3"],
                      "label": [1, 0, 2, 1, 1]})
TOPICS = pd.DataFrame({"qid": ["1", "2", "3"], "query": ["one", "two", "three"]})
#: the one-line message class of the policy, for files (line) and frames (row)
POLICY = re.compile(r"(document '(?P<d1>[^']+)' is listed twice for topic '(?P<q1>[^']+)' "
                    r"\(first at (row|line) \d+\)"
                    r"|score is NaN for document '(?P<d2>[^']+)' of topic '(?P<q2>[^']+)')")


@st.composite
def _run_with_a_defect(draw):
    """A random run (topics 1-3, documents d0-d5, distinct per topic), one row then made bad."""
    rows = []
    for qid in ("1", "2", "3"):
        docs = draw(st.lists(st.integers(0, 5), min_size=1, max_size=6, unique=True))
        rows += [(qid, f"d{d}", float(draw(st.integers(0, 100)))) for d in docs]
    run = pd.DataFrame(rows, columns=["qid", "docno", "score"])
    i = draw(st.integers(0, len(run) - 1))
    if draw(st.booleans()):
        run.loc[i, "score"] = np.nan
    else:  # the same pair again, anywhere after it, with another score
        j = draw(st.integers(i + 1, len(run)))
        repeat = run.iloc[[i]].assign(score=run.loc[i, "score"] + 1.0)
        run = pd.concat([run.iloc[:j], repeat, run.iloc[j:]], ignore_index=True)
    return run, run.loc[i, "qid"], run.loc[i, "docno"]


def _good_run() -> pd.DataFrame:
    return pd.DataFrame({"qid": ["1", "1", "2", "3"], "docno": ["d0", "d1", "d2", "d3"],
                         "score": [2.0, 1.0, 1.0, 1.0]})


def _write(run: pd.DataFrame, path) -> None:
    with open(path, "w") as fh:
        for k, (qid, docno, score) in enumerate(run[["qid", "docno", "score"]].itertuples(index=False)):
            fh.write(f"{qid} Q0 {docno} {k + 1} {score} t\n")


def _entry_points(bad: pd.DataFrame, path) -> dict[str, object]:
    good = _good_run()
    return {
        "read_run (file)": lambda: pr.read_run(path),
        "hurt_topics (file)": lambda: pr.hurt_topics({"bad": str(path), "good": good}, "good", qrels=QRELS,
                                                     measures=["AP"]),
        "hurt_topics (frame)": lambda: pr.hurt_topics({"bad": bad, "good": good}, "good", qrels=QRELS,
                                                      measures=["AP"]),
        "Experiment (frame, no risk measure)": lambda: pr.Experiment([bad, good], TOPICS, QRELS, [nDCG @ 10],
                                                                     names=["bad", "good"]),
        "Experiment (frame, URisk)": lambda: pr.Experiment({"bad": bad, "good": good}, TOPICS, QRELS,
                                                           [pr.URisk(AP)], baseline="good"),
        "Experiment (BreakEven, baseline run frame)": lambda: pr.Experiment(
            {"good": good}, TOPICS, QRELS, [pr.BreakEven(AP, baseline=bad)]),
        "URisk in plain pt.Experiment (the measure's run)": lambda: pt.Experiment(
            [bad], TOPICS, QRELS, [pr.URisk(AP, baseline=good)], names=["bad"]),
        "UE in plain pt.Experiment (the measure's run)": lambda: pt.Experiment(
            [bad], TOPICS, QRELS, [pr.UE(nDCG @ 10)], names=["bad"]),
        "topic_matrices (measures layer)": lambda: topic_matrices({"bad": bad}, QRELS, [AP]),
        "rank_distance (frame)": lambda: pr.rank_distance(bad, good),
    }


@settings(deadline=None, max_examples=12)  # ten entry points per example
@given(case=_run_with_a_defect())
def test_every_entry_point_refuses_a_nan_score_or_a_repeated_pair_with_one_message(tmp_path_factory, case):
    bad, qid, docno = case
    path = tmp_path_factory.mktemp("runs") / "bad.run"
    _write(bad, path)
    for name, call in _entry_points(bad, path).items():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # the topic policy's notes on the good run
            with pytest.raises(ValueError) as e:
                call()
        message = str(e.value)
        found = POLICY.search(message)
        assert found is not None and "\n" not in message, f"{name}: {message}"
        assert (found["q1"] or found["q2"], found["d1"] or found["d2"]) == (qid, docno), f"{name}: {message}"


def test_the_issue_example_a_repeated_row_no_longer_moves_ndcg():
    run = _good_run()
    twice = pd.concat([run, run.iloc[[0]]], ignore_index=True)
    with pytest.raises(ValueError, match=r"^system 'dup': document 'd0' is listed twice for topic '1' "
                                         r"\(first at row 0\); row 4 repeats it$"):
        pr.Experiment({"dup": twice, "good": run}, TOPICS, QRELS, [nDCG @ 10])
    nan = run.assign(score=[2.0, np.nan, 1.0, 1.0])
    with pytest.raises(ValueError, match=r"^system 0: score is NaN for document 'd1' of topic '1' \(row 1;"):
        pr.Experiment([nan], TOPICS, QRELS, [nDCG @ 10])
    assert pr.Experiment({"good": run}, TOPICS, QRELS, [nDCG @ 10]).shape == (1, 2)  # a good run still runs


def test_a_system_that_is_not_a_run_is_named_in_one_line():
    with pytest.raises(TypeError, match=r"^hurt_topics: run 'B' must be a result DataFrame "
                                        r"\(qid, docno, score\) or a TREC run file, got NoneType$"):
        pr.hurt_topics({"A": _good_run(), "B": None}, "A", qrels=QRELS, measures=["AP"])
    with pytest.raises(ValueError, match=r"^hurt_topics: run 'B' lacks a score column"):
        pr.hurt_topics({"A": _good_run(), "B": pd.DataFrame({"x": [1]})}, "A", qrels=QRELS, measures=["AP"])
