"""Per-round objective time of another commit's learning layer against this tree's, interleaved A/B.

A kernel change must not move the per-round time. Whole training runs (``bench_objective.py``) on a
shared, loaded machine vary by tens of percent between repeats; this times the objective's own call
(sort, NDCG, weights, pair loop: the gradients of one round) of both versions in one process, on the
same scores, alternating which goes first, and prints the median ratio per kind.

    python benchmarks/bench_kernel_ab.py --before 056458a            # 240,000 rows, one thread
    python benchmarks/bench_kernel_ab.py --before 056458a --queries 200 --repeats 41
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
import warnings
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from check_kernel_rewrite import _Data, previous_objective  # noqa: E402


def kinds(b: np.ndarray) -> list[tuple[str, dict]]:
    one, many = {"baseline": b[:, 0]}, {"baselines": b}
    return [("lambdarank", {}), ("urisk", one), ("tsaro", one), ("tfaro", one), ("tfaro_star", many),
            ("georisk", many), ("georisk", {**many, "georisk_weight": "dincer2016"})]  # fmt: skip


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--before", default="056458a", help="the commit to compare with")
    ap.add_argument("--queries", type=int, default=2000, help="queries of 120 documents")
    ap.add_argument("--repeats", type=int, default=21)
    ap.add_argument("--threads", type=int, default=1)
    args = ap.parse_args()
    warnings.simplefilter("ignore")
    from pyterrier_risk.learning import _objective as new

    rng = np.random.default_rng(0)
    n = args.queries * 120
    y, b = rng.integers(0, 5, n).astype(float), rng.normal(size=(n, 5))
    data, preds = _Data(y, np.full(args.queries, 120)), rng.normal(size=n)
    with tempfile.TemporaryDirectory() as folder:
        old = previous_objective(Path(folder), args.before)
        print(f"| kind ({n:,} rows, {args.threads} thread(s)) | {args.before} ms | this tree ms | ratio |")
        print("|---|---|---|---|")
        for kind, kw in kinds(b):
            objs = [m.objective(kind, alpha=5.0, num_threads=args.threads, **kw) for m in (old, new)]
            for obj in objs:
                obj(np.zeros(n), data)  # bind, compile or load the kernels
                obj(preds, data)
            times: list[list[float]] = [[], []]
            for rep in range(args.repeats):
                for k in ((0, 1) if rep % 2 else (1, 0)):
                    start = time.perf_counter()
                    objs[k](preds, data)
                    times[k].append(time.perf_counter() - start)
            a, c = (statistics.median(t) * 1e3 for t in times)
            shown = ", ".join(f"{k}={v}" for k, v in kw.items() if k not in ("baseline", "baselines"))
            print(f"| {kind} {shown} | {a:.1f} | {c:.1f} | {c / a:.3f} |", flush=True)


if __name__ == "__main__":
    main()
