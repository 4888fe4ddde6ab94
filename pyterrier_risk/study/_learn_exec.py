"""A study's finished tasks: the :class:`TaskStore`.

Where the tasks run is a backend's business (:mod:`._learn_backend`: the calling process, a local
process pool, a Dask cluster); every backend runs the same function (:func:`~._learn_task.run_task`)
on the same plain-data tasks, so the results do not depend on where or in which order the tasks ran.
The parent process stores each finished task's result under ``out/tasks/<key>.pkl`` (temporary name,
then ``os.replace``): a rerun skips them, an interrupted one leaves no partial file.
"""

from __future__ import annotations

import os
import pickle
from pathlib import Path
from typing import Any

__all__ = ["TaskStore"]


class TaskStore:
    """The finished tasks' results under ``folder/tasks`` (none kept when ``folder`` is None)."""

    def __init__(self, folder: str | os.PathLike | None) -> None:
        self.folder = None if folder is None else Path(folder) / "tasks"
        self.memory: dict[str, dict[str, Any]] = {}

    def get(self, key: str) -> dict[str, Any] | None:
        """The stored result of the task ``key``, or None (an unreadable file counts as absent)."""
        if key in self.memory or self.folder is None:
            return self.memory.get(key)
        path = self.folder / f"{key}.pkl"
        try:
            result = pickle.loads(path.read_bytes())
        except (OSError, pickle.UnpicklingError, EOFError, ValueError, AttributeError):
            return None
        self.memory[key] = result
        return result

    def put(self, key: str, result: dict[str, Any]) -> None:
        """Keep ``result``; with a folder, write it atomically (``atomic_write``: whole, or not at all)."""
        self.memory[key] = result
        if self.folder is None:
            return
        from ..data import atomic_write

        self.folder.mkdir(parents=True, exist_ok=True)
        with atomic_write(self.folder / f"{key}.pkl", "wb") as fh:
            fh.write(pickle.dumps(result, protocol=pickle.HIGHEST_PROTOCOL))
