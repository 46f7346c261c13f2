"""Reference agents (human, random) are left out of the rankings and shown apart."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from sklearn_eval.report import analyze_benchmark, prepare_benchmark, render_report
from sklearn_eval.utils import binarize_scores
from tests.report.pages import parse_sections

_REFERENCES = {"human@dqn", "human@dudqn", "random@dqn"}


@settings(max_examples=40, deadline=None)
@given(
    arrays(
        np.float64,
        st.tuples(st.integers(5, 9), st.integers(2, 6)),
        elements=st.floats(-50, 50, allow_nan=False),
    ),
    st.data(),
)
def test_leaving_references_out_changes_no_other_agent(scores, data):
    n_agents = scores.shape[0]
    chosen = data.draw(
        st.lists(st.integers(0, n_agents - 1), min_size=1, max_size=2, unique=True)
    )
    agents = [f"a{k}" for k in range(n_agents)]
    references = [agents[k] for k in chosen]
    threshold = data.draw(st.sampled_from(["median", 0.0]))
    apart = prepare_benchmark(
        scores, agents=agents, threshold=threshold, reference_agents=references
    )
    ranked = prepare_benchmark(
        scores,
        agents=agents,
        threshold=threshold,
        reference_agents=references,
        include_reference=True,
    )
    others = ~np.isin(agents, references)
    # excluded: the matrices hold the other agents only, the rows apart
    assert apart.agents.tolist() == np.asarray(agents)[others].tolist()
    assert apart.reference.agents.tolist() == sorted(references, key=agents.index)
    np.testing.assert_array_equal(apart.scores, scores[others])
    assert not apart.reference_mask.any() and not apart.reference.included
    # included: every row, the references marked
    assert ranked.agents.tolist() == agents
    np.testing.assert_array_equal(ranked.reference_mask, ~others)
    # the success rule is the same either way (a median over the others)
    np.testing.assert_array_equal(ranked.responses[others], apart.responses)
    np.testing.assert_array_equal(ranked.responses[~others], apart.reference.responses)
    if threshold == "median":
        medians = np.median(scores[others], axis=0)
        np.testing.assert_array_equal(
            apart.responses, binarize_scores(scores[others], medians)
        )


def test_an_unknown_reference_agent_is_an_error():
    with pytest.raises(ValueError, match="reference agent 'nobody'"):
        prepare_benchmark(
            np.eye(3) + 1, agents=["a", "b", "c"], reference_agents=["nobody"]
        )


def test_atari_human_reference_succeeds_everywhere_with_the_tolerance(atari):
    reference = atari.benchmark.reference
    human = list(reference.agents).index("human@dudqn")
    normalized = reference.normalized[human]
    np.testing.assert_allclose(normalized, 100.0, rtol=1e-12)
    assert np.all(reference.responses[human] == 1.0)


@pytest.mark.parametrize("below", [1e-14, 1e-12, 1e-10])
def test_a_score_a_rounding_below_the_threshold_is_a_success(below):
    # e.g. a human-normalised 99.99999999999999 at threshold 100
    scores = np.array([[100.0 * (1 - below), 50.0], [120.0, 130.0], [0.0, 100.0]])
    bench = prepare_benchmark(scores, threshold=100.0)
    np.testing.assert_array_equal(bench.responses, [[1, 0], [1, 1], [0, 1]])
    assert bench.responses[0, 0] == 1.0
    clearly_below = prepare_benchmark(scores - [[1e-6, 0]] * 3, threshold=100.0)
    assert clearly_below.responses[0, 0] == 0.0


def test_atari_rankings_are_led_by_methods_and_references_are_scored(atari):
    assert not _REFERENCES & set(atari.benchmark.agents)
    assert not _REFERENCES & set(atari.block.agents)
    ref = atari.reference
    assert list(ref.agents) == ["human@dqn", "human@dudqn", "random@dqn"]
    assert ref.kinds == ["human", "human", "random"]
    np.testing.assert_allclose(ref.mean_score[1], 100.0)
    assert ref.success_rate[1] == 1.0 and ref.success_rate[2] == 0.0
    # the rank each ability would take among the ranked agents
    for ability, rank in zip(ref.ability, ref.ability_rank, strict=True):
        assert rank == 1 + np.sum(atari.irt.ability > ability)
    # random is below every method, the perfect human above nearly all
    assert ref.ability_rank[2] == len(atari.benchmark.agents) + 1
    assert ref.ability_rank[1] <= 3


def test_report_shows_references_apart_and_marks_them_when_ranked(
    atari, atari_with_reference
):
    page = render_report(atari, figures=False)
    sections = parse_sections(page)
    ranking = sections["ranking"]
    assert "Reference agents (not ranked)" in ranking["text"]
    assert "--include-reference" in ranking["text"]
    reference_table = page[page.index('data-table="reference"') :]
    reference_table = reference_table[: reference_table.index("</table>")]
    assert all(name in reference_table for name in _REFERENCES)
    ranking_table = page[page.index('data-table="ranking"') :]
    ranking_table = ranking_table[: ranking_table.index("</table>")]
    assert not any(f">{name}" in ranking_table for name in _REFERENCES)
    assert 'class="tag"' not in ranking_table

    ranked = render_report(atari_with_reference, figures=False)
    ranking_table = ranked[ranked.index('data-table="ranking"') :]
    ranking_table = ranking_table[: ranking_table.index("</table>")]
    for name in _REFERENCES:
        assert f'{name} <span class="tag">reference</span>' in ranking_table
    assert ranking_table.count('class="tag"') == 3
    assert "ranked with the others" in parse_sections(ranked)["ranking"]["text"]


def test_analysis_without_references_has_no_reference_part(synthetic):
    analysis, _ = synthetic
    assert analysis.reference is None
    page = render_report(analysis, figures=False)
    assert 'data-table="reference"' not in page


def test_included_references_are_analysed_like_agents(atari_with_reference):
    a = analyze_benchmark(
        prepare_benchmark(
            atari_with_reference.benchmark.scores,
            agents=atari_with_reference.benchmark.agents,
            tasks=atari_with_reference.benchmark.tasks,
            threshold="median",
        ),
        n_resamples=0,
    )
    assert a.reference is None and len(a.benchmark.agents) == 32
