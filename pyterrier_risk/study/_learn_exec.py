"""Where a study's tasks run: a local process pool (the default) or a Dask ``distributed`` cluster.

Both run the same function (:func:`~._learn_task.run_task`) on the same plain-data tasks, so the
results do not depend on where or in which order the tasks ran. The parent process stores each
finished task's result in its :class:`~._learn_store.TaskStore` (``out/tasks/``, written whole or not
at all): a rerun skips them, an interrupted one leaves no partial file.

The pool uses the ``spawn`` start method (numba and OpenMP threads do not survive ``fork``). A worker
that dies mid-task breaks the pool: the tasks that finished are kept, the others go to a fresh pool,
and the tasks that were running when it broke are retried once each, alone; a task that kills its
worker again is reported by name.
"""

from __future__ import annotations

import multiprocessing
from collections.abc import Callable, Iterable
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from typing import Any

from ._learn_store import TaskStore
from ._learn_task import LearnTask, TaskFailed, run_task, task_key
from ._settings import StudyError

__all__ = ["connect", "run_local", "run_dask"]

#: seconds to wait for a Dask scheduler before the study gives up with a one-line error
CONNECT_TIMEOUT = 5


def _done(store: TaskStore, task: LearnTask, future: Future, advance: Callable[[], None]) -> None:
    """Store a finished future's result (a task error stops the study with its one-line message)."""
    try:
        result = future.result()
    except TaskFailed as e:
        raise StudyError(str(e)) from None
    store.put(task_key(task), result)
    advance()


def _pool(workers: int) -> ProcessPoolExecutor:
    return ProcessPoolExecutor(max_workers=workers, mp_context=multiprocessing.get_context("spawn"))


def _stop(pool: ProcessPoolExecutor, before: set[Any]) -> None:
    """Shut the pool down now: queued tasks cancelled, its worker processes terminated.

    Its workers are the child processes that were not there before it started; they are terminated
    rather than left to finish their task.
    """
    pool.shutdown(wait=False, cancel_futures=True)
    for child in set(multiprocessing.active_children()) - before:
        child.terminate()
        child.join(5)


def _one_pool(queue: list[LearnTask], workers: int, store: TaskStore,
              advance: Callable[[], None]) -> list[LearnTask]:
    """Run the tasks of ``queue`` (taken from its front) on one pool, at most ``workers`` at a time.

    Returns the tasks that were running when a worker died (empty when none did); the tasks not yet
    started stay in ``queue``.
    """
    before = set(multiprocessing.active_children())
    pool = _pool(workers)
    running: dict[Future, LearnTask] = {}
    try:
        while queue or running:
            while queue and len(running) < workers:
                try:
                    future = pool.submit(run_task, queue[0])
                except BrokenProcessPool:  # a worker died since the last wait: its task's future says so
                    if not running:
                        return []  # nothing ran here: the queue goes to a fresh pool
                    break
                running[future] = queue.pop(0)
            finished, _ = wait(running, return_when=FIRST_COMPLETED)
            broken = [f for f in finished if isinstance(f.exception(), BrokenProcessPool)]
            for f in finished:
                if f not in broken:
                    _done(store, running.pop(f), f, advance)
            if broken:
                return list(running.values())
        return []
    finally:
        _stop(pool, before)


def run_local(tasks: list[LearnTask], workers: int, store: TaskStore, advance: Callable[[], None]) -> None:
    """Run ``tasks`` on a pool of ``workers`` processes; a task whose worker dies is retried once, alone.

    Raises:
        StudyError: a task failed (its message), or killed its worker twice (named; every other task
            ran and is stored). When no task has finished at all, the first such task stops the study:
            the workers cannot start (a script that starts a study must guard it with
            ``if __name__ == "__main__":``, as the spawn start method requires).
    """
    finished = [0]

    def counted() -> None:
        finished[0] += 1
        advance()

    queue, failed = list(tasks), []
    while queue:
        for task in _one_pool(queue, workers, store, counted):
            if _one_pool([task], 1, store, counted):  # alone: this task kills its worker
                if not finished[0]:
                    raise StudyError(f"the worker process died running task {task.name}, and no task has "
                                     "finished: does the task kill it, or can workers not start? (a script "
                                     "that starts a study must guard it with if __name__ == '__main__':)")
                failed.append(task.name)
    if failed:
        raise StudyError(f"the worker died twice running task {failed[0]}"
                         + (f" (and {len(failed) - 1} more)" if len(failed) > 1 else "")
                         + "; the other tasks finished and are kept: rerun to retry")


def connect(scheduler: str) -> Any:
    """A Dask ``distributed`` client of the scheduler at ``scheduler``, or a one-line StudyError."""
    try:
        from distributed import Client
    except ImportError:
        raise StudyError("--scheduler needs dask.distributed: pip install 'pyterrier-risk[dask]'") from None
    try:
        return Client(scheduler, timeout=CONNECT_TIMEOUT)
    except (OSError, TimeoutError, ValueError) as e:
        message = " ".join(str(e).split())
        raise StudyError(f"cannot reach the Dask scheduler at {scheduler}: {message}") from None


def run_dask(tasks: Iterable[LearnTask], client: Any, store: TaskStore, advance: Callable[[], None]) -> None:
    """Run ``tasks`` on a Dask cluster (``client.submit``, results as they complete).

    A worker that dies is Dask's to handle: it reruns the task elsewhere, and after its
    ``allowed-failures`` reports ``KilledWorker``, named here with the task.
    """
    from distributed import as_completed

    tasks = list(tasks)
    futures = {client.submit(run_task, t, key=f"pyterrier-risk-learn-{task_key(t)}", pure=False): t
               for t in tasks}  # fmt: skip
    try:
        for future in as_completed(futures):
            task = futures[future]
            try:
                result = future.result()
            except TaskFailed as e:
                raise StudyError(str(e)) from None
            except Exception as e:  # noqa: BLE001 - KilledWorker, a lost connection ...
                message = " ".join(str(e).split())
                raise StudyError(f"task {task.name}: {type(e).__name__}: {message}") from None
            store.put(task_key(task), result)
            advance()
    finally:
        client.cancel(list(futures))
