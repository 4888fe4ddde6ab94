"""Time zrisk / georisk on a large systems × topics matrix against numpy summing the same matrix.

Run:  python benchmarks/bench_zrisk.py [--systems 1000] [--topics 10000] [--repeat 7]

Each function is timed ``--repeat`` times alternately with ``matrix.sum()`` and printed as the
ratio of the best times and the median per-round ratio (target <= 10x), together with its peak extra memory
under tracemalloc as a multiple of the matrix's size (target <= 3x). A direct transcription of
the formulas (materialising e_ij and z_ij) is timed as well for comparison.
"""

from __future__ import annotations

import argparse
import time
import tracemalloc
from collections.abc import Callable

import numpy as np
from scipy.special import ndtr

from pyterrier_risk import georisk, zrisk


def direct_zrisk(x: np.ndarray, alpha: float) -> np.ndarray:
    """The formulas transcribed literally (the reference the fast path is compared with)."""
    s = x.sum(axis=1, keepdims=True)
    e = s * (x.sum(axis=0, keepdims=True) / s.sum())
    with np.errstate(invalid="ignore", divide="ignore"):
        z = np.where(e > 0, (x - e) / np.sqrt(e), 0.0)
    return np.where(z > 0, z, (1 + alpha) * z).sum(axis=1)


def direct_georisk(x: np.ndarray, alpha: float) -> np.ndarray:
    return np.sqrt(x.mean(axis=1) * ndtr(direct_zrisk(x, alpha) / x.shape[1]))


def paired_times(
    fn: Callable[[], object], ref: Callable[[], object], repeat: int
) -> tuple[float, float, float]:
    """Time ``fn`` and ``ref`` alternately (the machine is shared, so load drifts between runs).

    Returns:
        ``(best fn seconds, best ref seconds, median of the per-round ratios fn / ref)``.
    """
    fn_times, ref_times = [], []
    for _ in range(repeat):
        start = time.perf_counter()
        ref()
        ref_times.append(time.perf_counter() - start)
        start = time.perf_counter()
        fn()
        fn_times.append(time.perf_counter() - start)
    ratios = np.asarray(fn_times) / np.asarray(ref_times)
    return min(fn_times), min(ref_times), float(np.median(ratios))


def peak_memory(fn: Callable[[], object]) -> int:
    tracemalloc.start()
    tracemalloc.reset_peak()
    base = tracemalloc.get_traced_memory()[0]
    fn()
    peak = tracemalloc.get_traced_memory()[1] - base
    tracemalloc.stop()
    return peak


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--systems", type=int, default=1000)
    parser.add_argument("--topics", type=int, default=10_000)
    parser.add_argument("--repeat", type=int, default=15)
    parser.add_argument("--no-direct", action="store_true", help="skip the direct transcription")
    args = parser.parse_args()

    rng = np.random.default_rng(0)
    x = rng.beta(0.6, 2.0, size=(args.systems, args.topics))
    x[rng.random(x.shape) < 0.15] = 0.0
    mb = x.nbytes / 2**20

    # correctness of the fast path on this very matrix, before timing it
    for alpha in (0.0, 5.0):
        np.testing.assert_allclose(zrisk(x, alpha), direct_zrisk(x, alpha), rtol=1e-8, atol=1e-8)

    candidates: list[tuple[str, Callable[[], object]]] = [
        ("zrisk(alpha=0)", lambda: zrisk(x, 0.0)),
        ("zrisk(alpha=5)", lambda: zrisk(x, 5.0)),
        ("georisk(alpha=0)", lambda: georisk(x, 0.0)),
        ("georisk(alpha=5)", lambda: georisk(x, 5.0)),
    ]
    if not args.no_direct:
        candidates += [
            ("direct zrisk(alpha=5)", lambda: direct_zrisk(x, 5.0)),
            ("direct georisk(alpha=5)", lambda: direct_georisk(x, 5.0)),
        ]

    print(f"matrix: {args.systems} systems x {args.topics} topics, float64, {mb:.1f} MiB")
    print(f"reference: numpy matrix.sum(), timed alternately with each function ({args.repeat} rounds)")
    print()
    header = (
        f"{'function':<26}{'best ms':>9}{'sum() ms':>10}{'ratio':>8}{'median':>8}"
        f"{'peak MiB':>10}{'x matrix':>10}"
    )
    print(header)
    print("-" * len(header))
    for name, fn in candidates:
        fn()  # warm-up
        t, ref, median = paired_times(fn, x.sum, args.repeat)
        peak = peak_memory(fn)
        print(
            f"{name:<26}{t * 1e3:>9.2f}{ref * 1e3:>10.2f}{t / ref:>8.1f}{median:>8.1f}"
            f"{peak / 2**20:>10.2f}{peak / x.nbytes:>10.3f}"
        )
    print("-" * len(header))
    print("ratio = best time / best matrix.sum() time; median = median of the per-round ratios")
    print("targets: <= 10x the time of matrix.sum(), peak extra memory <= 3x the matrix")


if __name__ == "__main__":
    main()
