"""A structural check of LightGBM's text model before LightGBM reads it.

LightGBM parses a model string in native code, trusting what it says: a truncated or edited
``model.txt`` makes it read past the end of the text or index arrays out of bounds, and the process
aborts (SIGABRT) or crashes, where Python cannot catch anything. ``RiskLambdaMART.load`` checks the
SHA-256 that :meth:`~pyterrier_risk.RiskLambdaMART.save` records, but a digest is only as good as
whoever wrote it (a model is something people download), and folders written before 0.2 carry none.
So this module checks, in Python, everything LightGBM 4's reader and scorer take on trust:

* the header, line by line as LightGBM reads it: only the fields LightGBM writes, each once, in
  LightGBM's own spelling; ``num_class`` and ``num_tree_per_iteration`` are 1 (a ranking model; other
  values index trees that do not exist), ``max_feature_idx`` matches ``feature_names``,
  ``feature_infos`` and the saved feature count, no ``objective`` (the model's scores would be
  transformed by it; RiskLambdaMART trains with its own), no ``average_output`` (random forest, which
  takes no custom objective), and ``tree_sizes`` gives one size per tree that follows;
* each tree at its offset with the arrays of the lengths its ``num_leaves`` implies, child and
  feature indices in range, and the ``end of trees`` marker;
* the parameters block's end and the ``pandas_categorical`` line, as LightGBM's Python package
  finds and decodes it.

A text that passes is one LightGBM reads within its bounds and scores as its trees say.
"""

from __future__ import annotations

import json
import math
import re

__all__ = ["check_model_text"]

_INT32_MAX = 2**31 - 1
# arrays of a tree of L leaves, by the length LightGBM's reader expects (L - 1 or L)
_NODE_ARRAYS = ("split_gain", "internal_value", "internal_weight", "internal_count")
_LEAF_ARRAYS = ("leaf_weight", "leaf_count")
# the header's fields, as LightGBM 4 writes them (GBDT::SaveModelToString)
_HEADER_KEYS = frozenset({
    "version", "num_class", "num_tree_per_iteration", "label_index", "max_feature_idx", "objective",
    "average_output", "feature_names", "feature_infos", "tree_sizes",
})  # fmt: skip
_HEADER_REQUIRED = ("num_class", "num_tree_per_iteration", "label_index", "max_feature_idx",
                    "feature_names", "feature_infos", "tree_sizes")  # fmt: skip
_NUMBER = r"[-+]?(?:\d+\.?\d*(?:[eE][-+]?\d+)?|inf|nan)"
# a numerical feature's [min:max], an unused one's none, a categorical one's values a:b:c
_FEATURE_INFO = re.compile(rf"none|\[{_NUMBER}:{_NUMBER}\]|-?\d+(?::-?\d+)*")


class _Bad(ValueError):
    """One structural problem, raised with the file's name by :func:`check_model_text`."""


def check_model_text(text: str, source: str, *, num_features: int | None = None) -> int:
    """Raise ValueError unless ``text`` is a LightGBM text model LightGBM can read within its bounds.

    Args:
        text: the content of ``model.txt``.
        source: the file's name, for the message.
        num_features: the number of features the model must have (None: any).

    Returns:
        The number of trees.
    """
    try:
        return _check(text, num_features)
    except _Bad as e:
        raise ValueError(
            f"{source} is not a complete LightGBM model ({e}): truncated or edited? Save the model again"
        ) from None


def _check(text: str, num_features: int | None) -> int:
    if not text.startswith("tree\n"):
        raise _Bad("it does not start with LightGBM's 'tree' line")
    for char, name in (("\0", "a NUL character"), ("\r", "a carriage return")):
        if char in text:  # LightGBM's reader stops at the one and splits lines at the other
            raise _Bad(f"it holds {name}, which LightGBM never writes")
    first = text.find("\nTree=")
    if first < 0:
        raise _Bad("no tree found")
    sizes, n_features = _check_header(text[: first + 1], num_features)
    start = first + 1
    for i, size in enumerate(sizes):
        block = text[start : start + size]
        if len(block) < size:
            raise _Bad(f"tree {i} of {len(sizes)} ends after the end of the file")
        _check_tree(block, i, n_features)
        start += size
    if not text.startswith("end of trees\n", start):
        raise _Bad(f"'end of trees' does not follow tree {len(sizes) - 1}")
    # LightGBM then scans for the parameters block's end
    tail = text[start:]
    params = tail.find("\nparameters:\n")
    if params >= 0 and tail.find("\nend of parameters\n", params) < 0:
        raise _Bad("its parameters block has no end")
    _check_pandas_line(text)
    return len(sizes)


def _check_pandas_line(text: str) -> None:
    """The last line as LightGBM's Python package finds it (``_load_pandas_categorical``) and decodes it."""
    key = "pandas_categorical:"
    last = text[text.rfind("\n", 0, -len(key)) :].strip()
    if not last.startswith(key):
        raise _Bad("its last line is not LightGBM's pandas_categorical line")
    try:
        value = json.loads(last[len(key) :])
    except ValueError:
        raise _Bad(f"its pandas_categorical line {last[:40]!r} is not JSON") from None
    if value is not None and not isinstance(value, list):
        raise _Bad(f"its pandas_categorical line {last[:40]!r} is neither null nor a list")


def _check_header(header: str, num_features: int | None) -> tuple[list[int], int]:
    """The header's tree sizes and feature count, every field checked as LightGBM would read it."""
    fields = _header_fields(header.split("\n")[1:])
    for key in _HEADER_REQUIRED:
        if key not in fields:
            raise _Bad(f"the header has no {key}")
    for key in ("num_class", "num_tree_per_iteration"):
        if fields[key] != "1":
            raise _Bad(f"the header says {key}={fields[key][:30]}, where a ranking model has 1")
    _canonical_ints(fields, "label_index", single=True)
    n_features = _canonical_ints(fields, "max_feature_idx", single=True)[0] + 1
    if num_features is not None and n_features != num_features:
        raise _Bad(f"its header says {n_features} features (max_feature_idx), its parameters {num_features}")
    for key in ("feature_names", "feature_infos"):
        tokens = fields[key].split(" ")
        if len(tokens) != n_features or "" in tokens:
            raise _Bad(f"the header's {key} does not list {n_features} features, one per space")
    bad_info = next((x for x in fields["feature_infos"].split(" ") if not _FEATURE_INFO.fullmatch(x)), None)
    if bad_info is not None:
        raise _Bad(f"the header's feature_infos holds {bad_info[:30]!r}, not a feature's range")
    if "objective" in fields:
        given = fields["objective"][:30]
        raise _Bad(f"the header names objective {given!r}, which would transform the scores")
    if "average_output" in fields:  # LightGBM's random forest, which refuses a custom objective
        raise _Bad("the header says average_output, which would divide the scores by the number of trees")
    return _canonical_ints(fields, "tree_sizes", single=False), n_features


def _header_fields(lines: list[str]) -> dict[str, str]:
    """The header's key=value lines: only those LightGBM writes, each once (LightGBM keeps the last)."""
    fields: dict[str, str] = {}
    for line in lines:
        if not line:
            continue
        key, sep, value = line.partition("=")
        if key not in _HEADER_KEYS or bool(sep) == (key == "average_output"):
            raise _Bad(f"the header has a line LightGBM does not write: {line[:40]!r}")
        if "=" in value and key != "feature_names":  # LightGBM refuses these itself, after parsing
            raise _Bad(f"the header line {line[:40]!r} has more than one '='")
        if key in fields:
            raise _Bad(f"the header gives {key} twice")
        fields[key] = value
    return fields


def _canonical_ints(fields: dict[str, str], key: str, *, single: bool) -> list[int]:
    """Non-negative integers as LightGBM writes them (one space apart, no sign, no leading zero)."""
    tokens = fields[key].split(" ")
    if single and len(tokens) != 1:
        raise _Bad(f"the header's {key} is {fields[key][:30]!r}, not one integer")
    for token in tokens:
        canonical = token.isascii() and token.isdigit() and str(int(token)) == token
        if not canonical or int(token) > _INT32_MAX:
            raise _Bad(f"the header's {key} holds {token[:30]!r}, not an integer in [0, {_INT32_MAX}]")
    if not single and any(int(token) == 0 for token in tokens):
        raise _Bad(f"the header's {key} holds 0, not a tree's size")
    return [int(token) for token in tokens]


def _check_tree(block: str, i: int, n_features: int) -> None:
    lines = block.split("\n")
    if lines[0] != f"Tree={i}":
        raise _Bad(f"tree {i} does not start where tree_sizes says")
    body = lines[1 : lines.index("") if "" in lines else len(lines)]
    if any(line for line in lines[len(body) + 1 :]):
        raise _Bad(f"tree {i} has text after its blank line")
    kv = _key_values(body, f"tree {i}")
    where = f"tree {i}"
    leaves = _ints(kv, "num_leaves", 1, lo=1, where=where)[0]
    n_cat = _ints(kv, "num_cat", 1, lo=0, where=where)[0]
    _floats(kv, "leaf_value", leaves, where)
    _floats(kv, "shrinkage", 1, where)
    if leaves > 1:
        _ints(kv, "split_feature", leaves - 1, lo=0, hi=n_features - 1, where=where)
        _floats(kv, "threshold", leaves - 1, where)
        _ints(kv, "decision_type", leaves - 1, lo=0, hi=127, where=where)
        children = [c for side in ("left_child", "right_child")
                    for c in _ints(kv, side, leaves - 1, lo=-leaves, hi=leaves - 2, where=where)]  # fmt: skip
        # every node but the root and every leaf is a child exactly once: a tree, no cycle to loop in
        if sorted(children) != [*range(-leaves, 0), *range(1, leaves - 1)]:
            raise _Bad(f"{where}: left_child/right_child do not form a tree")
        for name in _NODE_ARRAYS:
            if name in kv:
                _floats(kv, name, leaves - 1, where)
        for name in _LEAF_ARRAYS:
            if name in kv:
                _floats(kv, name, leaves, where)
    if n_cat > 0:
        bounds = _ints(kv, "cat_boundaries", n_cat + 1, lo=0, where=where)
        if bounds[0] != 0 or any(b < a for a, b in zip(bounds[:-1], bounds[1:], strict=True)):
            raise _Bad(f"{where}: cat_boundaries do not rise from 0")
        _ints(kv, "cat_threshold", bounds[-1], lo=0, hi=2**32 - 1, where=where)
    if kv.get("is_linear", "0") not in ("0", "1"):
        raise _Bad(f"{where}: is_linear is neither 0 nor 1")
    if kv.get("is_linear") == "1":
        _floats(kv, "leaf_const", leaves, where)
        counts = _ints(kv, "num_features", leaves, lo=0, hi=n_features, where=where)
        _ints(kv, "leaf_features", sum(counts), lo=0, hi=n_features - 1, where=where)
        _floats(kv, "leaf_coeff", sum(counts), where)


def _key_values(lines: list[str], where: str) -> dict[str, str]:
    out: dict[str, str] = {}
    for line in lines:
        key, sep, value = line.partition("=")
        if sep and key:
            out[key] = value
        elif line.strip() and "=" not in line and where != "the header":
            raise _Bad(f"{where}: line {line[:40]!r} is not key=value")
    return out


def _tokens(kv: dict[str, str], name: str, count: int | None, where: str) -> list[str]:
    if name not in kv:
        raise _Bad(f"{where} has no {name}")
    tokens = kv[name].split()
    if count is not None and len(tokens) != count:
        raise _Bad(f"{where}: {name} has {len(tokens)} values, expected {count}")
    return tokens


def _ints(
    kv: dict[str, str],
    name: str,
    count: int | None,
    *,
    lo: int,
    hi: int = _INT32_MAX,
    where: str = "the header",
) -> list[int]:
    values = []
    for token in _tokens(kv, name, count, where):
        digits = token[1:] if token[:1] in "+-" else token
        if not digits.isdigit() or not digits.isascii() or not lo <= int(token) <= hi:
            raise _Bad(f"{where}: {name} holds {token[:30]!r}, not an integer in [{lo}, {hi}]")
        values.append(int(token))
    return values


def _floats(kv: dict[str, str], name: str, count: int, where: str) -> None:
    for token in _tokens(kv, name, count, where):
        try:
            value = float(token)
        except ValueError:
            value = math.nan
        if math.isnan(value) or "_" in token:
            raise _Bad(f"{where}: {name} holds {token[:30]!r}, not a number")
