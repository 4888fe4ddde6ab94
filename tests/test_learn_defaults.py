"""A study's defaults and conventions (issues 29 and 31).

Early stopping on the validation split by default (``--rounds`` the cap); the study's measure (ours or
LETOR 4.0's); one tie rule for the runs' ranks, the evaluation and the objectives' baseline NDCG;
named baselines. The real-data test (MQ2008, 5 folds × 3 seeds) is slow.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from _learn_data import partitions
from helpers import data_path

import pyterrier_risk as ptr
from pyterrier_risk.cli import main
from pyterrier_risk.core import letor_ndcg_by_query
from pyterrier_risk.data import read_run, write_run
from pyterrier_risk.engine import DEFAULT_EARLY_STOPPING, DEFAULT_LEARN_ROUNDS
from pyterrier_risk.engine._settings import learn_settings
from pyterrier_risk.engine._task import per_query_ndcg
from pyterrier_risk.learning._ndcg import untied_scores
from pyterrier_risk.study import StudyError

TINY = {"baseline": 1, "objectives": ["tfaro"], "alphas": [5], "rounds": 4, "progress": False, "workers": 1}


@pytest.fixture(scope="module")
def data(tmp_path_factory) -> Path:
    return partitions(tmp_path_factory.mktemp("letor") / "parts", parts=3, queries=8)


# ------------------------------------------------------------------ early stopping by default (issue 31)
def test_early_stopping_is_the_default_and_rounds_the_cap(data: Path) -> None:
    settings = learn_settings(data, baseline=1)
    assert (settings.early_stopping, settings.rounds) == (DEFAULT_EARLY_STOPPING, DEFAULT_LEARN_ROUNDS)
    assert DEFAULT_EARLY_STOPPING == 20 and DEFAULT_LEARN_ROUNDS == 300
    for off in (None, 0, "none", "None", "0"):
        assert learn_settings(data, baseline=1, early_stopping=off).early_stopping is None
    with pytest.raises(StudyError, match="early_stopping"):
        learn_settings(data, baseline=1, early_stopping=-2)


def test_cli_early_stopping_none_and_measure(data: Path, tmp_path: Path,
                                             capsys: pytest.CaptureFixture) -> None:
    out = tmp_path / "out"
    argv = ["learn", str(data), "--baseline", "1", "--objective", "tfaro", "--alpha", "5", "--rounds", "3",
            "--early-stopping", "none", "--measure", "letor", "--no-progress", "--workers", "1",
            "--out", str(out)]
    assert main(argv) == 0
    text = capsys.readouterr().out
    assert "NDCG@10 (LETOR 4.0 Eval-Score-4.0.pl)" in text and "trees kept" in text
    assert "Eval-Score-4.0.pl" in (out / "per_query.csv").read_text().splitlines()[0]
    models = pd.read_csv(out / "models.csv")
    assert (models["best_iteration"] == 3).all()  # a fixed count: every model keeps its 3 trees
    with pytest.raises(SystemExit) as stopped:
        main(["learn", str(data), "--baseline", "1", "--measure", "trec"])
    assert stopped.value.code == 2 and "invalid choice: 'trec'" in capsys.readouterr().err


def test_the_study_keeps_the_best_validation_round(data: Path) -> None:
    result = ptr.risk_study(data, **{**TINY, "rounds": 40, "early_stopping": 3})
    curves = result.curves
    for (fold, objective), curve in curves.groupby(["fold", "objective"]):
        kept = result.models.set_index(["fold", "objective"]).loc[(fold, objective), "best_iteration"]
        assert len(curve) == kept < 40  # stopped early, the curve cut at the best round
        values = curve["vali_ndcg"].to_numpy()
        assert values[-1] == values.max()  # the last kept round is the best one
    assert "trees kept" in result.convergence().columns


# ------------------------------------------------------------------ LETOR's measure in the study
def test_letor_measure_scores_test_queries_as_the_script(data: Path) -> None:
    result = ptr.risk_study(data, **{**TINY, "early_stopping": None, "measure": "letor"})
    pq = result.per_query
    for (objective, alpha, seed), run in result.runs.items():
        rows = pq[(pq["objective"] == objective) & (pq["alpha"] == alpha) & (pq["seed"] == seed)]
        scored = result.qrels.merge(run, on=["qid", "docno"], how="left")  # qrels: the file's order
        expected = letor_ndcg_by_query(scored["qid"], scored["label"], scored["score"], 10)
        got = rows.set_index("qid")["ndcg"]
        assert np.allclose(got[expected.index].to_numpy(), expected.to_numpy(), rtol=0, atol=1e-12)
    # synthetic queries have 8 documents: LETOR's NDCG@10 of a query with fewer than 10 is 0
    assert (pq["ndcg"] == 0).all() and (pq["base:F1"] == 0).all()
    assert "LETOR 4.0 Eval-Score-4.0.pl" in result.tables().render("markdown")


# ------------------------------------------------------------------ one tie rule (issue 29, item 2)
def _tied_query() -> tuple[pd.DataFrame, pd.DataFrame]:
    """qid 11743's case: two documents tie at 0.248875; the relevant one has the smaller docno."""
    run = pd.DataFrame({"qid": ["11743"] * 3, "docno": ["GX01", "GX02", "GX03"],
                        "score": [0.248875, 0.248875, 0.1]})
    qrels = pd.DataFrame({"qid": ["11743"] * 3, "docno": ["GX01", "GX02", "GX03"], "label": [1, 0, 0]})
    return run, qrels


def test_written_ranks_follow_the_evaluations_order(tmp_path: Path) -> None:
    run, qrels = _tied_query()
    write_run(run, tmp_path / "r.run", "t")
    ranked = read_run(tmp_path / "r.run")
    first = ranked.sort_values("rank").iloc[0]["docno"]
    assert first == "GX02"  # docno descending, as trec_eval
    # the NDCG of the rank column's order equals the evaluation's, with the ties as written
    by_rank = ranked.assign(score=-ranked["rank"].astype(float))
    assert per_query_ndcg(by_rank, qrels, ["11743"]) == pytest.approx(per_query_ndcg(run, qrels, ["11743"]))
    assert per_query_ndcg(run, qrels, ["11743"])[0] == pytest.approx(0.6309, abs=1e-4)
    write_run(run, tmp_path / "o.run", "t", ties="order")  # LETOR's rule: the frame's (file) order
    assert read_run(tmp_path / "o.run").sort_values("rank").iloc[0]["docno"] == "GX01"
    with pytest.raises(ValueError, match="ties"):
        write_run(run, tmp_path / "x.run", "t", ties="random")


def test_objectives_baseline_ndcg_equals_the_evaluations() -> None:
    rng = np.random.default_rng(3)
    qids = np.repeat([f"q{i}" for i in range(30)], 12)
    docnos = np.concatenate([[f"d{k:02d}-{i}" for k in rng.permutation(12)] for i in range(30)])
    labels = rng.integers(0, 3, len(qids))
    base = rng.integers(0, 3, len(qids)).astype(float)  # a baseline with many ties
    qrels = pd.DataFrame({"qid": qids, "docno": docnos, "label": labels})
    evaluated = per_query_ndcg(pd.DataFrame({"qid": qids, "docno": docnos, "score": base}), qrels,
                               list(dict.fromkeys(qids)))
    group = np.full(30, 12)
    for ties, equal in (("docno", True), ("rows", False)):
        obj = ptr.objective("urisk", alpha=1.0, cutoff=10, baseline=untied_scores(base, qids, docnos, ties))
        obj(labels.astype(float), np.zeros(len(qids)), None, group)
        assert np.allclose(obj.baseline_ndcg_, evaluated, rtol=0, atol=1e-12) is equal, ties


# ------------------------------------------------------------------ named baselines (issue 29, item 3)
def test_baselines_take_names(data: Path, tmp_path: Path) -> None:
    names = tmp_path / "names.txt"
    names.write_text("# LETOR 4.0 MQ2008\n2 TwoName   # a comment\n3 Three\n")
    s = learn_settings(data, baseline="1=BM25", baselines=[1, 2, (3, "Mine")], feature_names=names)
    assert s.single == "BM25" and s.multiple == ("BM25", "TwoName", "Mine")
    assert learn_settings(data, baseline=(1, "X")).single == "X"
    assert learn_settings(data, baseline=1).single == "F1"


@pytest.mark.parametrize(("kwargs", "match"), [
    ({"baseline": "1=BM25", "baselines": ["1=Other"]}, "named both"),
    ({"baseline": "1=two words"}, "one word"),
    ({"baseline": "1=F2", "baselines": [2]}, "two baselines are named 'F2'"),
    ({"baseline": (1, 2)}, r"expected \(feature or run file, name\)"),
])
def test_baseline_names_refused(data: Path, kwargs: dict, match: str) -> None:
    with pytest.raises(StudyError, match=match):
        learn_settings(data, **kwargs)


@pytest.mark.parametrize("text", ["25\n", "x BM25\n", "0 Zero\n", "2 A\n2 B\n"])
def test_feature_names_file_refused(data: Path, tmp_path: Path, text: str) -> None:
    names = tmp_path / "names.txt"
    names.write_text(text)
    with pytest.raises(StudyError, match="feature names .* line"):
        learn_settings(data, baseline=1, feature_names=names)


def test_cli_names_the_baseline(data: Path, tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    names = tmp_path / "names.txt"
    names.write_text("2 Second\n")
    out = tmp_path / "out"
    assert main(["learn", str(data), "--baseline", "1=BM25", "--baselines", "1", "2", "--feature-names",
                 str(names), "--objective", "tfaro", "--alpha", "5", "--rounds", "2", "--no-progress",
                 "--workers", "1", "--out", str(out)]) == 0
    assert "BM25" in capsys.readouterr().out
    assert {"base:BM25", "base:Second"} <= set(pd.read_csv(out / "per_query.csv", comment="#").columns)
    assert (out / "runs" / "BM25.run").is_file()


# ------------------------------------------------------------------ MQ2008 at the defaults (issue 31)
@pytest.mark.slow
@pytest.mark.realdata
def test_ucro_lowers_risk_against_feature_25_at_the_defaults(capsys: pytest.CaptureFixture) -> None:
    """U-CRO at α 10 against feature 25, 5 folds × 3 seeds, every other setting the study's default."""
    from scipy import stats

    result = ptr.risk_study(data_path("letor4-mq2008"), baseline=25, objectives=["urisk"], alphas=[10],
                            seeds=[1, 2, 3], progress=False)
    pq = result.per_query.assign(risk=lambda f: np.maximum(0.0, f["base:F25"] - f["ndcg"]))
    risk = pq.pivot_table(index=["fold", "qid"], columns="objective", values="risk", aggfunc="mean")
    assert len(risk) == 784
    test = stats.ttest_rel(risk["urisk"], risk["lambdarank"])
    with capsys.disabled():
        print(f"\nRisk vs F25: LambdaMART {risk['lambdarank'].mean():.4f}, U-CRO α 10 "
              f"{risk['urisk'].mean():.4f}, paired t over 784 queries p = {test.pvalue:.2g}")
    assert risk["urisk"].mean() < risk["lambdarank"].mean() and test.pvalue < 0.05
