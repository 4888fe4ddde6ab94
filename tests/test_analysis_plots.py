"""The baseline-analysis plots render to PNGs from the tables they are given; bad tables are refused."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import pyterrier_risk as ptr

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def _frame(rng, topics=12, docs=20):
    return pd.DataFrame([(f"q{t}", f"d{k}", float(s)) for t in range(topics)
                         for k, s in enumerate(rng.permutation(docs))], columns=["qid", "docno", "score"])


def _result():
    rng = np.random.default_rng(0)
    m = pd.DataFrame(rng.random((5, 15)), index=[f"s{i}" for i in range(5)])
    return ptr.baseline_sensitivity(m, alpha=5, permutations=0)


def test_rank_distance_plot(tmp_path):
    rng = np.random.default_rng(1)
    base = _frame(rng)
    table = ptr.rank_distance_bins({1: _frame(rng), 5: base}, base)
    fig = ptr.plot_rank_distance(table, path=tmp_path / "rd.png")
    assert (tmp_path / "rd.png").read_bytes()[:8] == PNG_MAGIC
    ax = fig.axes[0]
    assert len(ax.patches) == 2 * 10 and ax.get_ylabel() == "fraction of topics"
    # bar heights are the table's fractions, stacked per run
    heights = np.array([p.get_height() for p in ax.patches]).reshape(10, 2).T
    np.testing.assert_allclose(heights, table.iloc[:, :10].to_numpy())
    counts = ptr.rank_distance_bins({1: base}, base, normalize=False)
    assert ptr.plot_rank_distance(counts).axes[0].get_ylabel() == "topics"
    with pytest.raises(ValueError, match="rank_distance_bins"):
        ptr.plot_rank_distance(table.drop(columns="undefined"))


def test_pca_and_ranks_plots(tmp_path):
    res = _result()
    fig = ptr.plot_baselines_pca(res, path=tmp_path / "pca.png")
    assert (tmp_path / "pca.png").read_bytes()[:8] == PNG_MAGIC
    ax = fig.axes[0]
    assert f"{res.explained.iloc[0]:.1%}" in ax.get_xlabel()
    assert f"{res.explained.iloc[1]:.1%}" in ax.get_ylabel()
    assert {t.get_text() for t in ax.texts} == set(res.pca.index)
    fig = ptr.plot_baseline_ranks(res, path=tmp_path / "ranks.png")
    assert (tmp_path / "ranks.png").read_bytes()[:8] == PNG_MAGIC
    assert f"chi2 = {res.friedman.statistic:.2f}" in fig.axes[0].get_title()
    assert len(fig.axes[0].lines) == len(res.ranks)


def test_pca_plot_needs_two_axes():
    rng = np.random.default_rng(2)
    res = ptr.baseline_sensitivity(pd.DataFrame(rng.random((4, 6))), components=1, permutations=0)
    with pytest.raises(ValueError, match="two principal axes"):
        ptr.plot_baselines_pca(res)


def _renderer(fig):
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    canvas = FigureCanvasAgg(fig)
    canvas.draw()
    return canvas.get_renderer()


def test_kendall_bins_0_and_1_have_distinct_light_colours():
    """Issue 23 #14: bins 0 and 1 shared near-black colours."""
    from matplotlib.colors import to_rgb

    table = pd.DataFrame([np.full(10, 0.1)], columns=[f"b{k}" for k in range(10)])
    table = table.assign(undefined=0, mean=0.5)
    ax = ptr.plot_rank_distance(table).axes[0]
    colours = [np.array(to_rgb(patch.get_facecolor())) for patch in ax.patches]  # one bar per bin, in order
    assert len(colours) == 10
    luminance = [0.2126 * r + 0.7152 * g + 0.0722 * b for r, g, b in colours]
    assert min(luminance[:2]) > 0.5  # the closest rankings, usually most topics, are light
    steps = [np.linalg.norm(colours[k + 1] - colours[k]) for k in range(9)]
    assert min(steps) > 0.08 and np.linalg.norm(colours[1] - colours[0]) > 0.15


def test_pca_labels_do_not_overlap_in_a_cluster():
    """Issue 23 #13: labels in a cluster of systems overlapped; no two label boxes may intersect."""
    rng = np.random.default_rng(3)
    centre = rng.uniform(0.2, 0.8, 30)
    m = pd.DataFrame(np.vstack([centre + 0.01 * rng.standard_normal(30) for _ in range(6)]
                               + [rng.uniform(0, 1, 30) for _ in range(3)]),
                     index=[f"system-with-a-long-name-{k}" for k in range(9)])
    fig = ptr.plot_baselines_pca(ptr.baseline_sensitivity(m, alpha=1.0, permutations=0))
    renderer = _renderer(fig)
    ax = fig.axes[0]
    from matplotlib.text import Text

    boxes = [Text.get_window_extent(t, renderer) for t in ax.texts]  # the text, not its leader line
    assert len(boxes) == 12  # 9 systems and MEAN, MEDIAN, MAX
    overlaps = [(i, j) for i in range(12) for j in range(i + 1, 12) if boxes[i].overlaps(boxes[j])]
    assert overlaps == []
    # every label inside the axes (issue 29 #7: pushed out of a cluster, they covered the tick labels)
    frame = ax.get_window_extent(renderer)
    assert all(frame.x0 <= b.x0 and b.x1 <= frame.x1 and frame.y0 <= b.y0 and b.y1 <= frame.y1 for b in boxes)
