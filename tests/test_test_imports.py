"""The tests use the package through its public doors (issue 30, item 7).

A test imports a name from the top level ``pyterrier_risk`` or from a layer's package
(``pyterrier_risk.<layer>``, including the ``_INTERNAL`` helpers a package hands to the other layers),
never from a private module (``pyterrier_risk.<layer>._module``), unless it tests an internal that has
no public name: a numba kernel, a parser's fast path, a private chunk size it monkeypatches. Those
imports are listed once, here, each with its reason; a new private import fails until it is listed,
an entry that no longer matches an import fails, and an entry whose name has become public fails (use
the public name). Test files import plain helpers from ``tests/helpers.py`` (pytest's ``prepend``
import mode puts ``tests/`` on ``sys.path``), never from ``conftest.py``, and never edit ``sys.path``.
"""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

import pytest
from helpers import REPO

TESTS = REPO / "tests"
#: the packages whose names are public: the top level, each layer, the objectives' extension point
EDITS = ("sys.path.insert", "sys.path.append")
PUBLIC_PACKAGES = ["pyterrier_risk", *(f"pyterrier_risk.{p.parent.name}" for p in
                                       sorted((REPO / "pyterrier_risk").glob("*/__init__.py"))),
                   "pyterrier_risk.learning.objectives"]  # fmt: skip

_CHUNKS = "monkeypatches a private chunk size, to check that chunking changes nothing"
_KERNEL = "tests a numba kernel or the pair loop directly"
_GEORISK = "GeoRisk's per-round numbers, checked against an independent computation"
_STORE = "the task store's codec and typed results (no public name)"
_CODE = "the code digest a worker checks (no public name)"
_PARSER = "the CLI's argument parser, compared with the Python signature"
_REPORT = "the demo report's text builders"
_TREC = "the TREC readers' fast and strict paths and their private helpers"
_LETOR = "the LETOR reader's fast and strict paths"
_MODELTEXT = "the checker of a saved model.txt"

#: test file -> {the dotted name it imports privately: why}
ALLOWED: dict[str, dict[str, str]] = {
    "test_baseline_sensitivity.py": {"pyterrier_risk.core._sensitivity": _CHUNKS},
    "test_cli.py": {"pyterrier_risk.study._plots": "monkeypatches the plot call eval --plots shares"},
    "test_cli_features.py": {
        "pyterrier_risk.cli._args.arrange_eval_argv": "the rule that lets runs come anywhere on the line",
        "pyterrier_risk.cli._main._parser": _PARSER,
    },
    "test_cli_safety.py": {
        "pyterrier_risk.cli._common.CLIError": "the CLI's internal error, which main turns into exit 2",
        "pyterrier_risk.cli._eval": "monkeypatches run_eval to interrupt it",
    },
    "test_demo.py": {
        "pyterrier_risk.reporting._plots._wrap": "the plots' label wrapping",
        "pyterrier_risk.study._collection": "monkeypatches pisa_systems to interrupt retrieval",
        "pyterrier_risk.study._collection.build_index": "the index lock and its leftovers",
        "pyterrier_risk.study._collection.system_score_features": "the feature columns of the systems",
        "pyterrier_risk.study._crossval._models_text": _REPORT,
        "pyterrier_risk.study._plots.tj_panels": "the T_j plot's panel layout",
        "pyterrier_risk.study._report._alpha0_text": _REPORT,
        "pyterrier_risk.study._report._breakeven_text": _REPORT,
        "pyterrier_risk.study._report._hurt_text": _REPORT,
        "pyterrier_risk.study._report._kendall_text": _REPORT,
        "pyterrier_risk.study._report.render_report": _REPORT,
        "pyterrier_risk.study._report.short_query": _REPORT,
    },
    "test_experiment.py": {
        "pyterrier_risk.experiment._compat.evaluation_tuple": "the PyTerrier compatibility shim",
        "pyterrier_risk.experiment._experiment": "monkeypatches a late step to fail after save_dir",
    },
    "test_fuzz.py": {"pyterrier_risk.data._letor": _LETOR, "pyterrier_risk.data._letor_fast": _LETOR},
    "test_hurt.py": {"pyterrier_risk.core._urisk.rounding_bound": "the float rounding bound of URisk"},
    "test_io.py": {
        "pyterrier_risk.data._trec": _TREC,
        "pyterrier_risk.data._trec._STRICT_ONLY_CHARS": _TREC,
        "pyterrier_risk.data._trec._run_columns": _TREC,
        "pyterrier_risk.data._trec.open_text": _TREC,
    },
    "test_kernel_safety.py": {
        "pyterrier_risk.learning._jit.cache_dir": "the numba cache folder's choice",
        "pyterrier_risk.learning._ndcg": _KERNEL,
        "pyterrier_risk.learning._pairloop": _KERNEL,
        "pyterrier_risk.learning.objectives._georisk.georisk_round": _GEORISK,
        "pyterrier_risk.learning.objectives._georisk.phi_table": _GEORISK,
        "pyterrier_risk.learning.objectives._georisk_kernels": _KERNEL,
    },
    "test_lambdamart.py": {
        "pyterrier_risk.learning._frames.baseline_column": "the baseline specs' resolution to a column",
        "pyterrier_risk.learning._objective": "wraps objective() to see what RiskLambdaMART passes",
    },
    "test_lambdamart_files.py": {"pyterrier_risk.learning._modeltext.check_model_text": _MODELTEXT},
    "test_lambdamart_header.py": {"pyterrier_risk.learning._modeltext.check_model_text": _MODELTEXT},
    "test_learn.py": {"pyterrier_risk.cli._main._parser": _PARSER},
    "test_learn_backends.py": {
        "pyterrier_risk.engine._pool": "monkeypatches the process pool to break it",
        "pyterrier_risk.engine._progress": "monkeypatches the progress interval",
    },
    "test_learn_defaults.py": {
        "pyterrier_risk.engine._settings.learn_settings": "the settings' defaults and checks",
        "pyterrier_risk.engine._task.per_query_ndcg": "the task's evaluation, against LETOR's",
        "pyterrier_risk.learning._ndcg.untied_scores": "the tie rule's scores",
    },
    "test_learn_inputs.py": {"pyterrier_risk.cli._learn.FLAGS": _PARSER},
    "test_learn_store.py": {
        "pyterrier_risk.engine._code": _CODE,
        "pyterrier_risk.engine._code.code_digest": _CODE,
        "pyterrier_risk.engine._code.sync_code": _CODE,
        "pyterrier_risk.engine._store.TaskStore": _STORE,
        "pyterrier_risk.engine._store.decode": _STORE,
        "pyterrier_risk.engine._store.encode": _STORE,
        "pyterrier_risk.engine._task.ReferenceResult": _STORE,
        "pyterrier_risk.engine._task.TaskResult": _STORE,
    },
    "test_letor.py": {"pyterrier_risk.data._letor": _LETOR, "pyterrier_risk.data._letor_fast": _LETOR},
    "test_letor_folds.py": {"pyterrier_risk.data._letor_folds._max_feature_index": "the features' count"},
    "test_lightgbm_params.py": {
        "pyterrier_risk.learning._lightgbm_params": "one list of LightGBM's names, shared by identity",
        "pyterrier_risk.learning._objective": "one list of LightGBM's names, shared by identity",
        "pyterrier_risk.learning.objectives._registry": "one list of LightGBM's names, shared by identity",
    },
    "test_objective.py": {
        "pyterrier_risk.learning._ndcg": _KERNEL,
        "pyterrier_risk.learning._objective._LAMBDARANK_DEFAULTS": "the driver's LightGBM defaults",
        "pyterrier_risk.learning._pairloop": _KERNEL,
        "pyterrier_risk.learning.objectives._georisk.georisk_round": _GEORISK,
        "pyterrier_risk.learning.objectives._georisk.series_coefficients": _GEORISK,
        "pyterrier_risk.learning.objectives._georisk_kernels": _KERNEL,
        "pyterrier_risk.learning.objectives._registry.RESERVED_OPTIONS": "the names an option may not take",
        "pyterrier_risk.learning.objectives._shared.alpha_prime": "T-FARO's α' (Dinçer et al.)",
        "pyterrier_risk.learning.objectives._ucro_kernel": _KERNEL,
    },
    "test_objective_risk_norm.py": {
        "pyterrier_risk.learning.objectives._georisk.georisk_ratio": _GEORISK,
        "pyterrier_risk.learning.objectives._georisk.georisk_round": _GEORISK,
    },
    "test_objective_stability.py": {
        "pyterrier_risk.learning._ndcg": _KERNEL,
        "pyterrier_risk.learning.objectives._georisk.GeoRiskRound": _GEORISK,
        "pyterrier_risk.learning.objectives._georisk.georisk_ratio": _GEORISK,
        "pyterrier_risk.learning.objectives._georisk.normal_pdf_cdf_ratio": _GEORISK,
        "pyterrier_risk.learning.objectives._georisk.phi_table": _GEORISK,
        "pyterrier_risk.learning.objectives._georisk_kernels": _KERNEL,
    },
    "test_rank_distance.py": {"pyterrier_risk.core._rankdist": _CHUNKS},
    "test_report.py": {
        "pyterrier_risk.reporting._tables.format_cell": "the tables' cell formatting",
        "pyterrier_risk.reporting._tables.latex_escape": "the tables' LaTeX escaping",
    },
    "test_significance.py": {
        "pyterrier_risk.cli._args.add_eval_arguments": "the eval flags, compared with Experiment's",
        "pyterrier_risk.core._significance": _CHUNKS,
    },
    "test_study.py": {"pyterrier_risk.study._report.objective_note": _REPORT},
    "test_ue_measure.py": {
        "pyterrier_risk.core._ue": "the measure's constants equal the core's",
        "pyterrier_risk.measures._ue": "the measure's constants equal the core's",
    },
    "test_learn_progress.py": {
        "pyterrier_risk.engine._backend": "the step channel from a task to the bar (no public name)",
        "pyterrier_risk.engine._pool": "the process pool's step queue",
        "pyterrier_risk.engine._progress": "the bar's text and its throttle (monkeypatched to 0 s)",
    },
    "test_topic_matrix.py": {
        "pyterrier_risk.measures._topics.topic_scores": "the per-topic scores' builder",
        "pyterrier_risk.measures._topics.top_depth": "which measures read only the top k",
        "pyterrier_risk.measures._topics.top_rows": "the top-k cut with its ties kept",
    },
    "test_zrisk.py": {"pyterrier_risk.core._zrisk": "monkeypatches the block size and the tiny-mass switch"},
}


def _is_private(dotted: str) -> bool:
    """A part that starts with ``_`` and is no dunder (``pyterrier_risk.__version__`` is public)."""
    return any(part.startswith("_") and not part.endswith("__") for part in dotted.split(".")[1:])


def private_imports(source: str) -> set[str]:
    """The dotted names a test file's code imports that are private modules of the package or in them."""
    found = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
            names = [f"{node.module}.{a.name}" for a in node.names]
        else:
            continue
        found |= {n for n in names if n.split(".")[0] == "pyterrier_risk" and _is_private(n)}
    return found


def unlisted(files: dict[str, str], allowed: dict[str, dict[str, str]]) -> list[str]:
    """``file: name`` of each private import not in ``allowed``, and of each entry matching no import."""
    problems = []
    for name, source in sorted(files.items()):
        found, listed = private_imports(source), set(allowed.get(name, {}))
        problems += [f"{name}: imports {n} (use a public name or list it)" for n in sorted(found - listed)]
        problems += [f"{name}: lists {n}, no longer imported (remove it)" for n in sorted(listed - found)]
    return problems


def _test_files() -> dict[str, str]:
    return {p.name: p.read_text() for p in sorted(TESTS.glob("*.py"))}


def test_private_imports_are_the_listed_ones():
    problems = unlisted(_test_files(), ALLOWED)
    assert not problems, "\n".join(problems)


def test_the_check_catches_a_new_private_import_and_a_stale_entry():
    source = "from pyterrier_risk.data._trec import read_run\nimport pyterrier_risk.core._ue as u\n"
    listed = {"test_y.py": {"pyterrier_risk.core._ue": "a reason"}}
    assert unlisted({"test_x.py": source, "test_y.py": ""}, listed) == [
        "test_x.py: imports pyterrier_risk.core._ue (use a public name or list it)",
        "test_x.py: imports pyterrier_risk.data._trec.read_run (use a public name or list it)",
        "test_y.py: lists pyterrier_risk.core._ue, no longer imported (remove it)",
    ]
    public = "from pyterrier_risk.data import read_run, run_name\nfrom pyterrier_risk import urisk\n"
    assert private_imports(public) == set()


def _public_home(dotted: str) -> str | None:
    """The public package that offers the same object under the same name, if any."""
    module, _, name = dotted.rpartition(".")
    if name.startswith("_"):
        return None
    obj = getattr(importlib.import_module(module), name)
    for package in PUBLIC_PACKAGES:
        try:
            if getattr(importlib.import_module(package), name) is obj:
                return package
        except AttributeError:
            continue
    return None


@pytest.mark.parametrize("file", sorted(ALLOWED))
def test_every_listed_import_has_a_reason_and_no_public_name(file):
    public = {n: home for n, reason in ALLOWED[file].items() if (home := _public_home(n)) is not None}
    assert not public, f"{file}: use the public names {public}"
    assert all(reason.strip() for reason in ALLOWED[file].values())


def test_tests_import_helpers_not_conftest_and_leave_sys_path_alone():
    bad = []
    for name, source in _test_files().items():
        for node in ast.walk(ast.parse(source)):
            if isinstance(node, ast.ImportFrom) and node.module == "conftest":
                bad.append(f"{name}:{node.lineno} imports from conftest (use tests/helpers.py or a fixture)")
            if isinstance(node, ast.Import) and "conftest" in {a.name for a in node.names}:
                bad.append(f"{name}:{node.lineno} imports conftest")
            if isinstance(node, ast.Call) and ast.unparse(node.func) in (EDITS):
                bad.append(f"{name}:{node.lineno} edits sys.path (use monkeypatch.syspath_prepend)")
        for needle in ("sys.path.insert(", "from conftest import"):  # also in a child process's code
            if needle in source and name != Path(__file__).name:
                bad.append(f"{name}: {needle}")
    assert not bad, "\n".join(bad)
