"""Cold start: seconds from a fresh process to the first gradient, with an empty and a warm kernel cache.

Each measurement is a new Python process (``import pyterrier_risk`` included) computing one
gradient of a small query set with ``objective(kind)``; "cold" uses an empty cache folder
(what the kind uses is compiled), "warm" the folder the cold run filled. The issue-17 target is
cold / warm <= 2.5 for every kind. A process that only imports numpy is timed alongside as the
reference (interpreter start-up), so the ratios stay comparable on a loaded machine. ``--compile``
also prints, per kind, the seconds numba spent compiling each function (empty cache, one process).

    python benchmarks/bench_coldstart.py              # every built-in kind, 3 repeats
    python benchmarks/bench_coldstart.py --kinds lambdarank urisk --repeats 5 --compile
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
kind, extra = {kind!r}, {extra!r}
b = np.random.default_rng(0).random((20, 3))
needs = ptr.get_objective(kind).baseline
kw = {{"baselines": b}} if needs == "multiple" else {{"baseline": b[:, 0]}} if needs == "single" else {{}}
obj = ptr.objective(kind, alpha=1.0, **kw, **extra)
obj(np.zeros(20), D()); obj(np.arange(20.0), D())
if {report!r}:
    import numba
    from numba.core.registry import CPUDispatcher
    import gc
    for d in gc.get_objects():
        ours = isinstance(d, CPUDispatcher) and d.py_func.__module__.startswith("pyterrier_risk")
        if ours and d.signatures:
            for sig in d.signatures:
                t = d.get_metadata(sig).get("timers", {{}}).get("compiler_lock")
                if t:
                    print(f"{{d.py_func.__module__.split('.')[-1]}}.{{d.py_func.__name__}} {{t:.2f}}")
"""


KINDS = [("lambdarank", {}), ("urisk", {}), ("tsaro", {}), ("tfaro", {}), ("tfaro_star", {}), ("georisk", {}),
         ("georisk", {"georisk_weight": "dincer2016"}), ("georisk", {"georisk_update": "exact"})]  # fmt: skip


def timed(code: str, cache: str) -> float:
    env = {**os.environ, "PYTERRIER_RISK_CACHE_DIR": cache}
    env.pop("NUMBA_CACHE_DIR", None)
    t = time.perf_counter()
    subprocess.run([sys.executable, "-c", code], check=True, env=env)
    return time.perf_counter() - t


def compile_times(kind: str, extra: dict) -> str:
    """Seconds numba spent compiling each function of one cold process (what a kind compiles)."""
    with tempfile.TemporaryDirectory() as cache:
        env = {**os.environ, "PYTERRIER_RISK_CACHE_DIR": cache}
        env.pop("NUMBA_CACHE_DIR", None)
        code = CODE.format(kind=kind, extra=extra, report=True)
        cmd = [sys.executable, "-c", code]
        out = subprocess.run(cmd, check=True, env=env, capture_output=True, text=True)
    return ", ".join(out.stdout.split("\n")[:-1]) or "(none)"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--kinds", nargs="+", default=None, help="kinds, default options (default: all)")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--compile", action="store_true", help="also print the compile seconds per function")
    args = ap.parse_args()
    kinds = KINDS if args.kinds is None else [(k, {}) for k in args.kinds]
    print(f"{os.cpu_count()} CPUs; median of {args.repeats} processes")
    print("| kind | options | reference s | cold s | warm s | cold / warm | warm / reference |")
    print("|---|---|---|---|---|---|---|")
    for kind, extra in kinds:
        ref, cold, warm = [], [], []
        code = CODE.format(kind=kind, extra=extra, report=False)
        for _ in range(args.repeats):
            with tempfile.TemporaryDirectory() as cache:
                ref.append(timed("import numpy", cache))
                cold.append(timed(code, cache))
                warm.append(timed(code, cache))
        r, c, w = (statistics.median(v) for v in (ref, cold, warm))
        shown = ", ".join(f"{k}={v}" for k, v in extra.items()) or "defaults"
        print(f"| {kind} | {shown} | {r:.2f} | {c:.2f} | {w:.2f} | {c / w:.2f} | {w / r:.1f} |")
    if args.compile:
        print("\n| kind | options | compiled (seconds each) |\n|---|---|---|")
        for kind, extra in kinds:
            shown = ", ".join(f"{k}={v}" for k, v in extra.items()) or "defaults"
            print(f"| {kind} | {shown} | {compile_times(kind, extra)} |")


if __name__ == "__main__":
    main()
