"""The neural learner of a learning study (``pyterrier-risk learn --learner neural``).

The study's tasks, folds, task store, tables and output are the same for both learners; only the fit
differs. With ``learner='neural'`` a task fits :class:`~pyterrier_risk.RiskNeuralRanker` (the objective's
weight rule on LambdaLoss's pair weights) instead of :class:`~pyterrier_risk.RiskLambdaMART`, and every
model is compared with the neural ``'lambdarank'`` model of the same seed at α 0 (LambdaLoss with the
LambdaRank weights), never with LightGBM's.

How the study's settings map onto the estimator:

* ``rounds`` (``--rounds``) is the cap on epochs, ``early_stopping`` (``--early-stopping``) the patience
  in epochs on the validation split's NDCG@10 (None: every epoch is trained, the last one kept);
* ``seeds`` are the estimator's ``seed`` (initialisation, dropout and batch order), ``threads`` its
  ``threads`` (PyTorch's intra-op threads, and numba's for the pair rules);
* ``params`` (``--param name=value``) are the estimator's own keyword arguments (``lr``, ``hidden``,
  ``batch_size``, ``dropout``, ``model``, ...), read as LightGBM's are: ``hidden=64,32`` is a list;
* ``device`` (``--device``): ``'cpu'`` by default in a study, where PyTorch runs deterministically
  (``torch.use_deterministic_algorithms``), so that a study gives byte-identical results on any worker
  count, on Dask and on a rerun; ``'auto'`` is resolved once, before any task runs, to ``'cuda'``
  where CUDA is present (else ``'cpu'``), and the device used is part of each task's key.
"""

from __future__ import annotations

import inspect
from typing import Any

import numpy as np

from ._errors import SettingError, StudyError

__all__ = [
    "DEFAULT_LEARNER",
    "DEFAULT_NEURAL_DEVICE",
    "LEARNERS",
    "NEURAL_EXTRA",
    "check_learner",
    "check_neural_models",
    "learner_key",
    "train_neural",
]

LEARNERS: tuple[str, ...] = ("lambdamart", "neural")
DEFAULT_LEARNER = "lambdamart"
DEFAULT_NEURAL_DEVICE = "cpu"  # deterministic: the same per-query results on any worker count
NEURAL_EXTRA = 'pip install "pyterrier-risk[neural]"'
#: RiskNeuralRanker's parameters that the study sets itself, with the setting that sets them
_STUDY_SET = {
    "objective": "⟨objectives⟩", "alpha": "⟨alphas⟩", "baseline": "⟨baseline⟩", "baselines": "⟨baselines⟩",
    "objective_params": "⟨options⟩", "cutoff": "always 10 (NDCG@10)", "epochs": "⟨rounds⟩",
    "early_stopping": "⟨early_stopping⟩", "seed": "⟨seeds⟩", "device": "⟨device⟩", "threads": "⟨threads⟩",
    "verbose": "always false",
}  # fmt: skip


def _require_torch() -> None:
    """A one-line StudyError naming the extra when PyTorch is not installed."""
    try:
        import torch  # noqa: F401 - only whether it imports
    except ImportError:
        raise SettingError(f"⟨learner⟩ neural needs PyTorch: {NEURAL_EXTRA}") from None


def _device(device: Any) -> str:
    """The study's device: ``'cpu'``, ``'cuda'``/``'cuda:N'`` (CUDA present), or ``'auto'`` resolved."""
    import torch

    text = DEFAULT_NEURAL_DEVICE if device is None else str(device).strip().lower()
    if text == "auto":
        return "cuda" if torch.cuda.is_available() else "cpu"
    if text == "cpu":
        return text
    if text == "cuda" or (text.startswith("cuda:") and text[5:].isdigit()):
        if not torch.cuda.is_available():
            raise SettingError(f"⟨device⟩ {text}: CUDA is not available here (give ⟨device=cpu⟩ or auto)")
        return text
    raise SettingError(f"⟨device⟩ {device!r}: expected cpu, cuda, cuda:N or auto")


def check_learner(learner: Any, device: Any) -> tuple[str, str | None]:
    """The checked ``(learner, device)`` of a study; the device is None for LightGBM.

    Raises:
        StudyError: an unknown learner, ``device`` with ``learner='lambdamart'``, a bad or unavailable
            device, or ``'neural'`` without PyTorch (the message names the extra).
    """
    name = DEFAULT_LEARNER if learner is None else str(learner)
    if name not in LEARNERS:
        raise SettingError(f"⟨learner⟩ {learner!r}: expected one of {', '.join(LEARNERS)}")
    if name == "lambdamart":
        if device is not None:
            raise SettingError("⟨device⟩ applies to ⟨learner=neural⟩ (LightGBM runs on the CPU here)")
        return name, None
    _require_torch()
    return name, _device(device)


def learner_key(settings: Any) -> dict[str, Any]:
    """What the task key adds for the learner: nothing for LightGBM (its keys stay as they were)."""
    if settings.learner == DEFAULT_LEARNER:
        return {}
    import torch

    return {"learner": settings.learner, "device": settings.device, "torch": torch.__version__}


def _ranker() -> Any:
    try:
        from ..learning import RiskNeuralRanker
    except ImportError as e:  # torch missing, or a broken install
        raise SettingError(f"⟨learner⟩ neural: {' '.join(str(e).split())}") from None
    return RiskNeuralRanker


def _params(settings: Any) -> dict[str, Any]:
    """``--param`` as RiskNeuralRanker's keyword arguments (lists as lists), checked by name."""
    accepted = set(inspect.signature(_ranker()).parameters) - set(_STUDY_SET)
    params = {}
    for name, value in settings.params:
        if name in _STUDY_SET:
            raise SettingError(f"⟨params⟩ {name}: the study sets it ({_STUDY_SET[name]})")
        if name not in accepted:
            raise SettingError(f"⟨params⟩ {name}: not a parameter of RiskNeuralRanker (it takes "
                             f"{', '.join(sorted(accepted))})")
        params[name] = list(value) if isinstance(value, tuple) else value
    return params


def neural_model(settings: Any, objective: str, alpha: float, seed: int, options: dict[str, Any] | None,
                 cutoff: int) -> Any:
    """The (unfitted) RiskNeuralRanker of one task (the study's ``base:`` columns as its baselines).

    ``options`` are the objective's options (``objective_params``), ``cutoff`` the study's NDCG cutoff.
    """
    single = None if settings.baseline is None else f"base:{settings.baseline.name}"
    return _ranker()(
        objective, alpha=alpha, baseline=single,
        baselines=[f"base:{b.name}" for b in settings.baselines] or None,
        objective_params=options, cutoff=cutoff, epochs=settings.rounds,
        early_stopping=settings.early_stopping, seed=seed, device=settings.device, threads=settings.threads,
        verbose=False, **_params(settings),
    )  # fmt: skip


def check_neural_models(settings: Any, models: list[tuple[str, float, dict[str, Any] | None]],
                        cutoff: int) -> None:
    """Build (not fit) every neural model of the study once, before any data is read.

    Args:
        settings: the study's settings.
        models: ``(objective, α, options)`` of each model kind (the reference first).
        cutoff: the study's NDCG cutoff.

    Raises:
        StudyError: a ``--param`` the estimator does not take or refuses, or a refused objective option.
    """
    for name, alpha, options in models:
        try:
            neural_model(settings, name, alpha, 0, options, cutoff)
        except (TypeError, ValueError) as e:
            if isinstance(e, StudyError):
                raise
            raise StudyError(f"{name}: {' '.join(str(e).split())}") from None


def train_neural(task: Any, fold: dict[str, Any], options: dict[str, Any] | None,
                 cutoff: int) -> tuple[Any, str, np.ndarray, int]:
    """Fit the task's neural model on the fold's training split, early-stopped on its validation split.

    ``options`` are the task objective's options, ``cutoff`` the study's NDCG cutoff.

    Returns:
        ``(model, sha256, curve, best_iteration)``: the fitted model, the digest of its saved weights,
        the validation NDCG@10 after each epoch up to the epoch it scores with, and that epoch (1-based).
    """
    import numba

    config: Any = numba.config  # numba sets its config attributes from the environment at import
    numba.set_num_threads(min(task.settings.threads, config.NUMBA_NUM_THREADS))
    model = neural_model(task.settings, task.objective, task.alpha, task.seed, options, cutoff)
    train, vali = fold["train"], fold["vali"]
    model.fit(train["candidates"], train["qrels"], vali["candidates"], vali["qrels"])
    best = int(model.best_iteration_)
    curve = np.asarray(model.validation_ndcg_, dtype=float)[:best]
    return model, str(model.weights_sha256()), curve, best

