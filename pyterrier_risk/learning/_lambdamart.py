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
``to_hf``; see ``docs/lambdamart.md``.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import tempfile
import warnings
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Union

import numpy as np
import pandas as pd
import pyterrier as pt

from ..core import check_alpha
from ._modeltext import check_model_text
from ._objective import check_objective_options
from ._options import INT32_MAX, check_count, check_flag
from .objectives import get_objective

# LightGBM parameters that also shape the lambdarank gradients; forwarded to the objective.
_LAMBDARANK_PARAMS = ("sigmoid", "lambdarank_truncation_level", "lambdarank_norm", "label_gain")
# LightGBM aliases of what the constructor sets itself.
_RESERVED_PARAMS = {
    **dict.fromkeys(("objective_type", "app", "application", "loss"), "objective"),
    **dict.fromkeys(
        (
            "num_iterations",
            "num_iteration",
            "n_iter",
            "num_tree",
            "num_trees",
            "num_round",
            "num_rounds",
            "nrounds",
            "num_boost_round",
            "n_estimators",
            "max_iter",
        ),
        "num_boost_round",
    ),
    **dict.fromkeys(
        ("early_stopping_round", "early_stopping_rounds", "early_stopping", "n_iter_no_change"),
        "early_stopping_rounds",
    ),
    **dict.fromkeys(("eval_at", "ndcg_eval_at", "ndcg_at", "map_eval_at", "map_at"), "cutoff"),
}
_THREAD_ALIASES = ("num_threads", "num_thread", "nthread", "nthreads", "n_jobs")
_PARAMS_FILE = "risk_lambdamart.json"
_MODEL_FILE = "model.txt"
_FORMAT = "pyterrier-risk/RiskLambdaMART"
_FORMAT_VERSION = 1
# PyTerrier's artifact protocol: pt_meta.json names the type and format, which the entry point
# "ltr_model.risk_lambdamart" of the group "pyterrier.artifact" maps back to RiskLambdaMART.load
_PT_META_FILE = "pt_meta.json"
ARTIFACT_TYPE = "ltr_model"
ARTIFACT_FORMAT = "risk_lambdamart"
ARTIFACT_PACKAGE_HINT = "pyterrier-risk"

BaselineSpec = Union[str, int, "pt.Transformer"]


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
            kind decides whether ``baseline`` or ``baselines`` is used.
        alpha: risk-sensitivity, 0 ≤ α ≤ 10⁶ (α = 0 trains plain LambdaMART; the bound keeps
            every float32 gradient finite, docs/objectives.md).
        baseline: the single baseline (see above).
        baselines: several baselines for ``'georisk'`` / ``'tfaro_star'``.
        cutoff: rank cutoff of the per-query NDCG used by the objective and, with a validation
            set, by early stopping (LightGBM's ``ndcg@cutoff``).
        num_boost_round: maximum number of trees.
        early_stopping_rounds: stop when validation NDCG@cutoff has not improved for this many
            rounds (only used when ``fit`` receives a validation set; None disables it).
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
        objective: str = "georisk",
        *,
        alpha: float = 1.0,
        baseline: BaselineSpec | None = "score",
        baselines: Sequence[BaselineSpec] | None = None,
        cutoff: int = 10,
        num_boost_round: int = 100,
        early_stopping_rounds: int | None = 20,
        verbose: bool = True,
        objective_params: dict[str, Any] | None = None,
        **lightgbm_params: Any,
    ) -> None:
        get_objective(objective)  # a registered name, or a ValueError listing them
        alpha = check_alpha(alpha)
        check_count(cutoff, "cutoff")  # up to 2^31 - 1: LightGBM's eval_at and rounds are C ints
        check_count(num_boost_round, "num_boost_round")
        check_count(early_stopping_rounds, "early_stopping_rounds", allow_none=True)
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
        pt.validate.result_frame(inp, extra_columns=["features"], context=self)
        if self.booster_ is None:
            raise ValueError("RiskLambdaMART is not trained: call fit() or RiskLambdaMART.load() first")
        _check_keys(inp, "transform input")
        repeated = inp.duplicated(["qid", "docno"])
        if repeated.any():  # fit refuses them too: one document, one score
            first = inp.loc[repeated, ["qid", "docno"]].iloc[0].tolist()
            raise ValueError(
                f"transform input contains the same (qid, docno) more than once ({int(repeated.sum())} "
                f"repeated row(s), e.g. {first}); drop them, e.g. inp.drop_duplicates(['qid', 'docno'])"
            )
        out = inp.copy()
        if len(out) == 0:
            out["score"] = pd.Series(index=out.index, dtype="float64")
            return pt.model.add_ranks(out)
        features = _feature_matrix(inp, "transform input")
        if features.shape[1] != self.num_features_:
            raise ValueError(
                f"the model was trained on {self.num_features_} features but the input has "
                f"{features.shape[1]}; was the feature pipeline changed since training?"
            )
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
            "metric": "ndcg",
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
        progress = _Progress(self.num_boost_round, f"RiskLambdaMART({self.objective})", self.verbose)
        callbacks.append(progress)
        try:
            progress.prepare(obj, y_train, g_train)
            booster = lgb.train(
                params,
                dtrain,
                num_boost_round=self.num_boost_round,
                valid_sets=valid_sets or None,
                valid_names=["valid"][: len(valid_sets)],
                callbacks=callbacks,
            )
            progress.finish(booster, stopping=self.early_stopping_rounds is not None and bool(valid_sets))
        finally:
            progress.close()
        self.booster_ = booster
        self.evals_result_ = evals or None
        self.num_features_ = int(x_train.shape[1])
        best = int(booster.best_iteration or 0)
        self.best_iteration_ = best if best > 0 else int(booster.current_iteration())
        return self

    def _labelled(
        self, res: pd.DataFrame, qrels: pd.DataFrame, what: str
    ) -> tuple[pd.DataFrame, np.ndarray, np.ndarray, np.ndarray]:
        """Join labels, group by query (stable) and build X, y and group sizes."""
        if not isinstance(res, pd.DataFrame) or not isinstance(qrels, pd.DataFrame):
            raise TypeError(f"{what} results and qrels must be pandas DataFrames")
        pt.validate.result_frame(res, extra_columns=["features"], context=self)
        pt.validate.columns(qrels, includes=["qid", "docno", "label"], context=self)
        if len(res) == 0:
            raise ValueError(f"no {what} results to fit to")
        _check_keys(res, f"{what} results")
        _check_keys(qrels, f"{what} qrels")
        judged = qrels[["qid", "docno", "label"]]
        if judged["label"].isna().any():
            first = judged.loc[judged["label"].isna(), ["qid", "docno"]].iloc[0].tolist()
            raise ValueError(
                f"{what} qrels have {int(judged['label'].isna().sum())} missing label(s), e.g. "
                f"qid/docno {first}; drop those rows (an unjudged candidate gets label 0)"
            )
        if judged.duplicated(["qid", "docno"]).any():
            raise ValueError(f"{what} qrels have several labels for the same (qid, docno)")
        if res.duplicated(["qid", "docno"]).any():
            raise ValueError(f"{what} results contain the same (qid, docno) more than once")
        candidates = res.drop(columns=["label"], errors="ignore")
        try:
            frame = candidates.merge(judged, on=["qid", "docno"], how="left")
        except ValueError as e:  # pandas refuses to join e.g. int64 qids with str qids
            raise ValueError(f"cannot join the {what} results with their qrels on qid/docno: {e}") from e
        if frame["label"].isna().all():
            raise ValueError(
                f"none of the {len(frame)} {what} candidates has a qrels entry; do the qid/docno "
                f"values (and types, str vs int) of the results and the qrels match?"
            )
        labels = pd.to_numeric(frame["label"], errors="coerce")
        if labels.dtype.kind == "c":
            raise TypeError(f"{what} qrels have complex labels: a label must be an integer")
        bad = frame["label"].notna() & labels.isna()
        if bad.any():
            raise ValueError(f"{what} qrels have non-numeric labels, e.g. {frame['label'][bad].iloc[0]!r}")
        labels = labels.fillna(0).to_numpy(dtype=np.float64)
        if not np.all(labels == np.round(labels)):
            raise ValueError(
                f"{what} labels must be integers, got e.g. {labels[labels != np.round(labels)][0]!r}"
            )
        n_gains = len(self.lightgbm_params.get("label_gain", ())) or 31
        if labels.min() < 0 or labels.max() >= n_gains:
            hint = (
                "; clip negative labels first, e.g. qrels.assign(label=qrels.label.clip(lower=0))"
                if labels.min() < 0
                else "; give label_gain=[...] with one gain per label"
            )
            raise ValueError(
                f"{what} labels must lie in [0, {n_gains - 1}] (LightGBM label_gain), got "
                f"[{labels.min():g}, {labels.max():g}]{hint}"
            )
        frame["label"] = labels.astype(np.int32)
        frame = frame.sort_values("qid", kind="stable").reset_index(drop=True)
        features = _feature_matrix(frame, f"{what} results")
        sizes = frame.groupby("qid", sort=False).size().to_numpy()
        return frame, features, frame["label"].to_numpy(), sizes

    def _make_objective(self, train: pd.DataFrame, features: np.ndarray) -> Any:
        """The objective callable for LightGBM (or ``'lambdarank'`` for the native one)."""
        needs = get_objective(self.objective).baseline
        if needs == "single":
            if self.baseline is None:
                raise ValueError(f"objective {self.objective!r} needs a baseline (baseline=...)")
            kwargs = {"baseline": _baseline_column(self.baseline, train, features, "baseline")}
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
                        _baseline_column(spec, train, features, f"baselines[{i}]")
                        for i, spec in enumerate(specs)
                    ]
                )
            }
        else:
            kwargs = {}
        from ._objective import objective as make_objective

        lambdarank = {k: self.lightgbm_params[k] for k in _LAMBDARANK_PARAMS if k in self.lightgbm_params}
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
        first two are serialised in memory first, so a parameter that cannot be stored raises
        before anything is written; each file is then written to a temporary file and moved into
        place, and :meth:`load` checks that the two files belong to the same save.
        A failed save leaves the previous model loadable and unchanged.
        Baselines given as transformers cannot be stored: they are saved as None (with a
        warning) and must be passed again to :meth:`load` to re-fit.

        Raises:
            ValueError: the model is not trained.
            TypeError: a parameter cannot be stored as JSON (nothing is written).
        """
        if self.booster_ is None:
            raise ValueError("RiskLambdaMART is not trained: nothing to save")
        model_text = self.booster_.model_to_string(num_iteration=self.best_iteration_)
        meta = {
            "format": _FORMAT,
            "format_version": _FORMAT_VERSION,
            "params": self._stored_params(),
            "num_features": self.num_features_,
            "num_trees": self.best_iteration_,
            "model_sha256": hashlib.sha256(model_text.encode("utf-8")).hexdigest(),
        }
        try:
            meta_text = json.dumps(meta, indent=2, default=_json_scalar) + "\n"
        except TypeError as e:
            raise TypeError(f"a parameter cannot be stored as JSON: {e}") from e
        path = Path(path)
        path.mkdir(parents=True, exist_ok=True)
        _replace_file(path / _MODEL_FILE, model_text)
        _replace_file(path / _PARAMS_FILE, meta_text)
        _replace_file(path / _PT_META_FILE, json.dumps(_pt_meta()) + "\n")
        self.path = path

    def _stored_params(self) -> dict[str, Any]:
        """The constructor parameters as JSON-ready values (transformer baselines as None).

        An objective registered outside this package also stores its module (``objective_module``),
        which :meth:`load` imports to register it again.
        """
        params: dict[str, Any] = {"objective": self.objective}
        for name in _defaults():
            params[name] = getattr(self, name)
        params["baseline"] = _spec_to_json(self.baseline, "baseline")
        if self.baselines is not None:
            params["baselines"] = [_spec_to_json(s, f"baselines[{i}]") for i, s in enumerate(self.baselines)]
        module = get_objective(self.objective).__module__
        if not module.startswith("pyterrier_risk.") and module != "__main__":  # a script is not importable
            params[_OBJECTIVE_MODULE] = module
        return {**params, **self.lightgbm_params}

    @classmethod
    def load(cls, path: str | os.PathLike, **overrides: Any) -> RiskLambdaMART:
        """Load a model written by :meth:`save`.

        Args:
            path: the directory given to :meth:`save`.
            **overrides: constructor parameters replacing the stored ones (e.g. a transformer
                ``baseline`` that could not be stored, or ``verbose``).
        """
        path = Path(path)
        meta_file = path / _PARAMS_FILE
        meta = _read_meta(meta_file)
        params = {**meta["params"], **overrides}
        _import_objective(params["objective"], params.pop(_OBJECTIVE_MODULE, None), meta_file)
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
        model.booster_ = _read_booster(path / _MODEL_FILE, meta)
        model.num_features_ = meta["num_features"]
        model.best_iteration_ = meta["num_trees"]
        model.path = path
        return model


# ---------------------------------------------------------------------- helpers
_OBJECTIVE_MODULE = "objective_module"


def _defaults() -> dict[str, Any]:
    """RiskLambdaMART's keyword parameters and their defaults: its signature is the one source."""
    import inspect

    params = inspect.signature(RiskLambdaMART.__init__).parameters.values()
    return {p.name: p.default for p in params if p.kind is inspect.Parameter.KEYWORD_ONLY}


def _import_objective(name: Any, module: Any, meta_file: Path) -> None:
    """Make sure a saved model's objective is registered: import the module that defines it, if stored."""
    from .objectives import objective_names

    if not isinstance(name, str) or name in objective_names():
        return
    if module is None:
        raise ValueError(
            f"{meta_file}: objective {name!r} is not registered in this process: define or import it "
            f"(register_objective) before loading (known: {', '.join(objective_names())})"
        )
    import importlib

    try:
        importlib.import_module(str(module))
    except ImportError as e:
        raise ValueError(
            f"{meta_file}: objective {name!r} comes from module {module!r}, which cannot be imported ({e}); "
            f"import or register the objective before loading"
        ) from None


def _replace_file(target: Path, text: str) -> None:
    """Write ``text`` to a temporary file beside ``target``, flush it to disk, move it into place."""
    fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def _pt_meta() -> dict[str, str]:
    """The content of ``pt_meta.json``, PyTerrier's artifact metadata."""
    return {"type": ARTIFACT_TYPE, "format": ARTIFACT_FORMAT, "package_hint": ARTIFACT_PACKAGE_HINT}


def load_artifact(path: str | os.PathLike, **overrides: Any) -> RiskLambdaMART:
    """``pt.Artifact.load(path)``'s entry point (``pyterrier.artifact``: ``ltr_model.risk_lambdamart``)."""
    return RiskLambdaMART.load(path, **overrides)


def artifact_metadata(path: str, dir_listing: list[str]) -> dict[str, str] | None:
    """PyTerrier's metadata adapter: a folder saved before ``pt_meta.json`` existed (0.1, 0.2) is ours.

    ``pt.Artifact.load`` asks the adapters (entry points ``pyterrier.artifact.metadata_adapter``)
    about a folder without ``pt_meta.json``: one holding ``risk_lambdamart.json`` and ``model.txt``
    is a saved RiskLambdaMART.
    """
    if _PARAMS_FILE in dir_listing and _MODEL_FILE in dir_listing:
        return _pt_meta()
    return None


def _read_meta(meta_file: Path) -> dict[str, Any]:
    """The checked content of ``risk_lambdamart.json``: one-line errors for a damaged or foreign file."""
    if not meta_file.is_file():
        raise FileNotFoundError(f"{meta_file} not found: not a saved RiskLambdaMART")
    try:
        meta = json.loads(meta_file.read_text(encoding="utf-8"))
    except UnicodeDecodeError as e:
        raise ValueError(f"{meta_file} is not JSON text ({e.reason}); save the model again") from None
    except json.JSONDecodeError as e:
        raise ValueError(
            f"{meta_file} is not valid JSON ({e.msg}, line {e.lineno}); save the model again"
        ) from None
    if (
        not isinstance(meta, dict)
        or meta.get("format") != _FORMAT
        or meta.get("format_version") != _FORMAT_VERSION
    ):
        raise ValueError(f"{meta_file} is not a {_FORMAT} v{_FORMAT_VERSION} file")
    params = meta.get("params")
    if not isinstance(params, dict) or not isinstance(params.get("objective"), str):
        raise ValueError(
            f"{meta_file}: 'params' must be an object with the 'objective' name; save the model again"
        )
    for key in ("num_features", "num_trees"):
        try:
            check_count(meta.get(key), f"{key!r}")
        except (TypeError, ValueError) as e:
            raise ValueError(f"{meta_file}: {e}; save the model again") from None
    digest = meta.get("model_sha256")
    if digest is not None and not (
        isinstance(digest, str) and len(digest) == 64 and all(c in "0123456789abcdef" for c in digest)
    ):
        raise ValueError(f"{meta_file}: 'model_sha256' must be 64 hex digits, got {digest!r}")
    return meta


def _read_booster(model_file: Path, meta: dict[str, Any]) -> Any:
    """``model.txt`` as a ``lightgbm.Booster``, its text checked before LightGBM reads it.

    LightGBM trusts the text's tree sizes and aborts the process on a truncated file: the digest
    covers folders saved since 0.2, :func:`check_model_text` also those of 0.1, which have none.
    """
    import lightgbm as lgb

    model_text = _read_model_text(model_file)
    digest = meta.get("model_sha256")
    if digest is not None and hashlib.sha256(model_text.encode("utf-8")).hexdigest() != digest:
        raise ValueError(
            f"{model_file} does not match {model_file.parent / _PARAMS_FILE} (they come from different "
            "saves: an interrupted save?); save the model again"
        )
    n_trees = check_model_text(model_text, str(model_file))
    if n_trees != meta["num_trees"]:
        raise ValueError(f"{model_file} has {n_trees} trees, {_PARAMS_FILE} says {meta['num_trees']}")
    try:
        booster = lgb.Booster(model_str=model_text)
    except lgb.basic.LightGBMError as e:
        raise ValueError(f"{model_file}: LightGBM cannot read it ({e}); save it again") from None
    if booster.num_feature() != meta["num_features"]:
        raise ValueError(
            f"{model_file} has {booster.num_feature()} features, {_PARAMS_FILE} says {meta['num_features']}"
        )
    return booster


def _read_model_text(file: Path) -> str:
    """``model.txt`` as text, or a one-line error (missing, or not UTF-8 text)."""
    try:
        return file.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise FileNotFoundError(f"{file} not found: the saved model is incomplete; save it again") from None
    except UnicodeDecodeError as e:
        raise ValueError(f"{file} is not a LightGBM text model (not UTF-8 text: {e.reason})") from None


class _Progress:
    """LightGBM callback advancing a ``pt.tqdm`` bar once per boosting round."""

    order = 40  # after early stopping has recorded the round

    def __init__(self, total: int, desc: str, enabled: bool) -> None:
        self.desc = desc
        self.bar = pt.tqdm(total=total, desc=desc, unit="tree") if enabled else None

    def prepare(self, obj: Any, labels: np.ndarray, group: np.ndarray) -> None:
        """Compile (or load) the objective's kernels before the first tree, saying so.

        Otherwise tree 1 holds the compilation and the bar's rate and time left are off by it
        ("12.8 s/tree, 6 min left" for a 15 s fit). The call binds the objective to the training
        rows on all-zero scores; LightGBM's first call, on zero scores too, starts the run afresh.
        """
        status = obj.kernel_status(len(labels)) if self.bar is not None else None
        if status is None:
            return
        self.bar.set_description_str(f"{self.desc}: {status}")
        obj(labels, np.zeros(len(labels)), None, group)
        self.bar.set_description_str(self.desc, refresh=False)
        self.bar.reset()  # the rate counts trees from here

    def finish(self, booster: Any, stopping: bool) -> None:
        """Say when early stopping ended the fit, and at which best iteration (not a bar stuck at 48%)."""
        if self.bar is None:
            return
        done, best = self.bar.n, booster.best_iteration  # trees grown (LightGBM keeps only the best)
        if not stopping or not best or done >= self.bar.total:
            return
        scores = booster.best_score.get("valid", {})
        shown = ", ".join(f"valid {k} {v:.4f}" for k, v in scores.items())
        self.bar.set_description_str(
            f"{self.desc}: early stopping after {done} trees; best iteration {best} ({shown})"
        )

    def __call__(self, env: Any) -> None:
        if self.bar is None:
            return
        self.bar.update(1)
        if env.evaluation_result_list:
            self.bar.set_postfix(
                {f"{r[0]} {r[1]}": f"{r[2]:.4f}" for r in env.evaluation_result_list}, refresh=False
            )

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()


def _checked_options(
    objective: str, objective_params: Any, lightgbm_params: dict[str, Any], alpha: float, cutoff: int
) -> dict[str, Any] | None:
    """Check ``objective_params`` and the LightGBM parameters without data; returns a copy of the former.

    The objective's options (and the lambdarank parameters it shares with LightGBM) raise here the
    error the objective would raise at ``fit``; a LightGBM alias of a constructor parameter is refused.
    """
    clash = sorted(set(lightgbm_params) & set(_RESERVED_PARAMS))
    if clash:
        raise TypeError(
            f"LightGBM parameter {clash[0]!r} clashes with RiskLambdaMART's own "
            f"{_RESERVED_PARAMS[clash[0]]}=...; set that instead"
        )
    if objective_params is not None:
        if not isinstance(objective_params, dict):
            raise TypeError("objective_params must be a dict or None")
        own = sorted(set(objective_params) & ({"kind"} | set(_defaults())))
        if own:
            raise TypeError(f"objective_params must not set {own[0]!r}: it is a RiskLambdaMART parameter")
        objective_params = dict(objective_params)
    lambdarank = {k: lightgbm_params[k] for k in _LAMBDARANK_PARAMS if k in lightgbm_params}
    check_objective_options(
        objective, {**(objective_params or {}), **lambdarank, "alpha": alpha, "cutoff": cutoff}
    )
    _lightgbm_threads(lightgbm_params)
    return objective_params


def _lightgbm_threads(params: dict[str, Any]) -> int:
    """LightGBM's thread count among ``params`` (its aliases), checked strictly; 0 when not given."""
    given = [k for k in _THREAD_ALIASES if k in params]
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


def _check_keys(frame: pd.DataFrame, what: str) -> None:
    """A missing qid or docno would silently drop rows from the query groups and the joins."""
    missing = frame[["qid", "docno"]].isna().any(axis=1)
    if missing.any():
        raise ValueError(
            f"{what}: {int(missing.sum())} row(s) have a missing qid or docno, e.g. row "
            f"{frame.index[int(np.argmax(missing.to_numpy()))]!r}"
        )


def _json_scalar(value: Any) -> Any:
    """``json.dumps`` fallback: numpy scalars and arrays as Python numbers and lists."""
    if isinstance(value, (np.generic, np.ndarray)):
        return value.tolist()
    raise TypeError(f"Object of type {type(value).__name__} is not JSON serializable")


def _spec_to_json(spec: Any, name: str) -> Any:
    if isinstance(spec, pt.Transformer):
        warnings.warn(
            f"{name} is a transformer ({spec!r}) and is saved as None; pass it again to "
            f"RiskLambdaMART.load(..., {name.split('[')[0]}=...) to re-fit"
        )
        return None
    return int(spec) if isinstance(spec, np.integer) else spec


class _NotReal(TypeError):
    """A features row that is not real numbers (complex, text, dates)."""


def _real_row(value: Any, i: int, frame: pd.DataFrame, what: str) -> np.ndarray:
    """One ``features`` entry as float64; complex values (float64 drops the imaginary part), text refused."""
    row = np.asarray(value)
    kind = row.dtype.kind
    if kind == "O":  # Python objects: each must be a real number (or None/NaN, a missing value)
        real = (int, float, np.integer, np.floating, bool)
        kind = next((("c" if isinstance(x, complex) else "U") for x in row.flat
                     if not (x is None or isinstance(x, real))), "f")  # fmt: skip
    if kind not in "biuf":
        name = {"c": "complex", "U": "text", "S": "bytes", "M": "dates", "m": "durations"}.get(
            kind, row.dtype
        )
        fix = " (take .real or abs() first)" if kind == "c" else ""
        raise _NotReal(
            f"{what}: features must be numeric (real numbers), but qid {frame['qid'].iloc[i]!r} docno "
            f"{frame['docno'].iloc[i]!r} has {name} values{fix}"
        )
    return row.astype(np.float64)


def _feature_matrix(frame: pd.DataFrame, what: str) -> np.ndarray:
    """Stack the ``features`` column into a float64 matrix, with clear errors."""
    values = frame["features"].to_numpy()
    try:
        rows = [_real_row(v, i, frame, what) for i, v in enumerate(values)]
    except (TypeError, ValueError) as e:
        if isinstance(e, _NotReal):
            raise
        raise TypeError(f"{what}: features must be numeric arrays ({e})") from e
    bad_dim = next((i for i, r in enumerate(rows) if r.ndim != 1), None)
    if bad_dim is not None:
        raise ValueError(
            f"{what}: features must be 1-d arrays; row {bad_dim} has shape {rows[bad_dim].shape}"
        )
    lengths = np.fromiter((r.shape[0] for r in rows), dtype=np.int64, count=len(rows))
    if lengths.min() != lengths.max():
        first = int(np.argmax(lengths != lengths[0]))
        raise ValueError(
            f"{what}: ragged features, rows have between {lengths.min()} and {lengths.max()} "
            f"features (row 0 has {lengths[0]}, row {first} has {lengths[first]})"
        )
    if lengths[0] == 0:
        raise ValueError(f"{what}: features are empty arrays")
    matrix = np.stack(rows)
    # NaN is LightGBM's missing value (a documented policy); an infinite value is a bug upstream.
    infinite = np.isinf(matrix)
    if infinite.any():
        i, j = (int(k[0]) for k in np.nonzero(infinite))
        raise ValueError(
            f"{what}: {int(infinite.any(axis=1).sum())} row(s) have infinite features, e.g. feature {j} "
            f"of qid {frame['qid'].iloc[i]!r} docno {frame['docno'].iloc[i]!r}; NaN (missing) is "
            f"accepted, ±inf is not"
        )
    return matrix


def _real_column(values: pd.Series, what: str) -> np.ndarray:
    """A numeric column as float64 (text that is not a number: NaN); complex values refused."""
    numeric = pd.to_numeric(values, errors="coerce")
    if numeric.dtype.kind == "c" or (
        numeric.dtype.kind == "O" and any(isinstance(x, complex) for x in numeric)
    ):
        raise TypeError(f"{what} are complex numbers: a score must be real (take .real or abs() first)")
    return numeric.to_numpy(dtype=np.float64)


def _baseline_column(spec: BaselineSpec, frame: pd.DataFrame, features: np.ndarray, name: str) -> np.ndarray:
    """Per-row scores of one baseline ranking of the candidates in ``frame`` (row-aligned)."""
    if isinstance(spec, pt.Transformer):
        scored = spec.transform(frame.drop(columns=["label"]))
        if not isinstance(scored, pd.DataFrame) or not {"qid", "docno", "score"} <= set(scored.columns):
            raise ValueError(f"{name}: transformer {spec!r} must return a frame with qid, docno and score")
        scored = scored[["qid", "docno", "score"]]
        if scored.duplicated(["qid", "docno"]).any():
            raise ValueError(f"{name}: transformer {spec!r} returned the same (qid, docno) more than once")
        joined = frame[["qid", "docno"]].merge(scored, on=["qid", "docno"], how="left", indicator=True)
        missing = int((joined["_merge"] == "left_only").sum())
        if missing:
            raise ValueError(
                f"{name}: transformer {spec!r} did not score {missing} of the {len(frame)} "
                f"training candidates; a baseline must re-score every candidate"
            )
        column = _real_column(joined["score"], f"{name}: transformer {spec!r} scores")
    elif isinstance(spec, (int, np.integer)):
        if not 0 <= spec < features.shape[1]:
            raise ValueError(f"{name}: feature index {spec} out of range for {features.shape[1]} features")
        column = features[:, int(spec)]
    else:
        if spec not in frame.columns:
            hint = " (the first-stage score: put the re-ranker after a retriever)" if spec == "score" else ""
            raise ValueError(f"{name}: the training results have no column {spec!r}{hint}")
        column = _real_column(frame[spec], f"{name}: column {spec!r}")
    n_bad = int(np.sum(~np.isfinite(column)))
    if n_bad:
        raise ValueError(
            f"{name} {spec!r}: {n_bad} of the {len(column)} training candidates have no "
            f"finite baseline score; a baseline must cover every row"
        )
    return column
