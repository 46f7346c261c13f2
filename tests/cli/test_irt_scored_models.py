"""``sklearn-eval irt --model`` with graded and continuous models and factors:
the command's numbers are the estimator's, its task table the API's
parameter columns (see the CLI page of the User Guide)."""


import numpy as np
import pytest
from scipy.special import expit

from sklearn_eval.irt import IRT

from ._helpers import read_table, run, run_irt_and_fit, write_wide


def _graded(n=120, J=8, seed=0):
    rng = np.random.default_rng(seed)
    theta = rng.normal(size=n)
    b = np.sort(rng.normal(size=(J, 3)), axis=1)
    P = expit(1.5 * (theta[:, None, None] - b[None]))
    return (rng.random((n, J, 1)) < P).sum(axis=2).astype(float)


def _scores(n=120, J=8, seed=1):
    rng = np.random.default_rng(seed)
    mu = expit(rng.normal(size=(n, 1)) * rng.uniform(0.8, 2, J) + rng.normal(size=J))
    return rng.beta(15 * mu, 15 * (1 - mu))


@pytest.mark.parametrize("argv, make, data", [
    (["--model", "GRM"], lambda: IRT(model="GRM"), _graded),
    (["--model", "GPCM"], lambda: IRT(model="GPCM"), _graded),
    (["--model", "beta"], lambda: IRT(model="beta"), _scores),
    (["--model", "logit-normal"], lambda: IRT(model="logit-normal"), _scores),
    (["--model", "2PL", "--n-factors", "2"],
     lambda: IRT(model="2PL", n_factors=2), lambda: (_graded() >= 2).astype(float)),
])
def test_irt_command_equals_the_estimator(tmp_path, capsys, argv, make, data):
    X = data()
    wide = write_wide(tmp_path / "scores.csv", X)
    text, table, model = run_irt_and_fit(wide, tmp_path, capsys, argv, make, X)
    assert f": log-likelihood {model.log_likelihood_:.2f}" in text
    frame = model.task_table()
    columns = [c for c in frame.columns
               if not c.endswith("_se") and c not in ("n_categories", "left_out")]
    header, rows = read_table(table)
    assert header == ["task", *columns]
    got = {row[0]: [float(v) if v else np.nan for v in row[1:]] for row in rows}
    for j in range(X.shape[1]):
        np.testing.assert_allclose(got[f"task{j}"], frame[columns].iloc[j],
                                   rtol=1e-9, atol=1e-12)
    _, agents = read_table(tmp_path / "irt_agents.csv")
    ability = {row[0]: float(row[1]) for row in agents}
    np.testing.assert_allclose([ability[f"agent{i}"] for i in range(X.shape[0])],
                               model.abilities_, rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("argv, message", [
    (["--model", "beta", "--n-factors", "2"], "--n-factors applies to --model 2PL"),
    (["--model", "GRM", "--n-options", "4"], "--n-options applies to --model 3PL"),
])
def test_irt_command_refuses_options_of_other_models(tmp_path, capsys, argv,
                                                     message):
    wide = write_wide(tmp_path / "scores.csv", _scores())
    code, _, err = run(["irt", wide, *argv, "-q"], capsys)
    assert code != 0 and message in err


def test_continuous_model_names_a_score_outside_the_unit_interval(tmp_path, capsys):
    X = _scores()
    X[3, 2] = 1.5
    wide = write_wide(tmp_path / "scores.csv", X)
    code, _, err = run(["irt", wide, "--model", "beta", "-q"], capsys)
    assert code != 0 and "1.5" in err
