"""Writers of TREC run and qrels files.

The counterparts of :func:`~pyterrier_risk.data.read_run` and :func:`~pyterrier_risk.data.read_qrels`:
what they write reads back unchanged. Each file is replaced whole or not at all
(:func:`._atomic.atomic_write`).
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from ._atomic import atomic_write

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["write_qrels", "write_run"]


def write_run(res: pd.DataFrame, path: str | os.PathLike[str], tag: str, *, ties: str = "docno") -> None:
    """Write a result frame as a TREC run file (``qid Q0 docno rank score tag``).

    Per topic the documents are written by descending score with ranks 1, 2, ...; the ``rank`` column
    of ``res`` is not used. Tied scores are ordered as the evaluation orders them, so that the ranks
    agree with it: by default by docno descending, as trec_eval (and so ``ir_measures``' nDCG and
    ``pt.Experiment``) break ties; ``ties='order'`` keeps the frame's order (LETOR's Eval-Score-4.0.pl,
    which keeps file order). Scores are written as ``repr(float)``, the shortest text that reads back as
    the same number, so writing creates no ties.

    Args:
        res: result frame with ``qid``, ``docno`` and ``score``.
        path: the file to write (replaced whole: an error or interrupt leaves the previous file).
        tag: the run tag (last field); must not contain whitespace.
        ties: ``'docno'`` (trec_eval's order of tied scores) or ``'order'`` (the frame's order).

    Raises:
        ValueError: ``tag`` is empty or contains whitespace, or ``ties`` is neither choice.
    """
    if not tag or any(ch.isspace() for ch in tag):
        raise ValueError(f"a TREC run tag must be one non-empty word, got {tag!r}")
    if ties not in ("docno", "order"):
        raise ValueError(f"ties must be 'docno' or 'order', got {ties!r}")
    if ties == "docno":
        res = res.sort_values(["qid", "score", "docno"], ascending=[True, False, False], kind="stable")
    else:
        res = res.sort_values(["qid", "score"], ascending=[True, False], kind="stable")
    ranks = res.groupby("qid", sort=False).cumcount() + 1
    lines = [f"{q} Q0 {d} {r} {float(s)!r} {tag}\n" for q, d, r, s in
             zip(res["qid"], res["docno"], ranks, res["score"], strict=False)]
    with atomic_write(path) as f:
        f.writelines(lines)


def write_qrels(qrels: pd.DataFrame, path: str | os.PathLike[str]) -> None:
    """Write qrels as a TREC qrels file (``qid 0 docno label``).

    Args:
        qrels: frame with ``qid``, ``docno`` and integer ``label`` columns.
        path: the file to write (replaced whole: an error or interrupt leaves the previous file).
    """
    lines = [f"{q} 0 {d} {int(v)}\n" for q, d, v in zip(qrels["qid"], qrels["docno"], qrels["label"],
                                                          strict=True)]
    with atomic_write(path) as f:
        f.writelines(lines)
