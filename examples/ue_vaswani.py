"""UE-normalised nDCG@10 of BM25 on Vaswani, whose qrels list only relevant documents.

Every one of Vaswani's 2,083 judgments is relevant. With ``pool='qrels'`` a random ordering of a
topic's judged documents is therefore ideal (REB = IUB): V2 is nDCG@10 - 1 on every topic and calls
BM25 far worse than random, and ``UE`` warns about it. ``pool='run'`` compares BM25 with a random
ordering of what it retrieved (docs/ue.md, "Which pool?").

    python examples/ue_vaswani.py [--index DIR]

Needs pyterrier-pisa (it indexes the 11,429 documents in a few seconds) and the offline ir_datasets
home of ``$PYTERRIER_RISK_DATA/ir_datasets_home`` (copied to a temporary folder: ir_datasets writes
to its home).
"""

from __future__ import annotations

import argparse
import os
import shutil
import tempfile
import warnings
from pathlib import Path

DATA = Path(os.environ.get("PYTERRIER_RISK_DATA", Path(__file__).resolve().parents[2] / "shared" / "data"))


def _offline_home(folder: Path) -> None:
    if "IR_DATASETS_HOME" in os.environ:
        return
    home = folder / "irds-home"
    shutil.copytree(DATA / "ir_datasets_home", home)
    for path in [home, *home.rglob("*")]:
        path.chmod(path.stat().st_mode | 0o200)
    os.environ["IR_DATASETS_HOME"] = str(home)


def main() -> None:
    """Index Vaswani with PISA, retrieve with BM25 and print nDCG@10 and its UE forms for both pools."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--index", type=Path, default=None, help="PISA index folder (default: temporary)")
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="ue-vaswani-"))
    _offline_home(work)
    import pyterrier as pt
    from ir_measures import nDCG
    from pyterrier_pisa import PisaIndex

    import pyterrier_risk as ptr

    dataset = pt.get_dataset("irds:vaswani")
    index_dir = args.index or work / "pisa"
    index = PisaIndex(str(index_dir), text_field="text")
    if not index.built():
        index.index(dataset.get_corpus_iter(verbose=False))
    bm25 = index.bm25(num_results=1000)
    measures = [nDCG @ 10, ptr.UE(nDCG @ 10), ptr.UE(nDCG @ 10, variant="V2"),
                ptr.UE(nDCG @ 10, pool="run"), ptr.UE(nDCG @ 10, variant="V2", pool="run")]  # fmt: skip
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        table = ptr.Experiment([bm25], dataset.get_topics(), dataset.get_qrels(), measures, names=["BM25"])
    print(f"{'measure':42s} {'BM25':>7s}")
    for m in measures:
        print(f"{m!s:42s} {table.loc[0, str(m)]:7.4f}")
    shown = {str(w.message).split(":", 1)[1] for w in caught if "all relevant" in str(w.message)}
    for message in sorted(shown):
        print(f"warning (pool='qrels'):{message}")
    shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
