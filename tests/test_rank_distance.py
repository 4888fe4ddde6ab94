"""Kendall distance of a ranking from the baseline's ranking (Wang et al. 2012, §5.9), against brute force."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from helpers import data_path
from scipy import stats

import pyterrier_risk as ptr
from pyterrier_risk.core import discordant_pairs


def _frame(scores: dict[str, list[float]], prefix: str = "d") -> pd.DataFrame:
    rows = [(q, f"{prefix}{i}", s) for q, values in scores.items() for i, s in enumerate(values)]
    return pd.DataFrame(rows, columns=["qid", "docno", "score"])


def _brute(run: pd.DataFrame, base: pd.DataFrame) -> dict[str, float]:
    """Discordant pairs over all pairs of common documents, by an O(n^2) loop over the pairs."""
    out = {}
    both = run.merge(base, on=["qid", "docno"], suffixes=("", "_b"))
    for q, g in both.groupby("qid", sort=False):
        x, y = g["score"].tolist(), g["score_b"].tolist()
        n = len(x)
        disc = sum((x[i] - x[j]) * (y[i] - y[j]) < 0 for i in range(n) for j in range(i + 1, n))
        out[q] = disc / (n * (n - 1) / 2) if n > 1 and len(set(x)) > 1 and len(set(y)) > 1 else np.nan
    return out


def _random_pair(rng, topics=8, levels=6):
    run, base = [], []
    for t in range(topics):
        n = int(rng.integers(0, 30))
        docs = [f"doc{k}" for k in range(n + 5)]
        for d in rng.choice(docs, size=n, replace=False):
            run.append((f"q{t}", d, float(rng.integers(0, levels))))
        for d in rng.choice(docs, size=int(rng.integers(0, n + 5)), replace=False):
            base.append((f"q{t}", d, float(rng.integers(0, levels))))
    cols = ["qid", "docno", "score"]
    return pd.DataFrame(run, columns=cols), pd.DataFrame(base, columns=cols)


@pytest.mark.parametrize("seed", range(12))
def test_equals_the_brute_force_pair_count_with_ties_and_partial_overlap(seed):
    rng = np.random.default_rng(seed)
    run, base = _random_pair(rng, levels=int(rng.integers(2, 8)))
    try:
        got = ptr.rank_distance(run, base)
    except ValueError:
        assert all(np.isnan(v) for v in _brute(run, base).values())
        return
    expected = _brute(run, base)
    for q, v in expected.items():
        assert got[q] == pytest.approx(v, nan_ok=True), q
    assert set(got.index) == set(run["qid"]) | set(base["qid"])
    assert got[[q for q in got.index if q not in expected]].isna().all()


def test_without_ties_it_is_one_minus_tau_over_two():
    rng = np.random.default_rng(1)
    run = _frame({f"q{t}": list(rng.permutation(50).astype(float)) for t in range(20)})
    base = _frame({f"q{t}": list(rng.permutation(50).astype(float)) for t in range(20)})
    got = ptr.rank_distance(run, base)
    for q in got.index:
        tau = stats.kendalltau(run[run.qid == q]["score"], base[base.qid == q]["score"]).statistic
        assert got[q] == pytest.approx((1 - tau) / 2)


def test_kernel_against_brute_force_on_many_small_groups():
    rng = np.random.default_rng(5)
    groups = np.sort(rng.integers(0, 40, 2000))
    x, y = rng.integers(0, 5, 2000).astype(float), rng.integers(0, 9, 2000).astype(float)
    disc, pairs = discordant_pairs(groups, x, y)
    for g in range(40):
        xs, ys = x[groups == g], y[groups == g]
        sign = np.sign(xs[:, None] - xs[None, :]) * np.sign(ys[:, None] - ys[None, :])
        assert disc[g] == np.count_nonzero(sign < 0) // 2
        assert pairs[g] == len(xs) * (len(xs) - 1) // 2
    # unsorted groups give the same counts
    perm = rng.permutation(2000)
    np.testing.assert_array_equal(discordant_pairs(groups[perm], x[perm], y[perm])[0], disc)


def test_by_hand_and_ties_count_as_agreement():
    a = _frame({"1": [3.0, 2.0, 1.0]})
    assert ptr.rank_distance(a, _frame({"1": [1.0, 2.0, 3.0]})).iloc[0] == 1.0  # reversed
    assert ptr.rank_distance(a, a).iloc[0] == 0.0
    # (d0, d1) tied in the baseline, the other two pairs in the same order: none is discordant
    assert ptr.rank_distance(a, _frame({"1": [2.0, 2.0, 1.0]})).iloc[0] == 0.0
    # (d0,d1) tied in baseline; (d0,d2) and (d1,d2) swapped: 2 of 3
    assert ptr.rank_distance(a, _frame({"1": [1.0, 1.0, 2.0]})).iloc[0] == pytest.approx(2 / 3)


def test_topics_without_two_common_documents_or_with_all_ties_are_nan():
    run = _frame({"1": [3.0, 2.0, 1.0], "2": [1.0], "3": [1.0, 2.0], "4": [5.0, 5.0]})
    base = _frame({"1": [1.0, 2.0, 3.0], "2": [1.0], "5": [1.0, 2.0], "4": [1.0, 2.0]})
    got = ptr.rank_distance(run, base)
    assert list(got.index) == ["1", "2", "5", "4", "3"] and got.name == "kendall_distance"
    assert got["1"] == 1.0 and got[["2", "3", "4", "5"]].isna().all()


def test_does_not_mutate_its_inputs():
    run, base = _random_pair(np.random.default_rng(3))
    before = (run.copy(), base.copy())
    ptr.rank_distance(run, base)
    pd.testing.assert_frame_equal(run, before[0])
    pd.testing.assert_frame_equal(base, before[1])


@pytest.mark.parametrize(
    ("run", "base", "match"),
    [
        (_frame({"1": [1.0, 2.0]}), _frame({"1": [1.0, 2.0]}, prefix="x"), "no .topic, document. in common"),
        (_frame({"1": [1.0, 1.0], "2": [2.0, 2.0]}), _frame({"1": [1.0, 2.0], "2": [1.0, 2.0]}), "all tied"),
        (_frame({"1": [1.0], "2": [2.0]}), _frame({"1": [1.0], "2": [1.0]}), "two documents in common"),
        (_frame({"1": [1.0]}).drop(columns="score"), _frame({"1": [1.0]}), "lacks the column.*score"),
        (pd.concat([_frame({"1": [1.0]})] * 2), _frame({"1": [1.0]}), "twice"),
        (_frame({"1": [np.nan, 1.0]}), _frame({"1": [1.0, 2.0]}), "NaN"),
    ],
)
def test_bad_input_is_a_one_line_error(run, base, match):
    with pytest.raises(ValueError, match=match) as e:
        ptr.rank_distance(run, base)
    assert "\n" not in str(e.value)


def test_a_non_frame_is_a_type_error():
    with pytest.raises(TypeError, match="run must be a DataFrame"):
        ptr.rank_distance([1, 2], _frame({"1": [1.0]}))


def test_bins_against_numpy_histogram():
    rng = np.random.default_rng(7)
    base = _frame({f"q{t}": list(rng.permutation(12).astype(float)) for t in range(30)})
    runs = {a: _frame({f"q{t}": list(rng.permutation(12).astype(float)) for t in range(30)}) for a in (1, 5)}
    runs[10] = base
    table = ptr.rank_distance_bins(runs, base)
    assert list(table.index) == [1, 5, 10] and table.columns[0] == "0.0-0.1" and table.columns[9] == "0.9-1.0"
    for a, run in runs.items():
        d = ptr.rank_distance(run, base).to_numpy()
        counts, _ = np.histogram(d, bins=np.linspace(0, 1, 11))  # numpy's last bin is closed, like ours
        np.testing.assert_allclose(table.loc[a].iloc[:10].to_numpy(), counts / counts.sum())
        assert table.loc[a, "mean"] == pytest.approx(d.mean())
    assert table.loc[10, "0.0-0.1"] == 1.0
    counts = ptr.rank_distance_bins(runs, base, bins=4, normalize=False)
    assert counts.iloc[:, :4].sum(axis=1).eq(30).all() and counts.columns[0] == "0.00-0.25"


def test_bins_name_the_run_in_an_error():
    with pytest.raises(ValueError, match="run 'a': run and baseline_run have no"):
        ptr.rank_distance_bins({"a": _frame({"1": [1.0, 2.0]}, "x")}, _frame({"1": [1.0, 2.0]}))
    with pytest.raises(ValueError, match="at least one run"):
        ptr.rank_distance_bins({}, _frame({"1": [1.0, 2.0]}))


def test_real_runs_trec7_against_kendalltau_and_brute_force():
    folder = data_path("trec7-adhoc-terrier-runs", "runs")
    run = ptr.read_run(folder / "stem-stop_BM25b0.75_1.run.gz")
    base = ptr.read_run(folder / "stem-stop_DLH13_2.run.gz")
    got = ptr.rank_distance(run, base)
    assert len(got) == 50 and got.notna().all() and ((got > 0) & (got < 0.5)).all()
    both = run.merge(base, on=["qid", "docno"], suffixes=("", "_b"))
    for q in ["351", "375", "400"]:
        g = both[both.qid == q]
        x, y = g["score"].to_numpy(), g["score_b"].to_numpy()
        sign = np.sign(x[:, None] - x[None, :]) * np.sign(y[:, None] - y[None, :])
        n = len(x)
        assert got[q] == pytest.approx(np.count_nonzero(sign < 0) / 2 / (n * (n - 1) / 2))
        # tau-b = (C - D) / sqrt((P - Tx)(P - Ty)); D from the distance, C from the pairs left
        p = n * (n - 1) / 2
        tx, ty = (
            np.count_nonzero(np.triu(np.sign(x[:, None] - x[None, :]) == 0, 1)),
            np.count_nonzero(np.triu(np.sign(y[:, None] - y[None, :]) == 0, 1)),
        )
        both_tied = np.count_nonzero(
            np.triu((np.sign(x[:, None] - x[None, :]) == 0) & (np.sign(y[:, None] - y[None, :]) == 0), 1)
        )
        d = got[q] * p
        c = p - d - tx - ty + both_tied
        assert stats.kendalltau(x, y).statistic == pytest.approx((c - d) / np.sqrt((p - tx) * (p - ty)))


def test_chunked_threads_give_the_same_counts(monkeypatch):
    from pyterrier_risk.core import _rankdist

    rng = np.random.default_rng(9)
    groups = np.repeat(np.arange(50), 40)
    x, y = rng.integers(0, 6, 2000).astype(float), rng.random(2000)
    whole = discordant_pairs(groups, x, y)[0]
    monkeypatch.setattr(_rankdist, "_CHUNK_ITEMS", 128)  # 2 rows of 64 per chunk: 25 chunks
    np.testing.assert_array_equal(discordant_pairs(groups, x, y)[0], whole)


def test_rows_in_any_order_give_the_same_distances():
    run, base = _random_pair(np.random.default_rng(21), topics=10)
    expected = ptr.rank_distance(run, base)
    shuffled = ptr.rank_distance(run.sample(frac=1, random_state=1), base.sample(frac=1, random_state=2))
    pd.testing.assert_series_equal(shuffled.loc[expected.index], expected)
    # ids that are numbers compare as text
    numeric = run.assign(qid=run["qid"].str[1:].astype(int))
    assert ptr.rank_distance(numeric, base.assign(qid=base["qid"].str[1:])).to_numpy() == pytest.approx(
        expected.to_numpy(), nan_ok=True)


# -- issue 21: a count no real input reaches, and the wrong kind of runs (items 7 and minor) ----------
def test_bins_beyond_the_limit_are_one_line_errors_before_any_allocation():
    from pyterrier_risk.core import MAX_BINS

    base = _frame({"1": [1.0, 2.0, 3.0]})
    runs = {"a": _frame({"1": [3.0, 2.0, 1.0]})}
    for bins in (MAX_BINS + 1, 10**9, 2**62):  # 10**9 bins asked for 16 GB
        with pytest.raises(ValueError, match=r"^bins must be an integer in \[1, 10_000\], got \d+ \(a") as e:
            ptr.rank_distance_bins(runs, base, bins=bins)
        assert "\n" not in str(e.value)
    table = ptr.rank_distance_bins(runs, base, bins=MAX_BINS)  # the limit itself is served
    assert table.shape == (1, MAX_BINS + 2) and table.iloc[0, MAX_BINS - 1] == 1.0


def test_runs_that_are_not_a_mapping_are_a_one_line_type_error():
    base = _frame({"1": [1.0, 2.0]})
    for runs in ([base], (base,), base):
        with pytest.raises(TypeError, match=r"^runs must be a mapping \{label: run frame\}, got "):
            ptr.rank_distance_bins(runs, base)


def test_a_repeated_pair_or_a_nan_score_gets_the_run_policy_message():
    base = _frame({"1": [1.0, 2.0]})
    twice = pd.concat([_frame({"1": [1.0, 2.0]}), _frame({"1": [5.0]})], ignore_index=True)
    with pytest.raises(ValueError, match=r"^run: document 'd0' is listed twice for topic '1' "
                                         r"\(first at row 0\); row 2 repeats it$"):
        ptr.rank_distance(twice, base)
    with pytest.raises(ValueError, match=r"^baseline_run: score is NaN for document 'd1' of topic '1' \(row"):
        ptr.rank_distance(base, _frame({"1": [1.0, np.nan]}))
