from __future__ import annotations

import gzip
from pathlib import Path

import numpy as np
import pytest
from helpers import data_path
from hypothesis import given, settings
from hypothesis import strategies as st

from pyterrier_risk.data import LetorData, read_letor

SAMPLE = """\
# a whole-line comment
2 qid:7 1:0.5 3:1.25 #docid = D1 inc = 1 prob = 0.1
0 qid:7 2:-1 #docid = D2
1.0 qid:3 1:1 2:2 3:3 #docid = D3

"""


def write(tmp_path: Path, text: str, name: str = "f.txt") -> Path:
    p = tmp_path / name
    p.write_text(text)
    return p


def naive_parse(path: Path) -> tuple[list[int], list[str], list[dict[int, float]], list[str | None]]:
    """Independent line-by-line reference parser."""
    opener = gzip.open if path.suffix == ".gz" else open
    labels, qids, feats, docs = [], [], [], []
    with opener(path, "rt") as fh:
        for line in fh:
            body, _, comment = line.partition("#")
            toks = body.split()
            if not toks:
                continue
            labels.append(int(float(toks[0])))
            rest = toks[1:]
            if rest and rest[0].startswith("qid:"):
                qids.append(rest[0][4:])
                rest = rest[1:]
            feats.append({int(t.split(":")[0]): float(t.split(":")[1]) for t in rest})
            c = comment.split()
            docs.append(c[2] if len(c) > 2 and c[0] == "docid" else None)
    return labels, qids, feats, docs


def test_small_file(tmp_path):
    d = read_letor(write(tmp_path, SAMPLE))
    assert isinstance(d, LetorData)
    np.testing.assert_array_equal(d.X, [[0.5, 0, 1.25], [0, -1, 0], [1, 2, 3]])
    assert d.X.dtype == np.float64
    np.testing.assert_array_equal(d.y, [2, 0, 1])
    assert d.y.dtype.kind == "i"
    assert list(d.qid) == ["7", "7", "3"]
    assert list(d.docno) == ["D1", "D2", "D3"]
    np.testing.assert_array_equal(d.group, [2, 1])
    assert d.n_queries == 2 and d.n_features == 3 and len(d) == 3
    with pytest.raises(ValueError):
        d.X[0, 0] = 1.0  # read-only
    with pytest.raises(AttributeError):
        d.y = None  # frozen


def test_gzip_and_n_features(tmp_path):
    p = tmp_path / "f.txt.gz"
    with gzip.open(p, "wt") as fh:
        fh.write(SAMPLE)
    d = read_letor(p, n_features=5)
    assert d.X.shape == (3, 5)
    assert d.X[2, 4] == 0.0
    with pytest.raises(ValueError, match="n_features=2"):
        read_letor(p, n_features=2)


def test_to_frame(tmp_path):
    df = read_letor(write(tmp_path, SAMPLE)).to_frame()
    assert list(df.columns) == ["qid", "docno", "features", "label"]
    assert list(df.qid) == ["7", "7", "3"] and list(df.docno) == ["D1", "D2", "D3"]
    assert isinstance(df.features.iloc[0], np.ndarray)
    np.testing.assert_array_equal(df.features.iloc[2], [1, 2, 3])
    assert list(df.label) == [2, 0, 1]


def test_query_file_grouping(tmp_path):
    p = write(tmp_path, "1 1:1\n0 2:1\n3 1:2\n", "rank.train")
    q = write(tmp_path, "2\n1\n", "groups.txt")
    d = read_letor(p, query_file=q)
    np.testing.assert_array_equal(d.group, [2, 1])
    assert list(d.qid) == ["1", "1", "2"]
    assert d.docno is None
    assert list(d.to_frame().docno) == ["1_0", "1_1", "2_0"]
    # <path>.query is picked up automatically, as LightGBM does
    write(tmp_path, "1\n2\n", "rank.train.query")
    np.testing.assert_array_equal(read_letor(p).group, [1, 2])


@pytest.mark.parametrize(
    "text, match",
    [
        ("x qid:1 1:1\n", r"f\.txt:1: relevance label 'x' is not an integer"),
        ("1 qid:1 1:1\n1.5 qid:1 1:1\n", r"f\.txt:2: relevance label '1\.5' is not an integer"),
        ("0.99999999999999999999 qid:1 1:1\n", r"f\.txt:1: relevance label '0\.9+' is not an integer"),
        ("1e0 qid:1 1:1\n", r"f\.txt:1: relevance label '1e0' is not an integer"),
        ("1 qid:1 1:1\n1 qid:1 1:a\n", r"f\.txt:2: feature value 'a'"),
        ("1 qid:1 1:1_0\n", r"f\.txt:1: feature value '1_0' is not a number"),
        ("1 qid:1 1:\uff11\n", r"f\.txt:1: feature value '\uff11' is not a number"),
        ("1 qid:1 0:1\n", r"f\.txt:1: feature index 0 is outside \[1, 2147483647\]"),
        ("1 qid:1 99999999999999999999:1\n", r"f\.txt:1: feature index 99999999999999999999 is outside"),
        ("1 qid:1 +1:2\n", r"f\.txt:1: feature index '\+1' is not an integer"),
        ("1 qid:1 1.0:2\n", r"f\.txt:1: feature index '1\.0' is not an integer"),
        # two faults whose colons add up ("3" has none, "4:5:6" one too many) were read as 1:2 3:4 5:6
        ("1 qid:1 1:2 3 4:5:6\n", r"f\.txt:1: malformed feature token '3'"),
        ("1 qid:1 1:0.5 7 8::\n", r"f\.txt:1: malformed feature token '7'"),  # was a numpy broadcast error
        ("1 qid:1 1: :3\n", r"f\.txt:1: malformed feature token '1:'"),  # was read as 1:3
        ("1 qid:1 2:1\n1 qid:1 :3 1:\n", r"f\.txt:2: malformed feature token ':3'"),
        ("1 qid:1 1:1 1:2\n", r"f\.txt:1: feature index 1 appears twice"),
        ("1 qid:1 1:1\n1 qid:1 1\n", r"f\.txt:2: malformed feature token '1'"),
        ("1 qid:1 1:1:1\n", r"f\.txt:1: malformed feature token"),
        ("1 qid:1 1:1\n1 qid:2 1:1\n1 qid:1 1:1\n", r"f\.txt:3: rows of qid '1' are not contiguous"),
        ("1 qid:1 1:1\n1 1:1\n", r"f\.txt:2: 'qid:' token present on some lines"),
        ("1 qid:1 1:1 #docid = A\n1 qid:1 1:1\n", r"f\.txt:2: no '#docid"),
        ("# nothing\n\n", r"no data lines"),
        ("1 1:1\n", r"no 'qid:' token and no query_file"),
    ],
)
def test_bad_input_names_file_and_line(tmp_path, text, match):
    with pytest.raises(ValueError, match=match):
        read_letor(write(tmp_path, text))


def test_undecodable_or_truncated_file_is_a_value_error_naming_it(tmp_path):
    p = tmp_path / "latin1.txt"
    p.write_bytes(b"1 qid:1 1:0.5\n1 qid:1 2:0.5 #docid = D\xe9\n")
    with pytest.raises(ValueError, match=r"latin1\.txt: not UTF-8 text \(undecodable byte 0xe9\)"):
        read_letor(p)
    whole = gzip.compress(b"".join(b"1 qid:%d 1:0.5\n" % i for i in range(5000)))
    p = tmp_path / "cut.txt.gz"
    p.write_bytes(whole[: len(whole) // 2])
    with pytest.raises(ValueError, match=r"cut\.txt\.gz: cannot read the file after line \d+: Compressed"):
        read_letor(p)


def test_n_features_must_be_an_integer(tmp_path):
    p = write(tmp_path, SAMPLE)
    with pytest.raises(TypeError, match="n_features must be an integer"):
        read_letor(p, n_features="5")
    with pytest.raises(ValueError, match=r"f\.txt:2: feature index 3 > n_features=2"):
        read_letor(p, n_features=2)


def test_bad_query_file(tmp_path):
    p = write(tmp_path, "1 1:1\n0 2:1\n")
    with pytest.raises(ValueError, match="sum to 3 but"):
        read_letor(p, query_file=write(tmp_path, "3\n", "q"))
    with pytest.raises(ValueError, match=r"q2:1: query size 'x'"):
        read_letor(p, query_file=write(tmp_path, "x\n", "q2"))
    for size in ("1_1", "+2", "2.0", "\uff12"):  # Python's int() takes the first three, the last too
        with pytest.raises(ValueError, match=r"q4:1: query size .* is not an integer"):
            read_letor(p, query_file=write(tmp_path, f"{size}\n", "q4"))
    with pytest.raises(FileNotFoundError):
        read_letor(p, query_file=tmp_path / "missing")
    with pytest.raises(FileNotFoundError):
        read_letor(tmp_path / "missing.txt")
    q = write(tmp_path, "1\n1\n", "q3")
    with pytest.raises(ValueError, match="disagree"):
        read_letor(write(tmp_path, "1 qid:1 1:1\n0 qid:1 2:1\n", "g.txt"), query_file=q)


@pytest.mark.realdata
def test_mq2008_matches_naive_parser():
    path = data_path("letor4-mq2008", "S1.txt.gz")
    d = read_letor(path)
    labels, qids, feats, docs = naive_parse(path)
    assert d.X.shape == (2933, 46) and d.n_queries == 157  # README counts
    np.testing.assert_array_equal(d.y, labels)
    assert list(d.qid) == qids and list(d.docno) == docs
    dense = np.zeros_like(d.X)
    for i, row in enumerate(feats):
        for j, v in row.items():
            dense[i, j - 1] = v
    np.testing.assert_array_equal(d.X, dense)
    np.testing.assert_array_equal(np.bincount(d.y), [2316, 427, 190])


@pytest.mark.realdata
def test_lightgbm_example_matches_lightgbm():
    lgb = pytest.importorskip("lightgbm")
    path = data_path("lightgbm-lambdarank-example", "rank.train")
    d = read_letor(path)  # rank.train.query found automatically
    assert d.X.shape == (3005, 300) and d.n_queries == 201
    ds = lgb.Dataset(str(path), params={"verbose": -1}).construct()
    np.testing.assert_array_equal(d.y, ds.get_label())
    np.testing.assert_array_equal(d.group, np.diff(ds.get_field("group")))
    labels, _, feats, _ = naive_parse(path)
    np.testing.assert_array_equal(d.y, labels)
    assert all(d.X[i, j - 1] == v for i, row in enumerate(feats) for j, v in row.items())
    assert np.count_nonzero(d.X) == sum(sum(v != 0 for v in row.values()) for row in feats)


def test_fast_path_fills_a_dense_matrix_and_leaves_a_sparse_one_to_the_caller(tmp_path, monkeypatch):
    from pyterrier_risk.data import _letor, _letor_fast

    rng = np.random.default_rng(7)
    X = np.round(rng.random((40, 5)), 3)
    lines = [f"{i % 3} qid:{i // 4} " + " ".join(f"{j + 1}:{X[i, j]}" for j in range(5)) for i in range(40)]
    dense = write(tmp_path, "\n".join(lines) + "\n", "dense.txt")
    monkeypatch.setattr(_letor_fast, "_PIECE", 97)  # many pieces, most ending inside a line
    rows = _letor._fast_rows(dense, None)
    assert rows is not None and rows.X is not None and len(rows.cols) == 0
    assert np.array_equal(read_letor(dense).X, X)
    # a stray large index: the fast path does not allocate the 2 x 2^31 - 1 matrix, it hands over the
    # (row, column, value) triples, as the strict parser does
    sparse = write(tmp_path, "1 qid:1 1:0.5\n0 qid:1 2147483647:2\n", "sparse.txt")
    rows = _letor._fast_rows(sparse, None)
    assert rows is not None and rows.X is None
    assert rows.rows.tolist() == [0, 1] and rows.cols.tolist() == [0, 2**31 - 2]
    assert rows.vals.tolist() == [0.5, 2]
    assert rows.linenos.tolist() == [1, 2] and rows.y.tolist() == [1, 0] and list(rows.qids) == ["1", "1"]
    # given n_features, the fast path fills the matrix however sparse
    few = write(tmp_path, "1 qid:1 1:0.5\n0 qid:1 3:2\n", "few.txt")
    rows = _letor._fast_rows(few, 10)
    assert rows is not None and rows.X is not None and rows.X.shape == (2, 10)
    assert np.array_equal(read_letor(few, n_features=10).X[:, :3], [[0.5, 0, 0], [0, 0, 2]])


# -- a memory bomb: one stray index sizes the dense matrix (issue 21, item 7) ----------------------
def test_a_stray_huge_index_is_refused_in_one_line_naming_the_line_and_the_way_out(tmp_path):
    p = write(tmp_path, "0 qid:1 1:0.5 2:1\n1 qid:1 2147483647:1\n")
    with pytest.raises(ValueError, match=r"f\.txt:2: feature index 2147483647 would make the dense 2 × "
                                         r"2147483647 matrix 32\.0 GiB, but the file uses only 3 distinct "
                                         r"indices .*give n_features="):
        read_letor(p)
    with pytest.raises(ValueError, match=r"f\.txt:2: feature index 2147483647 > n_features=2"):
        read_letor(p, n_features=2)  # the way out for a typo: the intended width


def _letor_lines(rows: list[dict[int, float]]) -> str:
    return "".join(f"{i % 3} qid:{i // 4} " + " ".join(f"{k}:{v}" for k, v in sorted(r.items())) + "\n"
                   for i, r in enumerate(rows))


@st.composite
def _feature_rows(draw):
    """Rows of sparse features, indices mostly small, sometimes one far beyond the others."""
    n = draw(st.integers(1, 12))
    rows = [draw(st.dictionaries(st.integers(1, 40), st.sampled_from([0.5, 1.0, -2.0]), max_size=5))
            for _ in range(n)]
    if draw(st.booleans()):
        rows[draw(st.integers(0, n - 1))][draw(st.integers(41, 2**31 - 1))] = 1.0
    return rows


@settings(deadline=None, max_examples=150)
@given(rows=_feature_rows(), limit=st.sampled_from([1 << 10, 1 << 14, 1 << 30]))
def test_the_dense_width_is_refused_exactly_when_too_large_and_too_sparse(tmp_path_factory, rows, limit):
    """Property: refused iff rows × (largest index) × 8 bytes > the limit and the largest index exceeds 16 ×
    the distinct indices used; otherwise the matrix equals the written features (an independent reading)."""
    from pyterrier_risk.data import _letor

    p = tmp_path_factory.mktemp("bomb") / "f.txt"
    p.write_text(_letor_lines(rows))
    used = {k for r in rows for k in r}
    width = max(used, default=0)
    refused = len(rows) * width * 8 > limit and width > 16 * len(used)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(_letor, "_MAX_INFERRED_BYTES", limit)  # a small limit, so that both sides are drawn
        if refused:
            with pytest.raises(ValueError, match=rf"f\.txt:\d+: feature index {width} would make the dense"):
                read_letor(p)
            return
        data = read_letor(p)
    assert data.X.shape == (len(rows), width)
    for i, r in enumerate(rows):
        assert {k + 1: v for k, v in enumerate(data.X[i]) if v != 0} == {k: v for k, v in r.items() if v != 0}
