"""read_letor: time and peak memory of the current reader vs the previous one, on a generated LETOR file.

The previous reader is ``pyterrier_risk/data/_letor.py`` of commit 58bbe55 (before the fast path read
pieces of the file with array operations), extracted from git into a temporary module. Both read the
same seeded file (MSLR-like: a label, a qid, every feature ``index:value`` with values of 1 to 6
decimals, integers and a few exponents; with ``--docids`` also a ``#docid = ...`` comment as in
LETOR 4.0), each in a fresh subprocess
(peak RSS from ``resource.getrusage``); the arrays they return must be identical.

    python benchmarks/bench_letor.py                    # 200,000 rows x 136 features
    python benchmarks/bench_letor.py --rows 1000000     # a 1M-row fold
    python benchmarks/bench_letor.py --rows 1000000 --current-only   # without the previous reader (~20 GB)
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
BEFORE = "58bbe55"

CHILD = r"""
import json, resource, sys, time, importlib.util
import numpy as np
sys.path.insert(0, sys.argv[1])
module, path, out = sys.argv[2], sys.argv[3], sys.argv[4]
if module == "current":
    from pyterrier_risk.data import read_letor
else:
    spec = importlib.util.spec_from_file_location("pyterrier_risk.data._letor_previous", sys.argv[5])
    previous = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = previous
    spec.loader.exec_module(previous)
    read_letor = previous.read_letor
base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
t = time.perf_counter()
d = read_letor(path)
seconds = time.perf_counter() - t
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
docno = np.zeros(0) if d.docno is None else d.docno.astype(str)
np.savez(out, X=d.X, y=d.y, qid=d.qid.astype(str), docno=docno, group=d.group)
x_mib = d.X.nbytes / 2**20
print(json.dumps({"seconds": seconds, "peak_mib": peak / 1024, "base_mib": base / 1024, "x_mib": x_mib}))
"""


def write_file(path: Path, rows: int, features: int, seed: int, docids: bool) -> None:
    """A seeded MSLR-like LETOR file: values drawn from a pool of 65,536 spellings (a fifth of them 0)."""
    rng = np.random.default_rng(seed)
    kind = rng.integers(0, 10, size=1 << 16)
    raw = rng.random(1 << 16) * 10.0 ** rng.integers(-2, 4, size=1 << 16)
    pool = ["0" if k < 2 else str(int(v)) if k < 4 else f"{v:.3e}" if k == 4 else f"{v:.{k - 3}f}"
            for k, v in zip(kind, raw, strict=True)]  # fmt: skip
    prefix = [f"{j + 1}:" for j in range(features)]
    qid, left = 0, 0
    with open(path, "w") as fh:
        for start in range(0, rows, 10_000):
            n = min(10_000, rows - start)
            picks = rng.integers(0, len(pool), size=(n, features)).tolist()
            labels = rng.integers(0, 5, size=n).tolist()
            lines = []
            for i in range(n):
                if left == 0:
                    qid, left = qid + 1, int(rng.integers(1, 200))
                left -= 1
                feats = " ".join([a + pool[k] for a, k in zip(prefix, picks[i], strict=True)])
                comment = f" #docid = D{start + i} inc = 1" if docids else ""
                lines.append(f"{labels[i]} qid:{qid} {feats}{comment}\n")
            fh.write("".join(lines))


def measure(which: str, path: Path, folder: Path, previous: Path) -> tuple[dict, Path]:
    out = folder / f"{which}.npz"
    got = subprocess.run([sys.executable, "-c", CHILD, str(REPO), which, str(path), str(out), str(previous)],
                         check=True, capture_output=True, text=True)  # fmt: skip
    return json.loads(got.stdout.strip().splitlines()[-1]), out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=200_000)
    parser.add_argument("--features", type=int, default=136)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--docids", action="store_true", help="a '#docid = ...' comment on each line")
    parser.add_argument("--current-only", action="store_true",
                        help="skip the previous reader (it needs ~18x the size of X in memory)")  # fmt: skip
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        previous = folder / "_letor_previous.py"
        source = f"{BEFORE}:pyterrier_risk/data/_letor.py"
        text = subprocess.run(["git", "show", source], cwd=REPO, check=True, capture_output=True, text=True)
        text = text.stdout
        previous.write_text(text.replace("from ..core", "from pyterrier_risk.core").replace(
            "from ._trec", "from pyterrier_risk.data._trec"))  # fmt: skip
        path = folder / "data.txt"
        t = time.perf_counter()
        write_file(path, args.rows, args.features, args.seed, args.docids)
        print(f"file: {args.rows:,} rows x {args.features} features, {path.stat().st_size / 2**20:.0f} MiB "
              f"(written in {time.perf_counter() - t:.0f} s)")  # fmt: skip
        new, new_out = measure("current", path, folder, previous)
        if args.current_only:
            extra = (new["peak_mib"] - new["base_mib"]) / new["x_mib"]
            print(f"current: {new['seconds']:.1f} s, peak RSS {new['peak_mib']:.0f} MiB "
                  f"({new['peak_mib'] / new['x_mib']:.2f} x the {new['x_mib']:.0f} MiB of X; "
                  f"{extra:.2f} x without the RSS before reading)")  # fmt: skip
            return
        old, old_out = measure("previous", path, folder, previous)
        a, b = np.load(new_out), np.load(old_out)
        same = all(a[k].dtype == b[k].dtype and np.array_equal(a[k], b[k]) for k in a.files)
        same &= bool(np.array_equal(np.signbit(a["X"]), np.signbit(b["X"])))
    print(f"X: {new['x_mib']:.0f} MiB; interpreter + imports before reading: {new['base_mib']:.0f} MiB")
    print("| reader | seconds | peak RSS MiB | peak / size of X | (peak - RSS before reading) / size of X |")
    print("|---|---:|---:|---:|---:|")
    for name, r in (("previous (58bbe55)", old), ("current", new)):
        print(f"| {name} | {r['seconds']:.1f} | {r['peak_mib']:.0f} | {r['peak_mib'] / r['x_mib']:.2f} | "
              f"{(r['peak_mib'] - r['base_mib']) / r['x_mib']:.2f} |")  # fmt: skip
    print(f"speed-up {old['seconds'] / new['seconds']:.1f}x, peak memory ratio (current / previous) "
          f"{new['peak_mib'] / old['peak_mib']:.2f}; identical arrays: {same}")  # fmt: skip
    if not same:
        raise SystemExit("the two readers disagree")


if __name__ == "__main__":
    main()
