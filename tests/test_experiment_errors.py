"""pyterrier_risk.Experiment's arguments: pt.Experiment's signature, its exception types, short errors.

Every bad argument raises the exception type ``pt.Experiment`` raises (compared with
``pt.Experiment`` itself, with and without risk measures; issue 16.8); the pass-through parameters
are explicit, with ``pt.Experiment``'s defaults (16.6); an unknown baseline name without ``names=``
is one short line (16.6); ``risk_sd`` gives rmit-ir/trisk's per-topic p-values (16.7).
"""

from __future__ import annotations

import inspect
import warnings

import numpy as np
import pandas as pd
import pyterrier as pt
import pytest
from ir_measures import AP, nDCG
from scipy import stats

import pyterrier_risk as pr

TOPICS = pd.DataFrame({"qid": ["1", "2", "3", "4"], "query": ["a", "b", "c", "d"]})
QRELS = pd.DataFrame({"qid": ["1", "1", "2", "3", "4", "4"], "docno": ["d1", "d2", "d1", "d3", "d2", "d4"],
                      "label": [1, 0, 1, 1, 2, 0]})


def _run(scores: list[float]) -> pd.DataFrame:
    docs = [("1", "d1"), ("1", "d2"), ("2", "d1"), ("2", "d2"), ("3", "d3"), ("3", "d1"), ("4", "d2"),
            ("4", "d4")]
    rows = [(q, d, s) for (q, d), s in zip(docs, scores, strict=True)]
    run = pd.DataFrame(rows, columns=["qid", "docno", "score"])
    run["rank"] = run.groupby("qid")["score"].rank(ascending=False, method="first").astype(int) - 1
    return run


R1 = _run([2.0, 1.0, 1.0, 2.0, 2.0, 1.0, 1.0, 2.0])
R2 = _run([1.0, 2.0, 2.0, 1.0, 2.0, 1.0, 2.0, 1.0])
RISK = pr.URisk(nDCG @ 10, alpha=1, baseline=0)

# (id, positional arguments, keyword arguments): each one bad in one way; pt.Experiment refuses them all
BAD = [
    ("measure-builtin", ([R1, R2], TOPICS, QRELS, [map]), {}),  # PyTerrier's own test_bad_measure
    ("measure-int", ([R1, R2], TOPICS, QRELS, [5]), {}),
    ("measure-none", ([R1, R2], TOPICS, QRELS, [None]), {}),
    ("measures-bare-string", ([R1, R2], TOPICS, QRELS, "map"), {}),
    ("measure-unknown-name", ([R1, R2], TOPICS, QRELS, ["nonsense"]), {}),
    ("measures-none", ([R1, R2], TOPICS, QRELS, None), {}),
    ("systems-tuple", ((R1, R2), TOPICS, QRELS, ["map"]), {}),
    ("systems-frame", (R1, TOPICS, QRELS, ["map"]), {}),
    ("systems-string", ("R1", TOPICS, QRELS, ["map"]), {}),
    ("systems-empty", ([], TOPICS, QRELS, ["map"]), {}),
    ("system-int", ([R1, 5], TOPICS, QRELS, ["map"]), {}),
    ("names-length", ([R1, R2], TOPICS, QRELS, ["map"]), {"names": ["a"]}),
    ("baseline-name-list", ([R1, R2], TOPICS, QRELS, ["map"]), {"baseline": "a"}),
    ("baseline-unknown-name-list", ([R1, R2], TOPICS, QRELS, ["map"]),
     {"baseline": "c", "names": ["a", "b"]}),
    ("baseline-unknown-name-dict", ({"a": R1, "b": R2}, TOPICS, QRELS, ["map"]), {"baseline": "c"}),
    ("baseline-index-high", ([R1, R2], TOPICS, QRELS, ["map"]), {"baseline": 5}),
    ("baseline-index-negative", ([R1, R2], TOPICS, QRELS, ["map"]), {"baseline": -1}),
    ("round-negative", ([R1, R2], TOPICS, QRELS, ["map"]), {"round": -1}),
    ("round-string", ([R1, R2], TOPICS, QRELS, ["map"]), {"round": "2"}),
    ("round-float", ([R1, R2], TOPICS, QRELS, ["map"]), {"round": 1.5}),
    ("round-dict-negative", ([R1, R2], TOPICS, QRELS, ["map"]), {"round": {"map": -2}}),
    ("correction-without-baseline", ([R1, R2], TOPICS, QRELS, ["map"]), {"correction": "bonferroni"}),
    ("correction-unknown", ([R1, R2], TOPICS, QRELS, ["map"]), {"correction": "nope", "baseline": 0}),
    ("correction-alpha-string", ([R1, R2], TOPICS, QRELS, ["map"]),
     {"correction": "bonferroni", "baseline": 0, "correction_alpha": "x"}),
    ("test-unknown", ([R1, R2], TOPICS, QRELS, ["map"]), {"test": "nope", "baseline": 0}),
    ("unknown-keyword", ([R1, R2], TOPICS, QRELS, ["map"]), {"bogus": 1}),
    ("no-topic-overlap", ([R1, R2], TOPICS.assign(qid=["7", "8", "9", "10"]), QRELS, ["map"]), {}),
    ("save-dir-missing", ([R1, R2], TOPICS, QRELS, ["map"]), {"save_dir": "/nonexistent/pyterrier-risk"}),
    ("topics-int", ([R1, R2], 5, QRELS, ["map"]), {}),
]
# Extensions of this package, not errors here: a risk measure cannot go with no measures, and with
# risk measures a baseline may be combined with perquery (pt.Experiment asserts it is not)
NOT_WITH_RISK = {"measures-none"}


def _error(call, args, kwargs) -> BaseException:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(Exception) as caught:  # noqa: PT011 - any type: it is compared below
            call(*args, **kwargs)
    return caught.value


@pytest.mark.parametrize("with_risk", [False, True], ids=["ordinary", "with-risk-measure"])
@pytest.mark.parametrize(("args", "kwargs"), [case[1:] for case in BAD], ids=[case[0] for case in BAD])
def test_bad_arguments_raise_what_pt_experiment_raises(args, kwargs, with_risk):
    case = next(c[0] for c in BAD if c[1] is args)
    if with_risk and case in NOT_WITH_RISK:
        pytest.skip("not a bad argument with a risk measure")
    theirs = _error(pt.Experiment, args, kwargs)
    if with_risk and isinstance(args[3], list):
        args = (*args[:3], [*args[3], RISK])
    ours = _error(pr.Experiment, args, kwargs)
    assert isinstance(ours, type(theirs)), (type(theirs), type(ours), ours)
    assert len(str(ours)) < 300 and "\n" not in str(ours), str(ours)


def test_pt_experiment_crashes_on_a_missing_topics_or_qrels_file_and_ours_names_it():
    # pt.Experiment takes a missing file's name for a frame (TypeError, AttributeError by accident)
    for args, what in [(([R1], "/nonexistent/topics.txt", QRELS, ["map"]), "topics"),
                       (([R1], TOPICS, "/nonexistent/qrels.txt", ["map"]), "qrels")]:
        with pytest.raises(ValueError, match=f"^{what} '/nonexistent/{what}.txt': no such file"):
            pr.Experiment(*args)


def test_pt_experiments_own_bad_measure_case_gives_its_key_error():
    with pytest.raises(KeyError, match="Unknown measure"):
        pr.Experiment([R1, R2], TOPICS, QRELS, [map])
    with pytest.raises(ValueError, match=r"not the string 'map': write \['map'\]"):
        pr.Experiment([R1, R2], TOPICS, QRELS, "map")


# ---------------------------------------------------------------------------- short, discoverable errors
@pytest.mark.parametrize("with_risk", [False, True])
def test_a_baseline_name_without_names_is_one_short_line(with_risk):
    measures = [AP, RISK] if with_risk else [AP]
    with pytest.raises(TypeError) as caught:
        pr.Experiment([R1, R2], TOPICS, QRELS, measures, baseline="BM25")
    message = str(caught.value)
    assert "give names=" in message and "\n" not in message and len(message) < 160, message
    assert "qid" not in message  # the result frames are not printed


@pytest.mark.parametrize("m", [pr.TRisk(AP, baseline="BM25"),
                               pr.URisk(AP, baseline="mean", pool=["BM25", "QL"])], ids=["baseline", "pool"])
def test_a_risk_measures_baseline_name_without_names_is_one_short_line(m):
    with pytest.raises(ValueError, match=r"names no system: .* give names=") as caught:
        pr.Experiment([R1, R2], TOPICS, QRELS, [m])
    assert "\n" not in str(caught.value) and len(str(caught.value)) < 200
    named = pr.Experiment([R1, R2], TOPICS, QRELS, [m], names=["BM25", "QL"]).set_index("name")
    assert np.isfinite(named.loc["QL", repr(m)])  # with names= the same measure works


def test_a_baseline_name_with_names_works_without_risk_measures_too():
    # documented: "baseline may be a system name even when retr_systems is a list (names given)"
    ours = pr.Experiment([R1, R2], TOPICS, QRELS, [AP], names=["a", "b"], baseline="b")
    theirs = pt.Experiment([R1, R2], TOPICS, QRELS, [AP], names=["a", "b"], baseline=1)
    pd.testing.assert_frame_equal(ours, theirs)


# ------------------------------------------------------------------ pt.Experiment's signature, explicit
def test_signature_lists_every_pt_experiment_parameter_with_its_default():
    theirs = inspect.signature(pt.Experiment).parameters
    ours = inspect.signature(pr.Experiment).parameters
    for name, p in theirs.items():
        assert name in ours, name
        assert ours[name].kind == p.kind, name
        if p.default is not inspect.Parameter.empty:
            assert ours[name].default == p.default, name
    # in pt.Experiment's order (positional calls mean the same), the risk options after them
    assert [n for n in ours if n in theirs] == list(theirs)
    risk_options = ["risk_test", "risk_resamples", "risk_seed", "risk_null", "risk_sd"]
    assert list(ours)[len(theirs) - 1:-1] == risk_options


def test_pass_through_arguments_reach_pt_experiment(monkeypatch, tmp_path):
    calls = []
    real = pt.Experiment

    def spy(*args, **kwargs):
        calls.append(kwargs)
        return real(*args, **kwargs)

    monkeypatch.setattr(pt, "Experiment", spy)
    pr.Experiment([R1, R2], TOPICS, QRELS, [AP], verbose=False, batch_size=2, filter_by_qrels=True)
    assert {"verbose": False, "batch_size": 2, "filter_by_qrels": True}.items() <= calls[-1].items()
    pr.Experiment([R1, R2], TOPICS, QRELS, [AP])  # defaults are left to pt.Experiment
    assert not {"verbose", "batch_size", "validate", "save_dir", "plan", "save_format"} & set(calls[-1])
    passed = {"save_dir": str(tmp_path), "save_mode": "overwrite", "validate": "ignore"}
    pr.Experiment({"a": R1, "b": R2}, TOPICS, QRELS, [AP, RISK], **passed)
    assert passed.items() <= calls[-1].items()
    assert (tmp_path / "aggregated.csv").exists()


# ------------------------------------------------------------------- risk_sd: rmit-ir/trisk's s_x
@pytest.mark.parametrize("sd", ["sample", "population"])
def test_risk_sd_gives_the_per_topic_p_values_of_either_standard_deviation(sd):
    m = pr.TRisk(AP, alpha=2, baseline="a")
    pq = pr.Experiment({"a": R1, "b": R2}, TOPICS, QRELS, [AP, m], perquery=True, risk_sd=sd)
    wide = pq.pivot_table(index=["name", "measure"], columns="qid", values="value")
    s, b = wide.loc[("b", "AP")].to_numpy(), wide.loc[("a", "AP")].to_numpy()
    # independent: x_i = s_i - b_i, times 1 + alpha on losses; T_R = x / s_x; rmit-ir/trisk divides by c
    x = np.array([d if d >= 0 else 3 * d for d in s - b])
    t = x / np.std(x, ddof=1 if sd == "sample" else 0)
    expected = 2 * stats.t.sf(np.abs(t), len(x) - 1)
    np.testing.assert_allclose(wide.loc[("b", f"{m!r} T_R p-value")].to_numpy(), expected, rtol=1e-12)
    averages = pr.Experiment({"a": R1, "b": R2}, TOPICS, QRELS, [m], risk_sd=sd).set_index("name")
    # one SD for TRisk, T_R and T_J alike (issue 23): population scales t by sqrt(c / (c - 1))
    c = len(x)
    t_all = x.mean() / (np.std(x, ddof=1 if sd == "sample" else 0) / np.sqrt(c))
    assert averages.loc["b", f"{m!r} p-value"] == pytest.approx(2 * stats.t.sf(abs(t_all), c - 1))
    if sd == "sample":
        assert averages.loc["b", f"{m!r} p-value"] == pytest.approx(stats.ttest_1samp(x, 0).pvalue)


def test_risk_sd_is_checked():
    with pytest.raises(ValueError, match="'sample' or 'population'"):
        pr.Experiment([R1, R2], TOPICS, QRELS, [pr.TRisk(AP, baseline=0)], risk_sd="pop")


@pytest.mark.parametrize("which", ["topics", "qrels"])
@pytest.mark.parametrize("risk", [False, True])
def test_topics_or_qrels_none_is_pt_experiments_error_in_one_line(which, risk):
    """pt.Experiment raises TypeError (topics) or AttributeError (qrels) by accident; so do we, saying why."""
    args = {"topics": TOPICS, "qrels": QRELS, which: None}
    with pytest.raises((TypeError, AttributeError)) as theirs:
        pt.Experiment([R1, R2], args["topics"], args["qrels"], [AP])
    metrics = [AP, pr.URisk(AP, baseline=0)] if risk else [AP]
    message = f"^{which} must be a DataFrame, a file or an 'irds:' id, got NoneType$"
    with pytest.raises(theirs.type, match=message):
        pr.Experiment([R1, R2], args["topics"], args["qrels"], metrics)


# -- issue 21, item 7: a resample count no real input reaches is a one-line error everywhere -----------
def test_resamples_beyond_the_limit_are_refused_before_anything_runs(tmp_path, capsys):
    from pyterrier_risk.cli import main
    from pyterrier_risk.core import MAX_RESAMPLES, compare_systems, randomization_test
    from pyterrier_risk.experiment import RiskTest

    too_many = MAX_RESAMPLES + 1
    with pytest.raises(ValueError, match=r"^n_resamples must be an integer in \[1, 100_000_000\], got"):
        randomization_test([0.5, 0.2], [0.3, 0.3], n_resamples=too_many)
    with pytest.raises(ValueError, match=r"^n_resamples must be an integer in \[1, 100_000_000\], got"):
        compare_systems(pd.DataFrame([[0.5, 0.2], [0.3, 0.3]]), test="randomization",
                        n_resamples=too_many)
    with pytest.raises(ValueError, match=r"^the number of resamples must be an integer in \[1, 100_000_000"):
        RiskTest("randomization", too_many)
    run = tmp_path / "a.run"
    run.write_text("1 Q0 d1 1 2.0 a\n2 Q0 d1 1 1.0 a\n")
    (tmp_path / "b.run").write_text("1 Q0 d1 1 1.0 b\n2 Q0 d2 1 1.0 b\n")
    (tmp_path / "q").write_text("1 0 d1 1\n2 0 d1 1\n")
    argv = ["eval", "--qrels", str(tmp_path / "q"), str(run), str(tmp_path / "b.run"),
            "--measure", "TRisk(AP)", "--baseline", "a", "--test", "randomization", "--resamples", str(10**9)]
    assert main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert err == ("pyterrier-risk: error: --resamples must be in [1, 100_000_000] and --seed >= 0, "
                   "got 1000000000 and 0")
