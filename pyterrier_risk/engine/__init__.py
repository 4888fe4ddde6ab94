"""The learning engine: the learner's study on LETOR folds (``pyterrier-risk learn``, :func:`risk_study`).

Every objective at every α and seed on every fold, against the reference objective (plain LambdaMART, or
the neural LambdaLoss with ``learner="neural"``), on this process, a process pool or a Dask cluster.
:func:`risk_study` returns a :class:`RiskStudyResult` (its settings: :class:`LearnSettings`); its tables
(:class:`LearnerTables`, :func:`learner_table`, :func:`convergence_table`, ...) are pure functions of the
result's frames, rendered by :mod:`pyterrier_risk.reporting`.

A problem the user can fix raises :class:`StudyError` (a ``ValueError``) with a one-line message.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .._lazy import lazy_exports

_EXPORTS = {
    "StudyError": "_errors",
    "DEFAULT_EARLY_STOPPING": "_settings",
    "LEARN_MEASURES": "_settings",
    "DEFAULT_LEARN_ALPHAS": "_settings",
    "DEFAULT_LEARN_ROUNDS": "_settings",
    "DEFAULT_LEARN_SEEDS": "_settings",
    "DEFAULT_LEARN_THREADS": "_settings",
    "DEFAULT_SPLIT_SEED": "_settings",
    "EVAL_ALPHA": "_settings",
    "Baseline": "_settings",
    "LearnSettings": "_settings",
    "REFERENCE": "_settings",
    "parse_param": "_settings",
    "SettingError": "_errors",
    "StudyNote": "_errors",
    "RiskStudyResult": "_result",
    "check_write_options": "_result",
    "held_folder": "_driver",
    "risk_study": "_driver",
    "DEFAULT_WORKER_TIMEOUT": "_dask",
    "CONNECT_TIMEOUT": "_dask",
    "LearnerTables": "_tables",
    "DEFAULT_TEST": "_tables",
    "DEFAULT_CORRECTION": "_tables",
    "convergence_table": "_tables",
    "kendall_bins_table": "_tables",
    "learner_table": "_tables",
    "learner_tables": "_tables",
    "plot_learner_risk_gain": "_tables",
    "render_learner_table": "_tables",
    "learner_risk_gain_points": "_tables",
}
__all__ = list(_EXPORTS)

if TYPE_CHECKING:  # the lazy names for type checkers and editors (tests/test_package.py: the same)
    from ._dask import CONNECT_TIMEOUT as CONNECT_TIMEOUT
    from ._dask import DEFAULT_WORKER_TIMEOUT as DEFAULT_WORKER_TIMEOUT
    from ._driver import held_folder as held_folder
    from ._driver import risk_study as risk_study
    from ._errors import SettingError as SettingError
    from ._errors import StudyError as StudyError
    from ._errors import StudyNote as StudyNote
    from ._result import RiskStudyResult as RiskStudyResult
    from ._result import check_write_options as check_write_options
    from ._settings import DEFAULT_EARLY_STOPPING as DEFAULT_EARLY_STOPPING
    from ._settings import DEFAULT_LEARN_ALPHAS as DEFAULT_LEARN_ALPHAS
    from ._settings import DEFAULT_LEARN_ROUNDS as DEFAULT_LEARN_ROUNDS
    from ._settings import DEFAULT_LEARN_SEEDS as DEFAULT_LEARN_SEEDS
    from ._settings import DEFAULT_LEARN_THREADS as DEFAULT_LEARN_THREADS
    from ._settings import DEFAULT_SPLIT_SEED as DEFAULT_SPLIT_SEED
    from ._settings import EVAL_ALPHA as EVAL_ALPHA
    from ._settings import LEARN_MEASURES as LEARN_MEASURES
    from ._settings import REFERENCE as REFERENCE
    from ._settings import Baseline as Baseline
    from ._settings import LearnSettings as LearnSettings
    from ._settings import parse_param as parse_param
    from ._tables import DEFAULT_CORRECTION as DEFAULT_CORRECTION
    from ._tables import DEFAULT_TEST as DEFAULT_TEST
    from ._tables import LearnerTables as LearnerTables
    from ._tables import convergence_table as convergence_table
    from ._tables import kendall_bins_table as kendall_bins_table
    from ._tables import learner_risk_gain_points as learner_risk_gain_points
    from ._tables import learner_table as learner_table
    from ._tables import learner_tables as learner_tables
    from ._tables import plot_learner_risk_gain as plot_learner_risk_gain
    from ._tables import render_learner_table as render_learner_table

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
