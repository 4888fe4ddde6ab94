"""Cold start: seconds from a fresh process to the first gradient, with an empty and a warm kernel cache.

Each measurement is a new Python process (``import pyterrier_risk`` included) computing one
gradient of a small query set with ``objective(kind)``; "cold" uses an empty cache folder
(every kernel compiled), "warm" the folder the cold run filled. A process that only imports numpy
is timed alongside as the reference (interpreter start-up), so the ratios stay comparable on a
loaded machine.

    python benchmarks/bench_coldstart.py              # lambdarank and georisk, 3 repeats
    python benchmarks/bench_coldstart.py --kinds lambdarank urisk --repeats 5
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time

CODE = """
import numpy as np, pyterrier_risk as ptr
y = np.array([0, 1, 2, 0, 1] * 4, dtype=np.float32); g = np.array([5, 5, 5, 5])
class D:
    def get_label(s): return y
    def get_group(s): return g
    def get_weight(s): return None
kind = {kind!r}
b = np.random.default_rng(0).random((20, 3))
kw = {{"baselines": b, "alpha": 1.0}} if kind in ("georisk", "tfaro_star") else {{}}
kw = {{"baseline": b[:, 0], "alpha": 1.0}} if kind in ("urisk", "tsaro", "tfaro") else kw
ptr.objective(kind, **kw)(np.zeros(20), D())
"""


def timed(code: str, cache: str) -> float:
    env = {**os.environ, "PYTERRIER_RISK_CACHE_DIR": cache}
    env.pop("NUMBA_CACHE_DIR", None)
    t = time.perf_counter()
    subprocess.run([sys.executable, "-c", code], check=True, env=env)
    return time.perf_counter() - t


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--kinds", nargs="+", default=["lambdarank", "georisk"])
    ap.add_argument("--repeats", type=int, default=3)
    args = ap.parse_args()
    print(f"{os.cpu_count()} CPUs; median of {args.repeats} processes")
    print("| kind | reference s | cold s | warm s | cold / reference | warm / reference |")
    print("|---|---|---|---|---|---|")
    for kind in args.kinds:
        ref, cold, warm = [], [], []
        for _ in range(args.repeats):
            with tempfile.TemporaryDirectory() as cache:
                ref.append(timed("import numpy", cache))
                cold.append(timed(CODE.format(kind=kind), cache))
                warm.append(timed(CODE.format(kind=kind), cache))
        r, c, w = (statistics.median(v) for v in (ref, cold, warm))
        print(f"| {kind} | {r:.2f} | {c:.2f} | {w:.2f} | {c / r:.1f} | {w / r:.1f} |")


if __name__ == "__main__":
    main()
