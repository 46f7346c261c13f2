"""The method advisor on the built-in data sets: the user guide's table.

Runs ``sklearn_eval.advise(..., random_state=0)`` (5 folds) on each built-in
data set and prints the recommendation, whether it is "cannot tell", the
candidates' held-out log-likelihoods and the explanation: the facts behind the
table "The built-in data sets" of the user guide page "Which method fits my
data" (``docs/user_guide/advisor.rst``). Run from the repository root::

    PYTHONPATH=$PWD python benchmarks/bench_advice_datasets.py
    PYTHONPATH=$PWD python benchmarks/bench_advice_datasets.py --datasets helm_lite,mmlu

Data sets: ``arena``, ``vicuna80``, ``football``, ``world_cup``, ``atari``,
``chembench``, ``helm_lite``, ``mmlu``, ``soccer``, ``rrps``.
"""

import argparse
import time
import warnings

import pandas as pd

from sklearn_eval import advise
from sklearn_eval.datasets import (
    load_atari,
    load_chatbot_arena,
    load_chembench,
    load_international_football,
    load_leaderboard,
    load_rrps,
    load_soccer,
    load_vicuna80,
)


def _votes(bunch):
    return {"X": bunch.data, "y": bunch.target,
            "sample_weight": getattr(bunch, "sample_weight", None)}


def _matrix(bunch):
    return {"X": bunch.data}


DATASETS = {
    "arena": lambda: _votes(load_chatbot_arena()),
    "vicuna80": lambda: _votes(load_vicuna80()),
    "football": lambda: _votes(load_international_football()),
    "world_cup": lambda: _votes(load_international_football("world_cup")),
    "atari": lambda: _matrix(load_atari("noop_matrix", as_frame=True)),
    "chembench": lambda: _matrix(load_chembench(as_frame=True)),
    "helm_lite": lambda: _matrix(load_leaderboard("helm_lite", as_frame=True)),
    "mmlu": lambda: _matrix(load_leaderboard("mmlu", as_frame=True)),
    "soccer": lambda: _matrix(load_soccer(as_frame=True)),
    "rrps": lambda: _matrix(load_rrps(as_frame=True)),
}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--datasets", default=",".join(DATASETS))
    args = parser.parse_args()
    for name in args.datasets.split(","):
        data = DATASETS[name.strip()]()
        start = time.process_time()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            advice = advise(**data, random_state=0)
        print(f"=== {name}: {advice.kind}, "
              f"{time.process_time() - start:.1f} s CPU")
        print(f"recommendation: {advice.recommendation!r}"
              f"{', cannot tell' if advice.cannot_tell else ''}")
        if advice.candidates is not None:
            with pd.option_context("display.width", 200, "display.precision", 4,
                                   "display.max_colwidth", 60):
                print(advice.candidates.drop(columns="estimator"))
        print(advice.explain(), flush=True)
        print()


if __name__ == "__main__":
    main()
