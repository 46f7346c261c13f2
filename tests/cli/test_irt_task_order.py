"""``sklearn-eval irt`` lists tasks hardest first, then those whose
difficulty does not rank them: a negative discrimination, or a difficulty off
the ability scale (a near-flat curve, whose -intercept / discrimination runs
to hundreds)."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from sklearn_eval.cli._irt import _OFF_SCALE, _hardest_first

from ._helpers import run, write_wide

_values = st.one_of(st.floats(-900, 900), st.just(np.nan))


@settings(max_examples=200, deadline=None)
@given(data=st.data(), n=st.integers(1, 12))
def test_tasks_are_grouped_then_hardest_first(data, n):
    difficulty = data.draw(arrays(np.float64, n, elements=_values))
    discrimination = data.draw(arrays(np.float64, n, elements=st.floats(-3, 3)))
    rate = data.draw(arrays(np.float64, n, elements=st.floats(0, 1)))
    order, title = _hardest_first(difficulty, discrimination, rate)
    assert sorted(order.tolist()) == list(range(n))
    off = ~(np.abs(difficulty) <= _OFF_SCALE)
    negative = ~off & (discrimination < 0)
    group = np.where(off, 2, np.where(negative, 1, 0))[order]
    assert np.all(np.diff(group) >= 0)
    for g in (0, 1):
        assert np.all(np.diff(difficulty[order][group == g]) <= 0)
    assert np.all(np.diff(rate[order][group == 2]) >= 0)
    assert ("off the ability scale" in title) == bool(off.any())
    assert ("negative discrimination" in title) == bool(negative.any())


def test_a_noise_task_is_listed_after_the_ranked_ones(tmp_path, capsys):
    rng = np.random.default_rng(0)
    ability = rng.normal(size=60)
    a, b = rng.uniform(0.8, 2.0, 12), rng.normal(size=12)
    X = (rng.random((60, 12)) < 1 / (1 + np.exp(-a * (ability[:, None] - b))))
    X = X.astype(float)
    X[:, 0] = rng.random(60) < 0.15  # right or wrong whatever the ability
    code, out, err = run(["irt", write_wide(tmp_path / "s.csv", X), "--no-prior",
                          "--top", "0", "-q"], capsys)
    assert code == 0, err
    tasks = out.split("tasks, hardest first")[1]
    assert "off the ability scale" in tasks.splitlines()[0]
    rows = [line.split() for line in tasks.splitlines()[3:15]]
    assert [len(row) for row in rows] == [4] * 12  # task, b, a, success rate
    difficulty = [float(row[1]) for row in rows]
    flagged = [k for k, d in enumerate(difficulty) if abs(d) > _OFF_SCALE]
    assert "task0" in [rows[k][0] for k in flagged]
    assert flagged == list(range(12 - len(flagged), 12))
