"""Tiny synthetic LETOR data for the learning-study tests (a few hundred rows: seconds per study)."""

from __future__ import annotations

from pathlib import Path

import numpy as np


def letor_lines(rng: np.random.Generator, qids: range, docs: int = 8, features: int = 6) -> list[str]:
    """LETOR 4.0 lines: feature 1 is a noisy copy of the label (a baseline that helps), the rest noise."""
    lines = []
    for q in qids:
        labels = rng.integers(0, 3, docs)
        labels[0] = max(labels[0], 1)  # every query has a relevant document
        for d, label in enumerate(labels):
            x = rng.random(features)
            x[0] = label + rng.normal(0, 1.0)
            feats = " ".join(f"{j + 1}:{v:.4f}" for j, v in enumerate(x))
            lines.append(f"{label} qid:{q} {feats} #docid = D{q}-{d}\n")
    return lines


def partitions(folder: Path, parts: int = 5, queries: int = 12, seed: int = 0) -> Path:
    """LETOR 4.0 partitions S1..S<parts> of ``queries`` queries each."""
    rng = np.random.default_rng(seed)
    folder.mkdir(parents=True, exist_ok=True)
    for k in range(parts):
        lines = letor_lines(rng, range(100 * (k + 1), 100 * (k + 1) + queries))
        (folder / f"S{k + 1}.txt").write_text("".join(lines))
    return folder


#: a user objective module for the dying-worker tests: 'dies' kills its worker process in the first
#: boosting round when the marker file it is given does not exist yet (always, when it is 'always')
DYING_MODULE = '''
import os
from pathlib import Path

import numpy as np

import pyterrier_risk as ptr


@ptr.register_objective
class Dies(ptr.Objective):
    """Kills its worker (os._exit) in its first round, once per marker file or always."""

    name = "dies"
    label = "Dies"
    baseline = "single"
    citation = "a test objective"
    options = ()

    def weights(self, r):
        marker = Path(os.environ["LEARN_DIES_MARKER"])
        if not marker.exists():
            if marker.name != "always":
                marker.write_text("died once")
            os._exit(3)
        return np.ones(len(r.model))
'''
