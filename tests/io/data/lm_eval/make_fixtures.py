"""Write the lm-evaluation-harness fixtures with the real tool, offline.

Run by hand in a virtual environment with lm-eval installed (never a
dependency of the package): ``python make_fixtures.py``. Two local tasks (the
data and the YAML configs written to a temporary folder): ``capitals``, a
multiple-choice task (metrics ``acc`` and ``acc_norm``) and ``echo``, a
generation task with two filters (``exact_match`` under ``none`` and
``first-word``). The ``dummy`` model answers at random
(loglikelihoods) or "lol" (generations); three runs with different seeds
and ``model_args`` stand for three models. Output: ``runs/`` with
lm-evaluation-harness's own layout, ``results_<date>.json`` and
``samples_<task>_<date>.jsonl`` per run; ``VERSION.txt`` the versions.
"""

import json
import os
import shutil
import subprocess
import sys
import tempfile
from importlib.metadata import version
from pathlib import Path

HERE = Path(__file__).parent
CAPITALS = [
    ("France", "Paris", ["Paris", "Lyon", "Nice"]),
    ("Japan", "Tokyo", ["Osaka", "Tokyo", "Kyoto"]),
    ("Italy", "Rome", ["Milan", "Turin", "Rome"]),
    ("Spain", "Madrid", ["Madrid", "Seville", "Bilbao"]),
    ("Peru", "Lima", ["Cusco", "Lima", "Arequipa"]),
]
ECHO = [("Say lol.", "lol"), ("Say hi.", "hi"), ("Say lol twice.", "lol lol"),
        ("Laugh.", "lol")]
CAPITALS_YAML = """task: capitals
dataset_path: json
dataset_kwargs:
  data_files: {data}
test_split: train
output_type: multiple_choice
doc_to_text: "The capital of {{{{country}}}} is"
doc_to_choice: "{{{{choices}}}}"
doc_to_target: "{{{{label}}}}"
metric_list:
  - metric: acc
  - metric: acc_norm
metadata:
  version: 1.0
"""
ECHO_YAML = """task: echo
dataset_path: json
dataset_kwargs:
  data_files: {data}
test_split: train
output_type: generate_until
doc_to_text: "{{{{prompt}}}}"
doc_to_target: "{{{{answer}}}}"
generation_kwargs:
  until: ["\\n"]
metric_list:
  - metric: exact_match
filter_list:
  - name: none
    filter:
      - function: take_first
  - name: first-word
    filter:
      - function: regex
        regex_pattern: "(\\\\w+)"
      - function: take_first
metadata:
  version: 2.0
"""
MODELS = [("model-a", 1), ("model-b", 2), ("model-c", 3)]


def write_tasks(folder):
    capitals = folder / "capitals.jsonl"
    with open(capitals, "w") as handle:
        for country, capital, choices in CAPITALS:
            handle.write(json.dumps({"country": country, "choices": choices,
                                     "label": choices.index(capital)}) + "\n")
    echo = folder / "echo.jsonl"
    with open(echo, "w") as handle:
        for prompt, answer in ECHO:
            handle.write(json.dumps({"prompt": prompt, "answer": answer}) + "\n")
    (folder / "capitals.yaml").write_text(CAPITALS_YAML.format(data=capitals))
    (folder / "echo.yaml").write_text(ECHO_YAML.format(data=echo))


def main():
    out = HERE / "runs"
    shutil.rmtree(out, ignore_errors=True)
    env = {**os.environ, "HF_DATASETS_OFFLINE": "1", "HF_HUB_OFFLINE": "1"}
    with tempfile.TemporaryDirectory() as tmp:
        tasks = Path(tmp)
        write_tasks(tasks)
        for name, seed in MODELS:
            subprocess.run(
                [sys.executable, "-m", "lm_eval", "run", "--model", "dummy",
                 "--model_args", f"pretrained={name}", "--tasks", "capitals",
                 "echo", "--include_path", str(tasks), "--output_path",
                 str(out / name), "--log_samples", "--seed", str(seed)],
                check=True, env=env,
            )
    (HERE / "VERSION.txt").write_text("".join(
        f"{name} {version(name)}\n" for name in ("lm_eval", "torch", "datasets")
    ))


if __name__ == "__main__":
    main()
