"""``pyterrier-risk learn`` on MQ2008 gives the models of docs/results_mq2008.md (a slice: fold 1, seed 1).

The page's runnable cell fits LambdaMART and U-CRO (α = 5) on fold 1 with the study's LightGBM settings and
prints their NDCG@10, Risk, Losses and Losses>20% against the BM25 feature on the 156 test queries; the
command, given LETOR's ``Fold1`` folder (S1, S2, S3 / S4 / S5, as the partitions rotate), must give
the same numbers.
"""

from __future__ import annotations

import pytest
from helpers import data_path

import pyterrier_risk as ptr

pytestmark = pytest.mark.realdata

PAGE_PARAMS = ["learning_rate=0.05", "num_leaves=15", "min_data_in_leaf=50", "feature_fraction=0.8"]


@pytest.mark.slow
def test_fold1_slice_gives_the_pages_numbers(tmp_path):
    (tmp_path / "mq2008").mkdir()
    (tmp_path / "mq2008" / "Fold1").symlink_to(data_path("letor4-mq2008", "Fold1"))
    result = ptr.risk_study(tmp_path / "mq2008", folds=1, baseline=25, objectives=["urisk"], alphas=[5],
                            rounds=150, early_stopping=None, params=PAGE_PARAMS, workers=1,
                            progress=False)  # one fold, asked for
    per_query = result.per_query
    assert per_query["qid"].nunique() == 156
    shown = {}
    for objective, rows in per_query.groupby("objective"):
        r = ptr.risk_reward(rows["ndcg"].to_numpy(), rows["base:F25"].to_numpy())
        shown[objective] = (round(rows["ndcg"].mean(), 4), round(r.risk, 4), r.losses, r.losses_gt20)
    # docs/results_mq2008.md, "One cell of the grid" (F25's ties by docno, in the study and the cell)
    assert shown == {"lambdarank": (0.4815, 0.0228, 21, 10), "urisk": (0.4838, 0.0174, 20, 6)}


@pytest.mark.slow
def test_lightgbm_example_slice_gives_the_pages_numbers():
    """docs/results_lightgbm_example.md: seed 1, LambdaMART and U-CRO at α = 10, five folds of rank.train.

    At the study's defaults: early stopping on each fold's validation part (patience 20, at most 300 trees).
    """
    result = ptr.risk_study(data_path("lightgbm-lambdarank-example", "rank.train"), folds=5, baseline=100,
                            objectives=["urisk"], alphas=[10], progress=False,
                            params=["learning_rate=0.05", "num_leaves=15", "min_data_in_leaf=20",
                                    "feature_fraction=0.8"])
    shown = {}
    for objective, rows in result.per_query.groupby("objective"):
        assert rows["qid"].nunique() == 201
        r = ptr.risk_reward(rows["ndcg"].to_numpy(), rows["base:F100"].to_numpy())
        shown[objective] = (round(rows["ndcg"].mean(), 4), round(r.risk, 4), r.losses, r.losses_gt20)
    assert shown == {"lambdarank": (0.7522, 0.0390, 82, 18), "urisk": (0.7348, 0.0397, 84, 20)}
