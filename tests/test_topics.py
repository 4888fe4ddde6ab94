"""The topic policy (core/_topics.py): the qrels mode (-c) and the intersection mode (gdeval without -c),
checked against hand computations on toy data."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import pyterrier_risk as pr
from pyterrier_risk.core._topics import (
    TOPIC_MODES,
    TopicPolicyWarning,
    apply_topic_policy,
    check_topic_mode,
    topic_set,
)

QRELS = ["1", "2", "3", "4"]
# a has every qrels topic; b lacks 3 and has 9 (not in the qrels); base lacks 4
SCORES = {
    "a": {"1": 0.5, "2": 0.2, "3": 0.4, "4": 0.6},
    "b": {"1": 0.3, "2": 0.3, "4": 0.2, "9": 1.0},
    "base": {"1": 0.4, "2": 0.4, "3": 0.1},
}


def _caught(func, *args, **kwargs):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = func(*args, **kwargs)
    return result, [w for w in caught if issubclass(w.category, TopicPolicyWarning)]


def test_modes_and_their_check():
    assert TOPIC_MODES == ("qrels", "intersection")
    assert [check_topic_mode(m) for m in TOPIC_MODES] == list(TOPIC_MODES)
    for bad in ("Qrels", "union", "", None, 1):
        with pytest.raises(ValueError, match="unknown topic mode .*'qrels'.*'intersection'"):
            check_topic_mode(bad)


def test_qrels_mode_keeps_the_qrels_topics_and_warns_per_system():
    by_who = {f"system {k!r}": v for k, v in SCORES.items()}
    topics, caught = _caught(topic_set, [1, 2, 2, 3, 4], by_who)  # ids compared as str, first-seen order
    assert topics == QRELS
    messages = [str(w.message) for w in caught]
    assert messages == [
        "system 'b' has results for 1 topic(s) that are not in the qrels; they are ignored",
        "system 'b' has no results for 1 of the 4 qrels topics; they score 0 there (trec_eval -c policy)",
        "system 'base' has no results for 1 of the 4 qrels topics; they score 0 there (trec_eval -c policy)",
    ]
    assert {w.filename for w in caught} == {__file__}  # the warning points at the caller


def test_intersection_mode_keeps_the_topics_every_system_has():
    by_who = {f"system {k!r}": v for k, v in SCORES.items()}
    topics, caught = _caught(topic_set, QRELS, by_who, "intersection")
    assert topics == ["1", "2"]  # 3: b lacks it, 4: base lacks it
    messages = [str(w.message) for w in caught]
    assert messages[0].startswith("system 'b' has results for 1 topic(s) that are not in the qrels")
    assert messages[1] == (
        "intersection mode: 2 of the 4 qrels topics are left out, as not every system has results for "
        "them (system 'b' lacks 1; system 'base' lacks 1)"
    )
    assert {w.filename for w in caught} == {__file__}
    # nothing is left out: no warning at all
    same, caught = _caught(topic_set, QRELS, {"a": QRELS}, "intersection")
    assert same == QRELS and caught == []


def test_extra_topics_can_be_an_error():
    message = r"system 'b' has results for 1 topic\(s\) absent from the qrels \('9'\)"
    with pytest.raises(ValueError, match=message):
        topic_set(QRELS, {"system 'b'": SCORES["b"]}, on_extra="error")
    with pytest.raises(ValueError, match="on_extra must be one of"):
        topic_set(QRELS, {}, on_extra="ignore")


def test_no_topics_is_an_error():
    with pytest.raises(ValueError, match="the qrels have no topics"):
        topic_set([], {"a": ["1"]})
    message = r"intersection mode: no qrels topic has results from every system \(a lacks 1; b lacks 2\)"
    extra = pytest.warns(TopicPolicyWarning, match="b has results for 1")
    with pytest.raises(ValueError, match=message), extra:
        topic_set(["1", "2"], {"a": ["1"], "b": ["3"]}, "intersection")


def test_apply_topic_policy_qrels_mode_scores_missing_topics_zero():
    matrix, caught = _caught(apply_topic_policy, SCORES, QRELS)
    assert list(matrix.columns) == QRELS and list(matrix.index) == ["a", "b", "base"]
    assert matrix.index.name == "name" and matrix.columns.name == "qid"
    # by hand: b = (0.3 + 0.3 + 0 + 0.2) / 4, base = (0.4 + 0.4 + 0.1 + 0) / 4; b's topic 9 is ignored
    assert matrix.loc["b"].tolist() == [0.3, 0.3, 0.0, 0.2]
    assert matrix.mean(axis=1).tolist() == pytest.approx([1.7 / 4, 0.8 / 4, 0.9 / 4])
    # URisk(a vs base, alpha=1) by hand over the 4 qrels topics: d = 0.1, -0.2, 0.3, 0.6
    assert pr.urisk(matrix.loc["a"], matrix.loc["base"], 1.0) == pytest.approx((0.1 - 0.4 + 0.3 + 0.6) / 4)
    assert len(caught) == 3 and {w.filename for w in caught} == {__file__}


def test_apply_topic_policy_intersection_mode():
    matrix, caught = _caught(apply_topic_policy, SCORES, QRELS, "intersection")
    assert list(matrix.columns) == ["1", "2"]
    assert matrix.to_numpy().tolist() == [[0.5, 0.2], [0.3, 0.3], [0.4, 0.4]]
    # URisk(a vs base, alpha=1) by hand over topics 1, 2: d = 0.1, -0.2
    assert pr.urisk(matrix.loc["a"], matrix.loc["base"], 1.0) == pytest.approx((0.1 - 0.4) / 2)
    # ZRisk over the intersection equals ZRisk of the hand-made 3 x 2 matrix
    by_hand = np.array([[0.5, 0.2], [0.3, 0.3], [0.4, 0.4]])
    np.testing.assert_allclose(pr.zrisk(matrix, 2).to_numpy(), pr.zrisk(by_hand, 2))


def test_a_single_run_in_intersection_mode_is_gdeval_without_c():
    # gdeval.pl without -c averages over the qrels topics the run has; with -c over all qrels topics
    run = {"2": 0.25, "4": 0.75, "7": 0.5}  # 7 is not in the qrels
    without_c, _ = _caught(apply_topic_policy, {"r": run}, QRELS, "intersection")
    with_c, _ = _caught(apply_topic_policy, {"r": run}, QRELS, "qrels")
    assert without_c.loc["r"].mean() == (0.25 + 0.75) / 2
    assert with_c.loc["r"].mean() == (0.25 + 0.75) / 4


def test_apply_topic_policy_without_qrels_uses_the_union_of_the_systems_topics():
    matrix, caught = _caught(apply_topic_policy, {"x": {"5": 1.0, "6": 0.5}, "y": {"6": 0.25, "7": 0.0}})
    assert list(matrix.columns) == ["5", "6", "7"]
    assert matrix.loc["y"].tolist() == [0.0, 0.25, 0.0]
    assert [str(w.message).split(" has")[0] for w in caught] == ["system 'x'", "system 'y'"]
    with pytest.raises(ValueError, match="no systems given"):
        apply_topic_policy({})
