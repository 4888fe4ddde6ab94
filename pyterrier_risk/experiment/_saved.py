"""The summary tables ``Experiment(save_dir=...)`` saves: ``pt.Experiment``'s, with the risk columns.

``pt.Experiment`` writes ``aggregated.csv`` and ``perquery.csv`` without the risk columns (and with
the internal base-measure columns); :func:`saved_tables` sets the earlier files aside while it runs and
:func:`write_saved_tables` writes the tables with the risk columns, whole or not at all.
"""

from __future__ import annotations

import contextlib
import os
import warnings
from collections.abc import Iterator
from typing import TYPE_CHECKING

from ..data import atomic_write

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["saved_tables", "write_saved_tables"]

_SAVED = ("aggregated.csv", "perquery.csv")


@contextlib.contextmanager
def saved_tables(save_dir: str | None) -> Iterator[dict[str, pd.DataFrame]]:
    """Set ``save_dir``'s summary tables aside while ``pt.Experiment`` writes its own; restore them on error.

    Yields the earlier tables (by file name). ``pt.Experiment`` writes tables without the risk
    columns and with the internal base-measure columns; :func:`write_saved_tables` replaces them.
    If anything fails before that, the earlier files are put back and the inner call's are removed.
    """
    import pandas as pd

    paths = {name: os.path.join(save_dir, name) for name in _SAVED} if save_dir is not None else {}
    moved = {}
    for name, path in paths.items():
        if os.path.exists(path):
            moved[name] = f"{path}.pyterrier-risk-{os.getpid()}"
            os.replace(path, moved[name])
    try:
        yield {name: pd.read_csv(tmp) for name, tmp in moved.items()}
    except BaseException:
        for name, path in paths.items():
            if name in moved:
                os.replace(moved[name], path)
            elif os.path.exists(path):
                os.remove(path)
        raise
    for tmp in moved.values():
        os.remove(tmp)


def write_saved_tables(
    save_dir: str, names: list[str], earlier: dict[str, pd.DataFrame], averages: pd.DataFrame,
    per_query: pd.DataFrame,
) -> None:  # fmt: skip
    """Write ``aggregated.csv`` and ``perquery.csv`` as ``pt.Experiment`` does, with the risk columns.

    Rows of systems from earlier calls are kept, and a change of columns against the earlier file
    is warned about, as ``pt.Experiment`` does.
    """
    import pandas as pd

    old_columns = list(earlier["aggregated.csv"].columns) if "aggregated.csv" in earlier else None
    if old_columns is not None and set(old_columns) != set(averages.columns):
        path = os.path.join(save_dir, "aggregated.csv")
        warnings.warn(
            f"Evaluation measures differ between the existing '{path}' "
            f"(columns: {', '.join(sorted(old_columns))}) and the current run "
            f"(columns: {', '.join(sorted(averages.columns))}). Missing values will be filled with NaN.",
            stacklevel=4,
        )
    for filename, table in (("aggregated.csv", averages), ("perquery.csv", per_query)):
        old = earlier.get(filename)
        if old is not None:
            old = old[~old["name"].astype(str).isin(set(names))]
            if not old.empty:
                table = pd.concat([table, old], ignore_index=True)
        with atomic_write(os.path.join(save_dir, filename)) as f:  # whole or not at all
            table.to_csv(f, index=False)
