"""The order of the measures in ``Experiment``'s tables, independent of ``PYTHONHASHSEED``.

ir_measures hands the measures it computes at run time (``UE``, measures made with
``ir_measures.define``) to their provider as a ``set``, and yields their values in that set's order,
which depends on the string hashes of the measures' names: two ``UE`` variants swap places between
two runs of one script, and with them the columns of ``experiment.csv``. The measures of the other
providers (pytrec_eval's) come in a fixed order.

The rule: every measure keeps ``pt.Experiment``'s place, except that the places held by run-time
measures are filled with those measures in the order they were asked for. Columns, per-query rows
and dict keys are permuted; no value changes.
"""

from __future__ import annotations

from typing import Any

__all__ = ["in_measure_order", "measure_permutation"]

#: the averages-table columns pt.Experiment derives from a measure's name
_SUFFIXES = ("", " +", " -", " p-value", " reject", " p-value corrected")


def measure_permutation(seen: list[str], asked: list[str]) -> dict[str, str]:
    """``{measure in pt.Experiment's place: measure to put there}`` for the run-time measures in ``asked``.

    Args:
        seen: the measures in the order ``pt.Experiment`` returned them.
        asked: the run-time measures, in the order they were asked for.
    """
    slots = [m for m in seen if m in asked]
    return dict(zip(slots, [m for m in asked if m in slots], strict=True))


def _renamed_column(column: Any, swap: dict[str, str]) -> Any:
    for m, target in swap.items():
        for suffix in _SUFFIXES:
            if column == m + suffix:
                return target + suffix
    return column


def _long_table(table: Any, swap: dict[str, str]) -> Any:
    """The rows of each (name, qid) block of a long per-query table in the deterministic measure order."""
    import numpy as np

    measures = table["measure"].astype(str)
    seen = list(dict.fromkeys(measures))
    rank = {swap.get(m, m): k for k, m in enumerate(seen)}
    keys = table[["name", "qid"]].astype(str)
    block = (keys != keys.shift()).any(axis=1).cumsum().to_numpy()
    order = np.lexsort((measures.map(rank).to_numpy(), block))
    return table.iloc[order].reset_index(drop=True)


def _averages(table: Any, swap: dict[str, str], highlight: str | None) -> Any:
    from ._render import _highlighted

    data = getattr(table, "data", table)  # a pandas Styler (highlight) holds the table as .data
    reordered = data[[_renamed_column(c, swap) for c in data.columns]]
    return _highlighted(reordered, highlight) if data is not table and highlight else reordered


def _dict_order(values: dict[str, Any], swap: dict[str, str]) -> dict[str, Any]:
    """One ``{measure: value}`` dict in the deterministic order."""
    return {swap.get(m, m): values[swap.get(m, m)] for m in values}


def _part(result: Any, asked: list[str], highlight: str | None) -> Any:
    if hasattr(result, "columns") or hasattr(result, "data"):
        data = getattr(result, "data", result)
        if "measure" in data.columns:  # the long per-query table
            return _long_table(data, measure_permutation(list(dict.fromkeys(data["measure"])), asked))
        seen = [str(c) for c in data.columns]
        return _averages(result, measure_permutation(seen, asked), highlight)
    if not isinstance(result, dict) or not result:
        return result
    first = next(iter(result.values()))
    if isinstance(first, dict) and first and isinstance(next(iter(first.values())), dict):  # per query
        return {i: {q: _dict_order(row, measure_permutation(list(row), asked)) for q, row in rows.items()}
                for i, rows in result.items()}
    return {n: _dict_order(row, measure_permutation(list(row), asked)) for n, row in result.items()}


def in_measure_order(result: Any, asked: list[str], highlight: str | None = None) -> Any:
    """``pt.Experiment``'s ``result`` with the run-time measures in the order asked (see the module).

    Args:
        result: what ``pt.Experiment`` returned (a table, a Styler, a dict, or a pair of them).
        asked: the run-time measures' names as ``pt.Experiment`` reports them, in the order asked.
        highlight: the ``highlight`` the table was styled with (restyled after the reordering).
    """
    if len(asked) < 2:
        return result
    if isinstance(result, tuple):
        parts = [_part(r, asked, highlight) for r in result]
        return type(result)(*parts) if hasattr(result, "_fields") else tuple(parts)
    return _part(result, asked, highlight)
