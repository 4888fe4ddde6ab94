"""Query texts from a topics file: TREC SGML (``<top>``), TREC Web track XML (``<topic number=>``) or TSV.

PyTerrier's ``pt.io.read_topics`` reads neither compressed files nor the Web track's XML (topics
151–200 of TREC 2012 are ``<topic number="151"><query>...</query>``); the risk tables only need
each topic's query text, which this reader returns for all three layouts.
"""

from __future__ import annotations

import os
import re
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import TYPE_CHECKING

from ._trec import _read_text

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["read_topics"]

_SGML_TOPIC = re.compile(r"<top>(.*?)</top>", re.S | re.I)
_SGML_NUM = re.compile(r"<num>\s*(?:Number:)?\s*(\S+)", re.I)
_SGML_TITLE = re.compile(r"<title>\s*(?:Topic:)?(.*?)(?=<\w+>|</top>|$)", re.S | re.I)


def _sgml(text: str, p: Path) -> list[tuple[str, str]]:
    rows = []
    for block in _SGML_TOPIC.findall(text):
        num, title = _SGML_NUM.search(block), _SGML_TITLE.search(block)
        if num is None or title is None:
            raise ValueError(f"{p}: a <top> block without <num> or <title>")
        rows.append((num.group(1), " ".join(title.group(1).split())))
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


def _tsv(text: str, p: Path) -> list[tuple[str, str]]:
    rows = []
    for lineno, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        parts = line.split("\t", 1) if "\t" in line else line.split(None, 1)
        if len(parts) != 2 or not parts[1].strip():
            raise ValueError(f"{p}, line {lineno}: expected 'qid<TAB>query text'")
        rows.append((parts[0].strip(), " ".join(parts[1].split())))
    return rows


def read_topics(path: str | os.PathLike[str]) -> pd.DataFrame:
    """Read query texts from a topics file, plain or compressed (gzip, bzip2, xz).

    Layouts, recognised by their content: TREC SGML (``<top> <num> Number: 351 <title> ...``), the
    TREC Web track's XML (``<topic number="151"><query>...</query>``; ``<title>`` if there is no
    ``<query>``), or one topic a line, ``qid<TAB>query`` (or the query after the first space).
    Whitespace inside a query is collapsed to single spaces.

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
