"""Shared input checks for the numeric core.

Every public function of the numeric core funnels its inputs through these helpers so that bad
input fails the same way everywhere: a ``ValueError`` (or ``TypeError`` for non-numeric data)
whose message names the argument and the problem (NaN, infinity, negative score, length
mismatch, missing topics, too few systems or topics, negative ``alpha``).

Scores are effectiveness values (nDCG, ERR, AP, ...): finite and non-negative. When all is well
the checks cost two reductions (``min`` and ``max``), or a single ``min`` where the row sums are
needed anyway (:func:`as_matrix_with_row_sums`); the detailed diagnosis that names the offending
cells only runs once something is known to be wrong. Missing values (``NaN``, ``pd.NA``) are
errors here: the policy for topics a system did not answer belongs to the caller.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Mapping, Sequence
from typing import Any, Literal, overload

import numpy as np
import pandas as pd

__all__ = [
    "MAX_BINS",
    "MAX_RESAMPLES",
    "check_int",
    "check_run_frame",
    "nan_score_message",
    "repeated_pair_message",
    "as_score_pair",
    "as_score_vector",
    "as_matrix",
    "as_matrix_with_row_sums",
    "check_alpha",
    "wrap_topics",
]

_MAX_LISTED = 5


def _listing(labels: Sequence[Any]) -> str:
    labels = list(labels)
    shown = ", ".join(repr(x) for x in labels[:_MAX_LISTED])
    if len(labels) > _MAX_LISTED:
        shown += f", ... ({len(labels)} in total)"
    return shown


def check_alpha(alpha: float) -> float:
    """Return ``alpha`` as a float, or raise if it is not a finite number ``>= 0``.

    Args:
        alpha: the risk-sensitivity parameter (``alpha >= 0``; 0 weighs losses and wins equally).

    Raises:
        TypeError: ``alpha`` is not a real number.
        ValueError: ``alpha`` is negative, NaN or infinite.
    """
    if isinstance(alpha, bool) or not isinstance(alpha, (int, float, np.integer, np.floating)):
        raise TypeError(f"alpha must be a real number >= 0, got {type(alpha).__name__} {alpha!r}")
    value = float(alpha)
    if not np.isfinite(value) or value < 0:
        raise ValueError(f"alpha must be a finite number >= 0 (the risk sensitivity), got {alpha!r}")
    return value


#: The largest number of bins of a histogram (``rank_distance_bins``): the paper uses 10; a count no real
#: analysis reaches, far below what would exhaust memory (a row per run of this many floats).
MAX_BINS = 10_000
#: The largest number of random resamples (sign flips, permutations) of a test: p-values resolve to
#: ``1/(B+1)``, and 10^8 already takes hours; larger counts are a typo, not a request.
MAX_RESAMPLES = 100_000_000


@overload
def check_int(
    value: Any, name: str, *, minimum: int = 1, maximum: int | None = None, allow_none: Literal[False] = False
) -> int: ...


@overload
def check_int(
    value: Any, name: str, *, minimum: int = 1, maximum: int | None = None, allow_none: bool
) -> int | None: ...


def check_int(
    value: Any, name: str, *, minimum: int = 1, maximum: int | None = None, allow_none: bool = False
) -> int | None:
    """Return ``value`` as an int, or raise if it is not an integer in ``[minimum, maximum]``.

    The one check of count-like parameters (cutoffs, rounds, threads, resamples, bins) in every layer.
    A count that allocates memory or time in proportion to itself gets a ``maximum`` (:data:`MAX_BINS`,
    :data:`MAX_RESAMPLES`) that no real input reaches, so that a typo fails at once in one line.

    Args:
        value: the value to check (``bool`` is refused: ``True`` is not a count).
        name: the parameter's name, for the message.
        minimum: the smallest allowed value.
        maximum: the largest allowed value (None: no bound).
        allow_none: whether None is allowed (and returned as is).

    Raises:
        TypeError: not an integer (a float such as 5.0 included).
        ValueError: below ``minimum`` or above ``maximum``.
    """
    if value is None and allow_none:
        return None
    extra = " or None" if allow_none else ""
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        kind = type(value).__name__
        raise TypeError(f"{name} must be an integer >= {minimum}{extra}, got {kind} {value!r}")
    if value < minimum:
        raise ValueError(f"{name} must be an integer >= {minimum}{extra}, got {value!r}")
    if maximum is not None and value > maximum:
        raise ValueError(f"{name} must be an integer in [{minimum}, {maximum:_}]{extra}, got {value!r} "
                         "(a limit no real input reaches)")
    return int(value)


def _holds_text(array: np.ndarray) -> bool:
    """Whether ``array`` holds strings (numpy's float conversion would parse ``'0.5'`` or ``'1_0'``)."""
    if array.dtype.kind in "USa":
        return True
    return array.dtype.kind == "O" and any(isinstance(v, (str, bytes)) for v in array.ravel())


def _to_float_array(values: Any, name: str) -> np.ndarray:
    """``values`` as float64; text is refused (a TypeError), never parsed."""
    raw = values.to_numpy() if isinstance(values, (pd.Series, pd.DataFrame)) else np.asarray(values)
    if _holds_text(raw):
        example = next((v for v in raw.ravel() if isinstance(v, (str, bytes))), "")
        example = example.decode(errors="replace") if isinstance(example, bytes) else example
        raise TypeError(f"{name} must hold numeric values, not text such as {str(example)!r} (convert it)")
    try:
        array = np.asarray(raw, dtype=np.float64)
    except (TypeError, ValueError) as e:
        raise TypeError(f"{name} must hold numeric scores: {e}") from None
    return array


def _check_values(array: np.ndarray, name: str, label_of: Callable[[int], Any] | None = None) -> None:
    """Raise if ``array`` holds NaN, infinite or negative values (one cheap pass when all is well)."""
    if array.size == 0:
        return
    lowest = array.min()
    # min propagates NaN, so one reduction catches NaN, -inf and negatives; +inf needs the max
    if lowest >= 0 and array.max() < np.inf:
        return
    flat = array.reshape(-1)

    def where(mask: np.ndarray) -> str:
        positions = np.flatnonzero(mask)
        if label_of is not None:
            return _listing([label_of(int(i)) for i in positions])
        if array.ndim == 2:
            return _listing([tuple(int(v) for v in np.unravel_index(i, array.shape)) for i in positions])
        return _listing([int(i) for i in positions])

    nan = np.isnan(flat)
    if nan.any():
        raise ValueError(f"{name} contains NaN scores at {where(nan)}")
    inf = np.isinf(flat)
    if inf.any():
        raise ValueError(f"{name} contains infinite scores at {where(inf)}")
    negative = flat < 0
    raise ValueError(
        f"{name} contains negative scores at {where(negative)}; effectiveness scores must be >= 0"
    )


def as_score_vector(values: Any, name: str = "scores") -> tuple[np.ndarray, pd.Index | None]:
    """Check one per-topic score vector.

    Args:
        values: a 1-D array-like, a ``pandas.Series`` indexed by topic or a ``{topic: score}`` dict.
        name: the argument name used in error messages.

    Returns:
        The scores as a float64 array and the topic index (``None`` unless a Series was given).
    """
    index = None
    if isinstance(values, Mapping):  # {topic: score}
        values = pd.Series(values)
    if isinstance(values, pd.DataFrame):
        raise TypeError(f"{name} must be a 1-D vector of per-topic scores, got a DataFrame")
    if isinstance(values, pd.Series):
        index = values.index
        if index.has_duplicates:
            raise ValueError(f"{name} has duplicate topics: {_listing(index[index.duplicated()].unique())}")
    array = _to_float_array(values, name)
    if array.ndim != 1:
        raise ValueError(f"{name} must be a 1-D vector of per-topic scores, got shape {array.shape}")
    _check_values(array, name, label_of=None if index is None else index.__getitem__)
    return array, index


def as_score_pair(
    scores: Any, baseline: Any, names: tuple[str, str] = ("scores", "baseline")
) -> tuple[np.ndarray, np.ndarray, pd.Index | None]:
    """Check and align a system's per-topic scores with its baseline's.

    Two Series are aligned by topic (the order of ``scores`` is kept); if their topic sets differ
    the error names the topics missing on each side. A Series and a plain array must have equal
    lengths and are paired by position.

    Args:
        scores: per-topic scores of the system under evaluation.
        baseline: per-topic scores of the baseline.
        names: argument names for error messages.

    Returns:
        ``(scores, baseline, index)``: two float64 arrays of equal length and the topic index
        (``None`` when neither input was a Series).
    """
    a, a_index = as_score_vector(scores, names[0])
    b, b_index = as_score_vector(baseline, names[1])
    if a_index is not None and b_index is not None:
        if not a_index.equals(b_index):
            missing_b = a_index.difference(b_index, sort=False)
            missing_a = b_index.difference(a_index, sort=False)
            if len(missing_a) or len(missing_b):
                parts = []
                if len(missing_b):
                    parts.append(f"{len(missing_b)} topic(s) missing from {names[1]}: {_listing(missing_b)}")
                if len(missing_a):
                    parts.append(f"{len(missing_a)} topic(s) missing from {names[0]}: {_listing(missing_a)}")
                raise ValueError(f"{names[0]} and {names[1]} cover different topics; " + "; ".join(parts))
            b = b[b_index.get_indexer(a_index)]
        index = a_index
    else:
        if len(a) != len(b):
            raise ValueError(
                f"{names[0]} and {names[1]} have different lengths ({len(a)} vs {len(b)} topics)"
            )
        index = a_index if a_index is not None else b_index
    if len(a) == 0:
        raise ValueError(f"{names[0]} and {names[1]} are empty: at least one topic is needed")
    return a, b, index


def _matrix_shape_checked(
    matrix: Any, name: str, min_systems: int, min_topics: int
) -> tuple[np.ndarray, pd.Index | None, pd.Index | None]:
    """A C-contiguous float64 2-D array of ``matrix`` with its labels, its shape checked (not its values)."""
    systems = topics = None
    if isinstance(matrix, pd.DataFrame):
        systems, topics = matrix.index, matrix.columns
        values = _to_float_array(matrix, name)
    else:
        values = _to_float_array(matrix, name)
    if values.ndim != 2:
        raise ValueError(f"{name} must be 2-D (systems × topics), got shape {values.shape}")
    values = np.ascontiguousarray(values)
    r, c = values.shape
    if r < min_systems:
        raise ValueError(f"{name} needs at least {min_systems} systems (rows), got {r}")
    if c < min_topics:
        raise ValueError(f"{name} needs at least {min_topics} topics (columns), got {c}")
    return values, systems, topics


def as_matrix(
    matrix: Any, name: str = "matrix", min_systems: int = 1, min_topics: int = 1
) -> tuple[np.ndarray, pd.Index | None, pd.Index | None]:
    """Check a systems × topics score matrix.

    Args:
        matrix: a 2-D array-like (rows = systems, columns = topics) or a ``DataFrame`` with the
            systems as index and the topics as columns.
        name: the argument name used in error messages.
        min_systems: the smallest acceptable number of rows.
        min_topics: the smallest acceptable number of columns.

    Returns:
        ``(values, systems, topics)``: a C-contiguous float64 array (no copy when the input
        already is one) and the row and column labels (``None`` for plain arrays).
    """
    values, systems, topics = _matrix_shape_checked(matrix, name, min_systems, min_topics)
    _check_values(values, name, label_of=_cell_labeller(systems, topics))
    return values, systems, topics


def _cell_labeller(systems: pd.Index | None, topics: pd.Index | None) -> Callable[[int], Any] | None:
    if systems is None or topics is None:
        return None
    c = len(topics)

    def label_of(i: int) -> tuple[Any, Any]:
        return systems[i // c], topics[i % c]

    return label_of


def as_matrix_with_row_sums(
    matrix: Any, name: str = "matrix", min_systems: int = 1, min_topics: int = 1
) -> tuple[np.ndarray, np.ndarray, pd.Index | None, pd.Index | None]:
    """Like :func:`as_matrix`, but also return the row sums, reusing them for the checks.

    On a large matrix this costs two passes (the row sums and a ``min``) instead of three: a
    NaN or infinity anywhere makes some row sum non-finite, and the ``min`` finds negatives.

    Returns:
        ``(values, row_sums, systems, topics)``.
    """
    values, systems, topics = _matrix_shape_checked(matrix, name, min_systems, min_topics)
    with np.errstate(over="ignore"):  # an overflow is reported below, as a ValueError
        row_sums = values.sum(axis=1)
    if not (np.isfinite(row_sums).all() and values.min() >= 0):
        _check_values(values, name, label_of=_cell_labeller(systems, topics))
        # finite, non-negative values can still overflow a sum
        raise ValueError(f"{name}: row sums overflow float64 (scores too large)")
    return values, row_sums, systems, topics


def wrap_topics(values: np.ndarray, index: pd.Index | None, name: Hashable = None) -> np.ndarray | pd.Series:
    """Return ``values`` as a Series on ``index`` when there is one, else unchanged."""
    if index is None:
        return values
    return pd.Series(values, index=index, name=name)


# -- runs ------------------------------------------------------------------------------------------
# The run policy, one for files (``read_run``) and frames (``Experiment``, ``hurt_topics``, the measures'
# runs and baseline runs, ``rank_distance``): every score is a number (NaN is refused; ±inf is kept, since
# scores only order the documents) and a (topic, document) pair is listed once. An evaluator reading a
# pair twice counts the document twice (one duplicate row moves nDCG@10 by 0.01); there is no right way
# to merge two scores, so the run is refused with the first offending pair named.


def repeated_pair_message(where: str, qid: Any, docno: Any, first: str) -> str:
    """The one-line error of a (topic, document) pair listed twice; ``first`` says where it came first."""
    return f"{where}: document {str(docno)!r} is listed twice for topic {str(qid)!r} (first at {first})"


def nan_score_message(where: str, qid: Any, docno: Any) -> str:
    """The one-line error of a NaN score, naming the document and topic."""
    return f"{where}: score is NaN for document {str(docno)!r} of topic {str(qid)!r}"


def _id_column(run: pd.DataFrame, names: tuple[str, str], where: str) -> pd.Series:
    """A run's ``qid``/``docno`` column (or ir_measures' ``query_id``/``doc_id``) as str."""
    from pandas.api.types import infer_dtype

    column = next((c for c in names if c in run.columns), None)
    if column is None:
        raise ValueError(f"{where} lacks a {names[0]} column (a run needs qid, docno, score)")
    values = run[column]
    return values if infer_dtype(values, skipna=False) == "string" else values.astype(str)


def check_run_frame(run: Any, where: str) -> None:
    """Apply the run policy to a result frame: refuse NaN scores and (qid, docno) pairs listed twice.

    The check of :func:`pyterrier_risk.read_run` for frames (files get it line by line, with the same
    messages: :func:`nan_score_message`, :func:`repeated_pair_message`). Ids compare as text (``351``
    is ``"351"``), as the evaluators compare them. Columns ``qid``/``docno`` or ir_measures'
    ``query_id``/``doc_id``, and ``score``.

    Args:
        run: the result frame.
        where: how to name the run in the message (``"run 'BM25'"``).

    Raises:
        TypeError: not a DataFrame, or a score column that is not numeric.
        ValueError: a missing column, a NaN score, or a pair listed twice (the first one named).
    """
    if not isinstance(run, pd.DataFrame):
        raise TypeError(f"{where} must be a result DataFrame (qid, docno, score) or a TREC run file, "
                        f"got {type(run).__name__}")
    if "score" not in run.columns:
        raise ValueError(f"{where} lacks a score column (a run needs qid, docno, score)")
    qids = _id_column(run, ("qid", "query_id"), where)
    docnos = _id_column(run, ("docno", "doc_id"), where)
    try:
        nan = np.isnan(run["score"].to_numpy(dtype=np.float64))
    except (TypeError, ValueError) as e:
        raise TypeError(f"{where}: the score column must be numeric: {e}") from None
    if nan.any():
        i = int(np.flatnonzero(nan)[0])
        raise ValueError(nan_score_message(where, qids.iloc[i], docnos.iloc[i]) + f" (row {i}; "
                         f"{int(nan.sum())} NaN in all)")
    twice = pd.DataFrame({"q": qids.to_numpy(), "d": docnos.to_numpy()}).duplicated().to_numpy()
    if twice.any():
        i = int(np.flatnonzero(twice)[0])
        same = (qids.to_numpy() == qids.iloc[i]) & (docnos.to_numpy() == docnos.iloc[i])
        message = repeated_pair_message(where, qids.iloc[i], docnos.iloc[i], f"row {int(np.argmax(same))}")
        raise ValueError(f"{message}; row {i} repeats it")
