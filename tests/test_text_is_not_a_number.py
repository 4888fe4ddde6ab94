"""Text is never parsed as a number by the numeric core (issue 14: no float() of user strings).

numpy's float conversion calls Python's ``float`` on strings, which reads ``'0.5'``, ``'1_0'``,
``' 1'`` and non-ASCII digits: scores, labels and normalisers given as text are a ``TypeError``
naming the argument, while numbers in any container (lists, object arrays, pandas) still work.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import pyterrier_risk as ptr

TEXTS = [["0.5", "0.2"], np.array(["0.5", "0.2"]), pd.Series(["0.5", "0.2"]),
         pd.Series(["0.5", "0.2"], dtype="string"), pd.Series(["0.5", "0.2"], dtype="category"),
         [0.5, "1_0"], np.array([b"0.5", b"0.2"])]


@pytest.mark.parametrize("text", TEXTS, ids=lambda t: type(t).__name__ + str(getattr(t, "dtype", "")))
@pytest.mark.parametrize("call", [
    lambda t: ptr.urisk(t, [0.1, 0.1], alpha=1),
    lambda t: ptr.urisk([0.1, 0.1], t, alpha=1),
    lambda t: ptr.trisk(t, [0.1, 0.3]),
    lambda t: ptr.ue(t, 1.0, 0.25),
    lambda t: ptr.ue(0.5, t, 0.25),
    lambda t: ptr.ue_bounds(t, measure="AP", cutoff=2),
    lambda t: ptr.ue_bounds([1, 0], [0, 1], measure="AP", cutoff=2, norm=t),  # one document per topic
], ids=["urisk-scores", "urisk-baseline", "trisk", "ue-a", "ue-iub", "ue_bounds-labels", "ue_bounds-norm"])
def test_text_is_a_type_error_naming_the_argument(call, text):
    with pytest.raises(TypeError, match=r"must hold numeric values, not text such as '(0\.5|1_0)'"):
        call(text)


@pytest.mark.parametrize("func", [ptr.zrisk, ptr.georisk])
def test_a_matrix_with_a_text_column_is_a_type_error(func):
    frame = pd.DataFrame({"t1": ["0.5", "0.2"], "t2": [0.1, 0.3]}, index=["a", "b"])
    with pytest.raises(TypeError, match=r"matrix must hold numeric values, not text such as '0\.5'"):
        func(frame, alpha=1)


def test_rel_of_ue_bounds_must_be_an_integer():
    with pytest.raises(TypeError, match="rel must be an integer label"):
        ptr.ue_bounds([1, 0], measure="AP", cutoff=2, rel="2")
    with pytest.raises(TypeError, match="rel must be an integer label"):
        ptr.ue_bounds([1, 0], measure="AP", cutoff=2, rel=True)


def test_numbers_in_any_container_still_work_and_give_the_same_values():
    s, b = [0.5, 0.2, 0.4], [0.1, 0.3, 0.4]
    expected = ptr.urisk(np.array(s), np.array(b), alpha=2)
    assert expected == pytest.approx(((0.4 + 3 * -0.1) + 0.0) / 3)  # independent: losses count 1 + alpha
    for container in (list, lambda v: np.array(v, dtype=object), pd.Series,
                      lambda v: pd.Series(v, dtype="Float64"), lambda v: np.array(v, dtype=np.float32)):
        got = ptr.urisk(container(s), container(b), alpha=2)
        assert got == pytest.approx(expected, rel=1e-6)
    matrix = pd.DataFrame({"t1": [0.5, 0.2], "t2": [1, 0]}, index=["a", "b"])  # an int column too
    np.testing.assert_allclose(ptr.zrisk(matrix, alpha=1), ptr.zrisk(matrix.to_numpy(float), alpha=1))
    bounds = ptr.ue_bounds(np.array([1, np.nan, None], dtype=object), measure="AP", cutoff=2)
    assert bounds == ptr.ue_bounds([1.0, np.nan, np.nan], measure="AP", cutoff=2)
