"""Evaluation of a study: one :func:`~pyterrier_risk.Experiment` call, and the report's tables built from it.

:func:`evaluate_study` gives an :class:`Evaluation`; :func:`study_tables` the :class:`StudyTables`
(each one written as ``tables/<name>.csv``): the trade per α, LambdaMART per fold, effectiveness, risk
against the baseline and against all runs, and the tables of the four questions (hurt topics, break-even
α, Kendall distance from the first stage, baseline sensitivity).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, fields
from typing import Any

import numpy as np
import pandas as pd

from ..core import baseline_sensitivity, georisk, rank_distance, rank_distance_bins, risk_reward
from ..experiment import Experiment, hurt_topics
from ..measures import UE, BreakEven, GeoRisk, RiskMeasure, TRisk, URisk, ZRisk
from ._crossval import topic_folds
from ._settings import BASELINE, PLAIN, Study, objective_label


@dataclass
class Evaluation:
    """What :func:`evaluate_study` measured.

    Attributes:
        averages: the Experiment's table of averages, indexed by run name.
        matrix: runs × topics of :attr:`measure` (a topic missing from a run scores 0).
        measures: the plain measures (``measure``, AP@100, P@10 and UE-normalised ``measure``).
        risk: the risk measures by (kind, α): ``URisk``, ``TRisk`` against the baseline, ``T*Risk``
            against the per-topic mean of all runs, ``ZRisk``, ``GeoRisk``.
        break_even: the :class:`~pyterrier_risk.BreakEven` measure against the baseline.
        measure: the measure the risk measures are built on.
    """

    averages: pd.DataFrame
    matrix: pd.DataFrame
    measures: list[Any]
    risk: dict[tuple[str, float], Any]
    break_even: Any
    measure: Any


@dataclass
class StudyTables:
    """The study's tables; each is written as ``tables/<field name>.csv``.

    Attributes:
        trade: one row per training α (:func:`trade_table`).
        folds: LambdaMART and the baseline per cross-validation fold (:func:`folds_table`).
        effectiveness: the plain measures' means per run.
        risk: the 2012 decomposition and URisk/TRisk against the baseline (:func:`risk_table`).
        multi: T*Risk, ZRisk and GeoRisk against all runs (:func:`multi_table`).
        per_topic: topics × runs of the measure.
        experiment: the Experiment's whole table of averages.
        hurt: every topic of the compared runs, most-hurt first (:func:`hurt_table`).
        break_even: Gain, Risk and break-even α* per run (:func:`breakeven_table`).
        kendall: the share of topics per Kendall-distance bin (:func:`kendall_bins`).
        kendall_trend: the paired trend test per objective (:func:`kendall_trend`).
        kendall_distance: topics × re-rankers of the Kendall distance (:func:`kendall_distances`).
        sensitivity: every run's URisk rank under each baseline (from :attr:`baselines`).
        baselines: the :func:`pyterrier_risk.baseline_sensitivity` analysis of every run against the PISA
            systems and MEAN/MEDIAN/MAX (:func:`baseline_study`; not a table).
    """

    trade: pd.DataFrame
    folds: pd.DataFrame
    effectiveness: pd.DataFrame
    risk: pd.DataFrame
    multi: pd.DataFrame
    per_topic: pd.DataFrame
    experiment: pd.DataFrame
    hurt: pd.DataFrame
    break_even: pd.DataFrame
    kendall: pd.DataFrame
    kendall_trend: pd.DataFrame
    kendall_distance: pd.DataFrame
    sensitivity: pd.DataFrame
    baselines: Any = None

    def items(self) -> Iterator[tuple[str, pd.DataFrame]]:
        """(name, table) of every table, in field order."""
        for f in fields(self):
            value = getattr(self, f.name)
            if isinstance(value, pd.DataFrame):
                yield f.name, value


def _ue_measures(measure: Any) -> list[Any]:
    """UE-normalised ``measure`` (V1, V2) over the run's pool."""
    # pool='run': Vaswani's and Cranfield's qrels list (almost) only relevant documents, so a qrels pool
    # would be degenerate
    return [UE(measure, variant="V1", pool="run"), UE(measure, variant="V2", pool="run")]


def _fmt_alpha(a: float) -> str:
    return f"α={a:g}"


def evaluate_study(results: dict[str, pd.DataFrame], topics: pd.DataFrame, qrels: pd.DataFrame,
                   baseline: str, alphas: Sequence[float], measure: Any = None) -> Evaluation:
    """Evaluate all systems with one :func:`pyterrier_risk.Experiment` call (``perquery='both'``).

    Args:
        results: result frames by system name.
        topics: the topics.
        qrels: the qrels.
        baseline: name of the single risk baseline.
        alphas: α values of the risk measures.
        measure: the measure the risk measures are built on (default ``nDCG@10``).

    Returns:
        An :class:`Evaluation`; its matrix has the runs in the order of ``results``.
    """
    from ir_measures import AP, P, nDCG

    measure = nDCG @ 10 if measure is None else measure
    plain = [measure, AP @ 100, P @ 10, *_ue_measures(measure)]
    risk: dict[tuple[str, float], RiskMeasure] = {}
    for a in alphas:
        risk[("URisk", a)] = URisk(measure, alpha=a, baseline=baseline)
        risk[("TRisk", a)] = TRisk(measure, alpha=a, baseline=baseline)
        risk[("T*Risk", a)] = TRisk(measure, alpha=a, baseline="mean")
        risk[("ZRisk", a)] = ZRisk(measure, alpha=a)
        risk[("GeoRisk", a)] = GeoRisk(measure, alpha=a)
    break_even = BreakEven(measure, baseline=baseline)
    averages, per_query = Experiment(results, topics, qrels, [*plain, *risk.values(), break_even],
                                     perquery="both", verbose=False)
    qids = sorted(qrels["qid"].unique(), key=lambda q: (len(q), q))
    values = per_query[per_query["measure"] == str(measure)]
    matrix = (values.pivot(index="name", columns="qid", values="value")
              .reindex(index=list(results), columns=qids).fillna(0.0))
    return Evaluation(averages=averages.set_index("name"), matrix=matrix, measures=plain, risk=risk,
                      break_even=break_even, measure=measure)


def risk_table(ev: Evaluation, baseline: str, alphas: Sequence[float]) -> pd.DataFrame:
    """Against ``baseline``: the 2012 decomposition (independent of α) and URisk/TRisk for every α."""
    matrix, averages, risk_m = ev.matrix, ev.averages, ev.risk
    others = [n for n in matrix.index if n != baseline]
    rows = [risk_reward(matrix.loc[n], matrix.loc[baseline]) for n in others]
    table = pd.DataFrame({"name": others, "Risk": [r.risk for r in rows], "Reward": [r.reward for r in rows],
                          "Gain": [r.gain for r in rows], "Wins": [r.wins for r in rows],
                          "Losses": [r.losses for r in rows], "Losses>20%": [r.losses_gt20 for r in rows]})
    for a in alphas:
        table[f"URisk {_fmt_alpha(a)}"] = averages.loc[others, repr(risk_m[("URisk", a)])].to_numpy()
        table[f"TRisk {_fmt_alpha(a)}"] = averages.loc[others, repr(risk_m[("TRisk", a)])].to_numpy()
    return table


def multi_table(ev: Evaluation, alphas: Sequence[float]) -> pd.DataFrame:
    """Against all runs: T*Risk (per-topic mean of all runs), ZRisk and GeoRisk for every α."""
    names = list(ev.matrix.index)
    table = pd.DataFrame({"name": names})
    for kind in ("T*Risk", "ZRisk", "GeoRisk"):
        for a in alphas:
            column = ev.averages.loc[names, repr(ev.risk[(kind, a)])]
            table[f"{kind} {_fmt_alpha(a)}"] = column.to_numpy()
    return table


def trade_table(matrix: pd.DataFrame, study: Study, pisa: Sequence[str], baseline: str,
                measure: str) -> pd.DataFrame:
    """One row per training α: mean, Risk, Losses>20% and GeoRisk among ``pisa`` of every re-ranker.

    GeoRisk_α of a run is computed over the PISA systems plus that run alone (:func:`pyterrier_risk.georisk`,
    2016 eq. 7), so it does not depend on the other re-rankers; ``LambdaMART GeoRisk`` is the α = 0
    model's GeoRisk_α over the same set. The α = 0 row of every re-ranker is LambdaMART.
    """
    base = matrix.loc[baseline]

    def geo(name: str, a: float) -> float:
        return float(georisk(matrix.loc[[*pisa, name]], alpha=a).loc[name])

    rows = []
    for a in study.alphas:
        row: dict[str, Any] = {"α": f"{a:g}", f"{PLAIN} GeoRisk": geo(PLAIN, a)}
        for objective in study.objectives:
            label, name = objective_label(objective), study.run_name(objective, a)
            rr = risk_reward(matrix.loc[name], base)
            row.update({f"{label} {measure}": matrix.loc[name].mean(),
                        f"{label} Risk": rr.risk, f"{label} Losses>20%": rr.losses_gt20,
                        f"{label} GeoRisk": geo(name, a)})
        rows.append(row)
    return pd.DataFrame(rows)


def folds_table(matrix: pd.DataFrame, study: Study, baseline: str) -> pd.DataFrame:
    """Mean of ``baseline`` and of LambdaMART (α = 0) per cross-validation fold, and over all topics."""
    parts = topic_folds(list(matrix.columns), study.folds, study.seed)
    rows = [("all", matrix.columns)] + [(str(f + 1), part) for f, part in enumerate(parts)]
    table = pd.DataFrame([{"fold": f, "topics": len(q), baseline: matrix.loc[baseline, q].mean(),
                           PLAIN: matrix.loc[PLAIN, q].mean()} for f, q in rows])
    table["difference"] = table[PLAIN] - table[baseline]
    return table


def hurt_table(matrix: pd.DataFrame, topics: pd.DataFrame, study: Study, baseline: str,
               measure: str) -> pd.DataFrame:
    """Every topic of :meth:`Study.compared_runs` against ``baseline``, most-hurt first.

    The table is :func:`pyterrier_risk.hurt_topics`'s; ``T_R``/``T_J`` and their p-values are at the
    largest training α (Dinçer et al. 2014, eqs. 21–23).
    """
    names = [baseline, *study.compared_runs()]
    return hurt_topics(matrix.loc[names], baseline, measures=[measure], topics=topics,
                       alpha=max(study.alphas))


def breakeven_table(ev: Evaluation, risk: pd.DataFrame, baseline: str) -> pd.DataFrame:
    """Gain, Risk and break-even α* = Gain/Risk of every run against ``baseline`` (Wang et al. 2012, §5.7).

    α* is the Experiment's :data:`pyterrier_risk.BreakEven` column; URisk at α is positive exactly when
    α < α*.
    """
    names = [n for n in risk["name"] if n != baseline]
    column = repr(ev.break_even)
    return pd.DataFrame({"name": names, "Gain": risk.set_index("name").loc[names, "Gain"].to_numpy(),
                         "Risk": risk.set_index("name").loc[names, "Risk"].to_numpy(),
                         "break-even α": ev.averages.loc[names, column].to_numpy(dtype=float)})


def kendall_distances(results: dict[str, pd.DataFrame], study: Study, baseline: str) -> pd.DataFrame:
    """Per topic (rows) and re-ranker (columns), the Kendall distance of its ranking from the first stage's.

    Both rankings hold the same documents, the first stage's top ``study.depth`` (the tail below is the
    first stage's own order and is left out). :func:`pyterrier_risk.rank_distance` (Wang et al. 2012, §5.9).
    """
    first = _top(results[baseline], study.depth)
    return pd.DataFrame({r.name: rank_distance(_top(results[r.name], study.depth), first)
                         for r in study.rerankers()})


def _top(run: pd.DataFrame, depth: int) -> pd.DataFrame:
    return run[run["rank"] < depth]


def kendall_bins(results: dict[str, pd.DataFrame], study: Study, baseline: str) -> pd.DataFrame:
    """The share of the topics per Kendall-distance bin of each re-ranker (Wang et al. 2012, Fig. 5).

    :func:`pyterrier_risk.rank_distance_bins` of the rankings of :func:`kendall_distances`.
    """
    first = _top(results[baseline], study.depth)
    runs = {r.name: _top(results[r.name], study.depth) for r in study.rerankers()}
    return rank_distance_bins(runs, first).reset_index()


TREND_COLUMNS = ("re-ranker", "α from", "α to", "topics", "closer", "further", "same", "mean from", "mean to",
                 "bin 0 from", "bin 0 to", "Wilcoxon p")


def kendall_trend(distances: pd.DataFrame, study: Study) -> pd.DataFrame:
    """Per objective: do the topics stay closer to the first stage at the largest α than at the smallest?

    Over the topics with a distance at both α (see :meth:`Study.trend_alphas`): how many moved closer, further
    or stayed, the mean distance and the share in bin 0 (distance < 0.1) at each, and the two-sided
    Wilcoxon signed-rank test of the paired distances (zero differences dropped; NaN when all are zero).
    """
    from scipy.stats import wilcoxon

    lo, hi = study.trend_alphas()
    rows = []
    for objective in study.objectives if hi > 0 else ():
        pair = distances[[study.run_name(objective, lo), study.run_name(objective, hi)]].dropna()
        d_lo, d_hi = pair.iloc[:, 0].to_numpy(), pair.iloc[:, 1].to_numpy()
        diff = d_hi - d_lo
        p = float(wilcoxon(d_hi, d_lo).pvalue) if np.any(diff != 0) else float("nan")
        rows.append({"re-ranker": objective_label(objective), "α from": f"{lo:g}", "α to": f"{hi:g}",
                     "topics": len(pair), "closer": int((diff < 0).sum()), "further": int((diff > 0).sum()),
                     "same": int((diff == 0).sum()), "mean from": d_lo.mean(), "mean to": d_hi.mean(),
                     "bin 0 from": float((d_lo < 0.1).mean()), "bin 0 to": float((d_hi < 0.1).mean()),
                     "Wilcoxon p": p})
    return pd.DataFrame(rows, columns=list(TREND_COLUMNS))


def baseline_study(matrix: pd.DataFrame, pisa: Sequence[str], alpha: float) -> Any:
    """:func:`pyterrier_risk.baseline_sensitivity` of every run at ``alpha`` (ECIR 2014).

    Every run is ranked, the re-rankers the demo is about among them; the run baselines are the PISA
    systems (the first stages one would choose as a baseline), then the MEAN, MEDIAN and MAX of all runs.
    """
    return baseline_sensitivity(matrix, alpha=alpha, baselines=list(pisa), seed=0)


def study_tables(ev: Evaluation, results: dict[str, pd.DataFrame], topics: pd.DataFrame, study: Study,
                 pisa: Sequence[str], baseline: str = BASELINE) -> StudyTables:
    """Every table of the report from the evaluation ``ev`` of ``results``.

    Args:
        ev: :func:`evaluate_study` of ``results``.
        results: result frames by name: the PISA systems, then the re-rankers (:meth:`Study.rerankers`).
        topics: the evaluated topics (``qid``, ``query``).
        study: the study's settings.
        pisa: the names of the PISA systems.
        baseline: the single risk baseline (the first stage of the re-rankers).

    Returns:
        The :class:`StudyTables`, with :func:`baseline_study` of the PISA systems at the largest α.
    """
    matrix, measure, top = ev.matrix, str(ev.measure), max(study.alphas)
    risk = risk_table(ev, baseline, study.alphas)
    distances = kendall_distances(results, study, baseline)
    sens = baseline_study(matrix, pisa, top)
    return StudyTables(
        trade=trade_table(matrix, study, pisa, baseline, measure), folds=folds_table(matrix, study, baseline),
        effectiveness=ev.averages[[str(m) for m in ev.measures]].reset_index(), risk=risk,
        multi=multi_table(ev, study.alphas), per_topic=matrix.T.rename_axis(index="qid").reset_index(),
        experiment=ev.averages.reset_index(), hurt=hurt_table(matrix, topics, study, baseline, measure),
        break_even=breakeven_table(ev, risk, baseline), kendall=kendall_bins(results, study, baseline),
        kendall_trend=kendall_trend(distances, study),
        kendall_distance=distances.rename_axis(index="qid").reset_index(),
        sensitivity=sens.ranks.rename_axis(index="name").reset_index(), baselines=sens)
