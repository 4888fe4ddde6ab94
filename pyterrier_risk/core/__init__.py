"""Numeric core: arrays in, arrays out (numpy, scipy, pandas only).

URisk (Wang et al. 2012), TRisk (Dinçer et al. SIGIR 2014), unbiased baselines (Dinçer et al.
ECIR 2014), ZRisk/GeoRisk (Dinçer et al. SIGIR 2016), UE normalisation (Feng & Karmaker Santu),
significance tests (a randomization test of URisk, per-topic p-values, all-pairs comparisons,
multiple-testing corrections), the per-topic hurt analysis and the break-even α, the sensitivity of a
risk evaluation to its baseline (Dinçer et al. ECIR 2014), the Kendall distance of a ranking from the
baseline's (Wang et al. 2012),
the input checks shared by every layer (:mod:`.validate`) and the topic policy (:mod:`.topics`).
This layer imports no PyTerrier, ir_measures, LightGBM or numba.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .._lazy import lazy_exports

_EXPORTS = {
    "BASELINE_AGGREGATES": "_baselines",
    "BASELINE_KINDS": "_baselines",  # deprecated alias of BASELINE_AGGREGATES
    "baseline_scores": "_baselines",
    "HURT_COLUMNS": "_hurt",
    "break_even_alpha": "_hurt",
    "gain_risk_ratio": "_hurt",
    "topic_hurt": "_hurt",
    "TopicPolicyWarning": "_topics",
    "TOPIC_MODES": "_topics",
    "check_topic_mode": "_topics",
    "topic_set": "_topics",
    "apply_topic_policy": "_topics",
    "TRiskResult": "_trisk",
    "jackknife_se": "_trisk",
    "trisk": "_trisk",
    "UEBounds": "_ue",
    "ue": "_ue",
    "ue_bounds": "_ue",
    "RiskReward": "_urisk",
    "risk_reward": "_urisk",
    "risk_weighted_differences": "_urisk",
    "loss_gt20": "_urisk",
    "urisk": "_urisk",
    "CORRECTION_METHODS": "_significance",
    "RandomizationResult": "_significance",
    "adjust_p_values": "_significance",
    "compare_systems": "_significance",
    "randomization_test": "_significance",
    "topic_p_values": "_significance",
    "BaselineSensitivity": "_sensitivity",
    "FriedmanResult": "_sensitivity",
    "baseline_sensitivity": "_sensitivity",
    "friedman_test": "_sensitivity",
    "systems_pca": "_sensitivity",
    "KENDALL_BINS": "_rankdist",
    "discordant_pairs": "_rankdist",
    "rank_distance": "_rankdist",
    "rank_distance_bins": "_rankdist",
    "georisk": "_zrisk",
    "georisk_curve": "_zrisk",
    "z_scores": "_zrisk",
    "zrisk": "_zrisk",
    "zrisk_components": "_zrisk",
    "LETOR_GAINS": "_letor",
    "letor_ndcg": "_letor",
    "letor_ndcg_by_query": "_letor",
}
# helpers the other layers use (they import a layer through its package, never its private modules)
_INTERNAL = {
    "DEFAULT_NULL": "_significance",
    "bin_labels": "_rankdist",
    "distance_bin": "_rankdist",
    "NULLS": "_significance",
    "qrels_topics": "_topics",
    "warn_extra": "_topics",
    "warn_missing": "_topics",
    "normalise_raw": "_ue",
    "pool_bounds": "_ue",
    "without_non_relevant": "_ue",
    "summand_sd": "_urisk",
    "topic_t_r": "_urisk",
    "MAX_BINS": "_validate",
    "MAX_RESAMPLES": "_validate",
    "check_alpha": "_validate",
    "check_int": "_validate",
    "check_run_frame": "_validate",
    "nan_score_message": "_validate",
    "repeated_pair_message": "_validate",
    "georisk_from_zrisk": "_zrisk",
    "row_z_scores": "_zrisk",
}
__all__ = list(_EXPORTS)

if TYPE_CHECKING:  # the lazy names for type checkers and editors (tests/test_package.py: the same)
    from ._baselines import BASELINE_AGGREGATES as BASELINE_AGGREGATES
    from ._baselines import BASELINE_KINDS as BASELINE_KINDS
    from ._baselines import baseline_scores as baseline_scores
    from ._hurt import HURT_COLUMNS as HURT_COLUMNS
    from ._hurt import break_even_alpha as break_even_alpha
    from ._hurt import gain_risk_ratio as gain_risk_ratio
    from ._hurt import topic_hurt as topic_hurt
    from ._letor import LETOR_GAINS as LETOR_GAINS
    from ._letor import letor_ndcg as letor_ndcg
    from ._letor import letor_ndcg_by_query as letor_ndcg_by_query
    from ._rankdist import KENDALL_BINS as KENDALL_BINS
    from ._rankdist import bin_labels as bin_labels
    from ._rankdist import discordant_pairs as discordant_pairs
    from ._rankdist import distance_bin as distance_bin
    from ._rankdist import rank_distance as rank_distance
    from ._rankdist import rank_distance_bins as rank_distance_bins
    from ._sensitivity import BaselineSensitivity as BaselineSensitivity
    from ._sensitivity import FriedmanResult as FriedmanResult
    from ._sensitivity import baseline_sensitivity as baseline_sensitivity
    from ._sensitivity import friedman_test as friedman_test
    from ._sensitivity import systems_pca as systems_pca
    from ._significance import CORRECTION_METHODS as CORRECTION_METHODS
    from ._significance import DEFAULT_NULL as DEFAULT_NULL
    from ._significance import NULLS as NULLS
    from ._significance import RandomizationResult as RandomizationResult
    from ._significance import adjust_p_values as adjust_p_values
    from ._significance import compare_systems as compare_systems
    from ._significance import randomization_test as randomization_test
    from ._significance import topic_p_values as topic_p_values
    from ._topics import TOPIC_MODES as TOPIC_MODES
    from ._topics import TopicPolicyWarning as TopicPolicyWarning
    from ._topics import apply_topic_policy as apply_topic_policy
    from ._topics import check_topic_mode as check_topic_mode
    from ._topics import qrels_topics as qrels_topics
    from ._topics import topic_set as topic_set
    from ._topics import warn_extra as warn_extra
    from ._topics import warn_missing as warn_missing
    from ._trisk import TRiskResult as TRiskResult
    from ._trisk import jackknife_se as jackknife_se
    from ._trisk import trisk as trisk
    from ._ue import UEBounds as UEBounds
    from ._ue import normalise_raw as normalise_raw
    from ._ue import pool_bounds as pool_bounds
    from ._ue import ue as ue
    from ._ue import ue_bounds as ue_bounds
    from ._ue import without_non_relevant as without_non_relevant
    from ._urisk import RiskReward as RiskReward
    from ._urisk import loss_gt20 as loss_gt20
    from ._urisk import risk_reward as risk_reward
    from ._urisk import risk_weighted_differences as risk_weighted_differences
    from ._urisk import summand_sd as summand_sd
    from ._urisk import topic_t_r as topic_t_r
    from ._urisk import urisk as urisk
    from ._validate import MAX_BINS as MAX_BINS
    from ._validate import MAX_RESAMPLES as MAX_RESAMPLES
    from ._validate import check_alpha as check_alpha
    from ._validate import check_int as check_int
    from ._validate import check_run_frame as check_run_frame
    from ._validate import nan_score_message as nan_score_message
    from ._validate import repeated_pair_message as repeated_pair_message
    from ._zrisk import georisk as georisk
    from ._zrisk import georisk_curve as georisk_curve
    from ._zrisk import georisk_from_zrisk as georisk_from_zrisk
    from ._zrisk import row_z_scores as row_z_scores
    from ._zrisk import z_scores as z_scores
    from ._zrisk import zrisk as zrisk
    from ._zrisk import zrisk_components as zrisk_components

__getattr__, __dir__ = lazy_exports(__name__, {**_EXPORTS, **_INTERNAL})
