"""A learning study's ``--out`` folder: it removes only what it wrote, one study at a time, one set.

* Issue 27, item 8: ``--out`` deleted a user's ``runs/my_precious_system.run``, overwrote an input
  baseline ``W/runs/ranker01.run`` with a derived run, and a baseline named ``lambdarank_a0_s1.run``
  replaced the model's run. The study records what it writes in ``manifest.json`` and removes only
  those files; it refuses an ``--out`` that holds an input, and a baseline with a model's run name.
* Issue 27, item 9: two ``learn`` processes into one ``--out`` mixed their files, and a crash while
  writing left a new ``per_query.csv`` beside the old tables. The folder is locked (a second study is
  a one-line error naming the first one's pid); the files are staged and moved in as one set.

Tiny synthetic data (three partitions of 8 queries); the two studies are trained once per module and
every later study reuses their tasks, so each subprocess only assembles and writes.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from _learn_data import partitions
from helpers import REPO

import pyterrier_risk as ptr
from pyterrier_risk.study import StudyError

SMALL = {"baseline": 1, "baselines": [1, 2, 3], "objectives": ["tfaro"], "rounds": 3, "progress": False,
         "workers": 1}  # fmt: skip
CLI = ["--baseline", "1", "--baselines", "1", "2", "3", "--objective", "tfaro", "--rounds", "3",
       "--no-progress", "--workers", "1"]  # fmt: skip
posix_only = pytest.mark.skipif(sys.platform == "win32", reason="flock and RLIMIT_FSIZE are POSIX")


@pytest.fixture(scope="module")
def data(tmp_path_factory) -> Path:
    return partitions(tmp_path_factory.mktemp("letor") / "parts", parts=3, queries=8)


@pytest.fixture(scope="module")
def studies(data, tmp_path_factory) -> dict[float, Path]:
    """The folders of the study at α 5 and at α 10 (each with its own tasks)."""
    root = tmp_path_factory.mktemp("studies")
    for alpha in (5, 10):
        ptr.risk_study(data, alphas=[alpha], out=root / f"a{alpha}", **SMALL)
    return {5: root / "a5", 10: root / "a10"}


def files(folder: Path) -> dict[str, str]:
    """sha256 of every file by relative path, without the task store and the lock file."""
    return {p.relative_to(folder).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(folder.rglob("*"))
            if p.is_file() and p.relative_to(folder).parts[0] not in ("tasks", ".lock")}


def with_tasks(studies: dict[float, Path], alpha: float, folder: Path) -> Path:
    """A copy of the study at ``alpha`` whose task store also holds the other study's tasks."""
    shutil.copytree(studies[alpha], folder)
    for other in studies.values():
        shutil.copytree(other / "tasks", folder / "tasks", dirs_exist_ok=True)
    return folder


def learn(*args: str, env: dict[str, str] | None = None, **kwargs) -> subprocess.CompletedProcess:
    cmd = [sys.executable, "-m", "pyterrier_risk", "learn", *args]
    return subprocess.run(cmd, capture_output=True, text=True, cwd=REPO, timeout=300,
                          env={**os.environ, "PYTHONPATH": str(REPO), **(env or {})}, **kwargs)


# ------------------------------------------------------------------------------- the manifest (27.8)
def test_the_manifest_lists_every_file_written_with_its_size_and_sha256(studies):
    folder = studies[5]
    manifest = json.loads((folder / "manifest.json").read_text())
    assert manifest["format"] == "pyterrier-risk/learn-files" and manifest["format_version"] == 1
    listed = {f["path"]: f for f in manifest["files"]}
    assert set(listed) == set(files(folder)) - {"manifest.json"}
    for name, entry in listed.items():
        content = (folder / name).read_bytes()
        assert entry["size"] == len(content) and entry["sha256"] == hashlib.sha256(content).hexdigest()
    assert {"per_query.csv", "settings.json", "runs/tfaro_a5_s1.run", "runs/F1.run"} <= set(listed)


def test_a_users_files_survive_and_only_the_earlier_studys_files_go(data, studies, tmp_path):
    out = with_tasks(studies, 5, tmp_path / "out")
    precious = {"runs/my_precious_system.run": "q1 Q0 d1 1 2.0 mine\n", "notes.md": "my notes\n",
                "tables.csv": "my own table\n"}  # fmt: skip
    for name, text in precious.items():
        (out / name).write_text(text)
    edited = out / "runs" / "F2.run"  # a study file the user changed since: replaced (the study writes it)
    edited.write_text("changed\n")
    (out / "tables.md").write_text((out / "tables.md").read_text() + "my note\n")  # changed: kept
    ptr.risk_study(data, alphas=[10], store=out, **SMALL).write(out, format="latex")
    for name, text in precious.items():
        assert (out / name).read_text() == text
    assert (out / "tables.md").read_text().endswith("my note\n") and (out / "tables.tex").exists()
    runs = sorted(p.name for p in (out / "runs").iterdir())
    # α 5's model run is gone (the manifest listed it, unchanged); the user's run stays
    assert runs == ["F1.run", "F2.run", "F3.run", "lambdarank_a0_s1.run", "my_precious_system.run",
                    "tfaro_a10_s1.run"]
    assert (out / "runs" / "F2.run").read_bytes() == (studies[10] / "runs" / "F2.run").read_bytes()
    listed = {f["path"] for f in json.loads((out / "manifest.json").read_text())["files"]}
    assert "tables.tex" in listed and not listed & {*precious, "tables.md"}


@pytest.mark.parametrize("what", ["baseline", "data", "import"])
def test_an_out_that_holds_an_input_is_refused_before_any_training(data, tmp_path, capsys, monkeypatch,
                                                                    what):
    from pyterrier_risk.cli import main

    out = tmp_path / "W"
    (out / "runs").mkdir(parents=True)
    run = out / "runs" / "ranker01.run"
    run.write_text("".join(f"{q} Q0 D{q}-{d} {d + 1} {8 - d}.0 r\n" for q in range(100, 108)
                           for d in range(8)))
    before = run.read_bytes()
    args = [str(data), *CLI, "--alpha", "5", "--out", str(out)]
    if what == "baseline":
        args += ["--baselines", str(run)]
    elif what == "data":
        args[0] = str(shutil.copytree(data, out / "data"))
    else:
        (out / "my_objectives.py").write_text("")
        monkeypatch.syspath_prepend(out)  # undone after the test
        args += ["--import", "my_objectives"]
    try:
        status = main(["learn", *args])
    finally:
        sys.modules.pop("my_objectives", None)
    err = capsys.readouterr().err
    assert status == 2 and err.count("\n") == 1 and err.startswith("pyterrier-risk: error: --out "), err
    assert {"baseline": "the baseline run 'ranker01'", "data": "the data (DATA)",
            "import": "the --import module 'my_objectives'"}[what] in err
    assert run.read_bytes() == before  # untouched, and nothing trained or written
    assert not (out / "tasks").exists() and not (out / "per_query.csv").exists()


@pytest.mark.parametrize("name", ["lambdarank_a0_s1", "LambdaRank_a0_s1"])  # one file where case is folded
def test_a_baseline_with_a_models_run_name_is_refused(data, studies, tmp_path, capsys, name):
    from pyterrier_risk.cli import main

    run = tmp_path / f"{name}.run"
    shutil.copy(studies[5] / "runs" / "F1.run", run)
    out = tmp_path / "out"
    status = main(["learn", str(data), *CLI, "--alpha", "5", "--baselines", str(run), "--out", str(out)])
    err = capsys.readouterr().err
    assert status == 2 and err.count("\n") == 1, err
    assert f"baseline {name!r} has the name of a model's run (runs/{name}.run)" in err
    assert not out.exists()
    with pytest.raises(StudyError, match="has the name of a model's run"):  # and without --out
        ptr.risk_study(data, alphas=[5], baselines=[1, 2, str(run)], **{k: v for k, v in SMALL.items()
                                                                          if k != "baselines"})


def test_a_hand_made_manifest_cannot_remove_a_foreign_file(data, studies, tmp_path):
    """Only the names a study writes are taken from a manifest: never a path outside the folder."""
    out = with_tasks(studies, 5, tmp_path / "out")
    victim = tmp_path / "victim.txt"
    victim.write_text("keep me\n")
    entry = {"size": victim.stat().st_size, "sha256": hashlib.sha256(victim.read_bytes()).hexdigest()}
    manifest = json.loads((out / "manifest.json").read_text())
    tricks = ("../victim.txt", str(victim), "runs/../../victim.txt")
    manifest["files"] += [{"path": p, **entry} for p in tricks]
    (out / "manifest.json").write_text(json.dumps(manifest))
    ptr.risk_study(data, alphas=[10], out=out, **SMALL)
    assert victim.read_text() == "keep me\n"
    assert files(out) == files(studies[10])  # the α 5 files the manifest lists are still removed


# ----------------------------------------------------------------------------- one study at a time (27.9)
BLOCKING_MODULE = '''
import os
import time
from pathlib import Path

import numpy as np

import pyterrier_risk as ptr


@ptr.register_objective
class Blocks(ptr.Objective):
    """Says it started (a file), then waits for a go file (at most 5 minutes)."""

    name = "blocks"
    label = "Blocks"
    baseline = "single"
    citation = "a test objective"
    options = ()

    def weights(self, r):
        Path(os.environ["LEARN_STARTED"]).write_text(str(os.getpid()))
        deadline = time.monotonic() + 300
        while not Path(os.environ["LEARN_GO"]).exists() and time.monotonic() < deadline:
            time.sleep(0.05)
        return np.ones(len(r.model))
'''


@pytest.mark.slow
@posix_only
def test_a_second_study_into_the_folder_is_refused_naming_the_firsts_pid(data, tmp_path):
    (tmp_path / "blocking_objective.py").write_text(BLOCKING_MODULE)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tmp_path), str(REPO)]),
           "LEARN_STARTED": str(tmp_path / "started"), "LEARN_GO": str(tmp_path / "go")}
    out = tmp_path / "out"
    first_args = ["--import", "blocking_objective", "--baseline", "1", "--objective", "blocks", "--alpha",
                  "5", "--rounds", "2", "--no-progress", "--workers", "1", "--out", str(out)]
    first = subprocess.Popen([sys.executable, "-m", "pyterrier_risk", "learn", str(data), *first_args],
                             cwd=REPO, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 240  # a bound on the wait, not a timed assertion
        while not (tmp_path / "started").exists() and first.poll() is None and time.monotonic() < deadline:
            time.sleep(0.1)
        assert (tmp_path / "started").exists(), first.stderr.read() if first.poll() is not None else ""
        second = learn(str(data), *CLI, "--alpha", "10", "--out", str(out))
        assert second.returncode == 2 and second.stderr.count("\n") == 1, second.stderr
        assert f"another study (pid {first.pid}) is writing into this folder" in second.stderr
    finally:
        (tmp_path / "go").write_text("go")
        _, err = first.communicate(timeout=240)
    assert first.returncode == 0, err
    settings = json.loads((out / "settings.json").read_text())
    assert settings["alphas"] == [5.0] and settings["objectives"] == ["blocks"]
    assert (out / ".lock").read_text() == ""  # no stale pid once the study is over
    import fcntl

    with open(out / ".lock") as lock:  # and the lock is free
        fcntl.flock(lock.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)


# ----------------------------------------------------------------------------- one set of files (27.9)
WRITE_FAILS = """
import sys

import pyterrier_risk as ptr
import pyterrier_risk.data as data_layer


def full_disk(*args, **kwargs):  # the qrels come after per_query.csv, the csv files and the runs
    raise OSError(28, "No space left on device")


data_layer.write_qrels = full_disk
ptr.risk_study(sys.argv[1], out=sys.argv[2], alphas=[10], baseline=1, baselines=[1, 2, 3],
               objectives=["tfaro"], rounds=3, progress=False, workers=1)
"""


@pytest.mark.slow
def test_a_failure_while_writing_keeps_the_previous_set_whole(data, studies, tmp_path):
    out = with_tasks(studies, 5, tmp_path / "out")
    before = files(out)
    done = subprocess.run([sys.executable, "-c", WRITE_FAILS, str(data), str(out)], capture_output=True,
                          text=True, cwd=REPO, env={**os.environ, "PYTHONPATH": str(REPO)}, timeout=300)
    assert done.returncode != 0 and "No space left on device" in done.stderr
    assert files(out) == before  # α 5's set, byte for byte: no new per_query.csv beside the old tables
    assert not list(out.glob(".staging-*")) and not (out / ".pending").exists()
    ptr.risk_study(data, alphas=[10], out=out, **SMALL)
    assert files(out) == files(studies[10])


@pytest.mark.slow
@posix_only
def test_a_file_size_limit_mid_write_keeps_the_previous_set_whole(data, studies, tmp_path):
    """RLIMIT_FSIZE above per_query.csv and below a run file: the writer fails after several files."""
    import resource

    out = with_tasks(studies, 5, tmp_path / "out")
    before = files(out)
    sizes = {p.name: p.stat().st_size for p in studies[10].rglob("*") if p.is_file()}
    limit = sizes["per_query.csv"] + 1
    assert limit < sizes["tfaro_a10_s1.run"]  # per_query.csv fits, the runs do not

    def limited():
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

    done = learn(str(data), *CLI, "--alpha", "10", "--out", str(out), preexec_fn=limited)
    assert done.returncode != 0
    assert files(out) == before


@pytest.mark.slow
def test_an_interrupted_move_is_finished_by_the_next_write(data, studies, tmp_path):
    """A process killed while moving the staged files in: the next write into the folder finishes them
    (the journal), so the earlier set's files are known and none is left behind."""
    out = with_tasks(studies, 5, tmp_path / "out")
    killed = textwrap.dedent("""
        import os
        import sys

        import pyterrier_risk as ptr

        real, moves = os.replace, []

        def replace(src, dst):  # killed after three files of the new set have moved in
            if ".staging-" in str(src) and ".staging-" not in str(dst):
                moves.append(dst)
                if len(moves) == 4:
                    os._exit(9)
            return real(src, dst)

        os.replace = replace
        ptr.risk_study(sys.argv[1], out=sys.argv[2], alphas=[10], baseline=1, baselines=[1, 2, 3],
                       objectives=["tfaro"], rounds=3, progress=False, workers=1)
    """)
    done = subprocess.run([sys.executable, "-c", killed, str(data), str(out)], capture_output=True, text=True,
                          cwd=REPO, env={**os.environ, "PYTHONPATH": str(REPO)}, timeout=300)
    assert done.returncode == 9, done.stderr
    assert (out / ".pending").exists() and list(out.glob(".staging-*"))
    ptr.risk_study(data, alphas=[5], out=out, **SMALL)
    assert files(out) == files(studies[5])  # α 10's moved files are gone too
    assert not (out / ".pending").exists() and not list(out.glob(".staging-*"))



def test_moves_stopped_by_an_error_are_finished_by_the_next_write(data, studies, tmp_path, monkeypatch):
    """The quick twin of the test above, in this process: the moves stop with an error, not a kill."""
    out = with_tasks(studies, 5, tmp_path / "out")
    real, moves = os.replace, []

    def replace(src, dst):  # fails after three files of the new set have moved in
        if ".staging-" in str(src) and ".staging-" not in str(dst):
            moves.append(dst)
            if len(moves) == 4:
                raise OSError("the moves stop here")
        return real(src, dst)

    monkeypatch.setattr(os, "replace", replace)
    with pytest.raises(OSError, match="the moves stop here"):
        ptr.risk_study(data, alphas=[10], out=out, **SMALL)
    monkeypatch.undo()
    assert (out / ".pending").exists() and list(out.glob(".staging-*")) and len(moves) == 4
    ptr.risk_study(data, alphas=[5], out=out, **SMALL)
    assert files(out) == files(studies[5])  # α 10's moved files are gone too
    assert not (out / ".pending").exists() and not list(out.glob(".staging-*"))

LOCK_PROBE = """
import fcntl, sys
with open(sys.argv[1]) as lock:
    try:
        fcntl.flock(lock.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        print("held")
    else:
        print("free")
"""


@posix_only
def test_learn_holds_its_folder_from_the_first_task_to_the_last_file(data, tmp_path, monkeypatch, capsys):
    """Training and writing are one study: another process cannot take --out between the two."""
    from pyterrier_risk.cli import main
    from pyterrier_risk.engine import RiskStudyResult

    out, seen = tmp_path / "out", []
    write = RiskStudyResult.write

    def probed(self, folder, **kwargs):  # what another process sees just before the files are written
        probe = subprocess.run([sys.executable, "-c", LOCK_PROBE, str(out / ".lock")], capture_output=True,
                               text=True, timeout=60)
        seen.append(probe.stdout.strip())
        return write(self, folder, **kwargs)

    monkeypatch.setattr(RiskStudyResult, "write", probed)
    assert main(["learn", str(data), *CLI, "--alpha", "5", "--out", str(out)]) == 0, capsys.readouterr().err
    assert seen == ["held"]
    probe = subprocess.run([sys.executable, "-c", LOCK_PROBE, str(out / ".lock")], capture_output=True,
                           text=True, timeout=60)
    assert probe.stdout.strip() == "free"  # and released at the end
