"""ZRisk, GeoRisk and z-scores against Dinçer, Macdonald & Ounis (SIGIR 2016), Tables 3–5."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from paper_tables import TABLE3
from scipy.stats import norm

from pyterrier_risk import georisk, z_scores, zrisk
from pyterrier_risk.core import georisk_curve, zrisk_components

# Table 3 margins as printed: row totals S_i, column totals T_j and grand total N.
TABLE3_S = [1.5000, 1.5000, 1.5000, 1.2500, 1.5000, 1.5000, 1.4009, 1.5738]
TABLE3_T = [2.1460, 2.2123, 2.3449, 2.4776, 2.5440]
TABLE3_N = 11.7248

# Table 4: single baseline, alpha = 0. Each row: (system, baseline, z_t1..z_t5, ZRisk).
TABLE4 = [
    ("s2", "s1", [0.3689, 0.2000, 0.0000, -0.1690, -0.2858], 0.1141),
    ("s1", "s2", [-0.3689, -0.2000, 0.0000, 0.1690, 0.2858], -0.1141),
    ("s3", "s1", [0.2988, 0.1581, 0.0000, -0.1225, -0.1917], 0.1427),
    ("s1", "s3", [-0.2988, -0.1581, 0.0000, 0.1225, 0.1917], -0.1427),
    ("s4", "s1", [0.3077, 0.1599, 0.0000, -0.1209, -0.1884], 0.1583),
    ("s1", "s4", [-0.2809, -0.1460, 0.0000, 0.1103, 0.1720], -0.1445),
    ("s5", "s1", [0.3689, 0.0000, 0.0845, -0.2739, -0.1088], 0.0708),
    ("s1", "s5", [-0.3689, 0.0000, -0.0845, 0.2739, 0.1088], -0.0708),
    ("s6", "s1", [0.2121, 0.2739, -0.1000, 0.0000, -0.2858], 0.1002),
    ("s1", "s6", [-0.2121, -0.2739, 0.1000, 0.0000, 0.2858], -0.1002),
    ("s7", "s1", [0.2799, 0.1422, 0.0000, -0.1057, -0.1669], 0.1496),
    ("s1", "s7", [-0.2705, -0.1374, 0.0000, 0.1021, 0.1613], -0.1446),
    ("s8", "s1", [0.2792, 0.1445, -0.0001, -0.1097, -0.1732], 0.1408),
    ("s1", "s8", [-0.2860, -0.1480, 0.0001, 0.1123, 0.1774], -0.1442),
]

# Table 5: mean, then (ZRisk, GeoRisk) at alpha = 0, 1, 5, 10 for s1..s8 (multiple baselines).
TABLE5_MEAN = [0.300, 0.300, 0.300, 0.250, 0.300, 0.300, 0.280, 0.315]
TABLE5 = {
    0: (
        [-0.049, 0.026, 0.006, 0.005, 0.006, 0.005, -0.001, 0.001],
        [0.386, 0.388, 0.387, 0.354, 0.387, 0.387, 0.374, 0.397],
    ),
    1: (
        [-0.727, -0.312, -0.069, -0.063, -0.541, -0.539, -0.008, -0.010],
        [0.364, 0.378, 0.385, 0.352, 0.370, 0.370, 0.374, 0.396],
    ),
    5: (
        [-3.442, -1.668, -0.368, -0.336, -2.727, -2.718, -0.036, -0.052],
        [0.271, 0.333, 0.376, 0.344, 0.296, 0.297, 0.373, 0.395],
    ),
    10: (
        [-6.835, -3.362, -0.742, -0.677, -5.460, -5.442, -0.072, -0.106],
        [0.160, 0.274, 0.364, 0.334, 0.203, 0.204, 0.372, 0.393],
    ),
}


def _printed(value: float, decimals: int) -> float:
    return round(float(value), decimals) + 0.0  # + 0.0 turns -0.0 into 0.0


def test_table3_margins_match_the_printed_totals():
    # s7 and s8 are printed to 4 decimals; the paper's totals come from the unrounded scores, so
    # the sum of five rounded cells can be off by up to 2 * 0.00005 (T5 = 2.5439 vs printed 2.5440)
    x = TABLE3.to_numpy()
    np.testing.assert_allclose(x.sum(axis=1), TABLE3_S, atol=5e-5)
    np.testing.assert_allclose(x.sum(axis=0), TABLE3_T, atol=1.5e-4)
    assert abs(x.sum() - TABLE3_N) < 5e-4


@pytest.mark.parametrize(("system", "baseline", "z_expected", "zrisk_expected"), TABLE4)
def test_table4_single_baseline(system, baseline, z_expected, zrisk_expected):
    pair = TABLE3.loc[[system, baseline]]
    z = z_scores(pair)
    assert [_printed(v, 4) for v in z.loc[system]] == z_expected
    assert _printed(zrisk(pair).loc[system], 4) == zrisk_expected


@pytest.mark.parametrize("alpha", sorted(TABLE5))
def test_table5_multiple_baselines(alpha):
    zr_expected, geo_expected = TABLE5[alpha]
    zr = zrisk(TABLE3, alpha=alpha)
    geo = georisk(TABLE3, alpha=alpha)
    assert list(zr.index) == list(TABLE3.index)
    assert [_printed(v, 3) for v in zr] == zr_expected
    assert [_printed(v, 3) for v in geo] == geo_expected
    assert [_printed(v, 3) for v in TABLE3.mean(axis=1)] == TABLE5_MEAN


def test_georisk_curve_matches_georisk_per_alpha():
    curve = georisk_curve(TABLE3, [0, 1, 5, 10])
    for alpha in (0, 1, 5, 10):
        pd.testing.assert_series_equal(curve[float(alpha)], georisk(TABLE3, alpha), check_names=False)


def test_fast_path_equals_direct_transcription_on_random_data():
    rng = np.random.default_rng(7)
    x = rng.beta(0.5, 2.0, size=(37, 301))
    x[rng.random(x.shape) < 0.2] = 0.0  # many zero scores, as in real runs
    x[:, 5] = 0.0  # a topic nobody answers
    x[3] = 0.0  # a system that answers nothing
    s = x.sum(axis=1, keepdims=True)
    t = x.sum(axis=0, keepdims=True)
    e = s * t / x.sum()
    with np.errstate(invalid="ignore", divide="ignore"):
        z = np.where(e > 0, (x - e) / np.sqrt(e), 0.0)
    np.testing.assert_allclose(z_scores(x), z, rtol=1e-12, atol=1e-12)
    for alpha in (0.0, 0.5, 10.0):
        direct = np.where(z > 0, z, (1 + alpha) * z).sum(axis=1)
        np.testing.assert_allclose(zrisk(x, alpha), direct, rtol=1e-10, atol=1e-10)
        geo = np.sqrt(x.mean(axis=1) * norm.cdf(direct / x.shape[1]))
        np.testing.assert_allclose(georisk(x, alpha), geo, rtol=1e-10, atol=1e-12)


def test_blocking_does_not_change_the_result(monkeypatch):
    import pyterrier_risk.core._zrisk as module

    rng = np.random.default_rng(3)
    x = rng.random((50, 40))
    whole = zrisk(x, 2.0)
    monkeypatch.setattr(module, "_BLOCK_ELEMENTS", 90)  # two rows per block, a ragged last block
    np.testing.assert_allclose(zrisk(x, 2.0), whole, rtol=1e-13)
    monkeypatch.setattr(module, "_BLOCK_ELEMENTS", 1)  # one row per block
    np.testing.assert_allclose(zrisk(x, 2.0), whole, rtol=1e-13)


def test_all_zero_topic_has_z_zero_and_does_not_change_zrisk():
    x = TABLE3.copy()
    x["t0"] = 0.0
    z = z_scores(x)
    assert (z["t0"] == 0.0).all()
    for alpha in (0, 5):
        pd.testing.assert_series_equal(zrisk(x, alpha), zrisk(TABLE3, alpha))
        # GeoRisk divides by the number of topics, which grew by one
        c = x.shape[1]
        expected = np.sqrt(x.sum(axis=1) / c * norm.cdf(zrisk(TABLE3, alpha) / c))
        np.testing.assert_allclose(georisk(x, alpha), expected, rtol=1e-12)


def test_all_zero_system_scores_zero():
    x = TABLE3.copy()
    x.loc["nil"] = 0.0
    assert (z_scores(x).loc["nil"] == 0.0).all()
    assert zrisk(x, 5).loc["nil"] == 0.0
    assert georisk(x, 5).loc["nil"] == 0.0


def test_all_zero_matrix_is_all_zero():
    x = np.zeros((3, 4))
    assert (z_scores(x) == 0).all()
    assert (zrisk(x, 1) == 0).all()
    assert (georisk(x, 1) == 0).all()


def test_components_give_zrisk_at_any_alpha():
    parts = zrisk_components(TABLE3)
    for alpha in (0, 1, 5, 10):
        combined = parts["total"] + alpha * parts["negative"]
        np.testing.assert_allclose(combined, zrisk(TABLE3, alpha), rtol=1e-12)
    np.testing.assert_allclose(parts["mean"], TABLE3.mean(axis=1))
    assert isinstance(zrisk_components(TABLE3.to_numpy()), dict)


def test_labels_and_types():
    assert isinstance(zrisk(TABLE3.to_numpy()), np.ndarray)
    assert isinstance(georisk(TABLE3.to_numpy().tolist()), np.ndarray)
    z = z_scores(TABLE3)
    assert isinstance(z, pd.DataFrame)
    assert z.index.equals(TABLE3.index) and z.columns.equals(TABLE3.columns)
    assert zrisk(TABLE3).name == "zrisk" and georisk(TABLE3).name == "georisk"


def test_non_contiguous_and_integer_input():
    x = TABLE3.to_numpy()
    np.testing.assert_allclose(zrisk(np.asfortranarray(x), 3), zrisk(x, 3), rtol=1e-13)
    np.testing.assert_allclose(zrisk(x.T.copy().T, 3), zrisk(x, 3), rtol=1e-13)
    ints = np.array([[1, 2, 3], [3, 2, 1]])
    np.testing.assert_allclose(zrisk(ints), zrisk(ints.astype(float)))


@pytest.mark.parametrize("func", [zrisk, georisk, z_scores])
def test_bad_input(func):
    with pytest.raises(ValueError, match="at least 2 systems"):
        func(TABLE3.iloc[:1])
    with pytest.raises(ValueError, match="at least 1 topics"):
        func(np.zeros((3, 0)))
    with pytest.raises(ValueError, match="2-D"):
        func([0.1, 0.2])
    bad = TABLE3.copy()
    bad.loc["s3", "t2"] = np.nan
    with pytest.raises(ValueError, match=r"NaN scores at \('s3', 't2'\)"):
        func(bad)
    bad.loc["s3", "t2"] = -0.1
    with pytest.raises(ValueError, match=r"negative scores at \('s3', 't2'\)"):
        func(bad)
    bad.loc["s3", "t2"] = np.inf
    with pytest.raises(ValueError, match="infinite"):
        func(bad)
    with pytest.raises(ValueError, match=r"infinite scores at \(0, 1\)"):
        func(np.array([[0.1, -np.inf], [0.2, 0.3]]))
    with pytest.raises(TypeError, match="numeric"):
        func([["a", "b"], ["c", "d"]])


@pytest.mark.parametrize("func", [zrisk, georisk])
def test_bad_alpha(func):
    with pytest.raises(ValueError, match="alpha must be a finite number >= 0"):
        func(TABLE3, alpha=-1)
    with pytest.raises(ValueError, match="finite"):
        func(TABLE3, alpha=float("nan"))
    with pytest.raises(TypeError, match="alpha"):
        func(TABLE3, alpha="5")


def test_tiny_mass_path_agrees_with_the_fast_path(monkeypatch):
    import pyterrier_risk.core._zrisk as module

    rng = np.random.default_rng(11)
    x = rng.random((23, 17))
    x[rng.random(x.shape) < 0.3] = 0.0
    fast = [zrisk(x, a) for a in (0.0, 1.0, 7.5)]
    monkeypatch.setattr(module, "_TINY_MASS", 2.0)  # every topic takes the overflow-safe path
    for a, expected in zip((0.0, 1.0, 7.5), fast, strict=True):
        np.testing.assert_allclose(zrisk(x, a), expected, rtol=1e-12, atol=1e-12)


def test_subnormal_scores_do_not_overflow():
    # x = [[1, a], [a, a]] with a the smallest subnormal; by hand (a -> 0): e_11 ~ 1, e_12 ~ 2a,
    # e_21 ~ 2a, e_22 = 4a^2 / (1 + 3a), so z_22 = (a - 4a^2) / 2a ~ 1/2 and the others ~ 0
    a = 5e-324
    x = np.array([[1.0, a], [a, a]])
    with np.errstate(over="raise", invalid="raise", divide="raise"):
        for alpha in (0.0, 3.0):
            np.testing.assert_allclose(zrisk(x, alpha), [0.0, 0.5], atol=1e-12)


def test_curve_and_components_labels_and_errors():
    curve = georisk_curve(TABLE3, [0, 2.5])
    assert list(curve.columns) == [0.0, 2.5] and curve.columns.name == "alpha"
    assert curve.index.equals(TABLE3.index)
    assert georisk_curve(TABLE3.to_numpy(), [1]).shape == (8, 1)
    parts = zrisk_components(TABLE3)
    assert list(parts.columns) == ["total", "negative", "mean"] and (parts["negative"] <= 0).all()
    with pytest.raises(ValueError, match="alpha must be a finite number >= 0"):
        georisk_curve(TABLE3, [1, -2])
    with pytest.raises(ValueError, match="at least 2 systems"):
        zrisk_components(TABLE3.iloc[:1])


def test_overflowing_row_sums_are_reported():
    big = np.full((2, 3), 1e308)
    with pytest.raises(ValueError, match="overflow"):
        zrisk(big)
