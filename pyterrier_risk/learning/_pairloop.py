"""The LambdaMART pair loop (numba), LightGBM 4.x's arithmetic, with a pluggable pair-weight rule.

The loop follows ``LambdarankNDCG`` step by step (docs/objectives.md), so that with unit weights
the gradients are bit-identical to the native objective: float64 pair arithmetic, a 2^20-bin
logistic lookup table, float32 accumulation in pair order, and the ``log2(1 + S)/S`` query
normalisation. It knows no objective: the ``|ΔM|`` of each pair goes through a *rule*, an
``@numba.njit`` function of the query, ``|ΔM|``, the pair's direction and the rule's state
(:class:`~.objectives.PairWeights`). :func:`pair_loop` compiles one loop per rule (and per serial
or parallel build), the first time that rule is used, and caches it on disk: a kind compiles only
what it uses. A per-query multiplier (plain numpy objectives) is the rule :func:`scale_rule`.

Why numba: the work is a double loop over the document pairs of every query with data-dependent
branches (truncation, label ties, U-CRO's cases); vectorised in numpy it needs a pairs matrix per
query and measured ~8x the native time, whereas a compiled loop with ``prange`` over queries runs
at native speed with no per-pair memory.
"""

from __future__ import annotations

import hashlib
import inspect
import math
import sys
import threading
import types
from pathlib import Path
from typing import Any, NamedTuple

import numba as nb
import numpy as np

from ._jit import jit
from ._ndcg import SIGMOID_BINS

__all__ = ["LambdarankConstants", "pair_loop", "scale_rule", "stable_desc_order_parallel"]

_F32_001 = float(np.float32(0.01))  # LightGBM adds the float literal 0.01f to |Δs|
_RUN = 16


class LambdarankConstants(NamedTuple):
    """LightGBM's lambdarank constants of a training set, as the pair loop reads them (a numba named tuple).

    Attributes:
        label_gain: the gain of each label.
        disc: the rank discounts ``1/log2(2 + i)``.
        table: the tabulated logistic ``1/(1 + exp(sigmoid·Δs))`` (``SIGMOID_BINS`` bins).
        sig_min: the table's smallest score difference.
        sig_max: its largest.
        sig_factor: bins per unit of score difference.
        sigmoid: LightGBM's ``sigmoid``.
        norm: ``lambdarank_norm``.
        truncation: ``lambdarank_truncation_level``.
    """

    label_gain: np.ndarray
    disc: np.ndarray
    table: np.ndarray
    sig_min: float
    sig_max: float
    sig_factor: float
    sigmoid: float
    norm: bool
    truncation: int


@jit(inline="always")
def _logistic(
    delta_score: float, table: np.ndarray, sig_min: float, sig_max: float, sig_factor: float
) -> float:
    """LightGBM's tabulated ``1/(1 + exp(sigmoid·Δs))`` (clamped to the table's ends)."""
    if delta_score <= sig_min:
        return table[0]
    if delta_score >= sig_max:
        return table[SIGMOID_BINS - 1]
    return table[int((delta_score - sig_min) * sig_factor)]


@jit(inline="always")
def _pair_lambda(delta: float, delta_score: float, scale_by_score: bool, lr: LambdarankConstants) -> float:
    """λ of a pair whose weighted ΔM is ``delta`` (over ``0.01f + |Δs|`` when norm scales by the gap)."""
    if scale_by_score:
        delta = delta / (_F32_001 + abs(delta_score))
    return _logistic(delta_score, lr.table, lr.sig_min, lr.sig_max, lr.sig_factor) * (-lr.sigmoid * delta)


@jit(inline="always")
def _pair_update(
    grad: np.ndarray, hess: np.ndarray, high: int, low: int, delta: float, delta_score: float,
    scale_by_score: bool, lr: LambdarankConstants,
) -> float:  # fmt: skip
    """One pair's λ and hessian added to ``grad``/``hess`` (LightGBM's arithmetic); returns λ."""
    sigmoid = lr.sigmoid
    if scale_by_score:
        delta = delta / (_F32_001 + abs(delta_score))
    p_lambda = _logistic(delta_score, lr.table, lr.sig_min, lr.sig_max, lr.sig_factor)
    p_hessian = p_lambda * (1.0 - p_lambda)
    p_lambda *= -sigmoid * delta
    p_hessian *= sigmoid * sigmoid * delta
    grad[low] -= np.float32(p_lambda)
    hess[low] += np.float32(p_hessian)
    grad[high] += np.float32(p_lambda)
    hess[high] += np.float32(p_hessian)
    return p_lambda


@jit(inline="always")
def _normalise(grad: np.ndarray, hess: np.ndarray, start: int, cnt: int, sum_lambdas: float) -> None:
    """LightGBM's per-query normalisation: gradients and hessians times log2(1 + S)/S."""
    if sum_lambdas > 0.0:
        factor = math.log2(1.0 + sum_lambdas) / sum_lambdas
        for i in range(cnt):
            grad[start + i] = np.float32(np.float64(grad[start + i]) * factor)
            hess[start + i] = np.float32(np.float64(hess[start + i]) * factor)


@jit()
def scale_rule(q: int, dm: float, improving: bool, state: tuple) -> float:
    """The per-query multiplier rule: ``|ΔM′| = state[0][q]·|ΔM|``."""
    return dm * state[0][q]


@jit(inline="always")
def _scale_by_score(scores: np.ndarray, order: np.ndarray, start: int, cnt: int, norm: bool) -> bool:
    """Whether a query's λs are divided by their score gaps (LightGBM).

    So they are when ``lambdarank_norm`` is on and the query's best and worst (finite) scores differ.
    """
    best = scores[start + order[start]]
    worst_i = cnt - 1
    if worst_i > 0 and scores[start + order[start + worst_i]] == -np.inf:
        worst_i -= 1
    return norm and best != scores[start + order[start + worst_i]]


@jit(inline="always")
def _swap(
    start: int, i: int, j: int, di: int, dj: int, li: int, lj: int, score_i: float, score_j: float,
    imd: float, lr: LambdarankConstants,
) -> tuple[bool, int, int, float, float]:  # fmt: skip
    """The pair at ranks ``i < j``: (improving, high row, low row, score gap, |ΔNDCG| of the swap).

    The high row holds the higher label; the swap improves when j, ranked below i, has it.
    """
    label_gain, disc = lr.label_gain, lr.disc
    if lj > li:
        return (
            True,
            start + dj,
            start + di,
            score_j - score_i,
            (label_gain[lj] - label_gain[li]) * abs(disc[i] - disc[j]) * imd,
        )
    return (
        False,
        start + di,
        start + dj,
        score_i - score_j,
        (label_gain[li] - label_gain[lj]) * abs(disc[i] - disc[j]) * imd,
    )


@jit(inline="always")
def _bad_weight(smallest: float, total: float) -> float:
    """A query's bad pair weight from the smallest and the sum of its weights (0.0: none was bad).

    Kept as two running numbers in the pair loop, not a test per pair (which slowed it by ~20%): a
    negative weight makes the smallest one negative, a NaN or an infinity makes the sum NaN or inf.
    Only a user's rule is checked (``_CHECK_WEIGHTS``): the built-in rules are ≥ 0 by their cases, and
    a per-query multiplier is checked before the loop.
    """
    if smallest < 0.0:
        return smallest
    if not total < np.inf:  # NaN fails this test too
        return total
    return 0.0


# the template's settings, bound (as _weight) when a loop is compiled
_BATCHED = False
_CHECK_WEIGHTS = False


# a rule (q, dm, improving, state) -> float, or a batched one (q, dm_signed, out, m, state) (PairWeights)
def _weight(*args: Any) -> Any:  # pragma: no cover - replaced
    raise NotImplementedError("the pair loop template is compiled with a rule bound to _weight")


def _lambdas(
    scores: np.ndarray, labels: np.ndarray, qstart: np.ndarray, order: np.ndarray,
    inv_max_dcg: np.ndarray, lr: LambdarankConstants, state: tuple, native_norm: bool,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:  # fmt: skip
    """LambdaMART gradients and hessians (float32); each pair's ``|ΔM|`` weighted by ``_weight``.

    ``lr``: LightGBM's constants (:class:`LambdarankConstants`). ``native_norm``: the normalisation's
    ``S`` sums the native (unweighted) λs, so the weights act on top of it; otherwise ``S`` sums the
    weighted λs. With unit weights the two are the same numbers. ``_BATCHED`` (a compile-time
    constant): a query's pairs are collected, weighted by one call of the rule, then added in the same
    order; otherwise each pair is weighted and added at once. The third array holds, per query, a
    weighted ``|ΔM′|`` that is not a finite number ≥ 0 (0 where none is; :func:`_bad_weight`), for
    the driver to refuse.
    """
    grad = np.zeros(scores.shape[0], dtype=np.float32)
    hess = np.zeros(scores.shape[0], dtype=np.float32)
    bad = np.zeros(qstart.shape[0] - 1)
    norm, truncation = lr.norm, lr.truncation
    for q in nb.prange(qstart.shape[0] - 1):
        start = qstart[q]
        cnt = qstart[q + 1] - start
        if cnt <= 1:
            continue
        imd = inv_max_dcg[q]
        scale_by_score = _scale_by_score(scores, order, start, cnt, norm)
        n_top = min(cnt - 1, truncation)
        if _BATCHED:
            cap = n_top * cnt
            fbuf = np.empty(3 * cap)  # signed ΔM, ΔM′, score differences
            ibuf = np.empty(2 * cap, dtype=np.int64)  # rows of the higher and the lower label
            m = np.int64(0)  # not the literal 0: the rule would compile twice (Literal[int] and int64)
        sum_lambdas = sum_native = sum_weights = 0.0
        smallest = np.inf
        for i in range(n_top):
            di = order[start + i]
            score_i = scores[start + di]
            if score_i == -np.inf:
                continue
            li = labels[start + di]
            for j in range(i + 1, cnt):
                dj = order[start + j]
                score_j = scores[start + dj]
                lj = labels[start + dj]
                if score_j == -np.inf or li == lj:
                    continue
                improving, high, low, delta_score, delta = _swap(
                    start, i, j, di, dj, li, lj, score_i, score_j, imd, lr
                )
                if native_norm:
                    sum_native -= 2.0 * _pair_lambda(delta, delta_score, scale_by_score, lr)
                if _BATCHED:
                    fbuf[m], fbuf[2 * cap + m] = (delta if improving else -delta), delta_score
                    ibuf[m], ibuf[cap + m] = high, low
                    m += 1
                else:
                    weighted = _weight(q, delta, improving, state)
                    if _CHECK_WEIGHTS:
                        smallest, sum_weights = min(smallest, weighted), sum_weights + weighted
                    sum_lambdas -= 2.0 * _pair_update(
                        grad, hess, high, low, weighted, delta_score, scale_by_score, lr
                    )
        if _BATCHED:
            _weight(q, fbuf[:cap], fbuf[cap : 2 * cap], m, state)
            for k in range(m):
                if _CHECK_WEIGHTS:
                    smallest, sum_weights = min(smallest, fbuf[cap + k]), sum_weights + fbuf[cap + k]
                sum_lambdas -= 2.0 * _pair_update(grad, hess, ibuf[k], ibuf[cap + k], fbuf[cap + k],
                                                  fbuf[2 * cap + k], scale_by_score, lr)  # fmt: skip
        if _CHECK_WEIGHTS:
            bad[q] = _bad_weight(smallest, sum_weights)
        if norm:
            _normalise(grad, hess, start, cnt, sum_native if native_norm else sum_lambdas)
    return grad, hess, bad


@jit()
def _merge_sort_desc(scores: np.ndarray, start: int, cnt: int, out: np.ndarray, tmp: np.ndarray) -> None:
    """Stable descending argsort of scores[start:start+cnt] into out[start:...] (query-local ids).

    Insertion-sorted runs of 16, then bottom-up merges; ties keep the rows' order.
    """
    for lo0 in range(0, cnt, _RUN):
        hi0 = min(lo0 + _RUN, cnt)
        for i in range(lo0, hi0):
            v = scores[start + i]
            k = i
            while k > lo0 and scores[start + out[start + k - 1]] < v:
                out[start + k] = out[start + k - 1]
                k -= 1
            out[start + k] = i
    width = _RUN
    while width < cnt:
        lo = 0
        while lo < cnt:
            mid, hi = min(lo + width, cnt), min(lo + 2 * width, cnt)
            a, b, k = lo, mid, lo
            while a < mid and b < hi:
                if scores[start + out[start + b]] > scores[start + out[start + a]]:  # strictly: stable
                    tmp[start + k] = out[start + b]
                    b += 1
                else:
                    tmp[start + k] = out[start + a]
                    a += 1
                k += 1
            while a < mid:
                tmp[start + k] = out[start + a]
                a += 1
                k += 1
            while b < hi:
                tmp[start + k] = out[start + b]
                b += 1
                k += 1
            lo += 2 * width
        for i in range(cnt):
            out[start + i] = tmp[start + i]
        width *= 2


@jit(parallel=True)
def stable_desc_order_parallel(scores: np.ndarray, qstart: np.ndarray) -> np.ndarray:
    """:func:`~._ndcg.stable_desc_order` with the queries sorted in parallel (large training sets)."""
    n = scores.shape[0]
    order = np.empty(n, dtype=np.int32)
    tmp = np.empty(n, dtype=np.int32)
    for q in nb.prange(qstart.shape[0] - 1):
        _merge_sort_desc(scores, qstart[q], qstart[q + 1] - qstart[q], order, tmp)
    return order


_LOOPS: dict[tuple[Any, bool, bool], Any] = {}
_LOOPS_LOCK = threading.Lock()


def _rule_tag(rule: Any) -> str:
    """A cache-safe name for a rule: module and name, plus the digest of its source file if not ours."""
    func = rule.py_func
    module = func.__module__ or "rule"
    tag = f"{module.rsplit('.', 1)[-1].lstrip('_')}_{func.__qualname__}".replace(".", "_").replace("<", "")
    tag = tag.replace(">", "")
    if not module.startswith("pyterrier_risk."):
        try:
            source = Path(inspect.getsourcefile(func) or "").read_bytes()
        except (OSError, TypeError):
            source = func.__code__.co_code
        tag += "_" + hashlib.sha256(source).hexdigest()[:12]
    return tag


def _users(rule: Any) -> bool:
    """Whether ``rule`` is a user's (defined outside the package): the loop then checks its weights."""
    return not (rule.py_func.__module__ or "").startswith("pyterrier_risk.")


def _cacheable(rule: Any) -> bool:
    """Whether the loop of ``rule`` may be cached on disk (else it compiles in memory, once per process).

    A process loading the cached loop re-imports the rule's module: a rule defined outside an
    importable module (by ``exec``, as the docs' examples are) would make every later load fail.
    """
    func = rule.py_func
    module = sys.modules.get(func.__module__ or "")
    return module is not None and getattr(module, "__dict__", None) is func.__globals__


def pair_loop(rule: Any, *, batched: bool = False, parallel: bool = False) -> Any:
    """The compiled pair loop with ``rule`` as its weight (compiled on first use, cached on disk).

    Args:
        rule: an ``@numba.njit`` function (a dispatcher): ``rule(q, dm, improving, state)``, or with
            ``batched``, ``rule(q, dm_signed, out, m, state)`` (see :class:`~.objectives.PairWeights`).
        batched: the rule weights a query's pairs at once.
        parallel: the ``prange`` over queries runs on numba's threads (else a serial build, which
            compiles about twice as fast).

    Returns:
        ``loop(scores, labels, qstart, order, inv_max_dcg, lr, state, native_norm) -> (grad, hess, bad)``
        (``bad``: per query, a weight of a user's rule that is not finite and ≥ 0, else 0).
    """
    if not hasattr(rule, "py_func"):
        raise TypeError(f"a pair rule must be a numba.njit function, got {rule!r}")
    key = (rule, batched, parallel)
    with _LOOPS_LOCK:
        loop = _LOOPS.get(key)
        if loop is None:
            template = _lambdas
            build = "parallel" if parallel else "serial"
            name = f"lambdas_{'batched_' if batched else ''}{_rule_tag(rule)}_{build}"
            settings = {"_weight": rule, "_BATCHED": batched, "_CHECK_WEIGHTS": _users(rule)}
            scope = {**template.__globals__, **settings}
            func = types.FunctionType(
                template.__code__, scope, name, template.__defaults__, template.__closure__
            )
            func.__qualname__ = name
            func.__doc__ = template.__doc__
            compile_loop = jit(parallel=parallel) if _cacheable(rule) else nb.njit(parallel=parallel)
            loop = _LOOPS[key] = compile_loop(func)
    return loop
