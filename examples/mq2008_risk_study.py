"""Does each risk objective do what it optimises on held-out MQ2008 queries? (issue 10, on issue 22's engine)

Runs ``pyterrier-risk learn`` on the five LETOR 4.0 MQ2008 folds with the settings of
docs/results_mq2008.md: every objective against the BM25 feature (LETOR feature 25: U-CRO, T-SARO,
T-FARO) and among six retrieval-model features or the 25 MQ2008-agg systems' runs (T*-FARO, GeoRisk), α
5, 10 and 20, seeds 1, 2 and 3, LightGBM ``learning_rate=0.05``, ``num_leaves=15``,
``min_data_in_leaf=50``, ``feature_fraction=0.8`` (the study sets ``deterministic``, ``force_row_wise``
and one thread per fit), with 150 trees and with early stopping (at most 300 trees, patience 30). Each
protocol is one study in ``--out``/<baselines>_<protocol>: the tables on stdout and in that folder,
with the per-query values, one TREC run per model and the qrels; a rerun resumes.

    python examples/mq2008_risk_study.py --quick         # seed 1, alpha 5, U-CRO and GeoRisk, 30 trees
    python examples/mq2008_risk_study.py                 # the page's studies: 480 models
    python examples/mq2008_risk_study.py --baselines agg # the systems of MQ2008-agg as multiple baselines

The same as ``pyterrier-risk learn DATA/letor4-mq2008 --baseline 25 --baselines 15 21 25 30 35 40
--alpha 5 10 20 --seeds 1 2 3 --rounds 150 --param learning_rate=0.05 num_leaves=15 min_data_in_leaf=50
feature_fraction=0.8 --out DIR``.
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path

from pyterrier_risk.cli import main as pyterrier_risk

DATA = Path(
    os.environ.get("PYTERRIER_RISK_DATA", Path(__file__).resolve().parents[1].parent / "shared" / "data")
)
PARAMS = ["learning_rate=0.05", "num_leaves=15", "min_data_in_leaf=50", "feature_fraction=0.8"]
# six retrieval-model features of LETOR 4.0 (TF*IDF, BM25 of the body, BM25, LMIR.ABS, LMIR.DIR, LMIR.JM
# of the whole document), numbered from 1 as the file numbers them
FEATURES = ["15", "21", "25", "30", "35", "40"]
PROTOCOLS = {"fixed": ["--rounds", "150"], "es": ["--rounds", "300", "--early-stopping", "30"]}


def arguments(multi: str, protocol: str, quick: bool, out: Path) -> list[str]:
    """The ``pyterrier-risk learn`` command line of one study."""
    if multi == "features":
        baselines = FEATURES
    else:
        runs = DATA / "letor4-mq2008-agg" / "derived_trec" / "runs"
        baselines = sorted(str(p) for p in runs.glob("*.run*"))
    argv = ["learn", str(DATA / "letor4-mq2008"), "--baseline", "25", "--baselines", *baselines, "--param",
            *PARAMS, "--out", str(out / f"{multi}_{protocol}"), "--no-progress"]
    if quick:
        return [*argv, "--objective", "urisk", "georisk", "--alpha", "5", "--seeds", "1", "--rounds", "30"]
    return [*argv, "--alpha", "5", "10", "20", "--seeds", "1", "2", "3", *PROTOCOLS[protocol]]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--baselines", nargs="+", choices=["features", "agg"], default=["features"],
                    help="multiple baselines: six retrieval-model features, or the 25 MQ2008-agg systems")
    ap.add_argument("--protocols", nargs="+", choices=list(PROTOCOLS), default=list(PROTOCOLS))
    ap.add_argument("--quick", action="store_true", help="seed 1, alpha 5, U-CRO and GeoRisk, 30 trees")
    ap.add_argument("--out", type=Path, default=Path.cwd() / "mq2008_risk_study")
    args = ap.parse_args(argv)
    protocols = ["fixed"] if args.quick else args.protocols
    for multi in args.baselines:
        for protocol in protocols:
            print(f"## baselines {multi}, {protocol}\n", flush=True)
            status = pyterrier_risk(arguments(multi, protocol, args.quick, args.out))
            if status:
                return status
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
