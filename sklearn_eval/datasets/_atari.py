"""Atari 2600 (ALE) scores of published agents, and the random/human anchors.

Game names use one spelling everywhere (dqn_zoo's snake_case, e.g.
``"bank_heist"``); rldb's hyphens are replaced by underscores.
"""

import numpy as np
from sklearn.utils import Bunch

from ..utils._sklearn_compat import StrOptions, validate_params
from ._base import _load_descr, _open_text, _read_csv_rows
from ._bunches import (
    _float_column,
    _long_table_bunch,
    _result_matrix_bunch,
    _result_matrix_frame,
    _to_float,
)

__all__ = ["load_atari", "load_atari_reference_scores"]


_ATARI_KINDS = ("noop_matrix", "long", "agent57", "rainbow", "muesli")
_OPENSPIEL_TABLES = {
    "agent57": "openspiel_atari_agent57_table.txt",
    "rainbow": "openspiel_atari_rainbow_table6.txt",
    "muesli": "openspiel_atari_muesli_table11.txt",
}
_REFERENCE_COLUMNS = ("random", "human")


def _game_name(name):
    return name.strip().replace("-", "_")


def _parse_table_cell(token):
    """'1,486.5' -> (1486.5, nan); '297638.17±37054.55' -> (297638.17, 37054.55)."""
    token = token.replace(",", "")
    value, _, spread = token.partition("±")
    return float(value), (float(spread) if spread else np.nan)


def _parse_openspiel_table(filename):
    """Parse an OpenSpiel voting-example table (whitespace separated).

    Returns (source line, column names, games, values, spreads), values and
    spreads of shape (n_games, n_columns).
    """
    lines = [line.strip() for line in _open_text(filename).splitlines()]
    comments = [line for line in lines if line.startswith("#")]
    body = [line for line in lines if line and not line.startswith("#")]
    header = comments[-1].lstrip("#").split()
    if header[0] != "game":
        raise ValueError(f"unexpected header in {filename}: {comments[-1]!r}")
    columns = header[1:]
    games, values, spreads = [], [], []
    for line_number, line in enumerate(body, start=1):
        tokens = line.split()
        if len(tokens) != len(header):
            raise ValueError(
                f"{filename}: data line {line_number} has {len(tokens)} fields, "
                f"expected {len(header)}."
            )
        games.append(_game_name(tokens[0]))
        cells = [_parse_table_cell(token) for token in tokens[1:]]
        values.append([value for value, _ in cells])
        spreads.append([spread for _, spread in cells])
    return (
        comments[0].lstrip("# ").strip(),
        columns,
        np.array(games, dtype=object),
        np.array(values, dtype=np.float64),
        np.array(spreads, dtype=np.float64),
    )


def _load_atari_noop_matrix(as_frame):
    header, rows = _read_csv_rows("rldb_atari_noop_matrix.csv")
    agents = [row[0] for row in rows]
    games = [_game_name(name) for name in header[1:]]
    data = np.array([[_to_float(cell) for cell in row[1:]] for row in rows])
    return _result_matrix_bunch(
        data,
        agents,
        games,
        as_frame=as_frame,
        descr="atari_noop_matrix",
        task_label="game",
        kind="noop_matrix",
    )


_ATARI_LONG_DTYPES = {
    "source": "object",
    "arxiv": "object",
    "algo": "object",
    "algo_title": "object",
    "frames": "object",
    "variant": "object",
    "game": "object",
    "score": "float64",
}


def _load_atari_long(as_frame):
    header, rows = _read_csv_rows("rldb_atari_scores_long.csv.gz")
    expected = list(_ATARI_LONG_DTYPES)
    if header != expected:
        raise ValueError(f"unexpected rldb columns {header}, expected {expected}")
    columns = {}
    for position, name in enumerate(header):
        if name == "score":
            columns[name] = _float_column(rows, position)
        elif name == "game":
            columns[name] = np.array(
                [_game_name(row[position]) for row in rows], dtype=object
            )
        else:
            columns[name] = np.array(
                [row[position] or None for row in rows], dtype=object
            )
    return _long_table_bunch(
        columns,
        _ATARI_LONG_DTYPES,
        as_frame=as_frame,
        descr="atari_long",
        agent_column="algo",
        kind="long",
    )


def _load_atari_openspiel(kind, as_frame):
    source, columns, games, values, spreads = _parse_openspiel_table(
        _OPENSPIEL_TABLES[kind]
    )
    agent_columns = [
        i for i, name in enumerate(columns) if name not in _REFERENCE_COLUMNS
    ]
    references = {
        f"{name}_scores": values[:, columns.index(name)] if name in columns else None
        for name in _REFERENCE_COLUMNS
    }
    agents = [columns[i] for i in agent_columns]
    data = values[:, agent_columns].T.copy()
    spread = spreads[:, agent_columns].T.copy()
    bunch = _result_matrix_bunch(
        data,
        agents,
        games,
        as_frame=as_frame,
        descr=f"atari_{kind}",
        task_label="game",
        kind=kind,
        spread=spread,
        source=source,
        **references,
    )
    return bunch


@validate_params(
    {"kind": [StrOptions(set(_ATARI_KINDS))], "as_frame": ["boolean"]},
    prefer_skip_nested_validation=True,
)
def load_atari(kind="noop_matrix", *, as_frame=False):
    """Load Atari 2600 (ALE) scores of published agents.

    Five views of the published Atari-57 results (details, sources and
    licences in ``DESCR``):

    ``"noop_matrix"``
        rldb's no-op-start scores pivoted to a (32, 57) agents x games matrix
        (agent ``algo@paper``; NaN where a paper did not report a game). Includes
        the ``human@dqn``/``human@dudqn`` and ``random@dqn`` reference rows.
    ``"long"``
        rldb's long table, 2740 rows (source, arxiv, algo, algo_title, frames,
        variant ``"No-op start"``/``"Human start"``, game, score).
    ``"agent57"``
        Agent57 paper (arXiv 2003.13350, Sec. H.4): (6, 57) scores of agent57,
        r2d2(bandit), muzero, ngu, r2d2(retrace), r2d2, with ``spread`` (the
        "±" values; NaN where none, e.g. muzero) and per-game ``random_scores``
        and ``human_scores``.
    ``"rainbow"``
        Rainbow paper (arXiv 1710.02298): (8, 54) scores of dqn, a3c, ddqn,
        prior-ddqn, dueling-ddqn, distrib-dqn, noisy-dqn, rainbow. OpenSpiel's
        header calls them no-op starts, but they are the paper's HUMAN-START
        numbers (cross-checked against rldb).
    ``"muesli"``
        Muesli paper (arXiv 2104.06159, Table 11): (2, 57) scores of muzero
        and muesli with ``spread`` and per-game random and human scores.

    Parameters
    ----------
    kind : {"noop_matrix", "long", "agent57", "rainbow", "muesli"}, \
            default="noop_matrix"
        Which table to load.
    as_frame : bool, default=False
        If True, ``data`` is a pandas DataFrame (agents as index, games as
        columns; or the long table) and ``frame`` holds it.

    Returns
    -------
    data : :class:`~sklearn.utils.Bunch`
        ``data`` (n_agents, n_games) float64 with NaN for missing scores, or the
        long table (object ndarray of shape (2740, 8) or DataFrame);
        ``agent_names`` and ``feature_names`` (games) for the matrices;
        ``spread``, ``random_scores``, ``human_scores`` (None when the table
        has none) and ``source`` for the paper tables; ``kind``; ``frame``;
        ``DESCR``; ``reference_agents``, a dict from each reference agent's
        label to its kind (``{"human@dqn": "human", "human@dudqn": "human",
        "random@dqn": "random"}`` for ``"noop_matrix"``, ``{"human": "human",
        "random": "random"}`` for the ``algo`` column of ``"long"``, empty for
        the paper tables, whose anchors are ``random_scores`` and
        ``human_scores``), and ``is_reference``, a boolean mask over the
        agents (over the rows of ``"long"``). Reference agents are anchors of
        the normalised scores, not competitors: leave them out of rankings
        (the report and the demo do). With ``as_frame=True`` the frame's
        ``attrs["reference_agents"]`` holds the same dict.

    Examples
    --------
    >>> from sklearn_eval.datasets import load_atari
    >>> atari = load_atari()
    >>> atari.data.shape
    (32, 57)
    >>> load_atari("agent57").agent_names[0]
    'agent57'
    >>> atari.reference_agents
    {'human@dqn': 'human', 'human@dudqn': 'human', 'random@dqn': 'random'}
    >>> atari.agent_names[~atari.is_reference].shape
    (29,)
    """
    if kind == "noop_matrix":
        return _load_atari_noop_matrix(as_frame)
    if kind == "long":
        return _load_atari_long(as_frame)
    return _load_atari_openspiel(kind, as_frame)


@validate_params({"as_frame": ["boolean"]}, prefer_skip_nested_validation=True)
def load_atari_reference_scores(*, as_frame=False):
    """Load the random-agent and human scores of the 57 Atari games (dqn_zoo).

    These are the usual anchors of human-normalised scores,
    ``100 * (score - random) / (human - random)``
    (see :func:`sklearn_eval.utils.baseline_normalize`).

    Parameters
    ----------
    as_frame : bool, default=False
        If True, ``data`` is a DataFrame indexed by game.

    Returns
    -------
    data : :class:`~sklearn.utils.Bunch`
        ``data`` (57, 2) float64 with columns ``feature_names = ["random",
        "human"]``; ``games`` (57,) the row labels (snake_case, as in
        :func:`load_atari`); ``random`` and ``human`` (57,) as separate arrays;
        ``frame``; ``DESCR``.

    Examples
    --------
    >>> from sklearn_eval.datasets import load_atari_reference_scores
    >>> ref = load_atari_reference_scores()
    >>> ref.data.shape, ref.games[0], float(ref.human[0])
    ((57, 2), 'alien', 7127.7)
    """
    header, rows = _read_csv_rows("dqnzoo_atari57_random_human.csv")
    if header != ["game", "random", "human"]:
        raise ValueError(f"unexpected dqn_zoo columns {header}")
    games = np.array([_game_name(row[0]) for row in rows], dtype=object)
    data = np.column_stack([_float_column(rows, 1), _float_column(rows, 2)])
    random_scores, human_scores = data[:, 0].copy(), data[:, 1].copy()
    frame = None
    if as_frame:
        frame = _result_matrix_frame(
            data, games, ["random", "human"], "game", "reference"
        )
        data = frame
    return Bunch(
        data=data,
        frame=frame,
        games=games,
        random=random_scores,
        human=human_scores,
        feature_names=np.array(["random", "human"], dtype=object),
        DESCR=_load_descr("atari_reference_scores"),
    )
