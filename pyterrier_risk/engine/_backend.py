"""Where a study's tasks run: the :class:`Backend` interface, and how a backend is chosen.

A backend runs one task function (``run_task`` for the learning study: plain data in, plain data out)
on a mapping of task keys to tasks and hands each result to a callback as it arrives. It knows nothing
of what a task computes: a new learner changes the task function, never a backend. A new backend is one
module with a class that has :meth:`Backend.run` and :meth:`Backend.close`, chosen in
:func:`~._driver.choose_backend`.

The backends here: :class:`~._pool.InProcess` (one worker: the calling process, so a script
needs no ``__main__`` guard), :class:`~._pool.LocalPool` (a ``spawn`` process pool) and
:class:`~._dask.DaskBackend` (a Dask ``distributed`` cluster).

A task that raises comes back as a :class:`TasksFailed`: one line for the user (the task's name, its
message, the worker it ran on) and the full traceback of every failed task, which the study writes to
``OUT/errors.log``.

A running task may report its steps (boosting rounds, epochs) to the parent: given a
:class:`StepChannel`, a backend runs each task under :func:`call_task` with a ``step`` callable that
carries ``(key, done, total)`` to ``channel.report`` in the parent (directly in this process; through a
queue from a pool worker; as a Dask event from a cluster's worker). The task function reads it with
:func:`task_step`. A task sends at most one step per ``channel.every`` seconds, and sending never
blocks it: a step that cannot be sent at once is dropped.
"""

from __future__ import annotations

import signal
import threading
import time
import traceback
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, Protocol, TypeVar

from ._errors import StudyError

__all__ = ["Backend", "BackendLost", "Failure", "StepChannel", "TaskError", "TasksFailed", "call_task",
           "task_step", "terminate_as_interrupt"]

T = TypeVar("T")
R = TypeVar("R")

#: the callback a backend hands each result to: ``done(key, result)``, in the parent process
Done = Callable[[str, Any], None]
#: a running task's step, in the worker: ``step(done, total)``
Step = Callable[[int, int], None]
_RUNNING = threading.local()  # .step: the step of the task this thread runs (None: nobody listens)


@dataclass(frozen=True)
class StepChannel:
    """Where running tasks' steps go in the parent, and how often a task sends one.

    Attributes:
        report: ``report(key, done, total)``, called in the parent (from any thread) with the task's key.
        every: seconds between two steps a task sends (its first step is always sent).
    """

    report: Callable[[str, int, int], None]
    every: float


class NamedTask(Protocol):
    """What a backend needs of a task: a name for messages (``Fold1/urisk/alpha=5/seed=1``)."""

    @property
    def name(self) -> str: ...  # pragma: no cover - a protocol


class Backend(Protocol):
    """Runs tasks somewhere and hands their results back, in the order they finish."""

    #: how the study describes where its tasks run (``"2 local processes"``)
    description: str

    def run(self, fn: Callable[[Any], Any], tasks: Mapping[str, Any], done: Done,
            steps: StepChannel | None = None) -> None:
        """Run ``fn(task)`` for every task; ``done(key, result)`` for each as it finishes.

        With ``steps``, a task's :func:`task_step` reaches ``steps.report`` in this process.

        Raises:
            TasksFailed: a task raised (every task that had failed by then, with its traceback).
            StudyError: the backend itself failed (a worker that died twice, a lost cluster).
        """

    def close(self) -> None:
        """Release what the backend holds (processes, connections); it is not used again."""


@dataclass(frozen=True)
class Failure:
    """One failed task: its name, the one-line message and the full traceback (from the worker)."""

    name: str
    message: str
    details: str


class TaskError(Exception):
    """A task raised in a worker: the one-line message and the worker's full traceback (picklable)."""

    def __init__(self, message: str, details: str = "") -> None:
        super().__init__(message, details)
        self.message, self.details = message, details

    def __str__(self) -> str:
        return self.message


class TasksFailed(Exception):
    """One or more tasks raised; ``failures`` holds each one, the first is the one the user sees."""

    def __init__(self, failures: list[Failure]) -> None:
        super().__init__(failures[0].message)
        self.failures = failures


class BackendLost(StudyError):
    """The backend lost what runs the tasks (a Dask scheduler, every worker): the finished tasks stand."""


def _one_line(error: BaseException) -> str:
    return " ".join(str(error).split()) or type(error).__name__


class _Throttled:
    """A step sent at most once per ``every`` seconds (the first always); a failed send is dropped."""

    def __init__(self, send: Step, every: float) -> None:
        self.send, self.every, self.last = send, every, -float("inf")

    def __call__(self, done: int, total: int) -> None:
        now = time.monotonic()
        if now - self.last < self.every:
            return
        self.last = now
        try:
            self.send(done, total)
        except Exception:  # noqa: BLE001, S110 - progress is best effort: a task never fails for it
            pass


def task_step() -> Step | None:
    """The step of the task this thread runs (:func:`call_task` with ``step``): None when nobody listens."""
    return getattr(_RUNNING, "step", None)


def call_task(fn: Callable[[T], R], task: T, where: Callable[[], str] | None = None,
              step: Step | None = None, every: float = 0.0) -> R:
    """``fn(task)`` in a worker; an error becomes a :class:`TaskError` with the worker's traceback.

    The task function's own errors name the task; ``where`` (run in the worker) adds the worker
    (``on worker tcp://10.0.0.7:40123``). The traceback is that of the error the task function caught
    and wrapped, when it did (``raise ... from None`` keeps it as the context), else of the error.
    ``step`` (sent to the parent) is the task's :func:`task_step` while it runs, at most one call per
    ``every`` seconds reaching it.
    """
    _RUNNING.step = None if step is None else _Throttled(step, every)
    try:
        return fn(task)
    except Exception as e:  # noqa: BLE001 - every task error goes back as one TaskError
        cause = e.__context__ if e.__suppress_context__ and e.__context__ is not None else e
        details = "".join(traceback.format_exception(type(cause), cause, cause.__traceback__))
        message = _one_line(e)
        if where is not None:
            message = f"{message} (on worker {where()})"
        raise TaskError(message, details) from None
    finally:
        _RUNNING.step = None


def failure(task: NamedTask, error: BaseException) -> Failure:
    """A :class:`Failure` from the error a task's future raised in the parent."""
    if isinstance(error, TaskError):
        return Failure(task.name, error.message, error.details)
    details = "".join(traceback.format_exception(type(error), error, error.__traceback__))
    return Failure(task.name, f"task {task.name}: {type(error).__name__}: {_one_line(error)}", details)


@contextmanager
def terminate_as_interrupt() -> Iterator[None]:
    """Within the block, SIGTERM raises ``KeyboardInterrupt`` as Ctrl-C does (batch schedulers send it).

    Only in the main thread, and only where SIGTERM has its default action (a handler someone else
    installed is left alone); the previous action is restored afterwards.
    """
    if threading.current_thread() is not threading.main_thread() or (
            signal.getsignal(signal.SIGTERM) is not signal.SIG_DFL):
        yield
        return

    def interrupt(signum: int, frame: Any) -> None:
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, interrupt)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, signal.SIG_DFL)

