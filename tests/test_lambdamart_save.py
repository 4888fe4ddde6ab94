"""Saving and loading a RiskLambdaMART folder: special files, size limits, Ctrl-C, ``__main__`` objectives.

* Issue 21, item 2: a FIFO ``model.txt`` blocked ``load`` forever, a link to ``/dev/zero`` read until
  memory ran out, and a FIFO ``risk_lambdamart.json`` was reported "not found". Anything that is not
  a regular file is refused before it is opened; what is read is bounded.
* Issue 21, item 3: a ``KeyboardInterrupt`` during ``save`` (or ``fit``) leaves no half-written
  folder: the folder is absent, or complete and loadable (the previous model or the new one).
* Issue 23, item 17: saving a model whose objective is defined in ``__main__`` warns that no other
  process can load it.

What could hang or crash runs in a subprocess with a timeout, so that it fails the test instead.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

import numpy as np
import pytest
from helpers import FAST, REPO, child_env, synthetic

from pyterrier_risk import RiskLambdaMART
from pyterrier_risk.learning import ObjectiveNotImportableWarning

ENV = child_env()  # the child imports this checkout and tests/helpers.py
MAX_MODEL_BYTES, MAX_JSON_BYTES = 2**30, 2**24  # docs/lambdamart.md, "Saving and loading"
posix_only = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="FIFOs and /dev/zero are POSIX")


def run_python(code: str, *args: str, timeout: int = 300) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code), *args],
        capture_output=True, text=True, env=ENV, timeout=timeout,
    )  # fmt: skip


@pytest.fixture(scope="module")
def saved(tmp_path_factory):
    res, qrels = synthetic()
    folder = tmp_path_factory.mktemp("saved") / "model"
    RiskLambdaMART("lambdarank", num_boost_round=3, verbose=False, **FAST).fit(res, qrels).save(folder)
    return folder


# ------------------------------------------------------------------------------- special files
def special_cases(saved: Path, root: Path) -> dict[str, tuple[Path, str]]:
    """Folders where one file is special: name -> (the file, the message expected)."""
    cases = {}

    def case(name: str, file: str, make, message: str) -> None:
        folder = root / name
        shutil.copytree(saved, folder)
        (folder / file).unlink()
        make(folder / file)
        cases[name] = (folder / file, message)

    def sparse(size: int):
        def make(path: Path) -> None:
            with open(path, "wb") as f:
                f.truncate(size)  # a hole: no disk space, no time

        return make

    def unix_socket(path: Path) -> None:
        sock = socket.socket(socket.AF_UNIX)
        sock.bind(str(path))
        sock.close()  # the socket file stays

    fifo, dev_zero = os.mkfifo, lambda path: path.symlink_to("/dev/zero")
    for file in ("model.txt", "risk_lambdamart.json", "pt_meta.json"):
        stem = file.split(".")[0]
        case(f"{stem}-fifo", file, fifo, "is a FIFO \\(named pipe\\), not a regular file")
        case(f"{stem}-zero", file, dev_zero, "is a character device, not a regular file")
        case(f"{stem}-dir", file, Path.mkdir, "is a folder, not a regular file")
        case(f"{stem}-sock", file, unix_socket, "is a socket, not a regular file")
    big, json_big = MAX_MODEL_BYTES + 1, MAX_JSON_BYTES + 1
    case("model-big", "model.txt", sparse(big), f"is {big:,} bytes, more than the {big - 1:,}")
    case("json-big", "risk_lambdamart.json", sparse(json_big), f"is {json_big:,} bytes, more than")
    return cases


@posix_only
def test_special_files_are_refused_before_they_are_opened(saved):
    # AF_UNIX paths are limited to ~100 bytes: build the cases in a short folder
    root = Path(tempfile.mkdtemp(prefix="ptr-special-"))
    try:
        cases = special_cases(saved, root)
        result = run_python("""
            import json, sys
            from pyterrier_risk import RiskLambdaMART
            for folder in sys.argv[1:]:
                print(folder, end=" ", flush=True)  # a hang or crash shows where
                try:
                    RiskLambdaMART.load(folder)
                    print(json.dumps("LOADED"))
                except (ValueError, OSError) as e:
                    print(json.dumps(f"{type(e).__name__}: {e}"), flush=True)
        """, *(str(file.parent) for file, _ in cases.values()), timeout=120)  # fmt: skip
        assert result.returncode == 0, result.stderr[-2000:]
        outcomes = dict(line.split(" ", 1) for line in result.stdout.splitlines())
        for file, message in cases.values():
            got = json.loads(outcomes[str(file.parent)])
            assert got.startswith(f"ValueError: {file} "), got  # names the file; not "not found"
            assert __import__("re").search(message, got) and "\n" not in got, (message, got)
    finally:
        shutil.rmtree(root)


def test_a_model_path_that_is_a_file_is_refused_in_one_line(saved, tmp_path):
    (tmp_path / "file").write_text("x")
    with pytest.raises(ValueError, match="file is not a folder: not a saved RiskLambdaMART"):
        RiskLambdaMART.load(tmp_path / "file")
    model = RiskLambdaMART.load(saved)
    with pytest.raises(FileExistsError, match="exists and is not a folder: cannot save a model there"):
        model.save(tmp_path / "file")
    assert (tmp_path / "file").read_text() == "x"


# ------------------------------------------------------------------------------- Ctrl-C
INTERRUPTED_SAVES = """
    import os, random, signal, sys, time
    from pathlib import Path
    import numpy as np
    from helpers import FAST, synthetic
    from pyterrier_risk import RiskLambdaMART

    res, qrels = synthetic()
    x = np.random.default_rng(0).random((30, 4))
    models = [RiskLambdaMART("lambdarank", num_boost_round=n, verbose=False, **FAST).fit(res, qrels)
              for n in (3, 4)]
    expected = [m.booster_.predict(x) for m in models]
    root = Path({root!r}); target = root / "model"
    signal.signal(signal.SIGALRM, lambda *_: os.kill(os.getpid(), signal.SIGINT))  # Ctrl-C, later
    start = time.perf_counter()
    for m in models * 5:
        m.save(target)
    per_save = (time.perf_counter() - start) / 10
    rng = random.Random(5)
    outcomes = {{"interrupted": 0, "absent": 0, "previous or new": 0}}
    for k in range({n}):
        if k % 3 == 0 and target.exists():  # a fresh folder every third save
            for p in target.iterdir():
                p.unlink()
            target.rmdir()
        try:
            try:
                signal.setitimer(signal.ITIMER_REAL, max(1e-6, rng.uniform(0, 1.3 * per_save)))
                models[k % 2].save(target)
            finally:
                signal.setitimer(signal.ITIMER_REAL, 0)
                time.sleep(0.002)  # a SIGINT already sent arrives here, inside the try
        except KeyboardInterrupt:
            outcomes["interrupted"] += 1
        names = sorted(os.listdir(root))
        assert names in ([], ["model"]), names  # no staging folder left beside it
        if not names:
            outcomes["absent"] += 1
            continue
        inside = sorted(os.listdir(target))
        assert inside == ["model.txt", "pt_meta.json", "risk_lambdamart.json"], inside
        scores = RiskLambdaMART.load(target).booster_.predict(x)
        assert any(np.array_equal(scores, e) for e in expected)
        outcomes["previous or new"] += 1
    print(per_save, outcomes)
    # fits interrupted: the KeyboardInterrupt reaches the caller (numba's dispatcher turned some into a
    # SystemError) and the model keeps its trees
    model = RiskLambdaMART("urisk", baseline=1, num_boost_round=2, verbose=False, **FAST).fit(res, qrels)
    before, model.num_boost_round = model.booster_, 10**6
    raised = []
    for k in range(16):
        signal.setitimer(signal.ITIMER_REAL, 0.02 + 0.025 * k)
        try:
            model.fit(res, qrels)
        except BaseException as e:
            raised.append(type(e).__name__)
        assert model.booster_ is before
    print(sorted(set(raised)))
"""


@pytest.mark.slow
@posix_only
def test_an_interrupted_save_leaves_no_folder_or_a_complete_one(tmp_path):
    """SIGINT at random moments of 100 saves (new and existing folders): never a mix, never a leftover."""
    root = tmp_path / "root"
    root.mkdir()
    code = INTERRUPTED_SAVES.format(root=str(root), n=100)
    result = run_python(code)
    assert result.returncode == 0, result.stderr[-3000:]
    per_save, outcomes = result.stdout.splitlines()[0].split(" ", 1)
    counts = eval(outcomes)  # noqa: S307 - our own child's dict
    # the interrupts fall inside saves: some leave no folder (a new one), some the previous model
    assert counts["interrupted"] >= 30 and counts["absent"] >= 5, outcomes
    assert result.stdout.splitlines()[1] == "['KeyboardInterrupt']"


SAVE_LOOP = """
    import sys
    from pathlib import Path
    from helpers import FAST, synthetic
    from pyterrier_risk import RiskLambdaMART

    res, qrels = synthetic()
    model = RiskLambdaMART("lambdarank", num_boost_round=3, verbose=False, **FAST).fit(res, qrels)
    print("ready", flush=True)
    k = 0
    while True:
        model.save(Path({root!r}) / f"model{{k % 4}}")
        k += 1
"""


@pytest.mark.slow
@pytest.mark.skipif(sys.platform == "win32", reason="SIGINT to a child process is POSIX")
def test_ctrl_c_to_a_process_saving_in_a_loop_leaves_complete_folders(tmp_path):
    root = tmp_path / "root"
    root.mkdir()
    child = subprocess.Popen(
        [sys.executable, "-c", textwrap.dedent(SAVE_LOOP.format(root=str(root)))],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=ENV,
    )  # fmt: skip
    try:
        assert child.stdout.readline() == "ready\n"
        time.sleep(0.7)
        child.send_signal(signal.SIGINT)
        _, err = child.communicate(timeout=60)
    finally:
        child.kill()
    assert "KeyboardInterrupt" in err and child.returncode != 0, err[-1000:]
    assert all(not p.name.startswith(".") for p in root.iterdir()), sorted(root.iterdir())
    x = np.random.default_rng(0).random((10, 4))
    for folder in root.iterdir():
        names = sorted(p.name for p in folder.iterdir())
        assert names == ["model.txt", "pt_meta.json", "risk_lambdamart.json"]
        assert RiskLambdaMART.load(folder).booster_.predict(x).shape == (10,)


def test_a_folder_in_the_way_of_a_file_is_refused_before_anything_moves(saved, tmp_path):
    folder = tmp_path / "m"
    shutil.copytree(saved, folder)
    (folder / "pt_meta.json").unlink()
    (folder / "pt_meta.json").mkdir()
    before = {p.name: p.read_bytes() for p in folder.iterdir() if p.is_file()}
    other = RiskLambdaMART("lambdarank", num_boost_round=2, verbose=False, **FAST).fit(*synthetic())
    with pytest.raises(IsADirectoryError, match="pt_meta.json is a folder: cannot save a model's file there"):
        other.save(folder)
    assert {p.name: p.read_bytes() for p in folder.iterdir() if p.is_file()} == before
    assert sorted(p.name for p in folder.iterdir()) == ["model.txt", "pt_meta.json", "risk_lambdamart.json"]


def test_saving_into_a_folder_keeps_its_other_files(saved, tmp_path):
    folder = tmp_path / "mine"
    folder.mkdir()
    (folder / "notes.txt").write_text("keep me")
    RiskLambdaMART.load(saved).save(folder)
    RiskLambdaMART.load(saved).save(folder)  # over an existing model
    assert sorted(p.name for p in folder.iterdir()) == [
        "model.txt", "notes.txt", "pt_meta.json", "risk_lambdamart.json"
    ]  # fmt: skip
    assert (folder / "notes.txt").read_text() == "keep me"


# ------------------------------------------------------------------------------- __main__ objectives
SCRIPT = """
import warnings

import numpy as np

from helpers import FAST, synthetic

import pyterrier_risk as ptr


@ptr.register_objective
class Halved(ptr.Objective):
    name = "t_halved"
    label = "Halved"
    baseline = "none"

    def weights(self, r):
        return np.full(len(r.model), 0.5)


res, qrels = synthetic()
model = ptr.RiskLambdaMART("t_halved", num_boost_round=2, verbose=False, **FAST).fit(res, qrels)
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    model.save({folder!r})
for w in caught:
    print(w.category.__name__, w.filename == __file__, str(w.message).replace(chr(10), " "))
"""


@pytest.mark.slow
def test_saving_an_objective_of_main_warns_that_no_other_process_can_load_it(tmp_path):
    script = tmp_path / "train.py"
    script.write_text(SCRIPT.format(folder=str(tmp_path / "model")))
    result = subprocess.run(
        [sys.executable, str(script)], capture_output=True, text=True, env=ENV, timeout=300
    )
    assert result.returncode == 0, result.stderr[-2000:]
    [line] = result.stdout.splitlines()  # one warning, pointing at the script's save() line
    assert line.startswith("ObjectiveNotImportableWarning True objective 't_halved' is defined in __main__")
    assert "no other process can load this model" in line and "importable module" in line
    assert issubclass(ObjectiveNotImportableWarning, UserWarning)
    # the warning is true: this process cannot load it, and says so in one line
    with pytest.raises(ValueError, match="'t_halved' is not registered in this process") as e:
        RiskLambdaMART.load(tmp_path / "model")
    assert "\n" not in str(e.value)


# ------------------------------------------------------------------ a folder's module is not imported
# Issue 27, item 2: a folder whose risk_lambdamart.json names objective_module="dl_model.payload", shipped
# beside a dl_model/payload.py, ran the payload on load. A folder's module is imported only when the
# caller opts in (trust_remote_code=True), or is not needed because the caller imported it first.
PAYLOAD = """
from pathlib import Path

import numpy as np

import pyterrier_risk as ptr

Path({marker!r}).write_text("ran")


@ptr.register_objective
class Payload(ptr.Objective):
    name = "t_payload"
    label = "Payload"
    baseline = "none"

    def weights(self, r):
        return np.ones(len(r.model))
"""

LOAD_PAYLOAD = """
import sys

import pyterrier as pt

from pyterrier_risk import RiskLambdaMART

how, folder = sys.argv[1], sys.argv[2]
try:
    if how == "plain":
        model = RiskLambdaMART.load(folder)
    elif how == "artifact":
        model = pt.Artifact.load(folder)
    elif how == "trusted":
        model = RiskLambdaMART.load(folder, trust_remote_code=True)
    elif how == "artifact-trusted":
        model = pt.Artifact.load(folder, trust_remote_code=True)
    else:  # the caller imports the module itself: the objective is registered, nothing to import
        import dl_model.payload  # noqa: F401
        model = RiskLambdaMART.load(folder)
except ValueError as e:
    print("ERROR", str(e))
else:
    print("LOADED", model.objective, model.booster_.num_trees())
"""


@pytest.fixture
def payload_folder(saved, tmp_path):
    """A model folder naming ``objective_module="dl_model.payload"``, shipped with that module."""
    folder = tmp_path / "model"
    shutil.copytree(saved, folder)
    meta_file = folder / "risk_lambdamart.json"
    meta = json.loads(meta_file.read_text())
    meta["params"].update(objective="t_payload", objective_module="dl_model.payload")
    meta_file.write_text(json.dumps(meta))
    (tmp_path / "dl_model").mkdir()
    (tmp_path / "dl_model" / "__init__.py").write_text("")
    (tmp_path / "dl_model" / "payload.py").write_text(PAYLOAD.format(marker=str(tmp_path / "MARKER")))
    return folder


def load_payload(folder: Path, how: str) -> str:
    """Load ``folder`` in a fresh process whose cwd and sys.path hold the folder's parent (and dl_model)."""
    env = {**ENV, "PYTHONPATH": os.pathsep.join([str(REPO), str(folder.parent)])}
    result = subprocess.run(
        [sys.executable, "-c", LOAD_PAYLOAD, how, str(folder)], capture_output=True, text=True, env=env,
        cwd=folder.parent, timeout=300,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr[-2000:]
    [line] = result.stdout.splitlines()
    return line


@pytest.mark.parametrize("how", ["plain", "artifact"])
def test_a_folder_never_imports_its_module_without_the_opt_in(payload_folder, how):
    line = load_payload(payload_folder, how)
    assert not (payload_folder.parent / "MARKER").exists()  # the payload never ran
    assert line.startswith("ERROR ") and "'dl_model.payload'" in line and "'t_payload'" in line
    assert "trust_remote_code=True" in line and "import dl_model.payload yourself" in line


@pytest.mark.slow
@pytest.mark.parametrize("how", ["trusted", "artifact-trusted"])
def test_with_the_opt_in_the_folders_module_is_imported(payload_folder, how):
    assert load_payload(payload_folder, how) == "LOADED t_payload 3"
    assert (payload_folder.parent / "MARKER").read_text() == "ran"


@pytest.mark.slow
def test_an_objective_the_caller_imported_loads_without_the_opt_in(payload_folder):
    assert load_payload(payload_folder, "imported") == "LOADED t_payload 3"


def test_the_opt_in_is_a_bool_and_a_bad_module_name_is_refused(payload_folder):
    with pytest.raises(TypeError, match="trust_remote_code must be True or False"):
        RiskLambdaMART.load(payload_folder, trust_remote_code="yes")
    meta_file = payload_folder / "risk_lambdamart.json"
    meta = json.loads(meta_file.read_text())
    meta["params"]["objective_module"] = "../dl_model/payload"
    meta_file.write_text(json.dumps(meta))
    with pytest.raises(ValueError, match="'objective_module' must be a dotted module name"):
        RiskLambdaMART.load(payload_folder, trust_remote_code=True)
    assert not (payload_folder.parent / "MARKER").exists()
