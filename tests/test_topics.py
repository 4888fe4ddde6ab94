"""The topic policy (core/_topics.py): the qrels mode (-c) and the intersection mode (gdeval without -c),
checked against hand computations on toy data."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import pyterrier_risk as pr
from pyterrier_risk.core import (
    TOPIC_MODES,
    TopicPolicyWarning,
    apply_topic_policy,
    check_topic_mode,
    topic_set,
)

QRELS = ["1", "2", "3", "4"]
# a has every qrels topic; b lacks 3 and has 9 (not in the qrels); base lacks 4
SCORES = {
    "a": {"1": 0.5, "2": 0.2, "3": 0.4, "4": 0.6},
    "b": {"1": 0.3, "2": 0.3, "4": 0.2, "9": 1.0},
    "base": {"1": 0.4, "2": 0.4, "3": 0.1},
}


def _caught(func, *args, **kwargs):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = func(*args, **kwargs)
    return result, [w for w in caught if issubclass(w.category, TopicPolicyWarning)]


def test_modes_and_their_check():
    assert TOPIC_MODES == ("qrels", "intersection")
    assert [check_topic_mode(m) for m in TOPIC_MODES] == list(TOPIC_MODES)
    for bad in ("Qrels", "union", "", None, 1):
        with pytest.raises(ValueError, match="unknown topic mode .*'qrels'.*'intersection'"):
            check_topic_mode(bad)


def test_qrels_mode_keeps_the_qrels_topics_and_warns_per_system():
    by_who = {f"system {k!r}": v for k, v in SCORES.items()}
    topics, caught = _caught(topic_set, [1, 2, 2, 3, 4], by_who)  # ids compared as str, first-seen order
    assert topics == QRELS
    messages = [str(w.message) for w in caught]
    assert messages == [
        "system 'b' has results for 1 topic(s) that are not in the qrels; they are ignored",
        "system 'b' has no results for 1 of the 4 qrels topics; they score 0 there (trec_eval -c policy)",
        "system 'base' has no results for 1 of the 4 qrels topics; they score 0 there (trec_eval -c policy)",
    ]
    assert {w.filename for w in caught} == {__file__}  # the warning points at the caller


def test_intersection_mode_keeps_the_topics_every_system_has():
    by_who = {f"system {k!r}": v for k, v in SCORES.items()}
    topics, caught = _caught(topic_set, QRELS, by_who, "intersection")
    assert topics == ["1", "2"]  # 3: b lacks it, 4: base lacks it
    messages = [str(w.message) for w in caught]
    assert messages[0].startswith("system 'b' has results for 1 topic(s) that are not in the qrels")
    assert messages[1] == (
        "intersection mode: 2 of the 4 qrels topics are left out, as not every system has results for "
        "them (system 'b' lacks 1; system 'base' lacks 1)"
    )
    assert {w.filename for w in caught} == {__file__}
    # nothing is left out: no warning at all
    same, caught = _caught(topic_set, QRELS, {"a": QRELS}, "intersection")
    assert same == QRELS and caught == []


def test_extra_topics_can_be_an_error():
    message = r"system 'b' has results for 1 topic\(s\) absent from the qrels \('9'\)"
    with pytest.raises(ValueError, match=message):
        topic_set(QRELS, {"system 'b'": SCORES["b"]}, on_extra="error")
    with pytest.raises(ValueError, match="on_extra must be one of"):
        topic_set(QRELS, {}, on_extra="ignore")


def test_no_topics_is_an_error():
    with pytest.raises(ValueError, match="the qrels have no topics"):
        topic_set([], {"a": ["1"]})
    message = r"intersection mode: no qrels topic has results from every system \(a lacks 1; b lacks 2\)"
    extra = pytest.warns(TopicPolicyWarning, match="b has results for 1")
    with pytest.raises(ValueError, match=message), extra:
        topic_set(["1", "2"], {"a": ["1"], "b": ["3"]}, "intersection")


def test_apply_topic_policy_qrels_mode_scores_missing_topics_zero():
    matrix, caught = _caught(apply_topic_policy, SCORES, QRELS)
    assert list(matrix.columns) == QRELS and list(matrix.index) == ["a", "b", "base"]
    assert matrix.index.name == "name" and matrix.columns.name == "qid"
    # by hand: b = (0.3 + 0.3 + 0 + 0.2) / 4, base = (0.4 + 0.4 + 0.1 + 0) / 4; b's topic 9 is ignored
    assert matrix.loc["b"].tolist() == [0.3, 0.3, 0.0, 0.2]
    assert matrix.mean(axis=1).tolist() == pytest.approx([1.7 / 4, 0.8 / 4, 0.9 / 4])
    # URisk(a vs base, alpha=1) by hand over the 4 qrels topics: d = 0.1, -0.2, 0.3, 0.6
    assert pr.urisk(matrix.loc["a"], matrix.loc["base"], 1.0) == pytest.approx((0.1 - 0.4 + 0.3 + 0.6) / 4)
    assert len(caught) == 3 and {w.filename for w in caught} == {__file__}


def test_apply_topic_policy_intersection_mode():
    matrix, caught = _caught(apply_topic_policy, SCORES, QRELS, "intersection")
    assert list(matrix.columns) == ["1", "2"]
    assert matrix.to_numpy().tolist() == [[0.5, 0.2], [0.3, 0.3], [0.4, 0.4]]
    # URisk(a vs base, alpha=1) by hand over topics 1, 2: d = 0.1, -0.2
    assert pr.urisk(matrix.loc["a"], matrix.loc["base"], 1.0) == pytest.approx((0.1 - 0.4) / 2)
    # ZRisk over the intersection equals ZRisk of the hand-made 3 x 2 matrix
    by_hand = np.array([[0.5, 0.2], [0.3, 0.3], [0.4, 0.4]])
    np.testing.assert_allclose(pr.zrisk(matrix, 2).to_numpy(), pr.zrisk(by_hand, 2))


def test_a_single_run_in_intersection_mode_is_gdeval_without_c():
    # gdeval.pl without -c averages over the qrels topics the run has; with -c over all qrels topics
    run = {"2": 0.25, "4": 0.75, "7": 0.5}  # 7 is not in the qrels
    without_c, _ = _caught(apply_topic_policy, {"r": run}, QRELS, "intersection")
    with_c, _ = _caught(apply_topic_policy, {"r": run}, QRELS, "qrels")
    assert without_c.loc["r"].mean() == (0.25 + 0.75) / 2
    assert with_c.loc["r"].mean() == (0.25 + 0.75) / 4


def test_apply_topic_policy_without_qrels_uses_the_union_of_the_systems_topics():
    matrix, caught = _caught(apply_topic_policy, {"x": {"5": 1.0, "6": 0.5}, "y": {"6": 0.25, "7": 0.0}})
    assert list(matrix.columns) == ["5", "6", "7"]
    assert matrix.loc["y"].tolist() == [0.0, 0.25, 0.0]
    assert [str(w.message).split(" has")[0] for w in caught] == ["system 'x'", "system 'y'"]
    with pytest.raises(ValueError, match="no systems given"):
        apply_topic_policy({})


# -- read_topics: SGML tags and TSV columns (issue 21, item 12) -----------------------------------------
import re  # noqa: E402

from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

_WORDS = st.text(alphabet="abcXYZ019-'", min_size=1, max_size=6)
_TOPIC = st.tuples(st.integers(1, 999).map(str), st.lists(_WORDS, min_size=1, max_size=4).map(" ".join))
#: how a file may write a topic: TREC's open fields with labels, or closed fields (Vaswani's), inline or not
_LAYOUT = st.fixed_dictionaries({
    "closed": st.booleans(), "labels": st.booleans(), "sep": st.sampled_from(["", "\n", " ", "\n\n"]),
    "desc": st.booleans(), "case": st.sampled_from([str.lower, str.upper]),
})


def _sgml_text(topics: list[tuple[str, str]], layout: dict) -> str:
    sep, tag = layout["sep"], layout["case"]
    out = []
    for qid, query in topics:
        num = f"Number: {qid}" if layout["labels"] else qid
        title = f"Topic: {query}" if layout["labels"] else query
        fields = [f"<{tag('num')}> {num}", f"<{tag('title')}>{sep}{title}{sep}"]
        if layout["closed"]:
            fields = [fields[0] + f"</{tag('num')}>", fields[1] + f"</{tag('title')}>"]
        if layout["desc"]:
            fields.append(f"<{tag('desc')}> Description:\nabout <{tag('narr')}> Narrative: more")
        out.append(f"<{tag('top')}>{sep}" + sep.join(fields) + f"{sep}</{tag('top')}>\n")
    return "".join(out)


def _tiny_parser(text: str) -> list[tuple[str, str]]:
    """An independent reading for the files above: split at </top>, each field up to the next '<'."""
    rows = []
    for block in re.split(r"</top>", text, flags=re.I)[:-1]:
        num = re.search(r"<num>([^<]*)", block, re.I).group(1).split()[-1]
        title = re.search(r"<title>([^<]*)", block, re.I).group(1).split()
        rows.append((num, " ".join(title[1:] if title and title[0].lower() == "topic:" else title)))
    return rows


@settings(deadline=None, max_examples=200)
@given(topics=st.lists(_TOPIC, min_size=1, max_size=5, unique_by=lambda t: t[0]), layout=_LAYOUT)
def test_sgml_topics_read_as_written_in_any_layout(tmp_path_factory, topics, layout):
    """Property: every layout gives back the topics written, as the independent parser reads them."""
    text = _sgml_text(topics, layout)
    p = tmp_path_factory.mktemp("topics") / "t.sgml"
    p.write_text(text)
    got = pr.read_topics(p).values.tolist()
    assert got == [list(t) for t in topics] == [list(t) for t in _tiny_parser(text)]


@settings(deadline=None, max_examples=100)
@given(topics=st.lists(_TOPIC, min_size=2, max_size=5, unique_by=lambda t: t[0]), layout=_LAYOUT,
       which=st.integers(0, 4))
def test_a_top_without_its_end_tag_is_refused_naming_its_line(tmp_path_factory, topics, layout, which):
    """Property: dropping one </top> never lets a topic swallow the next: the open <top>'s line is named."""
    text = _sgml_text(topics, layout)
    ends = [m.start() for m in re.finditer(r"</top>", text, re.I)]
    cut = ends[which % len(ends)]
    broken = text[:cut] + text[cut + len("</top>"):]
    p = tmp_path_factory.mktemp("topics") / "t.sgml"
    p.write_text(broken)
    start = [m.start() for m in re.finditer(r"<top>", broken, re.I)][which % len(ends)]
    line = broken.count("\n", 0, start) + 1
    with pytest.raises(ValueError, match=rf"t\.sgml:{line}: <top> without </top>"):
        pr.read_topics(p)


@pytest.mark.parametrize(("text", "match"), [
    ("<top><num>1</num><title>x</title>\n<top><num>2<title>y</top>",
     r":1: <top> without </top> \(the next <top> is at line 2\)"),
    ("<top><num>1</title><title>x</top>", r":1: </title> does not close the field \(<num> is open\)"),
    ("<top><num>1<title>x</top>\n</top>", r":2: </top> without an open <top>"),
    ("<top><title>x</top>", r":1: a <top> block without <num>"),
    ("<top><num>1</top>", r":1: a <top> block without <title>"),
    ("<top><num>1<title>\n</top>", r":1: the <title> of this <top> block is empty"),
    ("<top><num>1<num>2<title>x</top>", r":1: a second <num> in the <top> block of line 1"),
    ("<top><num>1 2<title>x</top>", r":1: topic number '1 2' is not one word"),
])
def test_malformed_sgml_is_a_one_line_error_naming_the_line(tmp_path, text, match):
    p = tmp_path / "t.sgml"
    p.write_text(text)
    with pytest.raises(ValueError, match=match) as e:
        pr.read_topics(p)
    assert "\n" not in str(e.value)


def test_the_issue_examples_inline_closing_tags_extra_columns_and_a_header(tmp_path):
    p = tmp_path / "t.sgml"
    p.write_text("<top><num>1</num><title>x</title></top>\n")
    assert pr.read_topics(p).values.tolist() == [["1", "x"]]  # was qid '1</num>', query 'x</title>'
    t = tmp_path / "t.tsv"
    t.write_text("qid\tquery\n1\tfirst\n2\tsecond\textra\n")
    with pytest.raises(ValueError, match=r"t\.tsv:3: 3 tab-separated columns; expected 2"):
        pr.read_topics(t)
    t.write_text("qid\tquery\n1\tfirst query\n2 second\n")
    assert pr.read_topics(t).values.tolist() == [["1", "first query"], ["2", "second"]]  # no topic 'qid'
    t.write_text("1\tquery\nqid\tquery\n")  # only a first line is a header
    assert pr.read_topics(t).values.tolist() == [["1", "query"], ["qid", "query"]]


@settings(deadline=None, max_examples=100)
@given(rows=st.lists(st.tuples(st.integers(1, 99).map(str), _WORDS, st.lists(_WORDS, max_size=2)),
                     min_size=1, max_size=5, unique_by=lambda r: r[0]), header=st.booleans())
def test_tsv_topics_read_two_columns_and_refuse_more(tmp_path_factory, rows, header):
    lines = (["qid\tquery"] if header else []) + ["\t".join([q, w, *extra]) for q, w, extra in rows]
    p = tmp_path_factory.mktemp("topics") / "t.tsv"
    p.write_text("\n".join(lines) + "\n")
    wide = [i for i, (_, _, extra) in enumerate(rows) if extra]
    if wide:
        line = wide[0] + 1 + header
        with pytest.raises(ValueError, match=rf"t\.tsv:{line}: {2 + len(rows[wide[0]][2])} tab-separated"):
            pr.read_topics(p)
    else:
        assert pr.read_topics(p).values.tolist() == [[q, w] for q, w, _ in rows]


@pytest.mark.realdata
def test_real_topic_files_read_as_before_and_as_pyterrier_reads_them():
    """TREC-7 (open TREC fields) and TREC Web 2012 (XML) read as before the parser was rewritten (first and
    last topic pinned); Vaswani's closed tags (``<num>1</num><title>...</title>``) as PyTerrier reads them."""
    import pyterrier as pt
    from helpers import data_path

    trec7 = pr.read_topics(data_path("trec7-adhoc-terrier-runs") / "topics.adhoc.351-400.txt")
    assert len(trec7) == 50 and trec7.iloc[0].tolist() == ["351", "Falkland petroleum exploration"]
    assert trec7.iloc[-1].tolist() == ["400", "Amazon rain forest"]
    web = pr.read_topics(data_path("trec-web-2012-risk") / "topics.web.151-200.xml.gz")
    assert len(web) == 50 and web.iloc[0].tolist() == ["151", "403b"]
    assert web.iloc[-1].tolist() == ["200", "ontario california airport"]
    for path in [data_path("vaswani-npl") / "query-text.trec",
                 data_path("trec7-adhoc-terrier-runs") / "topics.adhoc.351-400.txt"]:
        ours, theirs = pr.read_topics(path), pt.io.read_topics(str(path))
        assert ours["qid"].tolist() == theirs["qid"].tolist()
        assert [q.lower().split() for q in ours["query"]] == [q.lower().split() for q in theirs["query"]]
    vaswani = pr.read_topics(data_path("vaswani-npl") / "query-text.trec")
    assert len(vaswani) == 93 and not vaswani["qid"].str.contains("<").any()
    assert not vaswani["query"].str.contains("<").any()
