"""The settings of a learning study (``pyterrier-risk learn``, :func:`~pyterrier_risk.risk_study`).

One source for the defaults the command and the function share, and the check of every argument
before any data is read or anything is written. Settings are plain, picklable data: a task carries
them to a worker process or a Dask worker unchanged.
"""

from __future__ import annotations

import importlib
import os
import re
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from ..core import check_alpha, check_int
from ..learning import THREAD_ALIASES, get_objective
from ._settings import StudyError, risk_objectives

__all__ = [
    "DEFAULT_LEARN_ALPHAS",
    "DEFAULT_LEARN_ROUNDS",
    "DEFAULT_LEARN_SEEDS",
    "DEFAULT_LEARN_THREADS",
    "DEFAULT_SPLIT_SEED",
    "EVAL_ALPHA",
    "REFERENCE",
    "Baseline",
    "LearnSettings",
    "available_cores",
    "learn_settings",
    "parse_param",
]

DEFAULT_LEARN_ALPHAS: tuple[float, ...] = (1.0, 5.0, 10.0)
DEFAULT_LEARN_ROUNDS = 100
DEFAULT_LEARN_SEEDS: tuple[int, ...] = (1,)
DEFAULT_LEARN_THREADS = 1  # threads per fit
DEFAULT_SPLIT_SEED = 0
EVAL_ALPHA = 1.0  # GeoRisk's α in the table (Dinçer et al. 2016 report α = 1 among others)
REFERENCE = "lambdarank"  # plain LambdaMART at α = 0: every model is compared with it
CUTOFF = 10  # NDCG@10: the objectives' cutoff, early stopping's metric and the tables' measure
#: LightGBM parameters the study sets itself (and their aliases), with the option that sets them
_STUDY_PARAMS = {
    **dict.fromkeys(("seed", "random_seed", "random_state"), "--seeds"),
    **dict.fromkeys(THREAD_ALIASES, "--threads"),
    "deterministic": "always true",
    "force_row_wise": "always true",
    "verbosity": "always -1",
    "verbose": "always -1",
}
_INT = re.compile(r"[-+]?\d+")
_FLOAT = re.compile(r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?")


@dataclass(frozen=True)
class Baseline:
    """One baseline of a study: a LETOR feature (1-based ``feature``) or a TREC run file (``run``).

    ``name`` is ``F<n>`` for feature n, else the run file's name without ``.run``/``.gz`` suffixes;
    ``digest`` is the run file's sha256 (the task cache key holds it, not the path).
    """

    name: str
    feature: int | None = None
    run: str | None = None
    digest: str = ""


@dataclass(frozen=True)
class LearnSettings:
    """Every setting of a learning study, checked (:func:`learn_settings` builds one)."""

    data: str
    baseline: Baseline | None
    baselines: tuple[Baseline, ...]
    objectives: tuple[str, ...]
    alphas: tuple[float, ...]
    seeds: tuple[int, ...]
    rounds: int
    early_stopping: int | None
    params: tuple[tuple[str, Any], ...]
    options: tuple[tuple[str, Any], ...]
    folds: int | None
    split_seed: int
    eval_alpha: float
    threads: int
    imports: tuple[str, ...] = field(default=())
    user_objectives: tuple[tuple[str, str, str], ...] = field(default=())
    learner: str = "lambdamart"  # or "neural" (study/_learn_neural.py)
    device: str | None = None  # the neural learner's device (None for LightGBM)

    @property
    def single(self) -> str | None:
        """The ``base:`` name of the single baseline (None without one)."""
        return None if self.baseline is None else self.baseline.name

    @property
    def multiple(self) -> tuple[str, ...]:
        """The names of the multiple baselines."""
        return tuple(b.name for b in self.baselines)

    def all_baselines(self) -> tuple[Baseline, ...]:
        """The single baseline, then the multiple ones not equal to it (each once)."""
        seen = [] if self.baseline is None else [self.baseline]
        return tuple(seen + [b for b in self.baselines if b not in seen])

    def lightgbm(self, seed: int) -> dict[str, Any]:
        """The LightGBM parameters of one fit: the study's fixed ones, then ``params``."""
        fixed = {"seed": seed, "num_threads": self.threads, "deterministic": True, "force_row_wise": True}
        return {**fixed, **dict(self.params)}

    def describe(self) -> dict[str, Any]:
        """The settings as JSON-ready data (the output's ``settings.json``)."""
        out = asdict(self)
        out["params"], out["options"] = dict(self.params), dict(self.options)
        return out


def available_cores() -> int:
    """The cores this process may run on (its CPU affinity where the system reports one)."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - macOS, Windows
        return os.cpu_count() or 1


def _value(text: str) -> Any:
    """One parameter value as LightGBM reads it: a bool, an int, a float, or the text."""
    if text.lower() in ("true", "false"):
        return text.lower() == "true"
    if _INT.fullmatch(text):
        return int(text)
    if _FLOAT.fullmatch(text):
        return float(text)
    return text


def parse_param(text: str) -> tuple[str, Any]:
    """``name=value`` as LightGBM parses it: true/false, integers, floats, comma lists, else text.

    Raises:
        StudyError: no ``=``, an empty name or value, or a parameter the study sets itself.
    """
    name, sep, raw = str(text).partition("=")
    name, raw = name.strip(), raw.strip()
    if not sep or not name or not raw:
        raise StudyError(f"--param {text!r}: expected name=value, e.g. learning_rate=0.05")
    if name in _STUDY_PARAMS:
        raise StudyError(f"--param {name}: the study sets it ({_STUDY_PARAMS[name]})")
    parts = [p.strip() for p in raw.split(",")]
    if len(parts) > 1:
        return name, [_value(p) for p in parts]
    return name, _value(raw)


def _as_params(params: Any, what: str) -> tuple[tuple[str, Any], ...]:
    """A mapping or ``name=value`` strings as sorted (name, value) pairs."""
    if params is None:
        return ()
    if isinstance(params, dict):
        pairs = list(params.items())
    elif isinstance(params, (str, bytes)):
        raise StudyError(f"{what} must be a dict or a list of name=value strings, got {params!r}")
    else:
        pairs = [parse_param(p) if isinstance(p, str) else tuple(p) for p in params]
    for name, _ in pairs:
        if what == "params" and name in _STUDY_PARAMS:
            raise StudyError(f"--param {name}: the study sets it ({_STUDY_PARAMS[name]})")
    return tuple(sorted((str(k), tuple(v) if isinstance(v, list) else v) for k, v in pairs))


def _baseline(spec: Any) -> Baseline:
    """A feature number (an int or digits, 1-based) or a run file as a :class:`Baseline`."""
    import hashlib

    if isinstance(spec, bool):
        raise StudyError(f"baseline {spec!r}: expected a feature number (from 1) or a TREC run file")
    if isinstance(spec, int) or (isinstance(spec, str) and spec.isascii() and spec.isdigit()):
        number = int(spec)
        if number < 1:
            raise StudyError(f"baseline feature {number}: feature numbers start at 1 (as the LETOR file's)")
        return Baseline(f"F{number}", feature=number)
    path = Path(os.fspath(spec))
    if not path.is_file():
        raise StudyError(f"baseline {str(spec)!r}: neither a feature number nor a run file")
    name = path.name
    for suffix in (".gz", ".bz2", ".xz", ".run", ".txt", ".res"):
        name = name.removesuffix(suffix)
    return Baseline(name, run=str(path.resolve()), digest=hashlib.sha256(path.read_bytes()).hexdigest())


def _objectives(objectives: Sequence[str] | None, single: bool, multiple: bool) -> tuple[str, ...]:
    """The objectives to train, checked against the baselines given (their ``baseline`` kind)."""
    if objectives is None:
        kinds = {"single": single, "multiple": multiple}
        chosen = tuple(o for o in risk_objectives() if kinds.get(get_objective(o).baseline, True))
        if not chosen:
            raise StudyError("no baseline given: --baseline F (U-CRO, T-SARO, T-FARO) and/or --baselines F "
                             "[F ...] (T*-FARO, GeoRisk)")
        return chosen
    chosen = tuple(dict.fromkeys(str(o) for o in objectives))
    for name in chosen:
        try:
            kind = get_objective(name).baseline
        except ValueError as e:
            raise StudyError(str(e)) from None
        if name == REFERENCE:
            raise StudyError(f"objective {REFERENCE!r} is the reference every model is compared with; it is "
                             "always trained (at α 0)")
        if kind == "single" and not single:
            raise StudyError(f"objective {name!r} needs a single baseline: give --baseline F")
        if kind == "multiple" and not multiple:
            raise StudyError(f"objective {name!r} needs several baselines: give --baselines F [F ...]")
    if not chosen:
        raise StudyError("no objective given")
    return chosen


def _numbers(values: Any, what: str, check: Any) -> tuple[Any, ...]:
    """A non-empty tuple of checked values, each once, in the order given."""
    values = [values] if isinstance(values, (int, float)) else list(values)
    if not values:
        raise StudyError(f"{what}: give at least one value")
    try:
        return tuple(dict.fromkeys(check(v) for v in values))
    except (TypeError, ValueError) as e:
        raise StudyError(str(e) if str(e).startswith(what) else f"{what}: {e}") from None


def _count(value: Any, name: str, *, minimum: int = 1, allow_none: bool = False) -> int | None:
    try:
        return check_int(value, name, minimum=minimum, allow_none=allow_none)
    except (TypeError, ValueError) as e:
        raise StudyError(str(e)) from None


def _seed(value: Any) -> int:
    return _count(value, "seed", minimum=0)


def import_modules(names: Sequence[str]) -> None:
    """Import each module (a user's objectives register themselves when imported)."""
    for name in names:
        try:
            importlib.import_module(name)
        except ImportError as e:
            raise StudyError(f"--import {name}: {e}") from None


def _user_objectives(names: Sequence[str]) -> tuple[tuple[str, str, str], ...]:
    """``(name, module, qualname)`` of each objective of the study registered by the user.

    A worker process starts with the built-ins only: an objective registered at run time (in a test, a
    notebook cell) is registered there again from its class, found by module and name.
    """
    out = []
    for name in names:
        cls = get_objective(name)
        if not cls.__module__.startswith("pyterrier_risk."):
            out.append((name, cls.__module__, cls.__qualname__))
    return tuple(out)


def register_user_objectives(entries: Sequence[tuple[str, str, str]]) -> None:
    """Register in this process the user objectives a study names (see :func:`_user_objectives`)."""
    from ..learning import objective_names, register_objective

    known = set(objective_names())
    for name, module, qualname in entries:
        if name in known or module == "__main__":  # a script's objectives register as it is re-imported
            continue
        try:
            cls: Any = importlib.import_module(module)
            for part in qualname.split("."):
                cls = getattr(cls, part)
        except (ImportError, AttributeError) as e:
            raise StudyError(f"objective {name!r}: its class {module}.{qualname} cannot be imported in a "
                             f"worker ({e}); define it in an importable module") from None
        register_objective(cls)


def learn_settings(
    data: str | os.PathLike, *, baseline: Any = None, baselines: Sequence[Any] = (),
    objectives: Sequence[str] | None = None, alphas: Sequence[float] = DEFAULT_LEARN_ALPHAS,
    seeds: Sequence[int] = DEFAULT_LEARN_SEEDS, rounds: int = DEFAULT_LEARN_ROUNDS,
    early_stopping: int | None = None, params: Any = None, options: Any = None, folds: int | None = None,
    split_seed: int = DEFAULT_SPLIT_SEED, eval_alpha: float = EVAL_ALPHA,
    threads: int = DEFAULT_LEARN_THREADS,
    imports: Sequence[str] = (), learner: str = "lambdamart", device: str | None = None,
) -> LearnSettings:
    """Check every argument of :func:`~pyterrier_risk.risk_study` (before any data is read).

    Raises:
        StudyError: a one-line message naming the argument and the problem.
    """
    from ._learn_neural import check_learner

    learner, device = check_learner(learner, device)
    imports = tuple(str(m) for m in imports)
    import_modules(imports)
    path = Path(os.fspath(data))
    if not path.exists():
        raise StudyError(f"LETOR data not found: {path}")
    single = None if baseline is None else _baseline(baseline)
    multiple = tuple(dict.fromkeys(_baseline(b) for b in ([baselines] if isinstance(baselines, (str, int))
                                                           else baselines)))
    names = _objectives(objectives, single is not None, bool(multiple))
    return LearnSettings(
        data=str(path.resolve()), baseline=single, baselines=multiple,
        objectives=names,
        alphas=_numbers(alphas, "alpha", check_alpha), seeds=_numbers(seeds, "seeds", _seed),
        rounds=_count(rounds, "rounds"),
        early_stopping=_count(early_stopping, "early_stopping", allow_none=True),
        params=_as_params(params, "params"), options=_as_params(options, "options"),
        folds=_count(folds, "folds", minimum=3, allow_none=True),
        split_seed=_count(split_seed, "split_seed", minimum=0),
        eval_alpha=_numbers([eval_alpha], "eval_alpha", check_alpha)[0], threads=_count(threads, "threads"),
        imports=imports, user_objectives=_user_objectives(names), learner=learner, device=device,
    )  # fmt: skip


def objective_options(settings: LearnSettings, objective: str) -> dict[str, Any] | None:
    """The study's objective options that ``objective`` declares (None for the reference)."""
    if objective == REFERENCE:
        return None
    declared = {o.name for o in get_objective(objective).options}
    return {k: v for k, v in settings.options if k in declared} or None


def check_models(settings: LearnSettings) -> None:
    """Build (not fit) every model of the study once, before any data is read.

    Bad LightGBM parameters and objective options are refused here; an option that no objective of the
    study declares is an error.
    """
    from ..learning import RiskLambdaMART

    declared = {o.name for name in settings.objectives for o in get_objective(name).options}
    unknown = [k for k, _ in settings.options if k not in declared]
    if unknown:
        raise StudyError(f"--option {unknown[0]}: no objective of the study has it "
                         f"({', '.join(settings.objectives)})")
    if settings.learner != "lambdamart":
        from ._learn_neural import check_neural_models

        kinds = [(n, max(settings.alphas) if n != REFERENCE else 0.0, objective_options(settings, n))
                 for n in (REFERENCE, *settings.objectives)]  # fmt: skip
        return check_neural_models(settings, kinds, CUTOFF)
    for name in (REFERENCE, *settings.objectives):
        try:
            RiskLambdaMART(name, alpha=max(settings.alphas) if name != REFERENCE else 0.0, baseline=0,
                           baselines=[0], num_boost_round=settings.rounds,
                           early_stopping_rounds=settings.early_stopping, verbose=False,
                           objective_params=objective_options(settings, name), **settings.lightgbm(0))
        except (TypeError, ValueError) as e:
            raise StudyError(f"{name}: {e}") from None
