r"""A risk-sensitive LambdaLoss for PyTorch rankers: :func:`risk_loss`.

LambdaLoss (Wang, Li, Golbandi, Bendersky & Najork, CIKM 2018), as allRank's
``lambdaLoss(y_pred, y_true, weighing_scheme="lambdaRank_scheme")`` computes it with its defaults
(sum over pairs, binary log, σ = 1, padded label −1), is

.. math:: \ell = -\sum_{q}\sum_{(i, j):\, y_i > y_j} |\Delta M_{ij}|\,
          \log_2 \sigma\big(\sigma_s (s_i - s_j)\big),

with :math:`|\Delta M_{ij}| = |1/D_i - 1/D_j|\,|G_i - G_j|` the change of NDCG when the documents at
the predicted ranks ``i`` and ``j`` swap (:math:`G = (2^y - 1)/\mathrm{maxDCG}`,
:math:`D_r = \log_2(1 + r)`): the pair weight of LambdaRank. :func:`risk_loss` replaces that weight by
a registered objective's :math:`|\Delta M'_{ij}|`, computed by the objective's own rule
(:meth:`~.objectives.Objective.weights`, the one LightGBM's objective uses): a per-query multiplier
times :math:`|\Delta M|`, or a numba :class:`~.objectives.PairWeights` rule evaluated here over the
batch's pairs (a loop compiled with the rule bound, as :mod:`._pairloop` compiles LightGBM's). The
weights are constants (no gradient flows through them), as in allRank.

The per-round statistics an objective reads (the model's and the baselines' per-query NDCG, T-FARO's
``s_x``, GeoRisk's matrix) are those of the **batch**: every call is a round of its own, over the
batch's queries. ``-log2 σ(x)`` is computed as ``softplus(-x)/ln 2``; allRank clamps ``σ`` and
``σ^w`` at 1e-10 instead, which only differs where a pair is mis-ordered by more than ~23/w score
units (there allRank's gradient is 0).
"""

from __future__ import annotations

import math
import threading
import types
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from ._ndcg import discounts, inverse_max_dcg, ndcg_at, stable_desc_order
from ._options import check_count
from .objectives import REFERENCE_OBJECTIVE, Objective, PairWeights, Round

if TYPE_CHECKING:
    import torch

__all__ = ["NEURAL_EXTRA", "LossSettings", "loss_settings", "require_torch", "risk_loss", "weighted_loss"]

#: how to install what the neural learner needs
NEURAL_EXTRA = 'pip install "pyterrier-risk[neural]"'
#: allRank's padded label (``allrank.data.dataset_loading.PADDED_Y_VALUE``)
PADDED_LABEL = -1
_LN2 = math.log(2.0)


def require_torch() -> Any:
    """``torch``, or a one-line ImportError naming the extra that installs it."""
    try:
        import torch
    except ImportError:
        raise ImportError(f"the neural learner needs PyTorch: {NEURAL_EXTRA}") from None
    return torch


@dataclass(frozen=True)
class LossSettings:
    """:func:`risk_loss`'s checked settings (built once by :func:`loss_settings`, used every batch)."""

    spec: Objective
    alpha: float
    k: int | None
    cutoff: int
    sigma: float
    label_gain: np.ndarray


def loss_settings(objective: Any, alpha: float, k: Any, options: dict[str, Any]) -> LossSettings:
    """The objective built from its options, and the loss's own settings, checked.

    ``options``: the objective's own options (``faro_tr``, ``georisk_weight``, ...) and the loss's
    ``cutoff`` (NDCG cutoff of the per-query effectiveness M, 10), ``sigma`` (σ of the logistic, 1)
    and ``label_gain`` (``2^y − 1``). LightGBM's ``lambdarank_truncation_level``/``lambdarank_norm``
    have no meaning here (``k`` truncates), nor has ``risk_norm`` (no per-query normalisation).
    """
    from ._objective import _split_options

    options = dict(options)
    cutoff = check_count(options.pop("cutoff", 10), "cutoff")
    sigma = options.pop("sigma", 1.0)
    if isinstance(sigma, bool) or not isinstance(sigma, (int, float, np.integer, np.floating)):
        raise TypeError(f"sigma must be a number > 0, got {sigma!r}")
    if not (math.isfinite(sigma) and sigma > 0):
        raise ValueError(f"sigma must be a finite number > 0, got {sigma!r}")
    label_gain = options.pop("label_gain", None)
    spec, lambdarank = _split_options(objective, {**options, "alpha": alpha})
    if "label_gain" in lambdarank or label_gain is not None:
        from ._objective import _lambdarank_settings

        label_gain = _lambdarank_settings({"label_gain": label_gain})[3]
    else:
        label_gain = 2.0 ** np.arange(31) - 1.0
    extra = sorted(set(lambdarank) - {"label_gain"})
    if extra:
        raise ValueError(
            f"{extra[0]} has no effect on risk_loss (LambdaLoss has no truncation level or per-query "
            f"normalisation): use k= to truncate, sigma= for the logistic"
        )
    if not spec.native_norm:
        raise ValueError("risk_norm has no effect on risk_loss: LambdaLoss has no per-query normalisation")
    k = check_count(k, "k", allow_none=True)
    return LossSettings(spec, spec.alpha, k, int(cutoff), float(sigma), label_gain)


def risk_loss(
    y_pred: torch.Tensor,
    y_true: torch.Tensor,
    *,
    objective: str = REFERENCE_OBJECTIVE,
    alpha: float = 0.0,
    baseline: Any = None,
    baselines: Any = None,
    k: int | None = None,
    mask: torch.Tensor | None = None,
    **options: Any,
) -> torch.Tensor:
    r"""LambdaLoss with a risk-sensitive pair weight: a differentiable loss over padded batches.

    At ``alpha=0`` every built-in objective gives allRank's
    ``lambdaLoss(y_pred, y_true, weighing_scheme="lambdaRank_scheme")`` (sum, binary log, σ = 1), in
    value and gradient. At ``alpha > 0`` each pair's ``|ΔNDCG|`` is replaced by the objective's
    ``|ΔM′|``, computed by the same rule as for LightGBM (``pyterrier_risk.objective``), from the
    per-query NDCG@``cutoff`` of the model's ranking (``y_pred``) and of the baselines' rankings in
    this batch (per-batch statistics: docs/neural.md).

    Args:
        y_pred: scores, ``[queries, slate]`` (a float tensor; the gradient flows into it).
        y_true: integer labels ``[queries, slate]``; −1 marks padding (allRank's convention).
        objective: a registered objective's name (``'lambdarank'``, ``'urisk'``, ``'tsaro'``,
            ``'tfaro'``, ``'tfaro_star'``, ``'georisk'`` or one of yours).
        alpha: the risk sensitivity α ≥ 0.
        baseline: ``[queries, slate]`` scores of one baseline ranking (``'urisk'``, ``'tsaro'``,
            ``'tfaro'``).
        baselines: ``[queries, slate, systems]`` scores of several baselines, or a sequence of
            ``[queries, slate]`` tensors (``'tfaro_star'``, ``'georisk'``).
        k: truncation of LambdaLoss (allRank's ``k``): only pairs within the top ``k`` predicted
            ranks count, and maxDCG is taken at ``k``; None: every pair.
        mask: optional bool ``[queries, slate]``, True where a document is present (a padded
            position is one with label −1 or mask False).
        **options: the objective's options and ``cutoff`` (10), ``sigma`` (1.0), ``label_gain``
            (``2^y − 1``).

    Returns:
        The loss, a 0-d tensor (summed over the batch's pairs).

    Raises:
        ValueError: NaN or infinite scores, a label that is not an integer in the gains' range, a
            slate of one document, baselines of the wrong shape or with non-finite scores.
        TypeError: an option no objective reads.
    """
    settings = loss_settings(objective, alpha, k, options)
    return weighted_loss(settings, y_pred, y_true, baseline=baseline, baselines=baselines, mask=mask)


def weighted_loss(
    settings: LossSettings, y_pred: torch.Tensor, y_true: torch.Tensor, *, baseline: Any = None,
    baselines: Any = None, mask: torch.Tensor | None = None,
) -> torch.Tensor:  # fmt: skip
    """:func:`risk_loss` with settings checked once (the estimator's training loop calls this)."""
    torch = require_torch()
    valid = _check_batch(settings, y_pred, y_true, mask)
    base = _baseline_scores(settings.spec, baseline, baselines, tuple(y_true.shape), valid)
    q, i, j, dm, scores_sorted = _pairs(settings, y_pred, y_true, valid)
    if q.numel() == 0:
        return (y_pred.masked_fill(~valid, 0.0) * 0.0).sum()  # 0, with a (zero) gradient
    weights = _pair_weights(settings, y_true, valid, scores_sorted, base, q, i, j, dm)
    idx = scores_sorted[1]
    s = y_pred.masked_fill(~valid, 0.0).gather(1, idx)
    diff = s[q, i] - s[q, j]
    w = weights.to(dtype=y_pred.dtype, device=y_pred.device)
    return (w * torch.nn.functional.softplus(-settings.sigma * diff)).sum() / _LN2


# --------------------------------------------------------------------------------- checks
def _check_batch(settings: LossSettings, y_pred: Any, y_true: Any, mask: Any) -> torch.Tensor:
    """The present documents (bool ``[queries, slate]``), after the one-line checks of the batch."""
    torch = require_torch()
    for name, t in (("y_pred", y_pred), ("y_true", y_true)):
        if not isinstance(t, torch.Tensor):
            raise TypeError(f"{name} must be a torch.Tensor, got {type(t).__name__}")
    if y_pred.ndim != 2 or y_pred.shape != y_true.shape:
        raise ValueError(
            f"y_pred and y_true must both be [queries, slate], got {tuple(y_pred.shape)} and "
            f"{tuple(y_true.shape)}"
        )
    if y_pred.shape[1] < 2:
        raise ValueError(f"a slate of {y_pred.shape[1]} document has no pairs to rank: give slates of >= 2")
    if not y_pred.is_floating_point():
        raise TypeError(f"y_pred must be a floating-point tensor, got {y_pred.dtype}")
    valid = y_true != PADDED_LABEL
    if mask is not None:
        if not isinstance(mask, torch.Tensor) or mask.shape != y_true.shape or mask.dtype != torch.bool:
            raise ValueError(f"mask must be a bool tensor of shape {tuple(y_true.shape)}")
        valid = valid & mask.to(valid.device)
    labels = y_true.detach()[valid].double()
    bad = (
        ~torch.isfinite(labels)
        | (labels != labels.round())
        | (labels < 0)
        | (labels >= len(settings.label_gain))
    )
    if bool(bad.any()):
        value = float(labels[bad][0])
        raise ValueError(
            f"label {value!r} is out of range: labels must be integers in 0..{len(settings.label_gain) - 1} "
            f"(−1 marks padding)"
        )
    scores = y_pred.detach()[valid]
    if not bool(torch.isfinite(scores).all()):
        what = "NaN" if bool(torch.isnan(scores).any()) else "an infinite value"
        raise ValueError(f"y_pred holds {what} at a document that is not padding: scores must be finite")
    return valid


def _baseline_scores(
    spec: Objective, baseline: Any, baselines: Any, shape: tuple[int, ...], valid: torch.Tensor
) -> np.ndarray | None:
    """The baselines' scores, a ``[systems, queries, slate]`` array (None: the objective takes none)."""
    needs, kind = spec.baseline, spec.name
    if needs == "none":
        if baseline is not None or baselines is not None:
            raise ValueError(f"objective {kind!r} takes no baseline/baselines")
        return None
    if needs == "single":
        if baselines is not None:
            raise ValueError(
                f"objective {kind!r} takes one baseline= ([queries, slate] scores), not baselines="
            )
        if baseline is None:
            raise ValueError(f"objective {kind!r} needs baseline= ([queries, slate] scores of the baseline)")
        arr = _as_array(baseline, "baseline")
        name, want = "baseline", f"{shape}"
        arr = (
            arr[None] if arr.shape == shape else np.moveaxis(arr, -1, 0) if arr.shape == (*shape, 1) else arr
        )
    else:
        if baseline is not None:
            raise ValueError(
                f"objective {kind!r} takes baselines= ([queries, slate, systems]), not baseline="
            )
        if baselines is None:
            raise ValueError(f"objective {kind!r} needs baselines= ([queries, slate, systems] scores)")
        if isinstance(baselines, Sequence) and not isinstance(baselines, (str, bytes)):
            if not baselines:
                raise ValueError("baselines is empty: give at least one baseline")
            arr = np.stack([_as_array(b, f"baselines[{s}]") for s, b in enumerate(baselines)])
        else:
            arr = _as_array(baselines, "baselines")
            arr = np.moveaxis(arr, -1, 0) if arr.ndim == 3 else arr[None] if arr.shape == shape else arr
        name, want = "baselines", f"[{shape[0]}, {shape[1]}, systems]"
    if arr.ndim != 3 or arr.shape[1:] != shape:
        raise ValueError(
            f"{name} must have shape {want} like y_true, got {_shown_shape(baseline, baselines)}"
        )
    present = valid.cpu().numpy()
    if not np.isfinite(arr[:, present]).all():
        raise ValueError(f"{name} has missing or non-finite scores at documents that are not padding")
    return arr


def _shown_shape(baseline: Any, baselines: Any) -> str:
    given = baseline if baseline is not None else baselines
    if isinstance(given, Sequence) and not isinstance(given, (str, bytes)):
        return "[" + ", ".join(str(tuple(np.shape(_as_numpy(b)))) for b in given) + "]"
    return str(tuple(np.shape(_as_numpy(given))))


def _as_numpy(value: Any) -> Any:
    return value.detach().cpu().numpy() if hasattr(value, "detach") else value


def _as_array(value: Any, name: str) -> np.ndarray:
    try:
        return np.asarray(_as_numpy(value), dtype=np.float64)
    except (TypeError, ValueError) as e:
        raise ValueError(f"{name} must be numeric scores: {e}") from None


# --------------------------------------------------------------------------------- pairs and weights
def _pairs(settings: LossSettings, y_pred: Any, y_true: Any, valid: Any) -> tuple[Any, ...]:
    """The batch's pairs in predicted-rank positions and their LambdaRank weight ``|ΔNDCG|``.

    Sorted as allRank sorts (padding at −inf, ``sort(descending=True)``), so that ties take the same
    positions. Returns the query, the higher label's and the lower label's positions, ``|ΔM|``
    (float64) and ``(sorted scores, sort indices)``.
    """
    torch = require_torch()
    with torch.no_grad():
        scores = y_pred.detach().masked_fill(~valid, float("-inf"))
        sorted_scores, idx = scores.sort(descending=True, dim=-1)
        labels = y_true.detach().masked_fill(~valid, 0).gather(1, idx).long()
        present = valid.gather(1, idx)
        slate = labels.shape[1]
        pair = present[:, :, None] & present[:, None, :] & (labels[:, :, None] > labels[:, None, :])
        if settings.k is not None and settings.k < slate:
            pair[:, settings.k :, :] = False
            pair[:, :, settings.k :] = False
        q, i, j = pair.nonzero(as_tuple=True)
        gain_table = torch.as_tensor(settings.label_gain, dtype=torch.float64, device=labels.device)
        gains = torch.where(
            present, gain_table[labels], torch.zeros((), dtype=torch.float64, device=labels.device)
        )
        inv_disc = 1.0 / torch.log2(torch.arange(2, slate + 2, dtype=torch.float64, device=labels.device))
        ideal = gains.sort(descending=True, dim=-1).values
        top = slate if settings.k is None else min(settings.k, slate)
        max_dcg = (ideal[:, :top] * inv_disc[:top]).sum(dim=-1)
        inv_max = torch.where(max_dcg > 0, 1.0 / max_dcg.clamp(min=1e-300), torch.zeros_like(max_dcg))
        dm = (inv_disc[i] - inv_disc[j]).abs() * (gains[q, i] - gains[q, j]).abs() * inv_max[q]
    return q, i, j, dm, (sorted_scores, idx)


def _pair_weights(
    settings: LossSettings, y_true: Any, valid: Any, scores_sorted: tuple[Any, Any], base: np.ndarray | None,
    q: Any, i: Any, j: Any, dm: Any,
) -> Any:  # fmt: skip
    """``|ΔM′|`` of every pair: the objective's rule on the batch's round (a tensor on ``dm``'s device)."""
    torch = require_torch()
    spec = settings.spec
    spec.reset()  # every batch is a round of its own (docs/neural.md: per-batch statistics)
    r = _batch_round(settings, y_true, valid, scores_sorted, base)
    w = spec.weights(r)
    if not isinstance(w, PairWeights):
        mult = np.asarray(w, dtype=np.float64)
        if mult.shape != r.model.shape:
            raise ValueError(
                f"objective {spec.name!r}: weights() returned shape {mult.shape}, expected one multiplier "
                f"per query {r.model.shape}"
            )
        if not (np.isfinite(mult).all() and (mult >= 0).all()):
            bad = int(np.flatnonzero(~(np.isfinite(mult) & (mult >= 0)))[0])
            raise ValueError(
                f"objective {spec.name!r}: weights() must be finite and >= 0, query {bad} has "
                f"{float(mult[bad])!r}"
            )
        return dm * torch.as_tensor(mult, dtype=torch.float64, device=dm.device)[q]
    out = evaluate_rule(w, q.cpu().numpy(), dm.cpu().numpy(), (i > j).cpu().numpy())
    return torch.as_tensor(out, dtype=torch.float64, device=dm.device)


def _batch_round(
    settings: LossSettings, y_true: Any, valid: Any, scores_sorted: tuple[Any, Any], base: np.ndarray | None
) -> Round:
    """The batch as a round: the model's and the baselines' per-query NDCG@cutoff, the active queries."""
    idx = scores_sorted[1]
    present = valid.cpu().numpy()
    counts = present.sum(axis=1)
    qstart = np.concatenate([[0], np.cumsum(counts)]).astype(np.int64)
    labels = y_true.detach().cpu().numpy()
    y = labels[present].astype(np.int32)  # row-major: each query's documents in slate order
    rows, order = np.arange(len(labels))[:, None], idx.cpu().numpy()
    y_ranked = labels[rows, order][present[rows, order]].astype(np.int32)  # in predicted-rank order
    disc = discounts(int(counts.max(initial=1)))
    gain, cut = settings.label_gain, settings.cutoff
    inv_cut = inverse_max_dcg(y, qstart, gain, disc, cut)
    in_query = (np.arange(len(y)) - np.repeat(qstart[:-1], counts)).astype(np.int32)
    model = ndcg_at(in_query, y_ranked, qstart, gain, disc, inv_cut, cut)
    spread = np.where(present, labels, -np.inf).max(axis=1) != np.where(present, labels, np.inf).min(axis=1)
    active = (counts > 0) & spread & (inv_cut > 0)
    mb = None
    if base is not None:
        per_system = np.stack(
            [
                ndcg_at(stable_desc_order(b[present], qstart), y, qstart, gain, disc, inv_cut, cut)
                for b in base
            ]
        )
        mb = settings.spec.baseline_ndcg(per_system)
    return Round(index=0, model=model, baseline=mb, active=active, alpha=settings.alpha)


# --------------------------------------------------------------------------------- pair rules (numba)
# a rule (q, dm, improving, state) -> float, or a batched one (q, dm_signed, out, m, state) (PairWeights)
def _rule(*args: Any) -> Any:  # pragma: no cover - replaced
    raise NotImplementedError("the weight loop template is compiled with a rule bound to _rule")


def _weights_of_pairs(qs: np.ndarray, dms: np.ndarray, improving: np.ndarray, state: tuple) -> np.ndarray:
    """``|ΔM′|`` of each pair by the rule bound to ``_rule`` (one call per pair)."""
    out = np.empty(dms.shape[0])
    for p in range(dms.shape[0]):
        out[p] = _rule(qs[p], dms[p], improving[p], state)
    return out


def _weights_of_queries(qs: np.ndarray, signed: np.ndarray, qstart: np.ndarray, state: tuple) -> np.ndarray:
    """``|ΔM′|`` of each query's pairs (contiguous from ``qstart``) by the batched rule bound to ``_rule``."""
    out = np.empty(signed.shape[0])
    for g in range(qstart.shape[0] - 1):
        a = qstart[g]
        b = qstart[g + 1]
        if b > a:
            _rule(qs[a], signed[a:b], out[a:b], b - a, state)
    return out


_LOOPS: dict[tuple[Any, bool], Any] = {}
_LOCK = threading.Lock()


def _compiled(rule: Any, batched: bool) -> Any:
    """The weight loop with ``rule`` bound, compiled once per rule (cached on disk as the pair loop is)."""
    import numba as nb

    from ._jit import jit
    from ._pairloop import _cacheable, _rule_tag

    key = (rule, batched)
    with _LOCK:
        loop = _LOOPS.get(key)
        if loop is None:
            template = _weights_of_queries if batched else _weights_of_pairs
            name = f"neural_{'batched_' if batched else ''}{_rule_tag(rule)}"
            scope = {**template.__globals__, "_rule": rule}
            func = types.FunctionType(
                template.__code__, scope, name, template.__defaults__, template.__closure__
            )
            func.__qualname__ = name
            loop = _LOOPS[key] = (jit() if _cacheable(rule) else nb.njit())(func)
    return loop


def evaluate_rule(w: PairWeights, qs: np.ndarray, dms: np.ndarray, improving: np.ndarray) -> np.ndarray:
    """``|ΔM′|`` of the pairs ``(qs, dms, improving)`` (grouped by query) by the pair rule ``w``, checked."""
    qs = np.ascontiguousarray(qs, dtype=np.int64)
    dms = np.ascontiguousarray(dms, dtype=np.float64)
    if w.batched:
        bounds = np.flatnonzero(np.diff(qs)) + 1
        qstart = np.concatenate([[0], bounds, [len(qs)]]).astype(np.int64)
        signed = np.where(improving, dms, -dms)
        out = _compiled(w.rule, True)(qs, signed, qstart, w.state)
    else:
        out = _compiled(w.rule, False)(qs, dms, np.ascontiguousarray(improving, dtype=np.bool_), w.state)
    if not (np.isfinite(out).all() and (out >= 0).all()):
        bad = int(np.flatnonzero(~(np.isfinite(out) & (out >= 0)))[0])
        raise ValueError(
            f"the objective's pair rule gave {float(out[bad])!r} for a pair of query {int(qs[bad])}; the "
            f"weight of a pair must be a finite number >= 0 (|ΔM′|, not a signed change)"
        )
    return out
