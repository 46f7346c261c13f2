"""One-call summary of every built-in dataset."""

import numpy as np

from ._arena import load_chatbot_arena
from ._atari import load_atari, load_atari_reference_scores
from ._automl import load_automl_benchmark
from ._football import load_international_football
from ._games import load_rrps, load_soccer
from ._leaderboards import _NAMES as _LEADERBOARDS
from ._leaderboards import load_leaderboard
from ._llm import load_chembench, load_vicuna80

__all__ = ["describe_datasets"]


_CATALOGUE = (
    # (name, loader, kind, licence)
    (
        "atari_noop_matrix",
        lambda: load_atari("noop_matrix"),
        "result matrix (agents x games)",
        "MIT",
    ),
    ("atari_long", lambda: load_atari("long"), "long table", "MIT"),
    (
        "atari_agent57",
        lambda: load_atari("agent57"),
        "result matrix (agents x games)",
        "Apache-2.0",
    ),
    (
        "atari_rainbow",
        lambda: load_atari("rainbow"),
        "result matrix (agents x games)",
        "Apache-2.0",
    ),
    (
        "atari_muesli",
        lambda: load_atari("muesli"),
        "result matrix (agents x games)",
        "Apache-2.0",
    ),
    (
        "atari_reference_scores",
        load_atari_reference_scores,
        "reference scores (games x random/human)",
        "Apache-2.0",
    ),
    ("chembench", load_chembench, "result matrix (LLMs x items, 0/1)", "MIT"),
    ("vicuna80", load_vicuna80, "matches", "MIT"),
    ("rrps", load_rrps, "payoff matrix (bots x bots)", "Apache-2.0"),
    ("soccer", load_soccer, "win-probability matrix (agents x agents)", "Apache-2.0"),
    (
        "automl_benchmark_1h",
        lambda: load_automl_benchmark("1h"),
        "result matrix (frameworks x tasks)",
        "MIT",
    ),
    (
        "automl_benchmark_4h",
        lambda: load_automl_benchmark("4h"),
        "result matrix (frameworks x tasks)",
        "MIT",
    ),
    (
        "automl_benchmark_1h_all",
        lambda: load_automl_benchmark("1h", "all"),
        "long table (runs)",
        "MIT",
    ),
    (
        "automl_benchmark_4h_all",
        lambda: load_automl_benchmark("4h", "all"),
        "long table (runs)",
        "MIT",
    ),
    ("international_football", load_international_football, "matches", "CC0-1.0"),
    (
        "international_football_world_cup",
        lambda: load_international_football("world_cup"),
        "matches",
        "CC0-1.0",
    ),
    ("chatbot_arena", load_chatbot_arena, "matches (weighted votes)", "BSD-3-Clause"),
) + tuple(
    (
        f"leaderboard_{board}",
        lambda board=board: load_leaderboard(board),
        "result matrix (models x tasks, public leaderboard)",
        "MIT",
    )
    for board in _LEADERBOARDS
)


_LOADER_CALLS = {
    "atari_noop_matrix": 'load_atari("noop_matrix")',
    "atari_long": 'load_atari("long")',
    "atari_agent57": 'load_atari("agent57")',
    "atari_rainbow": 'load_atari("rainbow")',
    "atari_muesli": 'load_atari("muesli")',
    "atari_reference_scores": "load_atari_reference_scores()",
    "chembench": "load_chembench()",
    "vicuna80": "load_vicuna80()",
    "rrps": "load_rrps()",
    "soccer": "load_soccer()",
    "automl_benchmark_1h": 'load_automl_benchmark("1h")',
    "automl_benchmark_4h": 'load_automl_benchmark("4h")',
    "automl_benchmark_1h_all": 'load_automl_benchmark("1h", "all")',
    "automl_benchmark_4h_all": 'load_automl_benchmark("4h", "all")',
    "international_football": "load_international_football()",
    "international_football_world_cup": 'load_international_football("world_cup")',
    "chatbot_arena": "load_chatbot_arena()",
    **{
        f"leaderboard_{board}": f'load_leaderboard("{board}")'
        for board in _LEADERBOARDS
    },
}


def describe_datasets():
    """Summarise every built-in dataset: name, shape, kind and licence.

    Each dataset is loaded to report its real shape (a few seconds in all).

    Returns
    -------
    summary : list of dict
        One dict per dataset, in a fixed order, with keys ``"name"``,
        ``"loader"`` (the call that loads it, e.g. ``'load_atari("long")'``),
        ``"shape"`` (tuple, the shape of the loader's ``data``), ``"kind"``
        (matches, result matrix, payoff matrix, long table, ...),
        ``"licence"`` (SPDX identifier of the source's licence) and
        ``"reference_agents"`` (list of the labels of its reference agents:
        human, random or constant baselines, which rankings leave out; see
        the loaders' ``reference_agents``).

    Examples
    --------
    >>> from sklearn_eval.datasets import describe_datasets
    >>> summary = describe_datasets()
    >>> summary[0]["name"], summary[0]["shape"], summary[0]["licence"]
    ('atari_noop_matrix', (32, 57), 'MIT')
    >>> sorted({entry["licence"] for entry in summary})
    ['Apache-2.0', 'BSD-3-Clause', 'CC0-1.0', 'MIT']
    >>> summary[0]["reference_agents"]
    ['human@dqn', 'human@dudqn', 'random@dqn']
    """
    summary = []
    for name, loader, kind, licence in _CATALOGUE:
        bunch = loader()
        shape = tuple(int(n) for n in np.shape(bunch.data))
        summary.append(
            {
                "name": name,
                "loader": _LOADER_CALLS[name],
                "shape": shape,
                "kind": kind,
                "licence": licence,
                "reference_agents": list(bunch.get("reference_agents", {})),
            }
        )
    return summary
