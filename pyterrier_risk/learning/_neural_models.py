"""The scorers of :class:`~._neural_ranker.RiskNeuralRanker`: an MLP and a small slate transformer.

Both map a padded batch of feature vectors ``[queries, slate, features]`` (and the padding mask
``[queries, slate]``, True where a document is present) to scores ``[queries, slate]``:

* ``"mlp"``: a feed-forward network applied to each document alone (allRank's ``FCModel`` idea):
  ``Linear → ReLU → Dropout`` per hidden size, then a linear head;
* ``"transformer"``: allRank's context-aware idea (Pobrotyn et al., "Context-Aware Learning to Rank
  with Self-Attention", 2020): a linear input projection to ``hidden[0]`` dimensions, ``len(hidden)``
  layers of ``nn.TransformerEncoderLayer`` (2 heads, feed-forward width ``2·hidden[0]``, no
  positional encoding: a slate is a set) attending over the query's documents with the padding
  mask, and a linear head.

This module imports torch: it is imported only after :func:`~._neural_loss.require_torch`.
"""

from __future__ import annotations

import torch
from torch import nn

__all__ = ["MODELS", "TRANSFORMER_HEADS", "build_model"]

MODELS = ("mlp", "transformer")
TRANSFORMER_HEADS = 2


class MLPScorer(nn.Module):
    """A document-wise feed-forward scorer: ``Linear → ReLU → Dropout`` per hidden size, a linear head."""

    def __init__(self, n_features: int, hidden: tuple[int, ...], dropout: float) -> None:
        super().__init__()
        layers: list[nn.Module] = []
        width = n_features
        for size in hidden:
            layers += [nn.Linear(width, size), nn.ReLU(), nn.Dropout(dropout)]
            width = size
        self.body = nn.Sequential(*layers)
        self.head = nn.Linear(width, 1)

    def forward(self, x: torch.Tensor, present: torch.Tensor) -> torch.Tensor:
        """Scores ``[queries, slate]`` of ``x`` ``[queries, slate, features]`` (``present`` unused)."""
        return self.head(self.body(x)).squeeze(-1)


class SlateTransformer(nn.Module):
    """Self-attention over the documents of a slate (padding masked), then a linear head per document."""

    def __init__(self, n_features: int, hidden: tuple[int, ...], dropout: float) -> None:
        super().__init__()
        d_model = hidden[0]
        self.project = nn.Linear(n_features, d_model)
        layer = nn.TransformerEncoderLayer(
            d_model, TRANSFORMER_HEADS, dim_feedforward=2 * d_model, dropout=dropout, batch_first=True
        )
        self.encoder = nn.TransformerEncoder(layer, num_layers=len(hidden), enable_nested_tensor=False)
        self.head = nn.Linear(d_model, 1)

    def forward(self, x: torch.Tensor, present: torch.Tensor) -> torch.Tensor:
        """Scores ``[queries, slate]``; padded positions attend to nothing and are attended by none."""
        h = self.encoder(self.project(x), src_key_padding_mask=~present)
        return self.head(h).squeeze(-1)


def build_model(kind: str, n_features: int, hidden: tuple[int, ...], dropout: float) -> nn.Module:
    """A fresh scorer of ``kind`` (``MODELS``), initialised from torch's global generator."""
    if kind == "mlp":
        return MLPScorer(n_features, hidden, dropout)
    return SlateTransformer(n_features, hidden, dropout)
