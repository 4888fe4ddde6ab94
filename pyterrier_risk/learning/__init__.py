"""Risk-sensitive LambdaMART: LightGBM objectives (:func:`objective`) and :class:`RiskLambdaMART`.

``objective`` needs LightGBM and numba only when called; ``RiskLambdaMART`` imports PyTerrier;
``risk_loss`` and ``RiskNeuralRanker`` (the neural learner) need PyTorch (``pyterrier-risk[neural]``).
"""

from __future__ import annotations

from .._lazy import lazy_exports

_EXPORTS = {
    "objective": "_objective",
    "RiskObjective": "_objective",
    "KINDS": "_objective",
    "RiskLambdaMART": "_lambdamart",
    "load_artifact": "_lambdamart",
    "risk_loss": "_neural_loss",
    "RiskNeuralRanker": "_neural_ranker",
    "load_neural_artifact": "_neural_ranker",
    "artifact_metadata": "_persistence",
    "ObjectiveNotImportableWarning": "_persistence",
    "Objective": "objectives",
    "Option": "objectives",
    "PairWeights": "objectives",
    "Round": "objectives",
    "get_objective": "objectives",
    "objective_names": "objectives",
    "register_objective": "objectives",
    "unregister_objective": "objectives",
    "rounds_to_reach": "_convergence",
    "validation_curve": "_convergence",
}
# helpers the other layers use (they import a layer through its package, never its private modules)
_INTERNAL = {"THREAD_ALIASES": "_lightgbm_params"}
__all__ = list(_EXPORTS)
__getattr__, __dir__ = lazy_exports(__name__, {**_EXPORTS, **_INTERNAL})
