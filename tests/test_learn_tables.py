"""The learner study's tables (engine/_tables.py): hand-checked cases, pairing, marks and the plot."""

from __future__ import annotations

import math
import re

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, seed, settings
from hypothesis import strategies as st
from scipy.stats import ttest_rel

from pyterrier_risk.core import randomization_test
from pyterrier_risk.engine import (
    convergence_table,
    kendall_bins_table,
    learner_risk_gain_points,
    learner_table,
    learner_tables,
    plot_learner_risk_gain,
    render_learner_table,
)
from pyterrier_risk.reporting import write_table

BASES = ("F25", "F1", "F2")


def frame(models: dict[tuple[str, float], np.ndarray], bases: dict[str, np.ndarray],
          folds: tuple[str, ...] = ("Fold1",)) -> pd.DataFrame:
    """per_query rows: ``models[(objective, alpha)]`` is seeds × queries; ``bases[name]`` is queries.

    The queries are split evenly over ``folds`` (qid ``q<i>``); seeds are numbered from 1.
    """
    rows = []
    for (objective, alpha), values in models.items():
        seeds, n = values.shape
        for s in range(seeds):
            for q in range(n):
                rows.append({"fold": folds[q * len(folds) // n], "objective": objective, "alpha": alpha,
                             "seed": s + 1, "qid": f"q{q}", "ndcg": values[s, q],
                             **{f"base:{b}": v[q] for b, v in bases.items()}})
    return pd.DataFrame(rows)


def random_study(rng: np.random.Generator, n: int = 12, seeds: int = 2,
                 models: tuple[tuple[str, float], ...] = (("lambdarank", 0.0), ("urisk", 5.0),
                                                          ("tsaro", 5.0))) -> pd.DataFrame:
    bases = {b: rng.choice([0.0, 0.2, 0.5, 0.8, 1.0], n) for b in BASES}
    values = {m: np.clip(bases["F25"] + rng.normal(0, 0.3, (seeds, n)).round(2), 0, 1) for m in models}
    return frame(values, bases, folds=("Fold1", "Fold2"))


# -- hand-checked ----------------------------------------------------------------------------------------

REF = np.array([[0.5, 0.2, 0.0, 0.9, 0.4]])
MODEL = np.array([[0.6, 0.1, 0.0, 0.5, 0.4]])
B25 = np.array([0.4, 0.3, 0.0, 0.7, 0.6])
B1 = np.array([0.5, 0.0, 0.1, 0.9, 0.4])
B2 = np.array([0.7, 0.2, 0.0, 0.6, 0.2])


def hand(s: np.ndarray, b: np.ndarray) -> dict[str, float]:
    """Wang et al. 2012's Table 1 quantities, written out with plain numpy."""
    d = s - b
    reward, risk = d[d > 0].sum() / len(d), -d[d < 0].sum() / len(d)
    wins, losses = (d > 0).sum(), (d < 0).sum()
    return {"Reward": reward, "Risk": risk, "Reward/Risk": reward / risk, "Wins": wins, "Losses": losses,
            "W/L": wins / losses, "Losses>20%": ((b - s) / np.where(b > 0, b, 1) > 0.2).sum()}


def hand_georisk(baselines: list[np.ndarray], s: np.ndarray, alpha: float) -> float:
    """Dinçer et al. 2016 eqs. 5–7 for the last row, cell by cell."""
    from scipy.stats import norm

    x = np.vstack([*baselines, s])
    e = x.sum(axis=1, keepdims=True) * x.sum(axis=0, keepdims=True) / x.sum()
    z = np.divide(x - e, np.sqrt(e), out=np.zeros_like(x), where=e > 0)[-1]
    zrisk = z[z > 0].sum() + (1 + alpha) * z[z < 0].sum()
    return math.sqrt(s.mean() * norm.cdf(zrisk / len(s)))


def test_hand_checked_single_macro_and_georisk():
    pq = frame({("lambdarank", 0.0): REF, ("urisk", 5.0): MODEL}, {"F25": B25, "F1": B1, "F2": B2})
    table = learner_table(pq, single="F25", multiple=["F1", "F2"], eval_alpha=1.0)
    assert list(table["objective"]) == ["lambdarank", "urisk"]
    for i, s in enumerate([REF[0], MODEL[0]]):
        row = table.iloc[i]
        assert row["NDCG@10"] == pytest.approx(s.mean())
        for k, v in hand(s, B25).items():
            assert row[k] == pytest.approx(v), k
        per_base = [hand(s, b) for b in (B1, B2)]
        for k in per_base[0]:  # macro: the statistic against each baseline in turn, then the mean
            assert row["macro " + k] == pytest.approx(np.mean([h[k] for h in per_base])), k
        assert row["GeoRisk"] == pytest.approx(hand_georisk([B1, B2], s, 1.0))
    # the model: 1 win (0.6 > 0.4), 3 losses, 2 over 20% (0.1 vs 0.3, 0.4 vs 0.6; 0.5 vs 0.7 is 28.6% too)
    assert table.loc[1, ["Wins", "Losses", "Losses>20%"]].tolist() == [1, 3, 3]
    assert table.loc[1, "NDCG@10 Δ%"] == pytest.approx(100 * (MODEL.mean() / REF.mean() - 1))
    assert table.loc[1, "NDCG@10 p-value"] == pytest.approx(ttest_rel(MODEL[0], REF[0]).pvalue)


def test_reference_row_zero_deltas_and_no_tests():
    rng = np.random.default_rng(3)
    pq = random_study(rng)
    same = pq[pq["objective"] == "lambdarank"].assign(objective="tfaro", alpha=20.0)
    table = learner_table(pd.concat([pq, same]), single="F25", multiple=["F1", "F2"])
    ref, twin = table.iloc[0], table.iloc[-1]
    assert ref["NDCG@10 Δ%"] == 0.0
    assert np.isnan(ref[[c for c in table.columns if c.endswith("p-value")]].to_numpy(float)).all()
    value_columns = [c for c in table.columns if c not in ("objective", "alpha") and "p-value" not in c]
    assert np.allclose(twin[value_columns].to_numpy(float), ref[value_columns].to_numpy(float))
    assert (twin[[c for c in table.columns if c.endswith("p-value")]] == 1.0).all()  # no difference: p = 1


def test_seeds_are_averaged_and_tests_compare_seed_means():
    rng = np.random.default_rng(7)
    pq = random_study(rng, n=10, seeds=3)
    table = learner_table(pq, single="F25", multiple=["F1"], correction=None)
    model = pq[pq["objective"] == "urisk"].pivot(index="seed", columns="qid", values="ndcg")
    ref = pq[pq["objective"] == "lambdarank"].pivot(index="seed", columns="qid", values="ndcg")
    b = pq[pq["objective"] == "urisk"].groupby("qid")["base:F25"].first()[model.columns].to_numpy()
    wins = [hand(model.loc[s].to_numpy(), b)["Wins"] for s in model.index]
    row = table.set_index("objective").loc["urisk"]
    assert row["Wins"] == pytest.approx(np.mean(wins))
    risks = [hand(model.loc[s].to_numpy(), b)["Risk"] for s in model.index]
    assert row["Risk"] == pytest.approx(np.mean(risks))
    risk_q = lambda m: np.maximum(b - m.to_numpy(), 0).mean(axis=0)  # noqa: E731
    assert row["Risk p-value"] == pytest.approx(ttest_rel(risk_q(model), risk_q(ref)).pvalue)
    assert row["Risk p-value corrected"] == row["Risk p-value"]  # correction=None


def test_randomization_test_and_holm_over_rows():
    pq = random_study(np.random.default_rng(11), n=8, seeds=1)
    table = learner_table(pq, single="F25", test="randomization", n_resamples=500, seed=4, correction="holm")
    m = pq[pq["objective"] == "tsaro"].sort_values(["fold", "qid"])["ndcg"].to_numpy()
    r = pq[pq["objective"] == "lambdarank"].sort_values(["fold", "qid"])["ndcg"].to_numpy()
    p = table["NDCG@10 p-value"].to_numpy()
    assert p[2] == randomization_test(m, r, n_resamples=500, seed=4).p_value
    holm = np.minimum(1, np.maximum.accumulate(np.sort(p[1:]) * np.array([2, 1])))
    assert sorted(table["NDCG@10 p-value corrected"].to_numpy()[1:]) == pytest.approx(holm)


def test_pairing_is_by_fold_seed_qid_not_row_order():
    pq = random_study(np.random.default_rng(5))
    table = learner_table(pq, single="F25", multiple=["F1", "F2"])
    # rows shuffled within each model (its first row kept first: the study's objective order)
    rng = np.random.default_rng(1)
    order = [i for o in pq["objective"].unique() for i in (lambda ix: [ix[0], *rng.permutation(ix[1:])])(
        list(pq.index[pq["objective"] == o]))]
    shuffled = pq.loc[order]
    pd.testing.assert_frame_equal(learner_table(shuffled, single="base:F25", multiple=["F1", "F2"]), table)
    # every row shuffled: the models' order may change, not their numbers
    anyhow = learner_table(pq.sample(frac=1.0, random_state=2), single="F25", multiple=["F1", "F2"])
    assert anyhow["objective"].iloc[0] == "lambdarank"
    pd.testing.assert_frame_equal(anyhow.sort_values("objective", ignore_index=True),
                                  table.sort_values("objective", ignore_index=True))


def test_bad_input_one_line_errors():
    pq = random_study(np.random.default_rng(2))
    cases = {
        "no rows of the reference": pq[pq["objective"] != "lambdarank"],
        "lacks": pq.drop(index=pq.index[(pq["objective"] == "urisk")][:1]),
        "negative": pq.assign(ndcg=pq["ndcg"].where(pq.index != 3, -0.1)),
        "times": pd.concat([pq, pq.iloc[:1]]),
        "no column base:F9": pq,
    }
    for message, bad in cases.items():
        with pytest.raises(ValueError, match=message) as e:
            learner_table(bad, single="F9" if "F9" in message else "F25")
        assert "\n" not in str(e.value)
    with pytest.raises(ValueError, match="test must be"):
        learner_table(pq, single="F25", test="wilcoxon")
    with pytest.raises(ValueError):
        learner_table(pq, single="F25", correction="nope")
    with pytest.raises(TypeError):
        learner_table(pq.to_dict(), single="F25")


# -- rendering: marks and bold derived from the numbers ------------------------------------------------------


def _cells(text: str) -> list[list[list[str]]]:
    """The markdown tables of ``text``: per table, the header and the body rows as cell texts."""
    tables, current = [], []
    for line in text.splitlines() + [""]:
        if line.startswith("|"):
            cells = [c.strip() for c in line.strip("|").split("|")]
            if not set("".join(cells)) <= set("-: "):
                current.append(cells)
        elif current:
            tables.append(current)
            current = []
    return tables


def _check_marks(table: pd.DataFrame, text: str, floatfmt: str, seeds: int) -> None:
    for rendered in _cells(text):
        header, body = rendered[0], rendered[1:]
        macro = "macro Reward" not in header and "Risk" in header and "NDCG@10" not in header
        for j, name in enumerate(header[2:], start=2):
            column = "GeoRisk" if name.startswith("GeoRisk") else ("macro " + name if macro else name)
            shown = [float(row[j].replace("*", "").replace("†", "")) for row in body]
            lower = column.split(" ")[-1] in ("Risk", "Losses", "Losses>20%")
            best = min(shown) if lower else max(shown)
            for i, row in enumerate(body):
                assert row[j].startswith("**") == (shown[i] == best), (column, i)
                p = table.get(column + " p-value corrected")
                significant = p is not None and float(format(p.iloc[i], floatfmt)) <= 0.05
                assert row[j].endswith("†") == significant, (column, i)
                # counts: per-seed means with one decimal (whole with one seed)
                count = column.endswith(("Wins", "Losses", "Losses>20%"))  # macro: a mean over baselines
                fmt = (".1f" if seeds > 1 or column.startswith("macro ") else ".0f") if count else floatfmt
                assert shown[i] == float(format(table[column].iloc[i], fmt))


@seed(20240522)
@settings(max_examples=25, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(4, 30), st.integers(1, 3), st.sampled_from([".3f", ".4f"]),
       st.sampled_from([160, 1000]))
def test_marks_and_bold_agree_with_the_numbers(rng_seed, n, seeds, floatfmt, width):
    pq = random_study(np.random.default_rng(rng_seed), n=n, seeds=seeds)
    tables = learner_tables(pq, single="F25", multiple=["F1", "F2"])
    table = tables.learner
    text = render_learner_table(table, tables.settings, floatfmt=floatfmt, max_width=width)
    _check_marks(table, text, floatfmt, seeds)
    assert len(_cells(text)) == (2 if width == 160 else 1)
    assert max(len(line) for line in text.splitlines() if line.startswith("|")) <= width


def test_caption_names_test_correction_and_pooling():
    tables = learner_tables(random_study(np.random.default_rng(1)), single="F25", multiple=["F1", "F2"],
                            correction="fdr_bh")
    table, settings = tables.learner, tables.settings
    text = render_learner_table(table, settings)
    assert "paired t-test against LambdaMART" in text and "Benjamini–Hochberg correction" in text
    assert "12 test queries pooled over the folds; each statistic averaged over 2 seeds" in text
    assert "p ≤ 0.05" in text and "lower is better for Risk, Losses, Losses>20%" in text
    latex = render_learner_table(table, settings, "latex")
    assert latex.count("\\begin{tabular}") == 2 and "$^{\\dagger}$" in latex
    csv = render_learner_table(table, settings, "csv")
    assert pd.read_csv(__import__("io").StringIO(csv)).shape == table.shape
    with pytest.raises(TypeError, match="LearnerTableSettings"):
        render_learner_table(table, dict(vars(settings)))  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="layout"):
        render_learner_table(table, settings, layout="wide")


def test_write_table_hide_keeps_marks():
    df = pd.DataFrame({"name": ["a", "b"], "x": [0.5, 0.7], "p": [math.nan, 0.01]})
    text = write_table(df, significance={"x": "p"}, hide=["p"])
    assert "0.7000†" in text and "| p" not in text and "0.0100" not in text
    with pytest.raises(ValueError, match="hide"):
        write_table(df, significance={"x": "p"}, hide=["q"])


# -- convergence, Kendall bins, the plot ---------------------------------------------------------------------


def curves_frame(curves: dict[tuple[str, float, str, int], list[float]]) -> pd.DataFrame:
    return pd.DataFrame([{"fold": f, "objective": o, "alpha": a, "seed": s, "round": r + 1, "vali_ndcg": v}
                         for (o, a, f, s), values in curves.items() for r, v in enumerate(values)])


def test_convergence_table_by_hand():
    curves = curves_frame({
        ("urisk", 5.0, "Fold1", 1): [0.1, 0.45, 0.5],        # 90% of 0.5 = 0.45: round 2; 99%: round 3
        ("urisk", 5.0, "Fold2", 1): [0.5, 0.5, 0.5, 0.5],    # round 1 for every share
        ("lambdarank", 0.0, "Fold1", 1): [0.2, 0.3, 0.4, 0.46, 0.5],
        ("lambdarank", 0.0, "Fold2", 1): [0.1, 0.2, 0.3, 0.4, 0.5, 0.6],
    })
    table = convergence_table(curves, shares=(0.9, 0.99))
    assert list(table["objective"]) == ["lambdarank", "urisk"]
    ref, model = table.iloc[0], table.iloc[1]
    assert ref["rounds to 90% (mean)"] == (4 + 6) / 2 and ref["rounds to 99% (median)"] == (5 + 6) / 2
    assert model["rounds to 90% (mean)"] == 1.5 and model["rounds to 99% (mean)"] == 2.0
    assert model["final NDCG@10"] == 0.5 and model["trees kept"] == 3.5 and model["models"] == 2
    with pytest.raises(ValueError, match="rounds as 1, 2"):
        convergence_table(curves[curves["round"] != 2])


def test_kendall_bins_table_by_hand():
    rows = [("lambdarank", 0.0, d) for d in (0.0, 0.05, 0.1, 1.0)] + [("urisk", 5.0, d) for d in
                                                                      (0.3, 0.3, np.nan, 0.99)]
    kendall = pd.DataFrame([{"fold": "Fold1", "objective": o, "alpha": a, "seed": 1, "qid": f"q{i}",
                             "distance": d} for i, (o, a, d) in enumerate(rows)])
    table = kendall_bins_table(kendall)
    ref, model = table.iloc[0], table.iloc[1]
    # 0.1 lies in bin 1, 1.0 in the last bin
    assert ref["0.0-0.1"] == 0.5 and ref["0.1-0.2"] == 0.25 and ref["0.9-1.0"] == 0.25
    assert model["0.3-0.4"] == pytest.approx(2 / 3) and model["undefined"] == 1
    assert table.filter(like="-").sum(axis=1).tolist() == pytest.approx([1.0, 1.0])
    with pytest.raises(ValueError, match="outside"):
        kendall_bins_table(kendall.assign(distance=1.5))


def test_plot_and_points(tmp_path):
    pq = random_study(np.random.default_rng(9))
    ref = pq["objective"] == "lambdarank"
    pq.loc[ref, "ndcg"] = np.minimum(pq.loc[ref, "ndcg"] + 0.2, 1.0)  # a gain-only model that gains
    points = learner_risk_gain_points(pq, single="F25")
    table = learner_table(pq, single="F25")
    # the reference starts each curve
    assert list(points["objective"]) == ["urisk", "urisk", "tsaro", "tsaro"]
    rows = [0, 1, 0, 2]
    assert points["risk"].tolist() == pytest.approx(table["Risk"].to_numpy()[rows])
    assert points["gain"].tolist() == pytest.approx((table["Reward"] - table["Risk"]).to_numpy()[rows])
    fig = plot_learner_risk_gain(pq, single="F25", path=tmp_path / "rg.png")
    assert (tmp_path / "rg.png").read_bytes()[:4] == b"\x89PNG"
    assert list(tmp_path.iterdir()) == [tmp_path / "rg.png"]  # no temporary file left
    legend = fig.axes[0].get_legend()
    anchor = legend.get_bbox_to_anchor().transformed(fig.axes[0].transAxes.inverted())
    assert anchor.x0 >= 1.0  # beside the axes, off the data
    a_star = (table["Reward"] - table["Risk"]).iloc[0] / table["Risk"].iloc[0]  # break-even α = Gain/Risk
    # the curves are named by the objectives' labels; the break-even line of the α = 0 model that starts
    # both curves is one short legend entry
    texts = [t.get_text() for t in legend.get_texts()]
    assert texts[:2] == ["U-CRO", "T-SARO"]
    assert [t for t in texts if "α*" in t] == [f"break-even α* = {a_star:.3g}"]


def test_learner_tables_renders_everything():
    pq = random_study(np.random.default_rng(4))
    curves = curves_frame({("lambdarank", 0.0, "Fold1", 1): [0.2, 0.4],
                           ("urisk", 5.0, "Fold1", 1): [0.3, 0.4], ("tsaro", 5.0, "Fold1", 1): [0.4, 0.4]})
    tables = learner_tables(pq, curves, None, single="F25", multiple=["F1", "F2"])
    assert tables.kendall is None and len(tables.convergence) == 3
    text = tables.render()
    assert text.count("Table:") == 3 and "| 95% mean " in text


def _long_study(seeds: int) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """per_query, curves and kendall frames of a study with long objective names, several α and baselines."""
    rng = np.random.default_rng(11)
    models = (("lambdarank", 0.0), *[(name, a) for name in ("my_georisk_variant_weighted", "tfaro_star")
                                     for a in (1.0, 5.0, 10.0, 20.0)])
    pq = random_study(rng, n=10, seeds=seeds, models=models)
    bases = {f"base:F{i}": rng.random(len(pq)) for i in (15, 21, 30, 35, 40)}
    pq = pq.assign(**bases)
    curves = curves_frame({(o, a, f, s): list(rng.random(30).cumsum()) for o, a in models
                           for f in ("Fold1", "Fold2") for s in range(1, seeds + 1)})
    kendall = pq[["fold", "objective", "alpha", "seed", "qid"]].assign(
        distance=np.where(rng.random(len(pq)) < 0.2, np.nan, rng.random(len(pq))))
    return pq, curves, kendall


@pytest.mark.parametrize("seeds", [1, 3])
def test_every_default_rendered_table_fits_160_characters_and_counts_print_as_integers(seeds):
    pq, curves, kendall = _long_study(seeds)
    tables = learner_tables(pq, curves, kendall, single="F25",
                            multiple=["F25", "F1", "F2", "F15", "F21", "F30", "F35", "F40"])
    text = tables.render()
    rows = [line for line in text.splitlines() if line.startswith("|")]
    assert max(len(line) for line in rows) <= 160
    assert text.count("Table:") >= 4  # nothing dropped: learner halves, convergence, Kendall (in parts)
    headers = [[c.strip() for c in line.strip("|").split("|")] for line in rows
               if line.startswith("| learner")]
    shown = {c for h in headers for c in h}
    assert {"0.0-0.1", "0.9-1.0", "undefined", "mean", "90% mean", "99% median", "GeoRisk α=1"} <= shown
    cells = {c: [] for c in ("trees kept", "models", "undefined")}
    for header, line in ((h, line) for h in headers for line in rows):
        values = [c.strip() for c in line.strip("|").split("|")]
        if len(values) == len(header) and not line.startswith(("| learner", "| ---")):
            for column in cells:
                if column in header:
                    cells[column].append(values[header.index(column)])
    # 30 rounds, 2 folds × seeds models: whole numbers print without decimals; so does a whole undefined count
    assert set(cells["trees kept"]) == {"30"} and set(cells["models"]) == {str(2 * seeds)}
    undefined = kendall.groupby(["objective", "alpha"])["distance"].apply(lambda d: d.isna().sum() / seeds)
    whole = (undefined == undefined.round()).all()
    assert all(("." in c) != whole for c in cells["undefined"]) and cells["undefined"]
    assert tables.render("latex").count(r"\begin{tabular}") == text.count("Table:")


# -- the paper's layout (Dinçer et al. 2016, Table 7) and the vocabulary -----------------------------------

#: 2016 Table 7's header as printed (papers/000, the lines after "NDCG↑": "Reward↑ Risk↓ Reward/Risk↑ Wins↑
#: Losses↓", "W/L↑", "L > 20%↓"), one list per half: "Compared to BM25 Baseline" and "Compared to 4 Learned
#: Models Baselines", with NDCG repeated
PAPER_HALF = ["NDCG↑", "Reward↑", "Risk↓", "Reward/Risk↑", "Wins↑", "Losses↓", "W/L↑", "L > 20%↓"]


def _headers(text: str) -> list[list[str]]:
    return [t[0] for t in _cells(text)]


def test_paper_layout_prints_table_7_as_printed():
    tables = learner_tables(random_study(np.random.default_rng(5), seeds=1), single="F25",
                            multiple=["F1", "F2"], layout="paper")
    text = tables.render()
    learner = text.split("Boosting rounds")[0]
    headers = _headers(learner)
    assert headers[:2] == [["learner", "α", *PAPER_HALF]] * 2  # both halves, NDCG repeated, nothing else
    assert "GeoRisk" not in learner and "Δ%" not in learner and "**" not in learner
    assert "Compared to F25 baseline" in learner and "Compared to 2 baselines (F1, F2" in learner
    # the rows name the learners by their labels, in the table's order
    assert [row[0] for row in _cells(learner)[0][1:]] == ["LambdaMART", "U-CRO", "T-SARO"]
    # each half's numbers are the table's
    body = _cells(learner)[1][1:]
    table = tables.learner
    assert [float(r[2].rstrip("†")) for r in body] == [float(f"{v:.4f}") for v in table["NDCG@10"]]
    assert [float(r[4].rstrip("†")) for r in body] == [float(f"{v:.4f}") for v in table["macro Risk"]]
    assert tables.render("latex").count(r"\begin{tabular}") == 2


def test_default_layout_has_every_paper_column_and_keeps_its_own():
    tables = learner_tables(random_study(np.random.default_rng(5)), single="F25", multiple=["F1", "F2"])
    headers = _headers(render_learner_table(tables.learner, tables.settings, max_width=1000))
    plain = {c.replace("↑", "").replace("↓", "").replace("L > 20%", "Losses>20%").replace("NDCG", "NDCG@10")
             for c in PAPER_HALF}
    assert len(headers) == 1 and plain <= set(headers[0])
    assert headers[0][:2] == ["learner", "alpha"] and "GeoRisk α=1" in headers[0]


@pytest.mark.parametrize("significant", [True, False])
def test_paper_caption_claim_is_counted_from_the_tests(significant):
    rng = np.random.default_rng(8)
    n = 40
    b = {name: rng.uniform(0.2, 0.6, n) for name in BASES}
    # a reference below every baseline by more than 20%; a model above every one, or the reference plus noise
    ref = (np.minimum(b["F25"], np.minimum(b["F1"], b["F2"])) * rng.uniform(0.5, 0.7, n))[None]
    other = np.clip(ref + rng.uniform(0.5, 0.6, n), 0, 1) if significant else ref + rng.normal(0, 0.001, n)
    pq = frame({("lambdarank", 0.0): ref, ("urisk", 1.0): other}, b, folds=("Fold1", "Fold2"))
    tables = learner_tables(pq, single="F25", multiple=["F1", "F2"], layout="paper")
    text = tables.render()
    table = tables.learner
    p = table.filter(like="p-value corrected").iloc[1]
    if significant:
        assert (p <= 0.05).all()
        assert ("All differences from LambdaMART are statistically significant (†) over the n = 40 queries."
                in text)
    else:
        shown = sum(float(f"{x:.4f}") <= 0.05 for x in p)
        assert "All differences" not in text
        claim = f"{shown} of the 11 tested differences" if shown else "No difference from LambdaMART is"
        assert claim in text


def test_vocabulary_labels_and_alpha_in_every_table():
    pq, curves, kendall = _long_study(2)
    pq = pq.replace({"objective": {"my_georisk_variant_weighted": "georisk"}})
    curves = curves.replace({"objective": {"my_georisk_variant_weighted": "georisk"}})
    kendall = kendall.replace({"objective": {"my_georisk_variant_weighted": "georisk"}})
    tables = learner_tables(pq, curves, kendall, single="F25", multiple=["F1", "F2"])
    assert {"alpha"} <= set(tables.learner.columns) and "α" not in tables.learner.columns
    assert "α" not in tables.convergence.columns and "α" not in tables.kendall.columns
    text = tables.render()
    for header in _headers(text):
        assert header[:2] == ["learner", "alpha"]
    learners = {row[0] for t in _cells(text) for row in t[1:]}
    assert learners == {"LambdaMART", "GeoRisk-LM", "T*-FARO"}
    assert "georisk" not in text and "lambdarank" not in text


def test_counts_over_seeds_print_one_decimal_and_the_caption_says_so():
    tables = learner_tables(random_study(np.random.default_rng(2), seeds=2), single="F25", multiple=["F1"])
    text = render_learner_table(tables.learner, tables.settings, max_width=1000)
    header, *body = _cells(text)[0]
    for column in ("Wins", "Losses", "Losses>20%"):
        j = header.index(column)
        assert all(re.fullmatch(r"(\*\*)?\d+\.\d(\*\*)?†?", row[j]) for row in body), column
    assert "Wins, Losses and Losses>20% are per-seed means (one decimal)" in text
    one = learner_tables(random_study(np.random.default_rng(2), seeds=1), single="F25", multiple=["F1", "F2"])
    header, *body = _cells(render_learner_table(one.learner, one.settings))[0]
    assert all(re.fullmatch(r"(\*\*)?\d+(\*\*)?†?", row[header.index("Wins")]) for row in body)
    # the macro half's counts are means over the baselines: one decimal even with one seed
    header, *body = _cells(render_learner_table(one.learner, one.settings))[1]
    assert all(re.fullmatch(r"(\*\*)?\d+\.\d(\*\*)?†?", row[header.index("Wins")]) for row in body)


# -- a tiny study: its repr, and --layout paper through risk_study and the command ---------------------------

TINY = {"baseline": 1, "baselines": [2, 3], "objectives": ["tfaro"], "alphas": [5], "seeds": [1, 2],
        "rounds": 5, "progress": False, "workers": 1}


@pytest.fixture(scope="module")
def tiny_study(tmp_path_factory):
    from _learn_data import partitions

    import pyterrier_risk as ptr

    data = partitions(tmp_path_factory.mktemp("letor") / "parts", parts=3, queries=8)
    out = tmp_path_factory.mktemp("study") / "out"
    result = ptr.risk_study(data, out=out, **TINY)
    result.write(out, layout="paper")  # the tables' options are the writer's
    return result, data, out


@pytest.mark.slow
def test_repr_is_a_short_summary(tiny_study):
    result, _, out = tiny_study
    text = repr(result)
    means = result.per_query.groupby(["objective", "alpha"])["ndcg"].mean()
    (objective, alpha), best = means.idxmax(), means.max()
    label = {"lambdarank": "LambdaMART", "tfaro": "T-FARO"}[objective]
    assert text.splitlines()[0] == (f"RiskStudyResult: 3 folds × 2 seed(s), {len(result.models)} models "
                                    "(tasks), 24 test queries")
    assert "learners: LambdaMART (α 0), T-FARO (α 5)" in text
    assert "baselines: single F1; multiple F2, F3" in text
    assert f"best mean NDCG@10: {label} α={alpha:g} {best:.4f}" in text and f"out: {out}" in text
    assert len(text.splitlines()) == 5 and str(result) == text and "per_query" not in text


@pytest.mark.slow
def test_layout_paper_through_risk_study_and_the_command(tiny_study, capsys):
    from pyterrier_risk.cli import main

    result, data, out = tiny_study
    written = (out / "tables.md").read_text()
    assert _headers(written)[:2] == [["learner", "α", *PAPER_HALF]] * 2
    assert written == result.tables(layout="paper").render()
    args = ["learn", str(data), "--baseline", "1", "--baselines", "2", "3", "--objective", "tfaro",
            "--alpha", "5", "--seeds", "1", "2", "--rounds", "5", "--no-progress", "--workers", "1"]
    assert main([*args, "--layout", "paper"]) == 0
    assert capsys.readouterr().out == written
    assert main(args) == 0
    assert _headers(capsys.readouterr().out)[0][:2] == ["learner", "alpha"]
