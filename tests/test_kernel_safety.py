"""Memory safety and compilation of the numba kernels.

Every objective kind runs with every option (GeoRisk incremental/exact, series and fallback paths,
weights, truncation, normalisation on/off, -inf scores, one-document queries, serial and parallel
kernels). CI runs this file again under ``NUMBA_BOUNDSCHECK=1`` with an empty cache, where any
out-of-bounds read is an IndexError. Also: the kernel cache lives outside the package, is optional,
and each kernel compiles once per process.
"""

from __future__ import annotations

import itertools
import os
import shutil
import subprocess
import sys
import textwrap

import numpy as np
import pytest
from helpers import REPO

from pyterrier_risk.learning import KINDS, objective
from pyterrier_risk.learning import _ndcg as N
from pyterrier_risk.learning import _pairloop as P
from pyterrier_risk.learning.objectives import Round
from pyterrier_risk.learning.objectives import _georisk_kernels as GK
from pyterrier_risk.learning.objectives._georisk import georisk_round, phi_table


class _Data:
    def __init__(self, y, group, weight=None):
        self.y, self.group, self.weight = y, group, weight

    def get_label(self):
        return self.y

    def get_group(self):
        return self.group

    def get_weight(self):
        return self.weight


def _data(seed, weighted=False):
    rng = np.random.default_rng(seed)
    group = np.array([1, 2, 5, 9, 3, 40, 7, 6])  # a one-document query, short and long ones
    n = int(group.sum())
    y = rng.integers(0, 4, n).astype(np.float32)
    y[1:3] = 2  # a single-label query
    scores = rng.normal(size=n)
    scores[rng.integers(0, n, 4)] = -np.inf  # LightGBM's "never ranked" documents
    scores[10:14] = scores[10]  # ties
    baselines = rng.random((n, 3))
    return y, group, scores, baselines, (rng.random(n) + 0.5 if weighted else None)


def _kwargs(kind, baselines, alpha):
    if kind in ("urisk", "tsaro", "tfaro"):
        return {"alpha": alpha, "baseline": baselines[:, 0]}
    if kind in ("tfaro_star", "georisk"):
        return {"alpha": alpha, "baselines": baselines}
    return {}


OPTIONS = [
    {},
    {"lambdarank_norm": False},
    {"lambdarank_truncation_level": 2},
    {"sigmoid": 2.5},
    {"label_gain": [0.0, 1.0, 3.0, 7.0, 15.0]},
    {"cutoff": 3},
]


@pytest.mark.parametrize(("kind", "opts", "weighted"), list(itertools.product(KINDS, OPTIONS, [False, True])))
def test_every_kind_and_option_gives_finite_gradients(kind, opts, weighted):
    y, group, scores, baselines, weight = _data(1, weighted)
    for alpha, update in ((0.0, "incremental"), (5.0, "incremental"), (5.0, "exact"), (1e6, "incremental")):
        if kind == "lambdarank" and alpha:
            continue
        extra = {"georisk_update": update} if kind == "georisk" else {}
        serial = objective(kind, **_kwargs(kind, baselines, alpha), num_threads=1, **extra, **opts)
        parallel = objective(kind, **_kwargs(kind, baselines, alpha), num_threads=2, **extra, **opts)
        for rnd in range(2):  # the first round and one with non-zero scores
            s = scores if rnd else np.zeros_like(scores)
            g1, h1 = serial(s, _Data(y, group, weight))
            g2, h2 = parallel(s, _Data(y, group, weight))
            assert g1.dtype == np.float32 and g1.shape == y.shape
            assert np.isfinite(g1).all() and np.isfinite(h1).all() and (h1 >= 0).all()
            np.testing.assert_array_equal(g1, g2)  # serial and parallel kernels agree exactly
            np.testing.assert_array_equal(h1, h2)
        assert np.abs(g1).sum() > 0


def test_georisk_series_and_fallback_paths_both_run():
    # alpha 1e6 pushes the round's u0 outside the series' range: the per-pair fallback runs
    y, group, scores, baselines, _ = _data(3)
    for alpha in (2.0, 1e6):
        obj = objective("georisk", alpha=alpha, baselines=baselines, num_threads=1)
        obj(np.zeros_like(scores), _Data(y, group))
        obj(scores, _Data(y, group))
        st = georisk_round(obj.model_ndcg_, obj.baseline_ndcg_, obj.active_, alpha)
        assert (abs(st.u0) <= GK.SERIES_MAX_U0) == (alpha == 2.0)


def test_every_rule_state_holds_real_tables():
    # the bug this guards: a dummy np.zeros(2) passed as a lookup table, read out of bounds by a hoisted load.
    # A rule's state holds only what that rule reads; the tables in it are the real ones
    y, group, scores, baselines, _ = _data(4)
    for kind in KINDS:
        obj = objective(kind, **_kwargs(kind, baselines, 1.0))
        obj(scores, _Data(y, group))
        assert obj._bound.lr.table.shape == (N.SIGMOID_BINS,), kind
    assert phi_table().shape == (GK.PHI_BINS + 1,)
    for update, weight in (("incremental", "dincer2016"), ("exact", "ndcg_units")):
        opts = {"georisk_update": update, "georisk_weight": weight}
        obj = objective("georisk", alpha=1.0, baselines=baselines, **opts)
        obj(scores, _Data(y, group))
        r = Round(index=1, model=obj.model_ndcg_, baseline=obj.baseline_ndcg_, active=obj.active_, alpha=1.0)
        state = obj.spec.weights(r).state
        assert state[-1].shape == (GK.PHI_BINS + 1,)
        assert all(len(a) == len(group) for a in state[:5])  # the per-query arrays (model, totals, ..., mask)


def test_each_loop_compiles_once_per_process():
    y, group, scores, baselines, _ = _data(5)
    for kind in KINDS:
        for threads in (1, 2):
            objective(kind, **_kwargs(kind, baselines, 1.0), num_threads=threads)(scores, _Data(y, group))
    assert P._LOOPS
    for (rule, batched, parallel), loop in P._LOOPS.items():
        assert len(loop.signatures) == 1, (rule, batched, parallel, loop.signatures)


_ONLY_WHAT_IS_USED = textwrap.dedent(
    """
    import sys, numpy as np, pyterrier_risk as ptr
    from pyterrier_risk.learning import _pairloop as P
    y = np.array([0, 1, 2, 0, 1] * 4, dtype=np.float32); g = np.array([5, 5, 5, 5])
    class D:
        def get_label(s): return y
        def get_group(s): return g
        def get_weight(s): return None
    kind = sys.argv[1]
    b = np.random.default_rng(0).random((20, 3))
    kw = {"baselines": b} if kind in ("georisk", "tfaro_star") else {"baseline": b[:, 0]}
    kw = {} if kind == "lambdarank" else kw
    obj = ptr.objective(kind, alpha=1.0, **kw)
    obj(np.zeros(20), D()); obj(np.arange(20.0), D())
    print(sorted(loop.py_func.__name__ for loop in P._LOOPS.values()))
    geo = "pyterrier_risk.learning.objectives._georisk_kernels" in sys.modules
    print(len(P.stable_desc_order_parallel.signatures), geo)
    """
)


@pytest.mark.slow
@pytest.mark.parametrize(
    "kind, loop",
    [("lambdarank", "lambdas_pairloop_scale_rule_serial"), ("urisk", "lambdas_ucro_kernel_ucro_rule_serial"),
     ("tsaro", "lambdas_ucro_kernel_ucro_rule_serial"), ("tfaro", "lambdas_pairloop_scale_rule_serial"),
     ("georisk", "lambdas_pairloop_scale_rule_serial")],
)  # fmt: skip
def test_a_kind_compiles_only_its_own_loop(kind, loop, tmp_path):
    # a fresh process: the small-set path sorts in numpy and compiles one serial loop, the kind's rule's;
    # GeoRisk's default weight is a per-query multiplier, so its per-pair kernels are not even imported
    env = {**os.environ, "PYTERRIER_RISK_CACHE_DIR": str(tmp_path)}
    cmd = [sys.executable, "-c", _ONLY_WHAT_IS_USED, kind]
    out = subprocess.run(cmd, capture_output=True, text=True, env=env)
    assert out.returncode == 0, out.stderr[-2000:]
    loops, rest = out.stdout.split("\n")[:2]
    assert loops == repr([loop])
    assert rest == "0 False"


_PROBE = textwrap.dedent(
    """
    import warnings, numpy as np, numba
    before = numba.config.CACHE_DIR
    import pyterrier_risk as ptr
    y = np.array([0, 1, 2, 0, 1] * 4, dtype=np.float32); g = np.array([5, 5, 5, 5])
    class D:
        def get_label(s): return y
        def get_group(s): return g
        def get_weight(s): return None
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        grad, _ = ptr.objective("lambdarank")(np.zeros(20), D())
    from pyterrier_risk.learning import _pairloop
    assert numba.config.CACHE_DIR == before, "numba's setting was changed"
    print(repr(float(np.abs(grad).sum())))
    print("|".join(sorted({type(x.message).__name__ for x in w})))
    print(ptr.__file__)
    """
)


def _probe(tmp_path, **env):
    # a fresh copy of the package, so that any cache file written next to the sources is seen
    pkg = tmp_path / "site" / "pyterrier_risk"
    if not pkg.exists():
        shutil.copytree(REPO / "pyterrier_risk", pkg, ignore=shutil.ignore_patterns("__pycache__"))
    full = {k: v for k, v in os.environ.items() if k not in ("NUMBA_CACHE_DIR", "PYTERRIER_RISK_CACHE_DIR")}
    full.update(env, PYTHONPATH=str(pkg.parent))
    cmd = [sys.executable, "-c", _PROBE]
    out = subprocess.run(cmd, capture_output=True, text=True, env=full, cwd=tmp_path)
    assert out.returncode == 0, out.stderr[-2000:]
    return out.stdout.split("\n")


@pytest.mark.slow
def test_the_kernel_cache_lives_outside_the_package_and_is_optional(tmp_path):
    cache = tmp_path / "cache"
    value, warned, where, _ = _probe(tmp_path, PYTERRIER_RISK_CACHE_DIR=str(cache))
    assert warned == "" and where.startswith(str(tmp_path / "site"))
    assert list(cache.rglob("*.nbi")), "nothing was cached in PYTERRIER_RISK_CACHE_DIR"
    assert not list((tmp_path / "site").rglob("*.nb*")), "a cache file was written inside the package"
    # a cache folder that cannot be created (below a regular file; fails even as root): a warning, same result
    blocker = tmp_path / "file"
    blocker.write_text("")
    value2, warned2, *_ = _probe(tmp_path, PYTERRIER_RISK_CACHE_DIR=str(blocker / "sub"))
    assert warned2 == "JITCacheWarning" and value2 == value
    # no writable home either: XDG_CACHE_HOME and HOME below the file
    value3, warned3, *_ = _probe(tmp_path, HOME=str(blocker / "home"), XDG_CACHE_HOME=str(blocker / "xdg"))
    assert warned3 == "JITCacheWarning" and value3 == value
    value4, warned4, *_ = _probe(tmp_path, PYTERRIER_RISK_CACHE_DIR="off")
    assert warned4 == "" and value4 == value


def test_cache_dir_policy(monkeypatch, tmp_path):
    from pyterrier_risk.learning._jit import cache_dir

    for var in ("PYTERRIER_RISK_CACHE_DIR", "NUMBA_CACHE_DIR", "XDG_CACHE_HOME"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("HOME", str(tmp_path))
    assert cache_dir() == tmp_path / ".cache" / "pyterrier_risk" / "numba"
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "x"))
    assert cache_dir() == tmp_path / "x" / "pyterrier_risk" / "numba"
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path / "n"))
    assert cache_dir() == tmp_path / "n"
    monkeypatch.setenv("PYTERRIER_RISK_CACHE_DIR", str(tmp_path / "p"))
    assert cache_dir() == tmp_path / "p"
    monkeypatch.setenv("PYTERRIER_RISK_CACHE_DIR", "off")
    assert cache_dir() is None


_FAR_RULE = textwrap.dedent(
    """
    import numba
    import numpy as np
    import pyterrier_risk as ptr


    @numba.njit
    def far_rule(q, dm, improving, state):
        return dm * state[0][q + state[1]]  # offset 0: in bounds; 10**9: far outside the array


    @ptr.register_objective
    class Far(ptr.Objective):
        name, label = "t_far", "Far"
        options = (ptr.Option("offset", 0, "how far past the query the rule reads"),)

        def weights(self, r):
            return ptr.PairWeights(far_rule, (np.ones(len(r.model)), self.offset))
    """
)
_RUN_FAR = textwrap.dedent(
    """
    import sys
    import numpy as np
    import pyterrier_risk as ptr
    import far_objective
    y = np.array([0, 1, 2, 0, 1, 2], dtype=float); s = np.array([0.3, 0.1, -0.2, 0.5, 0.0, 0.4])
    try:
        grad, _ = ptr.objective("t_far", offset=int(sys.argv[1]))(y, s, None, np.array([3, 3]))
        print("ok", float(np.abs(grad).sum()))
    except IndexError as e:
        print("IndexError", e)
    """
)


@pytest.mark.slow
def test_bounds_checks_apply_even_when_the_loop_is_already_cached(tmp_path):
    # numba's cache index leaves NUMBA_BOUNDSCHECK out: the learner's cache folder is keyed by it, so a
    # loop cached without bounds checks is not loaded when they are asked for (a read out of bounds is
    # then an IndexError, not a crash)
    (tmp_path / "far_objective.py").write_text(_FAR_RULE)
    cache = tmp_path / "cache"
    env = {k: v for k, v in os.environ.items() if k not in ("NUMBA_BOUNDSCHECK", "NUMBA_CACHE_DIR")}
    env.update(PYTHONPATH=os.pathsep.join([str(tmp_path), str(REPO)]), PYTERRIER_RISK_CACHE_DIR=str(cache))
    warm = subprocess.run([sys.executable, "-c", _RUN_FAR, "0"], capture_output=True, text=True, env=env,
                          timeout=300)  # fmt: skip
    assert warm.returncode == 0 and warm.stdout.startswith("ok "), warm.stderr[-2000:]
    assert [p for p in cache.rglob("*.nbi") if "far_objective" in p.name], "the loop was not cached"
    checked = subprocess.run([sys.executable, "-c", _RUN_FAR, str(10**9)], capture_output=True, text=True,
                             env={**env, "NUMBA_BOUNDSCHECK": "1"}, timeout=300)  # fmt: skip
    assert checked.returncode == 0, f"exit status {checked.returncode}: {checked.stderr[-2000:]}"
    assert checked.stdout.startswith("IndexError"), checked.stdout
    folders = {p.relative_to(cache).parts[0] for p in cache.rglob("*.nbi")}
    assert len(folders) == 2  # one folder per bounds-check setting
