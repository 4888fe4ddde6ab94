"""A study's progress: a bar on a terminal, lines elsewhere (nohup, a batch scheduler, a pipe).

When stderr is a terminal (or in a notebook), one progress bar runs over the tasks. Otherwise a line
is printed when a fold's tasks have all finished and every :data:`PROGRESS_EVERY` seconds: tasks done,
time elapsed and an estimate of the time left (from the tasks run so far in this process). With an
output folder the same lines go to ``OUT/learn.log`` (kept across reruns), whichever way progress is
shown.

On a terminal the bar also shows the step of a task in flight: ``task 7/40 (Fold2 urisk α=5 seed 1)
round 120/300`` (``epoch`` for the neural learner). With several tasks in flight it shows the most
advanced (the largest share of its cap done) and how many more run. The steps come from the running
tasks through the backend's channel (:class:`~._backend.StepChannel`), at most one per task every
:data:`STEP_EVERY` seconds; without a terminal no channel is opened.
"""

from __future__ import annotations

import sys
import threading
import time
from collections import Counter
from collections.abc import Mapping, Sequence
from datetime import timedelta
from pathlib import Path
from typing import Any, TextIO

from ._backend import StepChannel

__all__ = ["PROGRESS_EVERY", "STEP_EVERY", "Progress"]

#: seconds between two progress lines when stderr is not a terminal
PROGRESS_EVERY = 30.0
#: seconds between two steps (boosting rounds, epochs) a running task sends to the bar, and two redraws
STEP_EVERY = 0.5


def _clock(seconds: float) -> str:
    return str(timedelta(seconds=round(seconds)))


class Progress:
    """Progress over ``tasks`` (each with ``fold.name``), ``stored`` of which were finished before."""

    def __init__(self, tasks: Sequence[Any], stored: int, *, enabled: bool, log: Path | None = None,
                 stream: TextIO | None = None) -> None:
        self.stream = sys.stderr if stream is None else stream
        self.total, self.done, self.stored = len(tasks), stored, stored
        self.left = Counter(t.fold.name for t in tasks)
        self.enabled, self.log = enabled, log if enabled else None
        self.lines: list[str] = []
        if self.log is not None and self.log.is_file():
            self.lines = self.log.read_text(encoding="utf-8", errors="replace").splitlines()
        self.started = time.monotonic()
        self.lock = threading.Lock()
        self.stop = threading.Event()
        self.bar: Any = None
        self.steps_lock = threading.Lock()  # the running tasks' steps come from other threads
        self.running: dict[str, tuple[int, int]] = {}  # key -> (done, total) of each task in flight
        self.known: dict[str, tuple[int, Any]] = {}  # key -> (position from 1, task)
        self.key_of: dict[int, str] = {}  # id(task) -> key
        self.finished: set[str] = set()
        self.drawn = -float("inf")
        if enabled and (self.stream.isatty() or "ipykernel" in sys.modules):  # a terminal or a notebook
            import pyterrier as pt

            self.bar = pt.tqdm(total=self.total, initial=stored, desc="learn", unit="model", file=self.stream)
        elif enabled:
            threading.Thread(target=self._tick, name="pyterrier-risk-progress", daemon=True).start()

    def skip(self, done: Sequence[Any]) -> None:
        """Count the tasks finished before this run (already stored) against their folds."""
        self.left.subtract(t.fold.name for t in done)

    def status(self) -> str:
        """``12/54 tasks, 0:01:05 elapsed, about 0:03:47 left``."""
        elapsed = time.monotonic() - self.started
        ran = self.done - self.stored
        estimate = elapsed / ran * (self.total - self.done) if ran else 0.0
        left = f"about {_clock(estimate)} left" if ran else "time left unknown"
        return f"{self.done}/{self.total} tasks, {_clock(elapsed)} elapsed, {left}"

    def line(self, text: str) -> None:
        """Print ``learn: text`` (without a terminal) and keep it in the log."""
        if not self.enabled:
            return
        with self.lock:
            stamp = time.strftime("%Y-%m-%d %H:%M:%S")
            if self.bar is None:
                self.stream.write(f"learn: {text}\n")
                self.stream.flush()
            self.lines.append(f"{stamp} {text}")
            if self.log is not None:
                from ..data import atomic_write

                self.log.parent.mkdir(parents=True, exist_ok=True)
                with atomic_write(self.log, "w", encoding="utf-8") as fh:
                    fh.write("\n".join(self.lines) + "\n")

    def _tick(self) -> None:
        while not self.stop.wait(PROGRESS_EVERY):
            self.line(self.status())

    def channel(self, keyed: Mapping[str, Any]) -> StepChannel | None:
        """The channel that brings the tasks' steps to the bar (``keyed``: every task by key), or None.

        None without a bar: then nothing is sent at all.
        """
        if self.bar is None:
            return None
        self.known = {key: (i, task) for i, (key, task) in enumerate(keyed.items(), 1)}
        self.key_of = {id(task): key for key, (_, task) in self.known.items()}
        return StepChannel(self.step, STEP_EVERY)

    def step(self, key: str, done: int, total: int) -> None:
        """A running task (by key) has done ``done`` of at most ``total`` steps (any thread)."""
        with self.steps_lock:
            if key in self.finished or key not in self.known or self.stop.is_set():
                return
            self.running[key] = (done, total)
            self.bar.set_postfix_str(self._running_text(), refresh=False)
            now = time.monotonic()
            if now - self.drawn >= STEP_EVERY:
                self.drawn = now
                self.bar.refresh()

    def _running_text(self) -> str:
        """``task 7/40 (Fold2 urisk α=5 seed 1) round 120/300, 3 more running``: the most advanced."""
        if not self.running:
            return ""
        key = max(self.running, key=lambda k: self.running[k][0] / max(self.running[k][1], 1))
        (done, total), (position, task) = self.running[key], self.known[key]
        unit = "epoch" if getattr(getattr(task, "settings", None), "learner", None) == "neural" else "round"
        text = (f"task {position}/{self.total} ({task.fold.name} {task.objective} α={task.alpha:g} "
                f"seed {task.seed}) {unit} {done}/{total}")
        more = len(self.running) - 1
        return text + (f", {more} more running" if more else "")

    def advance(self, task: Any) -> None:
        """One more task finished (``task.fold.name`` tells its fold)."""
        self.done += 1
        self.left[task.fold.name] -= 1
        if self.bar is not None:
            with self.steps_lock:
                key = self.key_of.get(id(task))
                if key is not None:
                    self.finished.add(key)
                    self.running.pop(key, None)
                self.bar.set_postfix_str(self._running_text(), refresh=False)
                self.bar.update(1)
        if self.left[task.fold.name] == 0:
            self.line(f"{task.fold.name} done: {self.status()}")

    def close(self) -> None:
        """Stop the periodic lines and the bar."""
        self.stop.set()
        if self.bar is not None:
            with self.steps_lock:
                self.bar.close()
