"""Reference numbers from leaderbot and arena-rank for tests/pairwise/fixtures_arena.py.

Run in the anchors' venv (never a dependency of the package), from the
repository root::

    python3 -m venv /work/bench-venvs/arena
    /work/bench-venvs/arena/bin/pip install leaderbot arena-rank
    PYTHONPATH=. /work/bench-venvs/arena/bin/python benchmarks/arena_reference.py

It prints Python assignments to paste at the end of the fixture module:

1. leaderbot's Davidson and Rao-Kupper models in their original form
   (``k_cov=None, k_tie=0``: one tie parameter, no covariance factors) fitted
   to the Chatbot Arena counts shipped with leaderbot, with both kinds of tie
   counted as ties (``leaderbot.data.load(tie="both")``, the convention of
   ``sklearn_eval.datasets.load_chatbot_arena``): model names, scores
   (natural-logit strengths), the tie parameter on leaderbot's scale (log nu
   for Davidson, log theta for Rao-Kupper) and the mean loss per vote;
2. arena-rank's ``ContextualBradleyTerry`` (ties as half a win) on the
   synthetic style data of ``fixtures_arena.style_matches``, without an L2
   penalty (``reg=0``), unweighted and with the weights
   ``1 + (first + second) % 3``: ratings (natural logit, mean zero),
   coefficients and the coefficients' sandwich standard errors (from
   arena-rank's own Hessian and gradient covariance, ``hessian_reg=1e-9``).
"""

import numpy as np


def _fmt(name, values):
    values = np.asarray(values, dtype=np.float64).ravel()
    body = ",\n".join(f"    {v!r}" for v in values.tolist())
    return f"{name} = np.array([\n{body},\n])\n"


def leaderbot_reference():
    import leaderbot as lb
    from leaderbot.models import Davidson, RaoKupper

    data = lb.data.load(tie="both")
    names = "".join(f"    {name!r},\n" for name in data["models"])
    lines = [f"LEADERBOT_MODELS = [\n{names}]\n"]
    for label, cls in (("DAVIDSON", Davidson), ("RAO_KUPPER", RaoKupper)):
        model = cls(data, k_cov=None, k_tie=0)
        model.train()
        assert model._result.success, model._result.message
        n = len(data["models"])
        lines.append(_fmt(f"LEADERBOT_{label}_SCORES", model.param[:n]))
        lines.append(f"LEADERBOT_{label}_TIE = {float(model.param[-1])!r}\n")
        lines.append(f"LEADERBOT_{label}_LOSS = {float(model.loss())!r}\n")
    return "".join(lines)


def arena_rank_reference():
    import jax.numpy as jnp
    from arena_rank.models.contextual_bradley_terry import ContextualBradleyTerry
    from arena_rank.utils.data_utils import ContextualPairDataset

    from tests.pairwise.fixtures_arena import style_matches

    first, second, covariates, y, strengths = style_matches()
    lines = []
    for label, weights in (
        ("UNWEIGHTED", np.ones(y.shape[0])),
        ("WEIGHTED", 1.0 + (first + second) % 3),
    ):
        dataset = ContextualPairDataset(
            competitors=[str(k) for k in range(strengths.shape[0])],
            pairs=jnp.asarray(np.column_stack([first, second]), dtype=jnp.int32),
            outcomes=jnp.asarray(y), features=jnp.asarray(covariates),
            weights=jnp.asarray(weights),
        )
        model = ContextualBradleyTerry(
            strengths.shape[0], covariates.shape[1], reg=0.0, hessian_reg=1e-9,
            max_iter=100_000, ftol=0.0, gtol=1e-13,
        )
        model.fit(dataset)
        ratings = np.asarray(model.params["ratings"])
        coef = np.asarray(model.params["coeffs"])
        n_obs = y.shape[0]
        hessian, grad_cov = model.compute_hessian_and_covariance(
            model.params["ratings"], model.params["coeffs"], dataset.pairs,
            dataset.features, dataset.outcomes, dataset.weights, 0.0, 1e-9,
            strengths.shape[0], covariates.shape[1], n_obs,
        )
        inverse = np.linalg.inv(np.asarray(hessian))
        cov = inverse @ np.asarray(grad_cov) @ inverse / n_obs
        se = np.sqrt(np.diag(cov)[strengths.shape[0]:])
        lines.append(_fmt(f"ARENA_RANK_{label}_RATINGS", ratings - ratings.mean()))
        lines.append(_fmt(f"ARENA_RANK_{label}_COEF", coef))
        lines.append(_fmt(f"ARENA_RANK_{label}_SE", se))
    return "".join(lines)


if __name__ == "__main__":
    print(leaderbot_reference())
    print(arena_rank_reference())
