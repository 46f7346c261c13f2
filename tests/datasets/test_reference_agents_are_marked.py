"""Every loader marks the reference agents of its data (human, random, constant)."""

import numpy as np
import pytest

from sklearn_eval.datasets import (
    load_atari,
    load_atari_reference_scores,
    load_automl_benchmark,
    load_chatbot_arena,
    load_chembench,
    load_international_football,
    load_rrps,
    load_soccer,
    load_vicuna80,
)
from sklearn_eval.utils import baseline_normalize

# loader call -> (the labels it ranks, the expected reference agents)
_EXPECTED = [
    (
        lambda **kw: load_atari("noop_matrix", **kw),
        "agent_names",
        {"human@dqn": "human", "human@dudqn": "human", "random@dqn": "random"},
    ),
    (lambda **kw: load_atari("agent57", **kw), "agent_names", {}),
    (lambda **kw: load_atari("rainbow", **kw), "agent_names", {}),
    (lambda **kw: load_atari("muesli", **kw), "agent_names", {}),
    (load_chembench, "agent_names", {}),
    (load_rrps, "agent_names", {"randbot": "random"}),
    (load_soccer, "agent_names", {}),
    (
        lambda **kw: load_automl_benchmark("1h", **kw),
        "agent_names",
        {"constantpredictor": "constant"},
    ),
    (
        lambda **kw: load_automl_benchmark("4h", **kw),
        "agent_names",
        {"constantpredictor": "constant"},
    ),
    (load_vicuna80, "players", {}),
    (lambda **kw: load_international_football("world_cup", **kw), "players", {}),
    (load_chatbot_arena, "players", {}),
    (lambda **kw: load_chatbot_arena(return_counts=True, **kw), "players", {}),
]


@pytest.mark.parametrize("loader, labels, expected", _EXPECTED)
def test_matrix_and_match_loaders_mark_their_reference_agents(loader, labels, expected):
    bunch = loader()
    assert bunch.reference_agents == expected
    names = np.asarray(bunch[labels], dtype=object)
    assert bunch.is_reference.dtype == bool and bunch.is_reference.shape == names.shape
    assert set(names[bunch.is_reference]) == set(expected)
    # the dict follows the order of the agents
    assert list(bunch.reference_agents) == [
        name for name in names.tolist() if name in expected
    ]


@pytest.mark.parametrize("loader, labels, expected", _EXPECTED)
def test_frames_carry_the_reference_agents_in_their_metadata(loader, labels, expected):
    frame = loader(as_frame=True).frame
    assert frame.attrs["reference_agents"] == expected


@pytest.mark.parametrize(
    "loader, column, expected",
    [
        (lambda **kw: load_atari("long", **kw), "algo", {"human", "random"}),
        (
            lambda **kw: load_automl_benchmark("1h", "all", **kw),
            "framework",
            {"constantpredictor"},
        ),
    ],
)
def test_long_tables_mark_the_rows_of_reference_agents(loader, column, expected):
    bunch = loader()
    assert set(bunch.reference_agents) == expected
    position = list(bunch.feature_names).index(column)
    agents = bunch.data[:, position]
    np.testing.assert_array_equal(bunch.is_reference, np.isin(agents, list(expected)))
    frame = loader(as_frame=True).frame
    assert set(frame.attrs["reference_agents"]) == expected
    np.testing.assert_array_equal(
        frame[column].isin(list(expected)).to_numpy(), bunch.is_reference
    )


def test_atari_references_are_the_anchors_of_normalised_scores():
    atari = load_atari()
    reference = load_atari_reference_scores()
    position = {game: k for k, game in enumerate(reference.games)}
    index = [position[game] for game in atari.feature_names]
    normalized = baseline_normalize(
        atari.data, reference.random[index], reference.human[index]
    )
    names = list(atari.agent_names)
    human = normalized[names.index("human@dudqn")]
    random = normalized[names.index("random@dqn")]
    # dqn_zoo's human scores are those of the dueling DQN paper: 100 (up to
    # rounding, 99.99999999999999 on up_n_down) on every game
    np.testing.assert_allclose(human, 100.0, rtol=1e-12)
    observed = ~np.isnan(random)
    np.testing.assert_allclose(random[observed], 0.0, atol=1e-9)
    # no competitor is an anchor
    competitors = normalized[~atari.is_reference]
    assert not np.all(
        np.isclose(competitors, 100.0) | np.isnan(competitors), axis=1
    ).any()
