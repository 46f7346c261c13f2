"""Built-in benchmark datasets (``load_*``) and synthetic generators (``make_*``).

The ``load_*`` functions read small, permissively licensed files shipped inside
the package (see the repository's NOTICE) and return a scikit-learn
:class:`~sklearn.utils.Bunch`; ``describe_datasets`` summarises them all. The
``make_*`` functions draw seeded synthetic data from documented models.

The loaders live in one module per data family (``_atari``, ``_llm``,
``_football``, ``_games``, ``_automl``, ``_leaderboards``), the summary in
``_catalogue`` and the generators in ``_generators``. Every file is parsed as
plain text: nothing is unpickled or evaluated.
"""

from ._arena import load_chatbot_arena
from ._atari import load_atari, load_atari_reference_scores
from ._automl import load_automl_benchmark
from ._catalogue import describe_datasets
from ._football import load_international_football
from ._games import load_rrps, load_soccer
from ._generators import (
    make_agent_task_scores,
    make_cyclic_game,
    make_irt_responses,
    make_matches,
)
from ._leaderboards import list_leaderboards, load_leaderboard
from ._llm import load_chembench, load_vicuna80

__all__ = [
    "describe_datasets",
    "load_atari",
    "load_atari_reference_scores",
    "load_automl_benchmark",
    "load_chatbot_arena",
    "load_chembench",
    "list_leaderboards",
    "load_international_football",
    "load_leaderboard",
    "load_rrps",
    "load_soccer",
    "load_vicuna80",
    "make_agent_task_scores",
    "make_cyclic_game",
    "make_irt_responses",
    "make_matches",
]
