"""Cut the AlpacaEval annotation fixtures from a clone of its public repository.

Run by hand: ``python make_fixtures.py /path/to/alpaca_eval`` (a checkout of
github.com/tatsu-lab/alpaca_eval; the commit used is in README.md). Keeps the
annotations at ``INDICES`` of each chosen file unchanged (every field, the
judge's raw completion included), in the repository's own
``results/<model>/<annotator>/annotations.json`` layout.
"""

import json
import subprocess
import sys
from pathlib import Path

# the same instructions in every file (AlpacaEval keeps one order): the
# first four, and some where the reference lost or drew (preference 2 or 0)
INDICES = [0, 1, 2, 3, 11, 24, 30, 262]
FILES = [
    "results/alpaca-7b/weighted_alpaca_eval_gpt4_turbo/annotations.json",
    "results/text_davinci_001/weighted_alpaca_eval_gpt4_turbo/annotations.json",
    "results/gpt4_gamed/weighted_alpaca_eval_gpt4_turbo/annotations.json",
    # the reference judged against itself (left out by the reader)
    "results/gpt4_1106_preview/weighted_alpaca_eval_gpt4_turbo/annotations.json",
    # the older judge: integer preferences, 0 for a draw
    "results/alpaca-7b/alpaca_eval_gpt4/annotations.json",
    "results/text_davinci_001/alpaca_eval_gpt4/annotations.json",
]


def main(repo):
    here = Path(__file__).parent
    for name in FILES:
        text = subprocess.run(
            ["git", "-C", repo, "show", f"HEAD:{name}"],
            check=True, capture_output=True,
        ).stdout
        every = json.loads(text)
        annotations = [every[k] for k in INDICES]
        target = here / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(json.dumps(annotations, indent=2) + "\n")


if __name__ == "__main__":
    main(sys.argv[1])
