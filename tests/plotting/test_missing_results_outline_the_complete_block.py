"""MissingResultsDisplay: observed cells dark, the complete block first and outlined."""

import matplotlib.pyplot as plt
import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from sklearn_eval.datasets import load_atari
from sklearn_eval.game import complete_submatrix
from sklearn_eval.plotting import MissingResultsDisplay
from tests.plotting.drawing import save


@settings(max_examples=30, deadline=None)
@given(
    arrays(
        np.float64,
        st.tuples(st.integers(1, 7), st.integers(1, 7)),
        elements=st.sampled_from([0.0, 1.0, np.nan]),
    )
)
def test_drawn_cells_are_the_observed_results_in_block_first_order(X):
    X[0, 0] = 1.0  # at least one observed result
    display = MissingResultsDisplay.from_data(X)
    try:
        _, agent_mask, task_mask = complete_submatrix(X, return_masks=True)
        rows, cols = display.agent_order_, display.task_order_
        # a permutation of the agents and of the tasks, the block first
        assert sorted(rows) == list(range(X.shape[0]))
        assert sorted(cols) == list(range(X.shape[1]))
        n_block, m_block = int(agent_mask.sum()), int(task_mask.sum())
        assert set(rows[:n_block]) == set(np.flatnonzero(agent_mask))
        assert set(cols[:m_block]) == set(np.flatnonzero(task_mask))
        drawn = np.asarray(display.image_.get_array())
        np.testing.assert_array_equal(drawn, ~np.isnan(X[np.ix_(rows, cols)]))
        assert drawn[:n_block, :m_block].all()  # the outlined block is complete
        patch = display.block_patch_
        assert (patch.get_width(), patch.get_height()) == (m_block, n_block)
        assert patch.get_xy() == (-0.5, -0.5)
    finally:
        plt.close(display.figure_)


def test_without_a_block_nothing_is_outlined_or_reordered():
    observed = np.array([[True, False], [False, True]])
    display = MissingResultsDisplay(observed).plot()
    assert display.block_patch_ is None
    assert display.ax_.get_legend() is None
    np.testing.assert_array_equal(display.agent_order_, [0, 1])
    np.testing.assert_array_equal(display.image_.get_array(), observed)
    plain = MissingResultsDisplay.from_data([[1.0, np.nan]], block=False)
    assert plain.block_patch_ is None


def test_atari_block_and_axes_labels(tmp_path):
    atari = load_atari("noop_matrix")
    fig, ax = plt.subplots()
    display = MissingResultsDisplay.from_data(atari.data, ax=ax)
    assert display.ax_ is ax and display.figure_ is fig
    n_agents, n_tasks = atari.data.shape
    assert display.ax_.get_xlabel() == f"tasks ({n_tasks}; complete block first)"
    assert display.ax_.get_ylabel() == f"agents ({n_agents})"
    assert int(np.sum(display.image_.get_array())) == int(np.sum(~np.isnan(atari.data)))
    save(display, tmp_path, "missing_atari")
