"""``pyterrier_risk.Experiment``: ``pt.Experiment`` that also evaluates risk-sensitive measures.

``pt.Experiment`` evaluates every system on its own and averages per-query values, so it cannot
compute a measure that needs several systems at once (a baseline among the listed systems, an
unbiased MEAN/MEDIAN/MAX baseline, ZRisk, GeoRisk) or that is not a mean (TRisk).  This wrapper:

1. runs ``pt.Experiment`` once, asking for per-query values of the ordinary measures plus each risk
   measure's base measure (each base measure is computed once, whatever the number of risk
   measures on it) and, for transformers, ``NumRet`` (to apply the topic policy);
2. rebuilds the ordinary table with PyTerrier's own renderer (same means, baseline columns,
   significance tests, multiple-testing correction, rounding);
3. adds one column per risk measure, named by its ``repr`` (TRisk also adds ``"<repr> p-value"``),
   computed from the systems × topics matrix of the base measure by the numeric core.

Without risk measures it simply calls ``pt.Experiment``.
"""

from __future__ import annotations

import builtins
import os
import warnings
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from ..core._topics import qrels_topics, warn_extra, warn_missing
from ..measures._risk import (
    _RISK_NAMES,
    AGGREGATE_BASELINES,
    RiskMeasure,
    _top_name,
    baseline_topic_scores,
    parse_measure,
)

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["Experiment"]


def _load_irds(value: Any, what: str) -> Any:
    """Resolve an ``irds:<id>`` string for topics or qrels with PyTerrier's dataset API.

    Any other string must name an existing file (read later, as ``pt.Experiment`` does).
    """
    if isinstance(value, os.PathLike):
        value = os.fspath(value)
    if isinstance(value, str) and not value.startswith("irds:"):
        if not os.path.isfile(value):
            raise ValueError(f"{what} {value!r}: no such file (give a DataFrame, a file or 'irds:<id>')")
        return value
    if not isinstance(value, str):
        return value
    import pyterrier as pt

    try:
        dataset = pt.get_dataset(value)
    except KeyError:
        raise ValueError(f"unknown ir_datasets id {value!r} given as {what}") from None
    return dataset.get_topics() if what == "topics" else dataset.get_qrels()


def _split_measures(eval_metrics: Sequence[Any]) -> tuple[list[Any], list[RiskMeasure], bool]:
    if isinstance(eval_metrics, (str, bytes)) or not isinstance(eval_metrics, Sequence):
        raise TypeError("eval_metrics must be a list of measures, e.g. [nDCG@20, URisk(nDCG@20, baseline=0)]")
    plain: list[Any] = []
    risk: list[RiskMeasure] = []
    mrt = False
    for m in eval_metrics:
        if isinstance(m, str):
            if m == "mrt":
                mrt = True
                continue
            if _top_name(m) in _RISK_NAMES:
                parsed = parse_measure(m)  # errors in a risk measure's name are reported as such
            else:
                parsed = None
            if isinstance(parsed, RiskMeasure):
                m = parsed
        if isinstance(m, RiskMeasure):
            m.base  # noqa: B018 - raises a clear error when the base measure is missing
            if m not in risk:
                risk.append(m)
        else:
            plain.append(m)
    return plain, risk, mrt


def Experiment(  # noqa: N802 - mirrors pt.Experiment
    retr_systems: Sequence[Any] | dict[str, Any],
    topics: pd.DataFrame | str,
    qrels: pd.DataFrame | str,
    eval_metrics: Sequence[Any],
    names: Sequence[str] | None = None,
    perquery: bool | str = False,
    dataframe: bool = True,
    baseline: int | str | None = None,
    test: Any = "t",
    correction: str | None = None,
    correction_alpha: float = 0.05,
    highlight: str | None = None,
    round: int | dict[str, int] | None = None,  # noqa: A002 - pt.Experiment's argument name
    **kwargs: Any,
) -> Any:
    r"""Run and evaluate systems like ``pt.Experiment``, also accepting risk-sensitive measures.

    All arguments and return values are those of ``pt.Experiment`` (``batch_size``,
    ``filter_by_qrels``, ``filter_by_topics``, ``save_dir``, ``save_mode``, ``save_format``,
    ``verbose``, ``validate``, ``plan``, ... pass through unchanged).  In addition:

    * ``eval_metrics`` may contain :class:`~pyterrier_risk.URisk`, :class:`~pyterrier_risk.TRisk`,
      :class:`~pyterrier_risk.ZRisk` and :class:`~pyterrier_risk.GeoRisk` measures (objects or
      names such as ``"URisk(nDCG@20,alpha=5,baseline='BM25')"``).  Each adds one column named by
      the measure's ``repr``; TRisk also adds ``"<repr> p-value"`` (two-sided, Student's t with
      c − 1 degrees of freedom).  A URisk/TRisk measure without its own ``baseline`` uses this
      function's ``baseline``.
    * a risk measure's ``baseline`` is a listed system's name or index, ``'mean'``, ``'median'`` or
      ``'max'`` over the listed systems (or over ``pool=``, a subset of names/indices; Dinçer et
      al., ECIR 2014), or an external run: a DataFrame or a TREC run file.  A string is looked up
      in that order: system name, aggregate, existing file.
    * ``topics`` and ``qrels`` may be ``'irds:<id>'`` strings (PyTerrier's ``pt.get_dataset``).
    * ``baseline`` may be a system name even when ``retr_systems`` is a list (``names`` given), and
      it may be combined with ``perquery``.

    Topic policy (as ``trec_eval -c``): the qrels' topics define the topic set; a system or
    baseline without results for a topic scores 0 there, with a warning giving the count; results
    for topics outside the qrels are ignored (warned about for result DataFrames and baseline runs).

    ``perquery=True`` returns PyTerrier's long table (``name``, ``qid``, ``measure``, ``value``)
    with extra rows per risk measure ``r`` (see docs/experiment.md):

    * URisk: measure ``"<r>"``, the per-topic term :math:`x_i` (its mean over topics is URisk);
    * TRisk: ``"<r> x"``, ``"<r> T_R"`` and ``"<r> T_J"`` (2014 eqs. 11, 21 and the jackknife
      T_J; NaN for the baseline system itself);
    * ZRisk and GeoRisk: ``"<r> z"``, the standardised residual :math:`z_{ij}` (2016 eq. 5); ZRisk
      is :math:`\sum z^+ + (1+\alpha)\sum z^-` over a system's rows.

    Args:
        retr_systems: transformers and/or result DataFrames, as a list or a ``{name: system}`` dict.
        topics: topics DataFrame, topics file, or ``'irds:<id>'``.
        qrels: qrels DataFrame, qrels file, or ``'irds:<id>'``.
        eval_metrics: measures (ir_measures objects, trec_eval names, risk measures).
        names: system names (ignored for a dict of systems).
        perquery: ``False``, ``True`` or ``'both'`` as in ``pt.Experiment``.
        dataframe: return DataFrames (default) or dicts.
        baseline: index or name of the system used for the significance columns of the ordinary
            measures, and the default baseline of URisk/TRisk measures.
        test: significance test (``'t'``, ``'wilcoxon'`` or a callable), as in ``pt.Experiment``.
        correction: multiple-testing correction method, as in ``pt.Experiment``.
        correction_alpha: family-wise error rate for ``correction``.
        highlight: ``'bold'`` or ``'color'`` to style the best value of each column.
        round: decimal places, an int or ``{column: int}`` (risk columns by their ``repr``).
        **kwargs: further ``pt.Experiment`` arguments.

    Returns:
        As ``pt.Experiment``: the averages table (DataFrame or dict), the per-query table, or both.

    Raises:
        ValueError: unknown baseline or pool member, fewer than two systems for ZRisk/GeoRisk,
            duplicate system names with risk measures, an unknown ``irds:`` id, ...
    """
    import pyterrier as pt

    topics = _load_irds(topics, "topics")
    qrels = _load_irds(qrels, "qrels")
    plain, risk, mrt = _split_measures(eval_metrics)

    if not risk:
        return pt.Experiment(
            retr_systems, topics, qrels, eval_metrics, names=names, perquery=perquery, dataframe=dataframe,
            baseline=baseline, test=test, correction=correction, correction_alpha=correction_alpha,
            highlight=highlight, round=round, **kwargs,
        )  # fmt: skip

    if isinstance(retr_systems, dict):
        names = list(retr_systems.keys())
        systems = list(retr_systems.values())
    elif isinstance(retr_systems, list):
        systems = list(retr_systems)
        names = [str(s) for s in systems] if names is None else list(names)
        if len(names) != len(systems):
            raise ValueError("names should be the same length as retr_systems")
    else:
        raise TypeError(
            f"Expected list or dict of transformers for retr_systems, instead received {type(retr_systems)}"
        )
    if len(set(names)) != len(names):
        raise ValueError(f"risk measures need unique system names; got {names} (use names=)")
    if not systems:
        raise ValueError("no systems given")
    if mrt:
        warnings.warn("'mrt' is not reported when risk measures are evaluated", stacklevel=2)
    _check_round(round)
    sys_index = _resolve_system_index(baseline, names, "baseline") if baseline is not None else None

    if isinstance(topics, str) and os.path.isfile(topics):
        topics = pt.io.read_topics(topics)
    if isinstance(qrels, str) and os.path.isfile(qrels):
        qrels = pt.io.read_qrels(qrels)
    if kwargs.get("filter_by_topics", True):
        qrels = qrels.merge(topics[["qid"]].drop_duplicates())
    topic_list = qrels_topics(qrels["qid"])
    if not topic_list:
        raise ValueError("there is no overlap between the qids of the topics and of the qrels")

    import ir_measures
    from pyterrier._evaluation._rendering import _convert_measures

    bases = _unique([m.base for m in risk])
    converted, _ = _convert_measures(plain) if plain else ([], {})
    # NumRet tells which topics a transformer returned nothing for; result frames are inspected directly
    frames_only = all(hasattr(system, "columns") for system in systems)
    needed = bases if frames_only else [*bases, ir_measures.NumRet]
    extra = [b for b in needed if b not in converted]
    _, rev_mapping = _convert_measures([*plain, *extra])
    column = {str(b): rev_mapping.get(b, str(b)) for b in needed}  # the names pt.Experiment gives them
    save_dir = kwargs.get("save_dir")
    saved_columns = _saved_columns(save_dir)
    with warnings.catch_warnings():
        if not perquery:
            warnings.filterwarnings("ignore", message=r".*topic\(s\) not found in qrels.*")
        # the inner call's aggregated.csv is rewritten below; compared there with the final columns
        warnings.filterwarnings("ignore", message="Evaluation measures differ between the existing")
        pq = pt.Experiment(
            dict(zip(names, systems, strict=True)), topics, qrels, [*plain, *extra],
            perquery=True, dataframe=True, **kwargs,
        )  # fmt: skip
    pq = pq.assign(qid=pq["qid"].astype(str))
    hidden = {column[str(e)] for e in extra}
    plain_names = [n for n in pq["measure"].drop_duplicates() if n not in hidden]

    # systems x topics matrices of the base measures (and NumRet), under the topic policy
    in_qrels = pq[pq["qid"].isin(set(topic_list))]
    matrices = {}
    for b in needed:
        rows = in_qrels[in_qrels["measure"] == column[str(b)]]
        if rows.empty:
            raise RuntimeError(f"pt.Experiment returned no per-query values for {b!r}")
        wide = rows.pivot(index="name", columns="qid", values="value").reindex(
            index=names, columns=topic_list
        )
        matrices[str(b)] = wide.fillna(0.0)  # cannot happen for qrels topics: ir_measures backfills 0
    numret = matrices.get(str(ir_measures.NumRet))
    if ir_measures.NumRet not in bases:  # only asked for the topic policy
        matrices.pop(str(ir_measures.NumRet), None)
    topic_set = set(topic_list)
    for name, system in zip(names, systems, strict=True):
        if hasattr(system, "columns") and "qid" in system.columns:
            returned = set(system["qid"].astype(str))
            warn_missing(len(topic_set - returned), len(topic_list), f"system {name!r}")
            warn_extra(len(returned - topic_set), f"system {name!r}")
        elif numret is not None:
            warn_missing(int((numret.loc[name] == 0).sum()), len(topic_list), f"system {name!r}")

    qrels_irm = pt.model.to_ir_measures(qrels)
    results = [
        _evaluate_risk(m, matrices[str(m.base)], names, sys_index, qrels_irm, topic_list) for m in risk
    ]

    if save_dir is not None:
        _rewrite_saved_tables(
            save_dir, names, hidden, saved_columns,
            _averages(pq, plain_names, names, topic_list, risk, results, sys_index, test, correction,
                      correction_alpha, None, True, None),
            _per_query(pq, plain_names, names, risk, results, None, True),
        )  # fmt: skip

    want_averages = perquery is False or perquery == "both"
    averages = None
    if want_averages:
        averages = _averages(
            pq, plain_names, names, topic_list, risk, results, sys_index, test, correction,
            correction_alpha, round, dataframe, highlight,
        )  # fmt: skip
        if perquery is False:
            return averages
    per_query = _per_query(pq, plain_names, names, risk, results, round, dataframe)
    if perquery == "both":
        if dataframe:
            from pyterrier._evaluation._rendering import EvaluationDataTuple

            return EvaluationDataTuple(averages, per_query)
        return averages, per_query
    return per_query


def _saved_columns(save_dir: str | None) -> list[str] | None:
    """Columns of an ``aggregated.csv`` left in ``save_dir`` by an earlier call (None: no such file)."""
    path = os.path.join(save_dir, "aggregated.csv") if save_dir is not None else None
    if path is None or not os.path.exists(path):
        return None
    import pandas as pd

    return list(pd.read_csv(path, nrows=0).columns)


def _rewrite_saved_tables(
    save_dir: str,
    names: list[str],
    hidden: set[str],
    saved_columns: list[str] | None,
    averages: pd.DataFrame,
    per_query: pd.DataFrame,
) -> None:
    """Put the risk columns into pt.Experiment's ``aggregated.csv`` and ``perquery.csv``.

    The internal base-measure/NumRet columns are dropped; rows of systems from earlier calls are
    kept, and a change of columns against the earlier file is warned about, as pt.Experiment does.
    """
    import pandas as pd

    if saved_columns is not None and set(saved_columns) != set(averages.columns):
        path = os.path.join(save_dir, "aggregated.csv")
        warnings.warn(
            f"Evaluation measures differ between the existing '{path}' "
            f"(columns: {', '.join(sorted(saved_columns))}) and the current run "
            f"(columns: {', '.join(sorted(averages.columns))}). Missing values will be filled with NaN.",
            stacklevel=3,
        )
    for filename, table in (("aggregated.csv", averages), ("perquery.csv", per_query)):
        path = os.path.join(save_dir, filename)
        if os.path.exists(path):
            old = pd.read_csv(path)
            old = old[~old["name"].astype(str).isin(set(names))]
            if filename == "aggregated.csv":
                old = old.drop(columns=[c for c in old.columns if c in hidden and old[c].isna().all()])
            if not old.empty:
                table = pd.concat([table, old], ignore_index=True)
        table.to_csv(path, index=False)


def _unique(items: Sequence[Any]) -> list[Any]:
    out: list[Any] = []
    for item in items:
        if item not in out:
            out.append(item)
    return out


def _resolve_system_index(ref: Any, names: list[str], what: str) -> int:
    if isinstance(ref, bool) or not isinstance(ref, (int, np.integer, str)):
        raise TypeError(f"{what} must be a system name or index, got {ref!r}")
    if isinstance(ref, str):
        if ref not in names:
            raise ValueError(f"unknown {what} {ref!r}: the listed systems are {names}")
        return names.index(ref)
    if not 0 <= int(ref) < len(names):
        raise ValueError(f"{what} index {ref} out of range: there are {len(names)} systems")
    return int(ref)


def _baseline_vector(
    m: RiskMeasure,
    matrix: pd.DataFrame,
    names: list[str],
    default: int | None,
    qrels_irm: pd.DataFrame,
    topic_list: list[str],
) -> tuple[pd.Series, int | None]:
    """Per-topic baseline scores of a URisk/TRisk measure, and the row index if it is a system."""
    from ..core._baselines import baseline_scores

    ref = m.baseline
    if ref is None:
        if default is None:
            raise ValueError(f"{m!r} needs a baseline: give baseline= in the measure or in Experiment()")
        return matrix.iloc[default], default
    if isinstance(ref, (int, np.integer)) and not isinstance(ref, bool):
        idx = _resolve_system_index(ref, names, f"baseline of {m!r}")
        return matrix.iloc[idx], idx
    if isinstance(ref, str) and ref in names:
        return matrix.loc[ref], names.index(ref)
    if isinstance(ref, str) and ref in AGGREGATE_BASELINES:
        pool = m.params.get("pool")
        if pool is None:
            rows = names
        else:
            rows = [names[_resolve_system_index(p, names, f"pool of {m!r}")] for p in pool]
        return baseline_scores(matrix.loc[_unique(rows)], ref).reindex(topic_list), None
    if isinstance(ref, str) and not os.path.isfile(ref):
        raise ValueError(
            f"unknown baseline {ref!r} of {m!r}: not a listed system ({names}), "
            f"not one of {AGGREGATE_BASELINES}, and not an existing run file"
        )
    who = f"baseline run {m._param_repr(ref)}"
    return baseline_topic_scores(m.base, ref, qrels_irm, who).reindex(topic_list), None


def _evaluate_risk(
    m: RiskMeasure,
    matrix: pd.DataFrame,
    names: list[str],
    default: int | None,
    qrels_irm: pd.DataFrame,
    topic_list: list[str],
) -> dict[str, Any]:
    """Aggregate value(s) and per-topic components of one risk measure for every system."""
    import pandas as pd

    from ..core._trisk import trisk
    from ..core._urisk import risk_weighted_differences, urisk
    from ..core._zrisk import georisk, z_scores, zrisk

    if not m.USES_BASELINE:
        if len(names) < 2:
            raise ValueError(f"{m!r} needs at least two systems (it uses every listed system as a baseline)")
        func = zrisk if m.NAME == "ZRisk" else georisk
        z = z_scores(matrix)
        return {"value": func(matrix, m.alpha).reindex(names), "components": {"z": z}}

    b, base_row = _baseline_vector(m, matrix, names, default, qrels_irm, topic_list)
    x = risk_weighted_differences(matrix.to_numpy(dtype=float), b.to_numpy(dtype=float)[None, :], m.alpha)
    x = pd.DataFrame(x, index=names, columns=topic_list)
    if m.NAME == "URisk":
        values = pd.Series({n: urisk(matrix.loc[n], b, m.alpha) for n in names}, dtype=float)
        return {"value": values, "components": {"": x}}
    if len(topic_list) < 2:
        raise ValueError(f"{m!r} needs at least two topics (it estimates a standard error)")
    vals, pvals = {}, {}
    t_r = pd.DataFrame(np.nan, index=names, columns=topic_list)
    t_j = t_r.copy()
    for i, n in enumerate(names):
        if i == base_row:  # a system against itself: no risk, no test
            vals[n] = pvals[n] = np.nan
            continue
        res = trisk(matrix.loc[n], b, m.alpha, se=m.params.get("se", "parametric"))
        vals[n], pvals[n] = res.trisk, res.p_value
        t_r.loc[n] = _in_topic_order(res.t_r, topic_list)
        t_j.loc[n] = _in_topic_order(res.t_j, topic_list)
    return {
        "value": pd.Series(vals, dtype=float),
        "p_value": pd.Series(pvals, dtype=float),
        "components": {"x": x, "T_R": t_r, "T_J": t_j},
    }


def _in_topic_order(values: Any, topic_list: list[str]) -> np.ndarray:
    """Per-topic values as an array in ``topic_list`` order (Series are aligned by label)."""
    if hasattr(values, "reindex"):
        return values.reindex(topic_list).to_numpy(dtype=float)
    return np.asarray(values, dtype=float)


def _check_round(round_: Any) -> None:
    """``round`` as ``pt.Experiment`` accepts it: an int >= 0, or a dict of ints >= 0 (or None)."""
    if round_ is None:
        return
    values = round_.values() if isinstance(round_, dict) else [round_] if isinstance(round_, int) else None
    if values is None:
        raise ValueError(f"Argument round should be an integer or a dictionary, got {round_!r}")
    for v in values:
        if isinstance(v, bool) or not isinstance(v, int) or v < 0:
            raise ValueError(f"round: number of decimal places must be an integer >= 0, got {v!r}")


def _round(value: float, column: str, round_: int | dict[str, int] | None) -> float:
    # builtins.round, as pt.Experiment's renderer (np.round differs on some halfway cases)
    if isinstance(round_, int):
        return builtins.round(value, round_)
    if isinstance(round_, dict) and column in round_:
        return builtins.round(value, round_[column])
    return value


def _averages(
    pq: pd.DataFrame,
    plain_names: list[str],
    names: list[str],
    topic_list: list[str],
    risk: list[RiskMeasure],
    results: list[dict[str, Any]],
    sys_index: int | None,
    test: Any,
    correction: str | None,
    correction_alpha: float,
    round_: int | dict[str, int] | None,
    dataframe: bool,
    highlight: str | None,
) -> Any:
    """The ordinary table rendered by PyTerrier, with the risk columns appended."""
    from pyterrier._evaluation._rendering import RenderFromPerQuery
    from scipy import stats

    if test == "t":
        test_fn = stats.ttest_rel
    elif test == "wilcoxon":
        test_fn = stats.wilcoxon
    elif callable(test):
        test_fn = test
    else:
        raise ValueError(f"Unknown test function name {test!r}")
    if correction is not None and sys_index is None:
        raise ValueError("Requested multiple testing correction, but no baseline was specified.")

    renderer = RenderFromPerQuery(
        names, baseline=sys_index, test_fn=test_fn, correction=correction,
        correction_alpha=correction_alpha, round=round_, precompute_time=0,
    )  # fmt: skip
    rows = pq[pq["measure"].isin(set(plain_names)) & pq["qid"].isin(set(topic_list))]
    per_system: dict[str, dict[str, dict[str, float]]] = {n: {q: {} for q in topic_list} for n in names}
    for name, qid, measure, value in rows[["name", "qid", "measure", "value"]].itertuples(index=False):
        per_system[name][qid][measure] = value
    for i, n in enumerate(names):
        renderer.add_metrics(i, per_system[n], 0.0)

    risk_cols: dict[str, list[float]] = {}
    for m, res in zip(risk, results, strict=True):
        col = repr(m)
        risk_cols[col] = [_round(float(res["value"][n]), col, round_) for n in names]
        if "p_value" in res:
            pcol = f"{col} p-value"
            # like pt.Experiment, an int `round` leaves p-values alone; a dict may name the column
            p_round = round_ if isinstance(round_, dict) else None
            risk_cols[pcol] = [_round(float(res["p_value"][n]), pcol, p_round) for n in names]

    if not dataframe:
        table = renderer.averages(dataframe=False) if plain_names else {n: {} for n in names}
        for i, n in enumerate(names):
            for col, values in risk_cols.items():
                table[n][col] = values[i]
        return table

    import pandas as pd

    table = renderer.averages(dataframe=True) if plain_names else pd.DataFrame({"name": names})
    for col, values in risk_cols.items():
        table[col] = values
    if highlight in ("bold", "color", "colour"):
        from pyterrier._evaluation import _rendering

        col_type = {}
        for col in table.columns[1:]:
            if col.endswith(("p-value", "reject", "corrected")):
                continue
            col_type[col] = "-" if col.endswith(" -") else "+"
        styler = _rendering._bold_cols if highlight == "bold" else _rendering._color_cols
        return table.style.apply(styler, axis=0, col_type=col_type)
    return table


def _per_query(
    pq: pd.DataFrame,
    plain_names: list[str],
    names: list[str],
    risk: list[RiskMeasure],
    results: list[dict[str, Any]],
    round_: int | dict[str, int] | None,
    dataframe: bool,
) -> Any:
    """PyTerrier's long per-query table with the risk components appended."""
    import pandas as pd

    frames = [pq[pq["measure"].isin(set(plain_names))][["name", "qid", "measure", "value"]]]
    for m, res in zip(risk, results, strict=True):
        for component, matrix in res["components"].items():
            label = f"{m!r} {component}" if component else repr(m)
            wide = matrix.reindex(names).rename_axis(index="name", columns=None).reset_index()
            frame = wide.melt(id_vars="name", var_name="qid", value_name="value").assign(measure=label)
            frames.append(frame[["name", "qid", "measure", "value"]])
    out = pd.concat(frames, ignore_index=True)
    out = out.sort_values(["name", "qid"], kind="stable").reset_index(drop=True)
    if dataframe:
        if isinstance(round_, int):  # exactly as pt.Experiment: builtins.round per value, then pandas
            out["value"] = [builtins.round(v, round_) for v in out["value"]]
            out["value"] = out["value"].round(round_)
        elif isinstance(round_, dict):  # pt.Experiment refuses this; rows are rounded by their measure
            out["value"] = [_round(v, m, round_) for v, m in zip(out["value"], out["measure"], strict=True)]
        return out
    # like pt.Experiment, the nested per-query dict is not rounded
    nested: dict[int, dict[str, dict[str, float]]] = {}
    index = {n: i for i, n in enumerate(names)}
    for name, qid, measure, value in out.itertuples(index=False):
        nested.setdefault(index[name], {}).setdefault(qid, {})[measure] = value
    return nested
