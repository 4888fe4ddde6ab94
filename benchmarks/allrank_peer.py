"""The peer run: allRank's own training loop on the study's MQ2008 folds, beside our neural α-0 models.

allRank (Pobrotyn et al.) trains from a JSON config with ``python -m allrank.main --config-file-name ...
--run-id ... --job-dir ...``; this script gives it the folds a learning study uses (LETOR 4.0's partitions
rotated as :func:`pyterrier_risk.data.letor_folds` rotates them: Fold1 trains on S1-S3, validates on S4,
tests on S5) as the ``train.txt``/``vali.txt``/``test.txt`` allRank reads, runs its loop once per fold
and config (``benchmarks/allrank/*.json``: its MLP with ``lambdaLoss`` and with ``neuralNDCG``), scores
each fold's test queries with the model allRank saved (its ``model.pkl``, the last epoch's weights) and
measures NDCG@10 per test query with allRank's own ``ndcg`` (gains 2^label − 1) where a query without a
relevant document scores 0, as the study counts it. With ``--ours``, the study's ``per_query.csv`` gives
our α-0 model's NDCG@10 on the same queries, per fold and seed.

allRank pins torch ≤ 1.8 and imports torchvision, so it runs in its own environment (``--python``)::

    python -m venv /tmp/allrank-venv
    /tmp/allrank-venv/bin/pip install torch torchvision scikit-learn attrs flatten-dict gcsfs tensorboardX \\
        "setuptools<81" pandas
    /tmp/allrank-venv/bin/pip install --no-deps allRank==1.4.3
    python benchmarks/allrank_peer.py $DATA/letor4-mq2008 --python /tmp/allrank-venv/bin/python \\
        --out /tmp/allrank-peer --ours mq2008_neural/per_query.csv

allRank's ``main`` seeds torch and numpy with 42 itself, so each fold and config is one run; the seeds'
spread in the table is our models'. No allRank code is copied here: the script calls its command and, to
score the test split, its public ``make_model``, ``load_libsvm_dataset_role`` and ``ndcg``.
"""

from __future__ import annotations

import argparse
import gzip
import json
import shutil
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
CONFIGS = {"lambdaLoss": HERE / "allrank" / "mlp_lambdaloss.json",
           "neuralNDCG": HERE / "allrank" / "mlp_neuralndcg.json"}  # fmt: skip


def _copy(files: tuple[str, ...], target: Path) -> None:
    """Concatenate LETOR files (plain or .gz) into one plain libsvm file (allRank reads ``<role>.txt``).

    An existing file is kept (a rerun, or a second run into the same ``--out``, reuses the folds).
    """
    if target.exists():
        return
    partial = target.with_suffix(".partial")
    with open(partial, "wb") as out:
        for f in files:
            opener = gzip.open if f.endswith(".gz") else open
            with opener(f, "rb") as fh:
                shutil.copyfileobj(fh, out)
    partial.replace(target)


def write_folds(data: str, out: Path) -> list[Path]:
    """``out/FoldK/{train,vali,test}.txt`` of the study's folds (the same rotation, the same files)."""
    from pyterrier_risk.data import letor_folds

    folders = []
    for fold in letor_folds(data):
        folder = out / fold.name
        folder.mkdir(parents=True, exist_ok=True)
        for role in ("train", "vali", "test"):
            split = getattr(fold, role)
            if split.qids is not None:
                raise SystemExit(f"{data}: a fold split by query is not a folder of partitions or folds")
            _copy(split.files, folder / f"{role}.txt")
        folders.append(folder)
    return folders


def run_allrank(python: str, loss: str, fold: Path, jobs: Path) -> Path:
    """Run ``python -m allrank.main`` on one fold with the loss's config; the run's output folder.

    A run whose results are there already (``experiment_result.json``) is not run again.
    """
    run_id = f"{fold.name}-{loss}"
    if (jobs / "results" / run_id / "experiment_result.json").is_file():
        return jobs / "results" / run_id
    config = json.loads(CONFIGS[loss].read_text())
    config["data"]["path"] = str(fold)
    config_path = jobs / f"{fold.name}-{loss}.json"
    config_path.write_text(json.dumps(config, indent=2))
    subprocess.run([python, "-m", "allrank.main", "--config-file-name", str(config_path), "--run-id", run_id,
                    "--job-dir", str(jobs)], check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return jobs / "results" / run_id


def score(run_dir: str, fold: str) -> None:
    """(In allRank's environment) per-query NDCG@10 of the run's saved model on the fold's test split."""
    import torch
    from allrank.config import Config
    from allrank.data.dataset_loading import PADDED_Y_VALUE, load_libsvm_dataset_role
    from allrank.models.metrics import ndcg
    from allrank.models.model import make_model
    from allrank.models.model_utils import load_state_dict_from_file
    from attr import asdict

    config = Config.from_json(str(Path(run_dir) / "used_config.json"))
    test = load_libsvm_dataset_role("test", fold, config.data.slate_length)
    model = make_model(n_features=test.shape[-1], **asdict(config.model, recurse=False))
    model.load_state_dict(load_state_dict_from_file(str(Path(run_dir) / "model.pkl"), torch.device("cpu")))
    model.eval()
    values = []
    with torch.no_grad():
        for i in range(len(test)):
            x, y, indices = test[i]
            x, y, indices = x[None].float(), y[None].float(), indices[None]
            scores = model.score(x, y == PADDED_Y_VALUE, indices)
            values.append(float(ndcg(scores, y, ats=[10], filler_value=0.0)[0, 0]))
    print(json.dumps(values))


def _ours(per_query: str) -> dict[str, list[float]]:
    """Fold -> our α-0 model's mean test NDCG@10 per seed, from a study's ``per_query.csv``."""
    import pandas as pd

    frame = pd.read_csv(per_query, comment="#")
    ref = frame[(frame["objective"] == "lambdarank") & (frame["alpha"] == 0.0)]
    return {f: g.groupby("seed")["ndcg"].mean().tolist() for f, g in ref.groupby("fold")}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("data", nargs="?", help="LETOR 4.0 partitions S1..S5 (or Fold1..5)")
    parser.add_argument("--python", default=sys.executable, help="the Python of allRank's environment")
    parser.add_argument("--out", type=Path, default=Path("allrank-peer"), help="folds, configs and runs")
    parser.add_argument("--losses", nargs="+", default=list(CONFIGS), choices=list(CONFIGS))
    parser.add_argument("--ours", help="a neural study's per_query.csv: our α-0 models beside allRank's")
    parser.add_argument("--score", nargs=2, metavar=("RUN_DIR", "FOLD_DIR"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.score:
        return score(*args.score)
    args.out.mkdir(parents=True, exist_ok=True)
    folds = write_folds(args.data, args.out / "folds")
    jobs = args.out / "jobs"
    jobs.mkdir(exist_ok=True)
    results = {}
    for loss in args.losses:
        for fold in folds:
            run_dir = run_allrank(args.python, loss, fold, jobs)
            text = subprocess.run([args.python, __file__, "--score", str(run_dir), str(fold)], check=True,
                                  capture_output=True, text=True).stdout
            values = json.loads(text.strip().splitlines()[-1])
            epochs = json.loads((run_dir / "experiment_result.json").read_text()).get("epochs")
            results[(loss, fold.name)] = (sum(values) / len(values), len(values), epochs)
            print(f"allRank {loss:10} {fold.name}: NDCG@10 {results[(loss, fold.name)][0]:.4f} "
                  f"({len(values)} test queries, last epoch {epochs}, counted from 0)", flush=True)
    _table(results, args.losses, [f.name for f in folds], _ours(args.ours) if args.ours else None)
    (args.out / "results.json").write_text(json.dumps({f"{k[0]}/{k[1]}": v for k, v in results.items()}))


def _table(results: dict, losses: list[str], folds: list[str], ours: dict[str, list[float]] | None) -> None:
    """The Markdown table: NDCG@10 per fold and the mean, allRank's configs and ours (seeds' mean ± SD)."""
    import statistics

    print("\n| model | " + " | ".join(folds) + " | mean |")
    print("|---|" + "---:|" * (len(folds) + 1))
    for loss in losses:
        cells = [results[(loss, f)][0] for f in folds]
        print(f"| allRank MLP, {loss} | " + " | ".join(f"{c:.4f}" for c in cells)
              + f" | {statistics.mean(cells):.4f} |")
    if ours:
        seeds = len(next(iter(ours.values())))
        means = [statistics.mean(ours[f][s] for f in folds) for s in range(seeds)]
        cells = [f"{statistics.mean(ours[f]):.4f} ± {statistics.pstdev(ours[f]):.4f}" for f in folds]
        print(f"| ours, RiskNeuralRanker α 0 ({seeds} seeds, mean ± SD) | " + " | ".join(cells)
              + f" | {statistics.mean(means):.4f} ± {statistics.pstdev(means):.4f} |")


if __name__ == "__main__":
    main()
