"""The settings of a study: its defaults, its re-rankers and the check of its arguments.

The objectives come from the learner's registry (:func:`pyterrier_risk.learning.get_objective`): their
label, their kind of baseline (``'none'``, ``'single'``, ``'multiple'``) and their citation.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..engine import StudyError as StudyError
from ..learning import DEFAULT_OBJECTIVES as _DEFAULTS
from ..learning import REFERENCE_OBJECTIVE, get_objective
from ..learning import risk_objectives as risk_objectives

DEFAULT_DATASET = "irds:cranfield"
DEFAULT_ALPHAS: tuple[float, ...] = (0.0, 1.0, 5.0, 10.0)
QUICK_ALPHAS: tuple[float, ...] = (0.0, 5.0)
#: the study's objectives: the registry's default of each kind of baseline (U-CRO, GeoRisk)
DEFAULT_OBJECTIVES: tuple[str, ...] = (_DEFAULTS["single"], _DEFAULTS["multiple"])
BASELINE = "BM25"
RUN_DEPTH = 100  # documents per topic of every evaluated run (the measures look at the top 100 at most)
FEATURE_DEPTH = 1000  # documents per topic the systems retrieve for the re-rankers' features
PLAIN = "LambdaMART"  # the α = 0 model: every objective trains plain LambdaMART at α = 0
PLAIN_OBJECTIVE = REFERENCE_OBJECTIVE  # the registered objective PLAIN is trained with (the registry's)
# LightGBM's tree settings for ~20,000 training rows of ~200 topics (its defaults, 31 leaves and 20 rows
# per leaf, overfit them); the objectives themselves run at RiskLambdaMART's defaults.
TREE_PARAMS: dict[str, Any] = {"learning_rate": 0.05, "num_leaves": 7, "min_data_in_leaf": 50,
                               "num_threads": 1, "deterministic": True, "force_row_wise": True}


def objective_label(objective: str) -> str:
    """The objective's label in the study's tables and run names (``'urisk'`` -> ``'U-CRO'``)."""
    return get_objective(objective).label


@dataclass(frozen=True)
class Reranker:
    """One re-ranker of the study: ``RiskLambdaMART(objective, alpha=alpha, ...)`` named ``name``."""

    name: str
    objective: str
    alpha: float
    label: str


@dataclass(frozen=True)
class Study:
    """The settings of one study (see :func:`~pyterrier_risk.study.run_study` for their meaning)."""

    dataset: str
    alphas: tuple[float, ...]
    objectives: tuple[str, ...]
    folds: int
    depth: int
    num_boost_round: int
    seed: int
    quick: bool

    def rerankers(self) -> list[Reranker]:
        """LambdaMART (α = 0) first, then every objective at every α > 0."""
        out = [Reranker(PLAIN, PLAIN_OBJECTIVE, 0.0, PLAIN)]
        for objective in self.objectives:
            label = objective_label(objective)
            out += [Reranker(f"{label}(a={a:g})", objective, a, label) for a in self.alphas if a > 0]
        return out

    def run_name(self, objective: str, alpha: float) -> str:
        """The re-ranker an objective trained at ``alpha`` (LambdaMART at α = 0)."""
        return PLAIN if alpha == 0 else f"{objective_label(objective)}(a={alpha:g})"

    def compared_runs(self) -> list[str]:
        """LambdaMART and each risk-sensitive re-ranker at the largest α (the runs set against BM25)."""
        top = max(self.alphas)
        return [PLAIN] + [self.run_name(o, top) for o in self.objectives if top > 0]

    def trend_alphas(self) -> tuple[float, float]:
        """The two training α the trend test compares: the smallest α > 0 (0 if only one), the largest."""
        positive = [a for a in self.alphas if a > 0]
        return (positive[0] if len(positive) >= 2 else 0.0), max(self.alphas)


def _objectives(objective: str | None, objectives: Sequence[str] | None) -> tuple[str, ...]:
    """The risk-sensitive objectives to train (``objective``: one that replaces its family's default)."""
    known = risk_objectives()
    if objectives is None:
        if objective is None:
            return DEFAULT_OBJECTIVES
        if objective == PLAIN_OBJECTIVE:
            return ()
        if objective not in known:
            raise StudyError(f"unknown objective {objective!r}; expected {PLAIN_OBJECTIVE} or one of "
                             f"{', '.join(known)}")
        single = get_objective(objective).baseline == "single"
        return (objective, DEFAULT_OBJECTIVES[1]) if single else (DEFAULT_OBJECTIVES[0], objective)
    objectives = tuple(objectives)
    if PLAIN_OBJECTIVE in objectives:
        warnings.warn(f"objectives: {PLAIN_OBJECTIVE!r} ({PLAIN}) is always trained (at α 0): listing it "
                      "adds nothing", stacklevel=4)
        objectives = tuple(o for o in objectives if o != PLAIN_OBJECTIVE)
    bad = [o for o in objectives if o not in known]
    if bad or len(set(objectives)) != len(objectives):
        raise StudyError(f"objectives must be distinct names among {', '.join(known)}, "
                         f"got {list(objectives)}")
    return objectives


def study_settings(dataset: str = DEFAULT_DATASET, *, quick: bool = False,
                   alphas: Sequence[float] | None = None, folds: int | None = None, depth: int | None = None,
                   seed: int = 42, objective: str | None = None,
                   objectives: Sequence[str] | None = None) -> Study:
    """Check the arguments of :func:`~pyterrier_risk.study.run_study` and fill in the defaults.

    α = 0 is always included (plain LambdaMART, what every objective reduces to).

    Raises:
        StudyError: an argument out of range, an unknown or repeated objective.
    """
    alphas = tuple(float(a) for a in (alphas if alphas is not None else
                                      (QUICK_ALPHAS if quick else DEFAULT_ALPHAS)))
    if not alphas or min(alphas) < 0 or not all(np.isfinite(alphas)):
        raise StudyError(f"alphas must be non-empty, finite and >= 0, got {alphas}")
    alphas = tuple(sorted({0.0, *alphas}))
    folds = folds or (3 if quick else 5)
    if folds < 3:
        raise StudyError("--folds must be at least 3 (train on some topics, validate on one part, test on "
                         f"another), got {folds}")
    depth = depth or (50 if quick else 100)
    if depth < 10:
        raise StudyError(f"the re-ranking depth must be at least 10 (the cutoff of nDCG@10), got {depth}")
    return Study(dataset=dataset if dataset.startswith("irds:") else "irds:" + dataset, alphas=alphas,
                 objectives=_objectives(objective, objectives), folds=folds, depth=depth,
                 num_boost_round=30 if quick else 50, seed=seed, quick=quick)
