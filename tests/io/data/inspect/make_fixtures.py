"""Produce the inspect_ai log fixtures of tests/io (run offline, outside the package).

    python -m venv /tmp/venv-inspect && /tmp/venv-inspect/bin/pip install inspect_ai
    /tmp/venv-inspect/bin/python make_fixtures.py

Two mock models answer an arithmetic task of four inline samples, two epochs,
scored by two scorers (``match`` and ``includes``); the logs are written in
both formats inspect_ai has (``.eval`` archives and ``.json``). Every canned
output carries a token count, so the mock provider needs no tokenizer download.
The inspect_ai version is recorded in VERSION.txt beside the logs.
"""

import shutil
from pathlib import Path

import inspect_ai
from inspect_ai import Task, eval
from inspect_ai.dataset import Sample
from inspect_ai.model import ModelOutput, ModelUsage, get_model
from inspect_ai.scorer import includes, match

HERE = Path(__file__).parent
QUESTIONS = [("1+1", "2"), ("2+2", "4"), ("3+3", "6"), ("4+4", "8")]
# per model, per epoch, the answers it gives (in sample order)
ANSWERS = {
    "good": [["2", "4", "6", "8"], ["2", "4", "6", "9"]],
    "poor": [["2", "5", "7", "8"], ["3", "5", "6", "8"]],
}


def _outputs(name):
    outputs = []
    for epoch in ANSWERS[name]:
        for answer in epoch:
            output = ModelOutput.from_content(model=name, content=answer)
            output.usage = ModelUsage(input_tokens=5, output_tokens=1, total_tokens=6)
            outputs.append(output)
    return outputs


def main():
    task = Task(
        dataset=[Sample(input=f"What is {q}?", target=a, id=f"q{k}")
                 for k, (q, a) in enumerate(QUESTIONS, start=1)],
        scorer=[match(), includes()],
        name="arithmetic",
    )
    for log_format in ("eval", "json"):
        out = HERE / log_format
        shutil.rmtree(out, ignore_errors=True)
        for name in ANSWERS:
            model = get_model(f"mockllm/{name}", custom_outputs=_outputs(name))
            eval(task, model=model, epochs=2, log_dir=str(out), log_format=log_format,
                 max_connections=1, max_samples=1, display="none")
    (HERE / "VERSION.txt").write_text(f"inspect_ai {inspect_ai.__version__}\n")


if __name__ == "__main__":
    main()
