"""Where a study's tasks run: in the calling process, on a process pool, on a real Dask cluster.

Signals, hangs and lost clusters are tested in subprocesses (``pyterrier-risk learn``), each with a
timeout, so that a regression fails the test instead of hanging it. The Dask tests start a real
``dask scheduler`` and ``dask worker`` processes on 127.0.0.1 (the CLIs that ``dask[distributed]``
installs). Every study ends byte-identical to ``--workers 1``.
"""

from __future__ import annotations

import hashlib
import http.server
import io
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from _learn_data import partitions
from helpers import REPO

import pyterrier_risk as ptr
from pyterrier_risk.study import StudyError

ARGS = ["--baseline", "1", "--objective", "tfaro", "--alpha", "5", "--rounds", "3", "--no-progress"]
PYTHON_ARGS = {"baseline": 1, "objectives": ["tfaro"], "alphas": [5], "rounds": 3, "workers": 1,
               "progress": False}  # ARGS in Python
#: a user objective that raises in its first round (its traceback must reach errors.log)
FAILING_MODULE = '''
import pyterrier_risk as ptr


@ptr.register_objective
class Fails(ptr.Objective):
    """Raises in its first round."""

    name = "fails"
    label = "Fails"
    baseline = "single"
    citation = "a test objective"
    options = ()

    def weights(self, r):
        raise ValueError("a bug in the weights")
'''


@pytest.fixture(scope="module")
def data(tmp_path_factory) -> Path:
    return partitions(tmp_path_factory.mktemp("letor") / "parts", parts=3, queries=6)


@pytest.fixture(scope="module")
def modules(tmp_path_factory) -> Path:
    """A folder on every process's path (the study's, the pool's, the Dask workers') with test objectives."""
    folder = tmp_path_factory.mktemp("modules")
    (folder / "failing_objective.py").write_text(FAILING_MODULE)
    return folder


def _env(modules: Path) -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": os.pathsep.join([str(modules), str(REPO)])}


def _learn(*args: str, modules: Path, timeout: float = 240) -> subprocess.CompletedProcess:
    cmd = [sys.executable, "-m", "pyterrier_risk", "learn", *args]
    return subprocess.run(cmd, capture_output=True, text=True, cwd=REPO, timeout=timeout, env=_env(modules))


def _start(*args: str, modules: Path) -> subprocess.Popen:
    cmd = [sys.executable, "-m", "pyterrier_risk", "learn", *args]
    return subprocess.Popen(cmd, cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=_env(modules))


@pytest.fixture(scope="module")
def reference(data, modules, tmp_path_factory) -> Path:
    """The study of ``ARGS`` on one worker (in the calling process)."""
    out = tmp_path_factory.mktemp("reference") / "out"
    done = _learn(str(data), *ARGS, "--workers", "1", "--out", str(out), modules=modules)
    assert done.returncode == 0, done.stderr
    return out


def _files(folder: Path) -> dict[str, str]:
    """Every result file's sha256 by relative path (the task store and the logs left out)."""
    return {str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(folder.rglob("*"))
            if p.is_file() and p.parts[len(folder.parts)] != "tasks" and p.suffix != ".log"}


def _stored(out: Path) -> list[Path]:
    return list((out / "tasks").glob("*.npz"))


def _wait(condition, what: str, seconds: float = 180) -> None:
    """Poll ``condition`` until it holds (a deadline against hangs, not a timing assertion)."""
    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > deadline:
            pytest.fail(f"gave up waiting for {what}")
        time.sleep(0.2)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


# -- one worker: the calling process ------------------------------------------------------------------


def test_one_worker_runs_in_the_calling_process_so_a_script_needs_no_main_guard(data, modules, tmp_path):
    """Issue 27.13: the docs' example saved as a script, without ``if __name__ == "__main__":``."""
    script = tmp_path / "study.py"
    script.write_text("import pyterrier_risk as ptr\n"
                      f"result = ptr.risk_study({str(data)!r}, baseline=1, objectives=['tfaro'],\n"
                      "                        alphas=[5], rounds=3, workers=1, progress=False)\n"
                      "print(len(result.per_query))\n")
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, cwd=tmp_path,
                          timeout=240, env=_env(modules))
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.split() == [str(3 * 6 * 2)]  # 3 folds x 6 test queries x 2 models


@pytest.mark.slow
def test_the_in_process_study_equals_the_pool_study(data, modules, reference, tmp_path):
    done = _learn(str(data), *ARGS, "--workers", "2", "--out", str(tmp_path / "two"), modules=modules)
    assert done.returncode == 0, done.stderr
    assert _files(tmp_path / "two") == _files(reference)


# -- failed tasks: one line, every traceback in errors.log ---------------------------------------------


class _Fails(ptr.Objective):
    """Raises in its first round (registered by the test that uses it)."""

    name = "fails_here"
    label = "Fails here"
    baseline = "single"
    citation = "a test objective"
    options = ()

    def weights(self, r):
        raise ValueError("a bug in the weights")


def test_a_failed_task_is_one_line_and_its_traceback_is_in_errors_log(data, tmp_path, clean_registry):
    """Issue 27.12: the one-line error points to OUT/errors.log, which keeps the whole traceback."""
    ptr.register_objective(_Fails)
    out = tmp_path / "out"
    with pytest.raises(StudyError) as caught:
        ptr.risk_study(data, baseline=1, objectives=["fails_here"], alphas=[5], rounds=3, workers=1, out=out,
                       progress=False)
    message = str(caught.value)
    assert "\n" not in message and message.startswith("task Fold1/fails_here/alpha=5/seed=1: ")
    assert "a bug in the weights" in message and message.endswith(f"the traceback is in {out / 'errors.log'}")
    log = (out / "errors.log").read_text()
    assert log.startswith("== task Fold1/fails_here/alpha=5/seed=1\n") and "Traceback (most recent" in log
    assert 'raise ValueError("a bug in the weights")' in log  # down to the line that raised
    assert not (out / "per_query.csv").exists() and len(_stored(out)) == 1  # the reference of Fold1 is kept


@pytest.mark.slow
def test_a_task_failed_in_a_pool_worker_keeps_its_traceback(data, modules, tmp_path):
    out = tmp_path / "out"
    done = _learn(str(data), "--import", "failing_objective", *ARGS[:2], "--objective", "fails", *ARGS[4:],
                  "--workers", "2", "--out", str(out), modules=modules)
    assert done.returncode == 2 and done.stderr.count("\n") == 1, done.stderr
    assert "a bug in the weights" in done.stderr and f"{out / 'errors.log'}" in done.stderr
    assert 'raise ValueError("a bug in the weights")' in (out / "errors.log").read_text()
    assert not (out / "per_query.csv").exists()


# -- signals ----------------------------------------------------------------------------------------------


def _descendants(pid: int) -> list[int]:
    psutil = pytest.importorskip("psutil")
    try:
        return [p.pid for p in psutil.Process(pid).children(recursive=True)]
    except psutil.NoSuchProcess:
        return []


def _alive(pid: int) -> bool:
    psutil = pytest.importorskip("psutil")
    try:
        return psutil.Process(pid).status() != psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return False


@pytest.mark.slow
def test_sigterm_is_handled_like_ctrl_c(data, modules, reference, tmp_path):
    """Exit 130 with one line, the pool's processes gone, no partial file; the rerun resumes."""
    out = tmp_path / "out"
    proc = _start(str(data), *ARGS, "--workers", "2", "--out", str(out), modules=modules)
    _wait(lambda: _stored(out) or proc.poll() is not None, "a first stored task")
    children = _descendants(proc.pid)
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130 and err.strip().splitlines()[-1] == "pyterrier-risk: interrupted", err
    _wait(lambda: not any(_alive(c) for c in children), "the pool's processes to exit", 30)
    assert not list(out.rglob("*.tmp*")) and not (out / "per_query.csv").exists()
    ptr.risk_study(data, **PYTHON_ARGS, out=out)  # the rerun resumes (in this process: quicker)
    assert _files(out) == _files(reference)


@pytest.mark.slow
def test_after_sigkill_of_the_study_its_pool_workers_and_resource_tracker_exit(data, modules, tmp_path):
    out = tmp_path / "out"
    proc = _start(str(data), *ARGS, "--workers", "2", "--out", str(out), modules=modules)
    _wait(lambda: len(_descendants(proc.pid)) >= 3 or proc.poll() is not None, "the pool's workers")
    _wait(lambda: _stored(out) or proc.poll() is not None, "a first stored task")
    children = _descendants(proc.pid)  # the two workers and multiprocessing's resource tracker
    assert proc.poll() is None and len(children) >= 3
    proc.kill()
    proc.wait(30)  # not communicate(): orphaned workers would hold its pipes open
    _wait(lambda: not any(_alive(c) for c in children), "the orphaned workers to exit", 60)


# -- Dask: connecting ---------------------------------------------------------------------------------


@pytest.fixture
def silent_port() -> Iterator[int]:
    """A port that accepts connections and never answers."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen(8)
        yield int(s.getsockname()[1])


@pytest.fixture
def http_port() -> Iterator[int]:
    """An HTTP service."""
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), http.server.SimpleHTTPRequestHandler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield int(server.server_address[1])
    server.shutdown()


@pytest.mark.slow
@pytest.mark.parametrize("port", ["silent_port", "http_port"])
def test_a_scheduler_address_that_is_no_scheduler_is_one_line(data, modules, port, request):
    """Issue 27.10: a port that never answers hung for minutes; an HTTP service gave a MemoryError."""
    pytest.importorskip("distributed")
    address = f"tcp://127.0.0.1:{request.getfixturevalue(port)}"
    done = _learn(str(data), *ARGS, "--scheduler", address, modules=modules, timeout=90)
    assert done.returncode == 2 and done.stderr.count("\n") == 1, done.stderr
    assert f"cannot reach the Dask scheduler at {address}" in done.stderr


def test_worker_timeout_is_checked(data):
    with pytest.raises(StudyError, match="worker_timeout must be a number of seconds > 0"):
        ptr.risk_study(data, baseline=1, scheduler="tcp://127.0.0.1:9", worker_timeout=0)


# -- Dask: a real cluster ---------------------------------------------------------------------------------


class Cluster:
    """A ``dask scheduler`` and ``dask worker`` processes on 127.0.0.1 (no nanny: a kill is a kill)."""

    def __init__(self, port: int, env: dict[str, str], log: Path) -> None:
        self.address, self.env, self.log = f"tcp://127.0.0.1:{port}", env, log
        self.scheduler: subprocess.Popen | None = None
        self.workers: list[subprocess.Popen] = []

    def _spawn(self, *args: str) -> subprocess.Popen:
        with open(self.log, "a") as log:
            return subprocess.Popen([sys.executable, "-m", "dask", *args],
                                    stdout=log, stderr=log, env=self.env, cwd=REPO)

    def start_scheduler(self) -> None:
        port = self.address.rsplit(":", 1)[1]
        self.scheduler = self._spawn("scheduler", "--host", "127.0.0.1", "--port", port, "--no-dashboard")

    def add_workers(self, n: int) -> None:
        self.workers += [self._spawn("worker", self.address, "--nthreads", "1", "--no-nanny",
                                     "--no-dashboard", "--host", "127.0.0.1") for _ in range(n)]
        _wait(lambda: self._connected() >= n, f"{n} Dask workers")

    def _connected(self) -> int:
        from distributed import Client

        try:
            with Client(self.address, timeout=5, set_as_default=False) as client:
                return len(client.scheduler_info(n_workers=-1)["workers"])
        except OSError:
            return 0

    def stop(self) -> None:
        for p in [*self.workers, self.scheduler]:
            if p is not None and p.poll() is None:
                p.kill()
                p.wait(30)
        self.workers, self.scheduler = [], None


@pytest.fixture
def cluster(modules, tmp_path) -> Iterator[Cluster]:
    pytest.importorskip("distributed")
    c = Cluster(_free_port(), _env(modules), tmp_path / "cluster.log")
    c.start_scheduler()
    yield c
    c.stop()


@pytest.mark.slow
def test_a_scheduler_without_workers_waits_then_stops_with_one_line(data, modules, cluster):
    done = _learn(str(data), *ARGS, "--scheduler", cluster.address, "--worker-timeout", "3", modules=modules,
                  timeout=120)
    lines = done.stderr.strip().splitlines()
    assert done.returncode == 2 and len(lines) == 2, done.stderr
    assert lines[0].startswith(f"pyterrier-risk: waiting for workers at the Dask scheduler {cluster.address}")
    assert lines[1] == (f"pyterrier-risk: error: no Dask worker joined the scheduler at {cluster.address} "
                        "within 3 s (the worker timeout)")


@pytest.mark.slow
def test_a_task_failing_on_a_dask_worker_names_the_worker(data, modules, cluster, tmp_path):
    cluster.add_workers(1)
    out = tmp_path / "out"
    done = _learn(str(data), "--import", "failing_objective", *ARGS[:2], "--objective", "fails", *ARGS[4:],
                  "--scheduler", cluster.address, "--out", str(out), modules=modules)
    assert done.returncode == 2 and done.stderr.count("\n") == 1, done.stderr
    assert "a bug in the weights (on worker tcp://127.0.0.1:" in done.stderr
    assert 'raise ValueError("a bug in the weights")' in (out / "errors.log").read_text()


@pytest.mark.slow
def test_a_worker_killed_mid_study_on_dask(data, modules, reference, cluster, tmp_path):
    cluster.add_workers(2)
    out = tmp_path / "out"
    proc = _start(str(data), *ARGS, "--scheduler", cluster.address, "--out", str(out), modules=modules)
    _wait(lambda: _stored(out) or proc.poll() is not None, "a first stored task")
    cluster.workers[0].kill()
    _, err = proc.communicate(timeout=240)
    assert proc.returncode == 0, err
    assert _files(out) == _files(reference)


@pytest.mark.slow
def test_a_lost_scheduler_is_one_line_and_a_rerun_on_a_restarted_one_resumes(data, modules, reference,
                                                                            cluster, tmp_path):
    """Issue 27.12: no ``distributed.client`` traceback; one line says the cluster was lost, and to rerun."""
    cluster.add_workers(2)
    out = tmp_path / "out"
    proc = _start(str(data), *ARGS, "--scheduler", cluster.address, "--out", str(out), modules=modules)
    _wait(lambda: _stored(out) or proc.poll() is not None, "a first stored task")
    cluster.stop()  # the scheduler and its workers, killed
    _, err = proc.communicate(timeout=240)
    assert proc.returncode == 2 and err.count("\n") == 1, err
    assert f"lost the Dask scheduler at {cluster.address}" in err and "rerun to resume" in err
    kept = {p: p.stat().st_mtime_ns for p in _stored(out)}
    assert kept and not (out / "per_query.csv").exists()
    cluster.start_scheduler()
    cluster.add_workers(2)
    done = _learn(str(data), *ARGS, "--scheduler", cluster.address, "--out", str(out), modules=modules)
    assert done.returncode == 0, done.stderr
    assert all(p.stat().st_mtime_ns == t for p, t in kept.items())  # resumed: the stored tasks reused
    assert _files(out) == _files(reference)


# -- progress -----------------------------------------------------------------------------------------------


def test_without_a_terminal_progress_is_a_line_per_fold_also_in_learn_log(data, tmp_path, capsys):
    """Issue 29.8: under nohup or a batch scheduler there was no progress output at all."""
    out = tmp_path / "out"
    ptr.risk_study(data, baseline=1, objectives=["tfaro"], alphas=[5], rounds=3, workers=1, out=out)
    lines = [line for line in capsys.readouterr().err.splitlines() if line.startswith("learn: ")]
    assert lines[0].startswith("learn: 3 folds (partitions S1..S3) in ")  # the layout the study chose
    lines = lines[1:]
    assert lines[0] == "learn: 6 of 6 tasks to run on 1 worker (this process)"
    assert [line.split(":")[1].strip() for line in lines[1:]] == ["Fold1 done", "Fold2 done", "Fold3 done"]
    assert lines[-1].startswith("learn: Fold3 done: 6/6 tasks, ") and lines[-1].endswith("about 0:00:00 left")
    log = (out / "learn.log").read_text().splitlines()
    assert [line.split(" ", 2)[2] for line in log] == [line.removeprefix("learn: ") for line in lines]


def test_progress_lines_come_every_period_and_a_terminal_gets_the_bar(monkeypatch):
    from types import SimpleNamespace

    from pyterrier_risk.engine import _progress

    monkeypatch.setattr(_progress, "PROGRESS_EVERY", 0.05)
    tasks = [SimpleNamespace(fold=SimpleNamespace(name=f"Fold{i // 2 + 1}")) for i in range(4)]
    stream = io.StringIO()
    shown = _progress.Progress(tasks, 0, enabled=True, stream=stream)
    shown.advance(tasks[0])
    _wait(lambda: stream.getvalue().count("\n") >= 2, "two periodic lines", 30)
    shown.close()
    assert stream.getvalue().startswith("learn: 1/4 tasks, 0:00:00 elapsed, about 0:00:00 left\n")

    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    terminal = Terminal()
    shown = _progress.Progress(tasks, 0, enabled=True, stream=terminal)
    for t in tasks:
        shown.advance(t)
    shown.close()
    assert "done:" not in terminal.getvalue() and "tasks," not in terminal.getvalue()  # no lines: the bar
    assert "4/4" in terminal.getvalue()


# -- the pool's bookkeeping ---------------------------------------------------------------------------------


def test_a_pool_that_broke_before_a_submit_hands_its_queue_to_a_fresh_pool(monkeypatch):
    """A worker that dies between two waits makes ``submit`` raise: no traceback, the task not lost."""
    from concurrent.futures.process import BrokenProcessPool

    from pyterrier_risk.engine import _pool

    class Broken:
        def submit(self, *args, **kwargs):
            raise BrokenProcessPool("A child process terminated abruptly")

        def shutdown(self, **kwargs):
            pass

    monkeypatch.setattr(_pool, "_pool", lambda workers: Broken())
    queue = [("k1", "task 1"), ("k2", "task 2")]
    assert _pool._one_pool(str, queue, 2, lambda key, result: None) == []
    assert queue == [("k1", "task 1"), ("k2", "task 2")]  # still to run, on the next pool

