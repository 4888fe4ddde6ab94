"""The local backends: the calling process (one worker) and a ``spawn`` process pool (more).

With one worker the tasks run in the calling process, one after another: no process is started, so a
script or a notebook needs no ``if __name__ == "__main__":`` guard.

The pool uses the ``spawn`` start method (numba and OpenMP threads do not survive ``fork``). A worker
that dies mid-task breaks the pool: the tasks that finished are kept, the others go to a fresh pool,
and the tasks that were running when it broke are retried once each, alone; a task that kills its
worker again is reported by name. Each pool worker watches its parent: when the parent is gone (killed
with SIGKILL, which no handler sees), the worker exits within a second instead of running on.

A running task's steps (:class:`~._backend.StepChannel`) reach the parent through a bounded
``multiprocessing`` queue that each pool's workers inherit, read by a thread in the parent. A worker
only ever puts without waiting (a full queue drops the step), and may exit without flushing it; each
pool has its own queue, so a worker killed mid-send cannot silence the next pool's.
"""

from __future__ import annotations

import functools
import multiprocessing
import os
import queue as queues
import threading
import time
from collections.abc import Callable, Mapping
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from typing import Any

from ._backend import Done, StepChannel, TaskError, TasksFailed, call_task, failure
from ._errors import StudyError

__all__ = ["InProcess", "LocalPool"]

#: seconds between a pool worker's checks that its parent process is still there
PARENT_POLL = 1.0
_STEPS_QUEUED = 1024  # steps that may wait in the queue; more are dropped (the bar shows the latest)
_WORKER_STEPS: Any = None  # in a pool worker: the queue its tasks' steps go to (None: nobody listens)


class InProcess:
    """The tasks run in the calling process, in order (the backend of one worker)."""

    description = "1 worker (this process)"

    def run(self, fn: Callable[[Any], Any], tasks: Mapping[str, Any], done: Done,
            steps: StepChannel | None = None) -> None:
        """Run every task here; the first that raises stops the run (:class:`TasksFailed`).

        With ``steps``, a task's steps go to ``steps.report`` directly.
        """
        for key, task in tasks.items():
            step = None if steps is None else functools.partial(steps.report, key)
            try:
                result = call_task(fn, task, step=step, every=0.0 if steps is None else steps.every)
            except TaskError as e:
                raise TasksFailed([failure(task, e)]) from None
            done(key, result)

    def close(self) -> None:
        """Nothing to release."""


def _watch_parent(parent: int, steps: Any = None) -> None:
    """A pool worker's initializer: exit as soon as the parent process ``parent`` is gone.

    ``steps``: the queue the worker's tasks send their steps to (None: nobody listens).
    """
    global _WORKER_STEPS
    if steps is not None:
        steps.cancel_join_thread()  # exiting never waits for the parent to read what is queued
    _WORKER_STEPS = steps

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(PARENT_POLL)
        os._exit(1)  # the parent died without shutting the pool down (SIGKILL): nobody awaits our result

    threading.Thread(target=watch, name="pyterrier-risk-parent-watch", daemon=True).start()


def _pool(workers: int, steps: Any = None) -> ProcessPoolExecutor:
    return ProcessPoolExecutor(max_workers=workers, mp_context=multiprocessing.get_context("spawn"),
                               initializer=_watch_parent, initargs=(os.getpid(), steps))


class _QueueStep:
    """A task's step in a pool worker: ``(key, done, total)`` put on the worker's queue, never waiting."""

    def __init__(self, key: str) -> None:
        self.key = key

    def __call__(self, done: int, total: int) -> None:
        if _WORKER_STEPS is not None:
            _WORKER_STEPS.put_nowait((self.key, done, total))  # queue.Full: dropped by call_task


class _StepReader:
    """In the parent: a queue for one pool's steps, and a thread handing them to ``channel.report``."""

    def __init__(self, channel: StepChannel) -> None:
        self.channel = channel
        self.queue = multiprocessing.get_context("spawn").Queue(_STEPS_QUEUED)
        self.stopped = threading.Event()
        self.thread = threading.Thread(target=self._read, name="pyterrier-risk-steps", daemon=True)
        self.thread.start()

    def _read(self) -> None:
        while not self.stopped.is_set():
            try:
                key, done, total = self.queue.get(timeout=0.2)
            except queues.Empty:
                continue
            except (OSError, EOFError, ValueError):  # the queue closed under us
                return
            try:
                self.channel.report(key, done, total)
            except Exception:  # noqa: BLE001, S112 - a step the bar cannot show is skipped
                continue

    def close(self) -> None:
        self.stopped.set()
        self.thread.join(5)
        self.queue.close()


def _stop(pool: ProcessPoolExecutor, before: set[Any]) -> None:
    """Shut the pool down now: queued tasks cancelled, its worker processes terminated.

    Its workers are the child processes that were not there before it started; they are terminated
    rather than left to finish their task.
    """
    pool.shutdown(wait=False, cancel_futures=True)
    for child in set(multiprocessing.active_children()) - before:
        child.terminate()
        child.join(5)


def _collect(finished: set[Future], running: dict[Future, tuple[str, Any]], done: Done) -> bool:
    """Hand the finished futures' results to ``done``; True when one of them broke the pool.

    Raises:
        TasksFailed: a task raised (every finished task that did).
    """
    broken = [f for f in finished if isinstance(f.exception(), BrokenProcessPool)]
    failed = [f for f in finished if f not in broken and f.exception() is not None]
    if failed:
        raise TasksFailed([failure(running[f][1], f.exception()) for f in failed])  # type: ignore[arg-type]
    for f in finished:
        if f not in broken:
            key, _ = running.pop(f)
            done(key, f.result())
    return bool(broken)


def _one_pool(fn: Callable[[Any], Any], queue: list[tuple[str, Any]], workers: int, done: Done,
              steps: StepChannel | None = None) -> list[tuple[str, Any]]:
    """Run the tasks of ``queue`` (taken from its front) on one pool, at most ``workers`` at a time.

    Returns the tasks that were running when a worker died (empty when none did); the tasks not yet
    started stay in ``queue``. With ``steps``, the running tasks' steps reach ``steps.report``.
    """
    before = set(multiprocessing.active_children())
    reader = None if steps is None else _StepReader(steps)
    pool = _pool(workers) if reader is None else _pool(workers, reader.queue)
    every = 0.0 if steps is None else steps.every
    running: dict[Future, tuple[str, Any]] = {}
    try:
        while queue or running:
            while queue and len(running) < workers:
                step = None if reader is None else _QueueStep(queue[0][0])
                try:
                    future = pool.submit(call_task, fn, queue[0][1], None, step, every)
                except BrokenProcessPool:  # a worker died since the last wait: its task's future says so
                    if not running:
                        return []  # nothing ran here: the queue goes to a fresh pool
                    break
                running[future] = queue.pop(0)
            finished, _ = wait(running, return_when=FIRST_COMPLETED)
            if _collect(finished, running, done):
                return list(running.values())
        return []
    finally:
        _stop(pool, before)
        if reader is not None:
            reader.close()


class LocalPool:
    """A ``spawn`` process pool of ``workers`` processes; a task whose worker dies is retried once, alone."""

    def __init__(self, workers: int) -> None:
        self.workers = workers
        self.description = f"{workers} local worker processes"

    def run(self, fn: Callable[[Any], Any], tasks: Mapping[str, Any], done: Done,
            steps: StepChannel | None = None) -> None:
        """Run every task on the pool (at most ``workers`` at a time, never more than there are tasks).

        With ``steps``, the running tasks' steps reach ``steps.report`` (from a thread of this process).

        Raises:
            TasksFailed: a task raised.
            StudyError: a task killed its worker twice (named; every other task ran and is stored).
                When no task has finished at all, the first such task stops the study: the workers
                cannot start, or the task kills them.
        """
        finished = [0]

        def counted(key: str, result: Any) -> None:
            finished[0] += 1
            done(key, result)

        queue, failed = list(tasks.items()), []
        workers = min(self.workers, len(queue))
        while queue:
            for key, task in _one_pool(fn, queue, workers, counted, steps):
                if _one_pool(fn, [(key, task)], 1, counted, steps):  # alone: this task kills its worker
                    if not finished[0]:
                        raise StudyError(f"the worker process died running task {task.name}, and no task "
                                         "has finished: does the task kill it, or can workers not start? "
                                         "(a script that starts a study on several workers must guard it "
                                         "with if __name__ == '__main__':)")
                    failed.append(task.name)
        if failed:
            raise StudyError(f"the worker died twice running task {failed[0]}"
                             + (f" (and {len(failed) - 1} more)" if len(failed) > 1 else "")
                             + "; the other tasks finished and are kept: rerun to retry")

    def close(self) -> None:
        """Nothing to release: each run shuts its pools down."""
