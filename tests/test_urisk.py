"""URisk and the risk/reward decomposition (Wang et al., SIGIR 2012)."""

from __future__ import annotations

import dataclasses

import numpy as np
import pandas as pd
import pytest

from pyterrier_risk import RiskReward, risk_reward, urisk

# hand-checked example: deltas +0.25, -0.25, 0, -0.125 (all exact in binary)
S = [0.75, 0.25, 0.5, 0.375]
B = [0.5, 0.5, 0.5, 0.5]


def test_urisk_by_hand():
    assert urisk(S, B) == pytest.approx((0.25 - 0.25 + 0 - 0.125) / 4)
    # losses weighted by 1 + alpha: (0.25 + 3 * (-0.25 - 0.125)) / 4
    assert urisk(S, B, alpha=2) == pytest.approx((0.25 - 3 * 0.375) / 4)


def test_risk_reward_by_hand():
    rr = risk_reward(S, B, alpha=2)
    assert isinstance(rr, RiskReward)
    assert rr.reward == pytest.approx(0.25 / 4)
    assert rr.risk == pytest.approx(0.375 / 4)
    assert rr.gain == pytest.approx(rr.reward - rr.risk)
    assert rr.urisk == pytest.approx(urisk(S, B, alpha=2))
    assert (rr.wins, rr.losses, rr.ties, rr.n_topics) == (1, 2, 1, 4)
    # 0.25 vs 0.5 is a 50% loss; 0.375 vs 0.5 is exactly 25%: both more than 20%
    assert rr.losses_gt20 == 2
    assert rr.alpha == 2.0


def test_losses_gt20_threshold_and_zero_baseline():
    rr = risk_reward([0.85, 0.79, 0.0, 0.0, 0.3], [1.0, 1.0, 0.0, 0.1, 0.0])
    # 0.85/1.0 is -15% (no), 0.79/1.0 is -21% (yes), 0 vs 0 is a tie (no), 0 vs 0.1 is -100% (yes),
    # 0.3 vs 0 is a win: a baseline score of 0 can never give a loss
    assert rr.losses_gt20 == 2
    assert (rr.wins, rr.losses, rr.ties) == (1, 3, 1)


def test_as_dict_and_frozen():
    rr = risk_reward(S, B)
    d = rr.as_dict()
    assert set(d) >= {"urisk", "risk", "reward", "gain", "wins", "losses", "ties", "losses_gt20", "n_topics"}
    assert isinstance(d["wins"], int) and isinstance(d["risk"], float)
    with pytest.raises(dataclasses.FrozenInstanceError):
        rr.urisk = 1.0  # type: ignore[misc]
    pd.DataFrame([d])  # one row per system in a report


def test_series_are_aligned_by_topic():
    s = pd.Series(S, index=["q1", "q2", "q3", "q4"])
    b = pd.Series(B, index=["q1", "q2", "q3", "q4"]).iloc[::-1]
    assert urisk(s, b, 1) == urisk(S, B, 1)
    b2 = pd.Series([0.5, 0.5, 0.25, 0.5], index=["q4", "q3", "q2", "q1"])
    assert urisk(s, b2) == pytest.approx(np.mean(np.array(S) - np.array([0.5, 0.25, 0.5, 0.5])))


def test_series_with_array_pairs_by_position():
    s = pd.Series(S, index=["q4", "q3", "q2", "q1"])
    assert urisk(s, np.array(B), 3) == urisk(S, B, 3)


def test_mismatched_topics_are_named():
    s = pd.Series([0.1, 0.2, 0.3], index=["q1", "q2", "q3"])
    b = pd.Series([0.1, 0.2, 0.3], index=["q1", "q2", "q9"])
    with pytest.raises(ValueError, match=r"missing from baseline: 'q3'.*missing from scores: 'q9'"):
        urisk(s, b)
    with pytest.raises(ValueError, match="missing from baseline"):
        risk_reward(s, b)


@pytest.mark.parametrize("func", [urisk, risk_reward])
def test_bad_input(func):
    with pytest.raises(ValueError, match=r"different lengths \(3 vs 2"):
        func([0.1, 0.2, 0.3], [0.1, 0.2])
    with pytest.raises(ValueError, match="NaN scores at 1"):
        func([0.1, np.nan], [0.1, 0.2])
    with pytest.raises(ValueError, match="baseline contains NaN scores at 'b'"):
        func(pd.Series([0.1, 0.2], index=["a", "b"]), pd.Series([0.1, np.nan], index=["a", "b"]))
    with pytest.raises(ValueError, match="negative scores"):
        func([0.1, 0.2], [-0.1, 0.2])
    with pytest.raises(ValueError, match="infinite"):
        func([0.1, np.inf], [0.1, 0.2])
    with pytest.raises(ValueError, match="alpha must be a finite number >= 0"):
        func([0.1], [0.2], alpha=-0.5)
    with pytest.raises(ValueError, match="empty"):
        func([], [])
    with pytest.raises(ValueError, match="1-D"):
        func([[0.1, 0.2]], [[0.1, 0.2]])
    with pytest.raises(ValueError, match="duplicate topics"):
        func(pd.Series([0.1, 0.2], index=["a", "a"]), pd.Series([0.1, 0.2], index=["a", "b"]))
    with pytest.raises(TypeError, match="DataFrame"):
        func(pd.DataFrame({"a": [0.1]}), [0.1])
    with pytest.raises(TypeError, match="numeric"):
        func(["x", "y"], [0.1, 0.2])


def test_dicts_are_series_by_topic():
    assert urisk({"a": 0.5, "b": 0.25}, {"b": 0.125, "a": 0.5}) == pytest.approx(0.0625)
    with pytest.raises(ValueError, match="missing from baseline: 'b'"):
        urisk({"a": 0.5, "b": 0.25}, {"a": 0.5})
