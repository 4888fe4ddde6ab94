"""Time and peak memory of ``pyterrier-risk eval`` against ir_measures, measured in the same run.

Issue 11 item 7. Three parts (``--part``, default all):

``trec7``
    The 19 TREC-7 runs of the shared data (~886k lines), nDCG@20 and ERR@20: the ``eval`` command
    against ir_measures reading the same files in one process. Target: ``eval`` <= 1.3x.
``big``
    One synthetic run of ``--topics`` x ``--docs`` results (default 10,000 x 1,000, written to a
    temporary folder; qrels: ``--judged`` judgments per topic, half of them retrieved), nDCG@20.
    Target: <= 1.3x in time and <= 1.5x in peak memory.
``read``
    ``read_run``/``read_qrels`` against ``pandas.read_csv`` (whitespace separated, the same column
    names and dtypes), in one process, interleaved: the target is pandas speed.

Every side of ``trec7`` and ``big`` runs in its own process (peak memory is that process's
``VmHWM``); each is run ``--repeats`` times, interleaved, and the best time is kept (other
processes on the machine slow all sides alike). The sides:

* ``eval``: ``pyterrier_risk.cli.main(["eval", ...])`` (the command; its table goes to a CSV file);
* ``ours``: ``read_qrels`` + ``read_run`` + ``topic_matrices`` (the evaluation path of ``eval``);
* ``ref-pandas``: ``pandas.read_csv`` + ``ir_measures.calc_aggregate`` per run (the issue's reference);
* ``ref-evaluator``: ``pandas.read_csv`` + one ``ir_measures.evaluator``, ``calc_aggregate`` per run;
* ``ref-reader``: ir_measures' own readers (``read_trec_qrels``, ``read_trec_run``, streamed) +
  ``ir_measures.calc_aggregate`` per run.

"process" is the wall time of the whole process (interpreter start and imports included);
"in-process" leaves out the start and the imports. Every side's means are compared (they must
agree to 1e-9) before any ratio is printed.

    python benchmarks/bench_eval.py [--part trec7 big read] [--repeats 3] [--topics 10000] [--docs 1000]
"""

from __future__ import annotations

import argparse
import glob
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
DATA = Path(os.environ.get("PYTERRIER_RISK_DATA", REPO.parent / "shared" / "data"))
TREC7 = DATA / "trec7-adhoc-terrier-runs"
SIDES = ["eval", "ours", "ref-pandas", "ref-evaluator", "ref-reader"]
RUN_COLUMNS = ["query_id", "q0", "doc_id", "rank", "score", "tag"]
QRELS_COLUMNS = ["query_id", "iteration", "doc_id", "relevance"]


# -- the sides, each in its own process --------------------------------------------------------------
def _pandas_frames(qrels: str, runs: list[str]):
    import numpy as np
    import pandas as pd

    q = pd.read_csv(qrels, sep=r"\s+", header=None, names=QRELS_COLUMNS,
                    dtype={"query_id": object, "doc_id": object, "relevance": np.int64})
    for path in runs:
        yield q, path, pd.read_csv(path, sep=r"\s+", header=None, names=RUN_COLUMNS,
                                   dtype={"query_id": object, "doc_id": object, "score": np.float64})


def _side(name: str, qrels: str, measures: list[str], runs: list[str], out: str) -> dict[str, dict]:
    """Mean of each measure for each run, computed the way side ``name`` does."""
    import ir_measures

    parsed = [ir_measures.parse_measure(m) for m in measures]
    means: dict[str, dict[str, float]] = {}
    if name in ("ref-pandas", "ref-evaluator"):
        evaluator = None
        for q, path, run in _pandas_frames(qrels, runs):
            if name == "ref-evaluator":
                evaluator = evaluator or ir_measures.evaluator(parsed, q)
                values = evaluator.calc_aggregate(run)
            else:
                values = ir_measures.calc_aggregate(parsed, q, run)
            means[path] = {str(m): float(v) for m, v in values.items()}
    elif name == "ref-reader":
        q = list(ir_measures.read_trec_qrels(qrels))
        for path in runs:
            values = ir_measures.calc_aggregate(parsed, q, ir_measures.read_trec_run(path))
            means[path] = {str(m): float(v) for m, v in values.items()}
    elif name == "ours":
        from pyterrier_risk.data import read_qrels, read_run
        from pyterrier_risk.measures._topics import topic_matrices

        q = read_qrels(qrels)
        frames = {path: read_run(path) for path in runs}
        for m, matrix in topic_matrices(frames, q, parsed).items():
            for path in runs:
                means.setdefault(path, {})[str(m)] = float(matrix.loc[path].mean())
    else:  # the command
        import pandas as pd

        from pyterrier_risk.cli import main
        from pyterrier_risk.data._trec import run_name

        code = main(["eval", "--qrels", qrels, "--measure", *measures, "--format", "csv", "--round", "17",
                     "--output", out, "--", *runs])
        if code != 0:
            raise SystemExit(f"eval failed with status {code}")
        table = pd.read_csv(out).set_index("run")
        means = {path: {m: float(table.loc[run_name(path), m]) for m in measures} for path in runs}
    return means


def child(args: argparse.Namespace) -> None:
    """Run one side (``--child``) and print its in-process time and means as JSON."""
    start = time.perf_counter()
    if args.child.startswith("ref"):
        import ir_measures  # noqa: F401 - imports are not the in-process time
        import pandas  # noqa: F401
    else:
        import ir_measures  # noqa: F401
        import pandas  # noqa: F401

        import pyterrier_risk.cli  # noqa: F401
    imported = time.perf_counter()
    means = _side(args.child, args.qrels, args.measure, args.runs, args.out)
    done = time.perf_counter()
    print(json.dumps({"imports": imported - start, "inproc": done - imported, "means": means,
                      "rss": _peak_rss()}))


def _peak_rss() -> int:
    """This process's peak resident memory in bytes: ``VmHWM`` of ``/proc/self/status`` on Linux.

    Not ``ru_maxrss``: a child started by ``vfork`` + ``exec`` inherits its parent's high-water mark
    there, so a large parent would inflate every side.
    """
    try:
        with open("/proc/self/status") as fh:
            for line in fh:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


def _run_side(name: str, qrels: str, measures: list[str], runs: list[str], folder: str) -> dict:
    """One side in a fresh process: its wall time, peak memory (bytes), in-process time and means."""
    cmd = [sys.executable, __file__, "--child", name, "--qrels", qrels, "--out",
           os.path.join(folder, "table.csv"), "--measure", *measures, "--runs", *runs]
    start = time.perf_counter()
    with tempfile.TemporaryFile() as out:
        code = subprocess.call(cmd, stdout=out, stderr=subprocess.DEVNULL,
                               env={**os.environ, "PYTHONWARNINGS": "ignore"})
        wall = time.perf_counter() - start
        out.seek(0)
        text = out.read().decode()
    if code != 0:
        raise SystemExit(f"side {name} failed (status {code}): {' '.join(cmd)}\n{text}")
    return {"wall": wall, **json.loads(text.strip().splitlines()[-1])}


def compare(title: str, qrels: str, measures: list[str], runs: list[str], repeats: int, folder: str,
            sides: list[str]) -> dict[str, dict]:
    """Run the sides ``repeats`` times, interleaved; print the best times, peak memory and ratios."""
    best: dict[str, dict] = {}
    for _ in range(repeats):
        for name in sides:
            r = _run_side(name, qrels, measures, runs, folder)
            b = best.setdefault(name, r)
            for key in ("wall", "inproc", "rss"):
                b[key] = min(b[key], r[key])
    _check_agreement(best)
    refs = [best[name] for name in sides if name.startswith("ref")]
    top = {key: min(r[key] for r in refs) for key in ("wall", "inproc", "rss")}
    print(f"\n## {title}: {len(runs)} run(s), {', '.join(measures)}; best of {repeats}\n")
    print("ratios: to ref-pandas (the issue's reference) / to the best reference for that column\n")
    print("| side | process s | in-process s | peak memory GB | process | in-process | memory |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: |")
    ref = best["ref-pandas"]
    for name in sides:
        r = best[name]
        ratios = [f"{r[k] / ref[k]:.2f} / {r[k] / top[k]:.2f}" for k in ("wall", "inproc", "rss")]
        cells = [name, f"{r['wall']:.2f}", f"{r['inproc']:.2f}", f"{r['rss'] / 1e9:.2f}", *ratios]
        print(f"| {' | '.join(cells)} |")
    return best


def _check_agreement(best: dict[str, dict]) -> None:
    """Every side must give the same means (else a ratio would compare different work)."""
    first_name, first = next(iter(best.items()))
    for name, r in best.items():
        for path, values in first["means"].items():
            for m, v in values.items():
                got = r["means"][path][m]
                if abs(got - v) > 1e-9:
                    raise SystemExit(f"{name} and {first_name} disagree on {m} of {path}: {got} vs {v}")


# -- synthetic data ----------------------------------------------------------------------------------
def write_synthetic(folder: Path, topics: int, docs: int, judged: int, seed: int = 0) -> tuple[str, str]:
    """A run of ``topics`` x ``docs`` results and qrels of ``judged`` documents per topic (half retrieved).

    Labels 0-2 (P = .6, .2, .2); document ids like ``doc-401-001234``; scores with 6 decimals, ranks
    from 0, one tag: the layout of a TREC run file.
    """
    import numpy as np

    rng = np.random.default_rng(seed)
    pool = 5 * docs
    run_path, qrels_path = folder / "synthetic.run", folder / "synthetic.qrels"
    with open(run_path, "w") as run, open(qrels_path, "w") as qrels:
        for t in range(topics):
            qid = str(401 + t)
            picked = rng.choice(pool, docs, replace=False)
            scores = np.sort(rng.random(docs) * 30)[::-1]
            run.write("".join(f"{qid} Q0 doc-{qid}-{d:06d} {r} {s:.6f} synth\n"
                              for r, (d, s) in enumerate(zip(picked.tolist(), scores.tolist(), strict=True))))
            judged_docs = np.unique(np.concatenate([picked[: judged // 2], rng.choice(pool, judged // 2)]))
            labels = rng.choice([0, 0, 0, 1, 2], judged_docs.size)
            qrels.write("".join(f"{qid} 0 doc-{qid}-{d:06d} {lab}\n"
                                for d, lab in zip(judged_docs.tolist(), labels.tolist(), strict=True)))
    return str(run_path), str(qrels_path)


# -- reading, in process -----------------------------------------------------------------------------
def bench_read(label: str, runs: list[str], qrels: str, repeats: int) -> None:
    """``read_run``/``read_qrels`` against ``pandas.read_csv`` (same names and dtypes), interleaved."""
    import numpy as np
    import pandas as pd

    from pyterrier_risk.data import read_qrels, read_run

    def pandas_runs():
        for p in runs:
            pd.read_csv(p, sep=r"\s+", header=None, names=RUN_COLUMNS,
                        dtype={"query_id": object, "doc_id": object, "score": np.float64})

    def pandas_qrels():
        pd.read_csv(qrels, sep=r"\s+", header=None, names=QRELS_COLUMNS,
                    dtype={"query_id": object, "doc_id": object, "relevance": np.int64})

    cases = {"read_run": lambda: [read_run(p) for p in runs], "pandas runs": pandas_runs,
             "read_qrels": lambda: read_qrels(qrels), "pandas qrels": pandas_qrels}
    best = {name: float("inf") for name in cases}
    cpu = dict(best)
    for _ in range(repeats):
        for name, func in cases.items():
            w, c = time.perf_counter(), time.process_time()
            func()
            best[name] = min(best[name], time.perf_counter() - w)
            cpu[name] = min(cpu[name], time.process_time() - c)
    print(f"\n## reading {label}; best of {repeats}\n")
    print("| reader | wall s | CPU s | ratio to pandas (wall) | ratio to pandas (CPU) |")
    print("| --- | ---: | ---: | ---: | ---: |")
    for ours, ref in [("read_run", "pandas runs"), ("read_qrels", "pandas qrels")]:
        for name in (ref, ours):
            print(f"| {name} | {best[name]:.2f} | {cpu[name]:.2f} | {best[name] / best[ref]:.2f} | "
                  f"{cpu[name] / cpu[ref]:.2f} |")


# -- main --------------------------------------------------------------------------------------------
def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parts = ["trec7", "big", "read"]
    parser.add_argument("--part", nargs="+", choices=parts, default=parts)
    parser.add_argument("--repeats", type=int, default=3, help="runs of each side (TREC-7 and reading)")
    parser.add_argument("--big-repeats", type=int, default=1, help="runs of each side on the synthetic run")
    parser.add_argument("--topics", type=int, default=10_000)
    parser.add_argument("--docs", type=int, default=1000)
    parser.add_argument("--judged", type=int, default=100)
    parser.add_argument("--sides", nargs="+", choices=SIDES, default=SIDES)
    parser.add_argument("--child", choices=SIDES, help=argparse.SUPPRESS)
    parser.add_argument("--qrels", help=argparse.SUPPRESS)
    parser.add_argument("--measure", nargs="+", help=argparse.SUPPRESS)
    parser.add_argument("--runs", nargs="+", help=argparse.SUPPRESS)
    parser.add_argument("--out", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args)
        return
    sides = [s for s in SIDES if s in args.sides or s == "ref-pandas"]
    trec7_runs = sorted(glob.glob(str(TREC7 / "runs" / "*.run.gz")))
    trec7_qrels = str(TREC7 / "qrels.adhoc.351-400.txt")
    print(f"python {sys.version.split()[0]}, {os.cpu_count()} CPUs, load average "
          f"{' '.join(f'{x:.1f}' for x in os.getloadavg())}")
    folder = Path(tempfile.mkdtemp(prefix="bench-eval-"))
    try:
        if "trec7" in args.part:
            compare("TREC-7", trec7_qrels, ["nDCG@20", "ERR@20"], trec7_runs, args.repeats, str(folder),
                    sides)
        if "big" in args.part or "read" in args.part:
            start = time.perf_counter()
            run, qrels = write_synthetic(folder, args.topics, args.docs, args.judged)
            print(f"\nsynthetic run: {args.topics:,} topics x {args.docs:,} documents "
                  f"({os.path.getsize(run) / 1e6:.0f} MB; written in {time.perf_counter() - start:.0f} s)")
            if "big" in args.part:
                compare(f"{args.topics:,} topics x {args.docs:,} documents", qrels, ["nDCG@20"], [run],
                        args.big_repeats, str(folder), sides)
            if "read" in args.part:
                bench_read("the 19 TREC-7 runs (gzip) and their qrels", trec7_runs, trec7_qrels, args.repeats)
                bench_read("the synthetic run and qrels (plain text)", [run], qrels, max(1, args.big_repeats))
    finally:
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
