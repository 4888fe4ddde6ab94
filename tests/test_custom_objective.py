"""A user's objective through the public extension point (docs/custom_objective.md), against brute force.

The reference below is written from LightGBM 4.x's lambdarank rules (shared field notes, "LightGBM
lambdarank (native, 4.x)"), pair by pair in plain Python: the stable sort, ΔNDCG at the truncation
level, the 2^20-bin logistic table read at one bin, float32 accumulation in pair order and the
``log2(1 + S)/S`` normalisation, with each pair's ΔM weighted by the user's rule. At α > 0 an
objective without a ``risk_norm`` option normalises with ``S`` of the unweighted λs (the default
``risk_norm='native'``), so the reference does too.
"""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest
from helpers import FAST, REPO, synthetic

import pyterrier_risk as ptr

GAIN = 2.0 ** np.arange(31) - 1.0


pytestmark = pytest.mark.usefixtures("clean_registry")  # conftest: registration is process-wide


# ----------------------------------------------------------------------------- the user's objectives
def fraction(value):
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise TypeError(f"q must be a number in (0, 1], got {value!r}")
    if not 0 < value <= 1:
        raise ValueError(f"q must be a number in (0, 1], got {value!r}")
    return float(value)


class CVaR(ptr.Objective):
    """The worst q of the active queries (model − baseline NDCG) weigh 1 + α (docs/custom_objective.md)."""

    name = "t_cvar"
    label = "CVaR"
    baseline = "single"
    citation = "Rockafellar & Uryasev 2000 (an illustration)"
    options = (ptr.Option("q", 0.2, "the fraction of active queries weighted 1 + alpha", check=fraction),)

    def weights(self, r):
        w = np.ones(len(r.model))
        active = np.flatnonzero(r.active)
        if len(active):
            k = max(1, math.ceil(round(self.q * len(active), 9)))
            worst = active[np.argsort(r.model[active] - r.baseline[active], kind="stable")[:k]]
            w[worst] = 1.0 + r.alpha
        return w


# (b)'s per-pair rule: the downside_objective fixture (conftest.py, tests/user_objectives.py)


# ----------------------------------------------------------------------------- brute-force reference
def ref_ndcg(scores, labels, k=10):
    order = np.argsort(-scores, kind="stable")
    disc = 1.0 / np.log2(np.arange(len(labels)) + 2.0)
    dcg = float((GAIN[labels[order]][:k] * disc[:k]).sum())
    idcg = float((np.sort(GAIN[labels])[::-1][:k] * disc[:k]).sum())
    return dcg / idcg if idcg > 0 else 0.0


def lightgbm_logistic(delta_score, sigmoid=1.0):
    """LightGBM's table value 1/(1 + exp(sigmoid·x)) at the bin of ``delta_score`` (2^20 bins, ±50/(2σ))."""
    low = -50.0 / sigmoid / 2.0
    factor = 2**20 / (-2 * low)
    b = 0 if delta_score <= low else 2**20 - 1 if delta_score >= -low else int((delta_score - low) * factor)
    return 1.0 / (1.0 + math.exp((b / factor + low) * sigmoid))


def ref_query(scores, labels, weight, native_norm, trunc=30):
    """One query's float32 gradients and hessians; ``weight(dm, improving)`` gives the pair's |ΔM′|."""
    n = len(labels)
    order = np.argsort(-scores, kind="stable")
    disc = 1.0 / np.log2(np.arange(n) + 2.0)
    idcg = float((np.sort(GAIN[labels])[::-1][:trunc] * disc[:trunc]).sum())
    inv = 1.0 / idcg if idcg > 0 else 0.0
    by_gap = scores.max() != scores.min()
    g, h = np.zeros(n, np.float32), np.zeros(n, np.float32)
    s_native = s_weighted = 0.0
    for i in range(min(n - 1, trunc)):
        for j in range(i + 1, n):
            a, b = order[i], order[j]
            if labels[a] == labels[b]:
                continue
            improving = labels[b] > labels[a]
            high, low = (b, a) if improving else (a, b)
            ds = scores[high] - scores[low]
            dm = (GAIN[labels[high]] - GAIN[labels[low]]) * abs(disc[i] - disc[j]) * inv
            rho = lightgbm_logistic(ds)
            lambdas = []
            for delta in (dm, weight(dm, improving)):
                if by_gap:
                    delta = delta / (float(np.float32(0.01)) + abs(ds))
                lambdas.append((-delta * rho, delta * rho * (1 - rho)))
            (lam_native, _), (lam, hs) = lambdas
            g[low] -= np.float32(lam)
            g[high] += np.float32(lam)
            h[low] += np.float32(hs)
            h[high] += np.float32(hs)
            s_native -= 2 * lam_native
            s_weighted -= 2 * lam
    total = s_native if native_norm else s_weighted
    if total > 0:
        f = math.log2(1 + total) / total
        g = (g.astype(np.float64) * f).astype(np.float32)
        h = (h.astype(np.float64) * f).astype(np.float32)
    return g, h


def ref_gradients(scores, labels, group, weight, alpha):
    """The whole set: ``weight(q, dm, improving)`` per pair of query ``q``."""
    starts = np.concatenate([[0], np.cumsum(group)])
    parts = [
        ref_query(scores[a:b], labels[a:b], lambda dm, imp, q=q: weight(q, dm, imp), native_norm=alpha > 0)
        for q, (a, b) in enumerate(zip(starts[:-1], starts[1:], strict=True))
    ]
    return np.concatenate([p[0] for p in parts]), np.concatenate([p[1] for p in parts])


def per_query(scores, labels, group):
    starts = np.concatenate([[0], np.cumsum(group)])
    spans = list(zip(starts[:-1], starts[1:], strict=True))
    ndcg = np.array([ref_ndcg(scores[a:b], labels[a:b]) for a, b in spans])
    active = np.array([len(set(labels[a:b])) > 1 for a, b in spans])
    return ndcg, active


def random_set(seed=0):
    """Queries of several sizes (one beyond the truncation level), tied scores, two without gradient."""
    rng = np.random.default_rng(seed)
    group = np.array([8, 12, 1, 6, 40, 5, 9, 7, 10, 6, 8, 11])
    labels = rng.integers(0, 3, group.sum())
    labels[21:27] = 1  # query 3: one label value, no gradient
    scores = rng.normal(size=group.sum()).round(1)
    baseline = rng.normal(size=group.sum())
    return labels, scores, baseline, group


def call(obj, labels, scores, group):
    return obj(labels.astype(np.float32), scores, None, group)


# ----------------------------------------------------------------------------- (a) CVaR against brute force
@pytest.mark.parametrize("q_frac", [0.25, 0.5, 1.0])
@pytest.mark.parametrize("alpha", [0.0, 3.0])
def test_cvar_gradients_equal_brute_force(alpha, q_frac):
    ptr.register_objective(CVaR)
    labels, scores, baseline, group = random_set()
    mm, active = per_query(scores, labels, group)
    mb, _ = per_query(baseline, labels, group)
    # the worst ⌈q·n_active⌉ active queries by mm − mb (ties by query order), computed by sorting tuples
    ranked = sorted((mm[q] - mb[q], q) for q in np.flatnonzero(active))
    worst = {q for _, q in ranked[: max(1, math.ceil(round(q_frac * len(ranked), 9)))]}
    assert len(worst) == {0.25: 3, 0.5: 5, 1.0: 10}[q_frac] and 3 not in worst
    ref_g, ref_h = ref_gradients(
        scores, labels, group, lambda q, dm, imp: dm * (1 + alpha * (q in worst)), alpha
    )
    obj = ptr.objective("t_cvar", alpha=alpha, baseline=baseline, q=q_frac)
    g, h = call(obj, labels, scores, group)
    np.testing.assert_allclose(g, ref_g, rtol=2e-6, atol=1e-9)
    np.testing.assert_allclose(h, ref_h, rtol=2e-6, atol=1e-9)
    assert np.abs(g).sum() > 0 and np.all(g[21:27] == 0) and g[20] == 0
    np.testing.assert_allclose(obj.model_ndcg_, mm, atol=1e-12)
    if alpha == 0:
        g0, h0 = call(ptr.objective("lambdarank"), labels, scores, group)
        np.testing.assert_array_equal(g, g0)
        np.testing.assert_array_equal(h, h0)


def test_cvar_weights_the_worst_queries_more_than_lambdarank():
    ptr.register_objective(CVaR)
    labels, scores, baseline, group = random_set(1)
    g0, _ = call(ptr.objective("lambdarank"), labels, scores, group)
    g, _ = call(ptr.objective("t_cvar", alpha=4.0, baseline=baseline, q=0.5), labels, scores, group)
    starts = np.concatenate([[0], np.cumsum(group)])
    ratios = {round(float(np.abs(g[a:b]).sum() / np.abs(g0[a:b]).sum()), 4)
              for a, b in zip(starts[:-1], starts[1:], strict=True) if np.abs(g0[a:b]).sum() > 0}  # fmt: skip
    assert ratios == {1.0, 5.0}  # native normalisation: a weight w is a w-fold gradient


# ----------------------------------------------------------------------------- (b) a per-pair rule
@pytest.mark.parametrize("alpha", [0.0, 2.5])
def test_pair_rule_equals_brute_force(alpha, downside_objective):
    labels, scores, baseline, group = random_set(2)
    mm, _ = per_query(scores, labels, group)
    mb, _ = per_query(baseline, labels, group)
    assert (mm < mb).any() and (mm > mb).any()

    def weight(q, dm, improving):
        return (1 + alpha) * dm if not improving and mm[q] < mb[q] else dm

    ref_g, ref_h = ref_gradients(scores, labels, group, weight, alpha)
    g, h = call(ptr.objective(downside_objective, alpha=alpha, baseline=baseline), labels, scores, group)
    np.testing.assert_allclose(g, ref_g, rtol=2e-6, atol=1e-9)
    np.testing.assert_allclose(h, ref_h, rtol=2e-6, atol=1e-9)
    if alpha == 0:
        g0, h0 = call(ptr.objective("lambdarank"), labels, scores, group)
        np.testing.assert_array_equal(g, g0)
        np.testing.assert_array_equal(h, h0)


# ----------------------------------------------------------------------------- (c) save and load
MODULE = '''
import math

import numpy as np

import pyterrier_risk as ptr


def fraction(value):
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 < value <= 1:
        raise ValueError(f"q must be a number in (0, 1], got {value!r}")
    return float(value)


@ptr.register_objective
class SavedCVaR(ptr.Objective):
    name = "t_saved_cvar"
    label = "CVaR"
    baseline = "single"
    options = (ptr.Option("q", 0.2, "the fraction weighted 1 + alpha", check=fraction),)

    def weights(self, r):
        w = np.ones(len(r.model))
        active = np.flatnonzero(r.active)
        k = max(1, math.ceil(round(self.q * len(active), 9)))
        w[active[np.argsort(r.model[active] - r.baseline[active], kind="stable")[:k]]] = 1.0 + r.alpha
        return w
'''

LOADER = '''
import json, sys
import numpy as np
import pandas as pd
import pyterrier_risk as ptr

try:  # the folder's module is imported only on request (issue 27, item 2)
    ptr.RiskLambdaMART.load(sys.argv[2], trust_remote_code=True)
except ValueError as e:
    print("ERROR", json.dumps(str(e)))
model = ptr.RiskLambdaMART.load(sys.argv[1], trust_remote_code=True)
res = pd.read_pickle(sys.argv[3])
print("SCORES", json.dumps(model.transform(res)["score"].tolist()))
print("REPR", repr(model))
'''


@pytest.mark.slow
def test_saved_custom_objective_loads_in_a_fresh_process(tmp_path, monkeypatch):
    (tmp_path / "my_cvar_objective.py").write_text(MODULE)
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "my_cvar_objective", raising=False)
    import my_cvar_objective  # noqa: F401 - registers 't_saved_cvar'

    res, qrels = synthetic()
    model = ptr.RiskLambdaMART(
        "t_saved_cvar", alpha=3.0, baseline="score", objective_params={"q": 0.5}, num_boost_round=5,
        early_stopping_rounds=None, verbose=False, **FAST,
    )  # fmt: skip
    model.fit(res, qrels)
    expected = model.transform(res)["score"].tolist()
    model.save(tmp_path / "model")
    stored = json.loads((tmp_path / "model" / "risk_lambdamart.json").read_text())["params"]
    assert stored["objective_module"] == "my_cvar_objective"
    # a copy whose module cannot be imported
    (tmp_path / "broken").mkdir()
    for f in (tmp_path / "model").iterdir():
        (tmp_path / "broken" / f.name).write_bytes(f.read_bytes())
    broken = tmp_path / "broken" / "risk_lambdamart.json"
    broken.write_text(broken.read_text().replace('"my_cvar_objective"', '"no_such_module_xyz"'))
    res.to_pickle(tmp_path / "res.pkl")
    (tmp_path / "loader.py").write_text(LOADER)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(REPO), str(tmp_path)])}
    out = subprocess.run(
        [sys.executable, str(tmp_path / "loader.py"), str(tmp_path / "model"), str(tmp_path / "broken"),
         str(tmp_path / "res.pkl")], env=env, capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert out.returncode == 0, out.stderr[-3000:]
    lines = dict(line.split(" ", 1) for line in out.stdout.splitlines())
    assert json.loads(lines["SCORES"]) == expected  # the loaded model predicts identically
    assert "objective_params={'q': 0.5}" in lines["REPR"] and "'t_saved_cvar'" in lines["REPR"]
    error = json.loads(lines["ERROR"])
    assert "\n" not in error and "'no_such_module_xyz'" in error and "'t_saved_cvar'" in error


def test_an_objective_of_a_script_is_saved_without_a_module_and_load_says_what_to_do(tmp_path):
    # __main__ is the loading process's script, not the saving one's: it is not stored, and a load that
    # does not know the objective says so in one line instead of an unknown-name error
    cls = type("ScriptCVaR", (CVaR,), {"name": "t_script_cvar", "__module__": "__main__"})
    ptr.register_objective(cls)
    res, qrels = synthetic()
    model = ptr.RiskLambdaMART("t_script_cvar", alpha=1.0, baseline="score", num_boost_round=2,
                               early_stopping_rounds=None, verbose=False, **FAST)  # fmt: skip
    model.fit(res, qrels).save(tmp_path / "model")
    stored = json.loads((tmp_path / "model" / "risk_lambdamart.json").read_text())["params"]
    assert "objective_module" not in stored
    ptr.unregister_objective("t_script_cvar")
    with pytest.raises(ValueError, match="'t_script_cvar' is not registered in this process") as e:
        ptr.RiskLambdaMART.load(tmp_path / "model")
    assert "\n" not in str(e.value)


# ----------------------------------------------------------------------------- (d) registry and option errors
def objective_class(**attrs):
    def weights(self, r):
        return np.ones(len(r.model))

    return type("Custom", (ptr.Objective,), {"name": "t_custom", "label": "Custom", "baseline": "none",
                                             "weights": weights, **attrs})  # fmt: skip


@pytest.mark.parametrize(
    "attrs, error, match",
    [
        ({"name": "CVaR"}, ValueError, "lowercase identifier"),
        ({"name": "2cvar"}, ValueError, "lowercase identifier"),
        ({"name": "class"}, ValueError, "lowercase identifier"),
        ({"name": ""}, ValueError, "lowercase identifier"),
        ({"name": 3}, ValueError, "lowercase identifier"),
        ({"label": ""}, ValueError, "needs a label"),
        ({"label": None}, ValueError, "needs a label"),
        ({"baseline": "two"}, ValueError, "baseline must be one of"),
        ({"options": ("q",)}, TypeError, "options must be Option"),
        ({"options": (ptr.Option("alpha", 1.0, "x"),)}, ValueError, "'alpha' is a reserved name"),
        ({"options": (ptr.Option("cutoff", 5, "x"),)}, ValueError, "'cutoff' is a reserved name"),
        ({"options": (ptr.Option("sigmoid", 1.0, "x"),)}, ValueError, "'sigmoid' is a reserved name"),
        ({"name": "urisk"}, ValueError, "'urisk' is a built-in objective"),
        ({"name": "lambdarank"}, ValueError, "'lambdarank' is a built-in objective"),
        ({"weights": ptr.Objective.weights}, TypeError, "does not define weights"),
    ],
)
def test_register_refuses_bad_classes(attrs, error, match):
    cls = objective_class(**attrs)
    with pytest.raises(error, match=match) as e:
        ptr.register_objective(cls)
    assert "\n" not in str(e.value)
    assert "t_custom" not in ptr.objective_names()  # nothing half-registered


def test_register_refuses_what_is_not_an_objective_class():
    for thing in (ptr.Objective, object, CVaR(alpha=1.0), "cvar"):
        with pytest.raises(TypeError, match="subclass of Objective"):
            ptr.register_objective(thing)


def test_a_builtin_name_is_refused_before_the_builtins_are_loaded():
    code = textwrap.dedent("""
        import numpy as np
        import pyterrier_risk as ptr
        from pyterrier_risk.learning.objectives import _registry
        assert not _registry._LOADED
        class Mine(ptr.Objective):
            name, label = "georisk", "Mine"
            def weights(self, r):
                return np.ones(len(r.model))
        try:
            ptr.register_objective(Mine)
        except ValueError as e:
            print(e)
        print(ptr.get_objective("georisk").__module__)
    """)
    out = subprocess.run([sys.executable, "-c", code], env={**os.environ, "PYTHONPATH": str(REPO)},
                         capture_output=True, text=True, timeout=60, check=False)  # fmt: skip
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.splitlines() == ["'georisk' is a built-in objective; give yours another name",
                                       "pyterrier_risk.learning.objectives._georisk"]  # fmt: skip


def test_re_registering_a_name_replaces_the_entry():
    first = ptr.register_objective(objective_class(label="First"))
    second = ptr.register_objective(objective_class(label="Second"))
    assert first is not second and ptr.get_objective("t_custom") is second
    assert ptr.objective_names()[: len(ptr.learning.KINDS)] == ptr.learning.KINDS  # built-ins first
    assert ptr.objective_names()[-1] == "t_custom"


class BadWeights(ptr.Objective):
    name = "t_bad"
    label = "Bad"
    options = (ptr.Option("mode", "shape", "what goes wrong", choices=("shape", "negative", "nan", "inf")),)

    def weights(self, r):
        w = np.ones(len(r.model))
        if self.mode == "shape":
            return w[:-1]
        w[2] = {"negative": -1.0, "nan": np.nan, "inf": np.inf}[self.mode]
        return w


@pytest.mark.parametrize("mode, match", [
    ("shape", r"weights\(\) returned shape \(11,\), expected one multiplier per query \(12,\)"),
    ("negative", r"must be finite and >= 0, query 2 has (np\.float64\()?-1\.0"),  # numpy 2: np.float64(..)
    ("nan", r"must be finite and >= 0, query 2 has (np\.float64\()?nan"),
    ("inf", r"must be finite and >= 0, query 2 has (np\.float64\()?inf"),
])  # fmt: skip
def test_bad_weights_are_a_one_line_error_naming_the_objective(mode, match):
    ptr.register_objective(BadWeights)
    labels, scores, _, group = random_set()
    with pytest.raises(ValueError, match=match) as e:
        call(ptr.objective("t_bad", mode=mode), labels, scores, group)
    assert "objective 't_bad'" in str(e.value) and "\n" not in str(e.value)


@pytest.mark.parametrize("value, error", [
    (0, ValueError), (1.5, ValueError), (-0.1, ValueError), (float("nan"), ValueError),
    ("0.2", TypeError), (True, TypeError), (None, TypeError),
])  # fmt: skip
def test_option_check_errors(value, error):
    ptr.register_objective(CVaR)
    with pytest.raises(error, match=r"q must be a number in \(0, 1\]") as e:
        ptr.objective("t_cvar", alpha=1.0, baseline=np.zeros(3), q=value)
    assert "\n" not in str(e.value)
    with pytest.raises(error, match=r"q must be a number in \(0, 1\]"):  # checked before any data, too
        ptr.RiskLambdaMART("t_cvar", objective_params={"q": value})


def test_option_policies():
    ptr.register_objective(CVaR)
    assert ptr.objective("t_cvar", alpha=1.0, baseline=np.zeros(3), q=1).spec.q == 1.0
    default = ptr.objective("t_cvar", alpha=1.0, baseline=np.zeros(3))
    assert repr(default).endswith("cutoff=10)") and default.q == 0.2  # a default is not shown
    with pytest.raises(TypeError, match="unknown lambdarank parameter or option 'qq' of objective 't_cvar'"):
        ptr.objective("t_cvar", alpha=1.0, baseline=np.zeros(3), qq=0.3)
    with pytest.raises(ValueError, match="faro_tr='dincer2014' has no effect on kind 't_cvar'"):
        ptr.objective("t_cvar", alpha=1.0, baseline=np.zeros(3), faro_tr="dincer2014")
    # another objective's option at its default is accepted (one set of options works for every kind)
    ptr.objective("t_cvar", alpha=1.0, baseline=np.zeros(3), faro_tr="centred")
    with pytest.raises(ValueError, match="needs baseline="):
        ptr.objective("t_cvar", alpha=1.0)
    with pytest.raises(ValueError, match="unknown objective 'no_such'"):
        ptr.objective("no_such")


EXEC_RULE = '''
import numpy as np
code = """
import numba, numpy as np, pyterrier_risk as ptr
@numba.njit
def rule(q, dm, improving, state):
    return dm * (1.0 + state[0][q])
class Dyn(ptr.Objective):
    name, label = "t_dyn", "Dyn"
    def weights(self, r):
        return ptr.PairWeights(rule, (np.full(len(r.model), 0.5),))
ptr.register_objective(Dyn)
y = np.array([0, 1, 2, 0, 1, 2]); s = np.array([0.3, 0.1, -0.2, 0.5, 0.0, 0.4])
print(ptr.objective("t_dyn", alpha=1.0)(y, s, None, np.array([3, 3]))[0].tolist())
"""
exec(compile(code, "<a docs page>", "exec"), {"__name__": "docs_page"})  # no importable module
'''


@pytest.mark.slow
def test_a_rule_defined_by_exec_works_again_in_the_next_process(tmp_path):
    """A pair rule outside an importable module (a docs page's block) is not cached on disk: a cached
    loop would make numba re-import the rule's module in the next process (ModuleNotFoundError)."""
    env = {**os.environ, "PYTHONPATH": str(REPO), "PYTERRIER_RISK_CACHE_DIR": str(tmp_path / "cache")}
    runs = [subprocess.run([sys.executable, "-c", EXEC_RULE], env=env, capture_output=True, text=True,
                           timeout=120, check=False) for _ in range(2)]  # fmt: skip
    for out in runs:
        assert out.returncode == 0, out.stderr[-2000:]
    assert runs[0].stdout == runs[1].stdout and len(json.loads(runs[0].stdout)) == 6
