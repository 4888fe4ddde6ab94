"""A structural check of LightGBM's text model before LightGBM reads it.

LightGBM parses a model string in native code, trusting its ``tree_sizes`` header: a truncated or
edited ``model.txt`` makes it read past the end of the text or index arrays out of bounds, and the
process aborts (SIGABRT) or crashes, where Python cannot catch anything. ``RiskLambdaMART.load``
checks the SHA-256 that :meth:`~pyterrier_risk.RiskLambdaMART.save` records; folders written before
that (version 0.1) carry no digest, and for them this module checks, in Python, everything LightGBM
4's reader indexes by: the header's ``tree_sizes``, each tree at its offset with the arrays of the
lengths its ``num_leaves`` implies, child and feature indices in range, and the ``end of trees``
marker. A text that passes is one LightGBM reads within its bounds.
"""

from __future__ import annotations

import math

__all__ = ["check_model_text"]

_INT32_MAX = 2**31 - 1
# arrays of a tree of L leaves, by the length LightGBM's reader expects (L - 1 or L)
_NODE_ARRAYS = ("split_gain", "internal_value", "internal_weight", "internal_count")
_LEAF_ARRAYS = ("leaf_weight", "leaf_count")


class _Bad(ValueError):
    """One structural problem, raised with the file's name by :func:`check_model_text`."""


def check_model_text(text: str, source: str) -> int:
    """Raise ValueError unless ``text`` is a LightGBM text model LightGBM can read within its bounds.

    Args:
        text: the content of ``model.txt``.
        source: the file's name, for the message.

    Returns:
        The number of trees.
    """
    try:
        return _check(text)
    except _Bad as e:
        raise ValueError(
            f"{source} is not a complete LightGBM model ({e}): truncated or edited? Save the model again"
        ) from None


def _check(text: str) -> int:
    if not text.startswith("tree\n"):
        raise _Bad("it does not start with LightGBM's 'tree' line")
    first = text.find("\nTree=")
    if first < 0:
        raise _Bad("no tree found")
    header = _key_values(text[: first + 1].splitlines()[1:], "the header")
    n_features = _ints(header, "max_feature_idx", 1, lo=0)[0] + 1
    for key in ("num_class", "num_tree_per_iteration"):
        _ints(header, key, 1, lo=1)
    _ints(header, "label_index", 1, lo=0)
    if "tree_sizes" not in header:
        raise _Bad("the header has no tree_sizes")
    sizes = _ints(header, "tree_sizes", None, lo=1)
    start = first + 1
    for i, size in enumerate(sizes):
        block = text[start : start + size]
        if len(block) < size:
            raise _Bad(f"tree {i} of {len(sizes)} ends after the end of the file")
        _check_tree(block, i, n_features)
        start += size
    if not text.startswith("end of trees\n", start):
        raise _Bad(f"'end of trees' does not follow tree {len(sizes) - 1}")
    # LightGBM then scans for the parameters block's end, and Python reads the last line
    tail = text[start:]
    params = tail.find("\nparameters:\n")
    if params >= 0 and tail.find("\nend of parameters\n", params) < 0:
        raise _Bad("its parameters block has no end")
    if not tail.rstrip("\n").rsplit("\n", 1)[-1].startswith("pandas_categorical:"):
        raise _Bad("its last line is not LightGBM's pandas_categorical line")
    return len(sizes)


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
