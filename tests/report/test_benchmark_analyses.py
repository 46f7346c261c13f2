"""The analyses behind the report: reference values, properties, input rules."""

import io

import numpy as np
import pytest

from sklearn_eval.game import NashAverager, schur_embedding
from sklearn_eval.report import analyze_benchmark, prepare_benchmark, render_report


def test_atari_analysis_reference_checks(atari):
    s = atari.summary
    assert (s.n_agents, s.n_tasks, s.n_missing) == (32, 57, 75)
    assert (s.complete_agents, s.complete_tasks) == (31, 46)
    nash = atari.nash
    # the checks the Nash spec gives for the Atari experiment (section 5.1)
    assert nash.agent_probability.sum() == pytest.approx(1.0)
    assert nash.task_probability.sum() == pytest.approx(1.0)
    assert np.all(nash.agent_nash <= nash.value + 1e-9)
    assert np.all(nash.task_nash <= -nash.value + 1e-9)
    assert np.allclose(nash.agent_nash[nash.core_agents], nash.value, atol=1e-7)
    assert nash.exploitability < 1e-7
    # human ties with the best agents: it is in the Nash core (paper's conclusion)
    core = set(atari.block.agents[nash.core_agents])
    assert any(agent.startswith("human@") for agent in core)
    # the game value is close to the paper's 0.354 on its 20 x 54 matrix
    assert 0.3 < nash.value < 0.4
    # the uniform average favours Ape-X (largest mean min-max score), Nash does not
    uniform_top = atari.block.agents[np.argmax(nash.agent_uniform)]
    assert uniform_top == "ape_x_dqn@ape_x_dqn"
    irt = atari.irt
    agents = list(atari.benchmark.agents)
    assert irt.ability[agents.index("random@dqn")] == irt.ability.min()
    # human@dudqn beats the dqn_zoo human reference on every game it reports
    human = agents.index("human@dudqn")
    assert np.nanmean(atari.benchmark.responses[human]) > 0.9
    assert irt.ability[human] == irt.ability.max()
    h = atari.hodge
    assert h.transitive + h.cyclic == pytest.approx(1.0)
    assert 0.5 < h.transitive < 1.0
    sel = atari.selection
    assert len(sel.order) == 10 and len(set(sel.order)) == 10
    assert np.all(np.diff(sel.cumulative_gain) >= -1e-9)
    assert sel.cumulative_gain[-1] <= np.log2(31) + 1e-9
    assert sel.agreement.kendall_tau > 0.6


def test_atari_bootstrap_intervals(atari):
    for key, estimate in (
        ("uniform", atari.nash.agent_uniform),
        ("nash", atari.nash.agent_nash),
        ("ability", atari.irt.ability),
    ):
        result = atari.intervals[key]
        assert result.samples.shape[0] == 10
        assert np.allclose(result.estimate, estimate)
        assert np.all(result.low <= result.high)


def test_synthetic_analysis_recovers_the_truth(synthetic):
    analysis, params = synthetic
    ability = analysis.irt.ability
    assert np.corrcoef(ability, params["ability"])[0, 1] > 0.9
    difficulty = analysis.irt.difficulty
    finite = np.isfinite(difficulty)
    assert np.corrcoef(difficulty[finite], params["difficulty"][finite])[0, 1] > 0.8
    assert analysis.summary.missing_share == 0.0
    assert analysis.block.scaled.shape == (25, 16)
    assert analysis.intervals.uniform.samples.shape == (8, 25)


def test_duplicating_a_task_keeps_nash_averages(synthetic):
    analysis, _ = synthetic
    scores = analysis.benchmark.scores
    doubled = np.column_stack([scores, scores[:, [3, 3, 3]]])
    copy = analyze_benchmark(
        prepare_benchmark(doubled, threshold=0.5), n_tasks=5, n_resamples=0
    )
    assert np.allclose(copy.nash.agent_nash, analysis.nash.agent_nash, atol=1e-6)
    assert np.allclose(
        copy.nash.agent_probability, analysis.nash.agent_probability, atol=1e-6
    )
    # whereas the uniform average moves towards task 3
    assert not np.allclose(copy.nash.agent_uniform, analysis.nash.agent_uniform)


def test_nash_section_equals_the_estimator(synthetic):
    analysis, _ = synthetic
    scores = analysis.benchmark.scores
    model = NashAverager(normalize="minmax").fit(scores)
    assert np.allclose(analysis.nash.agent_nash, model.agent_skill_, atol=1e-9)
    assert analysis.nash.value == pytest.approx(model.value_)


def test_hodge_of_an_additive_benchmark_is_transitive():
    # S = skill_i - difficulty_j exactly: no residual, no cycle
    rng = np.random.default_rng(0)
    skill, difficulty = rng.normal(size=8), rng.normal(size=6)
    scores = skill[:, None] - difficulty[None, :]
    analysis = analyze_benchmark(prepare_benchmark(scores), n_tasks=2, n_resamples=0)
    assert analysis.hodge.transitive == pytest.approx(1.0)
    assert np.allclose(analysis.hodge.agent_residual, 0.0, atol=1e-12)
    # Hodge skills order the agents as the true skills
    assert np.array_equal(np.argsort(analysis.hodge.agent_skill), np.argsort(skill))


def test_hodge_plane_shares_equal_the_schur_planes_of_the_flow(synthetic):
    analysis, _ = synthetic
    h = analysis.hodge
    schur = schur_embedding(h.flow, n_components=2)
    expected = 2 * schur.eigenvalues**2 / np.sum(h.flow**2)
    assert np.allclose(h.plane_shares, expected, atol=1e-10)
    assert h.plane_shares.sum() <= h.cyclic + 1e-12


def test_progress_lines_go_to_the_given_stream(synthetic):
    analysis, _ = synthetic
    stream = io.StringIO()
    analyze_benchmark(analysis.benchmark, n_tasks=2, n_resamples=0, progress=stream)
    lines = stream.getvalue().splitlines()
    assert len(lines) >= 6 and all(line.startswith("[sklearn-eval") for line in lines)


def test_prepare_benchmark_success_rules():
    scores = np.array([[0.0, 10.0], [5.0, 20.0], [10.0, np.nan], [2.0, 30.0]])
    median = prepare_benchmark(scores)  # medians 3.5 and 20 (NaN skipped)
    assert np.array_equal(
        median.responses, [[0, 0], [1, 1], [1, np.nan], [0, 1]], equal_nan=True
    )
    assert "median" in median.response_rule
    fixed = prepare_benchmark(scores, threshold=5.0)
    assert fixed.responses[:, 0].tolist() == [0.0, 1.0, 1.0, 0.0]
    baseline = prepare_benchmark(
        scores, low=[0.0, 10.0], high=[10.0, 30.0], threshold=50.0
    )
    assert baseline.normalized[:, 0].tolist() == [0.0, 50.0, 100.0, 20.0]
    assert baseline.responses[:, 1].tolist()[:2] == [0.0, 1.0]
    binary = prepare_benchmark(np.array([[0, 1], [1, 1], [0, 0.0]]))
    assert "already successes" in binary.response_rule


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"scores": np.ones((2, 3))}, "at least 3 agents"),
        ({"scores": np.ones((3, 1))}, "at least 2 tasks"),
        ({"scores": [[1, np.inf], [1, 2], [2, 2]]}, "infinite value at row 0"),
        ({"scores": np.ones((3, 2)), "low": 0.0}, "both low and high"),
        ({"scores": np.ones((3, 2)), "threshold": "mean"}, "'median'"),
        ({"scores": np.ones((3, 2)), "stds": np.ones((2, 2))}, "shape of the scores"),
        ({"scores": np.ones((3, 2)), "agents": ["a"]}, "expected 3 agent labels"),
    ],
)
def test_prepare_benchmark_errors(kwargs, message):
    with pytest.raises(ValueError, match=message.replace("(", r"\(")):
        prepare_benchmark(**kwargs)


def test_agents_and_tasks_without_results_are_left_out():
    rng = np.random.default_rng(0)
    scores = rng.uniform(size=(6, 5))
    scores[2] = np.nan
    scores[:, 4] = np.nan
    bench = prepare_benchmark(scores, threshold=0.5)
    assert bench.scores.shape == bench.responses.shape == (5, 4)
    assert bench.dropped_agents.tolist() == ["agent2"]
    assert bench.dropped_tasks.tolist() == ["task4"]
    page = render_report(
        analyze_benchmark(bench, n_tasks=2, n_resamples=0), figures=False
    )
    assert "agents without any result (left out)" in page and "agent2" in page
    with pytest.raises(ValueError, match="at least 2 tasks with a result"):
        prepare_benchmark(np.column_stack([scores[:, 0], np.full(6, np.nan)]))
