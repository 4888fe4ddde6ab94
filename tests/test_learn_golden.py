"""Golden files of a small MQ2008 learning study: the output folder byte for byte (issue 30).

The study (``STUDY``: MQ2008's S5 partition split into 3 folds, a single and three multiple feature
baselines, U-CRO, T-FARO, T*-FARO and GeoRisk at α 1 and 5, seeds 1 and 2, one worker) runs through
``pyterrier-risk learn --out``; the sha256 of every file it writes, and of the tables it prints, must
equal ``tests/data/learn_golden.json``. The digests there were made by the code before the engine
moved to its own layer (commit 93c19cc) and checked equal after it, so a refactor of the engine that
changes one byte of the results fails here, naming the file.

What is not compared as written, and why:

* ``tasks/`` (the task store) is a cache, not a result: each entry holds the task's wall time and
  memory (``resources``), which differ on every run. ``.lock`` is the folder's (empty) lock file.
* ``settings.json`` holds the data file's absolute path and the package version: both are replaced
  by ``<DATA>`` and ``<VERSION>`` before hashing (the rest of its bytes are compared).
* ``manifest.json`` lists ``settings.json``'s size and sha256, so those two are replaced by
  ``<SIZE>`` and ``<SHA256>`` in its entry for ``settings.json``; every other byte is compared, and
  each file it lists is checked against the file itself.

Regenerate (only when the results are meant to change, and say why in the commit)::

    PYTHONPATH=$PWD python tests/test_learn_golden.py --write
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import re
import sys
from contextlib import redirect_stdout
from pathlib import Path

import pytest

GOLDEN = Path(__file__).parent / "data" / "learn_golden.json"
#: the study's arguments after ``pyterrier-risk learn DATA`` (DATA: MQ2008's S5.txt.gz)
STUDY = ["--folds", "3", "--baseline", "25", "--baselines", "11", "25", "39",
         "--objective", "urisk", "tfaro", "tfaro_star", "georisk", "--alpha", "1", "5", "--seeds", "1", "2",
         "--rounds", "50", "--workers", "1", "--no-progress"]  # fmt: skip
SKIPPED = ("tasks/", ".lock")  # a cache with wall times, and the empty lock file (see the docstring)


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _settings_text(raw: bytes, data: Path) -> bytes:
    """``settings.json`` with the data path and the version replaced (they depend on the machine)."""
    from pyterrier_risk import __version__

    text = raw.decode("utf-8")
    text = text.replace(json.dumps(str(data.resolve()))[1:-1], "<DATA>")
    text = text.replace(f'"version": "{__version__}"', '"version": "<VERSION>"')
    return text.encode("utf-8")


def _manifest_text(raw: bytes, folder: Path) -> bytes:
    """``manifest.json`` with ``settings.json``'s size and sha256 replaced; every entry checked first."""
    for entry in json.loads(raw)["files"]:
        body = (folder / entry["path"]).read_bytes()
        assert (entry["size"], entry["sha256"]) == (len(body), _sha(body)), entry["path"]
    text = raw.decode("utf-8")
    text, n = re.subn(r'("path": "settings\.json",\s*"size": )\d+(,\s*"sha256": ")[0-9a-f]{64}"',
                      r'\1<SIZE>\2<SHA256>"', text)
    assert n == 1, "manifest.json has no entry for settings.json"
    return text.encode("utf-8")


def digests(data: Path, out: Path) -> dict[str, str]:
    """Run the study into ``out``; the sha256 of its printed tables and of each file it wrote."""
    from pyterrier_risk.cli import main

    printed = io.StringIO()
    with redirect_stdout(printed):
        status = main(["learn", str(data), *STUDY, "--out", str(out)])
    assert status == 0
    found = {"<stdout>": _sha(printed.getvalue().encode("utf-8"))}
    for path in sorted(p for p in out.rglob("*") if p.is_file()):
        name = path.relative_to(out).as_posix()
        if name.startswith(SKIPPED):
            continue
        raw = path.read_bytes()
        if name == "settings.json":
            raw = _settings_text(raw, data)
        elif name == "manifest.json":
            raw = _manifest_text(raw, out)
        found[name] = _sha(raw)
    return found


@pytest.mark.slow
def test_learn_study_files_are_the_golden_ones(shared_data: Path, tmp_path: Path) -> None:
    data = shared_data / "letor4-mq2008" / "S5.txt.gz"
    if not data.is_file():
        pytest.skip(f"MQ2008 not found at {data}")
    golden = json.loads(GOLDEN.read_text(encoding="utf-8"))
    assert golden["study"] == STUDY, "the study changed: regenerate the digests (see the docstring)"
    found = digests(data, tmp_path / "out")
    missing = sorted(set(golden["digests"]) - set(found))
    extra = sorted(set(found) - set(golden["digests"]))
    assert not missing and not extra, f"files missing: {missing}; files not in the golden set: {extra}"
    differ = [name for name, digest in golden["digests"].items() if found[name] != digest]
    assert not differ, f"these files differ from the golden ones: {', '.join(differ)}"


def _write() -> None:  # pragma: no cover - run by hand (see the docstring)
    import tempfile

    default = Path(__file__).resolve().parents[2] / "shared" / "data"
    root = Path(os.environ.get("PYTERRIER_RISK_DATA", default))
    data = root / "letor4-mq2008" / "S5.txt.gz"
    with tempfile.TemporaryDirectory() as tmp:
        found = digests(data, Path(tmp) / "out")
    from pyterrier_risk.data import atomic_write

    with atomic_write(GOLDEN) as fh:
        fh.write(json.dumps({"study": STUDY, "digests": found}, indent=1) + "\n")
    print(f"wrote {len(found)} digests to {GOLDEN}")


if __name__ == "__main__":  # pragma: no cover
    if sys.argv[1:] != ["--write"]:
        sys.exit("usage: python tests/test_learn_golden.py --write")
    _write()
