"""The paper plots render to non-empty PNGs; the histogram counts are checked by hand."""

import numpy as np
import pandas as pd
import pytest

from pyterrier_risk.core import georisk, trisk
from pyterrier_risk.reporting import (
    alpha_grid,
    georisk_curves,
    helped_hurt_counts,
    plot_georisk_alpha,
    plot_helped_hurt,
    plot_risk_gain,
    plot_topic_tj,
)

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def assert_png(path, min_bytes=5000):
    data = path.read_bytes()
    assert data[:8] == PNG_MAGIC
    assert len(data) > min_bytes  # axes, bars and text, not a blank canvas


@pytest.fixture
def scores():
    rng = np.random.default_rng(7)
    topics = [str(t) for t in range(351, 401)]
    base = pd.Series(rng.uniform(0.05, 0.9, len(topics)), index=topics)
    run = (base + rng.normal(0, 0.15, len(topics))).clip(0, 1)
    return run, base


def test_helped_hurt_counts_by_hand():
    base = pd.Series([0.5, 0.5, 0.5, 0.5, 0.5, 0.2], index=list("abcdef"))
    run = pd.Series([0.75, 0.5, 0.3, 0.45, 0.6, 0.2 + 0.1], index=list("abcdef"))
    counts = helped_hurt_counts(run, base, bin_width=0.1)
    col = counts.iloc[:, 0]
    # deltas: +0.25, 0 (tie), -0.2, -0.05, +0.1, +0.1 (float noise must not push it to the next bin)
    assert col["[-0.2,-0.1)"] == 1 and col["[-0.1,0)"] == 1
    assert col["(0,0.1]"] == 2 and col["(0.2,0.3]"] == 1 and col["(0.1,0.2]"] == 0
    assert counts.attrs["ties"] == {"": 1}
    assert int(col.sum()) + 1 == len(base)
    # the histogram's mass left of zero is what Wang et al. call Risk (times c)
    rel = helped_hurt_counts(run, base, relative=True, bin_width=0.25)
    assert int(rel.iloc[:, 0].sum()) == 5


def test_helped_hurt_several_systems_and_alignment(scores, tmp_path):
    run, base = scores
    shuffled = run.sample(frac=1.0, random_state=1)  # topic order must not matter
    counts = helped_hurt_counts({"a": run, "b": shuffled}, base)
    assert (counts["a"] == counts["b"]).all()
    fig = plot_helped_hurt({"a": run, "b": base * 0.8}, base, path=tmp_path / "hh.png", measure="nDCG@10")
    assert len(fig.axes) == 1 and len(fig.axes[0].patches) == 2 * len(counts)
    assert_png(tmp_path / "hh.png")


def test_helped_hurt_errors(scores):
    run, base = scores
    with pytest.raises(ValueError, match="baseline has no score for topic"):
        helped_hurt_counts(run, base.iloc[:-1])
    with pytest.raises(ValueError, match="bin_width"):
        helped_hurt_counts(run, base, bin_width=0)
    with pytest.raises(ValueError, match="NaN"):
        helped_hurt_counts(run.where(run.index != "351"), base)


def test_risk_gain(tmp_path):
    points = pd.DataFrame({
        "name": ["U-CRO"] * 4 + ["DPH"],
        "alpha": [10, 0, 5, 1, np.nan],
        "risk": [0.02, 0.08, 0.03, 0.05, 0.04],
        "gain": [0.01, 0.05, 0.02, 0.04, -0.01],
    })
    fig = plot_risk_gain(points, path=tmp_path / "rg.png")
    ax = fig.axes[0]
    line = ax.get_lines()[0]
    # the curve is drawn in alpha order
    assert list(line.get_xdata()) == [0.08, 0.05, 0.03, 0.02]
    assert [t.get_text() for t in ax.texts] == ["0", "1", "5", "10"]
    assert_png(tmp_path / "rg.png")
    with pytest.raises(ValueError, match="missing column"):
        plot_risk_gain(points.drop(columns="gain"))


def test_georisk_alpha(tmp_path):
    rng = np.random.default_rng(3)
    matrix = pd.DataFrame(rng.uniform(0, 1, (5, 30)), index=[f"s{i}" for i in range(5)])
    curves = georisk_curves(matrix, [0, 1, 5])
    assert list(curves.columns) == list(matrix.index)
    for a in (0, 1, 5):  # the plotted values are the numeric core's GeoRisk
        np.testing.assert_allclose(curves.loc[float(a)].to_numpy(), np.asarray(georisk(matrix, alpha=a)))
    assert (curves.diff().iloc[1:] <= 1e-12).all().all()  # GeoRisk does not increase with alpha
    fig = plot_georisk_alpha(matrix, path=tmp_path / "geo.png", title="five systems")
    assert len(fig.axes[0].get_lines()) == 5
    assert_png(tmp_path / "geo.png")


@pytest.mark.parametrize("alphas", [[], [0.0, 5.0], [2.5], [0.0, 1e7], [1e300, 3.0], [1.7e308]])
def test_alpha_grid_size_does_not_grow_with_alpha(alphas):
    grid = alpha_grid(alphas)
    top = max([10.0, *alphas])
    assert len(grid) <= 21 + len(alphas)  # not one point per integer up to max(alpha)
    assert set(alphas) <= set(grid)  # each requested alpha exactly
    assert grid == sorted(set(grid)) and grid[0] == 0.0 and grid[-1] == top
    even = [top / 20 * i for i in range(21)]
    assert all(any(g == pytest.approx(e, rel=1e-12) for g in grid) for e in even)  # the even steps


def test_alpha_grid_errors():
    with pytest.raises(ValueError, match="finite"):
        alpha_grid([float("inf")])
    with pytest.raises(ValueError, match="finite"):
        alpha_grid([-1.0])
    with pytest.raises(ValueError, match="points"):
        alpha_grid([1.0], points=1)


def test_georisk_alpha_at_huge_alpha(tmp_path):
    rng = np.random.default_rng(5)
    matrix = pd.DataFrame(rng.uniform(0, 1, (3, 20)), index=["a", "b", "c"])
    grid = alpha_grid([1e300])
    with np.errstate(over="ignore"):
        curves = georisk_curves(matrix, grid)
        plot_georisk_alpha(matrix, grid, path=tmp_path / "geo.png")
    assert np.isfinite(curves.to_numpy()).all()
    assert_png(tmp_path / "geo.png")


def test_topic_tj(scores, tmp_path):
    run, base = scores
    panels = {f"run, α={a}": trisk(run, base, alpha=a).t_j for a in (0, 5, 10)}
    fig = plot_topic_tj(panels, path=tmp_path / "tj.png")
    visible = [ax for ax in fig.axes if ax.get_visible()]
    assert len(visible) == 3
    heights = [p.get_height() for p in visible[0].patches]
    np.testing.assert_allclose(heights, np.asarray(panels["run, α=0"]))
    assert_png(tmp_path / "tj.png")
    single = plot_topic_tj(panels["run, α=0"], path=tmp_path / "tj1.png")
    assert len([ax for ax in single.axes if ax.get_visible()]) == 1
    assert_png(tmp_path / "tj1.png")


def test_unwritable_plot_path(scores, tmp_path):
    run, base = scores
    (tmp_path / "file").write_text("x")
    with pytest.raises(OSError, match="cannot write plot to"):
        plot_helped_hurt(run, base, path=tmp_path / "file" / "x.png")


# ------------------------------------------------------------------------------------- properties
from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

scores_st = st.lists(st.floats(0, 1, allow_nan=False), min_size=1, max_size=40)


@settings(max_examples=60, deadline=None)
@given(scores_st, st.data(), st.sampled_from([0.05, 0.1, 0.25]))
def test_helped_hurt_counts_properties(base, data, width):
    run = data.draw(st.lists(st.floats(0, 1, allow_nan=False), min_size=len(base), max_size=len(base)))
    base_s, run_s = pd.Series(base), pd.Series(run)
    counts = helped_hurt_counts(run_s, base_s, bin_width=width)
    col = counts.iloc[:, 0]
    delta = run_s - base_s
    ties = counts.attrs["ties"][""]
    # every topic is counted once: in a bin or as a tie
    assert int(col.sum()) + ties == len(base)
    negative = [lab for lab in counts.index if lab.startswith("[")]
    assert int(col[negative].sum()) == int(((delta / width).round(9) < 0).sum())
    # each topic lies in the interval its bin names
    for d in delta:
        k = round(d / width, 9)
        if k == 0:
            continue
        lo = np.floor(k) if k < 0 else np.ceil(k) - 1
        left, right = f"{lo * width:g}", f"{(lo + 1) * width:g}"
        label = f"[{left},{right})" if k < 0 else f"({left},{right}]"
        assert col[label] >= 1


# -- issue 23 #12 and #15: what the plots say, checked on the drawn figure ---------------------------------
def _sweeps():
    """Two learners' α sweeps that start at the same α = 0 model (the demo's LambdaMART), and a fixed run."""
    return pd.DataFrame({"name": ["U-CRO"] * 3 + ["GeoRisk-LM"] * 3 + ["DPH"],
                         "alpha": [0, 0.2, 5, 0, 1, 5, np.nan],
                         "risk": [0.040, 0.030, 0.020, 0.040, 0.034, 0.028, 0.025],
                         "gain": [0.021, 0.015, 0.006, 0.021, 0.019, 0.012, 0.008]})


def test_risk_gain_legend_is_short_names_each_alpha_star_once_and_sits_off_the_data():
    fig = plot_risk_gain(_sweeps())
    ax = fig.axes[0]
    texts = [t.get_text() for t in ax.get_legend().get_texts()]
    assert texts[:3] == ["U-CRO", "GeoRisk-LM", "DPH"]  # a curve is named, not given the α = 0 model's range
    a_star = 0.021 / 0.040  # break-even α = Gain / Risk of the α = 0 model both sweeps start at
    assert f"break-even α* = {a_star:.3g}" in texts  # once, for both curves
    assert f"break-even α* = {0.008 / 0.025:.3g} (DPH)" in texts
    assert sum("break-even" in t for t in texts) == 2
    assert all(len(t) <= 32 and "\n" not in t for t in texts)  # a short legend: no sentences
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    renderer = FigureCanvasAgg(fig).get_renderer()
    fig.draw(renderer)
    legend = ax.get_legend().get_window_extent(renderer)
    assert legend.x0 >= ax.get_window_extent(renderer).x1  # right of the axes: it covers no data


def test_risk_gain_hull_is_drawn_as_a_hull():
    ax = plot_risk_gain(_sweeps()).axes[0]
    hulls = {line.get_label(): line for line in ax.get_lines() if line.get_label().startswith("near-optimal")}
    # U-CRO (α* = 0.525): along its curve from α = 0 to α = 0.2, the last α ≤ α*, then towards the origin
    u = hulls["near-optimal hull: U-CRO"]
    assert list(u.get_xdata()) == [0.040, 0.030, 0.0] and list(u.get_ydata()) == [0.021, 0.015, 0.0]
    g = hulls["near-optimal hull: GeoRisk-LM"]  # only α = 0 is at most α*: its coin flips
    assert list(g.get_xdata()) == [0.040, 0.0]
    assert "near-optimal hull: DPH" not in hulls  # a single run has a break-even line, no curve to follow


def _zigzag() -> pd.DataFrame:
    """A sweep whose risk does not fall with α (the demo's GeoRisk-LM), with α labels close together."""
    return pd.DataFrame({"name": ["GeoRisk-LM"] * 5 + ["U-CRO"] * 5,
                         "alpha": [0, 1, 5, 10, 20] * 2,
                         "risk": [0.040, 0.031, 0.035, 0.030, 0.0305, 0.040, 0.0395, 0.039, 0.0385, 0.038],
                         "gain": [0.020, 0.012, 0.016, 0.011, 0.0112, 0.020, 0.0199, 0.0198, 0.0197, 0.0196]})


def test_risk_gain_curve_follows_falling_risk_and_axes_come_from_the_data():
    points = _zigzag()
    ax = plot_risk_gain(points).axes[0]
    line = next(line for line in ax.get_lines() if line.get_label() == "GeoRisk-LM")
    xs = list(line.get_xdata())
    assert xs == sorted(xs, reverse=True)  # along the curve: no zig-zag
    for lim, values in ((ax.get_xlim(), points["risk"]), (ax.get_ylim(), points["gain"])):
        span = values.max() - values.min()
        assert lim[0] < values.min() - 0.05 * span and lim[1] > values.max() + 0.05 * span  # a margin
        assert lim[0] > values.min() - 0.2 * span and lim[1] < values.max() + 0.2 * span  # not the origin


def test_risk_gain_alpha_labels_do_not_overlap_and_shared_points_are_labelled_once():
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.text import Text

    fig = plot_risk_gain(_zigzag())
    ax = fig.axes[0]
    texts = list(ax.texts)
    assert sorted(t.get_text() for t in texts) == sorted(["0", "1", "5", "10", "20", "1", "5", "10", "20"])
    canvas = FigureCanvasAgg(fig)
    canvas.draw()  # as saved: the text boxes without their leader lines
    boxes = [Text.get_window_extent(t, canvas.get_renderer()).extents for t in texts]
    for i in range(len(boxes)):
        for j in range(i + 1, len(boxes)):
            a, b = boxes[i], boxes[j]
            apart = a[2] <= b[0] or b[2] <= a[0] or a[3] <= b[1] or b[3] <= a[1]
            assert apart, (texts[i].get_text(), texts[j].get_text())
    # the texts keep their curve's colour
    line = {line.get_label(): line.get_color() for line in ax.get_lines()}
    colours = {t.get_text(): t.get_color() for t in texts}
    assert colours["0"] == "black" and set(colours.values()) <= {line["GeoRisk-LM"], line["U-CRO"], "black"}
    # inside the axes (none over the tick labels) and off every point
    frame = ax.get_window_extent(canvas.get_renderer())
    points = ax.transData.transform(_zigzag()[["risk", "gain"]].to_numpy(float))
    for box in boxes:
        assert frame.x0 <= box[0] and box[2] <= frame.x1 and frame.y0 <= box[1] and box[3] <= frame.y1
        assert not any(box[0] <= px <= box[2] and box[1] <= py <= box[3] for px, py in points)


def test_topic_tj_panels_share_one_scale_and_name_the_x_axis(scores):
    run, base = scores
    panels = {"small": trisk(run, base).t_j, "large": trisk(run, base, alpha=5).t_j}
    fig = plot_topic_tj(panels)
    shown = [ax for ax in fig.axes if ax.get_visible()]
    assert len(shown) == 2
    assert len({ax.get_ylim() for ax in shown}) == 1
    top = max(float(np.abs(s).max()) for s in panels.values())
    assert shown[0].get_ylim()[1] == pytest.approx(1.2 * max(2.0, top))
    assert all(ax.get_xlabel().startswith("topic") for ax in shown)
