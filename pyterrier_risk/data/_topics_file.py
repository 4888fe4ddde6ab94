"""Query texts from a topics file: TREC SGML (``<top>``), TREC Web track XML (``<topic number=>``) or TSV.

PyTerrier's ``pt.io.read_topics`` reads neither compressed files nor the Web track's XML (topics
151–200 of TREC 2012 are ``<topic number="151"><query>...</query>``); the risk tables only need
each topic's query text, which this reader returns for all three layouts.
"""

from __future__ import annotations

import os
import re
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from ._trec import _read_text

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["read_topics"]

#: a start or end tag, ``<title>``, ``</title>``, ``< /num >`` (attributes allowed, and ignored)
_TAG = re.compile(r"<\s*(/?)\s*([A-Za-z][\w.-]*)(?:\s[^<>]*)?>")
#: the labels TREC topic files put after a field's tag: ``<num> Number: 351``, ``<title> Topic: ...``
_LABEL = {"num": re.compile(r"\s*Number\s*:", re.I), "title": re.compile(r"\s*Topic\s*:", re.I)}


@dataclass
class _Topic:
    """A ``<top>`` block being read: where it starts and the text of each field so far."""

    line: int
    fields: dict[str, list[str]] = field(default_factory=dict)
    open: str | None = None  # the field whose text the next characters belong to


def _field_text(topic: _Topic, name: str, where: str) -> str:
    """A field's text, its TREC label (``Number:``, ``Topic:``) dropped and whitespace collapsed."""
    if name not in topic.fields:
        raise ValueError(f"{where}: a <top> block without <{name}>")
    text = "".join(topic.fields[name])
    label = _LABEL[name].match(text)
    text = " ".join(text[label.end() if label else 0 :].split())
    if not text:
        raise ValueError(f"{where}: the <{name}> of this <top> block is empty")
    if name == "num" and " " in text:
        raise ValueError(f"{where}: topic number {text!r} is not one word")
    return text


def _tag(topic: _Topic | None, closing: bool, name: str, line: int, p: Path) -> tuple[_Topic | None, bool]:
    """The state after one tag inside or outside a ``<top>`` block; whether the block ends."""
    if name == "top":
        if closing and topic is None:
            raise ValueError(f"{p}:{line}: </top> without an open <top>")
        if not closing and topic is not None:
            raise ValueError(f"{p}:{topic.line}: <top> without </top> (the next <top> is at line {line})")
        return (topic, True) if closing else (_Topic(line), False)
    if topic is None:  # markup outside the topics (a DOCTYPE, a comment): not a topic's
        return None, False
    if closing:
        if topic.open != name:
            now = f"<{topic.open}> is open" if topic.open else "no field is open"
            raise ValueError(f"{p}:{line}: </{name}> does not close the field ({now})")
        topic.open = None
        return topic, False
    if name in topic.fields and name in _LABEL:
        raise ValueError(f"{p}:{line}: a second <{name}> in the <top> block of line {topic.line}")
    topic.fields[name] = []
    topic.open = name
    return topic, False


def _sgml(text: str, p: Path) -> list[tuple[str, str]]:
    """TREC SGML topics: a field runs from its tag to the next tag (``</num>``, ``<title>``, ``</top>``)."""
    rows: list[tuple[str, str]] = []
    topic: _Topic | None = None
    line, pos = 1, 0
    for match in _TAG.finditer(text):
        chunk = text[pos : match.start()]
        if topic is not None and topic.open is not None:
            topic.fields[topic.open].append(chunk)
        line += chunk.count("\n")
        closed = topic
        topic, done = _tag(topic, match.group(1) == "/", match.group(2).lower(), line, p)
        if done and closed is not None:
            where = f"{p}:{closed.line}"
            rows.append((_field_text(closed, "num", where), _field_text(closed, "title", where)))
            topic = None
        line += match.group(0).count("\n")
        pos = match.end()
    if topic is not None:
        raise ValueError(f"{p}:{topic.line}: <top> without </top> (the file ends first)")
    return rows


def _xml(text: str, p: Path) -> list[tuple[str, str]]:
    try:
        root = ET.fromstring(text)
    except ET.ParseError as e:
        raise ValueError(f"{p}: not well-formed topics XML: {e}") from None
    rows = []
    for topic in root.iter("topic"):
        qid = topic.get("number") or topic.get("id")
        query = topic.find("query")
        if query is None:
            query = topic.find("title")
        if qid is None or query is None:
            raise ValueError(f"{p}: a <topic> without a number attribute or a <query>/<title>")
        rows.append((qid.strip(), " ".join((query.text or "").split())))
    return rows


#: a first line naming the columns (``qid<TAB>query``): a header, not a topic
_HEADER = ({"qid", "query_id", "topic", "id", "num", "number"}, {"query", "text", "title"})


def _tsv(text: str, p: Path) -> list[tuple[str, str]]:
    """One topic a line: ``qid<TAB>query`` (exactly two columns), or the query after the first space."""
    rows: list[tuple[str, str]] = []
    for lineno, line in enumerate(text.splitlines(), 1):
        line = line.rstrip()
        if not line.strip():
            continue
        parts = line.split("\t") if "\t" in line else line.split(None, 1)
        if len(parts) > 2:
            raise ValueError(f"{p}:{lineno}: {len(parts)} tab-separated columns; expected 2, 'qid<TAB>query' "
                             "(a tab inside a query? replace it with a space)")
        if len(parts) != 2 or not parts[0].strip() or not parts[1].strip():
            raise ValueError(f"{p}:{lineno}: expected 'qid<TAB>query text'")
        qid, query = parts[0].strip(), " ".join(parts[1].split())
        if not rows and qid.lower() in _HEADER[0] and query.lower() in _HEADER[1]:
            continue  # the header line
        rows.append((qid, query))
    return rows


def read_topics(path: str | os.PathLike[str]) -> pd.DataFrame:
    """Read query texts from a topics file, plain or compressed (gzip, bzip2, xz).

    Layouts, recognised by their content: TREC SGML (``<top> <num> Number: 351 <title> ...``), the
    TREC Web track's XML (``<topic number="151"><query>...</query>``; ``<title>`` if there is no
    ``<query>``), or one topic a line, ``qid<TAB>query`` (or the query after the first space).
    Whitespace inside a query is collapsed to single spaces.

    SGML: a field's text runs from its tag to the next tag, so the TREC layout (no closing field
    tags) and closed fields (``<num>1</num><title>x</title>``, as Vaswani's ``query-text.trec``) read
    alike; a ``Number:`` or ``Topic:`` label after the tag is dropped; markup outside ``<top>`` blocks
    is ignored. Refused, naming the line: a ``<top>`` without ``</top>`` (it would swallow the next
    topic), a ``</top>`` or a closing field tag that closes nothing open, a block without ``<num>``
    or ``<title>`` (or with two, or an empty one), a topic number of several words.

    TSV: exactly two tab-separated columns (a third is refused, naming the line: a tab inside a query
    would otherwise glue columns together); a first line ``qid<TAB>query`` (also ``query_id``,
    ``topic``, ``id``, ``num``/``number`` with ``text`` or ``title``) is a header, skipped.

    Args:
        path: the topics file.

    Returns:
        A DataFrame with PyTerrier's topic columns ``qid`` and ``query`` (str), in file order.

    Raises:
        FileNotFoundError: the file does not exist.
        ValueError: an unreadable or malformed file, no topics, or a topic listed twice (named).
    """
    import pandas as pd

    p = Path(path)
    text = _read_text(p, "topics")
    if re.search(r"<top>", text, re.I):
        rows = _sgml(text, p)
    elif re.search(r"<topic[\s>]", text):
        rows = _xml(text, p)
    else:
        rows = _tsv(text, p)
    if not rows:
        raise ValueError(f"{p}: no topics found")
    frame = pd.DataFrame(rows, columns=["qid", "query"], dtype=object)
    repeated = frame["qid"][frame["qid"].duplicated()].unique().tolist()
    if repeated:
        raise ValueError(f"{p}: topic(s) listed twice: {repeated[:5]}")
    return frame
