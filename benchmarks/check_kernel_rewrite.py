"""The issue-17 rewrite changed no number: gradients and models of the previous kernels vs the current code.

The learning layer's kernels were rewritten (one pair loop per weight rule, LightGBM's tables and the
NDCG in numpy). This script extracts the previous implementation from git (commit 7b0ec60, before the
rewrite) into a temporary package and runs both on the same inputs:

* gradients and hessians of every kind and option (both ``risk_norm`` s; GeoRisk's ratio,
  dincer2016, ndcg_units and exact weights; T-FARO's paper score; T-SARO never frozen), at
  α ∈ {0, 1, 5, 20}, three lambdarank settings, four rounds each: counted when not bit-identical;
* with ``--models``, the LightGBM model text of ten configurations trained at α = 10 for 50 trees on
  MQ2008 fold 1 (SHA-256 compared).

    python benchmarks/check_kernel_rewrite.py                 # serial path (small sets)
    python benchmarks/check_kernel_rewrite.py --threads 2     # parallel path
    python benchmarks/check_kernel_rewrite.py --models        # + refit the ten models
    python benchmarks/check_kernel_rewrite.py --before 056458a  # against another commit's learning layer

``--before`` takes any commit: one with the old ``learning/_kernels.py`` has its four modules extracted,
a later one its whole ``pyterrier_risk/learning`` package (imports above the layer rewritten to the
installed ``pyterrier_risk``), so a kernel change is checked against the code just before it.
"""

from __future__ import annotations

import argparse
import hashlib
import importlib
import os
import re
import subprocess
import sys
import tempfile
import warnings
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
BEFORE = "7b0ec60"
DATA = Path(os.environ.get("PYTERRIER_RISK_DATA", REPO.parent / "shared" / "data"))


def _git(*args: str) -> str:
    return subprocess.run(["git", *args], cwd=REPO, check=True, capture_output=True, text=True).stdout


def _above_layer(text: str, depth: int) -> str:
    """Relative imports that leave the learning layer (``from ..core``) made absolute."""
    dots = "." * (depth + 2)
    return re.sub(rf"^(\s*from ){re.escape(dots)}(?=\w)", r"\1pyterrier_risk.", text, flags=re.M)


def previous_objective(folder: Path, before: str):
    """The previous ``_objective`` module, imported from files extracted from git at ``before``."""
    pkg = folder / "previous_learning"
    pkg.mkdir()
    files = _git("ls-tree", "-r", "--name-only", before, "pyterrier_risk/learning").split()
    if "pyterrier_risk/learning/_kernels.py" in files:
        (pkg / "__init__.py").write_text("")
        old = ("_objective", "_kernels", "_jit", "_options")
        files = [f"pyterrier_risk/learning/{name}.py" for name in old]
    for path in (f for f in files if f.endswith(".py")):
        relative = Path(path).relative_to("pyterrier_risk/learning")
        target = pkg / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(_above_layer(_git("show", f"{before}:{path}"), len(relative.parts) - 1))
    sys.path.insert(0, str(folder))
    return importlib.import_module("previous_learning._objective")


class _Data:
    def __init__(self, y, g):
        self.y, self.g = y, g

    def get_label(self):
        return self.y

    def get_group(self):
        return self.g

    def get_weight(self):
        return None


def configs(b: np.ndarray) -> list[tuple[str, dict]]:
    out = [("lambdarank", {})]
    for kind in ("urisk", "tsaro", "tfaro"):
        out += [(kind, {"baseline": b[:, 0], "risk_norm": n}) for n in ("native", "weighted")]
    out += [("tsaro", {"baseline": b[:, 0], "se_round": None}),
            ("tfaro", {"baseline": b[:, 0], "faro_tr": "dincer2014", "se_round": 0})]  # fmt: skip
    for n in ("native", "weighted"):
        out.append(("tfaro_star", {"baselines": b, "risk_norm": n}))
        weights = (("incremental", "ratio"), ("incremental", "dincer2016"), ("incremental", "ndcg_units"),
                   ("exact", "ndcg_units"), ("exact", "dincer2016"))  # fmt: skip
        for update, weight in weights:
            out.append(("georisk", {"baselines": b, "risk_norm": n, "georisk_update": update,
                                    "georisk_weight": weight}))  # fmt: skip
    return out


def gradients(old, new, threads: int | None) -> tuple[int, int]:
    rng = np.random.default_rng(0)
    rounds = differing = 0
    extra_threads = {} if threads is None else {"num_threads": threads}
    for _ in range(3):
        g = rng.integers(2, 40, size=60)
        y, b = rng.integers(0, 4, size=int(g.sum())).astype(float), rng.normal(size=(int(g.sum()), 3))
        data = _Data(y, g)
        for kind, kw in configs(b):
            for alpha in (0.0, 1.0, 5.0, 20.0):
                lambdarank = ({}, {"lambdarank_norm": False},
                              {"sigmoid": 2.0, "lambdarank_truncation_level": 5})  # fmt: skip
                for lr in lambdarank:
                    a = old.objective(kind, alpha=alpha, **kw, **lr, **extra_threads)
                    c = new.objective(kind, alpha=alpha, **kw, **lr, **extra_threads)
                    preds = np.zeros(len(y))
                    for _ in range(4):
                        (ga, ha), (gc, hc) = a(preds, data), c(preds, data)
                        rounds += 1
                        differing += not (np.array_equal(ga, gc) and np.array_equal(ha, hc))
                        preds = np.round(preds + rng.normal(size=len(y)) * 0.3, 1)
    return rounds, differing


def models(old, new) -> list[tuple[str, bool]]:
    import lightgbm as lgb

    from pyterrier_risk.data import read_letor

    d = read_letor(DATA / "letor4-mq2008" / "Fold1" / "train.txt.gz")
    feats = d.X[:, [20, 21, 22, 23, 24, 29, 34, 39]]
    bm25 = {"baseline": d.X[:, 24]}
    chosen = [("lambdarank", {}), ("urisk", bm25), ("tsaro", bm25), ("tfaro", bm25),
              ("tfaro", {**bm25, "faro_tr": "dincer2014", "se_round": 1}),
              ("tfaro_star", {"baselines": feats}), ("georisk", {"baselines": feats}),
              ("georisk", {"baselines": feats, "georisk_weight": "dincer2016"}),
              ("georisk", {"baselines": feats, "georisk_update": "exact"}),
              ("urisk", {**bm25, "risk_norm": "weighted"})]  # fmt: skip
    out = []
    for kind, kw in chosen:
        digests = []
        for module in (old, new):
            params = {"objective": module.objective(kind, alpha=10.0, num_threads=1, **kw), "verbosity": -1,
                      "deterministic": True, "num_threads": 1}  # fmt: skip
            text = lgb.train(params, lgb.Dataset(d.X, d.y, group=d.group), 50).model_to_string()
            digests.append(hashlib.sha256(text[: text.find("parameters:")].encode()).hexdigest())
        shown = ", ".join(f"{k}={v}" for k, v in kw.items() if k not in ("baseline", "baselines"))
        out.append((f"{kind} {shown}".strip(), digests[0] == digests[1]))
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--threads", type=int, default=None, help="num_threads of both (the parallel path)")
    ap.add_argument("--models", action="store_true", help="also refit ten MQ2008 models under both")
    ap.add_argument("--before", default=BEFORE, help=f"the commit to compare with (default {BEFORE})")
    args = ap.parse_args()
    warnings.simplefilter("ignore")
    from pyterrier_risk.learning import _objective as new

    with tempfile.TemporaryDirectory() as folder:
        old = previous_objective(Path(folder), args.before)
        rounds, differing = gradients(old, new, args.threads)
        print(f"gradients against {args.before}: {rounds} rounds compared, {differing} not bit-identical")
        if args.models:
            print("| model (alpha = 10, 50 trees, MQ2008 fold 1) | same model text |\n|---|---|")
            for name, same in models(old, new):
                print(f"| {name} | {'yes' if same else 'NO'} |")


if __name__ == "__main__":
    main()
