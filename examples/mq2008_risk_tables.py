"""The tables of docs/results_mq2008.md from the CSV files of ``mq2008_risk_study.py``.

    python examples/mq2008_risk_study.py --out mq2008_risk_study.csv
    python examples/mq2008_risk_tables.py mq2008_risk_study.csv            # markdown, to stdout

Four sections: native LambdaMART's own numbers, then three tables, each model against native
LambdaMART with the same seed and protocol (p-values in parentheses): the single-baseline
objectives against BM25, GeoRisk against its baselines, and T*-FARO against the per-query mean of
its baselines. Several CSV files (a main run and
supplementary ones) are concatenated.
"""

from __future__ import annotations

import argparse
import math
from pathlib import Path

import pandas as pd

from pyterrier_risk.study import risk_objectives

KIND_ORDER = list(risk_objectives())  # the registry's order: urisk, tsaro, tfaro, tfaro_star, georisk
RECIPE_ORDER = ["weighted", "dincer2014", "uncentred", "dincer2016", "ndcg_units", "exact", "default"]
SETS = ["learned", "features", "agg"]


def recipe_label(kind: str, recipe: str) -> str:
    """How a recipe reads in the tables (what differs from the default, and whose choice it is)."""
    if recipe == "default":
        return "**default**"
    if recipe == "weighted":
        return {"georisk": "ratio + weighted", "tfaro": "centred + weighted",
                "tfaro_star": "centred + weighted"}.get(kind, "paper: weighted")  # fmt: skip
    return {
        "dincer2014": "paper: dincer2014 + weighted", "uncentred": "paper score + native",
        "dincer2016": "paper: dincer2016 + weighted", "ndcg_units": "v0.1: ndcg_units + weighted",
        "exact": "exact update",
    }[recipe]  # fmt: skip


def p_text(p: float) -> str:
    """A p-value as the tables print it: two significant digits, or ``3e-05`` below 0.001."""
    if math.isnan(p):
        return "n/a"
    return f"{p:.0e}" if p < 0.001 else f"{p:.2g}"


def delta(value: float, p: float, digits: int = 4) -> str:
    """A signed difference with its p-value, e.g. ``-0.0071 (3e-05)``."""
    return f"{value:+.{digits}f} ({p_text(p)})"


def ci(row: pd.Series, name: str) -> str:
    """The 95% interval of statistic ``name`` of a row, e.g. ``[-0.0104, -0.0038]``."""
    return f"[{row[f'ci_{name}_lo']:+.4f}, {row[f'ci_{name}_hi']:+.4f}]"


def ordered(table: pd.DataFrame) -> pd.DataFrame:
    """Rows by baseline set, kind, α, protocol (150 trees first), recipe (the default last)."""
    key = table.assign(
        _set=table["baselines"].map({s: i for i, s in enumerate(SETS)}),
        _kind=table["kind"].map({k: i for i, k in enumerate(KIND_ORDER)}),
        _es=(table["protocol"] == "es").astype(int),
        _recipe=table["recipe"].map({r: i for i, r in enumerate(RECIPE_ORDER)}),
    )
    return key.sort_values(["_set", "_kind", "_es", "alpha", "_recipe"]).drop(
        columns=["_set", "_kind", "_es", "_recipe"]
    )


def head(row: pd.Series, with_set: bool) -> list[str]:
    """The first cells of a row: baseline set or kind, α, trees, recipe, the relative NDCG@10 change."""
    trees = "ES" if row["protocol"] == "es" else row["protocol"].split()[0]
    cells = [row["baselines"]] if with_set else [row["kind"]]
    ndcg = f"{row['d_ndcg_rel%']:+.2f}% ({p_text(row['p_ndcg'])})"
    return [*cells, f"{row['alpha']:g}", trees, recipe_label(row["kind"], row["recipe"]), ndcg]


def markdown(header: list[str], rows: list[list[str]]) -> str:
    """A markdown table."""
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    return "\n".join(lines + ["| " + " | ".join(r) + " |" for r in rows])


def single_table(table: pd.DataFrame) -> str:
    """U-CRO, T-SARO, T-FARO against BM25: Risk, its interval, Losses>20%."""
    rows = [
        [*head(r, False), delta(r["d_risk_bm25"], r["p_risk_bm25"]), ci(r, "risk_bm25"),
         f"{r['d_l20_bm25']:+.1f} ({p_text(r['p_l20_bm25'])})"]
        for _, r in ordered(table[table["kind"].isin(["urisk", "tsaro", "tfaro"])]).iterrows()
        if r["baselines"] == "agg"  # their baseline is BM25 whatever the multiple baselines are
    ]  # fmt: skip
    return markdown(["kind", "α", "trees", "recipe", "NDCG@10 Δ (p)", "ΔRisk vs BM25 (p)", "95% CI",
                     "ΔLosses>20% (p)"], rows)  # fmt: skip


def georisk_table(table: pd.DataFrame) -> str:
    """GeoRisk at the training α (interval) and at α = 1, and the risk against the baselines' mean."""
    rows = [
        [*head(r, True), delta(r["d_georisk_at_alpha"], r["p_georisk_at_alpha"]), ci(r, "georisk_at_alpha"),
         delta(r["d_georisk"], r["p_georisk"]), delta(r["d_risk_mean"], r["p_risk_mean"])]
        for _, r in ordered(table[table["kind"] == "georisk"]).iterrows()
    ]  # fmt: skip
    header = ["baselines", "α", "trees", "recipe", "NDCG@10 Δ (p)", "ΔGeoRisk at α_e = α (p)", "95% CI",
              "ΔGeoRisk at α_e = 1 (p)", "ΔRisk vs the baselines' mean (p)"]  # fmt: skip
    return markdown(header, rows)


def tstar_table(table: pd.DataFrame) -> str:
    """T*-FARO against the baselines' mean: Risk, its interval, Losses>20%, and GeoRisk at α."""
    rows = [
        [*head(r, True), delta(r["d_risk_mean"], r["p_risk_mean"]), ci(r, "risk_mean"),
         f"{r['d_l20_mean']:+.1f} ({p_text(r['p_l20_mean'])})",
         delta(r["d_georisk_at_alpha"], r["p_georisk_at_alpha"])]
        for _, r in ordered(table[table["kind"] == "tfaro_star"]).iterrows()
    ]  # fmt: skip
    return markdown(["baselines", "α", "trees", "recipe", "NDCG@10 Δ (p)", "ΔRisk vs the baselines' mean (p)",
                     "95% CI", "ΔLosses>20% vs the mean (p)", "ΔGeoRisk at α_e = α (p)"], rows)  # fmt: skip


def native_summary(table: pd.DataFrame) -> str:
    """Native LambdaMART's own numbers per protocol and baseline set (the reference of every row)."""
    native = table[table["kind"] == "lambdarank"]
    lines = []
    for _, r in native.sort_values(["protocol", "baselines"]).iterrows():
        lines.append(
            f"* {r['protocol']}, {r['baselines']}: NDCG@10 {r['ndcg']:.4f}, "
            f"Risk vs BM25 {r['risk_bm25']:.4f} "
            f"(Losses>20% {r['l20_bm25']:.1f}), Risk vs the baselines' mean {r['risk_mean']:.4f} "
            f"(Losses>20% {r['l20_mean']:.1f}), GeoRisk (α_e = 1) {r['georisk']:.4f}"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("csv", type=Path, nargs="+", help="CSV files written by mq2008_risk_study.py")
    args = ap.parse_args(argv)
    table = pd.concat([pd.read_csv(p) for p in args.csv], ignore_index=True)
    table = table.drop_duplicates(subset=["baselines", "kind", "recipe", "alpha", "protocol"])
    parts = [
        ("Native LambdaMART", native_summary(table)),
        ("U-CRO, T-SARO, T-FARO against BM25", single_table(table)),
        ("GeoRisk against its baselines", georisk_table(table)),
        ("T*-FARO against the mean of its baselines", tstar_table(table)),
    ]
    print("\n\n".join(f"## {title}\n\n{body}" for title, body in parts))


if __name__ == "__main__":
    main()
