"""TEMPORARY stand-in for the data layer's LETOR fold loader (helper `folds`, STUDY_API.md).

Removed once ``pyterrier_risk.data.letor_folds`` lands; only the engine's import site uses it.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..data import LetorData, read_letor


@dataclass(frozen=True)
class LetorSplit:
    files: tuple[str, ...]
    qids: tuple[str, ...] | None = None
    query_file: str | None = None

    def load(self, n_features: int | None = None) -> LetorData:
        parts = [read_letor(f, self.query_file, n_features=n_features) for f in self.files]
        width = max(p.n_features for p in parts)
        X = np.vstack([np.pad(p.X, ((0, 0), (0, width - p.n_features))) for p in parts])
        y = np.concatenate([p.y for p in parts])
        qid = np.concatenate([p.qid for p in parts])
        docno = None if any(p.docno is None for p in parts) else np.concatenate([p.docno for p in parts])
        if self.qids is not None:
            keep = np.isin(qid, np.asarray(self.qids))
            X, y, qid, docno = X[keep], y[keep], qid[keep], None if docno is None else docno[keep]
        starts = np.flatnonzero(np.r_[True, qid[1:] != qid[:-1]])
        group = np.diff(np.r_[starts, len(qid)])
        return LetorData(X=X, y=y, qid=qid, docno=docno, group=group, path=self.files[0])

    def digest(self) -> str:
        h = hashlib.sha256()
        for f in self.files:
            h.update(Path(f).read_bytes())
        h.update(repr(self.qids).encode())
        return h.hexdigest()


@dataclass(frozen=True)
class LetorFold:
    name: str
    train: LetorSplit
    vali: LetorSplit
    test: LetorSplit

    def digest(self) -> str:
        return hashlib.sha256("".join(s.digest() for s in (self.train, self.vali, self.test)).encode()).hexdigest()


def _file(folder: Path, stem: str) -> Path | None:
    for suffix in ("", ".txt", ".txt.gz", ".gz"):
        if (folder / f"{stem}{suffix}").is_file():
            return folder / f"{stem}{suffix}"
    return None


def letor_folds(path, *, folds: int | None = None, seed: int = 0) -> list[LetorFold]:
    path = Path(path)
    if path.is_file():
        if folds is None:
            raise ValueError(f"{path}: one LETOR file: give folds=K")
        data = read_letor(path)
        qids = list(dict.fromkeys(data.qid.tolist()))
        order = np.random.default_rng(seed).permutation(len(qids))
        parts = [tuple(sorted((qids[i] for i in order[k::folds]), key=qids.index)) for k in range(folds)]
        return [_rotate(k, folds, lambda j: LetorSplit((str(path),), parts[j])) for k in range(folds)]
    if not path.is_dir():
        raise FileNotFoundError(f"LETOR data not found: {path}")
    parts = sorted(int(m.group(1)) for p in path.iterdir() if (m := re.fullmatch(r"S(\d+)(\.txt)?(\.gz)?", p.name)))
    if parts:
        k = len(parts)
        return [_rotate(i, k, lambda j: LetorSplit((str(_file(path, f"S{j + 1}")),))) for i in range(k)]
    names = sorted((p.name for p in path.iterdir() if re.fullmatch(r"Fold\d+", p.name)), key=lambda n: int(n[4:]))
    if not names:
        raise FileNotFoundError(f"{path}: no Fold1..FoldK folders and no S1..SK partitions")
    out = []
    for name in names:
        splits = []
        for split in ("train", "vali", "test"):
            f = _file(path / name, split)
            if f is None:
                raise FileNotFoundError(f"{path / name}: no {split}.txt")
            splits.append(LetorSplit((str(f),)))
        out.append(LetorFold(name, *splits))
    return out


def _rotate(k: int, n: int, split) -> LetorFold:
    train = [split((k + i) % n) for i in range(n - 2)]
    merged = LetorSplit(tuple(dict.fromkeys(f for s in train for f in s.files)), _merge_qids(train), None)
    return LetorFold(f"Fold{k + 1}", merged, split((k + n - 2) % n), split((k + n - 1) % n))


def _merge_qids(splits):
    if all(s.qids is None for s in splits):
        return None
    return tuple(q for s in splits for q in s.qids)


def letor_n_features(folds) -> int:
    return max(read_letor(f).n_features for fold in folds for s in (fold.train, fold.vali, fold.test) for f in s.files)


def run_baseline_scores(data: LetorData, run, *, name: str) -> np.ndarray:
    import pandas as pd

    if data.docno is None:
        raise ValueError(f"baseline {name}: the LETOR data has no '#docid = ...' comments to match the run")
    keys = pd.DataFrame({"qid": data.qid.astype(str), "docno": data.docno.astype(str)})
    run = run.assign(qid=run["qid"].astype(str), docno=run["docno"].astype(str))
    joined = keys.merge(run[["qid", "docno", "score"]], on=["qid", "docno"], how="left")
    if joined["score"].isna().all():
        raise ValueError(f"baseline {name}: no row of the run matches the data")
    floor = joined.groupby("qid")["score"].transform("min").fillna(0.0) - 1.0
    return joined["score"].fillna(floor).to_numpy(dtype=float)
