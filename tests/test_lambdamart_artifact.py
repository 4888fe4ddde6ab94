"""A saved RiskLambdaMART is a PyTerrier artifact (issue 16, item 1).

The entry points are read from pyproject.toml and handed to PyTerrier's own lookup, so the tests
check the declared protocol offline, whether or not the installed metadata is current.
"""

from __future__ import annotations

import functools
import http.server
import json
import shutil
import sys
import threading
from pathlib import Path

import pandas as pd
import pyterrier as pt
import pytest
from helpers import FAST, REPO, declared_entry_points

from pyterrier_risk import RiskLambdaMART, learning


@pytest.fixture
def our_entry_points(monkeypatch):
    """PyTerrier's entry-point lookup sees pyproject's declarations (in place of stale installed ones)."""
    declared = declared_entry_points()
    original = pt.utils.entry_points

    def entry_points(group):
        ours = declared.get(group, [])
        names = {ep.name for ep in ours}
        return [*ours, *(ep for ep in original(group) if ep.name not in names)]

    monkeypatch.setattr(pt.utils, "entry_points", entry_points)


@pytest.fixture(scope="module")
def model(synthetic_data):
    res, qrels = synthetic_data
    return RiskLambdaMART("urisk", alpha=2.0, baseline=1, num_boost_round=4, verbose=False, **FAST).fit(
        res, qrels
    )


def scores(model, res):
    return model.transform(res)["score"].to_numpy()


def test_save_writes_pyterriers_metadata(model, tmp_path):
    model.save(tmp_path / "m")
    meta = json.loads((tmp_path / "m" / "pt_meta.json").read_text())
    assert meta == {"type": "ltr_model", "format": "risk_lambdamart", "package_hint": "pyterrier-risk"}
    assert pt.inspect.artifact_type_format(model) == ("ltr_model", "risk_lambdamart")
    assert model.path == tmp_path / "m" and RiskLambdaMART.load(tmp_path / "m").path == tmp_path / "m"
    assert "ltr_model.risk_lambdamart" in {ep.name for ep in declared_entry_points()["pyterrier.artifact"]}


def test_the_entry_points_name_public_objects():
    """pyproject points PyTerrier at names the learning package exports, not at a private module."""
    targets = [ep for eps in declared_entry_points().values() for ep in eps if ":" in ep.value]
    assert {ep.value for ep in targets} == {
        "pyterrier_risk.learning:load_artifact", "pyterrier_risk.learning:artifact_metadata",
        "pyterrier_risk.learning:load_neural_artifact",  # RiskNeuralRanker's (tests/test_neural_ranker.py)
    }  # fmt: skip
    for ep in targets:
        module, _, name = ep.value.partition(":")
        assert not any(part.startswith("_") for part in module.split(".")), ep.value
        assert name in learning.__all__ and ep.load() is getattr(learning, name)


def test_artifact_load_finds_the_model(our_entry_points, model, synthetic_data, tmp_path):
    res, _ = synthetic_data
    model.save(tmp_path / "m")
    loaded = pt.Artifact.load(str(tmp_path / "m"))
    assert isinstance(loaded, RiskLambdaMART) and repr(loaded) == repr(model)
    pd.testing.assert_frame_equal(loaded.transform(res), model.transform(res))


def test_folders_saved_before_pt_meta_still_load(our_entry_points, model, synthetic_data, tmp_path):
    """A 0.1/0.2 folder (no pt_meta.json; 0.1: no digest either) loads both ways."""
    res, _ = synthetic_data
    model.save(tmp_path / "old")
    (tmp_path / "old" / "pt_meta.json").unlink()
    meta = json.loads((tmp_path / "old" / "risk_lambdamart.json").read_text())
    del meta["model_sha256"]
    (tmp_path / "old" / "risk_lambdamart.json").write_text(json.dumps(meta))
    for loaded in (RiskLambdaMART.load(tmp_path / "old"), pt.Artifact.load(str(tmp_path / "old"))):
        assert (scores(loaded, res) == scores(model, res)).all()
    (tmp_path / "other").mkdir()
    with pytest.raises(ValueError, match="No implementation found"):
        pt.Artifact.load(str(tmp_path / "other"))


@pytest.fixture
def http_folder(tmp_path):
    """A local HTTP server (127.0.0.1, no network) serving ``tmp_path / 'www'``."""
    www = tmp_path / "www"
    www.mkdir()
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(www))
    handler.log_message = lambda *args: None
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield www, f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    thread.join()


def test_package_round_trip_through_from_url(
    our_entry_points, model, synthetic_data, tmp_path, http_folder, monkeypatch
):
    res, _ = synthetic_data
    www, url = http_folder
    monkeypatch.setenv("PYTERRIER_HOME", str(tmp_path / "pt_home"))
    model.save(tmp_path / "m")
    package = model.build_package(str(www / "model.tar.lz4"), verbose=False)
    listing = json.loads(Path(package + ".json").read_text())
    assert {c["path"] for c in listing["contents"]} == {"model.txt", "risk_lambdamart.json", "pt_meta.json"}
    through_pt = pt.Artifact.from_url(f"{url}/model.tar.lz4")
    assert isinstance(through_pt, RiskLambdaMART) and (scores(through_pt, res) == scores(model, res)).all()
    shutil.rmtree(tmp_path / "pt_home")  # download again, through the class this time
    through_class = RiskLambdaMART.from_url(
        f"{url}/model.tar.lz4", expected_sha256=listing["expected_sha256"]
    )
    assert (scores(through_class, res) == scores(model, res)).all()


PAYLOAD = """
from pathlib import Path

import numpy as np

import pyterrier_risk as ptr

Path({marker!r}).write_text("ran")


@ptr.register_objective
class Downloaded(ptr.Objective):
    name = "t_downloaded"
    label = "Downloaded"
    baseline = "none"

    def weights(self, r):
        return np.ones(len(r.model))
"""


def test_a_downloaded_folder_imports_its_module_only_with_trust_remote_code(
    our_entry_points, model, synthetic_data, tmp_path, http_folder, monkeypatch, clean_registry
):
    """Issue 27, item 2, through from_url: the objective's module is imported only on request."""
    res, _ = synthetic_data
    www, url = http_folder
    monkeypatch.setenv("PYTERRIER_HOME", str(tmp_path / "pt_home"))
    model.save(tmp_path / "m")
    meta_file = tmp_path / "m" / "risk_lambdamart.json"
    meta = json.loads(meta_file.read_text())
    meta["params"].update(objective="t_downloaded", objective_module="dl_model_url.payload", baseline="score")
    meta_file.write_text(json.dumps(meta))
    package = (tmp_path / "lib" / "dl_model_url")
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "payload.py").write_text(PAYLOAD.format(marker=str(tmp_path / "MARKER")))
    monkeypatch.syspath_prepend(str(tmp_path / "lib"))
    for name in ("dl_model_url", "dl_model_url.payload"):  # imported by the test: forgotten after it
        monkeypatch.setitem(sys.modules, name, None)
        monkeypatch.delitem(sys.modules, name)
    model.path = tmp_path / "m"
    model.build_package(str(www / "model.tar.lz4"), verbose=False)
    with pytest.raises(ValueError, match="trust_remote_code=True") as e:
        pt.Artifact.from_url(f"{url}/model.tar.lz4")
    assert "'dl_model_url.payload'" in str(e.value) and "\n" not in str(e.value)
    assert not (tmp_path / "MARKER").exists()
    loaded = RiskLambdaMART.from_url(f"{url}/model.tar.lz4", trust_remote_code=True)
    assert (tmp_path / "MARKER").exists() and loaded.objective == "t_downloaded"
    assert (scores(loaded, res) == scores(model, res)).all()


def test_an_unsaved_model_cannot_be_packaged(model):
    fresh = RiskLambdaMART("urisk", verbose=False)
    assert fresh.path is pt.Artifact.NO_PATH
    with pytest.raises(AssertionError, match="package cannot be built for artifacts without a path"):
        fresh.build_package()


# ---------------------------------------------------------------------- documented defaults and files
def test_docs_list_every_key_save_writes(model, tmp_path):
    """docs/lambdamart.md's description of risk_lambdamart.json and pt_meta.json names their keys."""
    import re

    docs = (REPO / "docs" / "lambdamart.md").read_text()
    model.save(tmp_path / "m")
    for name in ("risk_lambdamart.json", "pt_meta.json"):
        described = re.search(rf"\* `{re.escape(name)}`:\s*`(\{{.*?\}})`", docs, re.S)
        assert described, name
        keys = set(re.findall(r'"(\w+)":', described.group(1)))
        assert keys == set(json.loads((tmp_path / "m" / name).read_text())), name
    assert "model_sha256" in docs


def test_docs_state_the_constructors_defaults():
    import inspect

    docs = (REPO / "docs" / "lambdamart.md").read_text()
    defaults = inspect.signature(RiskLambdaMART.__init__).parameters
    assert defaults["objective"].default == "georisk" and defaults["alpha"].default == 1.0
    assert defaults["baseline"].default == "score" and defaults["baselines"].default is None
    assert "trains **GeoRisk at α = 1 against one baseline, the input's\n`score` column**" in docs
