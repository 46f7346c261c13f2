"""Reference and baseline agents of the built-in data (human, random, constant).

A reference agent is an anchor, not a competitor: a human score that defines
the 100 of human-normalised scores, a random or constant player that defines
the 0. Rankings that include them rank the anchors, not the methods (the
human reference of Atari, normalised to exactly 100 on every game, tops an
IRT ranking by construction). The loaders mark them so that the report and
the demo can leave them out of the rankings and show them apart.

Each loader's Bunch has ``reference_agents`` (a dict from the agent's label
to its kind: ``"human"``, ``"random"`` or ``"constant"``, in row order) and
``is_reference`` (a boolean mask over the agents, or over the rows of a long
table); with ``as_frame=True`` the frame's ``attrs["reference_agents"]``
holds the same dict.
"""

import numpy as np

__all__ = []

# label -> kind, per dataset; the sources name these agents as anchors
_REFERENCES = {
    # rldb: human and random rows of the DQN (2015) and dueling DQN papers
    "atari_noop_matrix": {
        "human@dqn": "human",
        "human@dudqn": "human",
        "random@dqn": "random",
    },
    "atari_long": {"human": "human", "random": "random"},
    # RoShamBo: randbot throws uniformly at random (expected return 0)
    "rrps": {"randbot": "random"},
    # AutoML benchmark: the class-prior predictor is the trivial baseline
    "automl_benchmark": {"constantpredictor": "constant"},
    # GLUE and SuperGLUE list their human-performance rows as submissions
    "leaderboard_glue": {"GLUE Human Baselines": "human"},
    "leaderboard_superglue": {"SuperGLUE Human Baselines": "human"},
}


def reference_agents(dataset, labels):
    """``(reference_agents, is_reference)`` of ``dataset`` for these labels.

    ``labels`` are the agents (or the agent column of a long table); the
    dict keeps the order in which the references first appear in it.
    """
    kinds = _REFERENCES.get(dataset, {})
    labels = np.asarray(labels, dtype=object)
    mask = np.array([label in kinds for label in labels.tolist()], dtype=bool)
    present = dict.fromkeys(labels[mask].tolist())
    return {label: kinds[label] for label in present}, mask


def mark_frame(frame, references):
    """Record the reference agents in a frame's metadata (``attrs``)."""
    if frame is not None:
        frame.attrs["reference_agents"] = dict(references)
    return frame
