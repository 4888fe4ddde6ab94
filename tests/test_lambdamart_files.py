"""Saved RiskLambdaMART folders: damaged files give one-line errors, never an abort (issue 14, item 8)."""

from __future__ import annotations

import json
import re

import pytest
from helpers import FAST, run_python

from pyterrier_risk import RiskLambdaMART
from pyterrier_risk.learning._modeltext import check_model_text


@pytest.fixture(scope="module")
def saved(synthetic_data, tmp_path_factory):
    """A model saved as version 0.1 did: no model_sha256 in its JSON (still format_version 1)."""
    res, qrels = synthetic_data
    folder = tmp_path_factory.mktemp("v01") / "model"
    model = RiskLambdaMART("lambdarank", num_boost_round=5, verbose=False, **{**FAST, "num_leaves": 5})
    model.fit(res, qrels).save(folder)
    meta = json.loads((folder / "risk_lambdamart.json").read_text())
    del meta["model_sha256"]
    (folder / "risk_lambdamart.json").write_text(json.dumps(meta))
    return folder


@pytest.mark.slow
def test_truncated_model_without_digest_raises_instead_of_aborting(saved, tmp_path):
    """Cut model.txt at many points; each load must raise ValueError in a process that survives."""
    result = run_python(f"""
        import shutil
        from pathlib import Path
        from pyterrier_risk import RiskLambdaMART
        src = Path({str(saved)!r})
        text = (src / "model.txt").read_text()
        cuts = sorted({{*range(0, len(text), max(1, len(text) // 97)), *(text.find(k) + 1 for k in
                       ("Tree=1", "end of trees", "parameters:", "end of parameters", "pandas"))}})
        refused = 0
        for cut in cuts:
            folder = Path({str(tmp_path)!r}) / f"cut{{cut}}"
            shutil.copytree(src, folder)
            (folder / "model.txt").write_text(text[:cut])
            try:
                RiskLambdaMART.load(folder)
            except ValueError as e:
                assert "model.txt is not a complete LightGBM model" in str(e) or "not UTF-8" in str(e), e
                refused += 1
        print("refused", refused, "of", len(cuts))
    """)
    assert result.returncode == 0, result.stderr[-2000:]  # -6 (SIGABRT) / -11 before the check
    refused, total = (int(w) for w in result.stdout.split()[1::2])
    assert refused == total > 90


@pytest.mark.slow
def test_edited_model_text_is_refused_or_loads_never_crashes(saved, tmp_path):
    """Random line deletions and digit edits in a 0.1 folder: ValueError or a working model."""
    result = run_python(f"""
        import random, shutil
        from pathlib import Path
        import numpy as np
        from pyterrier_risk import RiskLambdaMART
        src = Path({str(saved)!r})
        lines = (src / "model.txt").read_text().split("\\n")
        end = lines.index("end of trees")
        rng = random.Random(7)
        outcomes = {{"refused": 0, "loaded": 0}}
        for k in range(150):
            edited = list(lines)
            i = rng.randrange(0, end)
            if k % 2:
                del edited[i]
            else:
                edited[i] = "".join(str(rng.randrange(10)) if c.isdigit() and rng.random() < 0.3 else c
                                    for c in edited[i])
            folder = Path({str(tmp_path)!r}) / f"e{{k}}"
            shutil.copytree(src, folder)
            (folder / "model.txt").write_text("\\n".join(edited))
            try:
                model = RiskLambdaMART.load(folder)
                model.booster_.predict(np.random.default_rng(0).random((20, 4)))
                outcomes["loaded"] += 1
            except ValueError:
                outcomes["refused"] += 1
        print(outcomes["refused"], outcomes["loaded"])
    """)
    assert result.returncode == 0, result.stderr[-2000:]
    refused, loaded = map(int, result.stdout.split())
    assert refused + loaded == 150 and refused > 30


def test_check_model_text_names_the_problem(saved):
    text = (saved / "model.txt").read_text()
    assert check_model_text(text, "m.txt") == 5
    cases = {
        re.sub("tree_sizes=.*\n", "", text): "the header has no tree_sizes",
        text.replace("tree_sizes=", "tree_size="): "the header has a line LightGBM does not write",
        text.replace("left_child=", "left_child=0 ", 1): "left_child has 5 values, expected 4",
        text.replace("num_leaves=5", "num_leaves=6", 1): "leaf_value has 5 values, expected 6",
        text.replace("Tree=1\n", "Tree=7\n"): "tree 1 does not start where tree_sizes says",
        text.replace("end of trees", "end of tree"): "'end of trees' does not follow tree 4",
        text[: text.rfind("pandas_categorical")]: "pandas_categorical",
        "garbage": "does not start with LightGBM's 'tree' line",
    }
    for bad, message in cases.items():
        with pytest.raises(ValueError, match=f"m.txt is not a complete LightGBM model .*{message}"):
            check_model_text(bad, "m.txt")


def edit_tree(text: str, tree: int, key: str, values: str) -> str:
    """``text`` with ``key``'s line of tree ``tree`` replaced, and the header's tree_sizes updated."""
    head, _, rest = text.partition("tree_sizes=")
    sizes_line, _, body = rest.partition("\n")
    sizes = [int(v) for v in sizes_line.split()]
    start = body.index("Tree=0")
    blocks, pos = [], start
    for size in sizes:
        blocks.append(body[pos : pos + size])
        pos += size
    lines = blocks[tree].split("\n")
    lines = [f"{key}={values}" if line.startswith(f"{key}=") else line for line in lines]
    blocks[tree] = "\n".join(lines)
    sizes = " ".join(str(len(b)) for b in blocks)
    return f"{head}tree_sizes={sizes}\n{body[:start]}{''.join(blocks)}{body[pos:]}"


def test_a_cycle_or_a_bad_index_among_the_nodes_is_refused(saved):
    text = (saved / "model.txt").read_text()
    assert check_model_text(edit_tree(text, 1, "num_cat", "0"), "m.txt") == 5  # the editor keeps it valid
    for key, values, message in (
        ("left_child", "0 -2 -3 -4", "do not form a tree"),  # the root is its own child: a loop
        ("right_child", "1 2 4 -5", "not an integer in \\[-5, 3\\]"),  # node 4 does not exist
        ("split_feature", "0 0 0 9", "not an integer in \\[0, 3\\]"),  # 4 features
        ("leaf_value", "1 2 3 4 x", "holds 'x', not a number"),
    ):
        with pytest.raises(ValueError, match=message):
            check_model_text(edit_tree(text, 1, key, values), "m.txt")


def test_saved_models_pass_the_check(synthetic_data, tmp_path):
    """Plain, linear and one-split trees: what LightGBM writes passes."""
    res, qrels = synthetic_data
    for i, params in enumerate(
        ({}, {"linear_tree": True}, {"num_leaves": 2}, {"max_depth": 1, "num_leaves": 3})
    ):
        model = RiskLambdaMART("urisk", baseline=1, num_boost_round=3, verbose=False, **{**FAST, **params})
        model.fit(res, qrels).save(tmp_path / str(i))
        assert RiskLambdaMART.load(tmp_path / str(i)).booster_.num_trees() >= 1


# ------------------------------------------------------------------ a tampered risk_lambdamart.json
@pytest.mark.parametrize(
    "edit, error, message",
    [
        (lambda m: "{not json", ValueError, r"is not valid JSON \(Expecting property name"),
        (lambda m: "[1, 2]", ValueError, "is not a pyterrier-risk/RiskLambdaMART v1 file"),
        (lambda m: {**m, "params": None}, ValueError, "'params' must be an object with the 'objective'"),
        (lambda m: {**m, "params": {"alpha": 1.0}}, ValueError, "'params' must be an object"),
        (lambda m: {k: v for k, v in m.items() if k != "num_features"}, ValueError, "'num_features' must be"),
        (lambda m: {**m, "num_trees": "5"}, ValueError, "'num_trees' must be an integer"),
        (lambda m: {**m, "num_trees": 4}, ValueError, "model.txt has 5 trees, risk_lambdamart.json says 4"),
        (lambda m: {**m, "num_features": 7}, ValueError, "4 features .max_feature_idx., its parameters 7"),
        (lambda m: {**m, "model_sha256": 12}, ValueError, "'model_sha256' must be 64 hex digits"),
        (lambda m: {**m, "params": {**m["params"], "cutoff": "10"}}, TypeError,
         "the stored parameters .* are refused: cutoff must be an integer"),
    ],
)  # fmt: skip
def test_a_tampered_parameter_file_gives_a_one_line_error(saved, tmp_path, edit, error, message):
    import shutil

    folder = tmp_path / "m"
    shutil.copytree(saved, folder)
    meta = json.loads((folder / "risk_lambdamart.json").read_text())
    edited = edit(meta)
    (folder / "risk_lambdamart.json").write_text(edited if isinstance(edited, str) else json.dumps(edited))
    with pytest.raises(error, match=message) as caught:
        RiskLambdaMART.load(folder)
    assert "\n" not in str(caught.value)


def test_binary_or_missing_files_give_one_line_errors(saved, tmp_path):
    import shutil

    folder = tmp_path / "m"
    shutil.copytree(saved, folder)
    (folder / "model.txt").write_bytes(b"\xff\xfe\x00tree")
    with pytest.raises(ValueError, match="model.txt is not a LightGBM text model .not UTF-8"):
        RiskLambdaMART.load(folder)
    (folder / "model.txt").unlink()
    with pytest.raises(FileNotFoundError, match="model.txt not found: the saved model is incomplete"):
        RiskLambdaMART.load(folder)
    (folder / "risk_lambdamart.json").write_bytes(b"\xff\xfe")
    with pytest.raises(ValueError, match="risk_lambdamart.json is not JSON text"):
        RiskLambdaMART.load(folder)
