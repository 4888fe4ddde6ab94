"""Risk-sensitive neural learning to rank as a PyTerrier estimator: :class:`RiskNeuralRanker`.

The neural counterpart of :class:`~._lambdamart.RiskLambdaMART`: the same frames (``features``,
qrels, baselines given as columns, feature indices or transformers; :mod:`._frames`), the same
registered objectives and ``objective_params``, trained by :func:`~._neural_loss.risk_loss`
(LambdaLoss with the objective's pair weights) on an MLP or a small slate transformer
(:mod:`._neural_models`). The folder it saves is a ``pt.Artifact`` (:mod:`._neural_persistence`).
PyTorch is imported when the estimator is built (a one-line ImportError naming the extra without it).
"""

from __future__ import annotations

import contextlib
import hashlib
import inspect
import math
import os
import sys
import warnings
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pyterrier as pt

from ..core import check_alpha
from ._frames import BaselineSpec, baseline_column, labelled, refuse_features, scoring_input
from ._ndcg import discounts, inverse_max_dcg, ndcg_at, stable_desc_order
from ._neural_loss import LossSettings, loss_settings, require_torch, weighted_loss
from ._neural_persistence import NEURAL_ARTIFACT_FORMAT, read_neural, save_neural, weights_bytes
from ._options import check_count, check_flag
from ._persistence import (
    ARTIFACT_PACKAGE_HINT,
    OBJECTIVE_MODULE,
    import_objective,
    objective_module,
    spec_to_json,
)
from ._progress import report_step
from .objectives import REFERENCE_OBJECTIVE, get_objective

__all__ = ["RiskNeuralRanker", "load_neural_artifact"]

_MODELS = ("mlp", "transformer")


class RiskNeuralRanker(pt.Estimator, pt.Artifact):
    """Risk-sensitive neural re-ranker over the ``features`` column (PyTorch): a transformer and estimator.

    Composes as ``retriever >> features >> RiskNeuralRanker(...)``. ``fit`` trains a scorer
    (``model="mlp"`` or ``"transformer"``) with :func:`~pyterrier_risk.risk_loss`: LambdaLoss whose
    pair weight ``|ΔNDCG|`` is the registered objective's ``|ΔM′|`` (at ``alpha=0``, allRank's
    ``lambdaLoss`` with the LambdaRank weights). Each batch of ``batch_size`` training queries is a
    round of the objective: its statistics (the model's and baselines' NDCG@``cutoff``, T-FARO's
    ``s_x``, GeoRisk's matrix) are those of the batch. Features are standardised by the training
    set's mean and standard deviation. Training is seeded (``seed``) and, on CPU, deterministic:
    the same data and parameters give the same weights (:meth:`weights_sha256`); the global RNG,
    thread count and determinism setting of torch are restored afterwards.

    ``baseline`` / ``baselines`` mean what they mean for :class:`~pyterrier_risk.RiskLambdaMART`
    (``'score'``, a feature index, a column name or a transformer re-scoring the candidates); a
    multiple-baseline objective falls back to ``[baseline]``.

    Args:
        objective: a registered objective's name.
        alpha: risk sensitivity α ≥ 0.
        baseline: the single baseline (objectives whose ``baseline`` is ``'single'``).
        baselines: several baselines (``'multiple'``).
        model: ``"mlp"`` (document-wise) or ``"transformer"`` (self-attention over the slate).
        objective_params: the objective's options (e.g. ``faro_tr``) and the loss's ``sigma`` and
            ``label_gain`` (:func:`~pyterrier_risk.risk_loss`).
        cutoff: NDCG cutoff of the objective's per-query M and of early stopping.
        epochs: the most epochs (passes over the training queries).
        early_stopping: with a validation set, stop after this many epochs without a better
            validation NDCG@``cutoff`` and keep the best epoch's weights (None: never stop early).
        batch_size: training queries per batch (one round of the objective).
        lr: Adam's learning rate.
        hidden: the MLP's hidden layer sizes; for the transformer, ``hidden[0]`` is the model width
            (even: two heads) and ``len(hidden)`` the number of encoder layers.
        dropout: dropout probability in training.
        seed: seeds the initial weights, the batches' order and dropout.
        device: ``"auto"`` (CUDA when present, else CPU), ``"cpu"``, ``"cuda"`` or ``"cuda:N"``.
        threads: torch's CPU threads while fitting and scoring (None: torch's setting). Identical
            weights need the same thread count (torch splits its sums by thread): give one (e.g.
            1) for results that do not depend on the machine.
        verbose: print one line per epoch (loss, validation NDCG) to stderr.

    Attributes:
        best_iteration_: the epochs kept (1-based): the best validation epoch, or ``epochs`` run.
        validation_ndcg_: validation NDCG@``cutoff`` after each epoch (empty without validation).
        train_loss_: mean training loss per batch of each epoch.
        num_features_: the number of features the scorer reads.
        path: the folder of the last :meth:`save` or :meth:`load`.
    """

    ARTIFACT_TYPE = "ltr_model"
    ARTIFACT_FORMAT = NEURAL_ARTIFACT_FORMAT
    ARTIFACT_PACKAGE_HINT = ARTIFACT_PACKAGE_HINT

    def __init__(
        self,
        objective: str = REFERENCE_OBJECTIVE,
        *,
        alpha: float = 0.0,
        baseline: BaselineSpec | None = None,
        baselines: Sequence[BaselineSpec] | None = None,
        model: str = "mlp",
        objective_params: dict[str, Any] | None = None,
        cutoff: int = 10,
        epochs: int = 100,
        early_stopping: int | None = 10,
        batch_size: int = 64,
        lr: float = 1e-3,
        hidden: Sequence[int] = (64, 32),
        dropout: float = 0.1,
        seed: int = 0,
        device: str = "auto",
        threads: int | None = None,
        verbose: bool = False,
    ) -> None:
        require_torch()
        get_objective(objective)
        self.objective = objective
        self.alpha = check_alpha(alpha)
        self.baseline, self.baselines = _checked_baselines(baseline, baselines)
        if model not in _MODELS:
            raise ValueError(f"model must be one of {', '.join(map(repr, _MODELS))}, got {model!r}")
        self.model = model
        if objective_params is not None and not isinstance(objective_params, dict):
            raise TypeError("objective_params must be a dict or None")
        self.objective_params = None if objective_params is None else dict(objective_params)
        self.cutoff = int(check_count(cutoff, "cutoff"))
        self._settings = self._loss_settings()
        self.epochs = int(check_count(epochs, "epochs"))
        self.early_stopping = check_count(early_stopping, "early_stopping", allow_none=True)
        self.batch_size = int(check_count(batch_size, "batch_size"))
        self.lr = _positive(lr, "lr")
        self.hidden = _checked_hidden(hidden, model)
        self.dropout = _probability(dropout)
        self.seed = int(check_count(seed, "seed", minimum=0))
        self.device = _checked_device(device)
        self.threads = check_count(threads, "threads", allow_none=True)
        self.verbose = check_flag(verbose, "verbose")
        self.scorer_: Any = None
        self.num_features_: int | None = None
        self.mean_: np.ndarray | None = None
        self.std_: np.ndarray | None = None
        self.best_iteration_: int | None = None
        self.validation_ndcg_: np.ndarray = np.empty(0)
        self.train_loss_: np.ndarray = np.empty(0)
        self.path: Any = pt.Artifact.NO_PATH

    def _loss_settings(self) -> LossSettings:
        options = dict(self.objective_params or {})
        own = sorted(set(options) & ({"alpha", "cutoff", "baseline", "baselines", "k", "mask"}))
        if own:
            raise TypeError(f"objective_params must not set {own[0]!r}: it is a RiskNeuralRanker parameter")
        return loss_settings(self.objective, self.alpha, None, {**options, "cutoff": self.cutoff})

    def __repr__(self) -> str:
        args = [repr(self.objective)]
        args += [
            f"{name}={getattr(self, name)!r}" for name, d in _defaults().items() if getattr(self, name) != d
        ]
        return f"RiskNeuralRanker({', '.join(args)})"

    # ------------------------------------------------------------------ fit
    def fit(
        self,
        topics_or_res_tr: pd.DataFrame,
        qrels_tr: pd.DataFrame,
        topics_or_res_va: pd.DataFrame | None = None,
        qrels_va: pd.DataFrame | None = None,
    ) -> RiskNeuralRanker:
        """Train on labelled candidates; early-stop on validation NDCG@``cutoff`` given a validation set.

        Labels come from the qrels (unjudged candidates: 0) and must be integers in the gains'
        range; features must be finite (NaN refused: a network has no missing values).

        Returns:
            self, trained.
        """
        torch = require_torch()
        if (topics_or_res_va is None) != (qrels_va is None):
            raise ValueError("give both topics_or_res_va and qrels_va, or neither")
        n_gains = len(self._settings.label_gain)
        train, x, y, sizes = labelled(topics_or_res_tr, qrels_tr, "training", n_gains=n_gains, context=self)
        _check_finite(x, train, "training results")
        starts = np.concatenate([[0], np.cumsum(sizes)[:-1]])
        if np.all(np.maximum.reduceat(y, starts) == np.minimum.reduceat(y, starts)):
            raise ValueError(
                f"none of the {len(sizes)} training queries has two different labels among its candidates: "
                "there is nothing to learn"
            )
        base = self._baseline_matrix(train, x)
        valid = None
        if topics_or_res_va is not None:
            frame_va, x_va, y_va, sizes_va = labelled(
                topics_or_res_va, qrels_va, "validation", n_gains=n_gains, context=self
            )
            _check_finite(x_va, frame_va, "validation results")
            if x_va.shape[1] != x.shape[1]:
                raise ValueError(
                    f"validation features have {x_va.shape[1]} columns, training features {x.shape[1]}"
                )
            valid = (x_va, y_va, sizes_va)
        self.mean_ = x.mean(axis=0)
        std = x.std(axis=0)
        self.std_ = np.where(std > 0, std, 1.0)
        self.num_features_ = int(x.shape[1])
        with _torch_state(torch, self.seed, self.threads, self._device(torch)) as device:
            self._train(torch, device, (x, y, sizes, base), valid)
        return self

    def _train(self, torch: Any, device: Any, training: tuple, valid: tuple | None) -> None:
        """The epochs: Adam on the batches' risk loss, validation NDCG after each, the best epoch kept."""
        from ._neural_models import build_model

        x, y, sizes, base = training
        batches = _Slates(self._normalised(x), y, sizes, base, torch, device)
        scorer = build_model(self.model, x.shape[1], self.hidden, self.dropout).to(device)
        optimiser = torch.optim.Adam(scorer.parameters(), lr=self.lr)
        order_gen = torch.Generator().manual_seed(self.seed)
        curve: list[float] = []
        losses: list[float] = []
        best, best_state, waited = -math.inf, None, 0
        for epoch in range(1, self.epochs + 1):
            scorer.train()
            losses.append(self._epoch(torch, scorer, optimiser, batches, order_gen, epoch))
            report_step(epoch, self.epochs)
            if valid is None:
                self._say(epoch, losses[-1], None)
                continue
            curve.append(self._validation_ndcg(torch, scorer, device, valid))
            self._say(epoch, losses[-1], curve[-1])
            if curve[-1] > best:
                best, waited = curve[-1], 0
                best_state = {k: v.detach().clone() for k, v in scorer.state_dict().items()}
                self.best_iteration_ = epoch
            else:
                waited += 1
                if self.early_stopping is not None and waited >= self.early_stopping:
                    break
        if best_state is not None:
            scorer.load_state_dict(best_state)
        else:
            self.best_iteration_ = self.epochs
        scorer.eval()
        self.scorer_ = scorer
        self.validation_ndcg_ = np.asarray(curve, dtype=np.float64)
        self.train_loss_ = np.asarray(losses, dtype=np.float64)

    def _epoch(
        self, torch: Any, scorer: Any, optimiser: Any, batches: _Slates, gen: Any, epoch: int
    ) -> float:
        """One pass over the training queries in a seeded order; the mean batch loss (finite, or an error)."""
        order = torch.randperm(batches.n_queries, generator=gen).numpy()
        total = 0.0
        n = 0
        for start in range(0, len(order), self.batch_size):
            feats, labels, present, base = batches.batch(order[start : start + self.batch_size])
            scores = scorer(feats, present)
            if not bool(torch.isfinite(scores[present]).all()):
                raise ValueError(
                    f"epoch {epoch}: the model's scores are not finite (training diverged); lower lr or alpha"
                )
            kwargs = {} if base is None else _baseline_kwargs(self._settings, base)
            loss = weighted_loss(self._settings, scores, labels, mask=present, **kwargs)
            if not bool(torch.isfinite(loss)):
                raise ValueError(
                    f"epoch {epoch}: the training loss is not finite ({float(loss)}); lower lr or alpha, "
                    f"or check the features' scale"
                )
            optimiser.zero_grad()
            loss.backward()
            optimiser.step()
            total += float(loss.detach())
            n += 1
        return total / max(n, 1)

    def _validation_ndcg(self, torch: Any, scorer: Any, device: Any, valid: tuple) -> float:
        """Mean NDCG@``cutoff`` over the validation queries that have a relevant document."""
        x_va, y_va, sizes_va = valid
        scorer.eval()
        scores = _score_queries(torch, scorer, device, self._normalised(x_va), sizes_va)
        qstart = np.concatenate([[0], np.cumsum(sizes_va)]).astype(np.int64)
        gain, disc = self._settings.label_gain, discounts(int(sizes_va.max()))
        labels = y_va.astype(np.int32)
        inv = inverse_max_dcg(labels, qstart, gain, disc, self.cutoff)
        ndcg = ndcg_at(stable_desc_order(scores, qstart), labels, qstart, gain, disc, inv, self.cutoff)
        judged = inv > 0
        return float(ndcg[judged].mean()) if judged.any() else 0.0

    def _say(self, epoch: int, loss: float, ndcg: float | None) -> None:
        if self.verbose:
            shown = "" if ndcg is None else f", validation NDCG@{self.cutoff} {ndcg:.4f}"
            print(
                f"RiskNeuralRanker({self.objective}) epoch {epoch}: loss {loss:.4f}{shown}", file=sys.stderr
            )

    def _normalised(self, x: np.ndarray) -> np.ndarray:
        assert self.mean_ is not None and self.std_ is not None
        return ((x - self.mean_) / self.std_).astype(np.float32)

    def _device(self, torch: Any) -> Any:
        return _resolve_device(torch, self.device)

    def _baseline_matrix(self, train: pd.DataFrame, features: np.ndarray) -> np.ndarray | None:
        """Rows × systems scores of the objective's baselines on the training rows (None: it takes none)."""
        needs = get_objective(self.objective).baseline
        if needs == "none":
            return None
        if needs == "single":
            if self.baseline is None:
                raise ValueError(f"objective {self.objective!r} needs a baseline (baseline=...)")
            return baseline_column(self.baseline, train, features, "baseline")[:, None]
        specs = self.baselines if self.baselines is not None else [self.baseline]
        if specs == [None]:
            raise ValueError(f"objective {self.objective!r} needs baselines=[...] (or baseline=...)")
        if any(spec is None for spec in specs):
            raise ValueError(
                "a baseline was a transformer that save() could not store; give the baselines again"
            )
        columns = [baseline_column(spec, train, features, f"baselines[{i}]") for i, spec in enumerate(specs)]
        return np.column_stack(columns)

    # ------------------------------------------------------------------ transform
    def transform(self, inp: pd.DataFrame) -> pd.DataFrame:
        """Score the candidates of ``inp`` by ``features`` (``score`` replaced, ``rank`` recomputed)."""
        out, features = scoring_input(self, inp, self.scorer_ is not None, self.num_features_)
        if features is None:
            return out
        _check_finite(features, inp, "transform input")
        codes, _ = pd.factorize(inp["qid"])
        order = np.argsort(codes, kind="stable")
        sizes = np.bincount(codes)
        torch = require_torch()
        with _torch_state(torch, self.seed, self.threads, self._device(torch)) as device:
            self.scorer_.to(device).eval()
            scores = _score_queries(torch, self.scorer_, device, self._normalised(features[order]), sizes)
        out["score"] = np.empty(len(out))
        out.iloc[order, out.columns.get_loc("score")] = scores
        return pt.model.add_ranks(out)

    def transform_outputs(self, inp_cols: list[str]) -> list[str]:
        """Output columns for ``pt.inspect``: the input columns plus ``score`` and ``rank``."""
        pt.validate.result_frame(inp_cols, extra_columns=["features"], context=self)
        return [*inp_cols, *(c for c in ("score", "rank") if c not in inp_cols)]

    # ------------------------------------------------------------------ save / load
    def weights_sha256(self) -> str:
        """The SHA-256 (hex) of the weights as :meth:`save` writes them (safetensors bytes)."""
        if self.scorer_ is None:
            raise ValueError("RiskNeuralRanker is not trained: it has no weights")
        return hashlib.sha256(weights_bytes(self.scorer_.state_dict())).hexdigest()

    def save(self, path: str | os.PathLike) -> None:
        """Save to the folder ``path``: ``model.safetensors``, ``risk_neural.json``, ``pt_meta.json``.

        Written whole or not at all; ``pt.Artifact.load(path)`` and :meth:`load` read it back and
        give identical scores.
        """
        if self.scorer_ is None:
            raise ValueError("RiskNeuralRanker is not trained: nothing to save")
        assert self.mean_ is not None and self.std_ is not None
        params: dict[str, Any] = {"objective": self.objective}
        params.update({name: getattr(self, name) for name in _defaults()})
        params["hidden"] = list(self.hidden)
        params.update(_stored_baselines(self.baseline, self.baselines))
        module = objective_module(get_objective(self.objective))
        if module is not None:
            params[OBJECTIVE_MODULE] = module
        config = {
            "params": params,
            "num_features": self.num_features_,
            "mean": self.mean_.tolist(),
            "std": self.std_.tolist(),
            "best_iteration": self.best_iteration_,
            "validation_ndcg": self.validation_ndcg_.tolist(),
        }
        save_neural(Path(path), weights_bytes(self.scorer_.state_dict()), config)
        self.path = Path(path)

    @classmethod
    def load(cls, path: str | os.PathLike, **overrides: Any) -> RiskNeuralRanker:
        """Load a model written by :meth:`save` (``overrides``: constructor parameters, e.g. ``device``)."""
        require_torch()
        path = Path(path)
        meta, state = read_neural(path)
        config_file = path / "risk_neural.json"
        params = {**meta["params"], **overrides}
        import_objective(params["objective"], params.pop(OBJECTIVE_MODULE, None), config_file)
        if isinstance(params.get("baselines"), list) and None in params["baselines"]:
            params["baselines"] = None
        try:
            model = cls(params.pop("objective"), **params)
        except (TypeError, ValueError) as e:
            raise type(e)(f"{config_file}: the stored parameters (and overrides) are refused: {e}") from None
        from ._neural_models import build_model

        scorer = build_model(model.model, meta["num_features"], model.hidden, model.dropout)
        try:
            scorer.load_state_dict(state, strict=True)
        except RuntimeError as e:
            first = str(e).strip().splitlines()[0]
            raise ValueError(f"{path}: the weights do not fit the stored model ({first})") from None
        model.scorer_ = scorer.eval()
        model.num_features_ = meta["num_features"]
        model.mean_ = np.asarray(meta["mean"], dtype=np.float64)
        model.std_ = np.asarray(meta["std"], dtype=np.float64)
        model.best_iteration_ = meta["best_iteration"]
        model.validation_ndcg_ = np.asarray(meta["validation_ndcg"], dtype=np.float64)
        model.path = path
        return model


# ---------------------------------------------------------------------- batches
class _Slates:
    """The training queries as padded slates on the device, one batch of queries at a time."""

    def __init__(self, x: np.ndarray, y: np.ndarray, sizes: np.ndarray, base: np.ndarray | None,
                 torch: Any, device: Any) -> None:  # fmt: skip
        self.torch, self.device = torch, device
        self.n_queries = len(sizes)
        self.sizes = sizes.astype(np.int64)
        self.starts = np.concatenate([[0], np.cumsum(sizes)[:-1]]).astype(np.int64)
        self.x = torch.as_tensor(x, device=device)
        self.y = torch.as_tensor(y.astype(np.int64), device=device)
        self.base = None if base is None else torch.tensor(base, dtype=torch.float64, device=device)

    def batch(self, queries: np.ndarray) -> tuple[Any, Any, Any, Any]:
        """Features ``[B, L, F]``, labels ``[B, L]`` (−1: padding), presence mask, baselines ``[B, L, S]``."""
        torch = self.torch
        sizes = self.sizes[queries]
        width = int(sizes.max())
        offsets = np.arange(width)[None, :]
        present = offsets < sizes[:, None]
        rows = torch.as_tensor(
            np.where(present, self.starts[queries][:, None] + offsets, 0), device=self.device
        )
        mask = torch.as_tensor(present, device=self.device)
        feats = self.x[rows] * mask[..., None]
        labels = torch.where(mask, self.y[rows], torch.full_like(rows, -1))
        base = None if self.base is None else self.base[rows]
        return feats, labels, mask, base


def _baseline_kwargs(settings: LossSettings, base: Any) -> dict[str, Any]:
    return {"baseline": base[..., 0]} if settings.spec.baseline == "single" else {"baselines": base}


def _score_queries(torch: Any, scorer: Any, device: Any, x: np.ndarray, sizes: np.ndarray) -> np.ndarray:
    """Scores of rows grouped by query (contiguous, ``sizes``), in padded batches without gradients."""
    slates = _Slates(x, np.zeros(len(x), dtype=np.int64), sizes, None, torch, device)
    out = np.empty(len(x), dtype=np.float64)
    per_batch = max(1, 65_536 // max(int(sizes.max()), 1))
    with torch.no_grad():
        for start in range(0, len(sizes), per_batch):
            queries = np.arange(start, min(start + per_batch, len(sizes)))
            feats, _, mask, _ = slates.batch(queries)
            scores = scorer(feats, mask).double().cpu().numpy()
            rows = slates.starts[queries][:, None] + np.arange(mask.shape[1])[None, :]
            present = mask.cpu().numpy()
            out[rows[present]] = scores[present]
    return out


@contextlib.contextmanager
def _torch_state(torch: Any, seed: int, threads: int | None, device: Any) -> Iterator[Any]:
    """Seeded, deterministic (on CPU) torch for the block; the global RNG and settings restored after."""
    devices = [device.index or 0] if device.type == "cuda" else []
    previous_threads = torch.get_num_threads()
    deterministic = torch.are_deterministic_algorithms_enabled()
    warn_only = torch.is_deterministic_algorithms_warn_only_enabled()
    with torch.random.fork_rng(devices=devices):
        torch.manual_seed(seed)
        try:
            if threads is not None:
                torch.set_num_threads(threads)
            if device.type == "cpu":
                torch.use_deterministic_algorithms(True)
            yield device
        finally:
            torch.use_deterministic_algorithms(deterministic, warn_only=warn_only)
            torch.set_num_threads(previous_threads)


def _stored_baselines(baseline: Any, baselines: list[Any] | None) -> dict[str, Any]:
    """The baselines as ``save`` stores them: a transformer cannot be stored and becomes None (a warning)."""
    with warnings.catch_warnings(record=True) as caught:  # spec_to_json names RiskLambdaMART in its warning
        warnings.simplefilter("always")
        stored: dict[str, Any] = {"baseline": spec_to_json(baseline, "baseline")}
        if baselines is not None:
            stored["baselines"] = [spec_to_json(s, f"baselines[{i}]") for i, s in enumerate(baselines)]
    for w in caught:
        warnings.warn(str(w.message).replace("RiskLambdaMART", "RiskNeuralRanker"), w.category, stacklevel=3)
    return stored


# ---------------------------------------------------------------------- checks
def _defaults() -> dict[str, Any]:
    """RiskNeuralRanker's keyword parameters and their defaults: its signature is the one source."""
    params = inspect.signature(RiskNeuralRanker.__init__).parameters.values()
    return {p.name: p.default for p in params if p.kind is inspect.Parameter.KEYWORD_ONLY}


def _checked_baselines(baseline: Any, baselines: Any) -> tuple[Any, list[Any] | None]:
    from ._lambdamart import _check_spec

    if baseline is not None:
        _check_spec(baseline, "baseline")
    if baselines is None:
        return baseline, None
    if isinstance(baselines, (str, int, pt.Transformer)):
        raise TypeError("baselines must be a list of baselines, e.g. baselines=[0, 'score']")
    baselines = list(baselines)
    if not baselines:
        raise ValueError("baselines is empty; give at least one baseline or None")
    for i, spec in enumerate(baselines):
        if spec is not None:
            _check_spec(spec, f"baselines[{i}]")
    return baseline, baselines


def _positive(value: Any, name: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise TypeError(f"{name} must be a number > 0, got {value!r}")
    if not (math.isfinite(value) and value > 0):
        raise ValueError(f"{name} must be a finite number > 0, got {value!r}")
    return float(value)


def _probability(value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise TypeError(f"dropout must be a number in [0, 1), got {value!r}")
    if not 0 <= value < 1:
        raise ValueError(f"dropout must be in [0, 1), got {value!r}")
    return float(value)


def _checked_hidden(hidden: Any, model: str) -> tuple[int, ...]:
    if isinstance(hidden, (str, bytes)) or not isinstance(hidden, Sequence) or not hidden:
        raise TypeError(f"hidden must be a non-empty sequence of layer sizes, e.g. (64, 32), got {hidden!r}")
    sizes = tuple(int(check_count(h, "hidden sizes")) for h in hidden)
    if model == "transformer" and sizes[0] % 2:
        raise ValueError(
            f"the transformer's width hidden[0] must be even (two attention heads), got {sizes[0]}"
        )
    return sizes


def _checked_device(device: Any) -> str:
    if not isinstance(device, str) or not (
        device in ("auto", "cpu", "cuda") or (device.startswith("cuda:") and device[5:].isdigit())
    ):
        raise ValueError(f"device must be 'auto', 'cpu', 'cuda' or 'cuda:N', got {device!r}")
    if device.startswith("cuda"):
        _resolve_device(require_torch(), device)
    return device


def _resolve_device(torch: Any, device: str) -> Any:
    """The torch device for ``device``; a one-line error for CUDA on a machine without it."""
    if device == "auto":
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    if device.startswith("cuda"):
        if not torch.cuda.is_available():
            raise ValueError(
                f"device={device!r} but PyTorch sees no CUDA device here; use device='cpu' or 'auto'"
            )
        index = int(device[5:]) if ":" in device else 0
        if index >= torch.cuda.device_count():
            raise ValueError(f"device={device!r} but PyTorch sees {torch.cuda.device_count()} CUDA device(s)")
    return torch.device(device)


_NAN_HINT = "the neural learner needs every feature (impute them first)"


def _check_finite(x: np.ndarray, frame: pd.DataFrame, what: str) -> None:
    """A network reads no missing value: NaN features are refused (LightGBM's missing values are not).

    ``x`` comes from :func:`~._frames.feature_matrix`, which refused ±inf already.
    """
    refuse_features(np.isnan(x), frame, what, "NaN", _NAN_HINT)


def load_neural_artifact(path: str | os.PathLike, **overrides: Any) -> RiskNeuralRanker:
    """Load a saved RiskNeuralRanker: ``pt.Artifact.load(path)``'s entry point (``ltr_model.risk_neural``).

    Args:
        path: the folder written by :meth:`RiskNeuralRanker.save`.
        **overrides: constructor parameters replacing the stored ones.

    Returns:
        The loaded model.
    """
    return RiskNeuralRanker.load(path, **overrides)
