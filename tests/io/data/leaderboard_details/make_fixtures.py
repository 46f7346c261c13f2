"""Write the parquet details fixtures in the Open LLM Leaderboard's layouts.

Run by hand with pyarrow installed: ``python make_fixtures.py``. The tools
that write these tables (lighteval, the leaderboard's pipeline) need GPUs or
models to run, so the tables are built here with pyarrow the way the tools
build them; where each layout comes from:

``v1/``: lighteval's details, as the Open LLM Leaderboard (first version)
published them. lighteval (``src/lighteval/logging/info_loggers.py``,
``DetailsLogger.Detail``) records per document ``example``,
``instruction``, ``full_prompt``, ``num_effective_few_shots``,
``num_asked_few_shots``, ``predictions``, ``prediction_logits``,
``input_tokens``, ``cont_tokens``, ``truncated``, ``padded``, ``gold``,
``pred_logits``, ``choices``, ``gold_index``, ``metrics`` (metric name to
the document's score) and ``specifics``; ``evaluation_tracker.py``
(``save_details``) turns the list of records into a table
(``Dataset.from_list``: ``metrics`` becomes a struct column), sorts the
columns by name and writes ``details/<model>/<date>/details_<task>_<date>.parquet``
with ``<date>`` the ISO time with ``-`` for ``:``, beside
``results/<model>/results_<date>.json`` (``config_general.model_name``).
The leaderboard's details repositories (``details_<org>__<model>``) hold the
same files as ``<date>/details_harness|<task>|<shots>_<date>.parquet`` with
``results_<date>.json`` at the top. Here: ``details_org-a__model-a`` (hub
layout, with its results file), ``details_org-b__model-b`` (hub layout, no
results file) and ``details/org-c/model-c`` (lighteval's own layout, a run
stopped by ``max_samples`` after four of the five ARC documents), on
``harness|arc:challenge|25`` (``acc``, ``acc_norm``) and
``harness|gsm8k|5`` (``acc``). The empty ``specifics`` are written as
nulls (parquet has no struct without fields).

``v2/``: lm-evaluation-harness's ``--log_samples`` records as parquet (the
leaderboard's second version publishes the harness's samples, one table per
model and task, in ``<org>__<model>/``): the real lm-evaluation-harness
fixtures of ``../lm_eval`` (see its ``make_fixtures.py`` and
``VERSION.txt``), each ``samples_<task>_<date>.jsonl`` turned into
``samples_<task>_<date>.parquet`` record by record (``Table.from_pylist``,
nested fields as structs and lists), in ``fixture__model-a`` etc.
"""

import json
import shutil
from importlib.metadata import version
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

HERE = Path(__file__).parent
ARC = [
    ("Which gas do plants take in?", ["oxygen", "carbon dioxide", "helium"], 1),
    ("What melts ice fastest?", ["salt", "sand", "sugar"], 0),
    ("Which is a mammal?", ["shark", "trout", "whale"], 2),
    ("What does a thermometer measure?", ["mass", "temperature", "speed"], 1),
    ("Which planet is largest?", ["Jupiter", "Mars", "Venus"], 0),
]
GSM8K = [("Tom has 3 apples and buys 4. How many?", "7"),
         ("A box holds 6 eggs. How many in 2 boxes?", "12"),
         ("Sara reads 5 pages a day. Pages in 4 days?", "20")]
# per model: (name, layout, date, ARC answers, ARC normalised answers, GSM8K answers)
MODELS = [
    ("org-a/model-a", "hub+results", "2023-08-09T10-49-40.148022",
     [1, 0, 2, 0, 0], [1, 0, 2, 1, 0], ["7", "12", "19"]),
    ("org-b/model-b", "hub", "2023-09-12T08-01-13.552107",
     [0, 0, 1, 1, 2], [1, 0, 1, 1, 0], ["7", "11", "20"]),
    ("org-c/model-c", "lighteval", "2023-10-02T21-15-07.010203",
     [1, 1, 2, 1], [1, 1, 2, 1], ["6", "12", "20"]),
]


def _detail(example, choices, gold_index, predictions, metrics, shots):
    prompt = f"{shots} solved examples...\n\n{example}"
    return {
        "example": example, "instruction": "", "full_prompt": prompt,
        "num_effective_few_shots": shots, "num_asked_few_shots": shots,
        "predictions": predictions, "prediction_logits": [],
        "input_tokens": [[len(prompt)]], "cont_tokens": [[len(c)] for c in choices],
        "truncated": [0] * len(choices), "padded": [0] * len(choices),
        "gold": [choices[i] for i in gold_index] if choices else predictions[:0],
        "pred_logits": [], "choices": choices, "gold_index": gold_index,
        "metrics": metrics, "specifics": None,
    }


def _write_table(path, records, sort=True):
    table = pa.Table.from_pylist(records)
    if sort:  # as lighteval sorts them
        table = table.select(sorted(table.column_names))
    path.parent.mkdir(parents=True, exist_ok=True)
    pq.write_table(table, path)


def write_v1(root):
    for model, layout, date, answers, normalised, sums in MODELS:
        org, name = model.split("/")
        if layout == "lighteval":
            folder = root / "details" / org / name / date
        else:
            folder = root / f"details_{org}__{name}" / date
        arc = []
        for (question, choices, gold), answer, norm in zip(
            ARC, answers, normalised, strict=False
        ):
            logprobs = [-1.0 - 0.5 * abs(k - answer) for k in range(len(choices))]
            arc.append(_detail(
                f"Question: {question}\nAnswer:", choices, [gold], logprobs,
                {"acc": int(answer == gold), "acc_norm": int(norm == gold)}, 25,
            ))
        _write_table(folder / f"details_harness|arc:challenge|25_{date}.parquet", arc)
        gsm = [
            {**_detail(f"Question: {question}\nAnswer:", [], [], [said],
                       {"acc": int(said == gold)}, 5), "gold": [gold]}
            for (question, gold), said in zip(GSM8K, sums, strict=True)
        ]
        _write_table(folder / f"details_harness|gsm8k|5_{date}.parquet", gsm)
        if layout == "hub+results":
            results = {
                "config_general": {"model_name": model, "lighteval_sha": "fixture"},
                "results": {
                    "harness|arc:challenge|25": {
                        "acc": sum(d["metrics"]["acc"] for d in arc) / len(arc),
                        "acc_norm": sum(d["metrics"]["acc_norm"] for d in arc)
                        / len(arc)},
                    "harness|gsm8k|5": {
                        "acc": sum(d["metrics"]["acc"] for d in gsm) / len(gsm)},
                },
                "versions": {"harness|arc:challenge|25": 0, "harness|gsm8k|5": 0},
            }
            (folder.parent / f"results_{date}.json").write_text(
                json.dumps(results, indent=2))


def write_v2(root):
    for samples in sorted((HERE.parent / "lm_eval" / "runs").rglob("samples_*.jsonl")):
        records = [json.loads(line) for line in samples.read_text().splitlines()
                   if line.strip()]
        folder = root / f"fixture__{samples.parent.name}"
        _write_table(folder / samples.with_suffix(".parquet").name, records,
                     sort=False)


def main():
    for name in ("v1", "v2"):
        shutil.rmtree(HERE / name, ignore_errors=True)
    write_v1(HERE / "v1")
    write_v2(HERE / "v2")
    (HERE / "VERSION.txt").write_text(f"pyarrow {version('pyarrow')}\n")


if __name__ == "__main__":
    main()
