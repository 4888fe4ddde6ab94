"""LETOR folds: fold folders, LETOR 4.0 partitions, one file split by query; digests; runs as baselines."""

from __future__ import annotations

import bz2
import gzip
import os
import shutil
import tempfile
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from helpers import data_path
from hypothesis import given
from hypothesis import strategies as st

from pyterrier_risk.data import (
    MQ2008_FOLDS,
    LetorFold,
    LetorSplit,
    agg_baseline_scores,
    check_feature_number,
    letor_folds,
    letor_n_features,
    read_letor,
    read_mq2008_agg,
    read_run,
    run_baseline_scores,
)
from pyterrier_risk.data._letor_folds import _max_feature_index


def letor_text(qids, *, rows=2, n_features=4, docids=True, qid_tokens=True, seed=0) -> str:
    """LETOR lines: ``rows`` rows per query, features 1..n_features, labels 0..2, docid = <qid>-d<i>."""
    rng = np.random.default_rng(seed)
    out = []
    for q in qids:
        for i in range(rows):
            feats = " ".join(f"{j}:{rng.random():.4f}" for j in range(1, n_features + 1))
            head = f"{rng.integers(0, 3)} qid:{q}" if qid_tokens else f"{rng.integers(0, 3)}"
            tail = f" #docid = {q}-d{i} inc = 1" if docids else ""
            out.append(f"{head} {feats}{tail}\n")
    return "".join(out)


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    opener = {".gz": gzip.open, ".bz2": bz2.open}.get(path.suffix)
    if opener is None:
        path.write_text(text)
    else:
        with opener(path, "wt") as fh:
            fh.write(text)
    return path


NAMES = ("train.txt", "vali.txt", "test.txt")


def fold_folder(root: Path, k: int = 3, names=NAMES, widths=(5, 5, 5)) -> Path:
    """Fold1..Fold<k>, queries disjoint per file (qid = 100 * fold + 10 * split + i)."""
    for f in range(1, k + 1):
        for s, (name, width) in enumerate(zip(names, widths, strict=True)):
            qids = [100 * f + 10 * s + i for i in range(3)]
            write(root / f"Fold{f}" / name, letor_text(qids, n_features=width))
    return root


def partitions(root: Path, k: int, suffix: str = ".txt") -> Path:
    for p in range(1, k + 1):
        write(root / f"S{p}{suffix}", letor_text([10 * p + i for i in range(2)], seed=p))
    return root


def part_qids(split: LetorSplit) -> list[str]:
    return list(dict.fromkeys(split.load().qid.tolist()))


# ---------------------------------------------------------------- folder layouts


def test_fold_folders_plain_and_compressed_read_as_read_letor(tmp_path):
    names = ("train.txt", "vali.txt.gz", "test.txt.bz2")
    root = fold_folder(tmp_path, names=names)
    folds = letor_folds(root)
    assert [f.name for f in folds] == ["Fold1", "Fold2", "Fold3"]
    for k, fold in enumerate(folds, 1):
        for split, name in zip((fold.train, fold.vali, fold.test), names, strict=True):
            ref = read_letor(root / f"Fold{k}" / name)
            got = split.load()
            assert np.array_equal(got.X, ref.X) and np.array_equal(got.qid, ref.qid)
            assert np.array_equal(got.group, ref.group) and np.array_equal(got.docno, ref.docno)


def test_fold_load_aligns_the_widths_to_the_folds_widest_file(tmp_path):
    folds = letor_folds(fold_folder(tmp_path, widths=(5, 3, 7)))
    train, vali, test = folds[0].load()
    assert train.X.shape[1] == vali.X.shape[1] == test.X.shape[1] == 7
    assert (vali.X[:, 3:] == 0).all() and letor_n_features(folds) == 7
    assert folds[0].vali.load().X.shape[1] == 3  # alone, a split is as wide as its own files


def test_letor3_file_names_and_a_flat_folder(tmp_path):
    names = ("trainingset.txt", "validationset.txt", "testset.txt")
    assert len(letor_folds(fold_folder(tmp_path / "ohsumed", 2, names=names))) == 2
    flat = tmp_path / "istella"
    for s, name in enumerate(("train.txt", "vali.txt", "test.txt")):
        write(flat / name, letor_text([10 * s, 10 * s + 1]))
    (fold,) = letor_folds(flat)
    assert fold.name == "Fold1" and part_qids(fold.test) == ["20", "21"]


@pytest.mark.parametrize("k", [3, 4, 5, 7])
def test_partitions_rotate_as_letor(tmp_path, k):
    folds = letor_folds(partitions(tmp_path, k, ".txt.gz"))
    assert len(folds) == k
    stems = [[[Path(p).name.split(".")[0] for p in s.files] for s in (f.train, f.vali, f.test)]
             for f in folds]
    for i, (train, vali, test) in enumerate(stems):
        order = [f"S{(i + j) % k + 1}" for j in range(k)]
        assert train == order[: k - 2] and vali == [order[k - 2]] and test == [order[k - 1]]
    assert sorted(t[2][0] for t in stems) == sorted(f"S{p}" for p in range(1, k + 1))  # each tested once
    train = folds[0].train.load()
    assert part_qids(folds[0].train) == [str(10 * p + i) for p in range(1, k - 1) for i in range(2)]
    assert train.group.tolist() == [2] * 2 * (k - 2) and (" + " in train.path) == (k > 3)


def test_partitions_win_over_fold_folders(tmp_path):
    fold_folder(tmp_path, 1)
    partitions(tmp_path, 5)
    folds = letor_folds(tmp_path)
    assert len(folds) == 5 and Path(folds[0].test.files[0]).name == "S5.txt"


def test_partitions_sharing_a_query_or_mixing_docids_fail_on_load(tmp_path):
    write(tmp_path / "a" / "S1.txt", letor_text([1]))
    write(tmp_path / "a" / "S2.txt", letor_text([1]))
    write(tmp_path / "a" / "S3.txt", letor_text([3]))
    write(tmp_path / "a" / "S4.txt", letor_text([4]))
    leak = r"Fold2: qid '1' is in both the train split \(.*S2.txt.*\) and the test split \(.*S1.txt\)"
    with pytest.raises(ValueError, match=leak):
        letor_folds(tmp_path / "a")  # found before any fold is loaded (issue 27 item 3)
    write(tmp_path / "b" / "S1.txt", letor_text([1]))
    write(tmp_path / "b" / "S2.txt", letor_text([2], docids=False))
    write(tmp_path / "b" / "S3.txt", letor_text([3]))
    write(tmp_path / "b" / "S4.txt", letor_text([4]))
    with pytest.raises(ValueError, match="docid = ...' comments in some of the files only"):
        letor_folds(tmp_path / "b")[0].train.load()


# ---------------------------------------------------------------- bad input: one line each


def one_line(excinfo) -> str:
    message = str(excinfo.value)
    assert "\n" not in message
    return message


def test_missing_split_gap_and_duplicate_files(tmp_path):
    root = fold_folder(tmp_path / "m")
    (root / "Fold2" / "vali.txt").unlink()
    with pytest.raises(FileNotFoundError, match=r"Fold2: no vali file") as e:
        letor_folds(root)
    one_line(e)
    root = fold_folder(tmp_path / "g")
    shutil.rmtree(root / "Fold2")
    with pytest.raises(ValueError, match=r"Fold2 is missing \(found Fold1, Fold3\)"):
        letor_folds(root)
    root = partitions(tmp_path / "p", 4)
    (root / "S3.txt").unlink()
    with pytest.raises(ValueError, match=r"partition S3 is missing \(found S1.txt, S2.txt, S4.txt\)"):
        letor_folds(root)
    root = fold_folder(tmp_path / "d", 1)
    write(root / "Fold1" / "test.txt.gz", "")
    with pytest.raises(ValueError, match=r"2 test files \(test.txt, test.txt.gz\)"):
        letor_folds(root)
    with pytest.raises(ValueError, match="2 partitions S1..S2; folds need at least 3"):
        letor_folds(partitions(tmp_path / "two", 2))
    (tmp_path / "nothing").mkdir()
    with pytest.raises(FileNotFoundError, match="not a LETOR folder"):
        letor_folds(tmp_path / "nothing")
    with pytest.raises(FileNotFoundError, match="LETOR data not found"):
        letor_folds(tmp_path / "nowhere")


def test_folds_option_must_match_the_input(tmp_path):
    root = fold_folder(tmp_path / "f", 1)
    with pytest.raises(ValueError, match="is a folder of folds: folds= splits one LETOR file"):
        letor_folds(root, folds=5)
    file = write(tmp_path / "all.txt", letor_text(range(4)))
    with pytest.raises(ValueError, match=r"is one LETOR file: give folds=K \(K >= 3\)"):
        letor_folds(file)
    with pytest.raises(ValueError, match="folds must be an integer >= 3, got 2"):
        letor_folds(file, folds=2)
    with pytest.raises(ValueError, match="folds=5 but the file has only 4 queries"):
        letor_folds(file, folds=5)
    with pytest.raises(TypeError, match="folds must be an integer"):
        letor_folds(file, folds=3.0)
    assert len(letor_folds(file, folds=4)) == 4


def test_empty_file_and_lines_without_qid_fail_before_loading(tmp_path):
    root = fold_folder(tmp_path / "e", 1)
    write(root / "Fold1" / "test.txt", "\n# only a comment\n")
    with pytest.raises(ValueError, match=r"test.txt: no data lines") as e:
        letor_folds(root)
    one_line(e)
    with pytest.raises(ValueError, match="no data lines"):
        letor_folds(write(tmp_path / "empty.txt", ""), folds=3)
    root = fold_folder(tmp_path / "q", 1)
    write(root / "Fold1" / "train.txt", letor_text([1, 2], qid_tokens=False))
    with pytest.raises(ValueError) as ours:
        letor_folds(root)
    with pytest.raises(ValueError) as theirs:
        read_letor(root / "Fold1" / "train.txt")
    assert str(ours.value) == str(theirs.value)  # read_letor's message, raised before any fold is read
    assert "lines carry no 'qid:' token" in one_line(ours)
    single = write(tmp_path / "noqid.txt", letor_text(range(3), qid_tokens=False))
    with pytest.raises(ValueError, match="lines carry no 'qid:' token and no query_file was given"):
        letor_folds(single, folds=3)


def test_single_file_with_mixed_or_scattered_qids(tmp_path):
    mixed = write(tmp_path / "mixed.txt", letor_text([1, 2]) + letor_text([3], qid_tokens=False))
    with pytest.raises(ValueError, match=r"mixed.txt:5: 'qid:' token present on some lines but not on oth"):
        letor_folds(mixed, folds=3)
    scattered = write(tmp_path / "scattered.txt", letor_text([1, 2, 1]))
    with pytest.raises(ValueError, match=r"scattered.txt:5: rows of qid '1' are not contiguous"):
        letor_folds(scattered, folds=3)


def test_single_file_with_a_lightgbm_query_file(tmp_path):
    file = write(tmp_path / "rank.train", letor_text(range(6), rows=3, docids=False, qid_tokens=False))
    write(tmp_path / "rank.train.query", "3\n" * 6)
    folds = letor_folds(file, folds=3, seed=1)
    assert folds[0].test.query_file == str(tmp_path / "rank.train.query")
    train, vali, test = folds[0].load()
    assert (train.n_queries, vali.n_queries, test.n_queries) == (2, 2, 2)
    assert test.qid.tolist() == [q for q in folds[0].test.qids for _ in range(3)]  # type: ignore[union-attr]
    with pytest.raises(FileNotFoundError, match="query file not found"):
        letor_folds(file, folds=3, query_file=tmp_path / "none.query")


def test_check_feature_number():
    assert check_feature_number(25, 46, "--baseline") == 24
    assert check_feature_number(np.int64(1), 1, "x") == 0
    for bad in (0, 47, -1):
        with pytest.raises(ValueError, match=rf"--baseline: feature {bad} is out of range: the data has 46"):
            check_feature_number(bad, 46, "--baseline")
    with pytest.raises(TypeError, match="must be an integer"):
        check_feature_number(True, 46, "--baseline")


# ---------------------------------------------------------------- digests


def test_digest_depends_on_bytes_qids_and_roles_not_on_paths(tmp_path):
    a = fold_folder(tmp_path / "a", 1)
    b = tmp_path / "elsewhere" / "b"
    shutil.copytree(a, b)
    fa, fb = letor_folds(a)[0], letor_folds(b)[0]
    assert fa.digest() == fb.digest() and fa.train.digest() == fb.train.digest()
    swapped = LetorFold("Fold1", fa.train, fa.test, fa.vali)
    assert swapped.digest() != fa.digest()
    assert LetorSplit(fa.train.files, ("100",)).digest() != fa.train.digest()
    path = Path(fb.train.files[0])
    text = path.read_text()
    path.write_text(text.replace("0.", "1.", 1))  # same size: the cache must still see the change
    os.utime(path, ns=(1, 1))
    assert letor_folds(b)[0].train.digest() != fa.train.digest()


def test_a_file_changed_after_the_split_fails_on_load(tmp_path):
    file = write(tmp_path / "all.txt", letor_text(range(6)))
    fold = letor_folds(file, folds=3)[0]
    write(file, letor_text(range(3)))
    with pytest.raises(ValueError, match="of the split's queries are missing, e.g. qid"):
        fold.load()  # three of the six queries are gone: some split misses one


# ---------------------------------------------------------------- widths


def test_width_scan_skips_comments_and_agrees_with_read_letor(tmp_path):
    text = "1 qid:3 2:0.5 11:1 # docid = x time 99:30 http://a\n0 qid:3 7:1e-3 # docid = y\n\n# 500:1\n"
    path = write(tmp_path / "c.txt.gz", text)
    assert _max_feature_index(str(path)) == read_letor(path).n_features == 11
    rng = np.random.default_rng(7)
    for i in range(20):
        lines = []
        for q in range(int(rng.integers(1, 5))):
            idx = np.sort(rng.choice(np.arange(1, 3000), size=int(rng.integers(1, 6)), replace=False))
            feats = " ".join(f"{j}:{rng.random():.3f}" for j in idx)
            lines.append(f"{rng.integers(0, 3)} qid:{q} {feats} # {rng.integers(1, 9999)}:{q}\n")
        path = write(tmp_path / f"r{i}.txt", "".join(lines))
        assert _max_feature_index(str(path)) == read_letor(path).n_features


# ---------------------------------------------------------------- the single-file split, a property


@given(n_queries=st.integers(3, 40), k=st.integers(3, 8), seed=st.integers(0, 2**32 - 1))
def test_single_file_split_partitions_the_queries(n_queries, k, seed):
    k = min(k, n_queries)
    qids = [str(1000 - 7 * i) for i in range(n_queries)]  # not sorted: file order must be kept
    with tempfile.TemporaryDirectory() as tmp:
        file = write(Path(tmp) / "all.txt", letor_text(qids, rows=1, n_features=2))
        folds = letor_folds(file, folds=k, seed=seed)
        assert [f.digest() for f in letor_folds(file, folds=k, seed=seed)] == [f.digest() for f in folds]
        tests = [q for f in folds for q in f.test.qids]  # type: ignore[union-attr]
        assert sorted(tests) == sorted(qids)  # every query tested exactly once over the K folds
        sizes = [len(f.test.qids) for f in folds]  # type: ignore[arg-type]
        assert max(sizes) - min(sizes) <= 1
        for f in folds:
            parts = [set(s.qids) for s in (f.train, f.vali, f.test)]  # type: ignore[arg-type]
            assert not (parts[0] & parts[1] or parts[0] & parts[2] or parts[1] & parts[2])
            assert set.union(*parts) == set(qids)
            for s in (f.train, f.vali, f.test):
                assert list(s.qids) == [q for q in qids if q in set(s.qids)]  # type: ignore[arg-type]
        loaded = folds[0].load()
        assert [list(dict.fromkeys(d.qid.tolist())) for d in loaded] == [
            list(s.qids) for s in (folds[0].train, folds[0].vali, folds[0].test)  # type: ignore[arg-type]
        ]


# ---------------------------------------------------------------- runs as baselines


def test_run_baseline_scores_ranks_unranked_rows_last_lowest_label_first(tmp_path):
    text = "".join(
        f"{label} qid:{q} 1:0.5 #docid = {d}\n"
        for q, d, label in [("1", "a", 2), ("1", "b", 0), ("1", "c", 1), ("1", "e", 0), ("2", "x", 1)]
    )
    data = read_letor(write(tmp_path / "t.txt", text))
    run = pd.DataFrame({"qid": ["1", "1", "3"], "docno": ["b", "a", "z"], "score": [5.0, 2.0, -4.0]})
    scores = run_baseline_scores(data, run, name="sys")
    assert scores[:2].tolist() == [1.0, 2.0]  # ranked rows keep the run's order (1 + rank of the score)
    assert scores[2] == pytest.approx(-1 / 3) and scores[3] == 0.0
    assert scores[4] == pytest.approx(-1 / 3)
    assert 1.0 > scores[3] > scores[2]  # unranked below everything, label 0 before label 1


def test_run_baseline_scores_errors(tmp_path):
    data = read_letor(write(tmp_path / "t.txt", letor_text([1, 2])))
    run = pd.DataFrame({"qid": ["1"], "docno": ["1-d0"], "score": [1.0]})
    no_doc = read_letor(write(tmp_path / "n.txt", letor_text([1], docids=False)))
    cases = [
        (no_doc, run, "rows without '#docid = ...' comments: run 'r' cannot be matched"),
        (data, run.drop(columns="score"), "run 'r' lacks the column"),
        (data, pd.concat([run, run]), r"lists a \(qid, docno\) pair twice"),
        (data, run.assign(qid="9"), "run 'r' matches none of the 4 rows"),
        (data, run.assign(score=np.inf), "infinite or NaN score"),
    ]
    for d, r, message in cases:
        with pytest.raises(ValueError, match=message):
            run_baseline_scores(d, r, name="r")


# ---------------------------------------------------------------- real data


@pytest.mark.realdata
def test_mq2008_partitions_give_letors_folds_and_the_shipped_fold1():
    root = data_path("letor4-mq2008")
    folds = letor_folds(root)
    assert [f.name for f in folds] == [f"Fold{k}" for k in range(1, 6)]
    for k, fold in enumerate(folds, 1):
        train, vali, test = MQ2008_FOLDS[k]
        stems = [[Path(f).name.split(".")[0] for f in s.files] for s in (fold.train, fold.vali, fold.test)]
        assert stems == [list(train), [vali], [test]]
    assert letor_n_features(folds) == 46
    (shipped,) = letor_folds(root / "Fold1")
    for ours, theirs in zip(folds[0].load(), shipped.load(), strict=True):
        assert np.array_equal(ours.X, theirs.X) and np.array_equal(ours.y, theirs.y)
        assert np.array_equal(ours.qid, theirs.qid) and np.array_equal(ours.docno, theirs.docno)
        assert np.array_equal(ours.group, theirs.group)


@pytest.mark.realdata
def test_mq2008_agg_runs_as_baselines_match_agg_baseline_scores():
    agg_dir = data_path("letor4-mq2008-agg")
    test = letor_folds(data_path("letor4-mq2008"))[0].test.load()
    reference = agg_baseline_scores(test.to_frame(), read_mq2008_agg(agg_dir))
    for j in (1, 6, 9, 25):
        run = read_run(agg_dir / "derived_trec" / "runs" / f"ranker{j:02d}.run.gz")
        ours, theirs = run_baseline_scores(test, run, name=f"ranker{j:02d}"), reference[:, j - 1]
        keys = pd.MultiIndex.from_arrays([test.qid, test.docno])
        ranked = keys.isin(pd.MultiIndex.from_frame(run[["qid", "docno"]]))
        assert ranked.any()  # the values differ (ours are ranks), the order must not:
        ranks = pd.DataFrame({"qid": test.qid, "ours": ours, "theirs": theirs}).groupby("qid")
        # the same order (ties included) of every query's documents
        assert ranks["ours"].rank(method="dense").equals(ranks["theirs"].rank(method="dense"))


@pytest.mark.realdata
def test_lightgbm_example_splits_by_its_query_file():
    path = data_path("lightgbm-lambdarank-example", "rank.train")
    folds = letor_folds(path, folds=5, seed=0)
    assert sum(len(f.test.qids) for f in folds) == 201  # type: ignore[arg-type]
    train, vali, test = folds[2].load()
    assert len(train) + len(vali) + len(test) == len(read_letor(path))
    assert train.X.shape[1] == test.X.shape[1] == letor_n_features(folds)


def test_a_fold_built_by_hand_with_a_query_in_two_splits_fails_its_check_and_its_load(tmp_path):
    """``check_disjoint`` scans the qid: tokens; ``load`` checks the data it read (issue 27 item 3)."""
    train = write(tmp_path / "train.txt", letor_text([1, 2, 3]))
    vali = write(tmp_path / "vali.txt", letor_text([4]))
    test = write(tmp_path / "test.txt", letor_text([5, 2]))
    fold = LetorFold("FoldX", LetorSplit((str(train),)), LetorSplit((str(vali),)), LetorSplit((str(test),)))
    leak = r"FoldX: qid '2' is in both the train split \(.*train.txt\) and the test split \(.*test.txt\)"
    with pytest.raises(ValueError, match=leak):
        fold.check_disjoint()
    with pytest.raises(ValueError, match=leak):
        fold.load()
    assert fold.train.queries() == ("1", "2", "3") and fold.test.queries() == ("5", "2")
