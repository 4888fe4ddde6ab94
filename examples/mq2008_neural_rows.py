"""LightGBM's LambdaMART beside a neural study's rows: one learner table over both studies' test queries.

docs/results_neural.md's second table. A neural study (``pyterrier-risk learn --learner neural``) and a
LightGBM one (``--learner lambdamart``) on the same folds and seeds each write ``per_query.csv``; this
script puts the LightGBM study's reference (LambdaMART, ``lambdarank`` at α 0, of the neural study's
seeds) into the neural study's frame as one more row, ``lightgbm-lambdamart``, and prints the study's
own learner table (:func:`pyterrier_risk.engine.learner_tables`: NDCG@10, Risk and Losses>20% against
the single baseline, the macro half, GeoRisk, each row's paired test against the neural α-0 model,
Holm-corrected), the neural reference labelled LambdaLoss as the study labels it.

    python examples/mq2008_neural_rows.py mq2008_neural mq2008_lightgbm
"""

from __future__ import annotations

import argparse
import dataclasses
import json
from pathlib import Path

import pandas as pd

from pyterrier_risk.engine import learner_tables

LIGHTGBM = "lightgbm-lambdamart"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("neural", type=Path, help="the neural study's --out folder")
    parser.add_argument("lightgbm", type=Path, help="the LightGBM study's --out folder (same folds, seeds)")
    args = parser.parse_args()
    settings = json.loads((args.neural / "settings.json").read_text())
    neural = pd.read_csv(args.neural / "per_query.csv", comment="#", dtype={"qid": str})
    other = pd.read_csv(args.lightgbm / "per_query.csv", comment="#", dtype={"qid": str})
    seeds = other["seed"].isin(neural["seed"])
    reference = other["objective"].eq("lambdarank") & other["alpha"].eq(0.0) & seeds
    lightgbm = other[reference].assign(objective=LIGHTGBM)
    frame = pd.concat([neural, lightgbm[neural.columns]], ignore_index=True)
    single = settings["baseline"]["name"] if settings["baseline"] else None
    multiple = [b["name"] for b in settings["baselines"]]
    tables = learner_tables(frame, single=single, multiple=multiple, eval_alpha=settings["eval_alpha"])
    labels = {**tables.settings.labels, "lambdarank": "LambdaLoss", LIGHTGBM: "LightGBM LambdaMART"}
    tables = dataclasses.replace(tables, settings=dataclasses.replace(tables.settings, labels=labels))
    print(tables.render("markdown"))


if __name__ == "__main__":
    main()
