"""Edge cases of the rank-distance bins and the analysis plots (Wang et al. 2012 Fig. 5; Dinçer et al. 2014).

The bins are checked against exact fractions, the plots by where matplotlib draws their text.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import pyterrier_risk as ptr


def _frame(scores: dict[str, list[float]], prefix: str = "d") -> pd.DataFrame:
    rows = [(q, f"{prefix}{i}", s) for q, values in scores.items() for i, s in enumerate(values)]
    return pd.DataFrame(rows, columns=["qid", "docno", "score"])


def test_bins_put_a_distance_on_an_edge_in_the_upper_bin_and_label_every_edge_apart():
    # 15/22 is stored just below the edge of bin 15 of 22 (15/22 * 22 = 14.999...): it belongs to bin 15
    assert np.floor((15 / 22) * 22) == 14
    n, disc = 12, 45  # 45 of the 66 pairs of 12 documents discordant: distance 15/22 exactly
    base = _frame({"1": list(range(n, 0, -1))})
    order = list(range(n))
    while sum(order[i] > order[j] for i in range(n) for j in range(i + 1, n)) < disc:
        i = next(k for k in range(n - 1) if order[k] < order[k + 1])
        order[i], order[i + 1] = order[i + 1], order[i]
    run = _frame({"1": [float(n - order[k]) for k in range(n)]})
    assert ptr.rank_distance(run, base).iloc[0] == pytest.approx(15 / 22)
    table = ptr.rank_distance_bins({"r": run}, base, bins=22, normalize=False)
    assert table.iloc[0, 15] == 1 and table.iloc[0, :22].sum() == 1
    for bins in (8, 16, 30, 1000):  # 0.125, 0.0625, 0.033, 0.001: each edge printed apart
        labels = list(ptr.rank_distance_bins({"r": run}, base, bins=bins).columns[:bins])
        assert len(set(labels)) == bins, labels[:4]


def _overlap(a, b) -> bool:
    return a.x0 < b.x1 and b.x0 < a.x1 and a.y0 < b.y1 and b.y0 < a.y1


def test_plot_rank_distance_keeps_long_labels_and_titles_readable(tmp_path):
    pytest.importorskip("matplotlib")
    rng = np.random.default_rng(0)
    base = _frame({f"q{t}": list(rng.permutation(10).astype(float)) for t in range(6)})
    names = [f"RiskLambdaMART alpha={a} (U-CRO, MQ2008)" for a in (0, 1, 5, 10)]
    runs = {n: _frame({f"q{t}": list(rng.permutation(10).astype(float)) for t in range(6)}) for n in names}
    title = "Kendall distance from BM25 of the re-rankings learned with U-CRO at four values of alpha"
    fig = ptr.plot_rank_distance(ptr.rank_distance_bins(runs, base), title=title, path=tmp_path / "rd.png")
    assert (tmp_path / "rd.png").stat().st_size > 0
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    canvas = FigureCanvasAgg(fig)
    canvas.draw()
    renderer = canvas.get_renderer()
    ax = fig.axes[0]
    page = fig.bbox
    ticks = [t.get_window_extent(renderer) for t in ax.get_xticklabels()]
    assert [t.get_text() for t in ax.get_xticklabels()] == names
    labels = ax.get_xticklabels()
    angle = np.radians(labels[0].get_rotation())
    if angle == 0:
        assert not any(_overlap(a, b) for i, a in enumerate(ticks) for b in ticks[i + 1:]), "x labels overlap"
    else:  # slanted parallel lines of text: apart when their perpendicular distance exceeds a line's height
        x = np.sort(ax.transData.transform(np.column_stack([ax.get_xticks(), np.zeros(4)]))[:, 0])
        assert np.diff(x).min() * np.sin(angle) >= 1.2 * labels[0].get_fontsize() * fig.dpi / 72, "overlap"
    for box in [*ticks, ax.title.get_window_extent(renderer)]:
        assert page.x0 - 1 <= box.x0 and box.x1 <= page.x1 + 1 and box.y1 <= page.y1 + 1, "clipped"
    # two runs with one label are two bars, not one drawn over the other
    twice = pd.DataFrame(np.eye(2, 3), index=["same", "same"], columns=["0.0-0.5", "0.5-1.0", "undefined"])
    bars = ptr.plot_rank_distance(twice).axes[0].patches
    assert sorted({round(b.get_x(), 6) for b in bars}) != [round(bars[0].get_x(), 6)]


def test_plot_baseline_ranks_tells_twenty_runs_apart():
    pytest.importorskip("matplotlib")
    rng = np.random.default_rng(2)
    matrix = pd.DataFrame(rng.uniform(0, 1, (21, 6)), index=[f"run{i:02d}" for i in range(21)])
    result = ptr.baseline_sensitivity(matrix, 1.0, permutations=0)
    fig = ptr.plot_baseline_ranks(result)
    styles = [(str(line.get_color()), line.get_linestyle()) for line in fig.axes[0].get_lines()]
    assert len(styles) == 21 and len(set(styles)) == 21
    assert ptr.plot_baselines_pca(result).axes[0].get_xlabel().startswith("PC1 (")
