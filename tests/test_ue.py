"""Numeric core of UE normalisation: closed forms vs brute force, known values, ranges, edge cases."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pyterrier_risk import ue, ue_bounds

# --- an independent, deliberately naive scorer of one ordering (raw units) --------------------------


def _raw_score(measure, labels, k, rel=1, gains=None):
    """DCG@k, SP@k, hits@k or RR@k of one ordering; NaN = unjudged, negative labels gain nothing."""
    labels = list(labels)
    depth = len(labels) if k is None else min(k, len(labels))
    if measure == "nDCG":
        total = 0.0
        for i in range(depth):
            lab = labels[i]
            g = 0.0 if lab != lab else (gains.get(lab, lab) if gains else lab)
            total += max(g, 0.0) / math.log2(i + 2)
        return total
    r = [1 if (lab == lab and lab >= rel) else 0 for lab in labels]
    if measure == "AP":
        return sum(r[i] * sum(r[: i + 1]) / (i + 1) for i in range(depth))
    if measure in ("P", "R"):
        return float(sum(r[:depth]))
    for i in range(depth):  # RR
        if r[i]:
            return 1.0 / (i + 1)
    return 0.0


def _enumerate(measure, labels, k, rel=1, gains=None):
    scores = [_raw_score(measure, p, k, rel, gains) for p in itertools.permutations(labels)]
    return max(scores), float(np.mean(scores))


POOLS = [
    [1, 0, 0, 0],
    [2, 1, 0],
    [0, 0, 0, 0, 0],
    [1, 1, 1],
    [2, 2, 1, 0, 0, 1, 0],
    [np.nan, 1, 0, -1, 2],
    [0, 0, 0, 0, 0, 0, 1],
    [1, 1, 1, 1, 1, 1, 0],
    [2, 0, 1, 0, 1, 0, 2],
]


CASES = [
    (measure, k)
    for measure in ["nDCG", "AP", "P", "R", "RR"]
    for k in [1, 3, 5, 10, None]
    if not (measure in ("P", "R") and k is None)  # P and R need a cutoff
]


@pytest.mark.parametrize("labels", POOLS)
@pytest.mark.parametrize(("measure", "k"), CASES)
def test_exact_reb_equals_exhaustive_enumeration(labels, measure, k):
    for rel, gains in [(1, None), (2, {0: 0, 1: 1, 2: 3})]:
        best, mean = _enumerate(measure, labels, k, rel, gains)
        b = ue_bounds(labels, measure=measure, cutoff=k, rel=rel, gains=gains, norm=1.0)
        assert b.reb == pytest.approx(mean, abs=1e-12)
        assert b.iub == pytest.approx(best, abs=1e-12)


def test_grouped_bounds_match_single_pools_and_keep_topic_labels():
    labels, groups = [], []
    for i, pool in enumerate(POOLS):
        labels += pool
        groups += [f"t{i}"] * len(pool)
    order = np.random.default_rng(0).permutation(len(labels))  # rows need not be grouped
    labels, groups = np.asarray(labels)[order], np.asarray(groups)[order]
    for measure in ["nDCG", "AP", "R", "RR"]:
        b = ue_bounds(labels, groups, measure=measure, cutoff=5)
        assert isinstance(b.iub, pd.Series) and list(b.iub.index) == sorted(set(groups))
        for i, pool in enumerate(POOLS):
            single = ue_bounds(pool, measure=measure, cutoff=5)
            assert b.iub[f"t{i}"] == pytest.approx(single.iub, abs=1e-12)
            assert b.reb[f"t{i}"] == pytest.approx(single.reb, abs=1e-12)


def test_known_values_by_hand():
    # one relevant document among four, k = 2: E[DCG@2] = (1/4)(1 + 1/log2 3); IDCG@2 = 1
    b = ue_bounds([1, 0, 0, 0], measure="nDCG", cutoff=2)
    assert b.iub == 1.0
    assert b.reb == pytest.approx(0.25 * (1 + 1 / math.log2(3)))
    # RR: first relevant at rank i with probability 1/4 each -> (1 + 1/2 + 1/3 + 1/4) / 4
    assert ue_bounds([1, 0, 0, 0], measure="RR").reb == pytest.approx((1 + 1 / 2 + 1 / 3 + 1 / 4) / 4)
    # AP@2 in ir_measures units (SP@2 / m): ideal SP = 1, E[SP@2] = (1/4)(1 + 1/2) + 0
    b = ue_bounds([1, 0, 0, 0], measure="AP", cutoff=2)
    assert (b.iub, b.reb) == (1.0, pytest.approx(0.375))
    # P@10 on a pool of 4 with 1 relevant: every ordering retrieves it: IUB = REB = 0.1
    b = ue_bounds([1, 0, 0, 0], measure="P", cutoff=10)
    assert b.iub == pytest.approx(0.1) and b.reb == pytest.approx(0.1)


def test_paper_sp_formula_and_its_gap_to_the_exact_value():
    # worked example of docs/ue.md: n = 10, m = 2, k = 5
    labels = [1, 1] + [0] * 8
    exact = ue_bounds(labels, measure="AP", cutoff=5, norm=1.0).reb
    paper = ue_bounds(labels, measure="AP", cutoff=5, norm=1.0, reb="paper").reb
    h5 = sum(1 / i for i in range(1, 6))
    assert paper == pytest.approx(5 * (2 / 10) ** 2)
    assert exact == pytest.approx(0.2 * h5 + 2 / 90 * (5 - h5))
    # closed form of the gap: (m/n) ((n-m)/(n-1)) (H_K - K/n)
    assert exact - paper == pytest.approx(0.2 * (8 / 9) * (h5 - 0.5))
    assert exact / paper > 2.5
    # the paper's DCG formula (eq. 7) is already exact: both modes agree for the other bases
    for measure in ["nDCG", "P", "R", "RR"]:
        a = ue_bounds([2, 1, 0, 0, 1], measure=measure, cutoff=3)
        p = ue_bounds([2, 1, 0, 0, 1], measure=measure, cutoff=3, reb="paper")
        assert a == p


@given(n=st.integers(1, 60), m=st.integers(0, 60), k=st.integers(1, 80))
@settings(max_examples=200, deadline=None)
def test_exact_sp_is_never_below_the_paper_value(n, m, k):
    m = min(m, n)
    labels = [1] * m + [0] * (n - m)
    exact = ue_bounds(labels, measure="AP", cutoff=k, norm=1.0).reb
    paper = ue_bounds(labels, measure="AP", cutoff=k, norm=1.0, reb="paper").reb
    assert exact >= paper - 1e-12
    kk = min(k, n)
    gap = 0.0 if n == 1 else (m / n) * ((n - m) / (n - 1)) * (sum(1 / i for i in range(1, kk + 1)) - kk / n)
    assert exact - paper == pytest.approx(gap, abs=1e-12)


def test_ue_variants_known_values():
    assert ue(0.6, 1.0, 0.2, "V1") == pytest.approx(0.6 * 0.6 / 0.8)
    assert ue(0.6, 1.0, 0.2, "V2") == pytest.approx(0.4 / 0.8)
    assert ue(0.1, 1.0, 0.2, "V2") == pytest.approx(-0.5)
    assert ue(1.0, 1.0, 0.2, "V2") == 1.0
    assert ue(0.2, 1.0, 0.2, "V2") == 0.0


def test_edge_cases_have_the_documented_values():
    # no relevant document: A = IUB = REB = 0
    assert ue(0.0, 0.0, 0.0, "V1") == 0.0 and ue(0.0, 0.0, 0.0, "V2") == 0.0
    b = ue_bounds([0, 0, 0], measure="nDCG", cutoff=2)
    assert b == (0.0, 0.0)
    # A = 0 with REB > 0
    assert ue(0.0, 1.0, 0.3, "V1") == 0.0 and ue(0.0, 1.0, 0.3, "V2") == -1.0
    # every ordering scores the same (all relevant): IUB = REB
    b = ue_bounds([1, 1, 1], measure="AP", cutoff=2)
    assert b.iub == pytest.approx(b.reb)
    assert ue(b.iub, b.iub, b.reb, "V2") == 0.0
    assert ue(b.iub, b.iub, b.reb, "V1") == pytest.approx(0.5)
    assert ue(0.5 * b.reb, b.iub, b.reb, "V2") == pytest.approx(-0.5)
    # k larger than the pool: positions past the pool hold no document
    b = ue_bounds([1, 0], measure="nDCG", cutoff=10)
    assert b.reb == pytest.approx(0.5 * (1 + 1 / math.log2(3)))


def test_series_in_series_out_and_broadcasting():
    a = pd.Series([0.5, 0.0, 1.0], index=["q1", "q2", "q3"], name="nDCG@10")
    out = ue(a, 1.0, pd.Series([0.25, 0.5, 0.5], index=a.index), "V2")
    assert isinstance(out, pd.Series) and list(out.index) == ["q1", "q2", "q3"] and out.name == "nDCG@10"
    assert out.tolist() == pytest.approx([1 / 3, -1.0, 1.0])
    arr = ue(np.array([0.5, 1.0]), np.array([1.0, 1.0]), 0.5, "V1")
    assert isinstance(arr, np.ndarray) and arr.tolist() == pytest.approx([0.25, 2 / 3])


def test_series_bounds_are_aligned_by_topic():
    a = pd.Series([0.5, 1.0], index=["q1", "q2"])
    reb = pd.Series([0.5, 0.25], index=["q2", "q1"])  # other order
    assert ue(a, 1.0, reb, "V2").tolist() == pytest.approx([(0.5 - 0.25) / 0.75, 1.0])
    with pytest.raises(ValueError, match="NaN"):
        ue(a, 1.0, reb.drop("q1"), "V2")


def test_norm_rescales_into_base_units():
    labels, groups = [1, 0, 1, 0, 0], ["a", "a", "b", "b", "b"]
    own = ue_bounds(labels, groups, measure="AP", cutoff=2)
    other = ue_bounds(labels, groups, measure="AP", cutoff=2, norm=pd.Series({"a": 2.0, "b": 4.0}))
    assert other.iub.tolist() == pytest.approx([own.iub["a"] / 2, own.iub["b"] / 4])


@pytest.mark.parametrize(
    ("kwargs", "error"),
    [
        ({"measure": "ERR"}, ValueError),
        ({"measure": "P"}, ValueError),
        ({"measure": "AP", "cutoff": 0}, ValueError),
        ({"measure": "AP", "cutoff": 2.5}, TypeError),
        ({"measure": "AP", "reb": "approx"}, ValueError),
    ],
)
def test_bad_bounds_input(kwargs, error):
    with pytest.raises(error):
        ue_bounds([1, 0], **kwargs)


def test_bad_ue_input():
    with pytest.raises(ValueError, match="variant"):
        ue(0.5, 1.0, 0.2, "V3")
    with pytest.raises(ValueError, match="reb must be <= iub"):
        ue(0.5, 1.0, 1.2)
    with pytest.raises(ValueError, match="a must be <= iub"):
        ue(1.5, 1.0, 0.2)
    with pytest.raises(ValueError, match="NaN"):
        ue(float("nan"), 1.0, 0.2)
    with pytest.raises(ValueError, match="differ in length"):
        ue_bounds([1, 0], ["a"])


_labels = st.lists(st.sampled_from([0, 0, 1, 2, 3]), min_size=1, max_size=30)


@given(
    labels=_labels,
    k=st.integers(1, 40),
    measure=st.sampled_from(["nDCG", "AP", "P", "R", "RR"]),
    seed=st.integers(0, 2**31),
)
@settings(max_examples=150, deadline=None)
def test_variants_stay_in_range_for_any_ordering(labels, k, measure, seed):
    rng = np.random.default_rng(seed)
    b = ue_bounds(labels, measure=measure, cutoff=k, norm=1.0)
    order = rng.permutation(len(labels))
    a = _raw_score(measure, np.asarray(labels)[order], k)
    assert 0.0 <= b.reb <= b.iub + 1e-12
    v1, v2 = ue(a, b.iub, b.reb, "V1"), ue(a, b.iub, b.reb, "V2")
    assert 0.0 <= v1 <= 1.0 and -1.0 <= v2 <= 1.0
    assert v1 <= a / b.iub + 1e-12 if b.iub > 0 else v1 == 0.0
    if a == b.iub and b.iub > b.reb * (1 + 1e-9):
        assert v2 == pytest.approx(1.0)


@given(
    iub=st.floats(0, 100, allow_nan=False),
    r=st.floats(0, 1),
    s=st.floats(0, 1),
    variant=st.sampled_from(["V1", "V2"]),
)
@settings(max_examples=300, deadline=None)
def test_ue_range_for_any_consistent_triple(iub, r, s, variant):
    reb, a = r * iub, s * iub
    v = ue(a, iub, reb, variant)
    lo = 0.0 if variant == "V1" else -1.0
    assert lo <= v <= 1.0
    if variant == "V2" and iub > 0 and reb < iub * (1 - 1e-9):
        assert (v >= 0) == (a >= reb)


@pytest.mark.parametrize(
    ("n", "m", "k"), [(200, 1, None), (200, 3, 50), (500, 40, None), (60, 59, None), (1000, 2, 10)]
)
def test_rr_expectation_on_large_pools_matches_exact_rational_sum(n, m, k):
    from fractions import Fraction

    last = min(n if k is None else k, n - m + 1)
    expected = sum(Fraction(math.comb(n - i, m - 1), math.comb(n, m)) / i for i in range(1, last + 1))
    got = ue_bounds([1] * m + [0] * (n - m), measure="RR", cutoff=k).reb
    assert got == pytest.approx(float(expected), rel=1e-12)


def test_pool_bounds_of_precision_without_a_cutoff_is_a_one_line_error():
    """P's normaliser is the cutoff: without one, a ValueError naming it (was float(None)'s TypeError)."""
    from pyterrier_risk.core import pool_bounds

    codes, labels = np.array([0, 0, 1]), np.array([1.0, 0.0, 1.0])
    with pytest.raises(ValueError, match="P needs a cutoff"):
        pool_bounds(codes, 2, labels, "P", None)
    iub, _, norm = pool_bounds(codes, 2, labels, "P", 1)
    assert norm.tolist() == [1.0, 1.0] and iub.tolist() == [1.0, 1.0]
