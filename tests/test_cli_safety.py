"""What the command does when it is interrupted or cannot write, and the outputs that used to crash it.

Ctrl-C: one line ``pyterrier-risk: interrupted``, exit status 130, no output file. ``--output``
replaced whole or not at all. ``--perquery`` with BreakEven, many risk columns, a huge α.
"""

from __future__ import annotations

import io
import os
import re
import signal
import subprocess
import sys
import time
import warnings

import pandas as pd
import pytest
from helpers import data_path

from pyterrier_risk.cli import _eval, main
from pyterrier_risk.cli._common import CLIError

QRELS = "1 0 d1 1\n1 0 d2 0\n2 0 d1 0\n2 0 d3 2\n3 0 d2 1\n"
RUN = "1 Q0 d1 1 2.0 t\n1 Q0 d2 2 1.0 t\n2 Q0 d3 1 3.0 t\n2 Q0 d1 2 1.5 t\n3 Q0 d2 1 1.0 t\n"


@pytest.fixture
def small(tmp_path):
    (tmp_path / "qrels.txt").write_text(QRELS)
    (tmp_path / "a.run").write_text(RUN)
    (tmp_path / "b.run").write_text(RUN.replace("3.0", "0.5").replace("1 Q0 d2 1 1.0", "1 Q0 d9 1 1.0"))
    return tmp_path


def _argv(small, *extra):
    return ["eval", "--qrels", str(small / "qrels.txt"), str(small / "a.run"), str(small / "b.run"), *extra]


def _chained(outer, inner):
    try:
        try:
            raise inner
        except BaseException as e:
            raise outer from e
    except BaseException as e:
        return e


# -- Ctrl-C ------------------------------------------------------------------------------------------
@pytest.mark.parametrize("raised", [
    KeyboardInterrupt(),
    # PISA's C++ returns with the interrupt set: Python raises this SystemError, the interrupt as cause
    _chained(SystemError("<built-in function retrieve> returned a result with an exception set"),
             KeyboardInterrupt()),
    _chained(CLIError("ir_datasets could not load 'irds:x'"), KeyboardInterrupt()),  # a wrapped one
], ids=["plain", "pisa-systemerror", "wrapped-in-clierror"])
def test_every_interrupt_is_one_line_and_status_130(capsys, monkeypatch, small, raised):
    def interrupted(args):
        raise raised

    monkeypatch.setattr(_eval, "run_eval", interrupted)
    assert main(_argv(small)) == 130
    out, err = capsys.readouterr()
    assert err == "pyterrier-risk: interrupted\n" and out == ""


def test_an_error_that_is_not_an_interrupt_is_not_taken_for_one(monkeypatch, small):
    def failing(args):
        raise _chained(SystemError("a real bug"), ValueError("cause"))

    monkeypatch.setattr(_eval, "run_eval", failing)
    with pytest.raises(SystemError, match="a real bug"):
        main(_argv(small))


# the command as the console script runs it, with Python's own SIGINT handler (a shell may have
# started the test runner with SIGINT ignored, which children inherit), saying when main starts
_CHILD = ("import signal, sys; signal.signal(signal.SIGINT, signal.default_int_handler); "
          "from pyterrier_risk.cli import main; print('ready', file=sys.stderr, flush=True); "
          "sys.exit(main(sys.argv[1:]))")


@pytest.mark.realdata
def test_ctrl_c_while_eval_reads_19_runs_exits_130_without_output(tmp_path):
    """SIGINT at several moments of ``eval`` on the 19 TREC-7 runs (reading, evaluating, writing).

    The command was interrupted whenever it was still running when the signal was sent: it must
    then say so and leave no output; it may exit 0 only if it had finished (its output complete).
    """
    root = data_path("trec7-adhoc-terrier-runs")
    runs = sorted(str(p) for p in (root / "runs").glob("*.run.gz"))
    assert len(runs) == 19
    delays = [0.1, 0.6, 1.5]
    procs = []
    for i, delay in enumerate(delays):
        out = tmp_path / f"out{i}" / "table.csv"
        out.parent.mkdir()
        argv = ["eval", "--qrels", str(root / "qrels.adhoc.351-400.txt"), "-o", str(out), *runs]
        proc = subprocess.Popen([sys.executable, "-c", _CHILD, *argv], stderr=subprocess.PIPE, text=True)
        procs.append((proc, delay, out))
    for proc, _, _ in procs:
        assert proc.stderr.readline() == "ready\n"
    start = time.monotonic()
    interrupted = 0
    for proc, delay, out in procs:
        time.sleep(max(0.0, start + delay - time.monotonic()))
        running = proc.poll() is None and not out.exists()
        if running:
            proc.send_signal(signal.SIGINT)
        err = proc.stderr.read()
        code = proc.wait(timeout=60)
        if running:
            interrupted += 1
            assert code == 130, (delay, code, err)
            assert err.splitlines()[-1] == "pyterrier-risk: interrupted" and "Traceback" not in err, err
            assert list(out.parent.iterdir()) == []  # no output, no temporary file
        else:
            assert code == 0, err
            assert len(pd.read_csv(out)) == 19
    assert interrupted  # at least one signal came while the command ran


_SCRIPT = """import os, signal, sys
signal.signal(signal.SIGINT, signal.default_int_handler)


def interrupt_on(event, args):  # Ctrl-C while the package imports its measures (pandas, ir_measures)
    if event == "import" and str(args[0]).startswith("pyterrier_risk.measures."):
        os.kill(os.getpid(), signal.SIGINT)


sys.addaudithook(interrupt_on)
from pyterrier_risk.cli import main
sys.exit(main(["eval", "--help"]))
"""


@pytest.mark.parametrize("name", ["pyterrier-risk", "some_program.py"])
def test_ctrl_c_while_the_command_imports_the_package(tmp_path, name):
    """The console script imports the package (and its measures) before main runs: the command still
    says one line; any other program importing the package gets the KeyboardInterrupt."""
    script = tmp_path / name
    script.write_text(_SCRIPT)
    proc = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=120)
    if name == "pyterrier-risk":
        assert (proc.returncode, proc.stderr, proc.stdout) == (130, "pyterrier-risk: interrupted\n", "")
    else:
        assert proc.returncode != 0 and proc.stderr.rstrip().endswith("KeyboardInterrupt"), proc.stderr


# -- --output ----------------------------------------------------------------------------------------
def test_output_on_a_full_disk_keeps_the_previous_file(small):
    """A file-size limit (writes fail with EFBIG) stands in for a full disk: one error line, the old file."""
    import resource

    out = small / "table.csv"
    out.write_text("previous\n")
    limit = 200  # the CSV below is longer

    def limited():
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, resource.getrlimit(resource.RLIMIT_FSIZE)[1]))

    argv = _argv(small, "--measure", "P@1", "AP", "--baseline", "a", "--alpha", "0", "1", "5", "-o", str(out))
    proc = subprocess.run([sys.executable, "-m", "pyterrier_risk", *argv], capture_output=True, text=True,
                          preexec_fn=limited, timeout=120)
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr == f"pyterrier-risk: error: cannot write table to {out}: File too large\n"
    assert out.read_text() == "previous\n"
    assert sorted(p.name for p in small.iterdir()) == ["a.run", "b.run", "qrels.txt", "table.csv"]
    assert main(argv) == 0 and len(out.read_text()) > limit  # without the limit it fits


# -- --perquery and BreakEven ------------------------------------------------------------------------
def test_perquery_breakeven_alone_is_one_error_line(capsys, small):
    code = main(_argv(small, "--measure", "BreakEven(AP)", "--baseline", "a", "--perquery"))
    out, err = capsys.readouterr()
    assert code == 2 and out == ""
    assert err == ("pyterrier-risk: error: BreakEven(AP,baseline='a') has no per-topic value (Gain / Risk is "
                   "a ratio of sums over all topics): --perquery has nothing to print; add a per-topic "
                   "measure (--measure AP) or leave out --perquery\n")


def test_perquery_names_breakeven_and_what_it_prints(capsys, small):
    code = main(_argv(small, "--measure", "BreakEven(AP)", "AP", "--baseline", "a", "--perquery",
                      "--format", "csv", "--no-zrisk"))
    out, err = capsys.readouterr()
    assert code == 0, err
    assert err == ("pyterrier-risk: note: BreakEven(AP,baseline='a') has no per-topic value (Gain / Risk "
                   "is a ratio of sums over all topics): left out of --perquery, which prints per topic AP, "
                   "URisk(AP,baseline='a'), TRisk(AP,baseline='a')\n")
    table = pd.read_csv(io.StringIO(out))
    measures = set(table["measure"])
    assert "AP" in measures and not any("BreakEven" in m for m in measures)
    assert {"URisk(AP,baseline='a')", "TRisk(AP,baseline='a') T_R"} <= measures
    # the table of averages still has it
    assert main(_argv(small, "--measure", "BreakEven(AP)", "--baseline", "a", "--format", "csv")) == 0
    assert "BreakEven(AP,baseline='a')" in capsys.readouterr().out


# -- minor -------------------------------------------------------------------------------------------
def test_many_risk_columns_raise_no_pandas_warning(capsys, small):
    """Over 100 risk columns (11 α × 4 baselines × URisk, TRisk, p): the frame is built at once."""
    alphas = [str(a) for a in range(11)]
    argv = _argv(small, "--measure", "AP", "--baseline", "a", "--baselines", "mean", "median", "max",
                 "--alpha", *alphas, "--format", "csv")
    with warnings.catch_warnings():
        warnings.simplefilter("error", pd.errors.PerformanceWarning)
        assert main(argv) == 0
    table = pd.read_csv(io.StringIO(capsys.readouterr().out))
    assert table.shape[1] > 100


def test_an_overflow_at_a_huge_alpha_is_one_error_line_without_numpy_warnings(capsys, small):
    """numpy's overflow warnings (a source path and line) used to come before the command's own error."""
    lines = [f"{q} Q0 d{d} {d} {9 - d} t\n" for q in (1, 2, 3) for d in (1, 2, 3)]
    (small / "three.run").write_text("".join(lines))
    argv = ["eval", "--qrels", str(small / "qrels.txt"), "--measure", "NumRet", "--baseline", "three",
            str(small / "three.run"), str(small / "b.run")]
    for alpha, code in [("1.7e308", 2), ("1e300", 0)]:
        with warnings.catch_warnings():
            warnings.simplefilter("error", RuntimeWarning)
            assert main([*argv, "--alpha", alpha]) == code
        err = capsys.readouterr().err
        if code == 2:
            assert err.count("\n") == 1 and "overflows float64" in err, err


def test_huge_values_are_printed_in_scientific_notation(capsys, small):
    argv = _argv(small, "--measure", "P@1", "--baseline", "a", "--alpha", "1e300", "--layout", "wide")
    assert main(argv) == 0
    text, _ = capsys.readouterr()
    rows = [line for line in text.splitlines() if line.startswith("|")][2:]  # below the header
    cells = [c.strip() for line in rows for c in line.split("|")]
    assert max(map(len, cells)) <= 12, max(cells, key=len)  # a fixed-point -1e300 has 301 digits
    assert main([*argv, "--format", "csv"]) == 0
    table = pd.read_csv(io.StringIO(capsys.readouterr().out)).set_index("name")
    urisk = table.loc["b", "URisk(P@1,alpha=1e+300,baseline='a')"]
    assert urisk < -1e16
    assert f"{urisk:.4e}" in text  # the same number, 4 decimals of its mantissa
    assert re.search(r"\| +0\.0000 \|", text)  # small values keep the fixed form


def _no_temporary_files(folder):
    return [p for p in folder.rglob("*") if p.name.endswith(".tmp")]


def test_plots_and_output_leave_no_temporary_files(capsys, small):
    pytest.importorskip("matplotlib")
    argv = _argv(small, "--measure", "AP", "--baseline", "a", "--plots", str(small / "plots"), "-o",
                 str(small / "t.md"))
    assert main(argv) == 0, capsys.readouterr().err
    assert (small / "t.md").read_text().startswith("| name")
    assert sorted(os.listdir(small / "plots")) and not _no_temporary_files(small)
