"""A ``model.txt`` whose header lies is refused, never scored wrongly or crashed on (issue 21, item 1).

``model_sha256`` only says that the two files come from one writer: a downloaded folder's writer may
have edited the header and recomputed the digest. LightGBM trusts the header: ``num_tree_per_iteration``
of 3 made scoring read trees that do not exist (malloc aborts, segfaults), 2 scored silently
differently, ``num_class=3`` failed later with a numpy error. The fuzz edits header fields,
recomputes the digest, and requires either a one-line ValueError naming the file or scores equal to
the original's. LightGBM only ever sees a text in a subprocess, so a crash fails the test instead of
killing pytest.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import textwrap
from collections import Counter
from pathlib import Path

import pytest
from helpers import FAST, run_python, synthetic
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pyterrier_risk import RiskLambdaMART
from pyterrier_risk.learning._modeltext import check_model_text

FUZZ = settings(deadline=None, max_examples=250, suppress_health_check=[HealthCheck.too_slow])
KEYS = ["version", "num_class", "num_tree_per_iteration", "label_index", "max_feature_idx", "objective",
        "feature_names", "feature_infos", "tree_sizes", "average_output", "Tree", "tree", "num_leaves",
        "x"]  # fmt: skip
INTS = st.one_of(
    st.sampled_from([-1, 0, 1, 2, 3, 4, 5, 10, 650, 2**31 - 1, 2**31, 2**64]), st.integers(-3, 800)
).map(str)
TOKENS = st.one_of(
    INTS,
    st.sampled_from(["", " ", "+1", "01", "1.0", "1e3", "nan", "Column_0", "[0:1]", "none", "a=b", "\t1", "١",
                     "lambdarank", "binary sigmoid:1", "regression", "v3"]),  # fmt: skip
    st.text(alphabet="0123456789 -+=.:[]xe\t", max_size=8),
)


@pytest.fixture(scope="module")
def saved(tmp_path_factory):
    """A model as save() writes it today (with its digest): 5 trees on 4 features."""
    res, qrels = synthetic()
    folder = tmp_path_factory.mktemp("header") / "model"
    RiskLambdaMART("lambdarank", num_boost_round=5, verbose=False, **{**FAST, "num_leaves": 5}).fit(
        res, qrels
    ).save(folder)
    return folder


def with_text(src: Path, folder: Path, text: str) -> Path:
    """A copy of the saved folder ``src`` with ``text`` as its model and the digest recomputed to match."""
    shutil.copytree(src, folder)
    (folder / "model.txt").write_text(text, encoding="utf-8")
    meta = json.loads((folder / "risk_lambdamart.json").read_text())
    meta["model_sha256"] = hashlib.sha256(text.encode("utf-8")).hexdigest()
    (folder / "risk_lambdamart.json").write_text(json.dumps(meta))
    return folder


def split_header(text: str) -> tuple[list[str], str]:
    """The header's lines (after ``tree``, up to the blank line before ``Tree=0``) and the rest."""
    end = text.index("\n\nTree=0")
    return text[len("tree\n") : end].split("\n"), text[end:]


SCORE_ALL = """
    import sys
    import numpy as np
    from pyterrier_risk import RiskLambdaMART
    x = np.random.default_rng(3).random((60, 4)); x[::7, 1] = np.nan
    reference = RiskLambdaMART.load(sys.argv[1]).booster_.predict(x)
    for folder in sys.argv[2:]:
        print(folder, end=" ", flush=True)  # a crash shows which folder caused it
        try:
            model = RiskLambdaMART.load(folder)
            scores = model.booster_.predict(x, num_iteration=model.best_iteration_)
        except ValueError as e:
            print("refused", len(str(e).splitlines()), folder in str(e), flush=True)
            continue
        print("same" if np.array_equal(scores, reference) else "DIFFERENT", flush=True)
"""


def score_in_subprocess(reference: Path, folders: list[Path]) -> list[str]:
    """Load and score each folder in one child process; one outcome line per folder."""
    result = run_python("import sys; sys.argv[1:] = " + repr([str(f) for f in (reference, *folders)])
                        + "\n" + textwrap.dedent(SCORE_ALL))  # fmt: skip
    assert result.returncode == 0, f"scoring crashed (status {result.returncode}): {result.stdout[-300:]}"
    lines = result.stdout.splitlines()
    assert len(lines) == len(folders)
    return [line.split(" ", 1)[1] for line in lines]


@st.composite
def header_edits(draw):
    """1 to 3 edits of the header's lines: a value, one token of a list, a line deleted or inserted."""
    ops = []
    for _ in range(draw(st.integers(1, 3))):
        kind = draw(st.sampled_from(["value", "token", "delete", "insert", "space"]))
        value = " ".join(draw(st.lists(TOKENS, min_size=1, max_size=5)))
        ops.append((kind, draw(st.integers(0, 20)), draw(st.sampled_from(KEYS)), value, draw(TOKENS)))
    return ops


def apply_edits(lines: list[str], ops) -> list[str]:
    lines = list(lines)
    for kind, at, key, value, token in ops:
        i = at % len(lines) if lines else 0
        if kind == "insert" or not lines:
            lines.insert(i, key if key == "average_output" else f"{key}={value}")
        elif kind == "delete":
            del lines[i]
        elif kind == "value":
            lines[i] = lines[i].partition("=")[0] + "=" + value
        elif kind == "space":
            lines[i] = lines[i] + " " if at % 2 else lines[i].replace("=", "= ", 1)
        else:  # one token of the line's list replaced, dropped or added
            head, sep, rest = lines[i].partition("=")
            tokens = rest.split(" ")
            j = at % len(tokens)
            tokens[j : j + 1] = [[token], [], [tokens[j], token]][at % 3]
            lines[i] = head + sep + " ".join(tokens)
    return lines


@pytest.mark.slow
def test_header_fuzz_refuses_or_scores_exactly_like_the_original(saved, tmp_path):
    text = (saved / "model.txt").read_text()
    lines, rest = split_header(text)
    accepted: dict[str, Path] = {}
    refused = []

    @FUZZ
    @given(header_edits())
    def edit(ops):
        edited = "tree\n" + "\n".join(apply_edits(lines, ops)) + rest
        try:  # pure Python: cannot crash
            check_model_text(edited, "/some/model.txt", num_features=4)
        except ValueError as e:
            assert "\n" not in str(e) and str(e).startswith("/some/model.txt is not a complete"), str(e)
            refused.append(edited)
        else:
            accepted.setdefault(edited, tmp_path / f"ok{len(accepted)}")
            return
        if len(refused) % 10 == 1:  # refused by the check, so load stops before LightGBM: safe here
            folder = with_text(saved, tmp_path / f"no{len(refused)}", edited)
            with pytest.raises(ValueError) as caught:
                RiskLambdaMART.load(folder)
            message = str(caught.value)
            assert "\n" not in message and message.startswith(f"{folder / 'model.txt'} is not"), message

    edit()
    folders = [with_text(saved, folder, edited) for edited, folder in accepted.items()]
    outcomes = score_in_subprocess(saved, folders)
    print(f"header fuzz: {len(refused)} refused by the check, {len(outcomes)} accepted:", Counter(outcomes))
    assert all(o == "same" or o == "refused 1 True" for o in outcomes), sorted(set(outcomes))
    # the fuzz explores both sides: harmless edits (a feature's name, label_index, the version) load
    assert outcomes.count("same") >= 5 and len(refused) >= 100, (len(outcomes), len(refused))


def header_with(text: str, key: str, value: str | None) -> str:
    """``text`` with header field ``key`` set to ``value`` (None: the line removed; added when missing)."""
    lines, rest = split_header(text)
    kept = [line for line in lines if line.partition("=")[0] != key]
    if value is not None:
        kept.insert(3, key if key == "average_output" else f"{key}={value}")
    return "tree\n" + "\n".join(kept) + rest


LIES = [
    ("num_tree_per_iteration", "2", "num_tree_per_iteration=2, where a ranking model has 1"),
    ("num_tree_per_iteration", "3", "num_tree_per_iteration=3"),
    ("num_tree_per_iteration", "5", "num_tree_per_iteration=5"),
    ("num_tree_per_iteration", "10", "num_tree_per_iteration=10"),
    ("num_class", "3", "num_class=3, where a ranking model has 1"),
    ("num_tree_per_iteration", None, "the header has no num_tree_per_iteration"),
    ("max_feature_idx", "9", "header says 10 features .max_feature_idx., its parameters 4"),
    ("feature_names", "a b c", "feature_names does not list 4 features"),
    ("feature_infos", "none none none none x", "feature_infos does not list 4 features"),
    ("objective", "binary sigmoid:1", "names objective 'binary sigmoid:1', which would transform the scores"),
    ("average_output", "", "average_output, which would divide the scores"),
    ("tree_sizes", "654 656 652 654", "'end of trees' does not follow tree 3"),
    ("label_index", "+0", "label_index holds '\\+0', not an integer"),
    ("num_leaves", "5", "a line LightGBM does not write: 'num_leaves=5'"),
]


@pytest.mark.slow
def test_each_lie_of_the_issue_gives_a_one_line_error_in_a_process_that_survives(saved, tmp_path):
    text = (saved / "model.txt").read_text()
    folders = [
        with_text(saved, tmp_path / str(i), header_with(text, k, v)) for i, (k, v, _) in enumerate(LIES)
    ]
    result = run_python(f"""
        from pyterrier_risk import RiskLambdaMART
        for folder in {[str(f) for f in folders]!r}:
            try:
                RiskLambdaMART.load(folder)
                print("LOADED")
            except ValueError as e:
                print(str(e).replace("\\n", "<newline>"))
    """)
    assert result.returncode == 0, result.stderr[-2000:]  # -6 (SIGABRT) / -11 before the header check
    messages = result.stdout.splitlines()
    for folder, (key, value, expected), message in zip(folders, LIES, messages, strict=True):
        assert message.startswith(f"{folder / 'model.txt'} is not a complete LightGBM model ("), message
        assert __import__("re").search(expected, message), (key, value, message)


# more lies the header check refuses: (key, value, the message's expected part)
MORE_LIES = [
    ("label_index", "0=1", "has more than one '='"),
    ("label_index", "0 1", "label_index is '0 1', not one integer"),
    ("tree_sizes", "654 x", "tree_sizes holds 'x', not an integer"),
    ("tree_sizes", "654 0", "tree_sizes holds 0, not a tree's size"),
]


@pytest.mark.parametrize(("key", "value", "expected"), [*LIES, *MORE_LIES])
def test_each_lie_is_refused_by_the_check_that_runs_before_lightgbm(saved, key, value, expected):
    """The header check itself, in this process (it reads the text; LightGBM never sees it): quick, so
    the README's test command covers it; the slow test above adds LightGBM's load in a subprocess."""
    text = header_with((saved / "model.txt").read_text(), key, value)
    with pytest.raises(ValueError, match=expected):
        check_model_text(text, "m", num_features=4)


def test_a_header_line_given_twice_is_refused(saved):
    lines, rest = split_header((saved / "model.txt").read_text())
    with pytest.raises(ValueError, match=f"the header gives {lines[0].partition('=')[0]} twice"):
        check_model_text("tree\n" + "\n".join([lines[0], *lines]) + rest, "m", num_features=4)


def test_a_truncated_legacy_file_names_the_file(saved, tmp_path):
    """No digest, cut inside the last line (``pandas_categorical:nul``): was a bare JSONDecodeError."""
    text = (saved / "model.txt").read_text()
    folder = with_text(saved, tmp_path / "cut", text.rstrip("\n")[:-1])
    meta = json.loads((folder / "risk_lambdamart.json").read_text())
    del meta["model_sha256"]  # as 0.1 saved it
    (folder / "risk_lambdamart.json").write_text(json.dumps(meta))
    assert text.rstrip("\n").endswith("pandas_categorical:null")
    with pytest.raises(ValueError, match="pandas_categorical line 'pandas_categorical:nul' is not JSON") as e:
        RiskLambdaMART.load(folder)  # refused before LightGBM: safe here
    assert str(e.value).startswith(f"{folder / 'model.txt'} is not a complete LightGBM model")
    assert "\n" not in str(e.value)


def test_what_lightgbm_writes_passes_the_header_check(saved):
    """The check is not stricter than LightGBM's writer: the saved text, and its header reordered, pass."""
    text = (saved / "model.txt").read_text()
    assert check_model_text(text, "m", num_features=4) == 5
    lines, rest = split_header(text)
    assert check_model_text("tree\n" + "\n".join(reversed(lines)) + rest, "m", num_features=4) == 5
