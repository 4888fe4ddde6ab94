"""Seconds per training epoch of :func:`pyterrier_risk.risk_loss` as a ratio to allRank's ``lambdaLoss``.

One run, the same batches, the same model: an MLP scorer (``--hidden``, ReLU, no dropout) over padded
batches of ``--batch-size`` queries (label −1 on padding, allRank's convention), one Adam step per
batch. Each loss trains its own copy of the same initial weights; the reference is
``allrank.models.losses.lambdaLoss(y_pred, y_true, weighing_scheme="lambdaRank_scheme")``, timed in the
same loop as ours (interleaved, median over ``--repeats`` epochs), so machine load affects both. Both
the process's CPU seconds and the wall-clock seconds are shown: on a shared machine the CPU time is
the cost, on a GPU the wall time is.
Building the batches, the baseline tensors and numba's compilation (a warm-up step per loss) are not
timed. The goal (issue 28): ≤ 1.0× at α 0 and ≤ 1.3× for the risk objectives.

    python benchmarks/bench_neural.py                        # MQ2008 Fold1 train + a 1M-row synthetic set
    python benchmarks/bench_neural.py --only mq2008 --repeats 5 --threads 2
    python benchmarks/bench_neural.py --device cuda          # on a GPU

allRank's losses import torchvision through its data loader; where torchvision is absent the one
helper that imports allRank for the tests (``tests/_allrank.py``) stands in for it.
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
DATA = Path(os.environ.get("PYTERRIER_RISK_DATA", HERE.parents[1] / "shared" / "data"))
#: (objective, α) rows: the reference objective at α 0, then every built-in risk objective
ROWS = [("lambdarank", 0.0), ("urisk", 0.0), ("urisk", 5.0), ("tsaro", 5.0), ("tfaro", 5.0),
        ("tfaro_star", 5.0), ("georisk", 5.0)]  # fmt: skip


def allrank_lambda_loss():
    """allRank's ``lambdaLoss`` (its losses module imported by the tests' one helper)."""
    sys.path.insert(0, str(HERE.parent / "tests"))
    try:
        from _allrank import import_allrank_losses

        return import_allrank_losses().lambdaLoss
    except BaseException as e:  # pytest's Skipped when allRank or torch is missing
        raise SystemExit(f"bench_neural needs allRank 1.4.3 and PyTorch: {e}") from None


def mq2008():
    """MQ2008 Fold1's training split; BM25-like feature 25 and six field features as baselines."""
    from pyterrier_risk.data import read_letor

    d = read_letor(DATA / "letor4-mq2008" / "Fold1" / "train.txt.gz")
    return "MQ2008 Fold1 train", d.X, d.y, d.group, d.X[:, 24], d.X[:, [14, 20, 24, 29, 34, 39]]


def synthetic(n_queries=10_000, docs=100, features=46, seed=0):
    """1M rows: graded labels 0..2 driven by a few noisy features (MQ2008's width and labels)."""
    rng = np.random.default_rng(seed)
    n = n_queries * docs
    X = rng.random((n, features), dtype=np.float32)
    signal = X[:, :5] @ np.array([1.0, 0.8, 0.6, 0.4, 0.2], dtype=np.float32) + rng.normal(0, 0.6, n)
    y = np.digitize(signal, np.quantile(signal, [0.8, 0.95])).astype(np.int64)
    return (f"synthetic {n_queries} q x {docs} docs x {features} features", X, y, np.full(n_queries, docs),
            X[:, 0], X[:, :5])


def batches(X, y, group, baseline, baselines, size, device):
    """Padded ``[queries, slate]`` batches of ``size`` queries in file order: (x, y, base, bases)."""
    import torch

    starts = np.concatenate([[0], np.cumsum(group)])
    out = []
    for b in range(0, len(group), size):
        qs = range(b, min(b + size, len(group)))
        slate = int(max(group[q] for q in qs))
        x = np.zeros((len(qs), slate, X.shape[1]), np.float32)
        lab = np.full((len(qs), slate), -1, np.int64)
        base = np.zeros((len(qs), slate), np.float32)
        bases = np.zeros((len(qs), slate, baselines.shape[1]), np.float32)
        for r, q in enumerate(qs):
            lo, hi = starts[q], starts[q + 1]
            x[r, : hi - lo], lab[r, : hi - lo] = X[lo:hi], y[lo:hi]
            base[r, : hi - lo], bases[r, : hi - lo] = baseline[lo:hi], baselines[lo:hi]
        out.append(tuple(torch.from_numpy(a).to(device) for a in (x, lab, base, bases)))
    return out


def mlp(features, hidden, seed):
    import torch

    torch.manual_seed(seed)
    layers, width = [], features
    for h in hidden:
        layers += [torch.nn.Linear(width, h), torch.nn.ReLU()]
        width = h
    return torch.nn.Sequential(*layers, torch.nn.Linear(width, 1))


def make_losses(lambda_loss):
    """Name -> loss(scores, labels, base, bases): allRank's reference, then ours per (objective, α)."""
    import pyterrier_risk as ptr

    def ours(kind, alpha):
        from pyterrier_risk.learning import get_objective

        needs = get_objective(kind).baseline

        def loss(s, lab, base, bases):
            kw = {"single": {"baseline": base}, "multiple": {"baselines": bases}}.get(needs, {})
            return ptr.risk_loss(s, lab, objective=kind, alpha=alpha, **kw)

        return loss

    losses = {"allRank lambdaLoss": lambda s, lab, base, bases: lambda_loss(
        s, lab.float(), weighing_scheme="lambdaRank_scheme")}
    losses.update({f"{k} alpha={a:g}": ours(k, a) for k, a in ROWS})
    return losses


def epoch(model, optimiser, loss, data, device):
    """One pass over the batches (one step each): (wall seconds, CPU seconds of this process)."""
    import torch

    if device.startswith("cuda"):
        torch.cuda.synchronize()
    start, cpu = time.perf_counter(), time.process_time()
    for x, lab, base, bases in data:
        optimiser.zero_grad()
        value = loss(model(x).squeeze(-1), lab, base, bases)
        value.backward()
        optimiser.step()
    if device.startswith("cuda"):
        torch.cuda.synchronize()
    return time.perf_counter() - start, time.process_time() - cpu


def run(name, X, y, group, baseline, baselines, args, lambda_loss):
    import torch

    data = batches(X, y, group, baseline, baselines, args.batch_size, args.device)
    losses = make_losses(lambda_loss)
    models = {}
    for label, loss in losses.items():  # same initial weights; one warm-up step (numba compiles here)
        model = mlp(X.shape[1], args.hidden, seed=0).to(args.device)
        optimiser = torch.optim.Adam(model.parameters(), lr=1e-3)
        x, lab, base, bases = data[0]
        loss(model(x).squeeze(-1), lab, base, bases).backward()
        optimiser.zero_grad()
        models[label] = (model, optimiser)
    times: dict[str, list[tuple[float, float]]] = {label: [] for label in losses}
    for _ in range(args.repeats):  # interleaved: every loss once per repeat
        for label, loss in losses.items():
            times[label].append(epoch(*models[label], loss, data, args.device))
    wall = {label: statistics.median(t[0] for t in ts) for label, ts in times.items()}
    cpu = {label: statistics.median(t[1] for t in ts) for label, ts in times.items()}
    ref = "allRank lambdaLoss"
    print(f"\n{name}: {len(y):,} rows, {len(group):,} queries, {len(data)} batches of {args.batch_size} "
          f"queries; MLP {X.shape[1]}-{'-'.join(map(str, args.hidden))}-1, {args.device}, "
          f"{torch.get_num_threads()} thread(s), median of {args.repeats} epoch(s)")
    print("| loss | CPU s/epoch | × allRank (CPU) | wall s/epoch | × allRank (wall) |")
    print("|---|---:|---:|---:|---:|")
    for label in losses:
        print(f"| {label} | {cpu[label]:.3f} | {cpu[label] / cpu[ref]:.2f} | {wall[label]:.3f} | "
              f"{wall[label] / wall[ref]:.2f} |", flush=True)


def _cpu_name() -> str:
    """The CPU's model name (Linux), else what the platform module knows."""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", choices=["mq2008", "synthetic"], help="one data set only")
    parser.add_argument("--repeats", type=int, default=3, help="epochs per loss (the median is shown)")
    parser.add_argument("--synthetic-repeats", type=int, default=1, help="epochs per loss on the 1M-row set")
    parser.add_argument("--batch-size", type=int, default=64, help="queries per batch (RiskNeuralRanker's)")
    parser.add_argument("--hidden", type=int, nargs="+", default=[64, 32], help="the MLP's hidden sizes")
    parser.add_argument("--threads", type=int, default=1, help="torch and numba threads")
    parser.add_argument("--device", default="cpu", help="cpu or cuda")
    args = parser.parse_args()
    import numba
    import torch

    torch.set_num_threads(args.threads)
    numba.set_num_threads(min(args.threads, numba.config.NUMBA_NUM_THREADS))
    lambda_loss = allrank_lambda_loss()
    machine = torch.cuda.get_device_name() if args.device.startswith("cuda") else _cpu_name()
    print(f"torch {torch.__version__}; {machine}; {os.cpu_count()} cores; load average "
          f"{os.getloadavg()[0]:.1f} at the start")
    if args.only in (None, "mq2008"):
        run(*mq2008(), args, lambda_loss)
    if args.only in (None, "synthetic"):
        args.repeats = args.synthetic_repeats
        run(*synthetic(), args, lambda_loss)


if __name__ == "__main__":
    main()
