"""Write the HELM fixtures with the real tool, offline.

Run by hand in a virtual environment with crfm-helm installed (never a
dependency of the package): ``python make_fixtures.py``. ``helm-run`` runs
its tutorial scenarios ``simple_mcqa`` (multiple choice; three train trials,
so three epochs) and ``simple_classification`` (generation, exact match and
classification metrics) on three models registered in a
temporary ``prod_env``: ``fixture/model-a`` .. ``model-c``, served by
``FixtureClient`` below, HELM's own offline ``SimpleClient`` with answers
drawn from a hash of the model and prompt (the built-in simple model answers
alike whatever its name). The run folders are kept as HELM writes them,
less the large ``scenario_state.json``, ``scenario.json`` and ``stats.json``
(the reader needs only ``run_spec.json`` and ``per_instance_stats.json``),
and with ``__`` for the ``:`` of the run folders' names.
Versions in VERSION.txt.
"""

import hashlib
import os
import shutil
import subprocess
import sys
import tempfile
from importlib.metadata import version
from pathlib import Path

from helm.clients.simple_client import SimpleClient

HERE = Path(__file__).parent
MODELS = ["fixture/model-a", "fixture/model-b", "fixture/model-c"]
RUNS = ["simple_mcqa:model={model},num_train_trials=3",
        "simple_classification:model={model}"]
KEEP = ("run_spec.json", "per_instance_stats.json")


class FixtureClient(SimpleClient):
    """SimpleClient whose completions depend on the model: a letter or a word."""

    def invoke_model(self, raw_request):
        words = raw_request["prompt"].split()
        completions = []
        for k in range(raw_request["num_completions"]):
            key = f"{raw_request['engine']}|{raw_request['prompt']}|{k}"
            digest = hashlib.sha256(key.encode()).digest()
            word = words[digest[2] % len(words)]
            completions.append("ABCD"[digest[0] % 4] if digest[1] % 2 else word)
        return {"completions": completions}


def prod_env(folder):
    folder.mkdir()
    deployments = "model_deployments:\n" + "".join(
        f"  - name: {m}\n    model_name: {m}\n    tokenizer_name: simple/tokenizer1\n"
        "    max_sequence_length: 2048\n    client_spec:\n"
        "      class_name: make_fixtures.FixtureClient\n"
        for m in MODELS
    )
    metadata = "models:\n" + "".join(
        f"  - name: {m}\n    display_name: {m}\n    description: fixture\n"
        "    creator_organization_name: fixture\n    access: open\n"
        "    release_date: 2023-01-01\n"
        "    tags: [TEXT_MODEL_TAG, FULL_FUNCTIONALITY_TEXT_MODEL_TAG]\n"
        for m in MODELS
    )
    (folder / "model_deployments.yaml").write_text(deployments)
    (folder / "model_metadata.yaml").write_text(metadata)


def main():
    out = HERE / "runs"
    shutil.rmtree(out, ignore_errors=True)
    env = {**os.environ, "HF_DATASETS_OFFLINE": "1", "HF_HUB_OFFLINE": "1",
           "PYTHONPATH": str(HERE)}
    with tempfile.TemporaryDirectory() as tmp:
        local = Path(tmp) / "prod_env"
        prod_env(local)
        entries = [run.format(model=m) for m in MODELS for run in RUNS]
        subprocess.run(
            [Path(sys.executable).parent / "helm-run", "--run-entries", *entries,
             "--suite", "v1", "--max-eval-instances", "6", "--local-path",
             str(local), "-o", str(Path(tmp) / "out")],
            check=True, env=env,
        )
        runs = Path(tmp) / "out" / "runs" / "v1"
        for run in sorted(p for p in runs.iterdir() if (p / "run_spec.json").exists()):
            # HELM names the folder after the run ("simple_mcqa:model=..."):
            # ":" cannot be in a path on Windows, so it is replaced here
            target = out / run.name.replace(":", "__")
            target.mkdir(parents=True)
            for name in KEEP:
                shutil.copy(run / name, target / name)
    (HERE / "VERSION.txt").write_text(f"crfm-helm {version('crfm-helm')}\n")


if __name__ == "__main__":
    main()
