"""Does each risk objective do what it optimises on held-out MQ2008 queries? (the issue-10 study)

Trains native lambdarank and risk-sensitive LambdaMART (every kind, recipe and alpha asked for) with
the same LightGBM parameters on the five LETOR 4.0 MQ2008 folds and several seeds, pools the 784
test queries and compares each model with native lambdarank trained with the same seed (paired):

* NDCG@10 (gains 2^label - 1, as the objectives): relative change and a paired t-test over queries
  (per-query differences averaged over the seeds);
* Risk = mean max(0, M_b - M_model) and Losses>20% against the BM25 feature (U-CRO, T-SARO, T-FARO's
  baseline) and against the per-query mean of the multiple baselines (T*-FARO's baseline): paired
  t-tests and 95% CIs;
* GeoRisk of the model among the multiple baselines (Dincer et al. 2016), at alpha_eval = 1 and at
  the training alpha: sign-flip randomization test (each query's model/native values swapped
  jointly over the seeds) and a bootstrap 95% CI.

Recipes (``--recipes``): ``default`` (the shipped defaults: ``risk_norm='native'``, GeoRisk
``georisk_weight='ratio'``, T-FARO/T*-FARO ``faro_tr='centred'``), ``weighted`` (the papers' plug-in:
``risk_norm='weighted'``), ``dincer2016`` (GeoRisk: the paper's literal |dGeoRisk|, weighted),
``ndcg_units`` (GeoRisk: version 0.1, weighted), ``exact`` (GeoRisk: ``georisk_update='exact'``),
``dincer2014`` (T-FARO/T*-FARO: the paper's literal T_R = x/s_x, weighted), ``uncentred`` (the same
T_R with ``risk_norm='native'``, the default before ``faro_tr``). ``--early-stopping`` trains up to
2 x rounds trees, early-stopped on the validation fold (patience 30).

    python examples/mq2008_risk_study.py --quick        # fold 1, seed 1, 50 trees (< 1 minute)
    python examples/mq2008_risk_study.py                # every kind, alpha 5 and 10, 5 folds x 3 seeds
    python examples/mq2008_risk_study.py --kinds georisk --alphas 5 10 20 --baselines features

Writes ``--out`` (CSV, one row per model) and the same path with ``.md`` (a markdown table).
Fitted models' per-query NDCG are cached in ``--cache`` so an interrupted run continues.
"""

from __future__ import annotations

import argparse
import os
import pickle
import time
from pathlib import Path

import ir_measures
import numpy as np
import pandas as pd
from ir_measures import nDCG
from scipy import stats

from pyterrier_risk import RiskLambdaMART, georisk
from pyterrier_risk.data import (
    BM25_FEATURE,
    MQ2008Fold,
    agg_baseline_scores,
    mq2008_fold,
    read_mq2008_agg,
    system_runs,
)
from pyterrier_risk.learning import get_objective
from pyterrier_risk.study import risk_objectives

DATA = Path(
    os.environ.get("PYTERRIER_RISK_DATA", Path(__file__).resolve().parents[1].parent / "shared" / "data")
)
MEASURE = nDCG(gains={0: 0, 1: 1, 2: 3}) @ 10
ALPHA_EVAL = 1.0
LIGHTGBM = {
    "learning_rate": 0.05,
    "num_leaves": 15,
    "min_data_in_leaf": 50,
    "feature_fraction": 0.8,  # so that seeds give different models
    "num_threads": 1,  # OpenMP threads spin on a shared machine
    "deterministic": True,
    "force_row_wise": True,
}
KINDS = risk_objectives()  # the registered objectives with a baseline (urisk ... georisk)
SINGLE = tuple(k for k in KINDS if get_objective(k).baseline == "single")  # against BM25 alone
RECIPES = {  # recipe -> objective_params
    "default": {},
    "weighted": {"risk_norm": "weighted"},
    "dincer2016": {"risk_norm": "weighted", "georisk_weight": "dincer2016"},
    "ndcg_units": {"risk_norm": "weighted", "georisk_weight": "ndcg_units"},
    "exact": {"georisk_update": "exact"},
    "dincer2014": {"risk_norm": "weighted", "faro_tr": "dincer2014"},
    "uncentred": {"faro_tr": "dincer2014"},
}
# the per-query NDCG cache stores models by recipe name; bump when a default of the objectives changes
CACHE_VERSION = 2  # 2: T-FARO/T*-FARO faro_tr='centred' by default
GEORISK_ONLY = ("dincer2016", "ndcg_units", "exact")
FARO_ONLY = ("dincer2014", "uncentred")
# six retrieval-model features of LETOR 4.0 as the multiple baselines (0-based columns of TF*IDF,
# BM25 of the body, BM25, LMIR.ABS, LMIR.DIR, LMIR.JM of the whole document)
FEATURE_BASELINES = [14, 20, 24, 29, 34, 39]


def per_query(run: pd.DataFrame, qrels: pd.DataFrame, qids: list[str]) -> pd.Series:
    """NDCG@10 of every query in ``qids``; a query the run does not cover scores 0."""
    run = run.rename(columns={"qid": "query_id", "docno": "doc_id"})[["query_id", "doc_id", "score"]]
    values = {m.query_id: m.value for m in ir_measures.iter_calc([MEASURE], qrels, run)}
    return pd.Series(values, dtype=float).reindex(qids).fillna(0.0)


def learned_baselines(valid: pd.DataFrame) -> dict[str, object]:
    """Four rankers learned on the fold's validation queries (unseen by training and test queries).

    The 2016 paper's multiple baselines are learned models trained on held-out queries (LambdaMART,
    GBRT, two linear learners), "more akin to the systems submitted to TREC" than one weighting
    feature. Here: LambdaMART, pointwise GBRT, a random forest (LightGBM) and ridge regression.
    Returns name -> a function of a features matrix giving the scores.
    """
    import lightgbm as lgb

    x = np.stack(valid["features"].to_numpy())
    y = valid["label"].to_numpy(dtype=float)
    group = valid.groupby("qid", sort=False).size().to_numpy()
    common = {"verbosity": -1, "num_threads": 1, "deterministic": True, "seed": 7, "min_data_in_leaf": 20}
    params = {
        "lambdamart": {"objective": "lambdarank", "learning_rate": 0.05, "num_leaves": 7},
        "gbrt": {"objective": "regression", "learning_rate": 0.05, "num_leaves": 7},
        "forest": {"objective": "regression", "boosting": "rf", "num_leaves": 15, "bagging_fraction": 0.632,
                   "bagging_freq": 1, "feature_fraction": 0.5},
    }  # fmt: skip
    out: dict[str, object] = {}
    for name, p in params.items():
        data = lgb.Dataset(x, y, group=group if name == "lambdamart" else None)
        out[name] = lgb.train({**common, **p}, data, num_boost_round=100).predict
    mu, sd = x.mean(axis=0), x.std(axis=0) + 1e-9
    z = np.column_stack([(x - mu) / sd, np.ones(len(x))])
    w = np.linalg.solve(z.T @ z + np.eye(z.shape[1]), z.T @ y)
    out["ridge"] = lambda f: np.column_stack([(f - mu) / sd, np.ones(len(f))]) @ w
    return out


def load_fold(k: int, multi: str, agg: pd.DataFrame) -> dict:
    """Training/validation/test frames of fold ``k`` and the test queries' baseline NDCG@10."""
    systems = [c for c in agg.columns if c.startswith("ranker")]
    fold = mq2008_fold(k, DATA / "letor4-mq2008")
    learned = learned_baselines(fold.valid) if multi == "learned" else {}

    def candidates(frame: pd.DataFrame) -> pd.DataFrame:
        out = MQ2008Fold.candidates(frame)
        if multi == "agg":
            scores = agg_baseline_scores(frame, agg)
            out = out.assign(**{s: scores[:, j] for j, s in enumerate(systems)})
        if learned:
            x = np.stack(frame["features"].to_numpy())
            out = out.assign(**{name: predict(x) for name, predict in learned.items()})
        return out

    test = candidates(fold.test)
    qids = list(dict.fromkeys(fold.test["qid"]))
    qrels = fold.test[["qid", "docno", "label"]].rename(
        columns={"qid": "query_id", "docno": "doc_id", "label": "relevance"}
    )
    feats = np.stack(test["features"].to_numpy())

    def feature_run(j: int) -> pd.Series:
        return per_query(test[["qid", "docno"]].assign(score=feats[:, j]), qrels, qids)

    if multi == "features":
        sysm = enc = pd.DataFrame({f"f{j + 1}": feature_run(j) for j in FEATURE_BASELINES})
    elif multi == "learned":
        runs = {n: test[["qid", "docno", n]].rename(columns={n: "score"}) for n in learned}
        sysm = enc = pd.DataFrame({n: per_query(run, qrels, qids) for n, run in runs.items()})
    else:  # the systems' real lists (GeoRisk among them, as the 2016 paper evaluates) ...
        runs = system_runs(agg, set(qids))
        sysm = pd.DataFrame({s: per_query(runs[s], qrels, qids) for s in systems})
        # ... and as the objective sees them (every candidate scored, unretrieved ones appended)
        keys = test[["qid", "docno"]]
        enc = pd.DataFrame({s: per_query(keys.assign(score=test[s]), qrels, qids) for s in systems})
    return {
        "train": candidates(fold.train), "train_qrels": MQ2008Fold.qrels(fold.train),
        "valid": candidates(fold.valid), "valid_qrels": MQ2008Fold.qrels(fold.valid),
        "test": test, "qrels": qrels, "qids": qids, "bm25": feature_run(BM25_FEATURE), "sys": sysm,
        "enc": enc, "baselines": {"features": FEATURE_BASELINES, "learned": [*learned]}.get(multi, systems),
    }  # fmt: skip


def fit_score(
    d: dict, kind: str, recipe: str, alpha: float, seed: int, args: argparse.Namespace
) -> pd.Series:
    """Per-query test NDCG@10 of one model."""
    model = RiskLambdaMART(
        kind, alpha=alpha, baseline=BM25_FEATURE, baselines=d["baselines"],
        num_boost_round=args.rounds * (2 if args.early_stopping else 1),
        early_stopping_rounds=30 if args.early_stopping else None, verbose=False,
        objective_params=dict(RECIPES[recipe]) if kind != "lambdarank" else None, seed=seed, **LIGHTGBM,
    )  # fmt: skip
    if args.early_stopping:
        model.fit(d["train"], d["train_qrels"], d["valid"], d["valid_qrels"])
    else:
        model.fit(d["train"], d["train_qrels"])
    return per_query(model.transform(d["test"]), d["qrels"], d["qids"])


def t_ci(diff: np.ndarray) -> tuple[float, float, float]:
    """Paired t-test p-value and 95% CI of the mean of ``diff``."""
    diff = np.asarray(diff, float)
    if np.allclose(diff, 0):
        return 1.0, 0.0, 0.0
    m, se = diff.mean(), diff.std(ddof=1) / np.sqrt(len(diff))
    h = stats.t.ppf(0.975, len(diff) - 1) * se
    return float(stats.ttest_1samp(diff, 0).pvalue), float(m - h), float(m + h)


def geo_of(model: np.ndarray, sysm: np.ndarray, alpha: float) -> float:
    """GeoRisk of the model among the baselines (systems x queries matrix, the model first)."""
    return float(georisk(np.vstack([model[None, :], sysm.T]), alpha)[0])


def georisk_test(ms: list, ns: list, sysm: np.ndarray, alpha: float, n_perm: int) -> tuple:
    """Mean over seeds of GeoRisk(model) - GeoRisk(native); sign-flip p-value, bootstrap 95% CI."""
    rng = np.random.default_rng(0)  # per test: a row's p-value does not depend on the other rows

    def stat(ms_, ns_, sm):
        return np.mean([geo_of(m, sm, alpha) - geo_of(n, sm, alpha) for m, n in zip(ms_, ns_, strict=True)])

    obs = stat(ms, ns, sysm)
    nq, count, boots = len(ms[0]), 0, []
    for _ in range(n_perm):
        flip = rng.random(nq) < 0.5
        pairs = list(zip(ms, ns, strict=True))
        as_model = [np.where(flip, n, m) for m, n in pairs]
        as_native = [np.where(flip, m, n) for m, n in pairs]
        swapped = stat(as_model, as_native, sysm)
        count += abs(swapped) >= abs(obs) - 1e-15
    for _ in range(n_perm // 2):
        idx = rng.integers(0, nq, nq)
        boots.append(stat([m[idx] for m in ms], [n[idx] for n in ns], sysm[idx]))
    lo, hi = np.percentile(boots, [2.5, 97.5])
    return obs, (count + 1) / (n_perm + 1), lo, hi


def risk_columns(row: dict, name: str, ms: list, ns: list, base: np.ndarray) -> None:
    """Risk (mean loss below ``base``) and Losses>20% of the models vs native; paired tests."""
    loss_m = np.mean([np.maximum(0, base - m) for m in ms], axis=0)
    loss_n = np.mean([np.maximum(0, base - n) for n in ns], axis=0)
    row[f"risk_{name}"] = float(loss_m.mean())
    row[f"d_risk_{name}"] = float((loss_m - loss_n).mean())
    row[f"p_risk_{name}"], row[f"ci_risk_{name}_lo"], row[f"ci_risk_{name}_hi"] = t_ci(loss_m - loss_n)

    def l20(runs):
        return np.mean([(base > 0) & (r < 0.8 * base) for r in runs], axis=0)

    row[f"l20_{name}"] = float(l20(ms).sum())
    row[f"d_l20_{name}"] = float((l20(ms) - l20(ns)).sum())
    row[f"p_l20_{name}"] = t_ci(l20(ms) - l20(ns))[0]


def compare(cfg: tuple, ms: list, ns: list, base: dict[str, np.ndarray], args: argparse.Namespace) -> dict:
    """One table row: model ``cfg`` (per-seed pooled NDCG arrays ``ms``) against native (``ns``)."""
    kind, recipe, alpha = cfg
    row = {"kind": kind, "recipe": recipe, "alpha": alpha, "baselines": args.multi,
           "protocol": "es" if args.early_stopping else f"{args.rounds} trees", "seeds": len(ms),
           "n_queries": len(ms[0])}  # fmt: skip
    nd = np.mean(ms, axis=0) - np.mean(ns, axis=0)
    row["ndcg"], row["ndcg_native"] = float(np.mean(ms)), float(np.mean(ns))
    row["d_ndcg_rel%"] = 100 * (row["ndcg"] - row["ndcg_native"]) / row["ndcg_native"]
    row["p_ndcg"] = t_ci(nd)[0]
    row["max_abs_diff_native"] = float(np.max(np.abs(nd)))
    risk_columns(row, "bm25", ms, ns, base["bm25"])
    risk_columns(row, "mean", ms, ns, base["enc"].mean(axis=1))  # T*-FARO's baseline
    sysm = base["sys"]
    if kind in ("georisk", "tfaro_star", "lambdarank") and args.perm > 0:
        for name, a_ev in (("georisk", ALPHA_EVAL), ("georisk_at_alpha", max(alpha, ALPHA_EVAL))):
            row[name] = float(np.mean([geo_of(m, sysm, a_ev) for m in ms]))
            test = georisk_test(ms, ns, sysm, a_ev, args.perm) if kind != "lambdarank" else (0, 1, 0, 0)
            obs, p, lo, hi = test
            row[f"d_{name}"], row[f"p_{name}"], row[f"ci_{name}_lo"], row[f"ci_{name}_hi"] = obs, p, lo, hi
    return row


def analyse(results: dict, data: dict, configs: list, args: argparse.Namespace) -> pd.DataFrame:
    """The table: every configuration against native lambdarank, test queries of all folds pooled."""
    base = {b: pd.concat([data[k][b] for k in args.folds]).to_numpy() for b in ("bm25", "sys", "enc")}

    def pooled(cfg, seed):
        return pd.concat([results[(cfg, seed, k)] for k in args.folds]).to_numpy()

    native = ("lambdarank", "default", 0.0)
    rows = []
    for cfg in configs:
        ms, ns = [pooled(cfg, s) for s in args.seeds], [pooled(native, s) for s in args.seeds]
        rows.append(compare(cfg, ms, ns, base, args))
    return pd.DataFrame(rows)


def markdown(table: pd.DataFrame) -> str:
    """A compact markdown table of the CSV: Δ vs native lambdarank, p-values, the target's 95% CI."""

    def f(r, c, digits=4):
        return "" if c not in r or pd.isna(r[c]) else f"{r[c]:+.{digits}f} ({r[f'p_{c[2:]}']:.2g})"

    def ci(r, c):
        if f"ci_{c}_lo" not in r or pd.isna(r[f"ci_{c}_lo"]):
            return ""
        return f"[{r[f'ci_{c}_lo']:+.4f}, {r[f'ci_{c}_hi']:+.4f}]"

    head = ["baselines", "kind", "recipe", "α", "protocol", "NDCG@10 (Δ%, p)", "ΔRisk BM25 (p)", "95% CI",
            "ΔL>20% BM25 (p)", "ΔRisk mean (p)", "95% CI", "ΔGeoRisk α_e=1 (p)", "ΔGeoRisk α_e=α (p)",
            "95% CI"]  # fmt: skip
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for _, r in table.iterrows():
        cells = [r["baselines"], r["kind"], r["recipe"], f"{r['alpha']:g}", r["protocol"],
                 f"{r['ndcg']:.4f} ({r['d_ndcg_rel%']:+.2f}%, {r['p_ndcg']:.2g})",
                 f(r, "d_risk_bm25"), ci(r, "risk_bm25"), f(r, "d_l20_bm25", 1), f(r, "d_risk_mean"),
                 ci(r, "risk_mean"), f(r, "d_georisk"), f(r, "d_georisk_at_alpha"),
                 ci(r, "georisk_at_alpha")]  # fmt: skip
        lines.append("| " + " | ".join(str(c) for c in cells) + " |")
    return "\n".join(lines) + "\n"


def _applies(recipe: str, kind: str) -> bool:
    """Whether ``recipe`` changes anything for ``kind`` (the GeoRisk and the FARO recipes)."""
    return (recipe not in GEORISK_ONLY or kind == "georisk") and (recipe not in FARO_ONLY or "faro" in kind)


def configurations(args: argparse.Namespace) -> list[tuple[str, str, float]]:
    """(kind, recipe, alpha) to train in one setting: native first, then every kind x recipe x alpha.

    The single-baseline kinds train against BM25 whatever the multiple baselines are, so they run
    with ``agg`` only; with early stopping only ``--es-recipes`` run.
    """
    out = [("lambdarank", "default", 0.0)]
    kinds = [k for k in args.kinds if args.multi == "agg" or k not in SINGLE]
    recipes = args.es_recipes if args.early_stopping else args.recipes
    for alpha in args.alphas:
        for kind in kinds:
            out += [(kind, r, alpha) for r in recipes if _applies(r, kind)]
    return out


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    here = Path.cwd()
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--kinds", nargs="+", choices=KINDS, default=list(KINDS))
    ap.add_argument("--recipes", nargs="+", choices=list(RECIPES),
                    default=["default", "weighted", "dincer2016", "ndcg_units", "dincer2014", "uncentred"])
    ap.add_argument("--alphas", type=float, nargs="+", default=[5.0, 10.0, 20.0])
    ap.add_argument("--baselines", nargs="+", choices=["agg", "features", "learned"],
                    default=["agg", "features", "learned"],
                    help="multiple baselines: the 25 MQ2008-agg systems, six retrieval-model features, "
                         "and/or four rankers learned on the validation queries")
    ap.add_argument("--seeds", type=int, nargs="+", default=[1, 2, 3])
    ap.add_argument("--folds", type=int, nargs="+", default=[1, 2, 3, 4, 5])
    ap.add_argument("--rounds", type=int, default=150, help="trees (with --early-stopping: at most 2x)")
    ap.add_argument("--protocols", nargs="+", choices=["fixed", "es"], default=["fixed", "es"],
                    help="fixed: --rounds trees; es: early stopping on the validation fold (<= 2x --rounds)")
    ap.add_argument("--es-recipes", nargs="+", choices=list(RECIPES), default=["default"])
    ap.add_argument("--perm", type=int, default=1000, help="GeoRisk randomization permutations")
    ap.add_argument("--quick", action="store_true", help="fold 1, seed 1, 50 trees, a smoke test")
    ap.add_argument("--out", type=Path, default=here / "mq2008_risk_study.csv")
    ap.add_argument("--cache", type=Path, help="per-query NDCG cache (default: --out with .pkl)")
    args = ap.parse_args(argv)
    if args.quick:
        args.folds, args.seeds, args.rounds, args.perm = [1], [1], 50, 100
        args.alphas, args.kinds, args.recipes = [0.0, 5.0], ["urisk", "georisk"], ["default", "weighted"]
        args.baselines, args.protocols = ["agg", "learned"], ["fixed"]
    args.cache = args.cache or args.out.with_suffix(".pkl")
    return args


def train_all(configs: list, data: dict, args: argparse.Namespace) -> dict:
    """Fit every (config, seed, fold) not yet in the cache; the cache is rewritten after each config."""
    key = (args.multi, args.rounds, args.early_stopping)
    store = pickle.loads(args.cache.read_bytes()) if args.cache.exists() else {}
    if store.get("version") != CACHE_VERSION:  # other defaults: a recipe's name meant another model
        if store:
            print(f"{args.cache}: from another version of the study's defaults, not reused", flush=True)
        store = {"version": CACHE_VERSION}
    results = store.setdefault(key, {})
    started = time.perf_counter()
    for cfg in configs:
        todo = [(s, k) for s in args.seeds for k in args.folds if (cfg, s, k) not in results]
        for seed, k in todo:
            results[(cfg, seed, k)] = fit_score(data[k], *cfg, seed, args)
        if todo:
            args.cache.write_bytes(pickle.dumps(store))
            print(f"{cfg}: {len(todo)} fits ({time.perf_counter() - started:.0f} s so far)", flush=True)
    return results


def run_setting(args: argparse.Namespace, multi: str, protocol: str, agg: pd.DataFrame) -> pd.DataFrame:
    """Train and compare every configuration of one setting (multiple baselines x protocol)."""
    args = argparse.Namespace(**vars(args), multi=multi, early_stopping=protocol == "es")
    print(f"== baselines {multi}, {protocol}: folds {args.folds}, seeds {args.seeds}", flush=True)
    data = {k: load_fold(k, multi, agg) for k in args.folds}
    configs = configurations(args)
    return analyse(train_all(configs, data, args), data, configs, args)


def main(argv: list[str] | None = None) -> None:
    args = parse_args(argv)
    import numba

    numba.set_num_threads(1)  # the objective's kernels: one thread, like LightGBM
    agg = read_mq2008_agg(DATA / "letor4-mq2008-agg")
    tables = [run_setting(args, m, p, agg) for p in args.protocols for m in args.baselines]
    table = pd.concat(tables, ignore_index=True)
    table.to_csv(args.out, index=False)
    args.out.with_suffix(".md").write_text(markdown(table))
    print(markdown(table))
    print(f"wrote {args.out} and {args.out.with_suffix('.md')}")


if __name__ == "__main__":
    main()
