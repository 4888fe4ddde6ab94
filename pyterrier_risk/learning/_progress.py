"""The learner's progress: a LightGBM callback advancing ``pt.tqdm`` once per boosting round, and a hook.

The hook, :func:`training_progress`, lets a caller follow a fit from outside (the learning study's bar
shows the boosting round or epoch of the tasks in flight): within the block, in the calling thread,
``RiskLambdaMART`` calls ``listener(done, total)`` after each boosting round and ``RiskNeuralRanker``
after each epoch. The listener only reads the counts: what a fit computes does not change.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import numpy as np
import pyterrier as pt

__all__ = ["Progress", "report_step", "training_progress"]

#: ``listener(done, total)``: the steps (boosting rounds, epochs) done of at most ``total``
Listener = Callable[[int, int], None]
_HOOK = threading.local()  # .listener: this thread's (a Dask worker runs its tasks in threads)


@contextmanager
def training_progress(listener: Listener | None) -> Iterator[None]:
    """Within the block, this thread's fits call ``listener(done, total)`` after each round or epoch.

    ``done`` counts the boosting rounds (``RiskLambdaMART``) or epochs (``RiskNeuralRanker``) trained so
    far, ``total`` is their cap (``num_boost_round``, ``epochs``; early stopping may end the fit before
    it). ``None`` listens to nothing. The previous listener is restored on leaving the block.
    """
    previous = getattr(_HOOK, "listener", None)
    _HOOK.listener = listener
    try:
        yield
    finally:
        _HOOK.listener = previous


def report_step(done: int, total: int) -> None:
    """Tell this thread's listener (:func:`training_progress`), if any: ``done`` of ``total`` steps ran."""
    listener = getattr(_HOOK, "listener", None)
    if listener is not None:
        listener(done, total)


class Progress:
    """LightGBM callback advancing a ``pt.tqdm`` bar once per boosting round."""

    order = 40  # after early stopping has recorded the round

    def __init__(self, total: int, desc: str, enabled: bool) -> None:
        self.desc = desc
        self.bar = pt.tqdm(total=total, desc=desc, unit="tree") if enabled else None

    def prepare(self, obj: Any, labels: np.ndarray, group: np.ndarray) -> None:
        """Compile (or load) the objective's kernels before the first tree, saying so.

        Otherwise tree 1 holds the compilation and the bar's rate and time left are off by it
        ("12.8 s/tree, 6 min left" for a 15 s fit). The call binds the objective to the training
        rows on all-zero scores; LightGBM's first call, on zero scores too, starts the run afresh.
        """
        bar = self.bar
        status = obj.kernel_status(len(labels)) if bar is not None else None
        if bar is None or status is None:
            return
        bar.set_description_str(f"{self.desc}: {status}")
        obj(labels, np.zeros(len(labels)), None, group)
        bar.set_description_str(self.desc, refresh=False)
        bar.reset()  # the rate counts trees from here

    def finish(self, booster: Any, stopping: bool) -> None:
        """Say when early stopping ended the fit, and at which best iteration (not a bar stuck at 48%)."""
        if self.bar is None:
            return
        done, best = self.bar.n, booster.best_iteration  # trees grown (LightGBM keeps only the best)
        if not stopping or not best or done >= self.bar.total:
            return
        scores = booster.best_score.get("valid", {})
        shown = ", ".join(f"valid {k} {v:.4f}" for k, v in scores.items())
        self.bar.set_description_str(
            f"{self.desc}: early stopping after {done} trees; best iteration {best} ({shown})"
        )

    def __call__(self, env: Any) -> None:
        report_step(env.iteration + 1 - env.begin_iteration, env.end_iteration - env.begin_iteration)
        if self.bar is None:
            return
        self.bar.update(1)
        if env.evaluation_result_list:
            self.bar.set_postfix(
                {f"{r[0]} {r[1]}": f"{r[2]:.4f}" for r in env.evaluation_result_list}, refresh=False
            )

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()

