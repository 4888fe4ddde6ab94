"""``nDCG_gdeval@k`` and ``ERR_gdeval@k``: the Web track's official measures by a short name (issue 23 #3)."""

from __future__ import annotations

import warnings

import ir_measures
import numpy as np
import pandas as pd
import pytest
from helpers import data_path

import pyterrier_risk as ptr
from pyterrier_risk.measures import topic_matrices

QRELS = pd.DataFrame({"qid": ["1", "1", "1", "2", "2"], "docno": ["a", "b", "c", "a", "d"],
                      "label": [2, -2, 1, 1, 0]})
RUN = pd.DataFrame({"qid": ["1", "1", "1", "2", "2"], "docno": ["b", "c", "a", "d", "a"],
                    "score": [3.0, 2.0, 1.0, 2.0, 1.0]})


def _by_hand(order, labels, k):
    """gdeval's nDCG@k from its definition: gains 2^l - 1 (negative labels 0), discount log2(rank + 1)."""
    gain = {d: (2.0**g - 1 if g > 0 else 0.0) for d, g in labels.items()}
    dcg = sum(gain.get(d, 0.0) / np.log2(r + 2) for r, d in enumerate(order[:k]))
    ideal = sorted(gain.values(), reverse=True)[:k]
    return dcg / sum(g / np.log2(r + 2) for r, g in enumerate(ideal))


def test_the_short_names_parse_everywhere_and_keep_their_repr():
    for text in ("nDCG_gdeval@20", "ERR_gdeval@20"):
        assert repr(ir_measures.parse_measure(text)) == text == repr(ptr.parse_measure(text))
    assert repr(ptr.parse_measure("URisk(nDCG_gdeval@20,alpha=5)")) == "URisk(nDCG_gdeval@20,alpha=5)"
    assert ptr.nDCG_gdeval @ 20 == ptr.parse_measure("nDCG_gdeval@20")


def test_ndcg_gdeval_by_hand_and_its_gains_note():
    with pytest.warns(ptr.GdevalGainsWarning, match=r"\{-2: 0, 0: 0, 1: 1, 2: 3\}"):
        m = topic_matrices({"r": RUN}, QRELS, [ptr.nDCG_gdeval @ 2], ["1", "2"])[ptr.nDCG_gdeval @ 2]
    assert m.loc["r", "1"] == pytest.approx(_by_hand(["b", "c", "a"], {"a": 2, "b": -2, "c": 1}, 2))
    assert m.loc["r", "2"] == pytest.approx(_by_hand(["d", "a"], {"a": 1, "d": 0}, 2))
    binary = QRELS.assign(label=[1, 0, 1, 1, 0])
    with warnings.catch_warnings():
        warnings.simplefilter("error", ptr.GdevalGainsWarning)  # 0/1 labels: gains are the labels, no note
        topic_matrices({"r": RUN}, binary, [ptr.nDCG_gdeval @ 2], ["1", "2"])


@pytest.mark.realdata
def test_web2012_official_baseline_matches_gdeval_not_trec_eval():
    """The data README's gdeval -c: nDCG@20 0.1118 and ERR@20 0.1947; trec_eval's nDCG@20 is 0.1567."""
    root = data_path("trec-web-2012-risk")
    qrels = ptr.read_qrels(root / "qrels.web.151-200.txt")
    names = ("indri-rm-cata-filtered", "indri-ql-cata")
    runs = {n: ptr.read_run(root / "runs" / f"{n}.run.gz") for n in names}
    topics = sorted(set(qrels["qid"]))
    measures = [ptr.parse_measure(m) for m in ("nDCG_gdeval@20", "ERR_gdeval@20", "nDCG@20",
                                                 "nDCG(dcg='exp-log2')@20")]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ptr.GdevalGainsWarning)
        m = topic_matrices(runs, qrels, measures, topics)
    means = {repr(k): v.mean(axis=1) for k, v in m.items()}
    m = {repr(k): v for k, v in m.items()}
    assert round(means["nDCG_gdeval@20"]["indri-rm-cata-filtered"], 4) == 0.1118
    assert round(means["nDCG@20"]["indri-rm-cata-filtered"], 4) == 0.1567
    assert round(means["ERR_gdeval@20"]["indri-rm-cata-filtered"], 4) == 0.1947
    # per topic, gdeval.pl itself (ir_measures runs it for dcg='exp-log2') to its printed precision
    np.testing.assert_allclose(m["nDCG_gdeval@20"], m["nDCG(dcg='exp-log2')@20"], atol=5.01e-6)  # 5 decimals
