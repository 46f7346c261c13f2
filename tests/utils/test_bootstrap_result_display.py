"""What a person sees of a BootstrapResult: short repr, HTML table, labelled frames.

See the uncertainty user guide: intervals, rank intervals and P(A above B),
labelled by what is ranked (``agent`` or ``task``).
"""

import re

import numpy as np
import pandas as pd

from sklearn_eval.uncertainty import bootstrap_ranking, summarize_samples


def _result(n_items=100, n_draws=300, seed=0):
    rng = np.random.default_rng(seed)
    estimate = rng.normal(size=n_items) * 3
    draws = estimate + rng.normal(size=(n_draws, n_items))
    labels = [f"model-{k:03d}" for k in range(n_items)]
    return summarize_samples(labels, estimate, draws, note="descriptive only")


def test_repr_is_a_headline_and_the_best_rows():
    res = _result()
    text = repr(res)
    lines = text.splitlines()
    assert len(lines) <= 10  # not ~150 lines of arrays
    assert lines[0] == (
        "BootstrapResult(100 agents, 95% percentile bootstrap intervals, "
        "300 resamples)"
    )
    best = res.labels[np.argmax(res.estimate)]
    assert best in lines[3]  # header, index name, then the best agent
    assert "95 more rows" in text and "note: descriptive only" in text
    assert "array(" not in text


def test_html_repr_is_the_whole_summary_table():
    res = _result(n_items=12)
    page = res._repr_html_()
    assert page.count("<table") == 1
    assert all(label in page for label in res.labels)
    assert "BootstrapResult(12 agents" in page and "descriptive only" in page
    # ranks and rank bounds (the last three columns) shown as integers
    rows = re.findall(r"<tr>(.*?)</tr>", page, re.S)[1:]
    assert len(rows) == 12
    for row in rows:
        cells = re.findall(r"<td>(.*?)</td>", row)
        assert all(cell.isdigit() for cell in cells[-3:]), cells


def test_frames_are_labelled_by_agent():
    res = _result(n_items=5)
    frame = res.to_frame()
    assert frame.index.name == "agent"
    assert frame["rank"].is_monotonic_increasing
    above = res.prob_above_frame()
    assert above.index.name == above.columns.name == "agent"
    assert above.index.tolist() == above.columns.tolist() == res.labels.tolist()
    np.testing.assert_array_equal(above.to_numpy(), res.prob_above)
    a, b = res.labels[:2]
    assert above.loc[a, b] == res.prob_above[0, 1]
    samples = res.samples_frame()
    assert samples.shape == res.samples.shape
    assert samples.columns.name == "agent" and samples.index.name == "resample"


def test_tasks_are_labelled_task():
    rng = np.random.default_rng(1)
    X = pd.DataFrame(rng.random((30, 4)), columns=["t0", "t1", "t2", "t3"])

    class ColumnMeans:
        def get_params(self, deep=True):
            return {}

        def set_params(self, **params):
            return self

        def fit(self, X, y=None):
            self.means_ = np.asarray(X).mean(axis=0)
            return self

    res = bootstrap_ranking(ColumnMeans(), X, statistic="means_", resample="agents",
                            n_resamples=20, random_state=0)
    assert res.to_frame().index.name == "task"
    assert res.prob_above_frame().columns.tolist() == ["t0", "t1", "t2", "t3"]


def test_rounding_noise_does_not_split_a_tie_in_ranks_or_prob_above():
    """Tied estimates share a rank, and resamples in which two items differ by
    rounding only count as ties (1/2) in P(A above B)."""
    base = np.array([0.354972, 0.354972, 0.2])
    noise = np.array([0.0, 2e-16, 0.0])
    draws = np.tile(base + noise, (50, 1))
    draws[:, 1] -= np.where(np.arange(50) % 2, 4e-16, 0.0)
    res = summarize_samples(["a", "b", "c"], base + noise, draws)
    assert res.rank.tolist() == [1, 1, 3]
    assert res.rank_low.tolist() == [1.0, 1.0, 3.0]
    assert res.rank_high.tolist() == [1.0, 1.0, 3.0]
    assert res.prob_above[0, 1] == res.prob_above[1, 0] == 0.5
