"""``pyterrier_risk.Experiment``: ``pt.Experiment`` that also evaluates risk-sensitive measures.

``pt.Experiment`` evaluates every system on its own and averages per-query values, so it cannot
compute a measure that needs several systems at once (a baseline among the listed systems, an
unbiased MEAN/MEDIAN/MAX baseline, ZRisk, GeoRisk) or that is not a mean (TRisk).  This wrapper:

1. calls ``pt.Experiment`` once, through its public interface, for the per-query values
   (``perquery=True, dataframe=False``) of the ordinary measures plus each risk measure's base
   measure (each base measure is computed once, whatever the number of risk measures on it) and,
   for transformers, ``NumRet`` (to apply the topic policy);
2. builds the ordinary table from those values as ``pt.Experiment`` does (same means, baseline
   columns, significance tests, multiple-testing correction, rounding; :mod:`._render`);
3. adds one column per risk measure, named by its ``repr`` (TRisk also adds ``"<repr> p-value"``),
   computed from the systems × topics matrix of the base measure by the numeric core.

Without risk measures it simply calls ``pt.Experiment`` (measure names it cannot read, such as
``"nDCG@10"``, are parsed by :func:`pyterrier_risk.parse_measure` first). Either way, result frames are
first held to the run policy of :func:`pyterrier_risk.read_run`, and the run-time measures' columns are
put in the order asked (:mod:`._order`).
"""

from __future__ import annotations

import os
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, Literal, cast, overload

import numpy as np

from ..core import qrels_topics, topic_set
from ..measures import AGGREGATE_BASELINES, RiskMeasure, check_evaluation, parse_measure, trec_measures
from ._compat import AssertedValueError, NotAFrameError, TypedValueError, UnknownMeasureError
from ._order import in_measure_order, measure_permutation
from ._render import PerQuery, RiskResult, TableOptions, Tables, check_round, render, test_function
from ._riskeval import RiskTest, check_risk_measures, resolve_system_index, unique
from ._riskeval import evaluate_risk as _evaluate_risk
from ._saved import saved_tables, write_saved_tables

if TYPE_CHECKING:
    import pandas as pd
    from ir_measures import Measure

__all__ = ["Experiment", "RiskResult"]


# -- measures --------------------------------------------------------------------------------------
@dataclass(frozen=True)
class MeasureRequest:
    """The ``eval_metrics`` of one call, sorted out.

    Attributes:
        ordinary: the ordinary measures as ``pt.Experiment`` takes them: trec_eval names it reads
            stay strings (so that its columns keep the user's spelling, ``"map"``); other names are
            parsed by :func:`pyterrier_risk.parse_measure`.
        risk: the risk measures, each once, in the order given.
        mrt: whether ``"mrt"`` (mean response time) was asked for.
    """

    ordinary: list[Any]
    risk: list[RiskMeasure]
    mrt: bool


def _split_measures(eval_metrics: Sequence[Any]) -> MeasureRequest:
    """Sort the measures out; bad ones raise what ``pt.Experiment`` raises (with a clearer message)."""
    from ir_measures import Measure

    if isinstance(eval_metrics, (str, bytes)):  # pt.Experiment: ValueError (it reads each character)
        raise ValueError(f"eval_metrics must be a list of measures, not the string {eval_metrics!r}: "
                         f"write [{eval_metrics!r}]")
    try:
        items = list(eval_metrics)
    except TypeError:
        raise TypeError("eval_metrics must be a list of measures, e.g. [nDCG@20, URisk(nDCG@20, baseline=0)]"
                        f", got {type(eval_metrics).__name__}") from None
    ordinary: list[Any] = []
    risk: list[RiskMeasure] = []
    mrt = False
    for m in items:
        if not isinstance(m, (str, Measure)):  # pt.Experiment: KeyError
            raise UnknownMeasureError(f"Unknown measure {m!r} of type {type(m).__name__}: give ir_measures "
                                      "measures (nDCG@10) or their names ('nDCG@10')")
        if isinstance(m, str):
            if m == "mrt":
                mrt = True
                continue
            m = m if trec_measures(m) is not None else parse_measure(m)
        if isinstance(m, RiskMeasure):
            m.base  # noqa: B018 - raises a clear error when the base measure is missing
            if m not in risk:
                risk.append(m)
        else:
            ordinary.append(m)
    return MeasureRequest(ordinary, risk, mrt)


def _reported_names(ordinary: Sequence[Any]) -> dict[Measure, str]:
    """Measure -> the name ``pt.Experiment`` reports it under.

    A trec_eval name that stands for one measure keeps the caller's spelling (``"map"`` for AP);
    every other measure is named by its ``repr``.
    """
    from ir_measures import Measure

    named: dict[Measure, str] = {}
    spelled: dict[Measure, str] = {}
    for m in ordinary:
        if isinstance(m, Measure):
            named[m] = str(m)
            continue
        found = trec_measures(m) or []
        for one in found:
            named[one] = str(one)
        if len(found) == 1:
            spelled[found[0]] = m
    return {m: spelled.get(m, name) for m, name in named.items()}


def _runtime_order(request: MeasureRequest) -> list[str]:
    """The names of the ordinary measures ir_measures computes at run time (UE, ...), in the order asked.

    ir_measures yields their values in the order of a ``set`` (:mod:`._order`); the tables put them
    back in this order.
    """
    reported = _reported_names(request.ordinary)
    return [reported[m] for m in request.ordinary if not isinstance(m, str) and hasattr(m, "runtime_impl")]


# -- systems, topics, baselines ----------------------------------------------------------------------
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


def _systems(
    retr_systems: Any, names: Sequence[str] | None, distinct: bool = True
) -> tuple[list[str], list[Any]]:
    """System names and systems, as ``pt.Experiment`` pairs them; names must be unique if ``distinct``."""
    if isinstance(retr_systems, dict):
        names, systems = list(retr_systems.keys()), list(retr_systems.values())
    elif isinstance(retr_systems, list):
        systems = list(retr_systems)
        names = [str(s) for s in systems] if names is None else list(names)
        if len(names) != len(systems):
            raise ValueError("names should be the same length as retr_systems")
    else:
        raise TypeError(
            f"Expected list or dict of transformers for retr_systems, instead received {type(retr_systems)}"
        )
    if distinct and len(set(names)) != len(names):
        raise ValueError(f"risk measures need unique system names; got {names} (use names=)")
    if not systems:
        raise AssertedValueError("no systems given")
    return names, systems


def _check_frame(value: Any, what: str) -> Any:
    """``value`` if it is a frame or a file name, else a one-line error of ``pt.Experiment``'s types.

    ``pt.Experiment`` raises ``TypeError`` (topics) or ``AttributeError`` (qrels) there, by accident.
    """
    import pandas as pd

    if isinstance(value, (pd.DataFrame, str, os.PathLike)):
        return value
    raise NotAFrameError(f"{what} must be a DataFrame, a file or an 'irds:' id, got {type(value).__name__}")


def _topic_set(topics: Any, qrels: Any, filter_by_topics: bool) -> tuple[Any, pd.DataFrame, list[str]]:
    """Topics and qrels read as ``pt.Experiment`` reads them, and the qrels topics (the topic set)."""
    import pyterrier as pt

    if isinstance(topics, str) and os.path.isfile(topics):
        topics = pt.io.read_topics(topics)
    if isinstance(qrels, str) and os.path.isfile(qrels):
        qrels = pt.io.read_qrels(qrels)
    if filter_by_topics:
        qrels = qrels.merge(topics[["qid"]].drop_duplicates())
    topic_list = qrels_topics(qrels["qid"])
    if not topic_list:
        raise ValueError("there is no overlap between the qids of the topics and of the qrels")
    return topics, qrels, topic_list


# -- evaluation ------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Evaluation(PerQuery):
    """The per-query values ``pt.Experiment`` returned, and the matrices taken from them.

    Attributes:
        matrices: systems × topics matrix of each base measure (and NumRet), by ``repr``.
    """

    matrices: dict[str, pd.DataFrame] = field(repr=False)


def _run_pt_experiment(
    names: list[str], systems: list[Any], topics: Any, qrels: pd.DataFrame, measures: list[Any],
    averages_only: bool, kwargs: dict[str, Any],
) -> dict[int, dict[Any, dict[str, float]]]:  # fmt: skip
    """``pt.Experiment``'s per-query values of ``measures`` (its public ``perquery=True`` output)."""
    import pyterrier as pt

    kwargs = dict(kwargs)
    if averages_only and kwargs.get("save_dir") is None:
        # topics without qrels count for nothing in averages; not running them spares PyTerrier's
        # warning about their NaN per-query placeholders, which would not be in the output
        kwargs["filter_by_qrels"] = True
    systems_by_name = dict(zip(names, systems, strict=True))
    # keyed by system position (pt.Experiment's hint says str keys)
    per_query = pt.Experiment(systems_by_name, topics, qrels, measures, perquery=True, dataframe=False,
                              **kwargs)
    return cast("dict[int, dict[Any, dict[str, float]]]", per_query)


def _evaluate(
    names: list[str], systems: list[Any], topics: Any, qrels: pd.DataFrame, topic_list: list[str],
    request: MeasureRequest, averages_only: bool, kwargs: dict[str, Any],
) -> Evaluation:  # fmt: skip
    """One ``pt.Experiment`` call for the ordinary measures, the base measures and (transformers) NumRet."""
    import ir_measures

    bases = unique([m.base for m in request.risk])
    frames_only = all(hasattr(system, "columns") for system in systems)
    needed = bases if frames_only else unique([*bases, ir_measures.NumRet])
    reported = _reported_names(request.ordinary)
    extra = [b for b in needed if b not in reported]
    column = {repr(b): reported.get(b, str(b)) for b in needed}
    per_query = _run_pt_experiment(
        names, systems, topics, qrels, [*request.ordinary, *extra], averages_only, kwargs
    )
    hidden = {column[repr(b)] for b in extra}
    first = next(iter(per_query[0].values()), {})
    ordinary = [name for name in first if name not in hidden]
    swap = measure_permutation(ordinary, _runtime_order(request))
    ordinary = [swap.get(name, name) for name in ordinary]  # not in the hash order of ir_measures' set
    matrices = {repr(b): _matrix(per_query, names, column[repr(b)], topic_list) for b in needed}
    return Evaluation(names, per_query, ordinary, topic_list, matrices)


def _matrix(
    per_query: dict[int, dict[Any, dict[str, float]]], names: list[str], measure: str, topic_list: list[str]
) -> pd.DataFrame:
    """Systems × topics matrix of one measure's per-query values."""
    import pandas as pd

    rows = {}
    for i, name in enumerate(names):
        values = {str(qid): row[measure] for qid, row in per_query[i].items() if measure in row}
        rows[name] = [values.get(q, np.nan) for q in topic_list]
    matrix = pd.DataFrame.from_dict(rows, orient="index", columns=topic_list)
    if matrix.isna().all().all():
        raise RuntimeError(f"pt.Experiment returned no per-query values for {measure!r}")
    return matrix.fillna(0.0)  # not for qrels topics: ir_measures gives them values


def _warn_for_frames(names: list[str], systems: list[Any], topic_list: list[str]) -> None:
    """The topic policy's warnings for result frames, which are inspected directly."""
    returned = {
        f"system {name!r}": system["qid"].astype(str).unique()
        for name, system in zip(names, systems, strict=True)
        if hasattr(system, "columns") and "qid" in system.columns
    }
    if returned:
        topic_set(topic_list, returned, stacklevel=3)


def _warn_for_transformers(evaluation: Evaluation, systems: list[Any]) -> None:
    """The topic policy's warnings for transformers: a topic with NumRet 0 got no results."""
    import ir_measures

    numret = evaluation.matrices.get(repr(ir_measures.NumRet))
    if numret is None:
        return
    returned = {
        f"system {name!r}": [q for q in evaluation.topic_list if numret.loc[name, q] > 0]
        for name, system in zip(evaluation.names, systems, strict=True)
        if not hasattr(system, "columns")
    }
    if returned:
        topic_set(evaluation.topic_list, returned, stacklevel=3)


# -- the function ------------------------------------------------------------------------------------
# pt.Experiment's overloads: the type of the result follows perquery and dataframe
@overload
def Experiment(
    retr_systems: Sequence[Any] | dict[str, Any], topics: pd.DataFrame | str, qrels: pd.DataFrame | str,
    eval_metrics: Sequence[Any], names: Sequence[str] | None = None, perquery: Literal[False, True] = False,
    dataframe: Literal[True] = True, batch_size: int | None = None, filter_by_qrels: bool = False,
    filter_by_topics: bool = True, baseline: int | str | None = None, test: str | Callable[..., Any] = "t",
    correction: str | None = None, correction_alpha: float = 0.05, highlight: str | None = None,
    round: int | dict[str, int] | None = None, verbose: bool | str = "auto", validate: str = "warn",
    save_dir: str | None = None, save_mode: str = "warn", save_format: Any = "trec",
    precompute_prefix: bool = False, plan: str = "linear", risk_test: str = "t", risk_resamples: int = 10000,
    risk_seed: int = 0, risk_null: Literal["symmetric", "exchangeable"] | None = None,
    risk_sd: Literal["sample", "population"] = "sample", **kwargs: Any,
) -> pd.DataFrame: ...


@overload
def Experiment(
    retr_systems: Sequence[Any] | dict[str, Any], topics: pd.DataFrame | str, qrels: pd.DataFrame | str,
    eval_metrics: Sequence[Any], names: Sequence[str] | None = None, perquery: Literal[False, True] = False,
    dataframe: Literal[False] = False, batch_size: int | None = None, filter_by_qrels: bool = False,
    filter_by_topics: bool = True, baseline: int | str | None = None, test: str | Callable[..., Any] = "t",
    correction: str | None = None, correction_alpha: float = 0.05, highlight: str | None = None,
    round: int | dict[str, int] | None = None, verbose: bool | str = "auto", validate: str = "warn",
    save_dir: str | None = None, save_mode: str = "warn", save_format: Any = "trec",
    precompute_prefix: bool = False, plan: str = "linear", risk_test: str = "t", risk_resamples: int = 10000,
    risk_seed: int = 0, risk_null: Literal["symmetric", "exchangeable"] | None = None,
    risk_sd: Literal["sample", "population"] = "sample", **kwargs: Any,
) -> dict[Any, Any]: ...


@overload
def Experiment(
    retr_systems: Sequence[Any] | dict[str, Any], topics: pd.DataFrame | str, qrels: pd.DataFrame | str,
    eval_metrics: Sequence[Any], names: Sequence[str] | None = None, perquery: Literal["both"] = "both",
    dataframe: Literal[True] = True, batch_size: int | None = None, filter_by_qrels: bool = False,
    filter_by_topics: bool = True, baseline: int | str | None = None, test: str | Callable[..., Any] = "t",
    correction: str | None = None, correction_alpha: float = 0.05, highlight: str | None = None,
    round: int | dict[str, int] | None = None, verbose: bool | str = "auto", validate: str = "warn",
    save_dir: str | None = None, save_mode: str = "warn", save_format: Any = "trec",
    precompute_prefix: bool = False, plan: str = "linear", risk_test: str = "t", risk_resamples: int = 10000,
    risk_seed: int = 0, risk_null: Literal["symmetric", "exchangeable"] | None = None,
    risk_sd: Literal["sample", "population"] = "sample", **kwargs: Any,
) -> tuple[pd.DataFrame, pd.DataFrame]: ...


@overload
def Experiment(
    retr_systems: Sequence[Any] | dict[str, Any], topics: pd.DataFrame | str, qrels: pd.DataFrame | str,
    eval_metrics: Sequence[Any], names: Sequence[str] | None = None, perquery: Literal["both"] = "both",
    dataframe: Literal[False] = False, batch_size: int | None = None, filter_by_qrels: bool = False,
    filter_by_topics: bool = True, baseline: int | str | None = None, test: str | Callable[..., Any] = "t",
    correction: str | None = None, correction_alpha: float = 0.05, highlight: str | None = None,
    round: int | dict[str, int] | None = None, verbose: bool | str = "auto", validate: str = "warn",
    save_dir: str | None = None, save_mode: str = "warn", save_format: Any = "trec",
    precompute_prefix: bool = False, plan: str = "linear", risk_test: str = "t", risk_resamples: int = 10000,
    risk_seed: int = 0, risk_null: Literal["symmetric", "exchangeable"] | None = None,
    risk_sd: Literal["sample", "population"] = "sample", **kwargs: Any,
) -> tuple[dict[Any, Any], dict[Any, Any]]: ...


def Experiment(  # noqa: N802 - mirrors pt.Experiment
    retr_systems: Sequence[Any] | dict[str, Any],
    topics: pd.DataFrame | str,
    qrels: pd.DataFrame | str,
    eval_metrics: Sequence[Any],
    names: Sequence[str] | None = None,
    perquery: bool | Literal["both"] = False,
    dataframe: bool = True,
    batch_size: int | None = None,
    filter_by_qrels: bool = False,
    filter_by_topics: bool = True,
    baseline: int | str | None = None,
    test: str | Callable[..., Any] = "t",
    correction: str | None = None,
    correction_alpha: float = 0.05,
    highlight: str | None = None,
    round: int | dict[str, int] | None = None,  # noqa: A002 - pt.Experiment's argument name
    verbose: bool | str = "auto",
    validate: str = "warn",
    save_dir: str | None = None,
    save_mode: str = "warn",
    save_format: Any = "trec",
    precompute_prefix: bool = False,
    plan: str = "linear",
    risk_test: str = "t",
    risk_resamples: int = 10000,
    risk_seed: int = 0,
    risk_null: Literal["symmetric", "exchangeable"] | None = None,
    risk_sd: Literal["sample", "population"] = "sample",
    **kwargs: Any,
) -> Any:
    r"""Run and evaluate systems like ``pt.Experiment``, also accepting risk-sensitive measures.

    All arguments and return values are those of ``pt.Experiment``; its parameters are listed here
    with its defaults (``batch_size`` to ``plan``) and passed through unchanged, and a bad
    argument raises the exception type ``pt.Experiment`` raises.  In addition:

    * ``eval_metrics`` may contain :class:`~pyterrier_risk.URisk`, :class:`~pyterrier_risk.TRisk`,
      :class:`~pyterrier_risk.ZRisk` and :class:`~pyterrier_risk.GeoRisk` measures (objects or
      names such as ``"URisk(nDCG@20,alpha=5,baseline='BM25')"``).  Each adds one column named by
      the measure's ``repr``; TRisk also adds ``"<repr> p-value"`` (two-sided, Student's t with
      c − 1 degrees of freedom, or a randomization test: ``risk_test``).  A URisk/TRisk measure
      without its own ``baseline`` uses this function's ``baseline``.
    * ``correction`` also corrects the TRisk p-values across systems (one family per TRisk
      column), adding ``"<repr> reject"`` and ``"<repr> p-value corrected"`` after
      ``"<repr> p-value"``, as ``pt.Experiment`` does for the ordinary measures; it needs
      ``baseline`` only when there is no TRisk measure.
    * any measure may be given by name, as :func:`pyterrier_risk.parse_measure` reads it:
      ir_measures names (``"nDCG@10"``, ``"P(rel=2)@10"``), trec_eval names (``"ndcg_cut_10"``,
      ``"map"``: their columns keep that spelling, as in ``pt.Experiment``), ``"UE(nDCG@10)"``,
      ``"TRisk(ndcg_cut_10,alpha=5)"``. A name no parser knows is a ``ValueError`` naming it.
    * measures and qrels that would crash an evaluator (a cutoff of 0 as in ``nDCG@0``, a
      non-finite parameter, a qrels topic with only labels below -1, ERR on non-numeric topic ids)
      are a ``ValueError`` before anything runs, instead of an abort of the whole process.
    * a risk measure's ``baseline`` is a listed system's name or index, ``'mean'``, ``'median'`` or
      ``'max'`` over the listed systems (or over ``pool=``, a subset of names/indices; Dinçer et
      al., ECIR 2014), or an external run: a DataFrame or a TREC run file.  A string is looked up
      in that order: system name, aggregate, existing file.
    * ``topics`` and ``qrels`` may be ``'irds:<id>'`` strings (PyTerrier's ``pt.get_dataset``).
    * ``baseline`` may be a system name even when ``retr_systems`` is a list (``names`` given), and
      it may be combined with ``perquery``.
    * result frames are held to :func:`pyterrier_risk.read_run`'s run policy: a NaN score or a
      (qid, docno) pair listed twice is a ``ValueError`` naming the system, the topic and the
      document (an evaluator would count the document twice), as it is for a run file.
    * measures that ir_measures computes at run time (``UE``) come in the order given, whatever
      ``PYTHONHASHSEED`` (ir_measures returns them in a ``set``'s order).

    Topic policy (as ``trec_eval -c``): the qrels' topics define the topic set; a system or
    baseline without results for a topic scores 0 there, with a warning giving the count; results
    for topics outside the qrels are ignored (warned about for result DataFrames and baseline runs).
    When only averages are asked for (and no ``save_dir``), topics without qrels are not run.

    ``perquery=True`` returns PyTerrier's long table (``name``, ``qid``, ``measure``, ``value``)
    with extra rows per risk measure ``r`` (see docs/experiment.md):

    * URisk: measure ``"<r>"``, the per-topic term :math:`x_i` (its mean over topics is URisk);
    * TRisk: ``"<r> x"``, ``"<r> T_R"`` and ``"<r> T_J"`` (2014 eqs. 11, 21 and the jackknife
      T_J; NaN for the baseline system itself), and each topic's two-sided p-value of ``T_R`` and
      ``T_J``, ``"<r> T_R p-value"`` and ``"<r> T_J p-value"`` (Student's t with c − 1 degrees of
      freedom, :func:`pyterrier_risk.topic_p_values`, as ``pyterrier-risk eval --perquery``;
      with ``correction``, also ``"... p-value corrected"`` across each system's topics);
    * ZRisk and GeoRisk: ``"<r> z"``, the standardised residual :math:`z_{ij}` (2016 eq. 5); ZRisk
      is :math:`\sum z^+ + (1+\alpha)\sum z^-` over a system's rows.

    Args:
        retr_systems: transformers and/or result DataFrames, as a list or a ``{name: system}`` dict.
        topics: topics DataFrame, topics file, or ``'irds:<id>'``.
        qrels: qrels DataFrame, qrels file, or ``'irds:<id>'``.
        eval_metrics: measures (ir_measures objects, names, risk measures).
        names: system names (ignored for a dict of systems).
        perquery: ``False``, ``True`` or ``'both'`` as in ``pt.Experiment``.
        dataframe: return DataFrames (default) or dicts.
        batch_size: topics per batch given to each transformer (``pt.Experiment``).
        filter_by_qrels: leave out topics without qrels (``pt.Experiment``).
        filter_by_topics: leave out qrels of topics not in ``topics`` (``pt.Experiment``).
        baseline: index or name of the system used for the significance columns of the ordinary
            measures, and the default baseline of URisk/TRisk measures. An int is a name when the
            systems are named by ints (a dict ``{2013: run, 2014: run}``) and one is that int, else a
            position (as in ``pt.Experiment``); an int naming one system and the position of another is
            refused as ambiguous (give the name as a string).
        test: significance test (``'t'``, ``'wilcoxon'`` or a callable), as in ``pt.Experiment``.
        correction: multiple-testing correction of the ordinary measures' p-values across systems,
            a method of :func:`pyterrier_risk.core.adjust_p_values` (statsmodels' names and
            aliases: ``'bonferroni'``, ``'holm'``, ``'hs'``, ``'fdr_bh'``, ...); a NaN p-value is
            left out of the family.
        correction_alpha: family-wise error rate for ``correction``.
        highlight: ``'bold'`` or ``'color'`` to style the best value of each column.
        round: decimal places, an int or ``{column: int}`` (risk columns by their ``repr``).
        verbose: progress bars (``pt.Experiment``: ``'auto'``, True or False).
        validate: check each transformer's output columns against the measures: ``'warn'``,
            ``'error'`` or ``'ignore'`` (``pt.Experiment``).
        save_dir: folder to save (and reuse) each system's results and the summary tables in
            (``pt.Experiment``; the tables here carry the risk columns too).
        save_mode: ``'warn'``, ``'error'``, ``'reuse'`` or ``'overwrite'`` for existing saved
            results (``pt.Experiment``).
        save_format: format of saved results (``pt.Experiment``).
        precompute_prefix: deprecated in ``pt.Experiment``; use ``plan='tree'``.
        plan: ``'linear'`` or ``'tree'`` execution of the systems (``pt.Experiment``).
        risk_test: the test of TRisk's p-value: ``'t'`` (Student's t, Dinçer et al. 2014) or
            ``'randomization'`` (paired sign flips, :func:`pyterrier_risk.randomization_test` with
            the studentised statistic, seeded: the same call gives the same p-values).
        risk_resamples: random sign assignments of the randomization test (all ``2**c`` of them
            when that is not more).
        risk_seed: seed of the randomization test.
        risk_null: the randomization test's null: ``'symmetric'`` (TRisk's own, URisk = 0) or
            ``'exchangeable'`` (system and baseline exchangeable on every topic); None: the package's
            one default (``'symmetric'``, also ``eval --null``'s and ``compare_systems``'); see
            :func:`pyterrier_risk.randomization_test`.
        risk_sd: the standard deviation :math:`s_x` of TRisk, its per-topic ``T_R``/``T_J`` and
            their p-values alike: ``'sample'`` (divides by c − 1, the default: Dinçer et al. 2014's
            t-test, ``scipy.stats.ttest_rel`` at α = 0) or ``'population'`` (divides by c, as
            rmit-ir/trisk; every t value is ``'sample'``'s times √(c/(c−1))): ``trisk(sd=...)``.
        **kwargs: anything else ``pt.Experiment`` takes (it refuses unknown arguments).

    Returns:
        As ``pt.Experiment``: the averages table (DataFrame or dict), the per-query table, or both.

    Raises:
        ValueError: unknown baseline or pool member, fewer than two systems for ZRisk/GeoRisk,
            duplicate system names with risk measures, an unknown ``irds:`` id or measure name, ...
        TypeError: a baseline name when ``retr_systems`` is a list without ``names``, an
            ``eval_metrics`` item that is neither a measure nor a name (also a ``KeyError``, as in
            ``pt.Experiment``), an unknown argument.
    """
    import pyterrier as pt

    kwargs = {**_passed_through(locals()), **kwargs}
    topics = _check_frame(_load_irds(topics, "topics"), "topics")
    qrels = _check_frame(_load_irds(qrels, "qrels"), "qrels")
    request = _split_measures(eval_metrics)
    risk_options = RiskTest(risk_test, risk_resamples, risk_seed, risk_null,
                            topic_p_values=perquery is not False, topic_correction=correction,
                            topic_sd=risk_sd)
    qrels = _check_evaluation(request, topics, qrels, filter_by_topics)
    _check_run_frames(retr_systems, names, request.risk)
    named = isinstance(retr_systems, dict) or names is not None
    if not request.risk:
        by_int = named and isinstance(baseline, (int, np.integer)) and not isinstance(baseline, bool)
        if by_int or isinstance(baseline, str):  # one rule for names and positions (resolve_system_index)
            baseline = _baseline_index(baseline, _systems(retr_systems, names, distinct=False)[0], named)
        experiment: Callable[..., Any] = pt.Experiment  # our overloads above type the result it passes on
        result = experiment(
            retr_systems, topics, qrels, [*request.ordinary, *(["mrt"] if request.mrt else [])], names=names,
            perquery=perquery, dataframe=dataframe, baseline=baseline, test=test, correction=correction,
            correction_alpha=correction_alpha, highlight=highlight, round=round, **kwargs,
        )  # fmt: skip
        return in_measure_order(result, _runtime_order(request), highlight)
    names, systems = _systems(retr_systems, names)
    _check_named_baselines(request.risk, names, named)
    options = TableOptions(
        baseline=_baseline_index(baseline, names, named), test=_like_pt(test_function, test),
        correction=correction, correction_alpha=correction_alpha, round=_like_pt(check_round, round),
        highlight=highlight,
    )  # fmt: skip
    if request.mrt:
        warnings.warn("'mrt' is not reported when risk measures are evaluated", stacklevel=2)
    tables = _risk_experiment(names, systems, topics, qrels, request, options, risk_options,
                              perquery is False, kwargs)
    return render(tables, options, perquery, dataframe)


#: the parameters of ``pt.Experiment`` that this function only passes on
_PASSED_THROUGH = ("batch_size", "filter_by_qrels", "filter_by_topics", "verbose", "validate", "save_dir",
                   "save_mode", "save_format", "precompute_prefix", "plan")


def _passed_through(arguments: dict[str, Any]) -> dict[str, Any]:
    """The pass-through arguments that differ from their defaults (in the signature: one source).

    Only those are handed on, so that a PyTerrier without one of them (or with another default)
    gets what it would get from a call that leaves it out.
    """
    import inspect

    defaults = {k: p.default for k, p in inspect.signature(Experiment).parameters.items()}

    def is_default(k: str) -> bool:
        return type(arguments[k]) is type(defaults[k]) and bool(arguments[k] == defaults[k])

    return {k: arguments[k] for k in _PASSED_THROUGH if not is_default(k)}


def _like_pt(check: Callable[[Any], Any], value: Any) -> Any:
    """``check(value)``; a ValueError where ``pt.Experiment`` asserts becomes an :class:`AssertedValueError`.

    ``pt.Experiment`` asserts on an unknown test name, a negative ``round`` or a bad value in a
    ``round`` dict; it raises a ValueError for a ``round`` that is neither an int nor a dict.
    """
    try:
        return check(value)
    except ValueError as e:
        if check is check_round and not isinstance(value, (int, dict)):
            raise
        raise AssertedValueError(str(e)) from None


def _baseline_index(baseline: Any, names: list[str], named: bool) -> int | None:
    """The index of ``baseline``, refused as ``pt.Experiment`` refuses it (TypeError, AssertionError)."""
    if baseline is None:
        return None
    if isinstance(baseline, str) and not named:  # pt.Experiment: TypeError
        raise TypeError(f"baseline {baseline!r} is a name, but the systems are a list without names=: "
                        "give names=[...] (one per system) or a dict {name: system}")
    try:
        return resolve_system_index(baseline, names, "baseline")
    except ValueError as e:
        raise (TypedValueError if isinstance(baseline, str) else AssertedValueError)(str(e)) from None


def _check_run_frames(retr_systems: Any, names: Sequence[Any] | None, risk: list[RiskMeasure]) -> None:
    """The run policy (:func:`pyterrier_risk.core.check_run_frame`) for result frames, before anything runs.

    Systems given as DataFrames and risk measures' baseline runs given as DataFrames: a NaN score or a
    (qid, docno) pair listed twice is refused as :func:`pyterrier_risk.read_run` refuses it in a file.
    (A transformer's results are ``pt.Experiment``'s to check.)
    """
    from ..core import check_run_frame

    if isinstance(retr_systems, dict):
        labelled = list(retr_systems.items())
    elif isinstance(retr_systems, list):
        labels = list(names) if names is not None and len(names) == len(retr_systems) else None
        labelled = [(labels[i] if labels else i, system) for i, system in enumerate(retr_systems)]
    else:
        return  # _systems names the problem
    for label, system in labelled:
        if hasattr(system, "columns"):
            check_run_frame(system, f"system {label!r}")
    for m in risk:
        if m.USES_BASELINE and hasattr(m.baseline, "columns"):
            check_run_frame(m.baseline, f"the baseline run of {m!r}")


def _check_named_baselines(risk: list[RiskMeasure], names: list[str], named: bool) -> None:
    """A risk measure's baseline name with systems given as a list without ``names=``: a one-line error.

    Without names the systems are named by ``str(system)`` (as ``pt.Experiment`` names them), which
    for a result frame is the whole frame: no name can match, and listing them helps nobody.
    """
    if named:
        return
    for m in risk:
        ref = m.params.get("baseline") if m.USES_BASELINE else None
        pool = [p for p in m.params.get("pool") or () if isinstance(p, str) and p not in names]
        known = (*names, *AGGREGATE_BASELINES)
        unknown = isinstance(ref, str) and ref not in known and not os.path.isfile(ref)
        if unknown or pool:
            what = f"baseline {ref!r}" if not pool else f"pool member {pool[0]!r}"
            raise ValueError(f"{m!r}: {what} names no system: the systems are a list without "
                             "names=; give names=[...] (one per system) or a dict {name: system}")


def _check_evaluation(request: MeasureRequest, topics: Any, qrels: Any, filter_by_topics: bool) -> Any:
    """Refuse measures and qrels that would crash an evaluator (:mod:`..measures._checks`); the qrels read.

    A qrels file is read here (as ``pt.Experiment`` reads it) so that it is read once.
    """
    import pyterrier as pt

    measures: list[Measure] = [*request.risk]
    for m in request.ordinary:
        measures += (trec_measures(m) or []) if isinstance(m, str) else [m]
    if isinstance(qrels, str) and os.path.isfile(qrels):
        qrels = pt.io.read_qrels(qrels)
    judged = qrels
    if filter_by_topics and hasattr(topics, "columns") and "qid" in topics.columns and "qid" in qrels.columns:
        judged = qrels[qrels["qid"].astype(str).isin(set(topics["qid"].astype(str)))]
    check_evaluation(measures, judged)
    return qrels


def _risk_experiment(
    names: list[str], systems: list[Any], topics: Any, qrels: Any, request: MeasureRequest,
    options: TableOptions, risk_test: RiskTest, averages_only: bool, kwargs: dict[str, Any],
) -> Tables:  # fmt: skip
    """Evaluate the ordinary and the risk measures (the checks first); keep ``save_dir``'s tables right."""
    import pyterrier as pt

    tested = any(m.NAME == "TRisk" for m in request.risk)
    if options.correction is not None and options.baseline is None and not tested:
        raise ValueError("Requested multiple testing correction, but no baseline was specified.")
    topics, qrels, topic_list = _topic_set(topics, qrels, kwargs.get("filter_by_topics", True))
    _warn_for_frames(names, systems, topic_list)
    baselines = check_risk_measures(request.risk, names, options.baseline, len(topic_list))
    save_dir = kwargs.get("save_dir")
    with saved_tables(save_dir) as earlier:
        evaluation = _evaluate(names, systems, topics, qrels, topic_list, request, averages_only, kwargs)
        _warn_for_transformers(evaluation, systems)
        qrels_irm = pt.model.to_ir_measures(qrels)
        results = [
            _evaluate_risk(m, evaluation.matrices[repr(m.base)], baselines.get(m), qrels_irm, risk_test)
            for m in request.risk
        ]
        tables = Tables(names, evaluation.per_query, evaluation.ordinary, topic_list, results)
        if save_dir is not None:
            unrounded = replace(options, round=None, highlight=None)
            saved = render(tables, unrounded, "both", True)
            write_saved_tables(save_dir, names, earlier, saved.averages, saved.perquery)
    return tables
