"""The registry names the reference objective and the objectives of each kind of baseline (issue 30 item 4).

The study, the demo, ``RiskLambdaMART``'s default and ``learn --help`` derive from it: a user
objective appears in the help and the errors, and listing the reference is a note, not an error.
"""

from __future__ import annotations

import numpy as np
import pytest
from _learn_data import partitions

import pyterrier_risk as ptr
from pyterrier_risk import engine, learning, study
from pyterrier_risk.cli import main
from pyterrier_risk.learning import Objective, register_objective, unregister_objective

SMALL = {"rounds": 3, "early_stopping": None, "progress": False, "workers": 1}


class _Tail(Objective):
    """A user's single-baseline objective (weights 1: LambdaMART's gradients)."""

    name = "tail_user"
    label = "Tail-User"
    baseline = "single"

    def weights(self, r):  # noqa: ANN001, ANN201 - the extension point's signature
        return np.ones(len(r.model))


@pytest.fixture
def user_objective():
    register_objective(_Tail)
    yield _Tail.name
    unregister_objective(_Tail.name)


@pytest.fixture(scope="module")
def data(tmp_path_factory):
    return partitions(tmp_path_factory.mktemp("letor") / "parts", parts=3, queries=6)


def test_the_registry_names_the_reference_and_lists_by_kind(user_objective):
    assert learning.reference_objective() == learning.REFERENCE_OBJECTIVE == "lambdarank"
    assert learning.get_objective(learning.reference_objective()).baseline == "none"
    assert learning.objective_names("none") == ("lambdarank",)
    assert learning.objective_names("single") == ("urisk", "tsaro", "tfaro", user_objective)
    assert learning.objective_names("multiple") == ("tfaro_star", "georisk")
    assert set(learning.objective_names()) == {"lambdarank", *learning.risk_objectives()}
    with pytest.raises(ValueError, match="baseline must be one of none, single, multiple or None"):
        learning.objective_names("several")
    with pytest.raises(ValueError, match="baseline must be one of single, multiple"):
        learning.default_objective("none")


def test_every_default_derives_from_the_registry():
    assert engine.REFERENCE == study.PLAIN_OBJECTIVE == learning.reference_objective()
    kinds = learning.default_objective("single"), learning.default_objective("multiple")
    assert study.DEFAULT_OBJECTIVES == kinds == ("urisk", "georisk")
    assert ptr.RiskLambdaMART().objective == learning.default_objective("multiple")


def test_learn_help_and_errors_list_a_user_objective(user_objective, data, capsys):
    with pytest.raises(SystemExit):
        main(["learn", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "(U-CRO, T-SARO, T-FARO, Tail-User; the table's single half)" in text
    assert f"with --baseline urisk tsaro tfaro {user_objective};" in text
    with pytest.raises(engine.StudyError, match=r"\(U-CRO, T-SARO, T-FARO, Tail-User\) and/or"):
        ptr.risk_study(data, **SMALL)


def test_listing_the_reference_is_a_note_and_trains_it_alone(data, tmp_path, capsys):
    with pytest.warns(engine.StudyNote, match="objectives 'lambdarank' is the reference") as caught:
        result = ptr.risk_study(data, baseline=1, objectives=["lambdarank"], **SMALL)
    assert caught[0].filename == __file__  # the note points at the caller
    assert set(result.models["objective"]) == {"lambdarank"} and len(result.models) == 3
    with pytest.warns(engine.StudyNote):
        both = ptr.risk_study(data, baseline=1, objectives=["lambdarank", "urisk"], alphas=[5], **SMALL)
    assert list(dict.fromkeys(both.models["objective"])) == ["lambdarank", "urisk"]
    status = main(["learn", str(data), "--baseline", "1", "--objective", "lambdarank", "--rounds", "3",
                   "--early-stopping", "none", "--workers", "1", "--no-progress"])
    captured = capsys.readouterr()
    assert status == 0 and "| LambdaMART |" in captured.out
    assert "pyterrier-risk: note: --objective 'lambdarank' is the reference every model" in captured.err


def test_an_empty_objective_list_trains_the_reference_alone(data):
    result = ptr.risk_study(data, baseline=1, objectives=[], **SMALL)
    assert set(result.models["objective"]) == {"lambdarank"}


def test_the_demo_takes_the_reference_among_its_objectives_with_a_note():
    with pytest.warns(UserWarning, match="'lambdarank' \\(LambdaMART\\) is always trained"):
        settings = study.study_settings(objectives=["lambdarank", "urisk"])
    assert settings.objectives == ("urisk",)
    assert study.study_settings(objective="lambdarank").objectives == ()  # the demo's LambdaMART only
    assert [r.objective for r in study.study_settings(objective="lambdarank").rerankers()] == ["lambdarank"]
