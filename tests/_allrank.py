"""allRank's losses for the parity tests (tests/test_neural_loss.py), imported in one place.

Why a stand-in module: ``allrank.models.losses`` imports ``allrank.data.dataset_loading``, which
imports ``from torchvision import transforms`` (used only by allRank's data loader). torchvision
cannot be installed beside the CPU torch of the test environment (its operators do not load), so
an empty ``torchvision`` module with a ``transforms`` attribute is put in ``sys.modules`` for the
import, only when torchvision is absent, and removed again afterwards. The losses themselves never
touch it (``test_allrank_loss_needs_no_torchvision`` checks that the stand-in is gone after import).
"""

from __future__ import annotations

import sys
import types
from typing import Any

import pytest


def import_allrank_losses() -> Any:
    """``allrank.models.losses`` (skips the test when allRank is not installed)."""
    pytest.importorskip(
        "torch", reason="the neural tests need PyTorch (pip install 'pyterrier-risk[neural]')"
    )
    try:
        import torchvision  # noqa: F401
    except ImportError:
        stub = None
    else:
        stub = False
    added = []
    if stub is None:
        for name in ("torchvision", "torchvision.transforms"):
            module = types.ModuleType(name)
            sys.modules[name] = module
            added.append(name)
        sys.modules["torchvision"].transforms = sys.modules["torchvision.transforms"]  # type: ignore[attr-defined]
        sys.modules["torchvision.transforms"].Compose = object  # type: ignore[attr-defined]
    try:
        losses = pytest.importorskip(
            "allrank.models.losses", reason="allRank is not installed (pip install --no-deps allRank==1.4.3)"
        )
    finally:
        for name in added:
            sys.modules.pop(name, None)
    return losses
