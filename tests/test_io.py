"""Strict TREC run/qrels readers: good files, malformed lines, duplicates, unreadable files, irds ids."""

from __future__ import annotations

import bz2
import gzip
import lzma
import math
from decimal import Decimal

import ir_measures
import pandas as pd
import pytest
from helpers import data_path

from pyterrier_risk import read_qrels, read_run
from pyterrier_risk.core import TopicPolicyWarning

RUN_TEXT = "1 Q0 a 0 2.5 sys\n1 Q0 b 1 1.5 sys\n\n2 Q0 a 0 -3e-1 sys\n"
QRELS_TEXT = "1 0 a 1\n1 0 b 0\n2 0 a 2\n3 0 c 1\n"


def write(tmp_path, name, text, gz=False):
    path = tmp_path / name
    if gz:
        with gzip.open(path, "wt") as fh:
            fh.write(text)
    else:
        path.write_text(text)
    return path


@pytest.mark.parametrize("gz", [False, True])
def test_read_run(tmp_path, gz):
    path = write(tmp_path, "my.run.gz" if gz else "my.run", RUN_TEXT, gz)
    run = read_run(path)
    assert list(run.columns) == ["qid", "docno", "rank", "score", "name"]
    assert run["qid"].tolist() == ["1", "1", "2"] and run["docno"].tolist() == ["a", "b", "a"]
    assert run["score"].tolist() == [2.5, 1.5, -0.3] and run["rank"].tolist() == [0, 1, 0]
    assert set(run["name"]) == {"my"}
    assert read_run(path, name="x")["name"].iloc[0] == "x"
    dotted = write(tmp_path, "BM25b0.75", RUN_TEXT)
    assert read_run(dotted)["name"].iloc[0] == "BM25b0.75"


def test_read_run_gzip_detected_by_content(tmp_path):
    path = write(tmp_path, "noext", RUN_TEXT, gz=True)
    assert len(read_run(path)) == 3


@pytest.mark.parametrize(
    ("text", "match"),
    [
        ("1 Q0 a 0 2.5 sys\n1 Q0 b 1 1.5\n", r"bad.run:2: expected 6 fields"),
        ("1 Q0 a 0 2.5 sys extra\n", r"bad.run:1: expected 6 fields"),
        ("1 Q0 a 0 high sys\n", r"bad.run:1: score 'high' is not a number"),
        ("1 Q0 a first 1.0 sys\n", r"bad.run:1: rank 'first' is not an integer"),
        ("1 Q0 a 0 nan sys\n", r"bad.run:1: score is NaN"),
        (
            "1 Q0 a 0 2 s\n1 Q0 b 1 1 s\n1 Q0 a 2 0 s\n",
            r"bad.run:3: document 'a' is listed twice for topic '1'.*line 1",
        ),
        ("\n\n", r"bad.run: run file has no results"),
    ],
)
def test_read_run_malformed(tmp_path, text, match):
    path = write(tmp_path, "bad.run", text)
    with pytest.raises(ValueError, match=match):
        read_run(path)


def test_read_run_unreadable(tmp_path):
    with pytest.raises(FileNotFoundError, match="run file not found"):
        read_run(tmp_path / "missing.run")
    with pytest.raises(IsADirectoryError, match="directory"):
        read_run(tmp_path)
    binary = tmp_path / "binary.run"
    binary.write_bytes(bytes(range(128, 256)))
    with pytest.raises(ValueError, match="binary.run: not a text run file"):
        read_run(binary)
    broken = tmp_path / "broken.run.gz"
    broken.write_bytes(gzip.compress(RUN_TEXT.encode())[:20])
    with pytest.raises(ValueError, match="broken.run.gz: cannot read run file"):
        read_run(broken)


def test_read_run_topic_policy(tmp_path):
    qrels = read_qrels(write(tmp_path, "q.txt", QRELS_TEXT))
    run_text = RUN_TEXT + "9 Q0 z 0 1.0 sys\n"
    with pytest.warns(TopicPolicyWarning) as record:
        run = read_run(write(tmp_path, "r.run", run_text), qrels=qrels)
    messages = [str(w.message) for w in record]
    assert any("no results for 1 of the 3 qrels topics" in m for m in messages)  # topic 3
    assert any("1 topic(s) that are not in the qrels" in m for m in messages)  # topic 9
    assert sorted(set(run["qid"])) == ["1", "2"]


def test_read_qrels(tmp_path):
    qrels = read_qrels(write(tmp_path, "q.txt", QRELS_TEXT.replace("3 0 c 1", "3 0 c 1.0")))
    assert list(qrels.columns) == ["qid", "docno", "label"]
    assert qrels["label"].tolist() == [1, 0, 2, 1]
    assert qrels["qid"].tolist() == ["1", "1", "2", "3"]
    assert len(read_qrels(write(tmp_path, "q.gz", QRELS_TEXT, gz=True))) == 4


@pytest.mark.parametrize(
    ("text", "match"),
    [
        ("1 0 a 1\n1 0 b\n", r"bad.qrels:2: expected 4 fields"),
        ("1 0 a rel\n", r"bad.qrels:1: relevance label 'rel' is not an integer"),
        ("1 0 a 0.5\n", r"bad.qrels:1: relevance label '0.5'"),
        ("1 0 a 1\n1 0 a 0\n", r"bad.qrels:2: document 'a' is judged twice for topic '1'"),
        ("", r"bad.qrels: qrels file has no judgments"),
    ],
)
def test_read_qrels_malformed(tmp_path, text, match):
    with pytest.raises(ValueError, match=match):
        read_qrels(write(tmp_path, "bad.qrels", text))


def test_read_qrels_ir_datasets():
    qrels = read_qrels("irds:vaswani")
    assert list(qrels.columns) == ["qid", "docno", "label"]
    assert qrels["qid"].nunique() == 93
    pd.testing.assert_frame_equal(read_qrels("vaswani"), qrels)
    with pytest.raises(ValueError, match="unknown ir_datasets id 'no/such/dataset'"):
        read_qrels("irds:no/such/dataset")
    with pytest.raises(FileNotFoundError, match="not an ir_datasets id either"):
        read_qrels("no/such/file.txt")


def test_real_run_matches_ir_measures_reader():
    path = data_path("trec-web-2012-risk", "runs", "indri-rm-cata-filtered.run.gz")
    run = read_run(path)
    reference = list(ir_measures.read_trec_run(str(path)))
    assert len(run) == len(reference) == 8083
    assert run["name"].iloc[0] == "indri-rm-cata-filtered"
    assert [(r.query_id, r.doc_id, r.score) for r in reference[:50]] == list(
        run[["qid", "docno", "score"]].head(50).itertuples(index=False, name=None)
    )
    qrels = read_qrels(data_path("trec-web-2012-risk", "qrels.web.151-200.txt"))
    assert len(qrels) == 16055 and qrels["qid"].nunique() == 50


# ----------------------------------------------------------- encodings, compression, number formats
def _same_frame(a, b):
    pd.testing.assert_frame_equal(a.reset_index(drop=True), b.reset_index(drop=True))


def test_byte_order_mark_is_ignored(tmp_path):
    bom = "\ufeff"
    run = read_run(write(tmp_path, "r.run", RUN_TEXT))
    qrels = read_qrels(write(tmp_path, "q.txt", QRELS_TEXT))
    _same_frame(read_run(write(tmp_path, "r.run", bom + RUN_TEXT)), run)
    _same_frame(read_qrels(write(tmp_path, "q.txt", bom + QRELS_TEXT)), qrels)
    # `cat a b` of two files with a mark each leaves one at a line start
    lines = QRELS_TEXT.splitlines(keepends=True)
    joined = read_qrels(write(tmp_path, "q.txt", bom + "".join(lines[:2]) + bom + "".join(lines[2:])))
    _same_frame(joined, qrels)
    assert not any("\ufeff" in q for q in joined["qid"])
    # in a gzipped file too
    _same_frame(read_qrels(write(tmp_path, "q.gz", bom + QRELS_TEXT, gz=True)), qrels)


@pytest.mark.parametrize("compress", [gzip.compress, bz2.compress, lzma.compress])
@pytest.mark.parametrize("name", ["r.run", "r.run.gz", "r.run.bz2", "r.run.xz", "r"])
def test_compression_is_recognised_by_content(tmp_path, compress, name):
    expected = read_run(write(tmp_path, "plain.run", RUN_TEXT), name="r")
    path = tmp_path / name
    path.write_bytes(compress(RUN_TEXT.encode()))
    _same_frame(read_run(path), expected)
    path.write_bytes(RUN_TEXT.encode())  # and an uncompressed file with any suffix
    _same_frame(read_run(path), expected)
    qrels = tmp_path / ("q" + name[1:])
    qrels.write_bytes(compress(QRELS_TEXT.encode()))
    _same_frame(read_qrels(qrels), read_qrels(write(tmp_path, "plain.qrels", QRELS_TEXT)))


def test_text_starting_like_bzip2_is_text(tmp_path):
    run = read_run(write(tmp_path, "r.run", "BZh9 Q0 a 1 1.0 t\n"))
    assert run["qid"].tolist() == ["BZh9"]


@pytest.mark.parametrize("compress", [bz2.compress, lzma.compress, gzip.compress])
def test_truncated_compressed_file(tmp_path, compress):
    path = tmp_path / "cut.run"
    path.write_bytes(compress(RUN_TEXT.encode() * 50)[:40])
    with pytest.raises(ValueError, match="cut.run: cannot read run file"):
        read_run(path)


def test_open_text_is_the_shared_opener(tmp_path):
    from pyterrier_risk.data._trec import open_text

    path = tmp_path / "f"
    path.write_bytes(lzma.compress(("\ufeff" + "line 1\r\nline 2\n").encode()))
    with open_text(path) as fh:
        assert fh.read() == "line 1\nline 2\n"


@pytest.mark.parametrize(
    ("data", "match"),
    [
        (b"1 Q0 a 1 1.0 t\n1 Q0 a\x00b 2 0.5 t\n", r"bad.run:2: NUL byte"),
        (b"1 Q0 caf\xe9 1 1.0 t\n", r"bad.run: not a text run file"),  # latin-1
        ("1 Q0 a 1 1.0 t\n".encode("utf-16"), r"bad.run: not a text run file"),
        (b"1 Q0 a 1_0 1.0 t\n", r"bad.run:1: rank '1_0' is not an integer"),
        (b"1 Q0 a 1 1_0.5 t\n", r"bad.run:1: score '1_0.5' is not a number"),
        ("1 Q0 a \u0661 1.0 t\n".encode(), r"bad.run:1: rank '\u0661' is not an integer"),
        (b"1 Q0 a 99999999999999999999 1.0 t\n", r"bad.run:1: rank 99999999999999999999 does not fit"),
    ],
)
def test_read_run_rejects_bytes_and_numbers_c_tools_read_differently(tmp_path, data, match):
    path = tmp_path / "bad.run"
    path.write_bytes(data)
    with pytest.raises(ValueError, match=match):
        read_run(path)


def test_infinite_and_huge_scores_are_kept(tmp_path):
    huge = "1" + "0" * 400
    text = f"1 Q0 a 1 inf t\n1 Q0 b 2 -inf t\n1 Q0 c 3 1e400 t\n1 Q0 d 4 {huge} t\n1 Q0 e 5 1e308 t\n"
    run = read_run(write(tmp_path, "r.run", text))
    assert run["score"].tolist() == [math.inf, -math.inf, math.inf, math.inf, 1e308]


@pytest.mark.parametrize(
    ("label", "ok"),
    [("2147483647", True), ("-2147483648", True), ("2147483648", False), ("-2147483649", False),
     ("4294967296", False), ("1e400", False), ("1_0", False), ("\u0661", False), ("3.0", True),
     # exact integer spellings only: trec_eval's atol reads "1e1" as 1 and the next one as 0
     ("0.99999999999999999999", False), ("1e0", False), ("1e1", False), ("1.5", False), (".0", False),
     ("1.", True), ("+2", True), ("-0.00", True), ("007", True)],
)
def test_qrels_labels_must_fit_the_evaluators_int(tmp_path, label, ok):
    path = write(tmp_path, "q.txt", f"1 0 a {label}\n")
    if ok:
        assert read_qrels(path)["label"].tolist() == [int(Decimal(label))]
    else:
        with pytest.raises(ValueError, match=r"q.txt:1: relevance label"):
            read_qrels(path)


# ------------------------------------------- the fast (pandas) path agrees with the strict parser
# read_run/read_qrels parse with pandas' C parser and fall back to the strict line-by-line parser
# whenever the fast path cannot vouch for a file; these tests compare the two on nasty input.
NUMBER_TOKENS = [
    "0", "7", "-3", "+5", "007", "-0", "+0", "1.0", "1.", ".5", "-.5e-3", "1e3", "1E+3", "1e", "1.5e+",
    "1_0", "1_0.5", "0x10", "1d5", "inf", "-inf", "+Infinity", "iNfInItY", "infinit", "nan", "-nan",
    "NaN", "1e400", "-1e400", "1e-400", "5e-324", "2.4703282292062328e-324", "1.7976931348623159e308",
    "9223372036854775807", "9223372036854775808", "-9223372036854775808", "-9223372036854775809",
    "99999999999999999999", "2147483647", "2147483648", "-2147483649", "3.0",
    "0.1000000000000000055511151231257827", "0.99999999999999999999", "1e0", "1.00",
    "\u0661", "\uff11", "1,5", "1.5.5", "--1", "", "-", "+", ".", "e5", "0e0", "1" * 30, "0." + "1" * 40,
]
ODD_TEXT = ["a", "b", "D-5", "dé", "\"a\"", "'a'", "a#b", "a\\", "a\x1ab", "NA", "null", "nan", "Q0",
            "\ufeffa", "a\u00a0b", "a\u2003b", "a\u3000b", "a\x0bb", "a\x0cb", "a\x1cb", "a\x1fb", "a\x85b",
            "a\u2028b", "a\x00b", "1", "01", "x y"]
SEPARATORS = [" ", "\t", "  ", " \t "]
EOLS = ["\n", "\r\n", "\r"]


def _strict_or_error(read, path):
    """The strict parser's result as plain lists, or its error message."""
    try:
        return [list(col) for col in read(path)]
    except ValueError as e:
        return f"ValueError: {e}"


def _public_or_error(read, path, columns):
    try:
        frame = read(path)
    except ValueError as e:
        return f"ValueError: {e}"
    return [frame[c].tolist() for c in columns]


def _same(a, b):
    """Equal results or messages; floats compared bit for bit (the sign of zero too)."""
    if isinstance(a, str) or isinstance(b, str):
        return a == b
    return len(a) == len(b) and all(
        len(x) == len(y) and all(
            (u == v and type(u) is type(v) or (isinstance(u, float) and u != u and v != v))
            and (not isinstance(u, float) or math.copysign(1, u) == math.copysign(1, v))
            for u, v in zip(x, y, strict=True)
        )
        for x, y in zip(a, b, strict=True)
    )


from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

# seeded by the test profile (tests/conftest.py); HYPOTHESIS_PROFILE=explore draws new examples
DIFFERENTIAL = settings(deadline=None, max_examples=300,
                        suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])


CLEAN_RANKS = ["0", "7", "-3", "+5", "007", "-0", "9223372036854775807", "-9223372036854775808"]
CLEAN_SCORES = ["0", "2.5", "-0", "+1.5", ".5", "1.", "-.5e-3", "1E+3", "inf", "-Infinity", "1e400", "1e-400",
                "5e-324", "1.7976931348623157e308", "0.1000000000000000055511151231257827", "1" * 30]
CLEAN_TEXT = ["dé", "\"a\"", "'a'", "a#b", "a\\", "a\x1ab", "NA", "null", "nan", "Q0", "1", "01"]


def _token(draw, clean, nasty):
    """A token from ``clean`` mostly; from ``nasty`` (anything, often invalid) now and then."""
    return draw(st.sampled_from(nasty if draw(st.integers(0, 19)) == 0 else clean))


@st.composite
def _run_file(draw):
    """Mostly valid run files with odd but legal text; one nasty token or field count now and then."""
    rows = []
    for _ in range(draw(st.integers(1, 8))):
        width = 6 if draw(st.integers(0, 19)) else draw(st.sampled_from([4, 5, 7, 8]))
        fields = [_token(draw, ["1", "2", "01", "dé", "NA"], ODD_TEXT), "Q0",
                  _token(draw, [f"d{i}" for i in range(30)] + CLEAN_TEXT, ODD_TEXT),
                  _token(draw, CLEAN_RANKS, NUMBER_TOKENS), _token(draw, CLEAN_SCORES, NUMBER_TOKENS),
                  _token(draw, ["t", "sys", "1", *CLEAN_TEXT], ODD_TEXT)]
        rows.append(draw(st.sampled_from(SEPARATORS)).join((fields + ["x", "y"])[:width]))
        if draw(st.integers(0, 9)) == 0:
            rows.append(draw(st.sampled_from(["", " ", "\t"])))
    eol = draw(st.sampled_from(EOLS))
    bom = draw(st.sampled_from(["", "", "\ufeff"]))
    return (bom + eol.join(rows) + draw(st.sampled_from(["", eol]))).encode("utf-8", "surrogatepass")


@DIFFERENTIAL
@given(data=_run_file())
def test_fast_run_reader_agrees_with_strict_parser(tmp_path_factory, data):
    from pyterrier_risk.data._trec import _run_columns

    path = tmp_path_factory.mktemp("diff") / "x.run"
    path.write_bytes(data)
    strict = _strict_or_error(_run_columns, path)
    got = _public_or_error(read_run, path, ["qid", "docno", "rank", "score"])
    assert _same(got, strict), (data, got, strict)


CLEAN_LABELS = ["0", "1", "-2", "+3", "2147483647", "-2147483648", "1.0", "2.", "-1.00"]


@st.composite
def _qrels_file(draw):
    rows = []
    for _ in range(draw(st.integers(1, 8))):
        width = 4 if draw(st.integers(0, 19)) else draw(st.sampled_from([3, 5]))
        fields = [_token(draw, ["1", "2", "01", "dé", "NA"], ODD_TEXT), "0",
                  _token(draw, [f"d{i}" for i in range(30)] + CLEAN_TEXT, ODD_TEXT),
                  _token(draw, CLEAN_LABELS, NUMBER_TOKENS)]
        rows.append(draw(st.sampled_from(SEPARATORS)).join((fields + ["x"])[:width]))
    eol = draw(st.sampled_from(EOLS))
    return (draw(st.sampled_from(["", "\ufeff"])) + eol.join(rows) + eol).encode("utf-8", "surrogatepass")


@DIFFERENTIAL
@given(data=_qrels_file())
def test_fast_qrels_reader_agrees_with_strict_parser(tmp_path_factory, data):
    from pyterrier_risk.data import _trec

    def strict_columns(p):
        rows = _trec._strict_qrels_rows(p)
        return [[r[i] for r in rows] for i in range(3)]

    path = tmp_path_factory.mktemp("diff") / "x.qrels"
    path.write_bytes(data)
    strict = _strict_or_error(strict_columns, path)
    got = _public_or_error(read_qrels, path, ["qid", "docno", "label"])
    assert _same(got, strict), (data, got, strict)


def test_strict_only_characters_are_what_str_split_treats_unlike_pandas():
    from pyterrier_risk.data._trec import _STRICT_ONLY_CHARS

    unicode_space = {chr(c) for c in range(0x110000) if chr(c).isspace()}
    line_breaks = {chr(c) for c in range(0x110000) if len(f"a{chr(c)}b".splitlines()) > 1}
    assert line_breaks <= unicode_space  # so the whitespace list covers both
    assert set(_STRICT_ONLY_CHARS) == (unicode_space - set(" \t\n\r")) | {"\x00", "\ufeff"}


CLEAN_RUN = ("1 Q0 a 0 2.5 sys\n1 Q0 dé -1 -0 sys\n\n2 Q0 a +5 inf sys\n10 Q0 b 007 -1e400 sys\n"
             "2 Q0 b 3 1e-320 s2\n")


@pytest.mark.parametrize("variant", ["plain", "bom", "crlf", "cr", "tabs", "no-final-eol", "gzip", "bzip2",
                                     "xz"])
def test_fast_path_is_taken_on_clean_files_and_equals_the_strict_parser(tmp_path, variant):
    import numpy as np

    from pyterrier_risk.data import _trec

    text = {"bom": "\ufeff" + CLEAN_RUN, "crlf": CLEAN_RUN.replace("\n", "\r\n"),
            "cr": CLEAN_RUN.replace("\n", "\r"), "tabs": CLEAN_RUN.replace(" ", " \t"),
            "no-final-eol": CLEAN_RUN.rstrip("\n")}.get(variant, CLEAN_RUN)
    data = text.encode()
    data = {"gzip": gzip.compress, "bzip2": bz2.compress, "xz": lzma.compress}.get(variant, bytes)(data)
    path = tmp_path / "r.run"
    path.write_bytes(data)
    fast = _trec._fast_run_columns(path)
    assert fast is not None  # else every test above would only exercise the strict parser
    assert _same([np.asarray(c).tolist() for c in fast], _strict_or_error(_trec._run_columns, path))
    # the run lines cut after the rank make qrels lines (qid Q0 docno rank): the ranks as labels
    qrels = tmp_path / "q.txt"
    lines = [" ".join(line.split()[:4]) for line in text.splitlines() if line.strip()]
    qrels.write_text("\n".join(lines) + "\n")
    assert _trec._fast_qrels(qrels) is not None
    strict = _trec._strict_qrels_rows(qrels)
    assert list(read_qrels(qrels).itertuples(index=False, name=None)) == strict


def test_fast_path_scores_are_pythons_floats(tmp_path):
    """pandas' float parser gives the double Python's ``float`` gives, on 200k spellings."""
    import numpy as np

    from pyterrier_risk.data import _trec

    rng = np.random.default_rng(7)
    values = rng.standard_normal(50_000) * 10.0 ** rng.integers(-320, 308, 50_000)
    tokens = [repr(float(v)) for v in values] + [f"{v:.17g}" for v in rng.random(50_000)]
    tokens += [f"{v:.25e}" for v in rng.random(50_000) * 1e3]
    tokens += ["0." + "".join(map(str, rng.integers(0, 10, 40))) for _ in range(30_000)]
    # long mantissas with an exponent, and long integers (pandas < 3.1's default parser rounds
    # some of these one ulp away from Python's float)
    tokens += ["".join(map(str, rng.integers(1, 10, 30))) + f"e{e}" for e in rng.integers(-60, 60, 10_000)]
    tokens += ["".join(map(str, rng.integers(1, 10, n))) for n in rng.integers(16, 40, 10_000)]
    path = tmp_path / "scores.run"
    path.write_text("".join(f"1 Q0 d{i} {i} {t} x\n" for i, t in enumerate(tokens)))
    fast = _trec._fast_run_columns(path)
    assert fast is not None
    expected = np.array([float(t) for t in tokens])
    assert np.array_equal(fast[3], expected) and np.array_equal(np.signbit(fast[3]), np.signbit(expected))


def test_fast_path_keeps_line_numbered_errors_on_a_large_file(tmp_path):
    """A bad line deep in a large file gets the strict parser's message (file and line)."""
    good = "".join(f"{q} Q0 d{d} {d} {1000 - d}.5 t\n" for q in range(1, 21) for d in range(1000))
    path = tmp_path / "big.run"
    for bad, match in [("7 Q0 x 1.0 2 t\n", "big.run:15001: rank '1.0' is not an integer"),
                       ("7 Q0 x 1 2 t u\n", "big.run:15001: expected 6 fields"),
                       ("7 Q0 d5 1 2 t\n", "big.run:15001: document 'd5' is listed twice for topic '7'"),
                       ("7 Q0 x 1 NaN t\n", "big.run:15001: score is NaN")]:
        lines = good.splitlines(keepends=True)
        path.write_text("".join(lines[:15000]) + bad + "".join(lines[15000:]))
        with pytest.raises(ValueError, match=match):
            read_run(path)


@pytest.mark.parametrize("compress", [False, True])
def test_a_space_pandas_would_not_split_at_is_seen_across_chunk_boundaries(tmp_path, compress):
    """A no-break or ideographic space (2-3 UTF-8 bytes) spanning a read boundary still sends the
    file to the strict parser (it splits there: a field too many)."""
    line = "1 Q0 d{:07d} 0 1.5 t\n"
    for boundary in (2**18, 2**19):  # pandas pulls 256 KiB at a time
        for space in ("\u00a0", "\u3000"):
            for shift in range(-3, 2):
                n = boundary // len(line.format(0)) + 2
                text = "".join(line.format(i) for i in range(n))
                cut = boundary + shift - len("1 Q0 ")  # a docno that holds the space at `boundary + shift`
                head = text[: cut - 1].rsplit("\n", 1)[0] + "\n"
                pad = "x" * (cut - len(head))  # at least one x: a space after a space splits nothing
                data = (head + "2 Q0 " + pad + space + "y 0 1.5 t\n").encode()
                assert data.index(space.encode()) == boundary + shift
                path = tmp_path / "r.run"
                path.write_bytes(gzip.compress(data) if compress else data)
                with pytest.raises(ValueError, match=r"r.run:\d+: expected 6 fields"):
                    read_run(path)


# -- Ctrl-C while a file is read, and files written whole -----------------------------------------
@pytest.mark.parametrize("reader", ["run", "qrels"])
def test_ctrl_c_inside_the_fast_reader_is_not_a_parse_failure(tmp_path, monkeypatch, reader):
    """pandas turns a KeyboardInterrupt raised in a stream's read() into a ParserError; the fast reader
    must raise it again, not hand the file to the strict parser (which read the whole file again)."""
    from pyterrier_risk.data import _trec

    path = tmp_path / "f.txt"
    path.write_text(CLEAN_RUN if reader == "run" else QRELS_TEXT)
    calls = []

    def interrupted(self, chunk):
        calls.append(len(chunk))
        raise KeyboardInterrupt

    def strict(*args):
        raise AssertionError("the strict parser started after Ctrl-C")

    monkeypatch.setattr(_trec._ByteCheck, "__call__", interrupted)
    monkeypatch.setattr(_trec, "_run_columns", strict)
    monkeypatch.setattr(_trec, "_strict_qrels_rows", strict)
    with pytest.raises(KeyboardInterrupt):
        (read_run if reader == "run" else read_qrels)(path)
    assert calls  # the interrupt came from inside pandas' read, where it is wrapped


def test_raised_by_interrupt_follows_the_exception_chain():
    from pyterrier_risk.data import raised_by_interrupt

    def chained(outer, inner, how):
        try:
            try:
                raise inner
            except BaseException as e:
                if how == "from":
                    raise outer from e
                raise outer  # noqa: B904 - the implicit __context__ is what is tested
        except BaseException as e:
            return e

    assert raised_by_interrupt(KeyboardInterrupt())
    assert raised_by_interrupt(chained(SystemError("returned a result with an exception set"),
                                       KeyboardInterrupt(), "from"))
    inner = chained(OSError(), KeyboardInterrupt(), "ctx")
    assert raised_by_interrupt(chained(ValueError("x"), inner, "ctx"))
    assert not raised_by_interrupt(chained(SystemError("x"), ValueError("y"), "from"))
    loop = ValueError("a")
    loop.__context__ = ValueError("b")
    loop.__context__.__context__ = loop  # a cycle ends the walk
    assert not raised_by_interrupt(loop)


@pytest.mark.parametrize("failure", [OSError(27, "File too large"), KeyboardInterrupt()])
def test_atomic_write_keeps_the_previous_file_on_failure(tmp_path, failure):
    from pyterrier_risk.data import atomic_write

    target = tmp_path / "out.csv"
    target.write_text("previous\n")
    with pytest.raises(type(failure)):
        with atomic_write(target) as f:
            f.write("new,half")
            raise failure
    assert target.read_text() == "previous\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.csv"]


def test_atomic_write_replaces_whole_keeps_modes_and_follows_links(tmp_path):
    import os
    import stat

    from pyterrier_risk.data import atomic_write

    target = tmp_path / "t.md"
    target.write_text("old")
    target.chmod(0o640)
    with atomic_write(target) as f:
        f.write("new")
    assert target.read_text() == "new" and stat.S_IMODE(target.stat().st_mode) == 0o640
    link = tmp_path / "link.md"
    link.symlink_to(target)
    with atomic_write(link) as f:
        f.write("through the link")
    assert link.is_symlink() and target.read_text() == "through the link"
    umask = os.umask(0o022)
    os.umask(umask)
    with atomic_write(tmp_path / "fresh.png", "wb", encoding=None) as f:
        f.write(b"\x89PNG")
    assert stat.S_IMODE((tmp_path / "fresh.png").stat().st_mode) == 0o666 & ~umask
    assert sorted(p.name for p in tmp_path.iterdir()) == ["fresh.png", "link.md", "t.md"]
    with pytest.raises(ValueError, match="mode must be"):
        with atomic_write(target, "a"):
            pass


def test_atomic_write_writes_a_device_in_place(tmp_path):
    """/dev/null (or /dev/stdout, a FIFO) is written to, never replaced by a regular file."""
    import os
    import stat

    from pyterrier_risk.data import atomic_write

    with atomic_write(os.devnull) as f:
        f.write("discarded")
    assert stat.S_ISCHR(os.stat(os.devnull).st_mode)
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    link = tmp_path / "to-the-fifo"  # as /dev/stdout is a link to /proc/self/fd/1, a pipe
    link.symlink_to(fifo)
    reader = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)
    try:
        with atomic_write(link) as f:
            f.write("through the pipe")
        assert os.read(reader, 100) == b"through the pipe"
    finally:
        os.close(reader)
    assert stat.S_ISFIFO(os.stat(fifo).st_mode) and sorted(os.listdir(tmp_path)) == ["fifo", "to-the-fifo"]


_FULL_DISK_CHILD = r"""
import json, resource, sys
from pathlib import Path
import pandas as pd
from pyterrier_risk.data import write_qrels, write_run
from pyterrier_risk.reporting import plot_helped_hurt, write_table

folder = Path(sys.argv[1])
res = pd.DataFrame({"qid": ["1"] * 50, "docno": [f"d{i}" for i in range(50)], "score": range(50)})
qrels = res.assign(label=1)
writers = {
    "run.txt": lambda p: write_run(res, p, "tag"),
    "qrels.txt": lambda p: write_qrels(qrels, p),
    "table.csv": lambda p: write_table(res, p),
    "plot.png": lambda p: plot_helped_hurt(pd.Series(range(50)) / 50, pd.Series([0.5] * 50), path=p),
}
for name in writers:
    (folder / name).write_bytes(b"previous\n")
import matplotlib.figure  # noqa: F401 - imported before the limit: nothing but our writers writes
resource.setrlimit(resource.RLIMIT_FSIZE, (300, resource.getrlimit(resource.RLIMIT_FSIZE)[1]))
outcome = {}
for name, write in writers.items():
    try:
        write(folder / name)
        outcome[name] = "written"
    except OSError as e:
        outcome[name] = str(e)
print(json.dumps(outcome))
"""


def test_every_writer_keeps_the_previous_file_on_a_full_disk(tmp_path):
    """A file-size limit (RLIMIT_FSIZE: writes fail with EFBIG) stands in for a full disk."""
    pytest.importorskip("matplotlib")  # the plot writer (the oldest-versions run installs no plots extra)
    import json
    import subprocess
    import sys

    proc = subprocess.run([sys.executable, "-c", _FULL_DISK_CHILD, str(tmp_path)], capture_output=True,
                          text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    outcome = json.loads(proc.stdout)
    assert set(outcome) == {"run.txt", "qrels.txt", "table.csv", "plot.png"}
    for name, message in outcome.items():
        assert "File too large" in message, (name, message)
        assert (tmp_path / name).read_bytes() == b"previous\n", name
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(outcome)  # no temporary file is left


@pytest.mark.parametrize("pandas_then", ["raises", "returns"])
def test_an_interrupt_pandas_loses_is_still_an_interrupt(tmp_path, monkeypatch, pandas_then):
    """pandas' C parser sometimes turns the KeyboardInterrupt of a SIGINT during read() into a
    ParserError with no chain (or could drop it): the SIGINT itself is what counts."""
    import os
    import signal
    import time

    from pyterrier_risk.data import _trec

    path = tmp_path / "r.run"
    path.write_text(CLEAN_RUN)
    real = _trec._pandas_table

    def losing(source, names, dtypes):
        try:
            os.kill(os.getpid(), signal.SIGINT)
            time.sleep(5)  # the handler runs at once; this is never reached
        except KeyboardInterrupt:
            pass  # lost, as pandas' C code loses it
        if pandas_then == "raises":
            raise pd.errors.ParserError("C error: Calling read(nbytes) on source failed")
        return real(source, names, dtypes)

    monkeypatch.setattr(_trec, "_pandas_table", losing)
    handler = signal.getsignal(signal.SIGINT)
    with pytest.raises(KeyboardInterrupt):
        read_run(path)
    assert signal.getsignal(signal.SIGINT) is handler  # the watch is undone
    monkeypatch.setattr(_trec, "_pandas_table", real)
    assert len(read_run(path)) == len([line for line in CLEAN_RUN.splitlines() if line.strip()])


def test_signals_held_delivers_the_first_signal_after_the_block_to_the_previous_handler():
    """One helper holds back Ctrl-C/SIGTERM for the model folder's and the study folder's moves."""
    import os
    import signal

    from pyterrier_risk.data import signals_held

    seen: list[int] = []
    previous = signal.signal(signal.SIGUSR1, lambda signum, frame: seen.append(signum))
    try:
        with signals_held(signal.SIGUSR1):
            os.kill(os.getpid(), signal.SIGUSR1)
            os.kill(os.getpid(), signal.SIGUSR1)
            assert seen == []  # held inside the block
        assert seen == [signal.SIGUSR1]  # the first one, once, to the handler installed before
        os.kill(os.getpid(), signal.SIGUSR1)
        assert seen == [signal.SIGUSR1] * 2  # that handler is back
    finally:
        signal.signal(signal.SIGUSR1, previous)
