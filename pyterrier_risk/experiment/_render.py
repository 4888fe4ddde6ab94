"""The tables of :func:`pyterrier_risk.Experiment`, built as ``pt.Experiment`` builds its own.

From ``pt.Experiment``'s per-query values (its public ``perquery=True, dataframe=False`` output):

* means over the qrels topics, summed rather than averaged for the count measures ``pt.Experiment``
  sums (``NumRet``, ``num_ret``, ...), in the same order of addition, so the values are identical;
* with a baseline, per measure ``"<m> +"`` / ``"<m> -"`` (topics better / worse than the baseline)
  and ``"<m> p-value"`` (``test``), and with ``correction`` ``"<m> reject"`` and
  ``"<m> p-value corrected"`` (:func:`pyterrier_risk.core.adjust_p_values`, across systems);
* rounding with ``builtins.round``, as ``pt.Experiment`` (``numpy.round`` differs on halves);
* the risk columns after them (TRisk's p-value, and with ``correction`` its ``reject`` and
  ``p-value corrected`` across systems, as for the ordinary measures), and ``highlight`` applied to
  the whole table.

``tests/test_experiment.py`` checks that, with the risk columns removed, every output equals
``pt.Experiment``'s for many argument combinations.
"""

from __future__ import annotations

import builtins
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from ._compat import evaluation_tuple

if TYPE_CHECKING:
    import pandas as pd

    from ..measures import RiskMeasure

__all__ = ["RiskResult", "TableOptions", "Tables", "check_round", "render", "test_function"]

#: measures pt.Experiment sums over topics instead of averaging (by the name it reports)
SUMMED = frozenset({"num_q", "num_rel", "num_ret", "num_rel_ret", "NumQ", "NumRel", "NumRet", "NumRelRet"})
_NOT_HIGHLIGHTED = ("p-value", "reject", "corrected")

Rounding = int | dict[str, int] | None


@dataclass(frozen=True)
class RiskResult:
    """One risk measure evaluated for every listed system.

    Attributes:
        measure: the risk measure.
        value: its value per system (a Series indexed by system name).
        p_value: TRisk's two-sided p-value per system; None for the other measures.
        per_topic: the per-query rows it adds: measure label -> systems × topics DataFrame
            (URisk: ``"<r>"``; TRisk: ``"<r> x"``, ``"<r> T_R"``, ``"<r> T_J"``; ZRisk/GeoRisk: ``"<r> z"``).
    """

    measure: RiskMeasure
    value: pd.Series
    p_value: pd.Series | None
    per_topic: dict[str, pd.DataFrame]

    def columns(self, round_: Rounding, correction: str | None = None,
                correction_alpha: float = 0.05) -> dict[str, list[Any]]:
        """The averages-table columns: ``repr`` -> values per system.

        TRisk adds ``"<repr> p-value"`` and, with ``correction``, ``"<repr> reject"`` and
        ``"<repr> p-value corrected"`` (:func:`pyterrier_risk.core.adjust_p_values` across the
        systems; the baseline's own NaN p-value is left out of the family), in ``pt.Experiment``'s
        order.
        """
        from ..core import adjust_p_values

        col = repr(self.measure)
        out: dict[str, list[Any]] = {col: [_round(float(v), col, round_) for v in self.value]}
        if self.p_value is not None:
            pcol = f"{col} p-value"
            # like pt.Experiment, an int `round` leaves p-values alone; a dict may name the column
            p_round = round_ if isinstance(round_, dict) else None
            out[pcol] = [_round(float(v), pcol, p_round) for v in self.p_value]
            if correction is not None:
                corrected = adjust_p_values(self.p_value.to_numpy(dtype=float), correction)
                out[f"{col} reject"] = [bool(p <= correction_alpha) for p in corrected]
                out[f"{pcol} corrected"] = [_round(float(p), f"{pcol} corrected", p_round) for p in corrected]
        return out


@dataclass(frozen=True)
class TableOptions:
    """``pt.Experiment``'s presentation arguments, checked.

    Attributes:
        baseline: index of the baseline system of the significance columns (None: no such columns).
        test: the paired test; its result's second item is the p-value.
        correction: multiple-testing correction method (None: none).
        correction_alpha: the family-wise error rate of ``correction``.
        round: decimal places, an int or ``{column: int}``.
        highlight: ``'bold'``, ``'color'``/``'colour'`` or None.
    """

    baseline: int | None = None
    test: Callable[..., Any] | None = None
    correction: str | None = None
    correction_alpha: float = 0.05
    round: Rounding = None
    highlight: str | None = None


@dataclass(frozen=True)
class PerQuery:
    """The systems' per-query values of the ordinary measures, on a topic set.

    Attributes:
        names: the system names.
        per_query: ``pt.Experiment``'s per-query values: system index -> qid -> measure -> value.
        ordinary: the ordinary measures' names, in ``pt.Experiment``'s column order.
        topic_list: the qrels topics (the topic set), as str.
    """

    names: list[str]
    per_query: dict[int, dict[Any, dict[str, float]]]
    ordinary: list[str]
    topic_list: list[str]


@dataclass(frozen=True)
class Tables(PerQuery):
    """What the tables are made of: the per-query values and the risk measures' results.

    Attributes:
        risk: the risk measures' results.
    """

    risk: list[RiskResult]

    def judged(self, system: int) -> dict[Any, dict[str, float]]:
        """A system's per-query values on the qrels topics, in ``pt.Experiment``'s order."""
        topics = set(self.topic_list)
        return {qid: row for qid, row in self.per_query[system].items() if str(qid) in topics}


def test_function(test: Any) -> Callable[..., Any]:
    """The paired test ``pt.Experiment`` uses for ``test``: ``'t'``, ``'wilcoxon'`` or a callable."""
    from scipy import stats

    if test == "t":
        return stats.ttest_rel
    if test == "wilcoxon":
        return stats.wilcoxon
    if callable(test):
        return test
    raise ValueError(f"unknown test {test!r}: use 't', 'wilcoxon' or a function like scipy.stats.ttest_rel")


def check_round(round_: Any) -> Rounding:
    """``round`` as ``pt.Experiment`` accepts it: an int >= 0, or a dict of ints >= 0 (or None)."""
    if round_ is None:
        return None
    values = round_.values() if isinstance(round_, dict) else [round_] if isinstance(round_, int) else None
    if values is None:
        raise ValueError(f"Argument round should be an integer or a dictionary, got {round_!r}")
    for v in values:
        if isinstance(v, bool) or not isinstance(v, int) or v < 0:
            raise ValueError(f"round: number of decimal places must be an integer >= 0, got {v!r}")
    return round_


def _round(value: float, column: str, round_: Rounding) -> float:
    # builtins.round, as pt.Experiment (np.round differs on some halfway cases)
    if isinstance(round_, int):
        return builtins.round(value, round_)
    if isinstance(round_, dict) and column in round_:
        return builtins.round(value, round_[column])
    return value


# -- averages ------------------------------------------------------------------------------------
def _means(tables: Tables, system: int) -> dict[str, float]:
    """Per-measure means over the qrels topics (count measures summed), added up as pt.Experiment does."""
    values = tables.judged(system)
    if not values:
        raise ValueError(f"no evaluated topics for system {tables.names[system]!r}")
    sums: dict[str, float] = {}
    for row in values.values():
        for measure in tables.ordinary:
            sums[measure] = sums.get(measure, 0.0) + row[measure]
    return {m: total / (1 if m in SUMMED else len(values)) for m, total in sums.items()}


def _significance(tables: Tables, options: TableOptions, baseline: int) -> tuple[list[str], list[list[Any]]]:
    """``"<m> +"``, ``"<m> -"`` and ``"<m> p-value"`` against the ``baseline``, per system (None for it)."""
    test = options.test
    assert test is not None  # every TableOptions with a baseline names its test
    base = tables.judged(baseline)
    qids = list(base)  # the baseline's topic order, as pt.Experiment
    base_values = {m: np.array([base[q][m] for q in qids]) for m in tables.ordinary}
    rows = []
    for i in range(len(tables.names)):
        if i == baseline:
            rows.append([None] * (3 * len(tables.ordinary)))
            continue
        values = tables.judged(i)
        row: list[Any] = []
        for m in tables.ordinary:
            ours = np.array([values[q][m] for q in qids])
            better, worse = int((ours > base_values[m]).sum()), int((ours < base_values[m]).sum())
            row += [better, worse, test(ours, base_values[m])[1]]
        rows.append(row)
    columns = [f"{m} {suffix}" for m in tables.ordinary for suffix in ("+", "-", "p-value")]
    return columns, rows


def _insert_corrections(table: pd.DataFrame, tables: Tables, options: TableOptions, baseline: int) -> None:
    """``"<m> reject"`` and ``"<m> p-value corrected"`` after each p-value column, across systems."""
    from ..core import adjust_p_values

    correction = options.correction
    assert correction is not None  # called only when a correction is asked for
    for m in tables.ordinary:
        pcol = f"{m} p-value"
        p = table[pcol].drop(table.index[baseline]).to_numpy(dtype=float)
        corrected = adjust_p_values(p, correction)
        reject = corrected <= options.correction_alpha
        position = table.columns.get_loc(pcol)
        reject = np.insert(reject, baseline, False)
        table.insert(position + 1, pcol.replace("p-value", "reject"), reject)
        table.insert(position + 2, f"{pcol} corrected", np.insert(corrected, baseline, np.nan))


def _highlighted(table: pd.DataFrame, highlight: str) -> Any:
    """The best value of each column styled (max; min for ``"<m> -"``); p-values are left alone."""
    style = "font-weight: bold" if highlight == "bold" else "background-color: lightgreen"

    def mark(column: pd.Series) -> list[str]:
        if column.name == "name" or str(column.name).endswith(_NOT_HIGHLIGHTED):
            return [""] * len(column)
        best = column.min() if str(column.name).endswith(" -") else column.max()
        return [style if v == best else "" for v in column]

    return table.style.apply(mark, axis=0)


def averages(tables: Tables, options: TableOptions, dataframe: bool) -> Any:
    """The averages table: the ordinary measures as ``pt.Experiment`` gives them, then the risk columns."""
    import pandas as pd

    means = [_means(tables, i) for i in range(len(tables.names))] if tables.ordinary else None
    risk: dict[str, list[Any]] = {}
    for result in tables.risk:
        risk.update(result.columns(options.round, options.correction, options.correction_alpha))
    if not dataframe:  # as pt.Experiment: unrounded means, no significance columns
        out = {n: dict(means[i]) if means else {} for i, n in enumerate(tables.names)}
        for i, n in enumerate(tables.names):
            out[n].update({col: values[i] for col, values in risk.items()})
        return out
    columns = ["name", *tables.ordinary]
    rows = [[n, *(_round(means[i][m], m, options.round) for m in tables.ordinary)] if means else [n]
            for i, n in enumerate(tables.names)]  # fmt: skip
    if options.baseline is not None and tables.ordinary:
        extra, extra_rows = _significance(tables, options, options.baseline)
        columns += extra
        rows = [row + more for row, more in zip(rows, extra_rows, strict=True)]
    table = pd.DataFrame(rows, columns=columns)
    if options.correction is not None and options.baseline is not None and tables.ordinary:
        _insert_corrections(table, tables, options, options.baseline)
    if risk:  # all at once: a column at a time fragments the frame (pandas' PerformanceWarning)
        table = pd.concat([table, pd.DataFrame(risk, index=table.index)], axis=1)
    if options.highlight in ("bold", "color", "colour"):
        return _highlighted(table, options.highlight)
    return table


# -- per query -----------------------------------------------------------------------------------
def per_query(tables: Tables, round_: Rounding, dataframe: bool) -> Any:
    """``pt.Experiment``'s long per-query table of the ordinary measures, then the risk components."""
    import pandas as pd

    rows = [  # the measures in the tables' order (not the dicts': ir_measures' set order, see _order.py)
        (tables.names[i], qid, m, row[m])
        for i, values in tables.per_query.items()
        for qid, row in values.items()
        for m in tables.ordinary
        if m in row
    ]
    frames = [pd.DataFrame(rows, columns=["name", "qid", "measure", "value"])] if rows else []
    for result in tables.risk:
        for label, matrix in result.per_topic.items():
            wide = matrix.reindex(tables.names).rename_axis(index="name", columns=None).reset_index()
            frame = wide.melt(id_vars="name", var_name="qid", value_name="value").assign(measure=label)
            frames.append(frame[["name", "qid", "measure", "value"]])
    out = pd.concat(frames, ignore_index=True).sort_values(["name", "qid"], kind="stable")
    out = out.reset_index(drop=True)
    if not dataframe:  # like pt.Experiment, the nested per-query dict is not rounded
        return _nested(out, tables.names)
    if isinstance(round_, int):  # exactly as pt.Experiment: builtins.round per value, then pandas
        out["value"] = [builtins.round(v, round_) for v in out["value"]]
        out["value"] = out["value"].round(round_)
    elif isinstance(round_, dict):  # pt.Experiment refuses this; rows are rounded by their measure
        out["value"] = [_round(v, m, round_) for v, m in zip(out["value"], out["measure"], strict=True)]
    return out


def _nested(out: pd.DataFrame, names: list[str]) -> dict[int, dict[Any, dict[str, float]]]:
    nested: dict[int, dict[Any, dict[str, float]]] = {}
    index = {n: i for i, n in enumerate(names)}
    for name, qid, measure, value in out.itertuples(index=False):
        nested.setdefault(index[name], {}).setdefault(qid, {})[measure] = value
    return nested


def render(tables: Tables, options: TableOptions, perquery: bool | str, dataframe: bool) -> Any:
    """What ``pt.Experiment`` returns for ``perquery`` and ``dataframe``, with the risk measures added."""
    if perquery is False:
        return averages(tables, options, dataframe)
    rows = per_query(tables, options.round, dataframe)
    if perquery == "both":
        means = averages(tables, options, dataframe)
        return evaluation_tuple(means, rows) if dataframe else (means, rows)
    return rows
