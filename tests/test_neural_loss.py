"""``ptr.risk_loss``: LambdaLoss with the objectives' pair weights (issue 28, item 1).

At α = 0 every registered objective (the built-ins and a user's) must equal allRank's own
``lambdaLoss(..., weighing_scheme="lambdaRank_scheme")`` in value and gradient; at α > 0 the pair
weights must be the objective's rule over the batch (per-batch statistics), checked against an
independent computation in plain numpy (U-CRO's tradeoff T, T-FARO's α′ from the LightGBM objective).
"""

from __future__ import annotations

import math
import subprocess
import sys
import textwrap

import numba
import numpy as np
import pytest
from helpers import REPO

torch = pytest.importorskip(
    "torch", reason="the neural tests need PyTorch: pip install 'pyterrier-risk[neural]'"
)

from _allrank import import_allrank_losses  # noqa: E402

import pyterrier_risk as ptr  # noqa: E402

GAIN = 2.0 ** np.arange(31) - 1.0
pytestmark = pytest.mark.usefixtures("clean_registry")  # conftest: registration is process-wide


def batch(seed=0, queries=6, slate=9, grades=3):
    """Scores, labels with padding (−1) in two queries, and two baselines' scores."""
    g = torch.Generator().manual_seed(seed)
    y_true = torch.randint(0, grades, (queries, slate), generator=g).float()
    y_true[0, 6:] = -1
    y_true[2, 4:] = -1
    y_true[:, 0], y_true[:, 1] = 0, 2  # every query has two label values
    y_pred = torch.randn(queries, slate, generator=g, dtype=torch.float64)
    base = torch.randn(queries, slate, 2, generator=g, dtype=torch.float64)
    return y_pred, y_true, base


def baseline_kwargs(kind, base):
    needs = ptr.get_objective(kind).baseline
    return {"none": {}, "single": {"baseline": base[..., 0]}, "multiple": {"baselines": base}}[needs]


def value_and_grad(fn, y_pred):
    x = y_pred.clone().requires_grad_(True)
    loss = fn(x)
    loss.backward()
    return float(loss.detach()), x.grad


# ----------------------------------------------------------------------------- a user's objectives
class Worst(ptr.Objective):
    """Per-query multiplier: the queries below the baseline weigh 1 + α."""

    name = "t_neural_worst"
    label = "Worst"
    baseline = "single"

    def weights(self, r):
        return np.where(r.model < r.baseline, 1.0 + r.alpha, 1.0)


# a per-pair rule: the downside_objective fixture (conftest.py, tests/user_objectives.py)


@numba.njit
def negative_rule(q, dm, improving, state):
    return -dm


class Negative(ptr.Objective):
    name = "t_neural_negative"
    label = "Negative"

    def weights(self, r):
        return ptr.PairWeights(negative_rule, (0.0,))


# ----------------------------------------------------------------------------- parity with allRank
def test_allrank_loss_needs_no_torchvision():
    """The stand-in torchvision module (tests/_allrank.py) is only there while allRank is imported."""
    losses = import_allrank_losses()
    assert callable(losses.lambdaLoss)
    if "torchvision" in sys.modules:  # a real torchvision, installed beside torch
        assert hasattr(sys.modules["torchvision"], "__file__")


@pytest.mark.parametrize("k", [None, 4])
def test_every_objective_at_alpha_0_is_allranks_lambdaloss(k, downside_objective):
    """Value and gradient within 1e-5 relative of allRank's lambdaLoss, built-ins and a user's objectives."""
    losses = import_allrank_losses()
    ptr.register_objective(Worst)
    y_pred, y_true, base = batch()
    ref, ref_grad = value_and_grad(
        lambda x: losses.lambdaLoss(x, y_true, weighing_scheme="lambdaRank_scheme", k=k), y_pred
    )
    assert ref > 0 and ref_grad.abs().sum() > 0
    kinds = ptr.objective_names()
    assert {"lambdarank", "urisk", "tsaro", "tfaro", "tfaro_star", "georisk", "t_neural_worst"} <= set(kinds)
    for kind in kinds:
        kw = baseline_kwargs(kind, base)
        value, grad = value_and_grad(
            lambda x, kind=kind, kw=kw: ptr.risk_loss(x, y_true, objective=kind, k=k, **kw), y_pred
        )
        assert value == pytest.approx(ref, rel=1e-5), kind
        torch.testing.assert_close(grad, ref_grad, rtol=1e-5, atol=1e-7, msg=kind)


def test_a_mask_is_the_same_as_padded_labels():
    y_pred, y_true, _ = batch()
    mask = y_true != -1
    relabelled = torch.where(mask, y_true, torch.zeros_like(y_true))
    a = ptr.risk_loss(y_pred, y_true)
    b = ptr.risk_loss(y_pred, relabelled, mask=mask)
    assert float(a) == float(b)


def test_float32_scores_keep_their_dtype_and_match_allrank():
    losses = import_allrank_losses()
    y_pred, y_true, _ = batch(seed=3)
    x = y_pred.float()
    ref = float(losses.lambdaLoss(x, y_true, weighing_scheme="lambdaRank_scheme"))
    out = ptr.risk_loss(x, y_true)
    assert out.dtype == torch.float32 and float(out) == pytest.approx(ref, rel=1e-5)


# ----------------------------------------------------------------------------- α > 0: the batch's round
def ref_ndcg(order_labels, k=10):
    disc = 1.0 / np.log2(np.arange(len(order_labels)) + 2.0)
    dcg = float((GAIN[order_labels][:k] * disc[:k]).sum())
    idcg = float((np.sort(GAIN[order_labels])[::-1][:k] * disc[:k]).sum())
    return dcg / idcg if idcg > 0 else 0.0


def ref_pairs(scores, labels):
    """(i, j, |ΔNDCG|, improving, -log2 σ(s_i − s_j)) of one query's pairs with labels[i] > labels[j]."""
    order = np.argsort(-scores, kind="stable")
    n = len(labels)
    disc = 1.0 / np.log2(np.arange(n) + 2.0)
    rank = np.empty(n, dtype=int)
    rank[order] = np.arange(n)
    idcg = float((np.sort(GAIN[labels])[::-1] * disc).sum())
    for i in range(n):
        for j in range(n):
            if labels[i] > labels[j]:
                dm = (GAIN[labels[i]] - GAIN[labels[j]]) * abs(disc[rank[i]] - disc[rank[j]]) / idcg
                nll = math.log1p(math.exp(-(scores[i] - scores[j]))) / math.log(2)
                yield dm, rank[i] > rank[j], nll


def tradeoff(m, mb, alpha):
    return max(0.0, m - mb) - (1 + alpha) * max(0.0, mb - m)


def test_urisk_weights_are_the_change_of_the_batchs_tradeoff():
    """U-CRO at α = 5: each pair weighs |T(M_m ± ΔM) − T(M_m)| with the batch's per-query NDCG@10."""
    y_pred, y_true, base = batch(seed=1)
    alpha = 5.0
    expected = 0.0
    for q in range(len(y_true)):
        keep = (y_true[q] != -1).numpy()
        s, y, b = y_pred[q].numpy()[keep], y_true[q].numpy()[keep].astype(int), base[q, :, 0].numpy()[keep]
        mm = ref_ndcg(y[np.argsort(-s, kind="stable")])
        mb = ref_ndcg(y[np.argsort(-b, kind="stable")])
        for dm, improving, nll in ref_pairs(s, y):
            moved = mm + dm if improving else mm - dm
            expected += abs(tradeoff(moved, mb, alpha) - tradeoff(mm, mb, alpha)) * nll
    got = float(ptr.risk_loss(y_pred, y_true, objective="urisk", alpha=alpha, baseline=base[..., 0]))
    assert got == pytest.approx(expected, rel=1e-9)
    assert got > float(ptr.risk_loss(y_pred, y_true)) * 1.01


def test_tfaro_multipliers_are_the_lightgbm_objectives_on_the_same_batch():
    """Per-batch statistics: T-FARO's α′ (and its s_x) are those of the batch's queries.

    The LightGBM objective, called on the batch's rows as one training set, computes α′ of its first
    round; each query's LambdaLoss (allRank) times 1 + α′ must sum to the risk loss.
    """
    losses = import_allrank_losses()
    y_pred, y_true, base = batch(seed=2)
    alpha, present = 4.0, (y_true != -1).numpy()
    obj = ptr.objective("tfaro", alpha=alpha, baseline=base[..., 0].numpy()[present])
    obj(y_true.numpy()[present], y_pred.numpy()[present], None, present.sum(axis=1))
    assert obj.s_x_ > 0 and np.ptp(obj.alpha_prime_) > 0
    expected = sum(
        (1 + obj.alpha_prime_[q])
        * float(losses.lambdaLoss(y_pred[q : q + 1], y_true[q : q + 1], weighing_scheme="lambdaRank_scheme"))
        for q in range(len(y_true))
    )
    got = float(ptr.risk_loss(y_pred, y_true, objective="tfaro", alpha=alpha, baseline=base[..., 0]))
    assert got == pytest.approx(expected, rel=1e-5)
    # per batch: the first half alone has its own s_x, so its loss is not the same part of the whole
    half = float(
        ptr.risk_loss(y_pred[:3], y_true[:3], objective="tfaro", alpha=alpha, baseline=base[:3, :, 0])
    )
    rest = float(
        ptr.risk_loss(y_pred[3:], y_true[3:], objective="tfaro", alpha=alpha, baseline=base[3:, :, 0])
    )
    assert half + rest != pytest.approx(got, rel=1e-6)


def test_georisks_batched_pair_rule_weighs_each_querys_pairs():
    """GeoRisk's per-pair |ΔGeoRisk| (a batched numba rule): the loss is Σ rule(pairs of q)·(−log2 σ).

    The round is rebuilt here from plain numpy NDCG, the rule is called query by query from Python,
    and the sum must be the risk loss: the pairs reach the rule grouped by query, signed as it expects.
    """
    y_pred, y_true, base = batch(seed=6)
    alpha = 3.0
    per_query = []
    for q in range(len(y_true)):
        keep = (y_true[q] != -1).numpy()
        s, y = y_pred[q].numpy()[keep], y_true[q].numpy()[keep].astype(int)
        mm = ref_ndcg(y[np.argsort(-s, kind="stable")])
        mb = [ref_ndcg(y[np.argsort(-base[q, :, k].numpy()[keep], kind="stable")]) for k in range(2)]
        per_query.append((s, y, mm, mb))
    model = np.array([p[2] for p in per_query])
    baselines = np.array([p[3] for p in per_query]).T
    spec = ptr.get_objective("georisk")(alpha=alpha, georisk_weight="dincer2016")
    rule = spec.weights(ptr.Round(index=0, model=model, baseline=baselines, active=np.ones(len(model), bool),
                                  alpha=alpha))  # fmt: skip
    assert rule.batched
    expected = 0.0
    for q, (s, y, _, _) in enumerate(per_query):
        pairs = list(ref_pairs(s, y))
        signed = np.array([dm if improving else -dm for dm, improving, _ in pairs])
        out = np.empty(len(pairs))
        rule.rule(q, signed, out, np.int64(len(pairs)), rule.state)
        expected += float(out @ np.array([nll for _, _, nll in pairs]))
    got = ptr.risk_loss(
        y_pred, y_true, objective="georisk", alpha=alpha, baselines=base, georisk_weight="dincer2016"
    )
    plain = ptr.risk_loss(y_pred, y_true)
    assert float(got) == pytest.approx(expected, rel=1e-9) and float(got) != pytest.approx(
        float(plain), rel=1e-3
    )


def test_a_users_pair_rule_runs_on_the_batchs_pairs(downside_objective):
    """A user's numba rule weighs the pairs: at α > 0 degrading pairs of queries below the baseline grow."""
    y_pred, y_true, base = batch(seed=4)
    plain = float(ptr.risk_loss(y_pred, y_true))
    risky = float(
        ptr.risk_loss(y_pred, y_true, objective=downside_objective, alpha=3.0, baseline=base[..., 0])
    )
    below_all = float(
        ptr.risk_loss(y_pred, y_true, objective=downside_objective, alpha=3.0, baseline=y_pred.detach() + 0)
    )
    assert risky > plain
    assert below_all == pytest.approx(plain)  # a baseline equal to the model: no query is below it


def test_the_weights_carry_no_gradient():
    """The gradient is Σ w·∂(−log2 σ(s_i − s_j)): doubling α changes it only through the constant weights."""
    y_pred, y_true, base = batch(seed=5)
    x = y_pred.clone().requires_grad_(True)
    loss = ptr.risk_loss(x, y_true, objective="georisk", alpha=2.0, baselines=base)
    (grad,) = torch.autograd.grad(loss, x)
    assert torch.isfinite(grad).all() and grad.abs().sum() > 0
    assert abs(float(grad.sum())) < 1e-9  # each pair pushes i up and j down by the same amount


# ----------------------------------------------------------------------------- bad input
def put(t, value):
    """``t`` with ``value`` at query 1, position 2."""
    out = t.clone()
    out[1, 2] = value
    return out


@pytest.mark.parametrize(
    "change, kwargs, error, match",
    [
        (lambda p, t: (put(p, math.nan), t),
         {}, ValueError, "y_pred holds NaN"),
        (lambda p, t: (p, put(t, 3.5)), {}, ValueError,
         "label 3.5 is out of range"),
        (lambda p, t: (p, put(t, 31.0)), {}, ValueError,
         "label 31.0 is out of range"),
        (lambda p, t: (p, put(t, -2.0)), {}, ValueError,
         "out of range"),
        (lambda p, t: (p[:, :1], t[:, :1]), {}, ValueError, "a slate of 1 document"),
        (lambda p, t: (p, t[:, :5]), {}, ValueError, r"must both be \[queries, slate\]"),
        (lambda p, t: (p, t), {"objective": "urisk", "baseline": torch.zeros(6, 5)}, ValueError,
         r"baseline must have shape \(6, 9\)"),
        (lambda p, t: (p, t), {"objective": "georisk", "baselines": torch.zeros(6, 9, 2, 1)}, ValueError,
         r"baselines must have shape \[6, 9, systems\]"),
        (lambda p, t: (p, t), {"objective": "urisk"}, ValueError, "needs baseline="),
        (lambda p, t: (p, t), {"baseline": torch.zeros(6, 9)}, ValueError, "takes no baseline"),
        (lambda p, t: (p, t), {"objective": "urisk", "baseline": torch.full((6, 9), math.nan)}, ValueError,
         "non-finite scores"),
        (lambda p, t: (p, t), {"lambdarank_norm": False}, ValueError, "no effect on risk_loss"),
        (lambda p, t: (p, t), {"objective": "tfaro", "risk_norm": "weighted", "baseline": torch.zeros(6, 9)},
         ValueError, "risk_norm has no effect"),
        (lambda p, t: (p, t), {"nonsense": 1}, TypeError, "unknown"),
        (lambda p, t: (p, t), {"objective": "nope"}, ValueError, "nope"),
        (lambda p, t: (p, t), {"alpha": -1.0}, ValueError, "alpha"),
        (lambda p, t: (p, t), {"sigma": 0.0}, ValueError, "sigma"),
    ],
)  # fmt: skip
def test_bad_input_is_a_one_line_error(change, kwargs, error, match):
    y_pred, y_true, _ = batch()
    p, t = change(y_pred, y_true)
    with pytest.raises(error, match=match) as info:
        ptr.risk_loss(p, t, **kwargs)
    assert "\n" not in str(info.value)


def test_a_negative_pair_weight_is_refused():
    ptr.register_objective(Negative)
    y_pred, y_true, _ = batch()
    with pytest.raises(ValueError, match="finite number >= 0") as info:
        ptr.risk_loss(y_pred, y_true, objective="t_neural_negative")
    assert "\n" not in str(info.value)


def test_one_system_may_come_without_its_systems_axis():
    y_pred, y_true, base = batch(seed=7)
    one = base[..., :1]
    single = float(ptr.risk_loss(y_pred, y_true, objective="urisk", alpha=2.0, baseline=base[..., 0]))
    assert float(ptr.risk_loss(y_pred, y_true, objective="urisk", alpha=2.0, baseline=one)) == single
    geo = float(ptr.risk_loss(y_pred, y_true, objective="georisk", alpha=2.0, baselines=one))
    assert float(ptr.risk_loss(y_pred, y_true, objective="georisk", alpha=2.0, baselines=base[..., 0])) == geo
    assert (
        float(ptr.risk_loss(y_pred, y_true, objective="georisk", alpha=2.0, baselines=[base[..., 0]])) == geo
    )


def test_a_batch_without_pairs_has_a_zero_loss_with_a_gradient():
    x = torch.tensor([[0.0, 0.0, math.nan], [0.0, math.inf, 1.0]], requires_grad=True)  # padding: anything
    loss = ptr.risk_loss(x, torch.tensor([[1.0, 1.0, -1.0], [0.0, -1.0, -1.0]]))
    loss.backward()
    assert float(loss) == 0.0 and x.grad is not None and float(x.grad.abs().sum()) == 0.0


# ----------------------------------------------------------------------------- without torch
def test_without_torch_the_package_imports_and_the_neural_names_say_which_extra():
    code = textwrap.dedent(
        """
        import sys
        sys.modules["torch"] = None  # as if PyTorch were not installed
        import pyterrier_risk as ptr
        assert ptr.urisk is not None
        for call in (lambda: ptr.RiskNeuralRanker(), lambda: ptr.risk_loss(None, None)):
            try:
                call()
            except ImportError as e:
                print(str(e))
        """
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO, timeout=300)
    assert out.returncode == 0, out.stderr
    lines = out.stdout.strip().splitlines()
    assert lines == ['the neural learner needs PyTorch: pip install "pyterrier-risk[neural]"'] * 2
