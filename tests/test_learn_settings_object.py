"""``risk_study`` takes its settings as a ``LearnSettings`` (issue 30 item 5).

One source per default (the fields'), the tables' options on the writer, a task store apart from the
results folder, and errors in the words of the interface in use.
"""

from __future__ import annotations

import dataclasses

import pytest
from _learn_data import partitions

import pyterrier_risk as ptr
from pyterrier_risk.cli import main
from pyterrier_risk.engine import (
    DEFAULT_EARLY_STOPPING,
    DEFAULT_LEARN_ALPHAS,
    DEFAULT_LEARN_ROUNDS,
    DEFAULT_LEARN_SEEDS,
    LearnSettings,
    RiskStudyResult,
    StudyError,
)

RUN = {"progress": False, "workers": 1}


@pytest.fixture(scope="module")
def data(tmp_path_factory):
    return partitions(tmp_path_factory.mktemp("letor") / "parts", parts=3, queries=6)


@pytest.fixture(scope="module")
def settings(data):
    return LearnSettings(str(data), baseline=1, objectives=("urisk",), alphas=(5.0,), rounds=3,
                         early_stopping=None)


@pytest.fixture(scope="module")
def by_keywords(data):
    return ptr.risk_study(data, baseline=1, objectives=["urisk"], alphas=[5], rounds=3, early_stopping=None,
                          **RUN)


def test_a_settings_object_gives_the_study_of_its_keywords(settings, by_keywords):
    result = ptr.risk_study(settings, **RUN)
    assert result.settings == by_keywords.settings
    assert result.per_query.equals(by_keywords.per_query)
    # the keywords replace the object's fields
    again = ptr.risk_study(dataclasses.replace(settings, rounds=50), rounds=3, **RUN)
    assert again.per_query.equals(by_keywords.per_query)


def test_the_defaults_are_the_fields_defaults(data, capsys):
    fields = {f.name: f.default for f in dataclasses.fields(LearnSettings)}
    checked = LearnSettings(str(data))
    assert (checked.alphas, checked.seeds, checked.rounds, checked.early_stopping) == (
        fields["alphas"], fields["seeds"], fields["rounds"], fields["early_stopping"]) == (
        DEFAULT_LEARN_ALPHAS, DEFAULT_LEARN_SEEDS, DEFAULT_LEARN_ROUNDS, DEFAULT_EARLY_STOPPING)
    with pytest.raises(SystemExit):  # the command shows (and uses) the same defaults
        main(["learn", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "(default 1 5 10)" in text and "(default 300)" in text and "(default 20)" in text


@pytest.mark.parametrize("option", ["format", "decimals", "test", "correction", "layout"])
def test_output_options_are_the_writers(data, option):
    with pytest.raises(TypeError, match=f"'{option}' is an output option, not a setting: give it to "
                                        r"result.write\(out"):
        ptr.risk_study(data, baseline=1, **{option: None}, **RUN)
    with pytest.raises(TypeError, match="unexpected keyword argument 'round'"):
        ptr.risk_study(data, baseline=1, round=3, **RUN)


def test_the_store_is_apart_from_the_results(settings, by_keywords, tmp_path):
    result = ptr.risk_study(settings, store=tmp_path / "cache", out=tmp_path / "out", **RUN)
    assert len(list((tmp_path / "cache" / "tasks").iterdir())) == len(result.models)
    assert not (tmp_path / "out" / "tasks").exists() and (tmp_path / "out" / "per_query.csv").exists()
    assert result.out == tmp_path / "out" and result.per_query.equals(by_keywords.per_query)
    only = ptr.risk_study(settings, store=tmp_path / "cache", **RUN)  # the stored tasks, no result files
    assert only.out is None and only.per_query.equals(by_keywords.per_query)


def test_errors_name_python_arguments_and_the_command_its_flags(data, capsys):
    with pytest.raises(StudyError, match="^workers must be an integer >= 1, got 0"):
        ptr.risk_study(data, baseline=1, workers=0, progress=False)
    with pytest.raises(StudyError, match="^worker_timeout must be a number of seconds > 0"):
        ptr.risk_study(data, baseline=1, worker_timeout=0, **RUN)
    with pytest.raises(StudyError, match="^measure must be one of ndcg, letor"):
        ptr.risk_study(data, baseline=1, measure="map", **RUN)
    assert main(["learn", str(data), "--baseline", "1", "--workers", "0", "--no-progress"]) == 2
    assert "error: --workers must be an integer >= 1, got 0" in capsys.readouterr().err
    assert main(["learn", str(data), "--baseline", "1", "--correction", "nope", "--no-progress"]) == 2
    assert "error: --correction nope:" in capsys.readouterr().err


def test_the_command_computes_the_tables_once_with_out(data, tmp_path, monkeypatch, capsys):
    calls = []
    tables = RiskStudyResult.tables

    def counted(self, **options):
        calls.append(options)
        return tables(self, **options)

    monkeypatch.setattr(RiskStudyResult, "tables", counted)
    status = main(["learn", str(data), "--baseline", "1", "--objective", "urisk", "--alpha", "5", "--rounds",
                   "3", "--early-stopping", "none", "--workers", "1", "--no-progress", "--out",
                   str(tmp_path / "out"), "--layout", "paper"])
    printed = capsys.readouterr().out
    assert status == 0 and len(calls) == 1 and calls[0]["layout"] == "paper"
    assert (tmp_path / "out" / "tables.md").read_text(encoding="utf-8") == printed
