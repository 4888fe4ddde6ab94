"""The Dask backend: a study's tasks on a ``distributed`` cluster (``--scheduler``, ``client=``).

Connecting is bounded: the scheduler is first asked who it is over one connection, all within
:data:`CONNECT_TIMEOUT` seconds, so a port that accepts and never answers, or a service that is not a
Dask scheduler (an HTTP server), is a one-line error instead of a hang. A scheduler with no worker
gets ``worker_timeout`` seconds for one to join (a line on stderr says it is waiting); so does a
cluster whose workers have all left mid-study.

While the backend is open, the loggers of ``distributed`` are silenced through ``logging``'s
configuration (their levels, restored on close): losing the scheduler is one line from the study
(:class:`~._backend.BackendLost`), not the client's reconnection tracebacks. A task that raises
on a worker says which worker (``on worker tcp://...``).

A running task's steps (:class:`~._backend.StepChannel`) travel as Dask events: the worker logs each
under a topic of this run (``Worker.log_event``, which never waits), and the client subscribed to it
(``Client.subscribe_topic``) hands them to ``channel.report`` on its event loop's thread.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import sys
import time
import uuid
from collections.abc import Callable, Mapping
from concurrent.futures import CancelledError
from typing import Any

from ._backend import BackendLost, Done, Failure, StepChannel, TasksFailed, call_task, failure
from ._errors import StudyError

__all__ = ["CONNECT_TIMEOUT", "DEFAULT_WORKER_TIMEOUT", "DaskBackend"]

#: seconds to reach a Dask scheduler (and hear it answer) before the study gives up with a one-line error
CONNECT_TIMEOUT = 5
#: seconds a study waits for a Dask worker when the scheduler has none (``--worker-timeout``)
DEFAULT_WORKER_TIMEOUT = 60.0
_POLL = 1.0  # seconds between checks of the cluster while waiting for results
_KEY = "pyterrier-risk-"


def _worker_address() -> str:
    """The address of the Dask worker this runs on (for messages)."""
    from distributed import get_worker

    return str(get_worker().address)


class _EventStep:
    """A task's step on a Dask worker: ``[key, done, total]`` logged as an event under ``topic``."""

    def __init__(self, topic: str, key: str) -> None:
        self.topic, self.key = topic, key

    def __call__(self, done: int, total: int) -> None:
        from distributed import get_worker

        get_worker().log_event(self.topic, [self.key, int(done), int(total)])


def _step_handler(channel: StepChannel) -> Callable[[Any], None]:
    """The client's handler of the step events: ``event = (timestamp, [key, done, total])``."""

    def handle(event: Any) -> None:
        try:
            key, done, total = event[1]
            channel.report(str(key), int(done), int(total))
        except Exception:  # noqa: BLE001, S110 - a step the bar cannot show is skipped
            pass

    return handle


async def _identity(address: str) -> dict[str, Any]:
    from distributed.comm import connect

    comm = await connect(address, timeout=CONNECT_TIMEOUT)
    try:
        await comm.write({"op": "identity", "reply": True})
        return dict(await comm.read())
    finally:
        comm.abort()


def _probe(address: str) -> None:
    """Check that a Dask scheduler answers at ``address`` within :data:`CONNECT_TIMEOUT` seconds."""
    where = f"cannot reach the Dask scheduler at {address}"
    try:
        who = asyncio.run(asyncio.wait_for(_identity(address), CONNECT_TIMEOUT))
    except (asyncio.TimeoutError, TimeoutError):
        raise StudyError(f"{where}: no answer within {CONNECT_TIMEOUT} s") from None
    except (OSError, ValueError, TypeError) as e:
        raise StudyError(f"{where}: {' '.join(str(e).split())}") from None
    except Exception as e:  # noqa: BLE001 - a service that is not Dask: MemoryError, a decoding error ...
        raise StudyError(f"{where}: it does not speak Dask's protocol ({type(e).__name__})") from None
    if who.get("type") != "Scheduler":
        raise StudyError(f"{where}: it answers as a {who.get('type')!r}, not a Scheduler")


class _Quiet:
    """``distributed``'s loggers silenced (their levels raised) until :meth:`restore`."""

    def __init__(self) -> None:
        known = logging.Logger.manager.loggerDict
        names = ["distributed"] + [n for n in known if n.startswith("distributed.")]
        self.levels = {n: logging.getLogger(n).level for n in names}
        for name in names:
            logging.getLogger(name).setLevel(logging.CRITICAL + 1)

    def restore(self) -> None:
        for name, level in self.levels.items():
            logging.getLogger(name).setLevel(level)


class DaskBackend:
    """Tasks on a Dask cluster, submitted all at once; results taken as they complete."""

    def __init__(self, client: Any, owned: bool, worker_timeout: float) -> None:
        self.client, self.owned, self.worker_timeout = client, owned, worker_timeout
        self.address = str(getattr(client.scheduler, "address", "") or "the cluster")
        self.description = f"the Dask scheduler at {self.address}"
        self.quiet = _Quiet()

    @classmethod
    def connect(cls, client: Any, scheduler: str | None, worker_timeout: float | None) -> DaskBackend:
        """The backend of ``client``, or of a new client of the scheduler at ``scheduler`` (closed with it).

        Raises:
            StudyError: no ``distributed``; a scheduler that does not answer as one in time.
        """
        timeout = DEFAULT_WORKER_TIMEOUT if worker_timeout is None else worker_timeout
        if client is not None:
            return cls(client, False, timeout)
        try:
            from distributed import Client
        except ImportError:
            raise StudyError("a Dask scheduler needs dask.distributed: pip install 'pyterrier-risk[dask]'"
                             ) from None
        assert scheduler is not None
        quiet = _Quiet()
        try:
            _probe(scheduler)
            own = Client(scheduler, timeout=CONNECT_TIMEOUT, set_as_default=False)
        except StudyError:
            raise
        except Exception as e:  # noqa: BLE001 - the scheduler went away between the probe and the client
            message = " ".join(str(e).split())
            raise StudyError(f"cannot reach the Dask scheduler at {scheduler}: {message}") from None
        finally:
            quiet.restore()
        return cls(own, True, timeout)

    def _workers(self) -> int:
        return len(self.client.scheduler_info(n_workers=-1).get("workers", {}))

    def _wait_for_workers(self) -> None:
        """Wait up to ``worker_timeout`` seconds for a first worker (saying so on stderr)."""
        if self._workers():
            return
        sys.stderr.write(f"pyterrier-risk: waiting for workers at the Dask scheduler {self.address} "
                         f"(at most {self.worker_timeout:g} s)\n")
        try:
            self.client.wait_for_workers(1, timeout=self.worker_timeout)
        except (TimeoutError, asyncio.TimeoutError):
            raise StudyError(f"no Dask worker joined the scheduler at {self.address} within "
                             f"{self.worker_timeout:g} s (the worker timeout)") from None

    def _check(self, idle_since: list[float | None]) -> None:
        """Raise :class:`BackendLost` when the scheduler is gone or no worker has been there for too long."""
        if self.client.status != "running":
            raise BackendLost(f"lost the Dask scheduler at {self.address}")
        if self._workers():
            idle_since[0] = None
        elif idle_since[0] is None:
            idle_since[0] = time.monotonic()
        elif time.monotonic() - idle_since[0] > self.worker_timeout:
            raise BackendLost(f"no Dask worker at the scheduler {self.address} for {self.worker_timeout:g} s "
                              "(the worker timeout)")

    def _collect(self, finished: Any, futures: dict[Any, tuple[str, Any]], done: Done) -> None:
        """Hand results to ``done``; raise for failed tasks (:class:`TasksFailed`) or a lost cluster."""
        failed: list[Failure] = []
        for future in finished:
            key, task = futures[future]
            try:
                result = future.result()
            except CancelledError:
                raise BackendLost(f"lost the Dask scheduler at {self.address}") from None
            except Exception as e:  # noqa: BLE001 - the task's error, KilledWorker ...
                failed.append(failure(task, e))
                continue
            done(key, result)
        if failed:
            raise TasksFailed(failed)

    def run(self, fn: Callable[[Any], Any], tasks: Mapping[str, Any], done: Done,
            steps: StepChannel | None = None) -> None:
        """Submit every task, hand each result to ``done`` as it completes.

        With ``steps``, the running tasks' steps reach ``steps.report`` (on the client's thread).

        A worker that dies is Dask's to handle: it reruns the task elsewhere, and after its
        ``allowed-failures`` reports ``KilledWorker``, which names the task and the last worker.

        Raises:
            TasksFailed: tasks raised (each with the worker it ran on).
            BackendLost: the scheduler was lost, or every worker left for longer than the worker timeout.
        """
        from distributed import as_completed

        self._wait_for_workers()
        topic = f"{_KEY}steps-{uuid.uuid4().hex}"
        if steps is not None:
            self.client.subscribe_topic(topic, _step_handler(steps))
        every = 0.0 if steps is None else steps.every
        futures = {self.client.submit(call_task, fn, task, _worker_address, None if steps is None else
                                      _EventStep(topic, key), every, key=_KEY + key, pure=False):
                   (key, task) for key, task in tasks.items()}  # fmt: skip
        finished = as_completed(futures, loop=self.client.loop)
        idle_since: list[float | None] = [None]
        checked = time.monotonic()
        try:
            while not finished.is_empty():
                if finished.has_ready():
                    self._collect(finished.next_batch(block=False), futures, done)
                    continue
                time.sleep(_POLL / 5)
                if time.monotonic() - checked > _POLL:
                    self._check(idle_since)
                    checked = time.monotonic()
        finally:
            if self.client.status == "running":
                self.client.cancel(list(futures))
                if steps is not None:
                    with contextlib.suppress(Exception):  # a client losing its scheduler just now
                        self.client.unsubscribe_topic(topic)

    def close(self) -> None:
        """Close the client if the backend opened it; give ``distributed``'s loggers their levels back."""
        try:
            if self.owned:
                self.client.close(timeout=CONNECT_TIMEOUT)
        except Exception:  # noqa: BLE001, S110 - a client of a lost scheduler: nothing left to close
            pass
        finally:
            self.quiet.restore()
