"""The learner's frames: labelled training sets, feature matrices and baseline columns, checked.

``RiskLambdaMART`` reads result frames (``qid``, ``docno``, ``features`` and the baselines'
columns) and qrels; this module turns them into LightGBM's arrays, with one-line errors naming the
frame and the row for what LightGBM would misread (missing keys, repeated rows, ragged, complex or
infinite features, labels outside the gains). NaN features are LightGBM's missing values.
"""

from __future__ import annotations

from typing import Any, Union

import numpy as np
import pandas as pd
import pyterrier as pt

__all__ = ["BaselineSpec", "baseline_column", "check_keys", "check_unique", "feature_matrix", "labelled",
           "refuse_features", "scoring_input"]

BaselineSpec = Union[str, int, "pt.Transformer"]


def labelled(
    res: pd.DataFrame, qrels: pd.DataFrame, what: str, *, n_gains: int, context: Any
) -> tuple[pd.DataFrame, np.ndarray, np.ndarray, np.ndarray]:
    """Join labels, group by query (stable) and build X, y and group sizes.

    Args:
        res: result frame with ``features`` (and the baselines' columns).
        qrels: its qrels (``qid``, ``docno``, ``label``); an unjudged candidate gets label 0.
        what: ``'training'`` or ``'validation'``, for the messages.
        n_gains: the number of LightGBM label gains: labels must lie in ``[0, n_gains)``.
        context: the transformer named by PyTerrier's validation errors.

    Returns:
        The labelled frame sorted by query, its feature matrix, labels and query sizes.
    """
    if not isinstance(res, pd.DataFrame) or not isinstance(qrels, pd.DataFrame):
        raise TypeError(f"{what} results and qrels must be pandas DataFrames")
    pt.validate.result_frame(res, extra_columns=["features"], context=context)
    pt.validate.columns(qrels, includes=["qid", "docno", "label"], context=context)
    if len(res) == 0:
        raise ValueError(f"no {what} results to fit to")
    check_keys(res, f"{what} results")
    check_keys(qrels, f"{what} qrels")
    judged = qrels[["qid", "docno", "label"]]
    if judged["label"].isna().any():
        first = judged.loc[judged["label"].isna(), ["qid", "docno"]].iloc[0].tolist()
        raise ValueError(
            f"{what} qrels have {int(judged['label'].isna().sum())} missing label(s), e.g. "
            f"qid/docno {first}; drop those rows (an unjudged candidate gets label 0)"
        )
    if judged.duplicated(["qid", "docno"]).any():
        raise ValueError(f"{what} qrels have several labels for the same (qid, docno)")
    if res.duplicated(["qid", "docno"]).any():
        raise ValueError(f"{what} results contain the same (qid, docno) more than once")
    candidates = res.drop(columns=["label"], errors="ignore")
    try:
        frame = candidates.merge(judged, on=["qid", "docno"], how="left")
    except ValueError as e:  # pandas refuses to join e.g. int64 qids with str qids
        raise ValueError(f"cannot join the {what} results with their qrels on qid/docno: {e}") from e
    if frame["label"].isna().all():
        raise ValueError(
            f"none of the {len(frame)} {what} candidates has a qrels entry; do the qid/docno "
            f"values (and types, str vs int) of the results and the qrels match?"
        )
    frame["label"] = _integer_labels(frame["label"], what, n_gains)
    frame = frame.sort_values("qid", kind="stable").reset_index(drop=True)
    features = feature_matrix(frame, f"{what} results")
    sizes = frame.groupby("qid", sort=False).size().to_numpy()
    return frame, features, frame["label"].to_numpy(), sizes


def _integer_labels(label: pd.Series, what: str, n_gains: int) -> np.ndarray:
    """The joined labels as int32 (unjudged: 0), each an integer in ``[0, n_gains)``."""
    labels = pd.to_numeric(label, errors="coerce")
    if labels.dtype.kind == "c":
        raise TypeError(f"{what} qrels have complex labels: a label must be an integer")
    bad = label.notna() & labels.isna()
    if bad.any():
        raise ValueError(f"{what} qrels have non-numeric labels, e.g. {label[bad].iloc[0]!r}")
    labels = labels.fillna(0).to_numpy(dtype=np.float64)
    if not np.all(labels == np.round(labels)):
        example = labels[labels != np.round(labels)][0]
        raise ValueError(f"{what} labels must be integers, got e.g. {example!r}")
    if labels.min() < 0 or labels.max() >= n_gains:
        hint = (
            "; clip negative labels first, e.g. qrels.assign(label=qrels.label.clip(lower=0))"
            if labels.min() < 0
            else "; give label_gain=[...] with one gain per label"
        )
        raise ValueError(
            f"{what} labels must lie in [0, {n_gains - 1}] (LightGBM label_gain), got "
            f"[{labels.min():g}, {labels.max():g}]{hint}"
        )
    return labels.astype(np.int32)


def check_unique(frame: pd.DataFrame, what: str) -> None:
    """One document, one score: a (qid, docno) that repeats is refused, with a fix."""
    repeated = frame.duplicated(["qid", "docno"])
    if repeated.any():
        first = frame.loc[repeated, ["qid", "docno"]].iloc[0].tolist()
        raise ValueError(
            f"{what} contains the same (qid, docno) more than once ({int(repeated.sum())} "
            f"repeated row(s), e.g. {first}); drop them, e.g. inp.drop_duplicates(['qid', 'docno'])"
        )


def check_keys(frame: pd.DataFrame, what: str) -> None:
    """A missing qid or docno would silently drop rows from the query groups and the joins."""
    missing = frame[["qid", "docno"]].isna().any(axis=1)
    if missing.any():
        raise ValueError(
            f"{what}: {int(missing.sum())} row(s) have a missing qid or docno, e.g. row "
            f"{frame.index[int(np.argmax(missing.to_numpy()))]!r}"
        )



class _NotReal(TypeError):
    """A features row that is not real numbers (complex, text, dates)."""


def _real_row(value: Any, i: int, frame: pd.DataFrame, what: str) -> np.ndarray:
    """One ``features`` entry as float64; complex values (float64 drops the imaginary part), text refused."""
    row = np.asarray(value)
    kind = row.dtype.kind
    if kind == "O":  # Python objects: each must be a real number (or None/NaN, a missing value)
        real = (int, float, np.integer, np.floating, bool)
        kind = next((("c" if isinstance(x, complex) else "U") for x in row.flat
                     if not (x is None or isinstance(x, real))), "f")  # fmt: skip
    if kind not in "biuf":
        name = {"c": "complex", "U": "text", "S": "bytes", "M": "dates", "m": "durations"}.get(
            kind, row.dtype
        )
        fix = " (take .real or abs() first)" if kind == "c" else ""
        raise _NotReal(
            f"{what}: features must be numeric (real numbers), but qid {frame['qid'].iloc[i]!r} docno "
            f"{frame['docno'].iloc[i]!r} has {name} values{fix}"
        )
    return row.astype(np.float64)


def feature_matrix(frame: pd.DataFrame, what: str) -> np.ndarray:
    """Stack the ``features`` column into a float64 matrix, with clear errors."""
    values = frame["features"].to_numpy()
    try:
        rows = [_real_row(v, i, frame, what) for i, v in enumerate(values)]
    except (TypeError, ValueError) as e:
        if isinstance(e, _NotReal):
            raise
        raise TypeError(f"{what}: features must be numeric arrays ({e})") from e
    bad_dim = next((i for i, r in enumerate(rows) if r.ndim != 1), None)
    if bad_dim is not None:
        raise ValueError(
            f"{what}: features must be 1-d arrays; row {bad_dim} has shape {rows[bad_dim].shape}"
        )
    lengths = np.fromiter((r.shape[0] for r in rows), dtype=np.int64, count=len(rows))
    if lengths.min() != lengths.max():
        first = int(np.argmax(lengths != lengths[0]))
        raise ValueError(
            f"{what}: ragged features, rows have between {lengths.min()} and {lengths.max()} "
            f"features (row 0 has {lengths[0]}, row {first} has {lengths[first]})"
        )
    if lengths[0] == 0:
        raise ValueError(f"{what}: features are empty arrays")
    matrix = np.stack(rows)
    # NaN is LightGBM's missing value (a documented policy); an infinite value is a bug upstream.
    refuse_features(np.isinf(matrix), frame, what, "infinite", "NaN (missing) is accepted, ±inf is not")
    return matrix


def refuse_features(bad: np.ndarray, frame: pd.DataFrame, what: str, kind: str, hint: str) -> None:
    """A one-line error naming the first bad feature value, when ``bad`` (rows × features) has one.

    ``{what}: 2 row(s) have {kind} features, e.g. feature 3 of qid '7' docno 'd1'; {hint}``, the
    rows of ``bad`` being those of ``frame`` (for its ``qid`` and ``docno``).
    """
    if not bad.any():
        return
    i, j = (int(k[0]) for k in np.nonzero(bad))
    raise ValueError(
        f"{what}: {int(bad.any(axis=1).sum())} row(s) have {kind} features, e.g. feature {j} of qid "
        f"{frame['qid'].iloc[i]!r} docno {frame['docno'].iloc[i]!r}; {hint}"
    )


def scoring_input(model: Any, inp: pd.DataFrame, trained: bool, width: int | None,
                  hint: str = "") -> tuple[pd.DataFrame, np.ndarray | None]:
    """A learner's ``transform`` input, checked: its copy to score, and its feature matrix.

    Args:
        model: the transformer (PyTerrier's validation errors name it; so does "is not trained").
        inp: the result frame to score (``qid``, ``docno``, ``features``); it is not modified.
        trained: whether ``model`` has been fitted or loaded.
        width: the feature count the model was trained on.
        hint: added to the message of a wrong feature count.

    Returns:
        ``(out, features)``: a copy of ``inp`` and its features; for an empty ``inp``, ``features`` is
        None and ``out`` is already the answer (an empty ``score``, ranks added).

    Raises:
        pyterrier.validate.InputValidationError: a required column is missing.
        ValueError: the model is not trained, a (qid, docno) repeats, or the features are ragged,
            infinite or of the wrong width.
    """
    pt.validate.result_frame(inp, extra_columns=["features"], context=model)
    name = type(model).__name__
    if not trained:
        raise ValueError(f"{name} is not trained: call fit() or {name}.load() first")
    check_keys(inp, "transform input")
    check_unique(inp, "transform input")  # fit refuses them too: one document, one score
    out = inp.copy()
    if len(out) == 0:
        out["score"] = pd.Series(index=out.index, dtype="float64")
        return pt.model.add_ranks(out), None
    features = feature_matrix(inp, "transform input")
    if features.shape[1] != width:
        raise ValueError(
            f"the model was trained on {width} features but the input has {features.shape[1]}{hint}"
        )
    return out, features


def _real_column(values: pd.Series, what: str) -> np.ndarray:
    """A numeric column as float64 (text that is not a number: NaN); complex values refused."""
    numeric = pd.to_numeric(values, errors="coerce")
    if numeric.dtype.kind == "c" or (
        numeric.dtype.kind == "O" and any(isinstance(x, complex) for x in numeric)
    ):
        raise TypeError(f"{what} are complex numbers: a score must be real (take .real or abs() first)")
    return numeric.to_numpy(dtype=np.float64)


def baseline_column(spec: BaselineSpec, frame: pd.DataFrame, features: np.ndarray, name: str) -> np.ndarray:
    """Per-row scores of one baseline ranking of the candidates in ``frame`` (row-aligned)."""
    if isinstance(spec, pt.Transformer):
        scored = spec.transform(frame.drop(columns=["label"]))
        if not isinstance(scored, pd.DataFrame) or not {"qid", "docno", "score"} <= set(scored.columns):
            raise ValueError(f"{name}: transformer {spec!r} must return a frame with qid, docno and score")
        scored = scored[["qid", "docno", "score"]]
        if scored.duplicated(["qid", "docno"]).any():
            raise ValueError(f"{name}: transformer {spec!r} returned the same (qid, docno) more than once")
        joined = frame[["qid", "docno"]].merge(scored, on=["qid", "docno"], how="left", indicator=True)
        missing = int((joined["_merge"] == "left_only").sum())
        if missing:
            raise ValueError(
                f"{name}: transformer {spec!r} did not score {missing} of the {len(frame)} "
                f"training candidates; a baseline must re-score every candidate"
            )
        column = _real_column(joined["score"], f"{name}: transformer {spec!r} scores")
    elif isinstance(spec, (int, np.integer)):
        if not 0 <= spec < features.shape[1]:
            raise ValueError(f"{name}: feature index {spec} out of range for {features.shape[1]} features")
        column = features[:, int(spec)]
    else:
        if spec not in frame.columns:
            hint = " (the first-stage score: put the re-ranker after a retriever)" if spec == "score" else ""
            raise ValueError(f"{name}: the training results have no column {spec!r}{hint}")
        column = _real_column(frame[spec], f"{name}: column {spec!r}")
    n_bad = int(np.sum(~np.isfinite(column)))
    if n_bad:
        raise ValueError(
            f"{name} {spec!r}: {n_bad} of the {len(column)} training candidates have no "
            f"finite baseline score; a baseline must cover every row"
        )
    return column
