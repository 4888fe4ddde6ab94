"""Risk-sensitive LambdaMART: LightGBM objectives (:func:`objective`) and :class:`RiskLambdaMART`.

``objective`` needs LightGBM and numba only when called; ``RiskLambdaMART`` imports PyTerrier;
``risk_loss`` and ``RiskNeuralRanker`` (the neural learner) need PyTorch (``pyterrier-risk[neural]``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

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
    "reference_objective": "objectives",
    "REFERENCE_OBJECTIVE": "objectives",
    "DEFAULT_OBJECTIVES": "objectives",
    "default_objective": "objectives",
    "objective_names": "objectives",
    "register_objective": "objectives",
    "risk_objectives": "objectives",
    "unregister_objective": "objectives",
    "rounds_to_reach": "_convergence",
    "validation_curve": "_convergence",
}
# helpers the other layers use (they import a layer through its package, never its private modules)
_INTERNAL = {"THREAD_ALIASES": "_lightgbm_params", "CONSTRUCTOR_ALIASES": "_lightgbm_params",
             "lightgbm_parameter_name": "_lightgbm_params", "lightgbm_parameters": "_lightgbm_params",
             "training_progress": "_progress"}
__all__ = list(_EXPORTS)

if TYPE_CHECKING:  # the lazy names for type checkers and editors (tests/test_package.py: the same)
    from ._convergence import rounds_to_reach as rounds_to_reach
    from ._convergence import validation_curve as validation_curve
    from ._lambdamart import RiskLambdaMART as RiskLambdaMART
    from ._lambdamart import load_artifact as load_artifact
    from ._lightgbm_params import CONSTRUCTOR_ALIASES as CONSTRUCTOR_ALIASES
    from ._lightgbm_params import THREAD_ALIASES as THREAD_ALIASES
    from ._lightgbm_params import lightgbm_parameter_name as lightgbm_parameter_name
    from ._lightgbm_params import lightgbm_parameters as lightgbm_parameters
    from ._neural_loss import risk_loss as risk_loss
    from ._neural_ranker import RiskNeuralRanker as RiskNeuralRanker
    from ._neural_ranker import load_neural_artifact as load_neural_artifact
    from ._objective import KINDS as KINDS
    from ._objective import RiskObjective as RiskObjective
    from ._objective import objective as objective
    from ._persistence import ObjectiveNotImportableWarning as ObjectiveNotImportableWarning
    from ._persistence import artifact_metadata as artifact_metadata
    from ._progress import training_progress as training_progress
    from .objectives import DEFAULT_OBJECTIVES as DEFAULT_OBJECTIVES
    from .objectives import REFERENCE_OBJECTIVE as REFERENCE_OBJECTIVE
    from .objectives import Objective as Objective
    from .objectives import Option as Option
    from .objectives import PairWeights as PairWeights
    from .objectives import Round as Round
    from .objectives import default_objective as default_objective
    from .objectives import get_objective as get_objective
    from .objectives import objective_names as objective_names
    from .objectives import reference_objective as reference_objective
    from .objectives import register_objective as register_objective
    from .objectives import risk_objectives as risk_objectives
    from .objectives import unregister_objective as unregister_objective

__getattr__, __dir__ = lazy_exports(__name__, {**_EXPORTS, **_INTERNAL})
