"""Joint upper & expected value (UE) normalisation: numeric core (numpy/pandas only).

Feng & Karmaker Santu, "Joint upper & expected value normalization for evaluation of retrieval
systems: A case study with Learning-to-Rank methods" (IP&M 2023), §5, eqs. (5) and (6):

* ``IUB[A@k]`` (ideal upper bound) is the score of the base measure ``A@k`` for the perfect ordering
  of the topic's candidate pool;
* ``REB[A@k]`` (randomised expected bound) is its expectation when the pool is put in a uniformly
  random order;
* ``V1 = (A / IUB) * (A / (A + REB))`` lies in [0, 1];
* ``V2 = (A - REB) / (IUB - REB)`` when ``A >= REB``, else ``(A - REB) / REB``; it lies in [-1, 1]
  (1 = ideal, 0 = as good as random, -1 = nothing relevant retrieved).

Both variants are ratios, so they do not change when ``A``, ``IUB`` and ``REB`` are all multiplied by
the same per-topic constant: ``UE(nDCG@k)`` equals the paper's ``DCG^UE@k`` and ``UE(AP@k)`` its
``MSP^UE@k`` although ir_measures' ``AP@k`` divides ``SP@k`` by the number of relevant documents and
the paper divides it by ``k``. :func:`ue_bounds` therefore reports IUB and REB in the base measure's
own (ir_measures / trec_eval) units.

Exact expectations under a uniformly random permutation of a pool of ``n`` documents, ``K = min(k, n)``
(closed forms; every one is checked against exhaustive enumeration in the tests):

* ``DCG@k``: ``E = (sum of gains / n) * sum_{i<=K} 1 / log2(i + 1)`` (paper eq. 7; exact).
* ``SP@k`` (``m`` relevant): ``E[Prec(i) R_i] = (1/i) (E[R_i] + sum_{j<i} E[R_i R_j])`` with
  ``E[R_i] = m/n`` and ``E[R_i R_j] = m(m-1) / (n(n-1))``, hence
  ``E[SP@k] = (m/n) H_K + m(m-1)/(n(n-1)) (K - H_K)`` where ``H_K`` is the K-th harmonic number.
  The paper (§6.4.1) assumes ``Prec(i)`` independent of ``R_i`` and obtains ``K (m/n)^2``; the
  difference is ``(m/n) ((n-m)/(n-1)) (H_K - K/n) >= 0``.
* ``hits@k`` (for ``P@k`` and ``R@k``): ``E = K m / n``.
* ``RR@k``: ``P(first relevant at i) = C(n-i, m-1) / C(n, m)``, so
  ``E = sum_{i<=min(K, n-m+1)} P(first relevant at i) / i``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, NamedTuple

import numpy as np
import pandas as pd

from ._validate import _to_float_array

BASES: tuple[str, ...] = ("nDCG", "AP", "P", "R", "RR")
VARIANTS: tuple[str, ...] = ("V1", "V2")
REB_MODES: tuple[str, ...] = ("exact", "paper")

# IUB and REB closer than this (relative) are treated as equal: every ordering scores the same.
_TIE_RTOL = 1e-12


class UEBounds(NamedTuple):
    """Per-topic ideal upper bound (IUB) and randomised expected bound (REB) of a base measure."""

    iub: Any
    reb: Any


def _harmonic(upto: int) -> np.ndarray:
    """``H[j] = sum_{i=1}^{j} 1/i`` for ``j = 0..upto``."""
    return np.concatenate([[0.0], np.cumsum(1.0 / np.arange(1, upto + 1))])


def _discount_cumsum(upto: int) -> np.ndarray:
    """``D[j] = sum_{i=1}^{j} 1/log2(i + 1)`` for ``j = 0..upto`` (trec_eval's nDCG discount)."""
    return np.concatenate([[0.0], np.cumsum(1.0 / np.log2(np.arange(2, upto + 2)))])


def _map_gains(labels: np.ndarray, gains: Mapping[Any, float] | None) -> np.ndarray:
    """Gain of each document as trec_eval computes it: mapped label, NaN (unjudged) and negatives -> 0."""
    g = labels.astype(float, copy=True)
    if gains:
        mapped = g.copy()
        for label, gain in gains.items():
            mapped[labels == label] = gain
        g = mapped
    g[~np.isfinite(g)] = 0.0
    return np.maximum(g, 0.0)


def _check_cutoff(cutoff: int | None) -> None:
    if cutoff is None:
        return
    if isinstance(cutoff, bool) or not isinstance(cutoff, (int, np.integer)):
        raise TypeError(f"cutoff must be an int or None, got {cutoff!r}")
    if cutoff < 1:
        raise ValueError(f"cutoff must be >= 1, got {cutoff}")


def _rr_expectation(n: np.ndarray, m: np.ndarray, k_eff: np.ndarray) -> np.ndarray:
    """Exact E[RR@K] for each pool, looping over rank positions and vectorising over pools."""
    out = np.zeros(len(n))
    ok = (m >= 1) & (k_eff >= 1)
    if not ok.any():
        return out
    idx = np.flatnonzero(ok)
    nn, mm = n[idx].astype(float), m[idx].astype(float)
    last = np.minimum(k_eff[idx], n[idx] - m[idx] + 1)  # the first relevant is at rank <= n - m + 1
    order = np.argsort(-last, kind="stable")
    nn, mm, last, idx = nn[order], mm[order], last[order], idx[order]
    prob = mm / nn  # P(first relevant at rank 1)
    acc = prob.copy()
    active = len(idx)
    for i in range(2, int(last[0]) + 1):
        active = int(np.searchsorted(-last[:active], -i, side="right"))  # pools with last >= i
        if active == 0:
            break
        nn_a, mm_a = nn[:active], mm[:active]
        prob = prob[:active] * (nn_a - i - mm_a + 2) / (nn_a - i + 1)
        acc[:active] += prob / i
    out[idx] = acc
    return out


def pool_bounds(
    codes: np.ndarray,
    n_groups: int,
    labels: np.ndarray,
    measure: str,
    cutoff: int | None,
    rel: int = 1,
    gains: Mapping[Any, float] | None = None,
    reb: str = "exact",
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Raw IUB, raw REB and the pool's own normaliser, one value per group code.

    Raw units: DCG@k for nDCG, SP@k for AP, relevant documents in the top k for P and R, RR for RR.
    The normaliser turns raw units into the ir_measures value when the pool is the qrels
    (nDCG: ideal DCG@k; AP and R: number of relevant documents; P: k; RR: 1).
    """
    n = np.bincount(codes, minlength=n_groups)
    k_eff = n.copy() if cutoff is None else np.minimum(n, cutoff)
    safe_n = np.maximum(n, 1).astype(float)
    if measure == "nDCG":
        g = _map_gains(labels, gains)
        total = np.bincount(codes, weights=g, minlength=n_groups)
        disc = _discount_cumsum(int(n.max(initial=0)))
        reb_raw = total / safe_n * disc[k_eff]
        order = np.lexsort((-g, codes))
        c_sorted, g_sorted = codes[order], g[order]
        starts = np.concatenate([[0], np.cumsum(n)[:-1]])
        rank = np.arange(len(codes)) - starts[c_sorted]  # 0-based rank in the ideal ordering
        keep = rank < k_eff[c_sorted]
        weights = g_sorted[keep] / np.log2(rank[keep] + 2.0)
        iub_raw = np.bincount(c_sorted[keep], weights=weights, minlength=n_groups)
        return iub_raw, reb_raw, iub_raw.copy()
    relevant = np.nan_to_num(labels.astype(float), nan=-np.inf) >= rel
    m = np.bincount(codes, weights=relevant, minlength=n_groups).round().astype(np.int64)
    p = m / safe_n
    if measure == "AP":
        iub_raw = np.minimum(k_eff, m).astype(float)
        harm = _harmonic(int(k_eff.max(initial=0)))[k_eff]
        if reb == "paper":
            reb_raw = k_eff * p**2
        else:
            pair = m * (m - 1) / (safe_n * np.maximum(n - 1, 1))
            reb_raw = p * harm + pair * (k_eff - harm)
        return iub_raw, reb_raw, m.astype(float)
    if measure in ("P", "R"):
        iub_raw = np.minimum(k_eff, m).astype(float)
        reb_raw = k_eff * p
        if measure == "P" and cutoff is None:
            raise ValueError("P needs a cutoff")
        norm = np.full(n_groups, float(cutoff)) if cutoff is not None and measure == "P" else m.astype(float)
        return iub_raw, reb_raw, norm
    if measure == "RR":
        iub_raw = ((m >= 1) & (k_eff >= 1)).astype(float)
        return iub_raw, _rr_expectation(n, m, k_eff), np.ones(n_groups)
    raise ValueError(f"unsupported base measure {measure!r}; expected one of {BASES}")


def without_non_relevant(
    codes: np.ndarray,
    n_groups: int,
    labels: np.ndarray,
    measure: str,
    rel: int = 1,
    gains: Mapping[Any, float] | None = None,
) -> np.ndarray:
    """Whether each group's pool holds a relevant document and no non-relevant one.

    Non-relevant as the base measure sees it: gain 0 for nDCG (label <= 0, unjudged, or mapped to
    0 by ``gains``), a label below ``rel`` (or unjudged) for AP, P, R and RR. A random ordering of
    such a pool scores (nearly) as well as the ideal one, which makes UE meaningless there.
    """
    if measure == "nDCG":
        non_relevant = _map_gains(labels, gains) <= 0
    else:
        non_relevant = ~(np.nan_to_num(labels.astype(float), nan=-np.inf) >= rel)
    n = np.bincount(codes, minlength=n_groups)
    bad = np.bincount(codes, weights=non_relevant, minlength=n_groups)
    return (n > bad) & (bad == 0)


def normalise_raw(raw: np.ndarray, norm: np.ndarray) -> np.ndarray:
    """``raw / norm`` per group, 0 where the normaliser is 0 (a pool with nothing to normalise by)."""
    out = np.zeros_like(raw, dtype=float)
    np.divide(raw, norm, out=out, where=norm > 0)
    return out


def ue_bounds(
    labels: Any,
    groups: Any = None,
    *,
    measure: str = "nDCG",
    cutoff: int | None = None,
    rel: int = 1,
    gains: Mapping[Any, float] | None = None,
    reb: str = "exact",
    norm: Any = None,
) -> UEBounds:
    """IUB and REB of a base measure over each topic's candidate pool (Feng & Karmaker Santu, §5).

    The pool is the set of documents a random ranker would shuffle: the judged documents of the
    topic (the paper's LETOR setting) or the documents a system retrieved. ``REB`` is the exact
    expectation of the measure under a uniformly random permutation of the pool (closed forms in the
    module docstring); ``IUB`` is the measure of the ideal ordering. Both are in the base measure's
    ir_measures units, so they can be passed to :func:`ue` with the measure's per-topic values.

    Args:
        labels: Relevance label of each pool document; NaN marks an unjudged document (gain 0, not
            relevant). Negative labels have gain 0 and are not relevant, as in trec_eval.
        groups: Topic id of each document (same length as ``labels``); ``None`` for a single pool.
        measure: Base measure: ``'nDCG'`` (linear trec_eval gain, discount ``1/log2(i+1)``), ``'AP'``
            (trec_eval ``map_cut``: ``SP@k / R``), ``'P'`` (hits@k / k), ``'R'`` (hits@k / R) or
            ``'RR'``.
        cutoff: Rank cutoff ``k`` (``None`` = whole pool); required for ``'P'`` and ``'R'``.
        rel: Minimum label counted as relevant (AP, P, R, RR).
        gains: nDCG gain mapping ``{label: gain}`` (unmapped labels keep their value), e.g.
            ``{0: 0, 1: 1, 2: 3}`` for the paper's ``2^R - 1``.
        reb: ``'exact'`` (default) or ``'paper'``: for AP the paper's ``E[SP@k] = K (m/n)^2``, which
            assumes ``Prec(i)`` and ``R_i`` independent; for the other bases both are the same.
        norm: Per-topic normaliser of the base measure when it is not the pool's own (e.g. a pool of
            retrieved documents, while nDCG is normalised by the ideal DCG of all judged documents and
            AP/R by their number of relevant documents). A scalar, an array in sorted-topic order or a
            Series indexed by topic. ``None``: derived from the pool.

    Returns:
        ``UEBounds(iub, reb)``: floats for a single pool, otherwise Series indexed by sorted topic id.
        A topic whose normaliser is 0 (no relevant document) has ``iub = reb = 0``.

    Raises:
        ValueError: unknown ``measure`` or ``reb``, missing or invalid ``cutoff``, length mismatch.
    """
    if measure not in BASES:
        raise ValueError(f"unsupported base measure {measure!r}; expected one of {BASES}")
    if reb not in REB_MODES:
        raise ValueError(f"reb must be one of {REB_MODES}, got {reb!r}")
    _check_cutoff(cutoff)
    if measure in ("P", "R") and cutoff is None:
        raise ValueError(f"{measure} needs a cutoff")
    if isinstance(rel, bool) or not isinstance(rel, (int, np.integer)):
        raise TypeError(f"rel must be an integer label (the least relevant one), got {rel!r}")
    lab = _to_float_array(labels, "labels").ravel()
    if groups is None:
        codes = np.zeros(len(lab), dtype=np.int64)
        index = None
    else:
        codes, index = pd.factorize(np.asarray(groups).ravel(), sort=True)
        if len(codes) != len(lab):
            raise ValueError(f"labels and groups differ in length ({len(lab)} vs {len(codes)})")
        if (codes < 0).any():
            raise ValueError("groups must not contain missing values")
    n_groups = 1 if index is None else len(index)
    iub_raw, reb_raw, pool_norm = pool_bounds(codes, n_groups, lab, measure, cutoff, rel, gains, reb)
    if norm is None:
        normaliser = pool_norm
    elif isinstance(norm, pd.Series):
        if index is None:
            raise ValueError("a Series norm needs groups")
        normaliser = _to_float_array(norm.reindex(index), "norm")
        if np.isnan(normaliser).any():
            raise ValueError("norm has no value for some topics")
    else:
        normaliser = np.broadcast_to(_to_float_array(norm, "norm"), (n_groups,))
    iub, rebv = normalise_raw(iub_raw, normaliser), normalise_raw(reb_raw, normaliser)
    if index is None:
        return UEBounds(float(iub[0]), float(rebv[0]))
    return UEBounds(pd.Series(iub, index=index, name="iub"), pd.Series(rebv, index=index, name="reb"))


def ue(a: Any, iub: Any, reb: Any, variant: str = "V1") -> Any:
    """UE-normalised score from the base score, its IUB and its REB (Feng & Karmaker Santu, eqs. 5, 6).

    ``V1 = (A / IUB) * (A / (A + REB))`` in [0, 1];
    ``V2 = (A - REB) / (IUB - REB)`` if ``A >= REB`` else ``(A - REB) / REB``, in [-1, 1].

    Edge cases (documented policy):

    * no relevant document in the pool (``IUB = REB = A = 0``): 0 for both variants, the value
      ir_measures gives the base measure;
    * ``A = 0`` with ``REB > 0``: V1 = 0, V2 = -1;
    * every ordering scores the same (``IUB = REB > 0``, e.g. all pool documents equally relevant or
      ``P@k`` with ``k >= n``): V1 = ``(A/IUB) * A/(A+REB)`` (0.5 when ``A = IUB``), V2 = 0 when
      ``A >= REB`` (no ranking can beat random), ``(A - REB)/REB`` otherwise;
    * results are clipped to the variant's range to absorb floating-point rounding.

    Args:
        a: Base measure score(s) ``A`` (scalar, array or Series).
        iub: Ideal upper bound(s), same units as ``a``.
        reb: Randomised expected bound(s), same units as ``a``.
        variant: ``'V1'`` or ``'V2'``.

    Returns:
        A float for scalar inputs, a Series (with ``a``'s index) when ``a`` is a Series, else an array.

    Raises:
        ValueError: unknown variant, negative or NaN inputs (including a topic of ``a`` missing from
            Series ``iub``/``reb``, which are aligned to ``a``'s index), ``REB > IUB`` or ``A > IUB``.
    """
    if variant not in VARIANTS:
        raise ValueError(f"variant must be one of {VARIANTS}, got {variant!r}")
    index = a.index if isinstance(a, pd.Series) else None
    if index is not None:  # align bounds given per topic with the scores' topics
        iub, reb = (x.reindex(index) if isinstance(x, pd.Series) else x for x in (iub, reb))
    av, iv, rv = np.broadcast_arrays(
        *(_to_float_array(x, name) for x, name in ((a, "a"), (iub, "iub"), (reb, "reb")))
    )
    if np.isnan(av).any() or np.isnan(iv).any() or np.isnan(rv).any():
        raise ValueError("a, iub and reb must not be NaN (Series iub/reb must cover every topic of a)")
    tol = 1e-9 * np.maximum(iv, 1.0)
    if (av < -tol).any() or (rv < -tol).any():
        raise ValueError("a and reb must be >= 0")
    if (rv > iv + tol).any():
        raise ValueError("reb must be <= iub (REB is an average of scores bounded by IUB)")
    if (av > iv + tol).any():
        raise ValueError("a must be <= iub (IUB is the best score of the pool)")
    out = np.zeros(av.shape)
    if variant == "V1":
        pos = (av > 0) & (iv > 0)
        out[pos] = (av[pos] / iv[pos]) * (av[pos] / (av[pos] + rv[pos]))
        out = np.clip(out, 0.0, 1.0)
    else:
        same = (iv - rv) <= _TIE_RTOL * np.maximum(iv, np.finfo(float).tiny)
        above = (av >= rv) & ~same
        below = av < rv
        out[above] = (av[above] - rv[above]) / (iv[above] - rv[above])
        out[below] = (av[below] - rv[below]) / rv[below]
        out = np.clip(out, -1.0, 1.0)
    if index is not None:
        return pd.Series(out, index=index, name=getattr(a, "name", None))
    if out.ndim == 0:
        return float(out)
    return out
