"""The objectives' registry and its guards, through the public names (issue 21 items 8, 9, 11; issue 23
item 16; issue 24 items 1 and 7): what ``register_objective`` refuses, an ``Option``'s type check, the
read-only ``Round``, the refusal of a pair weight that is negative or not finite, what an objective
reports, and ``unregister_objective``.
"""

from __future__ import annotations

import numba
import numpy as np
import pytest

import pyterrier_risk as ptr
from pyterrier_risk.learning import KINDS

pytestmark = pytest.mark.usefixtures("clean_registry")  # conftest: registration is process-wide


def random_set(seed=0, nq=12, size=9):
    rng = np.random.default_rng(seed)
    group = np.full(nq, size)
    labels = rng.integers(0, 3, nq * size).astype(float)
    return labels, rng.normal(size=nq * size), rng.normal(size=nq * size), group


def objective_class(options=(), **attrs):
    def weights(self, r):
        return np.ones(len(r.model))

    body = {"name": "t_reg", "label": "Reg", "baseline": "none", "weights": weights, "options": options}
    return type("Reg", (ptr.Objective,), {**body, **attrs})


def _positive(value):
    if not isinstance(value, (int, float)) or isinstance(value, bool) or not value > 0:
        raise ValueError(f"cap must be a number > 0, got {value!r}")
    return float(value)


# ---------------------------------------- item 11: bad Option definitions
ATTRIBUTES = ["name", "label", "citation", "options", "reports", "weights", "check", "reset",
              "settings", "baseline_ndcg", "diagnostics", "overflow_hint", "native_norm", "trained_against"]


@pytest.mark.parametrize("attribute", ATTRIBUTES)
def test_an_option_named_like_an_objective_attribute_is_refused(attribute):
    cls = objective_class((ptr.Option(attribute, "zz", "x"),))
    with pytest.raises(ValueError, match=f"option '{attribute}' would replace the attribute Objective.") as e:
        ptr.register_objective(cls)
    assert "\n" not in str(e.value) and "'t_reg'" in str(e.value)
    assert "t_reg" not in ptr.objective_names()


@pytest.mark.parametrize("options, match", [
    ((ptr.Option("q", 1, "x"), ptr.Option("q", 2, "y")), "option 'q' is declared twice"),
    ((ptr.Option("not valid", 1, "x"),), "option names must be identifiers, got 'not valid'"),
    ((ptr.Option("2q", 1, "x"),), "option names must be identifiers"),
    ((ptr.Option("lambda", 1, "x"),), "option names must be identifiers"),
    ((ptr.Option(3, 1, "x"),), "option names must be identifiers, got 3"),
    ((ptr.Option("_q", 1, "x"),), r"option '_q' starts with '_'"),
    ((ptr.Option("cap", -1.0, "x", check=_positive),), r"'cap''s default -1.0 fails its own check: cap"),
    ((ptr.Option("mode", "c", "x", choices=("a", "b")),), r"option 'mode''s default 'c' fails its own check"),
    ((ptr.Option("alpha", 1.0, "x"),), "'alpha' is a reserved name"),
])  # fmt: skip
def test_bad_option_definitions_are_refused_in_one_line(options, match):
    with pytest.raises(ValueError, match=match) as e:
        ptr.register_objective(objective_class(options))
    assert "\n" not in str(e.value)
    assert "t_reg" not in ptr.objective_names()


def test_an_option_may_not_shadow_the_subclass_or_its_reports():
    helper = objective_class((ptr.Option("helper", 1, "x"),), helper=lambda self: 0)
    with pytest.raises(ValueError, match="would replace the attribute Reg.helper"):
        ptr.register_objective(helper)
    reported = objective_class((ptr.Option("stat_", 1, "x"),), reports=("stat_",))
    with pytest.raises(ValueError, match="would replace the attribute Reg.stat_"):
        ptr.register_objective(reported)
    for reports, match in [(("name",),  "report 'name' is an attribute of every Objective"),
                           (["stat_"], "reports must be a tuple"), (("a b",), "report names must be")]:
        with pytest.raises(ValueError, match=match):
            ptr.register_objective(objective_class(reports=reports))


def test_every_builtin_passes_the_registrys_checks():
    for name in KINDS:
        cls = ptr.get_objective(name)
        assert ptr.register_objective(cls) is cls  # the same class again: accepted, unchanged
        for opt in cls.options:
            assert opt.parse(opt.default) == opt.default


# ---------------------------------------- issue 23 item 16: the default's type
def test_an_option_without_a_check_takes_its_defaults_type():
    options = (ptr.Option("cap", 0.5, "a float"), ptr.Option("k", 3, "an int"),
               ptr.Option("flag", False, "a bool"), ptr.Option("tag", "x", "a str"),
               ptr.Option("anything", None, "any value"), ptr.Option("seq", (1, 2), "a tuple"))  # fmt: skip
    ptr.register_objective(objective_class(options))
    spec = ptr.objective("t_reg", cap=2, k=np.int64(4), flag=np.True_, tag="y", anything=[1], seq=[3]).spec
    assert (spec.cap, spec.k, spec.flag, spec.tag, spec.anything, spec.seq) == (2.0, 4, True, "y", [1], (3,))
    assert type(spec.cap) is float and type(spec.k) is int and type(spec.flag) is bool
    wrong = [("cap", "abc", "a number"), ("cap", True, "a number"), ("k", 2.0, "an int"),
             ("k", True, "an int"), ("flag", 1, "a bool"), ("tag", 3, "a str"),
             ("seq", 3, "a sequence")]  # fmt: skip
    for option, value, kind in wrong:
        message = f"{option} must be {kind} like its default"
        with pytest.raises(TypeError, match=message) as e:
            ptr.objective("t_reg", **{option: value})  # when the objective is built, before any data
        assert "\n" not in str(e.value)
        with pytest.raises(TypeError, match=message):
            ptr.RiskLambdaMART("t_reg", objective_params={option: value})


# ---------------------------------------- item 9: Round's arrays are read-only
class Scribbler(ptr.Objective):
    """Tries to write into each of its round's arrays, and keeps what it saw."""

    name, label, baseline = "t_scribble", "Scribble", "single"

    def reset(self):
        self.seen, self.refused = [], []

    def weights(self, r):
        for field in ("model", "baseline", "active"):
            try:
                getattr(r, field)[:] = 1
            except ValueError as e:
                self.refused.append((r.index, field, str(e)))
        self.seen.append((r.model.copy(), r.baseline.copy(), r.active.copy()))
        return np.ones(len(r.model))


def test_rounds_are_read_only_and_a_write_changes_no_later_round():
    ptr.register_objective(Scribbler)
    labels, scores, baseline, group = random_set(1)
    obj = ptr.objective("t_scribble", alpha=1.0, baseline=baseline)
    for step in range(3):
        obj(labels, scores + 0.1 * step, None, group)
    fields = ("model", "baseline", "active")
    assert [(i, f) for i, f, _ in obj.spec.refused] == [(i, f) for i in range(3) for f in fields]
    assert all("read-only" in message for *_, message in obj.spec.refused)
    first = obj.spec.seen[0]
    for _, base, active in obj.spec.seen[1:]:
        np.testing.assert_array_equal(base, first[1])
        np.testing.assert_array_equal(active, first[2])
    np.testing.assert_array_equal(obj.baseline_ndcg_, first[1])
    assert not np.all(first[1] == 1)
    # a Round built by hand is read-only too; the caller's own arrays stay writable
    mine = np.array([0.2, 0.4])
    r = ptr.Round(index=0, model=mine, baseline=None, active=np.ones(2, bool), alpha=0.0)
    with pytest.raises(ValueError, match="read-only"):
        r.model[0] = 1.0
    mine[0] = 0.3
    assert r.model[0] == 0.3


# ---------------------------------------- item 8: pair weights must be >= 0
@numba.njit
def signed_rule(q, dm, improving, state):
    """A wrong rule: a signed change (−|ΔM| for a degrading swap) or a NaN/inf at one query."""
    mode, target = state[0], state[1]
    if q != target:
        return dm
    if mode == 0:
        return dm if improving else -dm
    if mode == 1:
        return np.nan
    return np.inf


@numba.njit
def signed_batched(q, dm_signed, out, m, state):
    for k in range(m):
        out[k] = dm_signed[k]  # the signed change itself: negative for a degrading swap


class Signed(ptr.Objective):
    name, label = "t_signed", "Signed"
    options = (ptr.Option("mode", 0, "0: -|ΔM|, 1: NaN, 2: inf, 3: batched signed"),
               ptr.Option("target", 0, "the query the rule breaks"))  # fmt: skip

    def weights(self, r):
        if self.mode == 3:
            return ptr.PairWeights(signed_batched, (0.0,), batched=True)
        return ptr.PairWeights(signed_rule, (self.mode, self.target))


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("mode, what", [(0, "-0."), (1, "NaN"), (2, "inf"), (3, "-0.")])
def test_a_pair_rule_that_returns_a_negative_or_non_finite_weight_is_refused(mode, what, seed):
    ptr.register_objective(Signed)
    labels, scores, _, group = random_set(seed)
    target = int(np.random.default_rng(seed).integers(0, len(group)))
    obj = ptr.objective("t_signed", alpha=1.0, mode=mode, target=target)
    with pytest.raises(ValueError) as e:
        obj(labels, scores, None, group)
    message = str(e.value)
    assert "\n" not in message and "objective 't_signed': its pair rule gave" in message and what in message
    assert "overflow" not in message and "finite number >= 0" in message
    if mode != 3:
        assert f"for a pair of query {target};" in message  # the one query the rule breaks


def test_nan_scores_are_named_as_such():
    labels, scores, _, group = random_set(2)
    scores[7] = np.nan
    with pytest.raises(ValueError, match=r"round 0: the scores hold NaN \(first at row 7\)") as e:
        ptr.objective("lambdarank")(labels, scores, None, group)
    assert "overflow" not in str(e.value)


# ---------------------------------------- issue 24 item 1: declared, not listed
class Reporting(ptr.Objective):
    name, label, baseline = "t_reporting", "Reporting", "single"
    reports = ("spread_",)

    def reset(self):
        self.spread_ = None

    def weights(self, r):
        self.spread_ = float(np.ptp(r.model - r.baseline))
        return np.ones(len(r.model))


def test_the_driver_forwards_what_an_objective_declares_it_reports():
    ptr.register_objective(Reporting)
    labels, scores, baseline, group = random_set(3)
    obj = ptr.objective("t_reporting", alpha=1.0, baseline=baseline)
    assert obj.spread_ is None
    obj(labels, scores, None, group)
    assert obj.spread_ == pytest.approx(np.ptp(obj.model_ndcg_ - obj.baseline_ndcg_))
    tfaro = ptr.objective("tfaro", alpha=1.0, baseline=baseline)
    tfaro(labels, scores, None, group)
    assert tfaro.alpha_prime_.shape == (len(group),) and tfaro.s_x_ > 0  # T-FARO's declared reports
    assert tfaro.spread_ is None and tfaro.georisk_ratio_ is None  # declared by other objectives only
    with pytest.raises(AttributeError, match="no attribute 'nothing_'"):
        _ = obj.nothing_


def test_the_normalisation_is_read_from_the_objective():
    labels, scores, baseline, group = random_set(4)

    class Weighted(ptr.Objective):
        name, label, baseline = "t_weighted", "Weighted", "single"

        @property
        def native_norm(self):
            return False

        def weights(self, r):
            return 1.0 + r.alpha * (r.model < r.baseline)

    class WithOption(Weighted):
        name = "t_with_option"
        options = (ptr.learning.objectives.RISK_NORM,)
        native_norm = ptr.Objective.native_norm  # the base property: read from the risk_norm option

    ptr.register_objective(Weighted)
    ptr.register_objective(WithOption)
    out = {}
    for kind, options in [("t_weighted", {}), ("t_with_option", {"risk_norm": "weighted"}),
                          ("t_with_option", {})]:  # fmt: skip
        out[kind, tuple(options)] = ptr.objective(kind, alpha=3.0, baseline=baseline, **options)(
            labels, scores, None, group)[0]
    np.testing.assert_array_equal(out["t_weighted", ()], out["t_with_option", ("risk_norm",)])
    assert not np.array_equal(out["t_weighted", ()], out["t_with_option", ()])


# ---------------------------------------- issue 24 item 7: unregister
def test_unregister_objective():
    cls = ptr.register_objective(objective_class())
    assert ptr.get_objective("t_reg") is cls
    ptr.unregister_objective("t_reg")
    assert "t_reg" not in ptr.objective_names()
    with pytest.raises(ValueError, match="unknown objective 't_reg'"):
        ptr.objective("t_reg")
    with pytest.raises(ValueError, match="no objective 't_reg' is registered"):
        ptr.unregister_objective("t_reg")
    for name in KINDS:
        with pytest.raises(ValueError, match=f"'{name}' is a built-in objective") as e:
            ptr.unregister_objective(name)
        assert "\n" not in str(e.value)
    assert ptr.objective_names() == KINDS
    assert ptr.register_objective(objective_class(label="Again")).label == "Again"
