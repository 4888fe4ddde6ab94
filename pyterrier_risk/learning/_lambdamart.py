"""Risk-sensitive LambdaMART as a PyTerrier estimator (LightGBM underneath).

:class:`RiskLambdaMART` is a re-ranker: it reads the ``features`` column of a result frame
(built, e.g., by a feature union ``**`` or ``pt.apply.doc_features``) and writes ``score`` and
``rank``. Training uses LightGBM's LambdaMART with one of the risk-sensitive objectives of
:func:`pyterrier_risk.objective`:

* ``'urisk'`` -- U-CRO (Wang et al., SIGIR 2012, §4.3): ΔM' = ΔT, T = max(0, M_m − M_b) −
  (1+α)·max(0, M_b − M_m);
* ``'tsaro'`` / ``'tfaro'`` -- T-SARO / T-FARO (Dinçer et al., SIGIR 2014, §6.3):
  α' = α·[1 − Φ(T_R,i)];
* ``'tfaro_star'`` -- T*-FARO (Dinçer et al., SIGIR 2016, §6): T-FARO against the per-query mean
  of several baselines;
* ``'georisk'`` -- GeoRisk (SIGIR 2016, §6): ΔM' = GeoRisk(M_m + ΔM) − GeoRisk(M_m);
* ``'lambdarank'`` -- plain LambdaMART (the same model as LightGBM's native objective).

The saved model is a directory holding LightGBM's text model (``model.txt``), a JSON file
with the constructor parameters (``risk_lambdamart.json``) and PyTerrier's artifact metadata
(``pt_meta.json``): it loads with ``pt.Artifact.load`` and packages with ``build_package`` /
``to_hf``; see ``docs/lambdamart.md``. The estimator's frames are checked in :mod:`._frames`, its
folder is written and read in :mod:`._persistence`, its progress bar is :mod:`._progress`.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pyterrier as pt

from ..core import check_alpha
from ._frames import BaselineSpec, baseline_column, labelled, scoring_input
from ._lightgbm_params import CONSTRUCTOR_ALIASES, LAMBDARANK_PARAMS, THREAD_ALIASES
from ._ndcg import STOPPING_MEASURES, TIE_RULES, letor_feval, untied_scores
from ._objective import check_objective_options
from ._options import INT32_MAX, check_count, check_flag
from ._persistence import (
    ARTIFACT_FORMAT,
    ARTIFACT_PACKAGE_HINT,
    ARTIFACT_TYPE,
    OBJECTIVE_MODULE,
    artifact_metadata,  # noqa: F401 - named here by the entry points of installs from before 0.3
    import_objective,
    objective_module,
    read_booster,
    read_meta,
    save_model,
    spec_to_json,
)
from ._progress import Progress
from .objectives import DEFAULT_OBJECTIVES, get_objective

__all__ = ["RiskLambdaMART", "load_artifact"]


class RiskLambdaMART(pt.Estimator, pt.Artifact):
    """Risk-sensitive LambdaMART re-ranker: a PyTerrier transformer and estimator.

    Composes as ``retriever >> features >> RiskLambdaMART(...)``; ``fit`` trains a LightGBM
    booster with the risk-sensitive objective ``objective``, ``transform`` scores the
    ``features`` column. Every objective trades the per-query effectiveness M_m of the learned
    model (NDCG@``cutoff``) against that of one or several baseline rankings of the same
    candidates. With U-CRO (Wang et al., SIGIR 2012, §4.3.2), a swap that changes the model's
    NDCG by ΔM counts by the change ΔT of the query's URisk summand,

        T = max(0, M_m − M_b) − (1 + α) · max(0, M_b − M_m),

    i.e. ΔM·(1 + α) while the query stays below its baseline M_b, ΔM while it stays above, and
    the split of the two for a swap crossing it (all cases of their Theorem 1). With GeoRisk
    (Dinçer, Macdonald & Ounis, SIGIR 2016, Eq. 7 and §6) it counts as
    ΔM' = GeoRisk(M_m + ΔM) − GeoRisk(M_m), GeoRisk = sqrt(S_i/c · Φ(ZRisk_i/c)).

    A baseline is given by one of:

    * ``'score'``: the input's ``score`` column, i.e. the first-stage ranking (the natural
      baseline of a re-ranker);
    * an ``int``: a feature index into the ``features`` arrays (e.g. BM25);
    * any other ``str``: a numeric column of the input frame;
    * a ``pt.Transformer`` that re-scores the same candidates (its output is joined on
      ``qid``/``docno`` and must cover every candidate).

    ``baseline`` is used by the single-baseline objectives (``'urisk'``, ``'tsaro'``, ``'tfaro'``);
    ``baselines`` (a list of the above) by the multiple-baseline ones (``'tfaro_star'``,
    ``'georisk'``), which fall back to ``[baseline]`` when ``baselines`` is None; ``'lambdarank'``
    ignores both (``get_objective(name).baseline`` says which).

    Args:
        objective: the name of a registered objective: a built-in (``'lambdarank'``, ``'urisk'``,
            ``'tsaro'``, ``'tfaro'``, ``'tfaro_star'``, ``'georisk'``) or one registered with
            :func:`~pyterrier_risk.register_objective` (docs/custom_objective.md); its ``baseline``
            kind decides whether ``baseline`` or ``baselines`` is used. Default: the registry's
            multiple-baseline default (``default_objective('multiple')``, ``'georisk'``).
        alpha: risk-sensitivity, 0 ≤ α ≤ 10⁶ (α = 0 trains plain LambdaMART; the bound keeps
            every float32 gradient finite, docs/objectives.md).
        baseline: the single baseline (see above).
        baselines: several baselines for ``'georisk'`` / ``'tfaro_star'``.
        cutoff: rank cutoff of the per-query NDCG used by the objective and, with a validation
            set, by early stopping (LightGBM's ``ndcg@cutoff``).
        num_boost_round: maximum number of trees.
        early_stopping_rounds: stop when validation NDCG@cutoff has not improved for this many
            rounds (only used when ``fit`` receives a validation set; None disables it).
        stopping_measure: the validation measure of early stopping and ``evals_result_``: ``'ndcg'``,
            LightGBM's ``ndcg@cutoff`` (gains 2^label − 1), or ``'letor'``, LETOR 4.0's NDCG@cutoff
            (``Eval-Score-4.0.pl``: :func:`pyterrier_risk.letor_ndcg`, ties in the rows' order).
        baseline_ties: how the objective orders a baseline's tied scores when it measures the
            baseline's NDCG: ``'rows'`` (the candidates' order, as LightGBM orders the model's own
            ties and LETOR's script evaluates) or ``'docno'`` (docno descending, as trec_eval,
            ``ir_measures`` and ``pt.Experiment`` evaluate; ``learn`` sets it to its measure's rule).
        verbose: show a progress bar while training.
        objective_params: further options of :func:`pyterrier_risk.objective` (e.g. ``se_round``
            for T-SARO, ``faro_tr`` for T-FARO/T*-FARO, ``georisk_update``), checked here.
            LightGBM's ``num_threads`` is forwarded to the objective's kernels unless given here.
        **lightgbm_params: further LightGBM parameters (``learning_rate``, ``num_leaves``,
            ``min_data_in_leaf``, ``num_threads``, ``seed``, the lambdarank settings ...).

    Attributes:
        booster_: the trained ``lightgbm.Booster`` (None before ``fit``/``load``).
        num_features_: number of features the model was trained on.
        best_iteration_: number of trees used for scoring.
        evals_result_: the validation set's NDCG@``cutoff`` after each boosting round,
            ``{'valid': {'ndcg@10': [...]}}`` (LightGBM's ``record_evaluation``), when ``fit``
            received a validation set; None otherwise (and after ``load``).
        path: the folder of the last :meth:`save` or :meth:`load` (``pt.Artifact.NO_PATH`` before),
            which ``build_package`` and ``to_hf`` pack (the model is a ``pt.Artifact``).
    """

    ARTIFACT_TYPE = ARTIFACT_TYPE
    ARTIFACT_FORMAT = ARTIFACT_FORMAT
    ARTIFACT_PACKAGE_HINT = ARTIFACT_PACKAGE_HINT

    def __init__(
        self,
        objective: str = DEFAULT_OBJECTIVES["multiple"],
        *,
        alpha: float = 1.0,
        baseline: BaselineSpec | None = "score",
        baselines: Sequence[BaselineSpec] | None = None,
        cutoff: int = 10,
        num_boost_round: int = 100,
        early_stopping_rounds: int | None = 20,
        stopping_measure: str = "ndcg",
        baseline_ties: str = "rows",
        verbose: bool = True,
        objective_params: dict[str, Any] | None = None,
        **lightgbm_params: Any,
    ) -> None:
        get_objective(objective)  # a registered name, or a ValueError listing them
        alpha = check_alpha(alpha)
        check_count(cutoff, "cutoff")  # up to 2^31 - 1: LightGBM's eval_at and rounds are C ints
        check_count(num_boost_round, "num_boost_round")
        check_count(early_stopping_rounds, "early_stopping_rounds", allow_none=True)
        if stopping_measure not in STOPPING_MEASURES:
            raise ValueError(f"stopping_measure must be one of {', '.join(STOPPING_MEASURES)}, got "
                             f"{stopping_measure!r}")
        if baseline_ties not in TIE_RULES:
            raise ValueError(f"baseline_ties must be one of {', '.join(TIE_RULES)}, got {baseline_ties!r}")
        if baseline is not None:
            _check_spec(baseline, "baseline")
        if baselines is not None:
            if isinstance(baselines, (str, int, pt.Transformer)):
                raise TypeError("baselines must be a list of baselines, e.g. baselines=[0, 'score']")
            baselines = list(baselines)
            if not baselines:
                raise ValueError("baselines is empty; give at least one baseline or None")
            for i, spec in enumerate(baselines):
                _check_spec(spec, f"baselines[{i}]")
        objective_params = _checked_options(objective, objective_params, lightgbm_params, alpha, cutoff)
        self.objective = objective
        self.alpha = float(alpha)
        self.baseline = baseline
        self.baselines = baselines
        self.cutoff = int(cutoff)
        self.num_boost_round = int(num_boost_round)
        self.early_stopping_rounds = None if early_stopping_rounds is None else int(early_stopping_rounds)
        self.stopping_measure = stopping_measure
        self.baseline_ties = baseline_ties
        self.verbose = check_flag(verbose, "verbose")
        self.objective_params = objective_params
        self.lightgbm_params = dict(lightgbm_params)
        self.booster_: Any = None
        self.num_features_: int | None = None
        self.best_iteration_: int | None = None
        self.evals_result_: dict[str, dict[str, list[float]]] | None = None
        self.path: Any = pt.Artifact.NO_PATH  # the folder of the last save() or load()

    # ------------------------------------------------------------------ repr
    def __repr__(self) -> str:
        args = [repr(self.objective)]
        for name, default in _defaults().items():
            value = getattr(self, name)
            if value != default:
                args.append(f"{name}={value!r}")
        args.extend(f"{k}={v!r}" for k, v in self.lightgbm_params.items())
        return f"RiskLambdaMART({', '.join(args)})"

    # ------------------------------------------------------------- transform
    def transform(self, inp: pd.DataFrame) -> pd.DataFrame:
        """Score the candidates of ``inp`` by the ``features`` column.

        Args:
            inp: result frame with ``qid``, ``docno`` and ``features`` (1-d numeric arrays of
                the training width). It is not modified.

        Returns:
            A copy of ``inp`` with ``score`` replaced by the model's score and ``rank`` recomputed.

        Raises:
            pyterrier.validate.InputValidationError: a required column is missing.
            ValueError: the model is not trained, a (qid, docno) repeats, or the features are ragged
                or of the wrong width.
        """
        out, features = scoring_input(self, inp, self.booster_ is not None, self.num_features_,
                                      "; was the feature pipeline changed since training?")
        if features is None:
            return out
        out["score"] = self._predict(features)
        return pt.model.add_ranks(out)

    def transform_outputs(self, inp_cols: list[str]) -> list[str]:
        """Output columns for ``pt.inspect``: the input columns plus ``score`` and ``rank``."""
        pt.validate.result_frame(inp_cols, extra_columns=["features"], context=self)
        return [*inp_cols, *(c for c in ("score", "rank") if c not in inp_cols)]

    def _predict(self, features: np.ndarray) -> np.ndarray:
        return self.booster_.predict(features, num_iteration=self.best_iteration_)

    # ------------------------------------------------------------------- fit
    def fit(
        self,
        topics_or_res_tr: pd.DataFrame,
        qrels_tr: pd.DataFrame,
        topics_or_res_va: pd.DataFrame | None = None,
        qrels_va: pd.DataFrame | None = None,
    ) -> RiskLambdaMART:
        """Train the model on labelled candidates; early-stop on the validation set if given.

        Labels come from the qrels, joined on ``qid``/``docno``; unjudged candidates get label 0
        (as ``pt.ltr``). Labels must be integers in ``[0, len(label_gain))`` (31 with LightGBM's
        default gains). The baselines are resolved on the training candidates only.

        Args:
            topics_or_res_tr: training result frame with ``features`` (and the baseline columns).
            qrels_tr: training qrels (``qid``, ``docno``, ``label``).
            topics_or_res_va: optional validation result frame with ``features``.
            qrels_va: qrels for the validation frame (required with ``topics_or_res_va``).

        Returns:
            self, trained.
        """
        import lightgbm as lgb

        if (topics_or_res_va is None) != (qrels_va is None):
            raise ValueError("give both topics_or_res_va and qrels_va, or neither")
        train, x_train, y_train, g_train = self._labelled(topics_or_res_tr, qrels_tr, "training")
        starts = np.concatenate([[0], np.cumsum(g_train)[:-1]])
        if np.all(np.maximum.reduceat(y_train, starts) == np.minimum.reduceat(y_train, starts)):
            raise ValueError(
                f"none of the {len(g_train)} training queries has two different labels among its "
                f"candidates: there is nothing to learn (are the qrels those of these queries?)"
            )
        obj = self._make_objective(train, x_train)

        params: dict[str, Any] = {
            "objective": obj,
            "metric": "ndcg" if self.stopping_measure == "ndcg" else "None",
            "eval_at": [self.cutoff],
            "verbosity": -1,
        }
        params.update(self.lightgbm_params)
        dtrain = lgb.Dataset(x_train, y_train, group=g_train, free_raw_data=False)
        valid_sets, callbacks = [], []
        evals: dict[str, dict[str, list[float]]] = {}
        if topics_or_res_va is not None:
            _, x_va, y_va, g_va = self._labelled(topics_or_res_va, qrels_va, "validation")
            if x_va.shape[1] != x_train.shape[1]:
                raise ValueError(
                    f"validation features have {x_va.shape[1]} columns, training features {x_train.shape[1]}"
                )
            valid_sets.append(lgb.Dataset(x_va, y_va, group=g_va, reference=dtrain))
            callbacks.append(lgb.record_evaluation(evals))  # the validation curve, per round
            if self.early_stopping_rounds is not None:
                callbacks.append(
                    lgb.early_stopping(self.early_stopping_rounds, first_metric_only=True, verbose=False)
                )
        booster = self._train(params, dtrain, valid_sets, callbacks, (obj, y_train, g_train))
        self.booster_ = booster
        self.evals_result_ = evals or None
        self.num_features_ = int(x_train.shape[1])
        best = int(booster.best_iteration or 0)
        self.best_iteration_ = best if best > 0 else int(booster.current_iteration())
        return self

    def _train(self, params: dict, dtrain: Any, valid_sets: list, callbacks: list, training: tuple) -> Any:
        """``lightgbm.train`` with the progress bar; a Ctrl-C reaches the caller as ``KeyboardInterrupt``.

        numba's dispatcher can notice the interrupt while it returns a kernel's result, and Python then
        reports a ``SystemError`` "returned a result with an exception set" caused by it: that is the
        ``KeyboardInterrupt`` again (nothing of the fit is kept either way).
        """
        import lightgbm as lgb

        progress = Progress(self.num_boost_round, f"RiskLambdaMART({self.objective})", self.verbose)
        feval = letor_feval(self.cutoff) if self.stopping_measure == "letor" and valid_sets else None
        try:
            progress.prepare(*training)
            booster = lgb.train(
                params,
                dtrain,
                num_boost_round=self.num_boost_round,
                valid_sets=valid_sets or None,
                valid_names=["valid"][: len(valid_sets)],
                callbacks=[*callbacks, progress],
                feval=feval,
            )
            progress.finish(booster, stopping=self.early_stopping_rounds is not None and bool(valid_sets))
        except SystemError as e:
            if _caused_by_interrupt(e):
                raise KeyboardInterrupt from None
            raise
        finally:
            progress.close()
        return booster

    def _labelled(
        self, res: pd.DataFrame, qrels: pd.DataFrame, what: str
    ) -> tuple[pd.DataFrame, np.ndarray, np.ndarray, np.ndarray]:
        """Join labels, group by query (stable) and build X, y and group sizes (``_frames.labelled``)."""
        n_gains = len(self.lightgbm_params.get("label_gain", ())) or 31
        return labelled(res, qrels, what, n_gains=n_gains, context=self)

    def _untied(self, column: np.ndarray, train: pd.DataFrame) -> np.ndarray:
        """A baseline's scores with its ties ordered by ``baseline_ties`` (:func:`._ndcg.untied_scores`)."""
        return untied_scores(column, train["qid"].to_numpy(), train["docno"].to_numpy(), self.baseline_ties)

    def _make_objective(self, train: pd.DataFrame, features: np.ndarray) -> Any:
        """The objective callable for LightGBM (or ``'lambdarank'`` for the native one)."""
        needs = get_objective(self.objective).baseline
        if needs == "single":
            if self.baseline is None:
                raise ValueError(f"objective {self.objective!r} needs a baseline (baseline=...)")
            column = baseline_column(self.baseline, train, features, "baseline")
            kwargs = {"baseline": self._untied(column, train)}
        elif needs == "multiple":
            specs = (
                self.baselines
                if self.baselines is not None
                else ([self.baseline] if self.baseline is not None else None)
            )
            if specs is None:
                raise ValueError(f"objective {self.objective!r} needs baselines=[...] (or baseline=...)")
            unsaved = [i for i, spec in enumerate(specs) if spec is None]
            if unsaved:
                raise ValueError(
                    f"baselines[{unsaved[0]}] was a transformer that save() could not store; give the "
                    f"baselines again, e.g. RiskLambdaMART.load(path, baselines=[...])"
                )
            kwargs = {
                "baselines": np.column_stack(
                    [
                        self._untied(baseline_column(spec, train, features, f"baselines[{i}]"), train)
                        for i, spec in enumerate(specs)
                    ]
                )
            }
        else:
            kwargs = {}
        from ._objective import objective as make_objective

        lambdarank = {k: self.lightgbm_params[k] for k in LAMBDARANK_PARAMS if k in self.lightgbm_params}
        options = dict(self.objective_params or {})
        threads = _lightgbm_threads(self.lightgbm_params)
        if "num_threads" not in options and threads > 0:
            options["num_threads"] = threads  # LightGBM's <= 0 means "default": left to the objective
        return make_objective(
            self.objective, alpha=self.alpha, cutoff=self.cutoff, **kwargs, **options, **lambdarank
        )

    # ------------------------------------------------------------- save/load
    def save(self, path: str | os.PathLike) -> None:
        """Save the trained model to the directory ``path`` (created if needed), atomically.

        Writes ``model.txt`` (LightGBM text model with the trees used for scoring),
        ``risk_lambdamart.json`` (format tag, constructor parameters, number of features and the
        SHA-256 of ``model.txt``) and ``pt_meta.json`` (PyTerrier's artifact type and format, so
        that ``pt.Artifact.load(path)`` finds this class; ``path`` becomes ``self.path``). The
        files are serialised in memory first, so a parameter that cannot be stored raises before
        anything is written; they are then written to a hidden staging folder and moved into place
        together (a Ctrl-C is held back while they move). A failed or interrupted save leaves no
        folder, or the previous model loadable and unchanged; other files in ``path`` are kept.
        Baselines given as transformers cannot be stored: they are saved as None (with a
        warning) and must be passed again to :meth:`load` to re-fit. An objective defined in
        ``__main__`` warns (:class:`~pyterrier_risk.learning.ObjectiveNotImportableWarning`): no
        other process can import it to load the model.

        Raises:
            ValueError: the model is not trained.
            TypeError: a parameter cannot be stored as JSON (nothing is written).
            FileExistsError: ``path`` is a file, not a folder.
        """
        # fit and load set the three together
        if self.booster_ is None or self.num_features_ is None or self.best_iteration_ is None:
            raise ValueError("RiskLambdaMART is not trained: nothing to save")
        model_text = self.booster_.model_to_string(num_iteration=self.best_iteration_)
        path = Path(path)
        save_model(path, model_text, self._stored_params(), self.num_features_, self.best_iteration_)
        self.path = path

    def _stored_params(self) -> dict[str, Any]:
        """The constructor parameters as JSON-ready values (transformer baselines as None).

        An objective registered outside this package also stores its module (``objective_module``),
        which :meth:`load` imports to register it again.
        """
        params: dict[str, Any] = {"objective": self.objective}
        for name in _defaults():
            params[name] = getattr(self, name)
        params["baseline"] = spec_to_json(self.baseline, "baseline")
        if self.baselines is not None:
            params["baselines"] = [spec_to_json(s, f"baselines[{i}]") for i, s in enumerate(self.baselines)]
        module = objective_module(get_objective(self.objective))
        if module is not None:
            params[OBJECTIVE_MODULE] = module
        return {**params, **self.lightgbm_params}

    @classmethod
    def load(cls, path: str | os.PathLike, *, trust_remote_code: bool = False,
             **overrides: Any) -> RiskLambdaMART:
        """Load a model written by :meth:`save`.

        Every file is checked before it is used (docs/lambdamart.md, "Saving and loading"): it must
        be a regular file within the reading limits, ``model.txt`` must match the digest and its
        header the trees that follow; a damaged or foreign folder gives a one-line error.

        Args:
            path: the directory given to :meth:`save`.
            trust_remote_code: import the module the folder names (``objective_module``) to register
                an objective this process does not know. Off by default: importing runs the module's
                code; importing the module yourself before loading needs no opt-in.
            **overrides: constructor parameters replacing the stored ones (e.g. a transformer
                ``baseline`` that could not be stored, or ``verbose``).
        """
        if not isinstance(trust_remote_code, bool):
            raise TypeError(f"trust_remote_code must be True or False, got {trust_remote_code!r}")
        path = Path(path)
        meta = read_meta(path)
        meta_file = path / "risk_lambdamart.json"
        params = {**meta["params"], **overrides}
        import_objective(params["objective"], params.pop(OBJECTIVE_MODULE, None), meta_file,
                         trust_remote_code=trust_remote_code)
        # a transformer among the baselines was stored as None: scoring works, fit asks for it again
        unsaved = params.get("baselines")
        if isinstance(unsaved, list) and any(spec is None for spec in unsaved):
            params["baselines"] = None
        else:
            unsaved = None
        try:
            model = cls(params.pop("objective"), **params)
        except (TypeError, ValueError) as e:
            raise type(e)(f"{meta_file}: the stored parameters (and overrides) are refused: {e}") from None
        if unsaved is not None:
            model.baselines = unsaved
        model.booster_ = read_booster(path, meta)
        model.num_features_ = meta["num_features"]
        model.best_iteration_ = meta["num_trees"]
        model.path = path
        return model


# ---------------------------------------------------------------------- helpers
def _defaults() -> dict[str, Any]:
    """RiskLambdaMART's keyword parameters and their defaults: its signature is the one source."""
    import inspect

    params = inspect.signature(RiskLambdaMART.__init__).parameters.values()
    return {p.name: p.default for p in params if p.kind is inspect.Parameter.KEYWORD_ONLY}


def _caused_by_interrupt(error: BaseException) -> bool:
    """Whether a ``KeyboardInterrupt`` is among the causes of ``error``."""
    seen: set[int] = set()
    cause: BaseException | None = error
    while cause is not None and id(cause) not in seen:
        if isinstance(cause, KeyboardInterrupt):
            return True
        seen.add(id(cause))
        cause = cause.__cause__ or cause.__context__
    return False


def _checked_options(
    objective: str, objective_params: Any, lightgbm_params: dict[str, Any], alpha: float, cutoff: int
) -> dict[str, Any] | None:
    """Check ``objective_params`` and the LightGBM parameters without data; returns a copy of the former.

    The objective's options (and the lambdarank parameters it shares with LightGBM) raise here the
    error the objective would raise at ``fit``; a LightGBM alias of a constructor parameter is refused.
    """
    clash = sorted(set(lightgbm_params) & set(CONSTRUCTOR_ALIASES))
    if clash:
        raise TypeError(
            f"LightGBM parameter {clash[0]!r} clashes with RiskLambdaMART's own "
            f"{CONSTRUCTOR_ALIASES[clash[0]]}=...; set that instead"
        )
    if objective_params is not None:
        if not isinstance(objective_params, dict):
            raise TypeError("objective_params must be a dict or None")
        own = sorted(set(objective_params) & ({"kind"} | set(_defaults())))
        if own:
            raise TypeError(f"objective_params must not set {own[0]!r}: it is a RiskLambdaMART parameter")
        objective_params = dict(objective_params)
    lambdarank = {k: lightgbm_params[k] for k in LAMBDARANK_PARAMS if k in lightgbm_params}
    check_objective_options(
        objective, {**(objective_params or {}), **lambdarank, "alpha": alpha, "cutoff": cutoff}
    )
    _lightgbm_threads(lightgbm_params)
    return objective_params


def _lightgbm_threads(params: dict[str, Any]) -> int:
    """LightGBM's thread count among ``params`` (its aliases), checked strictly; 0 when not given."""
    given = [k for k in THREAD_ALIASES if k in params]
    if not given:
        return 0
    value = params[given[0]]
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise TypeError(
            f"{given[0]} must be an integer (<= 0: LightGBM's default), got {type(value).__name__} {value!r}"
        )
    return check_count(value, given[0], minimum=-INT32_MAX)


def _check_spec(spec: Any, name: str) -> None:
    if isinstance(spec, bool) or not isinstance(spec, (str, int, np.integer, pt.Transformer)):
        raise TypeError(
            f"{name} must be 'score', a feature index (int), a column name (str) or a "
            f"pt.Transformer, got {type(spec).__name__}"
        )
    if isinstance(spec, (int, np.integer)) and spec < 0:
        raise ValueError(f"{name}: feature index must be >= 0, got {spec}")


def load_artifact(path: str | os.PathLike, *, trust_remote_code: bool = False,
                  **overrides: Any) -> RiskLambdaMART:
    """Load a saved RiskLambdaMART: ``pt.Artifact.load(path)``'s entry point for this package's models.

    PyTerrier finds it by the entry point ``ltr_model.risk_lambdamart`` of the group
    ``pyterrier.artifact`` (the type and format in the folder's ``pt_meta.json``) and passes its
    keyword arguments on: ``pt.Artifact.from_hf(repo, trust_remote_code=True)``.

    Args:
        path: the folder written by :meth:`RiskLambdaMART.save`.
        trust_remote_code: import the folder's ``objective_module`` (see :meth:`RiskLambdaMART.load`).
        **overrides: constructor parameters replacing the stored ones.

    Returns:
        The loaded model, as :meth:`RiskLambdaMART.load` returns it.
    """
    return RiskLambdaMART.load(path, trust_remote_code=trust_remote_code, **overrides)
