"""A saved RiskNeuralRanker folder: safetensors weights, a JSON configuration, PyTerrier's metadata.

``model.safetensors`` holds the scorer's weights (safetensors: tensors and a JSON header, nothing
that runs as code); ``risk_neural.json`` the constructor parameters, the feature normalisation, the
training record (epochs kept, validation NDCG per epoch) and the weights' SHA-256;
``pt_meta.json`` PyTerrier's artifact type and format (``ltr_model`` / ``risk_neural``), which the
entry point ``ltr_model.risk_neural`` of the group ``pyterrier.artifact`` maps back to
``RiskNeuralRanker.load``. The folder is written whole or not at all (``_persistence``'s writer),
and every file is checked before it is used.
"""

from __future__ import annotations

import hashlib
import json
import math
from pathlib import Path
from typing import Any

from ._options import check_count
from ._persistence import MAX_JSON_BYTES, PT_META_FILE, _json_scalar, _read_regular, _write_folder

__all__ = [
    "NEURAL_ARTIFACT_FORMAT",
    "read_neural",
    "save_neural",
    "weights_bytes",
]

CONFIG_FILE = "risk_neural.json"
WEIGHTS_FILE = "model.safetensors"
FORMAT = "pyterrier-risk/RiskNeuralRanker"
FORMAT_VERSION = 1
NEURAL_ARTIFACT_TYPE = "ltr_model"
NEURAL_ARTIFACT_FORMAT = "risk_neural"
# far above any scorer this learner builds (a 4-layer MLP of width 4,096 is ~200 MB in float32)
MAX_WEIGHTS_BYTES = 2**32


def weights_bytes(state_dict: dict[str, Any]) -> bytes:
    """The scorer's weights as safetensors bytes (CPU, contiguous): what is saved and digested."""
    from safetensors.torch import save

    return save({name: t.detach().cpu().contiguous() for name, t in state_dict.items()})


def save_neural(path: Path, weights: bytes, config: dict[str, Any]) -> None:
    """Write the folder ``path``: the weights, the configuration (with their digest), ``pt_meta.json``.

    Raises:
        TypeError: a parameter cannot be stored as JSON (nothing is written).
        FileExistsError: ``path`` exists and is not a folder.
    """
    meta = {
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        **config,
        "weights_sha256": hashlib.sha256(weights).hexdigest(),
    }
    try:
        meta_text = json.dumps(meta, indent=2, default=_json_scalar) + "\n"
    except TypeError as e:
        raise TypeError(f"a parameter cannot be stored as JSON: {e}") from e
    pt_meta = {
        "type": NEURAL_ARTIFACT_TYPE,
        "format": NEURAL_ARTIFACT_FORMAT,
        "package_hint": "pyterrier-risk",
    }
    files: dict[str, str | bytes] = {
        WEIGHTS_FILE: weights,
        CONFIG_FILE: meta_text,
        PT_META_FILE: json.dumps(pt_meta) + "\n",
    }
    _write_folder(path, files)


def read_neural(path: Path) -> tuple[dict[str, Any], dict[str, Any]]:
    """The checked configuration of a saved folder and its weights (a state dict of CPU tensors)."""
    meta = _read_config(path)
    weights_file = path / WEIGHTS_FILE
    raw = _read_regular(weights_file, MAX_WEIGHTS_BYTES, "the saved model is incomplete; save it again")
    if hashlib.sha256(raw).hexdigest() != meta["weights_sha256"]:
        raise ValueError(
            f"{weights_file} does not match {path / CONFIG_FILE} (they come from different saves: an "
            "interrupted save?); save the model again"
        )
    from safetensors.torch import load

    try:
        state = load(raw)
    except Exception as e:  # noqa: BLE001 - safetensors raises its own SafetensorError on a damaged file
        raise ValueError(f"{weights_file} is not a safetensors file ({e}); save the model again") from None
    return meta, state


def _read_config(path: Path) -> dict[str, Any]:
    """``risk_neural.json``, checked: one-line errors for a damaged or foreign file."""
    config_file = path / CONFIG_FILE
    if path.exists() and not path.is_dir():
        raise ValueError(f"{path} is not a folder: not a saved RiskNeuralRanker")
    raw = _read_regular(config_file, MAX_JSON_BYTES, "not a saved RiskNeuralRanker")
    try:
        meta = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as e:
        raise ValueError(f"{config_file} is not valid JSON text ({e}); save the model again") from None
    tag = (meta.get("format"), meta.get("format_version")) if isinstance(meta, dict) else None
    if tag != (FORMAT, FORMAT_VERSION):
        raise ValueError(f"{config_file} is not a {FORMAT} v{FORMAT_VERSION} file")
    params = meta.get("params")
    if not isinstance(params, dict) or not isinstance(params.get("objective"), str):
        raise ValueError(f"{config_file}: 'params' must be an object with the 'objective' name")
    try:
        n = check_count(meta.get("num_features"), "'num_features'")
        check_count(meta.get("best_iteration"), "'best_iteration'")
    except (TypeError, ValueError) as e:
        raise ValueError(f"{config_file}: {e}; save the model again") from None
    for key in ("mean", "std"):
        values = meta.get(key)
        ok = isinstance(values, list) and len(values) == n
        if not ok or not all(isinstance(v, (int, float)) and math.isfinite(v) for v in values):
            raise ValueError(f"{config_file}: {key!r} must be {n} finite numbers; save the model again")
    curve = meta.get("validation_ndcg")
    if not isinstance(curve, list) or not all(isinstance(v, (int, float)) for v in curve):
        raise ValueError(f"{config_file}: 'validation_ndcg' must be a list of numbers")
    digest = meta.get("weights_sha256")
    if not (isinstance(digest, str) and len(digest) == 64 and all(c in "0123456789abcdef" for c in digest)):
        raise ValueError(f"{config_file}: 'weights_sha256' must be 64 hex digits, got {digest!r}")
    return meta
