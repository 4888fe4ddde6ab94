r"""The learner study's tables as text: Dinçer, Macdonald and Ounis (SIGIR 2016) Table 7; Wang et al. 2012.

The numbers come from the study (:func:`pyterrier_risk.study.learner_table`,
:func:`~pyterrier_risk.study.convergence_table`, :func:`~pyterrier_risk.study.kendall_bins_table`); this
module only prints them, with what a caption needs passed explicitly as a
:class:`LearnerTableSettings` (never in ``DataFrame.attrs``, which pandas drops).

Vocabulary. Every printed table names a learner by its objective's ``label`` (``U-CRO``, ``GeoRisk-LM``;
the frames keep the registry name in ``objective``), and α by the frames' column name ``alpha``; only the
``paper`` layout prints the paper's own header (``α``, ``NDCG↑``, ``L > 20%↓``). Counts that are means
over seeds (Wins, Losses, Losses>20% with several seeds) print with one decimal, and the caption says so.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from ._tables import render_in_parts, render_table
from ._text import MAX_WIDTH, correction_name, format_cell, markdown_width

__all__ = ["LEARNER_LAYOUTS", "LearnerTableSettings", "PAPER_COLUMNS", "render_convergence_table",
           "render_kendall_table", "render_learner_table"]

NDCG = "NDCG@10"
MACRO = "macro "
#: the columns of one half of the table, in the 2016 paper's order
STATS = ("Reward", "Risk", "Reward/Risk", "Wins", "Losses", "W/L", "Losses>20%")
#: the statistics that are means (or sums) of per-query values, hence paired-tested per query
TESTED = ("Reward", "Risk", "Wins", "Losses", "Losses>20%")
P_VALUE, P_CORRECTED = " p-value", " p-value corrected"
#: the counts: per-seed means with several seeds
COUNTS = ("Wins", "Losses", "Losses>20%")
LOWER = ("Risk", "Losses", "Losses>20%")
LEARNER_LAYOUTS = ("default", "paper")
#: 2016 Table 7's columns of each half as printed, with the arrow of the favourable direction
PAPER_COLUMNS = ("NDCG↑", "Reward↑", "Risk↓", "Reward/Risk↑", "Wins↑", "Losses↓", "W/L↑", "L > 20%↓")
_PAPER_NAMES = dict(zip((NDCG, *STATS), PAPER_COLUMNS, strict=True))
_TEST_NAMES = {"t": "paired t-test", "randomization": "paired randomization test"}


@dataclass(frozen=True)
class LearnerTableSettings:
    """What the learner tables' captions say beyond the numbers (from the study that computed them).

    Attributes:
        single: the single baseline's name, or None.
        multiple: the multiple baselines' names.
        eval_alpha: the α of the GeoRisk column.
        reference: the reference objective (plain LambdaMART, ``'lambdarank'``).
        test: ``'t'`` or ``'randomization'``.
        correction: the multiple-testing correction's canonical name, or None.
        n_resamples: the randomization test's resamples.
        queries: the pooled test queries.
        seeds: the seeds every statistic is averaged over.
        labels: objective name -> its label in tables (a name not in it prints as itself).
        measure: the measure the captions name (the study's: ours, or LETOR 4.0's script).
    """

    single: str | None
    multiple: tuple[str, ...]
    eval_alpha: float
    reference: str
    test: str
    correction: str | None
    n_resamples: int
    queries: int
    seeds: int
    labels: Mapping[str, str] = field(default_factory=dict)
    measure: str = "NDCG@10 with gains 2^label − 1"

    def label(self, objective: str) -> str:
        """The objective's label (the reference's too: ``LambdaMART``)."""
        return self.labels.get(objective, objective)


def _rows(frame: pd.DataFrame, labels: Mapping[str, str], alpha: str = "alpha") -> pd.DataFrame:
    """``frame`` with ``objective`` as ``learner`` (labels) and α as text (``5``, not ``5.0``)."""
    out = frame.rename(columns={"objective": "learner", "alpha": alpha})
    out["learner"] = [labels.get(str(o), str(o)) for o in frame["objective"]]
    out[alpha] = [f"{a:g}" for a in frame["alpha"]]
    return out


def _count_formats(columns: Sequence[str], seeds: int) -> dict[str, str]:
    """Counts that are means (over seeds, or over the baselines of the macro half) with one decimal.

    The counts of one seed against one baseline are whole: integers.
    """
    return {c: ".1f" if seeds > 1 or c.startswith(MACRO) else ".0f" for c in columns if c.endswith(COUNTS)}


def _whole_or_one_decimal(frame: pd.DataFrame, columns: Sequence[str]) -> dict[str, str]:
    """Columns whose values are all whole numbers as integers, the others with one decimal."""
    return {c: ".0f" if np.isfinite(frame[c]).all() and (frame[c] == frame[c].round()).all() else ".1f"
            for c in columns}


def _test_text(settings: LearnerTableSettings) -> str:
    reference = settings.label(settings.reference)
    if settings.test == "t":
        return f"paired t-test against {reference}"
    return f"paired randomization test against {reference} ({settings.n_resamples} sign flips)"


def _pooled(settings: LearnerTableSettings) -> str:
    seeds = settings.seeds
    text = f"{settings.queries} test queries pooled over the folds"
    if seeds > 1:
        text += (f"; each statistic averaged over {seeds} seeds, so Wins, Losses and Losses>20% are per-seed "
                 "means (one decimal)")
    return f"{text}; {settings.measure}"


def _caption(settings: LearnerTableSettings, what: str) -> str:
    tests = (f"The tests compare each row with {settings.label(settings.reference)} at α = 0 (the first row: "
             "the baseline of † below) per query; the p-values are in the CSV"
             + ("" if settings.correction else ", uncorrected") + ".")
    return f"{what} ({_pooled(settings)}). {tests}"


def _style(settings: LearnerTableSettings, floatfmt: str, level: float) -> dict:
    return {"floatfmt": floatfmt, "level": level, "test": _test_text(settings),
            "correction": correction_name(settings.correction)}


def _piece(table: pd.DataFrame, settings: LearnerTableSettings, columns: list[str], rename: Mapping[str, str],
           alpha: str = "alpha") -> tuple[pd.DataFrame, dict[str, str], list[str]]:
    """The shown columns with their (hidden) p-value columns, renamed, and the significance mapping."""
    marks = {c: c + P_CORRECTED for c in columns if c + P_CORRECTED in table.columns}
    shown = [c for c in dict.fromkeys(["objective", "alpha", *columns, *marks.values()])]
    frame = _rows(table[shown], settings.labels, alpha).rename(columns=rename)
    return (frame, {rename.get(c, c): rename.get(p, p) for c, p in marks.items()},
            [rename.get(p, p) for p in marks.values()])


def _half_columns(table: pd.DataFrame, prefix: str) -> list[str]:
    return [prefix + k for k in STATS if prefix + k in table.columns]


def _check(table: object, settings: object, format: str, layout: str) -> None:
    if not isinstance(table, pd.DataFrame):
        raise TypeError(f"table must be a DataFrame, got {type(table).__name__}")
    if not isinstance(settings, LearnerTableSettings):
        raise TypeError("settings must be the LearnerTableSettings of the table (learner_tables(...)"
                        f".settings), got {type(settings).__name__}")
    if layout not in LEARNER_LAYOUTS:
        raise ValueError(f"layout must be one of {', '.join(LEARNER_LAYOUTS)}, got {layout!r}")
    missing = [c for c in ("objective", "alpha", NDCG) if c not in table.columns]
    if missing:
        raise ValueError(f"table is not a learner_table: it lacks {', '.join(missing)}")
    if format not in ("markdown", "latex", "csv"):
        raise ValueError(f"format must be markdown, latex or csv, got {format!r}")


def render_learner_table(table: pd.DataFrame, settings: LearnerTableSettings, format: str = "markdown", *,
                         layout: str = "default", floatfmt: str = ".4f", level: float = 0.05,
                         max_width: int = MAX_WIDTH) -> str:
    """A :func:`~pyterrier_risk.study.learner_table` as Markdown, LaTeX or CSV (Dinçer et al. 2016, Table 7).

    ``layout='default'``: one table with NDCG@10, the single-baseline half, the macro half and GeoRisk when
    its Markdown fits ``max_width`` characters; else two (NDCG@10 and the single baseline; the macro half
    and GeoRisk). The best value of each column is bold (lower is better for Risk, Losses and Losses>20%).

    ``layout='paper'``: Table 7 as printed: per half (against the single baseline; macro-averaged over the
    multiple baselines) NDCG↑ then Reward↑, Risk↓, Reward/Risk↑, Wins↑, Losses↓, W/L↑, L > 20%↓
    (:data:`PAPER_COLUMNS`; NDCG repeated in the macro half; no Δ%, no GeoRisk), no bold, and a caption
    whose claim is counted from the tests: "All differences ... are statistically significant" only when
    every tested value is.

    In both, a value is marked † when its corrected p-value, as printed with ``floatfmt``, is at most
    ``level``; the captions name the test and the correction. The p-values are not printed (the CSV holds
    them). CSV: the whole table, raw.

    Args:
        table: a :func:`~pyterrier_risk.study.learner_table`.
        settings: its :class:`LearnerTableSettings` (``learner_tables(...).settings``).
        format: ``'markdown'``, ``'latex'`` or ``'csv'``.
        layout: ``'default'`` or ``'paper'``.
        floatfmt: the number format (``'.3f'`` is ``--round 3``).
        level: the significance level of the marks.
        max_width: the widest Markdown table printed in one piece (default layout).

    Raises:
        ValueError: a bad layout, format or level, or ``table`` is not a learner table.
        TypeError: ``table`` is not a DataFrame or ``settings`` not a :class:`LearnerTableSettings`.
    """
    _check(table, settings, format, layout)
    if format == "csv":
        return render_table(table, "csv")
    if layout == "paper":
        return _render_paper(table, settings, format, floatfmt, level)
    single, macro = _half_columns(table, ""), _half_columns(table, MACRO)
    geo = ["GeoRisk"] if "GeoRisk" in table.columns else []
    geo_name = f"GeoRisk α={settings.eval_alpha:g}"
    over = ", ".join(settings.multiple)
    lower = [p + k for p in ("", MACRO) for k in LOWER]

    def render(columns: list[str], rename: dict[str, str], what: str, fmt: str) -> str:
        frame, marks, hide = _piece(table, settings, columns, rename)
        bold = [c for c in frame.columns if c not in ("learner", "alpha", *hide)]
        counts = _count_formats(columns, settings.seeds)
        return render_table(frame, fmt, caption=_caption(settings, what), bold=bold, significance=marks,
                            hide=hide, lower_is_better=[rename.get(c, c) for c in lower],
                            formats={rename.get(c, c): f for c, f in counts.items()},
                            **_style(settings, floatfmt, level))

    against = f"Against {settings.single}" if single else "NDCG@10"
    parts = [against] + [f"macro: averaged over {over}"] * bool(macro) + [f"GeoRisk among {over}"] * bool(geo)
    whole = ([NDCG, *single, *macro, *geo], {"GeoRisk": geo_name}, "; ".join(parts))
    if not (single and (macro or geo)) or markdown_width(render(*whole[:2], "", "markdown")) <= max_width:
        return render(*whole, format)
    first = render([NDCG, *single], {}, against, format)
    second = render([*macro, *geo], {**{c: c[len(MACRO):] for c in macro}, "GeoRisk": geo_name},
                    f"Macro-averaged over {over}: each statistic against each baseline in turn, then the mean"
                    + (f"; GeoRisk among {over}" if geo else ""), format)
    return first + "\n" + second


def _claim(table: pd.DataFrame, columns: Sequence[str], floatfmt: str, level: float,
           settings: LearnerTableSettings) -> str:
    """The caption's claim, counted from the tests of the printed values (the reference row has none)."""
    tested = [c + P_CORRECTED for c in dict.fromkeys(columns) if c + P_CORRECTED in table.columns]
    p = [format_cell(v, f"p:{floatfmt}") for c in tested for v in table[c].iloc[1:]]
    shown = [float(x) for x in p if x]
    significant = sum(x <= level for x in shown)
    reference = settings.label(settings.reference)
    where = f"over the n = {settings.queries} queries"
    if not shown:
        return f"No difference from {reference} is tested."
    if significant == len(shown):
        return f"All differences from {reference} are statistically significant (†) {where}."
    if significant == 0:
        return f"No difference from {reference} is statistically significant {where}."
    return (f"{significant} of the {len(shown)} tested differences from {reference} are statistically "
            f"significant (†) {where}.")


def _render_paper(table: pd.DataFrame, settings: LearnerTableSettings, format: str, floatfmt: str,
                  level: float) -> str:
    """2016 Table 7 as printed: a table per half, NDCG in each, arrows in the header, the claim counted."""
    halves = []
    if settings.single is not None and "Reward" in table.columns:
        halves.append(("", f"Compared to {settings.single} baseline"))
    if settings.multiple and MACRO + "Reward" in table.columns:
        n = len(settings.multiple)
        halves.append((MACRO, f"Compared to {n} baseline{'s' * (n > 1)} ({', '.join(settings.multiple)}; "
                              "macro-averaged: each measure against each baseline in turn, then the mean)"))
    if not halves:
        halves.append(("", "NDCG@10"))
    every = [c for prefix, _ in halves for c in (NDCG, *(prefix + k for k in STATS)) if c in table.columns]
    n = len(settings.multiple)
    over = f"the {n} baselines {', '.join(settings.multiple)}" if n > 1 else ", ".join(settings.multiple)
    against = " & ".join(x for x in (settings.single, over) if x) or "no baseline"
    head = (f"Learning to rank results, with risk results calculated w.r.t. {against} ({_pooled(settings)}). "
            + _claim(table, every, floatfmt, level, settings))
    out = []
    for i, (prefix, title) in enumerate(halves):
        columns = [c for c in (NDCG, *(prefix + k for k in STATS)) if c in table.columns]
        rename = {c: _PAPER_NAMES[c[len(prefix):] if c != NDCG else NDCG] for c in columns}
        frame, marks, hide = _piece(table, settings, columns, rename, alpha="α")
        counts = _count_formats(columns, settings.seeds)
        caption = f"{head} {title}." if i == 0 else f"{title}."
        out.append(render_table(frame, format, caption=caption, significance=marks, hide=hide,
                                formats={rename[c]: f for c, f in counts.items()},
                                **_style(settings, floatfmt, level)))
    return "\n".join(out)


def render_convergence_table(table: pd.DataFrame, format: str = "markdown", *,
                             labels: Mapping[str, str] | None = None, floatfmt: str = ".4f",
                             max_width: int = MAX_WIDTH) -> str:
    """A :func:`~pyterrier_risk.study.convergence_table` as text: short headers (``90% mean``) but in CSV.

    Counts of models print as integers; the rounds (means or medians over folds × seeds) with one decimal
    unless all are whole.
    """
    if format == "csv":
        return render_table(table, "csv")
    frame = _rows(table, labels or {})
    short = {c: c[len("rounds to "):].replace(" (", " ").rstrip(")") for c in frame.columns
             if c.startswith("rounds to ")}
    frame = frame.rename(columns=short)
    rounds = [c for c in frame.columns if c == "trees kept" or c in short.values()]
    formats = {"models": ".0f"} | _whole_or_one_decimal(frame, rounds)
    return render_in_parts(frame, format, ["learner", "alpha"], floatfmt=floatfmt, max_width=max_width,
                           formats={c: f for c, f in formats.items() if c in frame.columns}, caption=(
        "Boosting rounds to reach a share of the final validation NDCG@10 (90% mean: the mean over folds × "
        "seeds of the rounds a model takes to reach 90% of its last value; median: their median; trees kept: "
        "the mean trees a model scores with, up to its best validation round; Wang et al. 2012, §5.8)."))


def render_kendall_table(table: pd.DataFrame, format: str = "markdown", *,
                         labels: Mapping[str, str] | None = None, floatfmt: str = ".4f",
                         max_width: int = MAX_WIDTH) -> str:
    """A :func:`~pyterrier_risk.study.kendall_bins_table` as text (``undefined``: a per-seed mean)."""
    if format == "csv":
        return render_table(table, "csv")
    frame = _rows(table, labels or {})
    return render_in_parts(frame, format, ["learner", "alpha"], floatfmt=floatfmt, max_width=max_width,
                           formats=_whole_or_one_decimal(frame, ["undefined"]), caption=(
        "Share of the test queries per Kendall-distance bin from the single baseline's ranking "
        "(Wang et al. 2012, §5.9); undefined: queries per seed without a distance (a mean over seeds)."))
