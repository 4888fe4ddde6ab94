"""The study's report: ``report.md`` from ``report_template.md``, every sentence worded from the numbers."""

from __future__ import annotations

import string
from collections.abc import Callable, Sequence
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from ..data import atomic_write
from ..learning import get_objective
from ..reporting import write_table
from ._evaluate import Evaluation, StudyTables
from ._settings import (
    BASELINE,
    FEATURE_DEPTH,
    PLAIN,
    RUN_DEPTH,
    TREE_PARAMS,
    Study,
    StudyError,
    objective_label,
)


def objective_note(objective: str, baseline: str, n_pisa: int) -> str:
    """How the report describes a re-ranker's objective, read from the objective itself.

    Its label, what it is trained against (:meth:`~pyterrier_risk.Objective.trained_against`) and its
    citation: a user's registered objective is described as the built-ins are.
    """
    spec = get_objective(objective)
    scores = f"{baseline}'s score" if spec.baseline == "single" else f"the {n_pisa} PISA systems' scores"
    return f"{spec.label} against {spec.trained_against(scores)} ({spec.citation})"

HURT_TOP = 5  # most-hurt topics the report shows per re-ranker
QUERY_WIDTH = 60  # characters of a query text in the report's tables (cut between words)


def short_query(text: str, width: int = QUERY_WIDTH) -> str:
    """``text`` cut to at most ``width`` characters between two words (``" …"`` marks a cut)."""
    import textwrap

    text = " ".join(str(text).split())
    if len(text) <= width:
        return text
    return textwrap.shorten(text, width, placeholder=" …", break_on_hyphens=False)  # "time-to-" is no word


def _hurt_view(hurt: pd.DataFrame, baseline: str, measure: str, top: int = HURT_TOP) -> pd.DataFrame:
    """The ``top`` most-hurt topics of each run, with their query cut between words, for the report."""
    view = hurt.groupby("name", sort=False).head(top)
    return pd.DataFrame({"name": view["name"], "qid": view["qid"], "query": view["query"].map(short_query),
                         baseline: view["baseline"], measure: view["value"], "difference": view["difference"],
                         "relative": view["relative"], "T_J": view["t_j"],
                         "p(T_J)": view["t_j_p_value"].map(_p_text)})


def _p_text(p: float) -> str:
    """A p-value with two significant digits (``3e-14``, ``0.096``): a table's 4 decimals would show 0."""
    return f"{p:.2g}" if np.isfinite(p) else ""


def _hurt_text(hurt: pd.DataFrame, baseline: str, alpha: float) -> str:
    """Per run: topics lost, lost by more than 20%, and with T_J <= −2 (a significant loss at about 5%)."""
    parts = []
    counts = {}
    for name, rows in hurt.groupby("name", sort=False):
        lost = int((rows["difference"] < 0).sum())
        gt20 = int(rows["loss_gt20"].sum())
        sig = int((rows["t_j"] <= -2).sum())  # the T_J plot's red bars
        counts[name] = gt20
        parts.append(f"{name} loses {lost} of {len(rows)} topics, {gt20} by more than 20%, {sig} with "
                     f"T_J ≤ −2")
    text = f"Against {baseline} (T_J at α = {alpha:g}): " + "; ".join(parts) + "."
    names = list(counts)
    for name in names[1:]:
        word = ("fewer" if counts[name] < counts[names[0]] else "more" if counts[name] > counts[names[0]]
                else "as many")
        text += (f" {name} loses more than 20% on {word} topics than {names[0]} "
                 f"({counts[name]} vs {counts[names[0]]}).")
    return text


def _breakeven_text(table: pd.DataFrame, study: Study, baseline: str) -> str:
    """Which runs still beat ``baseline`` at each α, and how each objective's α* moves with the training α."""
    star = table.set_index("name")["break-even α"]
    parts = []
    for a in (a for a in study.alphas if a > 0):
        ahead = [n for n, v in star.items() if v > a]
        parts.append(f"at α = {a:g}, {len(ahead)} of {len(star)} runs ({', '.join(ahead) or 'none'})")
    text = f"URisk against {baseline} is positive for α < α*: " + "; ".join(parts) + "." if parts else ""
    best = star.idxmax() if star.notna().any() else None
    if best is not None:
        text += f" The largest α* is {best}'s, {star[best]:.2f}."
    for objective in study.objectives:
        values = [float(star[study.run_name(objective, a)]) for a in study.alphas]
        steps = np.diff(values)
        trend = ("rises with every step of the training α" if (steps > 0).all() else
                 "falls with every step of the training α" if (steps < 0).all() else
                 "does not move in one direction with the training α")
        path = " → ".join(f"{v:.2f}" for v in values)
        alphas = " → ".join(f"{a:g}" for a in study.alphas)
        text += f" {objective_label(objective)}'s α* {trend}: {path} (training α {alphas})."
    return text.strip()


def _kendall_text(trend: pd.DataFrame, baseline: str, level: float = 0.05) -> str:
    """One sentence per objective, its direction and wording decided by the trend table's numbers."""
    if trend.empty:
        return "No risk-sensitive re-ranker was trained with α > 0: there is no trend to test."
    parts = []
    for row in trend.to_dict("records"):
        name, lo, hi, p = row["re-ranker"], row["α from"], row["α to"], row["Wilcoxon p"]
        numbers = (f"bin 0 (distance < 0.1) holds {row['bin 0 from']:.0%} of the topics at α = {lo} and "
                   f"{row['bin 0 to']:.0%} at α = {hi}; the distance falls on {row['closer']} topics, rises "
                   f"on {row['further']}, stays on {row['same']} (Wilcoxon signed-rank p = {p:.2g})")
        if not p < level:
            parts.append(f"**{name}**: no significant change in the distance from {baseline} between "
                         f"α = {lo} and α = {hi}: {numbers}.")
        elif row["mean to"] < row["mean from"]:
            more = "more topics stay" if row["bin 0 to"] > row["bin 0 from"] else "the topics move"
            parts.append(f"**{name}**: {more} close to {baseline}'s ranking as α grows: {numbers}.")
        else:
            parts.append(f"**{name}**: the rankings move further from {baseline}'s as α grows: {numbers}.")
    return "\n\n".join(parts)


def _sensitivity_text(sens: Any, level: float = 0.05) -> str:
    """The Friedman test, Kendall's τ range and the PCA's explained variance, worded from the numbers."""
    parts = []
    f = sens.friedman
    if f is not None:
        verdict = ("the run baselines rank the systems alike more than chance would" if f.p_value < level
                   else "no evidence that the run baselines rank the systems alike")
        parts.append(f"Friedman test over the {f.blocks} run baselines (each ranks the {f.df + 1} systems "
                     f"by URisk at α = {sens.alpha:g}, its own 0 included; ECIR 2014, Table 2): χ² = "
                     f"{f.statistic:.2f}, df = {f.df}, p = {f.p_value:.2g}, Kendall's W = {f.kendall_w:.3f}: "
                     f"{verdict}.")
    lo, hi = sens.tau_range()
    if not np.isnan(lo):
        change = ("every run baseline ranks the systems the same" if lo == 1 else
                  "the ranking changes with the baseline")
        parts.append(f"Kendall's τ between two run baselines' rankings lies between {lo:.3f} and {hi:.3f}: "
                     f"{change}.")
    explained = ", ".join(f"{k} {v:.1%}" for k, v in sens.explained.items())
    parts.append(f"The first two principal axes of the systems × topics matrix explain {explained} of the "
                 "variance.")
    return " ".join(parts)


def _georisk_note(tables: Any, n_pisa: int) -> str:
    """Why LambdaMART's GeoRisk at α = 0 differs between the trade table and the table of all runs.

    GeoRisk scores a run against the runs it is computed among: the trade table's among the PISA
    systems and that model, this one's among every run. Both numbers are printed, as the tables show them.
    """
    trade, multi = tables.trade.set_index("α"), tables.multi.set_index("name")
    column, here = f"{PLAIN} GeoRisk", "GeoRisk α=0"
    if column not in trade.columns or here not in multi.columns or PLAIN not in multi.index:
        return ""
    among_pisa = float(trade[column].iloc[0])
    among_all = float(multi.loc[PLAIN, here])
    return (f"\n\nGeoRisk depends on the runs it is computed among: {PLAIN}'s GeoRisk at α = 0 is "
            f"{among_all:.4f} here, among all {len(multi)} runs, and {among_pisa:.4f} in the trade table "
            f"above, among the {n_pisa} PISA systems and {PLAIN}.")


def _alpha0_text(averages: pd.DataFrame, folds: pd.DataFrame, t_measure: Any, measure: Any,
                 baseline: str) -> str:
    """The honest comparison of LambdaMART (α = 0) with the baseline on the mean, with its paired test.

    ``t_measure`` is the TRisk at α = 0 against ``baseline`` (the paired t statistic) in ``averages``.
    """
    overall = folds.iloc[0]
    diff = float(overall["difference"])
    word = "higher than" if diff > 0 else "lower than" if diff < 0 else "equal to"
    t_name = repr(t_measure)
    t, p = averages.loc[PLAIN, t_name], averages.loc[PLAIN, f"{t_name} p-value"]
    better = int((folds["difference"].iloc[1:] > 0).sum())
    return (f"**At α = 0 the re-ranker is {word} its baseline on the mean.** Over the {len(folds) - 1} "
            f"cross-validation folds ({int(overall['topics'])} topics, each scored by a model that never "
            f"saw it), LambdaMART has mean {measure} {overall[PLAIN]:.4f} and {baseline} "
            f"{overall[baseline]:.4f} (difference {diff:+.4f}; paired t = TRisk at α = 0: {t:.2f}, "
            f"p = {p:.3f}); LambdaMART is ahead in {better} of the {len(folds) - 1} folds:")


def _findings(trade: pd.DataFrame, study: Study, measure: Any) -> str:
    """One data-driven sentence per objective: what training with the largest α changed."""
    top = max(study.alphas)
    if top == 0 or not study.objectives:
        return ""
    first, last = trade.iloc[0], trade.iloc[-1]
    parts = [f"**What risk-sensitive training changed** (α = 0 → {top:g}):"]
    for objective in study.objectives:
        label = objective_label(objective)
        parts.append(
            f"{label}: {measure} {first[f'{label} {measure}']:.4f} → {last[f'{label} {measure}']:.4f}, "
            f"Risk {first[f'{label} Risk']:.4f} → {last[f'{label} Risk']:.4f}, Losses>20% "
            f"{int(first[f'{label} Losses>20%'])} → {int(last[f'{label} Losses>20%'])}, GeoRisk at α = "
            f"{top:g} {last[f'{PLAIN} GeoRisk']:.4f} (LambdaMART) → {last[f'{label} GeoRisk']:.4f}.")
    return " ".join(parts)


def _reranker_lines(study: Study, n_pisa: int, baseline: str) -> str:
    alphas = ", ".join(f"{a:g}" for a in study.alphas if a > 0)
    lines = [f"  - **{PLAIN}**: `RiskLambdaMART('lambdarank')`, i.e. α = 0, what every objective reduces to."]
    for objective in study.objectives:
        single = get_objective(objective).baseline == "single"
        spec = "baseline='score'" if single else f"baselines=[{n_pisa} PISA scores]"
        lines.append(f"  - **{objective_label(objective)}(a=α)**: `RiskLambdaMART({objective!r}, alpha=α, "
                     f"{spec})`, α ∈ {{{alphas}}}: {objective_note(objective, baseline, n_pisa)}.")
    return "\n".join(lines)


def render_report(fields: dict[str, Any]) -> str:
    """``report_template.md`` (next to this module) with ``fields`` substituted (``string.Template``).

    Raises:
        KeyError: a field of the template is not in ``fields``.
    """
    text = resources.files(__package__).joinpath("report_template.md").read_text(encoding="utf-8")
    return string.Template(text).substitute({k: str(v) for k, v in fields.items()})


def _report_fields(ev: Evaluation, tables: StudyTables, study: Study, pisa: Sequence[str],
                   n_docs: int, labels: str) -> dict[str, Any]:
    def md(df: pd.DataFrame) -> str:
        return write_table(df).rstrip("\n")

    matrix, measure, baseline = ev.matrix, ev.measure, BASELINE
    alphas = " ".join(f"{a:g}" for a in study.alphas)
    return {
        "dataset": study.dataset, "n_docs": n_docs, "n_topics": matrix.shape[1], "labels": labels,
        "n_pisa": len(pisa), "systems": ", ".join(pisa), "baseline": baseline, "depth": study.depth,
        "num_boost_round": study.num_boost_round, "num_leaves": TREE_PARAMS["num_leaves"],
        "learning_rate": TREE_PARAMS["learning_rate"], "run_depth": max(RUN_DEPTH, study.depth),
        "feature_depth": FEATURE_DEPTH,
        "folds": study.folds, "rerankers": _reranker_lines(study, len(pisa), baseline), "measure": measure,
        "example_measure": repr(ev.risk[("URisk", max(study.alphas))]), "n_systems": len(matrix),
        "eval_command": f"pyterrier-risk eval --qrels qrels.txt --measure {measure} --alpha {alphas} "
                        f"--baseline runs/{baseline}.run runs/*.run",
        "alpha0": _alpha0_text(ev.averages, tables.folds, ev.risk[("TRisk", 0.0)], measure, baseline),
        "folds_table": md(tables.folds), "baseline_mean": f"{matrix.loc[baseline].mean():.4f}",
        "trade_table": md(tables.trade), "findings": _findings(tables.trade, study, measure),
        "effectiveness_table": md(tables.effectiveness),
        "risk_table": md(tables.risk),
        "multi_table": md(tables.multi) + _georisk_note(tables, len(pisa)),
        **_analysis_fields(tables, tables.baselines, study, measure, baseline, md),
    }


def _analysis_fields(tables: StudyTables, sens: Any, study: Study, measure: Any, baseline: str,
                     md: Callable[[pd.DataFrame], str]) -> dict[str, Any]:
    """The report's fields of the four questions: hurt topics, break-even α, Kendall distance, baselines."""
    lo, hi = study.trend_alphas()
    return {
        "hurt_top": HURT_TOP, "top_alpha": f"{max(study.alphas):g}",
        "hurt_text": _hurt_text(tables.hurt, baseline, max(study.alphas)),
        "hurt_table": md(_hurt_view(tables.hurt, baseline, str(measure))),
        "breakeven_text": _breakeven_text(tables.break_even, study, baseline),
        "breakeven_table": md(tables.break_even),
        "kendall_table": md(tables.kendall),
        "kendall_trend_table": md(tables.kendall_trend.assign(
            **{"Wilcoxon p": tables.kendall_trend["Wilcoxon p"].map(_p_text)})),
        "kendall_text": _kendall_text(tables.kendall_trend, baseline), "trend_from": f"{lo:g}",
        "trend_to": f"{hi:g}", "sensitivity_text": _sensitivity_text(sens),
        "ranks_table": md(tables.sensitivity.set_index("name").map(
            lambda r: f"{r:g}" if np.isfinite(r) else "").reset_index()),
    }


def write_report(out: Path, study: Study, ev: Evaluation, tables: StudyTables, pisa: Sequence[str], *,
                 n_docs: int, labels: str) -> Path:
    """Write every table as ``out/tables/<name>.csv`` and the report as ``out/report.md``.

    Args:
        out: output folder.
        study: the study's settings.
        ev: the evaluation of the runs (:func:`~pyterrier_risk.study.evaluate_study`).
        tables: the tables built from it (:func:`~pyterrier_risk.study.study_tables`).
        pisa: the names of the PISA systems (the first is :data:`BASELINE`).
        n_docs: the number of indexed documents (for the text).
        labels: how the relevance labels were mapped (for the text).

    Returns:
        The path of ``report.md``.

    Raises:
        StudyError: the report cannot be written.
    """
    for key, df in tables.items():
        write_table(df, out / "tables" / f"{key}.csv")
    text = render_report(_report_fields(ev, tables, study, pisa, n_docs, labels))
    report = out / "report.md"
    try:
        with atomic_write(report) as f:
            f.write(text)
    except OSError as e:
        raise StudyError(f"cannot write the report {report}: {e.strerror or e}") from e
    return report
