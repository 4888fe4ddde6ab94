"""The settings of a learning study (``pyterrier-risk learn``, :func:`~pyterrier_risk.risk_study`).

One source for the defaults the command and the function share, and the check of every argument
before any data is read or anything is written. Settings are plain, picklable data: a task carries
them to a worker process or a Dask worker unchanged.

Errors name arguments by neutral keys (:class:`SettingError`): ``str(error)`` speaks Python
(``rounds``, ``folds=K``) and the command renders the same error with its flags (``--rounds``,
``--folds K``), so each interface's user reads the words they typed (issue 29 item 10).
"""

from __future__ import annotations

import dataclasses
import difflib
import importlib
import os
import re
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Literal, overload

from ..core import check_alpha, check_int
from ..learning import (
    CONSTRUCTOR_ALIASES,
    REFERENCE_OBJECTIVE,
    THREAD_ALIASES,
    get_objective,
    lightgbm_parameter_name,
    lightgbm_parameters,
    objective_names,
    risk_objectives,
)
from ._baseline_names import named_baselines
from ._errors import SettingError, StudyError, StudyNote

__all__ = [
    "DEFAULT_EARLY_STOPPING",
    "DEFAULT_LEARN_ALPHAS",
    "DEFAULT_LEARN_ROUNDS",
    "DEFAULT_LEARN_SEEDS",
    "DEFAULT_LEARN_THREADS",
    "DEFAULT_SPLIT_SEED",
    "EVAL_ALPHA",
    "LEARN_MEASURES",
    "REFERENCE",
    "Baseline",
    "LearnSettings",
    "SettingError",
    "StudyNote",
    "available_cores",
    "baseline_ties",
    "learn_settings",
    "parse_param",
]

DEFAULT_LEARN_ALPHAS: tuple[float, ...] = (1.0, 5.0, 10.0)
DEFAULT_LEARN_ROUNDS = 300  # the cap: early stopping on the validation split picks the trees (issue 31)
DEFAULT_EARLY_STOPPING = 20  # patience in rounds on the study's measure (issue 31: 10, 20, 30 measured)
#: the study's measure: NDCG@10 with gains 2^label − 1 (ours), or LETOR 4.0's Eval-Score-4.0.pl
LEARN_MEASURES = {"ndcg": "NDCG@10", "letor": "NDCG@10 (LETOR 4.0 Eval-Score-4.0.pl)"}
DEFAULT_LEARN_SEEDS: tuple[int, ...] = (1,)
DEFAULT_LEARN_THREADS = 1  # threads per fit
DEFAULT_SPLIT_SEED = 0
EVAL_ALPHA = 1.0  # GeoRisk's α in the table (Dinçer et al. 2016 report α = 1 among others)
REFERENCE = REFERENCE_OBJECTIVE  # plain LambdaMART at α = 0: every model is compared with it (the registry)
CUTOFF = 10  # NDCG@10: the objectives' cutoff, early stopping's metric and the tables' measure
MAX_SEED = 2**31 - 1  # LightGBM's seed is a C int: 2^31 gives seed 0's model, 2^32 - 1 seed 2^31 - 1's
#: LightGBM parameters the study sets itself, by LightGBM's name (its aliases are found from LightGBM's
#: own table), with what sets them; the constructor's names and the thread aliases for a LightGBM
#: whose table cannot be read
_STUDY_PARAMS = {
    "seed": "⟨seeds⟩",
    "num_threads": "⟨threads⟩",
    **dict.fromkeys(THREAD_ALIASES, "⟨threads⟩"),
    "deterministic": "always true",
    "force_row_wise": "always true",
    "verbosity": "always -1",
    "num_iterations": "⟨rounds⟩",
    "num_boost_round": "⟨rounds⟩",
    "early_stopping_round": "⟨early_stopping⟩",
    "early_stopping_rounds": "⟨early_stopping⟩",
    "objective": "⟨objectives⟩",
    "eval_at": "always 10: NDCG@10 is the study's measure",
    "cutoff": "always 10: NDCG@10 is the study's measure",
    "metric": "always NDCG@10: early stopping, curves.csv and the tables use it",
}


_INT = re.compile(r"[-+]?\d+")
_FLOAT = re.compile(r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?")


@dataclass(frozen=True)
class Baseline:
    """One baseline of a study: a LETOR feature (1-based ``feature``) or a TREC run file (``run``).

    ``name`` is ``F<n>`` for feature n, else the run file's name without ``.run``/``.gz`` suffixes, each
    run of white space as ``_`` (the name is a TREC run tag); ``digest`` is the run file's sha256 (the
    task cache key holds it, not the path).
    """

    name: str
    feature: int | None = None
    run: str | None = None
    digest: str = ""

    def describe(self) -> str:
        """``feature 25`` or ``run file /path/sys.run.gz``: what the baseline is, for messages."""
        return f"feature {self.feature}" if self.run is None else f"run file {self.run}"


@dataclass(frozen=True)
class LearnSettings:
    """Every setting of a learning study that decides its results; the one source of their defaults.

    Build one with the settings to change (``LearnSettings("letor/MQ2008", baseline=25)``) and give it to
    :func:`~pyterrier_risk.risk_study`, or give these names to ``risk_study`` as keywords; the command
    line's defaults are these too. ``risk_study`` checks them (:func:`learn_settings`) and the result's
    ``settings`` is the checked copy: the baselines as :class:`Baseline`, the objectives named, and the
    fields the study fills in (``user_objectives``, ``layout``, ``n_folds``, ``notes``) set. How the
    study runs (workers, a Dask cluster, the task store, progress) and how its tables are written
    (:meth:`RiskStudyResult.write`) are not settings: they change no number. See
    :func:`~pyterrier_risk.risk_study` for each setting's meaning.
    """

    data: str
    baseline: Any = None
    baselines: tuple[Any, ...] = ()
    objectives: Any = None  # names; None: every one whose baselines are given (checked: a tuple of names)
    alphas: tuple[float, ...] = DEFAULT_LEARN_ALPHAS
    seeds: tuple[int, ...] = DEFAULT_LEARN_SEEDS
    rounds: int = DEFAULT_LEARN_ROUNDS
    early_stopping: int | None = DEFAULT_EARLY_STOPPING
    params: Any = ()
    options: Any = ()
    folds: int | None = None
    split_seed: int = DEFAULT_SPLIT_SEED
    eval_alpha: float = EVAL_ALPHA
    threads: int = DEFAULT_LEARN_THREADS
    imports: tuple[str, ...] = field(default=())
    user_objectives: tuple[tuple[str, str, str], ...] = field(default=())
    layout: str = ""  # how the folds were found (set once they are: risk_study)
    n_folds: int = 0
    notes: tuple[str, ...] = field(default=())  # what the study noticed in its inputs (settings.json)
    measure: str = "ndcg"  # a key of LEARN_MEASURES: the tables' measure and early stopping's
    learner: str = "lambdamart"  # or "neural" (engine/_neural.py)
    device: str | None = None  # the neural learner's device (None for LightGBM)
    feature_names: str | None = None  # a file naming the features (read into the baselines' names)

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
        del out["feature_names"]  # read into the baselines' names
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


def _check_param(name: str, text: str) -> None:
    """A parameter the study sets itself, or one LightGBM does not know, is an error naming it."""
    canonical = lightgbm_parameter_name(name)
    if canonical is None:
        table: Mapping[str, tuple[str, ...]] = lightgbm_parameters() or {}
        known = sorted({alias for names in table.values() for alias in names})
        close = difflib.get_close_matches(name, known, n=1)
        hint = f" (did you mean {close[0]}?)" if close else ""
        raise SettingError(f"⟨params⟩ {text}: LightGBM {_lightgbm_version()} has no parameter {name!r}{hint}")
    reason = _STUDY_PARAMS.get(canonical) or _STUDY_PARAMS.get(name) or _STUDY_PARAMS.get(
        CONSTRUCTOR_ALIASES.get(name, ""))
    if reason:
        same = "" if canonical == name else f", LightGBM's {canonical}"
        raise SettingError(f"⟨params⟩ {name}{same}: the study sets it ({reason})")


def _lightgbm_version() -> str:
    import lightgbm

    return str(lightgbm.__version__)


def parse_param(text: str) -> tuple[str, Any]:
    """``name=value`` as LightGBM parses it: true/false, integers, floats, comma lists, else text.

    Raises:
        SettingError: no ``=``, an empty name or value, a parameter the study sets itself (or an alias
            of one, from LightGBM's own table), or a name LightGBM does not know.
    """
    name, value = _name_value(text, "params")
    _check_param(name, name)
    return name, value


def _name_value(text: str, what: str) -> tuple[str, Any]:
    """``name=value`` split and its value read as LightGBM reads it."""
    name, sep, raw = str(text).partition("=")
    name, raw = name.strip(), raw.strip()
    if not sep or not name or not raw:
        raise SettingError(f"⟨{what}⟩ {text!r}: expected name=value, e.g. "
                           f"{'learning_rate=0.05' if what == 'params' else 'risk_norm=weighted'}")
    parts = [p.strip() for p in raw.split(",")]
    if len(parts) > 1:
        return name, [_value(p) for p in parts]
    return name, _value(raw)


def _as_params(params: Any, what: str, lightgbm: bool = True) -> tuple[tuple[str, Any], ...]:
    """A mapping or ``name=value`` strings as sorted (name, value) pairs.

    ``params`` of the LightGBM learner (``lightgbm``) are checked against LightGBM's parameter table; the
    neural learner checks its own (``check_neural_models``).
    """
    if params is None:
        return ()
    if isinstance(params, dict):
        pairs = list(params.items())
    elif isinstance(params, (str, bytes)):
        raise SettingError(f"⟨{what}⟩ must be a dict or a list of name=value strings, got {params!r}")
    else:
        pairs = [_name_value(p, what) if isinstance(p, str) else tuple(p) for p in params]
    for name, _ in pairs:
        if what == "params" and lightgbm:
            _check_param(str(name), str(name))
    return tuple(sorted((str(k), tuple(v) if isinstance(v, list) else v) for k, v in pairs))


def _run_tag(path: Path) -> str:
    """The run file's name without compression and extension suffixes, as one word (a TREC run tag)."""
    name = path.name
    for suffix in (".gz", ".bz2", ".xz", ".run", ".txt", ".res"):
        name = name.removesuffix(suffix)
    return "_".join(name.split()) or "run"


def _baseline(spec: Any, key: str) -> Baseline:
    """A feature number (an int or digits, 1-based) or a run file as a :class:`Baseline`."""
    import hashlib

    if isinstance(spec, bool):
        raise SettingError(f"⟨{key}⟩ {spec!r}: expected a feature number (from 1) or a TREC run file")
    if isinstance(spec, int) or (isinstance(spec, str) and spec.isascii() and spec.isdigit()):
        number = int(spec)
        if number < 1:
            raise SettingError(f"⟨{key}⟩ feature {number}: feature numbers start at 1 (as the LETOR file's)")
        return Baseline(f"F{number}", feature=number)
    path = Path(os.fspath(spec))
    if not path.is_file():
        raise SettingError(f"⟨{key}⟩ {str(spec)!r}: neither a feature number nor a run file")
    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    return Baseline(_run_tag(path), run=str(path.resolve()), digest=digest)


def _distinct_names(single: Baseline | None, multiple: tuple[Baseline, ...]) -> None:
    """Two different baselines with one name would be one column: an error naming both."""
    seen: dict[str, Baseline] = {}
    for b in ([] if single is None else [single]) + list(multiple):
        other = seen.setdefault(b.name, b)
        if other != b:
            raise SettingError(f"two baselines are named {b.name!r} ({other.describe()} and {b.describe()}): "
                               "each baseline's name must differ; rename a run file")


def _outside_engine() -> int:
    """The ``stacklevel`` of a warning that points at the first caller outside this package."""
    import inspect

    frame, level = inspect.currentframe(), 1
    while frame is not None and str(frame.f_globals.get("__name__", "")).startswith(__package__ or "-"):
        frame, level = frame.f_back, level + 1
    return level - 1


def _kind_labels(kind: str) -> str:
    """The labels of the registered objectives of a kind of baseline (``U-CRO, T-SARO, T-FARO``)."""
    return ", ".join(get_objective(n).label for n in objective_names(kind)) or "none registered"


def _objectives(objectives: Sequence[str] | None, single: bool, multiple: bool) -> tuple[str, ...]:
    """The objectives to train, checked against the baselines given (their ``baseline`` kind).

    The reference is always trained: listed, it is dropped with a :class:`StudyNote`; ``()`` (or the
    reference alone) trains the reference only.
    """
    if objectives is None:
        kinds = {"single": single, "multiple": multiple}
        chosen = tuple(o for o in risk_objectives() if kinds.get(get_objective(o).baseline, True))
        if not chosen:
            raise SettingError(f"no baseline given: ⟨baseline=F⟩ ({_kind_labels('single')}) and/or "
                               f"⟨baselines=[F, ...]⟩ ({_kind_labels('multiple')})")
        return chosen
    if isinstance(objectives, (str, bytes)):
        raise SettingError(f"⟨objectives⟩ must be a list of names, got {objectives!r}")
    chosen = tuple(dict.fromkeys(str(o) for o in objectives))
    for name in chosen:
        try:
            kind = get_objective(name).baseline
        except ValueError as e:
            raise StudyError(str(e)) from None
        if kind == "single" and not single:
            raise SettingError(f"objective {name!r} needs a single baseline: give ⟨baseline=F⟩")
        if kind == "multiple" and not multiple:
            raise SettingError(f"objective {name!r} needs several baselines: give ⟨baselines=[F, ...]⟩")
    if REFERENCE in chosen:
        note = StudyNote(f"⟨objectives⟩ {REFERENCE!r} is the reference every model is compared with and is "
                         "always trained (at α 0): listing it adds nothing")
        warnings.warn(note, stacklevel=_outside_engine())
    return tuple(n for n in chosen if n != REFERENCE)


def _keyed(error: Exception, key: str) -> SettingError:
    """A check's error (``'rounds must be ...'``) with its argument named by ``key``."""
    text = str(error)
    if text.startswith(key):
        return SettingError(f"⟨{key}⟩{text[len(key):]}")
    return SettingError(f"⟨{key}⟩: {text}")


def _numbers(values: Any, what: str, check: Any) -> tuple[Any, ...]:
    """A non-empty tuple of checked values, each once, in the order given."""
    values = [values] if isinstance(values, (int, float)) else list(values)
    if not values:
        raise SettingError(f"⟨{what}⟩: give at least one value")
    try:
        return tuple(dict.fromkeys(check(v) for v in values))
    except (TypeError, ValueError) as e:
        raise _keyed(e, what) from None


@overload
def _count(value: Any, name: str, *, minimum: int = 1, allow_none: Literal[False] = False) -> int: ...


@overload
def _count(value: Any, name: str, *, minimum: int = 1, allow_none: bool) -> int | None: ...


def _count(value: Any, name: str, *, minimum: int = 1, allow_none: bool = False) -> int | None:
    try:
        return check_int(value, name, minimum=minimum, allow_none=allow_none)
    except (TypeError, ValueError) as e:
        raise _keyed(e, name) from None


def _patience(value: Any) -> int | None:
    """Early stopping's patience: a count, or None, 0 or ``'none'`` for a fixed number of trees."""
    if value is None or (isinstance(value, str) and value.strip().lower() == "none"):
        return None
    if isinstance(value, str) and value.strip().isdigit():
        value = int(value)
    if isinstance(value, int) and not isinstance(value, bool) and value == 0:
        return None
    return _count(value, "early_stopping")


def _measure(value: Any) -> str:
    if value not in LEARN_MEASURES:
        raise SettingError(f"⟨measure⟩ must be one of {', '.join(LEARN_MEASURES)}, got {value!r}")
    return str(value)


def _seed(value: Any) -> int:
    """A LightGBM seed: an integer in [0, 2^31 - 1] (a larger one would wrap around to a smaller seed)."""
    seed = check_int(value, "seed", minimum=0)
    if seed > MAX_SEED:
        raise ValueError(f"seed {seed} is outside [0, {MAX_SEED}]: LightGBM's seed is a C int (a larger "
                         "seed gives the model of a smaller one)")
    return seed


def import_modules(names: Sequence[str]) -> None:
    """Import each module (a user's objectives register themselves when imported).

    Raises:
        SettingError: an empty name, or a module that cannot be imported or raises while it is (a
            syntax error included): one line naming it.
    """
    for name in names:
        if not str(name).strip():
            raise SettingError(f"⟨imports⟩ {name!r}: empty module name")
        try:
            importlib.import_module(name)
        except Exception as e:  # noqa: BLE001 - the user's module: whatever it raises is one line
            detail = " ".join(str(e).split()) or "no message"
            raise SettingError(f"⟨imports⟩ {name}: {type(e).__name__}: {detail}") from None


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


#: the settings a user gives (the rest the study fills in)
_GIVEN = ("data", "baseline", "baselines", "objectives", "alphas", "seeds", "rounds", "early_stopping",
          "params", "options", "folds", "split_seed", "eval_alpha", "threads", "imports", "measure",
          "learner", "device", "feature_names")  # fmt: skip
#: the options of the files (``RiskStudyResult.write``), no longer the study's
_OUTPUT_OPTIONS = ("format", "decimals", "test", "correction", "layout")


def learn_settings(data: Any = None, settings: LearnSettings | None = None,
                   **overrides: Any) -> LearnSettings:
    """The checked settings of :func:`~pyterrier_risk.risk_study` (before any data is read).

    ``data`` may be a :class:`LearnSettings` (then ``settings`` is not given); ``overrides`` replace
    fields of ``settings`` (default: :class:`LearnSettings`'s defaults).

    Raises:
        TypeError: a keyword that is no setting (an output option names :meth:`RiskStudyResult.write`).
        StudyError: a one-line message naming the argument and the problem (a :class:`SettingError`,
            whose :meth:`~SettingError.render` names the argument as the command line does).
    """
    if isinstance(data, LearnSettings):
        if settings is not None:
            raise TypeError("give the settings once: risk_study(settings) or risk_study(data, settings)")
        data, settings = None, data
    for key in overrides:
        if key in _OUTPUT_OPTIONS:
            raise TypeError(f"{key!r} is an output option, not a setting: give it to result.write(out, "
                            f"{key}=...) or result.tables({key}=...)")
        if key not in _GIVEN:
            raise TypeError(f"unexpected keyword argument {key!r}: not a setting of the study")
    if data is not None:
        overrides["data"] = data
    if settings is None:
        if "data" not in overrides:
            raise TypeError("the study needs its data: risk_study(data, ...) or LearnSettings(data, ...)")
        settings = LearnSettings(**overrides)
    elif not isinstance(settings, LearnSettings):
        raise TypeError(f"settings must be a LearnSettings, got {type(settings).__name__}")
    else:
        settings = dataclasses.replace(settings, **overrides)
    return _checked(settings)


def _spec(baseline: Any) -> Any:
    """A checked :class:`Baseline` as the spec it was made from (a checked settings object checked again)."""
    if isinstance(baseline, Baseline):
        return (baseline.feature if baseline.run is None else baseline.run, baseline.name)
    return baseline


def _checked(given: LearnSettings) -> LearnSettings:
    """Every field of ``given`` checked, the baselines named and the objectives resolved."""
    from ._neural import check_learner

    learner, device = check_learner(given.learner, given.device)
    if learner != "lambdamart" and given.measure == "letor":
        raise SettingError("⟨measure⟩ letor: the neural learner early-stops on NDCG@10 with gains "
                           "2^label − 1 only; use the default measure with it")
    imports = tuple(str(m) for m in given.imports)
    import_modules(imports)
    path = Path(os.fspath(given.data))
    if not path.exists():
        raise SettingError(f"⟨data⟩ {path}: LETOR data not found")
    many: Any = given.baselines
    many = [_spec(b) for b in many] if isinstance(many, (list, tuple)) else many
    single, multiple = named_baselines(_spec(given.baseline), many, given.feature_names, _baseline)
    _distinct_names(single, multiple)
    names = _objectives(given.objectives, single is not None, bool(multiple))
    return LearnSettings(
        data=str(path.resolve()), baseline=single, baselines=multiple,
        objectives=names,
        alphas=_numbers(given.alphas, "alpha", check_alpha), seeds=_numbers(given.seeds, "seeds", _seed),
        rounds=_count(given.rounds, "rounds"),
        early_stopping=_patience(given.early_stopping),
        params=_as_params(given.params, "params", learner == "lambdamart"),
        options=_as_params(given.options, "options"),
        folds=_count(given.folds, "folds", minimum=1, allow_none=True),
        split_seed=_count(given.split_seed, "split_seed", minimum=0),
        eval_alpha=_numbers([given.eval_alpha], "eval_alpha", check_alpha)[0],
        threads=_count(given.threads, "threads"),
        imports=imports, user_objectives=_user_objectives(names), measure=_measure(given.measure),
        learner=learner, device=device,
        feature_names=None if given.feature_names is None else str(given.feature_names),
    )  # fmt: skip


def baseline_ties(settings: LearnSettings) -> str:
    """The objectives' order of a baseline's tied scores: the evaluation's (ours: docno; LETOR's: rows)."""
    return "rows" if settings.measure == "letor" else "docno"


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
        raise SettingError(f"⟨options⟩ {unknown[0]}: no objective of the study has it "
                           f"({', '.join(settings.objectives)})")
    if settings.learner != "lambdamart":
        from ._neural import check_neural_models

        kinds = [(n, max(settings.alphas) if n != REFERENCE else 0.0, objective_options(settings, n))
                 for n in (REFERENCE, *settings.objectives)]  # fmt: skip
        return check_neural_models(settings, kinds, CUTOFF)
    for name in (REFERENCE, *settings.objectives):
        try:
            RiskLambdaMART(name, alpha=max(settings.alphas) if name != REFERENCE else 0.0, baseline=0,
                           baselines=[0], num_boost_round=settings.rounds,
                           early_stopping_rounds=settings.early_stopping, verbose=False,
                           stopping_measure=settings.measure, baseline_ties=baseline_ties(settings),
                           objective_params=objective_options(settings, name), **settings.lightgbm(0))
        except (TypeError, ValueError) as e:
            raise SettingError(f"{name}: {_study_words(str(e))}") from None


#: the estimator's keywords, as the study's arguments name them
_ESTIMATOR_WORDS = {"num_boost_round": "rounds", "early_stopping_rounds": "early_stopping",
                    "objective_params": "options"}


def _study_words(text: str) -> str:
    """An estimator's message with its keywords as the study's keys (``num_boost_round`` -> ``⟨rounds⟩``)."""
    words = re.compile(r"\b(" + "|".join(_ESTIMATOR_WORDS) + r")\b")
    return words.sub(lambda m: f"⟨{_ESTIMATOR_WORDS[m.group(1)]}⟩", text)
