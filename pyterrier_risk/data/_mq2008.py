"""LETOR 4.0 MQ2008 folds and the 25 real systems of MQ2008-agg as multiple baselines.

MQ2008 (Qin & Liu, *Introducing LETOR 4.0 Datasets*, arXiv:1306.2597, 2013) ships five query
partitions S1..S5; fold k trains on S_k, S_k+1, S_k+2, validates on S_k+3 and tests on S_k+4
(indices mod 5). Its rank-aggregation twin MQ2008-agg lists, for the same 15,211 judged
query-document pairs, the position of the document in the ranking of each of 25 real input
systems (``NULL`` when the system did not retrieve it). Aligned by (qid, docid), the 25 columns
give a rows × 25 baseline matrix for GeoRisk / T*-FARO (Dinçer, Macdonald & Ounis, SIGIR 2016,
§6) and for multi-baseline evaluation.

Baseline scores are ``-rank`` (smaller rank = better). A document a system did not retrieve is
placed below all of that system's retrieved documents of the query; among themselves such
documents are ordered by ascending label, so the system's NDCG@k equals that of its real list
(which holds only retrieved documents) whenever the query has enough non-relevant unretrieved
candidates to fill the remaining top-k positions (see :func:`agg_baseline_scores`).

Data loading only: numpy and pandas, no PyTerrier import.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from ._trec import _label, open_text

__all__ = [
    "BM25_FEATURE",
    "MQ2008_FOLDS",
    "MQ2008Fold",
    "N_SYSTEMS",
    "agg_baseline_scores",
    "mq2008_fold",
    "read_mq2008_agg",
    "read_mq2008_part",
    "system_runs",
]

#: 0-based index of LETOR 4.0 feature 25, which LETOR's list names "BM25 of the whole document"; the
#: single baseline of the papers. In the shipped data it scores the anchor text (docs/letor.md).
BM25_FEATURE = 24
#: number of input systems in MQ2008-agg.
N_SYSTEMS = 25
#: fold -> (training partitions, validation partition, test partition), as LETOR's readme.
MQ2008_FOLDS: dict[int, tuple[tuple[str, str, str], str, str]] = {
    k: (
        (f"S{(k - 1) % 5 + 1}", f"S{k % 5 + 1}", f"S{(k + 1) % 5 + 1}"),
        f"S{(k + 2) % 5 + 1}",
        f"S{(k + 3) % 5 + 1}",
    )
    for k in range(1, 6)
}
_DOCID = re.compile(r"docid\s*=\s*(\S+)")


@dataclass(frozen=True)
class MQ2008Fold:
    """One MQ2008 fold as PyTerrier result frames (``qid``, ``docno``, ``features``, ``label``).

    Attributes:
        fold: fold number 1..5.
        train: training candidates (three partitions, in partition order).
        valid: validation candidates.
        test: test candidates.
    """

    fold: int
    train: pd.DataFrame
    valid: pd.DataFrame
    test: pd.DataFrame

    @staticmethod
    def qrels(frame: pd.DataFrame) -> pd.DataFrame:
        """The ``qid``, ``docno``, ``label`` qrels of a fold frame."""
        return frame[["qid", "docno", "label"]].copy()

    @staticmethod
    def candidates(frame: pd.DataFrame) -> pd.DataFrame:
        """A fold frame without its labels (what a re-ranker sees)."""
        return frame.drop(columns=["label"])


def read_mq2008_part(part: str, data_dir: str | os.PathLike) -> pd.DataFrame:
    """Read one MQ2008 partition (``'S1'`` .. ``'S5'``) from ``<data_dir>/<part>.txt[.gz]``.

    Returns:
        A result frame with ``qid``, ``docno`` (GOV2 docid), ``features`` (46 floats) and ``label``.
    """
    from ._letor import read_letor

    if part not in {f"S{i}" for i in range(1, 6)}:
        raise ValueError(f"unknown MQ2008 partition {part!r}; expected S1..S5")
    data_dir = Path(data_dir)
    for name in (f"{part}.txt.gz", f"{part}.txt"):
        if (data_dir / name).is_file():
            return read_letor(data_dir / name).to_frame()
    raise FileNotFoundError(f"MQ2008 partition {part} not found in {data_dir}")


def mq2008_fold(fold: int, data_dir: str | os.PathLike) -> MQ2008Fold:
    """Load MQ2008 fold ``fold`` (1..5) built from the partitions S1..S5 (LETOR's fold table).

    Args:
        fold: 1..5.
        data_dir: the MQ2008 folder holding ``S1.txt.gz`` .. ``S5.txt.gz``.
    """
    if fold not in MQ2008_FOLDS:
        raise ValueError(f"MQ2008 fold must be 1..5, got {fold!r}")
    train_parts, valid_part, test_part = MQ2008_FOLDS[fold]
    train = pd.concat([read_mq2008_part(p, data_dir) for p in train_parts], ignore_index=True)
    return MQ2008Fold(
        fold, train, read_mq2008_part(valid_part, data_dir), read_mq2008_part(test_part, data_dir)
    )


def read_mq2008_agg(path: str | os.PathLike) -> pd.DataFrame:
    """Read MQ2008-agg (``agg.txt[.gz]``, or the folder holding it).

    Returns:
        A frame with ``qid``, ``docno``, ``label`` and one float column per system,
        ``ranker01`` .. ``ranker25``, holding the document's rank in that system's list
        (NaN where the file says ``NULL``).
    """
    path = Path(path)
    if path.is_dir():
        path = path / "agg.txt.gz" if (path / "agg.txt.gz").is_file() else path / "agg.txt"
    if not path.is_file():
        raise FileNotFoundError(f"MQ2008-agg file not found: {path}")
    qids, docnos, labels, ranks = [], [], [], []
    with open_text(path) as fh:
        for lineno, line in enumerate(fh, 1):
            body, _, comment = line.partition("#")
            tokens = body.split()
            if not tokens:
                continue
            match = _DOCID.search(comment)
            if len(tokens) != 2 + N_SYSTEMS or not tokens[1].startswith("qid:") or match is None:
                raise ValueError(f"{path}:{lineno}: expected 'label qid:N 1:r .. {N_SYSTEMS}:r #docid = ...'")
            row = np.full(N_SYSTEMS, np.nan)
            try:
                for j, token in enumerate(tokens[2:]):
                    index, _, value = token.partition(":")
                    if index != str(j + 1):
                        raise ValueError(f"system {j + 1} expected, found {token!r}")
                    if value != "NULL":
                        if not value.isascii() or "_" in value:  # float() reads 1_0 and non-ASCII digits
                            raise ValueError(f"rank {value!r} of system {j + 1} is not a number")
                        row[j] = float(value)
            except ValueError as e:
                raise ValueError(f"{path}:{lineno}: {e}") from None
            labels.append(_label(tokens[0], path, lineno))
            qids.append(tokens[1][4:])
            docnos.append(match.group(1))
            ranks.append(row)
    matrix = np.vstack(ranks)
    frame = pd.DataFrame({"qid": qids, "docno": docnos, "label": np.asarray(labels, dtype=np.int64)})
    systems = pd.DataFrame(matrix, columns=[f"ranker{j:02d}" for j in range(1, N_SYSTEMS + 1)])
    return pd.concat([frame, systems], axis=1)


def agg_baseline_scores(frame: pd.DataFrame, agg: pd.DataFrame) -> np.ndarray:
    """The 25 systems' scores of the rows of ``frame``, aligned by (qid, docno): rows × 25.

    The score of a retrieved document is ``-rank``. A document a system did not retrieve scores
    ``-(R + 1 + ℓ / (L + 1))``, R being the largest rank in the file, ℓ its label and L the
    largest label: it sits below everything the system retrieved, lower labels first. A
    system's NDCG@k computed from these scores therefore gives unretrieved documents no credit
    as long as the query has at least k − (retrieved count) non-relevant unretrieved candidates;
    otherwise it is an upper bound of the real list's NDCG@k.

    Args:
        frame: rows with ``qid`` and ``docno`` (e.g. a :class:`MQ2008Fold` frame).
        agg: :func:`read_mq2008_agg` output.

    Raises:
        ValueError: a row of ``frame`` has no match in ``agg``.
    """
    systems = [c for c in agg.columns if c.startswith("ranker")]
    keys = frame[["qid", "docno"]].astype(str)
    joined = keys.merge(agg[["qid", "docno", "label", *systems]], on=["qid", "docno"], how="left")
    missing = joined["label"].isna()
    if missing.any():
        first = joined.loc[missing, ["qid", "docno"]].iloc[0].tolist()
        raise ValueError(f"{int(missing.sum())} rows have no MQ2008-agg entry, e.g. qid/docno {first}")
    ranks = joined[systems].to_numpy(dtype=np.float64)
    labels = joined["label"].to_numpy(dtype=np.float64)
    floor = np.nanmax(agg[systems].to_numpy(dtype=np.float64)) + 1.0
    unretrieved = -(floor + labels / (labels.max() + 1.0))
    return np.where(np.isnan(ranks), unretrieved[:, None], -ranks)


def system_runs(agg: pd.DataFrame, qids: set[str] | None = None) -> dict[str, pd.DataFrame]:
    """Each MQ2008-agg system as a PyTerrier run (only its retrieved documents, score = -rank).

    Args:
        agg: :func:`read_mq2008_agg` output.
        qids: keep only these queries (default: all).

    Returns:
        ``{'ranker01': run, ...}``, each run with ``qid``, ``docno``, ``score``.
    """
    if qids is not None:
        agg = agg[agg["qid"].isin(qids)]
    runs = {}
    for system in (c for c in agg.columns if c.startswith("ranker")):
        retrieved = agg[agg[system].notna()]
        runs[system] = pd.DataFrame(
            {
                "qid": retrieved["qid"].to_numpy(),
                "docno": retrieved["docno"].to_numpy(),
                "score": -retrieved[system].to_numpy(dtype=np.float64),
            }
        )
    return runs
