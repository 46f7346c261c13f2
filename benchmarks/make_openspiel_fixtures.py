"""Reference values from OpenSpiel for the alpha-Rank and voting tests.

Run with a Python that has ``open_spiel`` (PyPI) and ``cvxpy`` installed, for
example a dedicated venv (never a dependency of sklearn-eval)::

    python -m venv /work/bench-venvs/openspiel
    /work/bench-venvs/openspiel/bin/pip install open_spiel cvxpy
    /work/bench-venvs/openspiel/bin/python benchmarks/make_openspiel_fixtures.py \
        > tests/game/openspiel_reference.json

The script reads the data files shipped in ``sklearn_eval/datasets/data`` (it
does not import sklearn_eval) and prints JSON:

* ``alpharank_soccer``: ``egt.alpharank.compute([P], m=50, alpha=a)`` on the
  10 x 10 MuJoCo soccer win-probability matrix for ``a`` in 1, 10, 100;
* ``alpharank_two_population``: ``compute([S, -S], m=50, alpha=a)`` on the
  min-max normalised Agent57 table (8 agents incl. human/random x the first 8
  games), the zero-sum agents-vs-tasks game;
* ``voting_agent57``: the ranking of every OpenSpiel voting method on the
  Agent57 table of its ``voting/examples/atari.py`` example (8 alternatives:
  human, random and the six agents; one vote per game, higher score better).
  OpenSpiel's ``add_vote_from_values`` breaks ties with random noise; here each
  game's tied groups are instead expanded into all their orders, each order
  with an equal integer weight (the same total weight per game), which is
  exactly "a tie counts half a preference each way" (the convention of
  ``VotingRanker``). Every ranking is also recomputed under 20 random
  tie-breaks (OpenSpiel's own procedure) and the number of agreeing seeds is
  recorded.
"""

import itertools
import json
import math
import os
import sys
import warnings

import numpy as np
import pyspiel
from open_spiel.python.egt import alpharank
from open_spiel.python.voting import (
    base,
    borda,
    copeland,
    kemeny_young,
    maximal_lotteries,
    plurality,
    ranked_pairs,
    schulze,
)
from open_spiel.python.voting.examples import atari_datasets

DATA = os.path.join(
    os.path.dirname(__file__), os.pardir, "sklearn_eval", "datasets", "data"
)


def soccer():
    path = os.path.join(DATA, "openspiel_response_graph_ucb_soccer.txt")
    return np.loadtxt(path)


def agent57():
    path = os.path.join(DATA, "openspiel_atari_agent57_table.txt")
    return atari_datasets.parse_atari_table(path)


def alpharank_references():
    P = soccer()
    out = {}
    for alpha in (1.0, 10.0, 100.0):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            _, _, pi, _, _ = alpharank.compute([P], m=50, alpha=alpha)
        out[str(alpha)] = {
            "pi": pi.tolist(),
            "warnings": sorted({str(w.message) for w in caught}),
        }
    return out


def two_population_reference():
    data = agent57()
    games = data.game_names[:8]
    S = np.array([data.table_data[g] for g in games]).T  # agents x games
    S = (S - S.min(axis=0)) / (S.max(axis=0) - S.min(axis=0))
    out = {"agents": data.agent_names, "games": games, "S": S.tolist()}
    for alpha in (1.0, 10.0):
        _, _, pi, _, _ = alpharank.compute([S, -S], m=50, alpha=alpha)
        out[str(alpha)] = pi.tolist()  # profiles (agent, game), game fastest
    return out


def tie_expanded_profile(data):
    """Every game's tie groups in all orders, equal total weight per game."""
    orders_per_game, counts = [], []
    for game in data.game_names:
        values = np.asarray(data.table_data[game])
        levels = sorted(set(values.tolist()), reverse=True)
        groups = [np.flatnonzero(values == v).tolist() for v in levels]
        orders = [
            [i for block in choice for i in block]
            for choice in itertools.product(
                *(itertools.permutations(g) for g in groups)
            )
        ]
        orders_per_game.append(orders)
        counts.append(len(orders))
    total = math.lcm(*counts)
    profile = base.PreferenceProfile(alternatives=data.agent_names)
    for orders in orders_per_game:
        for order in orders:
            profile.add_vote(
                [data.agent_names[i] for i in order], weight=total // len(orders)
            )
    return profile, total


def random_tie_profile(data, seed):
    np.random.seed(seed)  # noqa: NPY002 - OpenSpiel draws from the global state
    profile = base.PreferenceProfile(alternatives=data.agent_names)
    for game in data.game_names:
        profile.add_vote_from_values(data.table_data[game])
    return profile


METHODS = {
    "borda": borda.BordaVoting,
    "copeland": copeland.CopelandVoting,
    "kemeny_young": kemeny_young.KemenyYoungVoting,
    "maximal_lotteries": lambda: maximal_lotteries.MaximalLotteriesVoting(
        iterative=True
    ),
    "plurality": plurality.PluralityVoting,
    "ranked_pairs": ranked_pairs.RankedPairsVoting,
    "schulze": schulze.SchulzeVoting,
}


def sco_ranking(profile, iterations, batch_size, seed):
    """OpenSpiel's C++ SCO (sigmoid loss) as in its atari.py example.

    The Python ``SoftCondorcetOptimizer`` ungroups the weighted profile into
    one vote per unit of weight (6840 here), far too slow for a long run.
    """
    profile.group()
    solver = pyspiel.sco.SoftCondorcetOptimizer(
        profile.to_list_of_tuples(), rating_lower_bound=-100.0,
        rating_upper_bound=100.0, batch_size=batch_size, temperature=1,
        rng_seed=seed,
    )
    solver.run_solver(iterations, learning_rate=0.01)
    ratings = solver.ratings()
    ranking = sorted(ratings, key=lambda a: -ratings[a])
    return ranking, [float(ratings[a]) for a in ranking]


def kemeny_optima(profile):
    pref = profile.pref_matrix()
    m = pref.shape[0]
    best, count = -1, 0
    for perm in itertools.permutations(range(m)):
        score = sum(pref[perm[i], perm[j]] for i in range(m) for j in range(i + 1, m))
        if score > best:
            best, count = score, 1
        elif score == best:
            count += 1
    return int(best), count


def voting_references():
    data = agent57()
    profile, weight = tie_expanded_profile(data)
    out = {
        "alternatives": data.agent_names,
        "games": data.game_names,
        "weight_per_game": weight,
        "margin_matrix": profile.margin_matrix().tolist(),
        "condorcet_winner": profile.condorcet_winner(True),
        "methods": {},
    }
    best, n_optima = kemeny_optima(profile)
    out["kemeny_best_score"] = best
    out["kemeny_n_optima"] = n_optima
    for name, make in METHODS.items():
        outcome = make().run_election(profile)
        agree = 0
        for seed in range(20):
            other = make().run_election(random_tie_profile(data, seed))
            agree += list(other.ranking) == list(outcome.ranking)
        out["methods"][name] = {
            "ranking": list(outcome.ranking),
            "scores": [float(s) for s in outcome.scores],
            "random_tie_break_agreement": agree,
        }
    runs = {}
    for batch_size, iterations in ((4, 10000), (32, 100000)):
        for seed in range(3):
            ranking, ratings = sco_ranking(
                tie_expanded_profile(data)[0], iterations, batch_size, seed
            )
            runs[f"batch{batch_size}_iter{iterations}_seed{seed}"] = {
                "ranking": ranking, "ratings": ratings,
            }
    # the reference: the long run with the larger batch, seed 0
    out["methods"]["sco"] = dict(runs["batch32_iter100000_seed0"], runs=runs)
    return out


def main():
    json.dump(
        {
            "alpharank_soccer": alpharank_references(),
            "alpharank_two_population": two_population_reference(),
            "voting_agent57": voting_references(),
        },
        sys.stdout,
        indent=1,
    )
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
