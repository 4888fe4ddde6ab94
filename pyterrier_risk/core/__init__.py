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
__getattr__, __dir__ = lazy_exports(__name__, {**_EXPORTS, **_INTERNAL})
