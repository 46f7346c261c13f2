"""Loaders of the real benchmark data shipped inside the package.

Every loader parses plain CSV/TXT files (gzip-compressed when large) with the
standard library and numpy: nothing is unpickled or evaluated. pandas is only
needed for ``as_frame=True``.

Conventions shared by all loaders:

* result matrices have agents as rows and tasks (games, items, datasets) as
  columns, like the estimators expect; ``agent_names`` labels the rows and
  ``feature_names`` the columns;
* match tables have ``data`` of shape (n_matches, 2) (first player, second
  player) and ``target`` the outcome for the first player (1 win, 0 loss,
  0.5 draw);
* with ``as_frame=True``, ``data`` (and ``target``) become pandas objects and
  ``frame`` holds one DataFrame with everything; otherwise ``frame`` is None;
* Atari game names use one spelling everywhere (dqn_zoo's snake_case, e.g.
  ``"bank_heist"``); rldb's hyphens are replaced by underscores.
"""

import re

import numpy as np
from sklearn.utils import Bunch

from ._base import _import_pandas, _load_descr, _open_text, _read_csv_rows

__all__ = [
    "load_atari",
    "load_atari_reference_scores",
    "load_automl_benchmark",
    "load_chembench",
    "load_international_football",
    "load_rrps",
    "load_soccer",
    "load_vicuna80",
]


# ---------------------------------------------------------------------------
# Small parsing helpers
# ---------------------------------------------------------------------------
def _check_bool(value, name):
    if not isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{name} must be a bool, got {value!r}.")
    return bool(value)


def _check_option(value, name, options):
    if not isinstance(value, str) or value not in options:
        raise ValueError(f"{name} must be one of {list(options)}, got {value!r}.")
    return value


def _to_float(text):
    """Parse a number from a table cell; '' and 'nan' (any case) give NaN."""
    text = text.strip()
    if text == "" or text.lower() == "nan":
        return np.nan
    return float(text)


def _float_column(rows, index):
    return np.array([_to_float(row[index]) for row in rows], dtype=np.float64)


def _str_column(rows, index):
    return np.array([row[index] for row in rows], dtype=object)


def _game_name(name):
    return name.strip().replace("-", "_")


def _result_matrix_frame(data, agent_names, feature_names, agent_label, task_label):
    pd = _import_pandas("as_frame=True")
    return pd.DataFrame(
        data,
        index=pd.Index(agent_names, name=agent_label),
        columns=pd.Index(feature_names, name=task_label),
    )


def _result_matrix_bunch(
    data,
    agent_names,
    feature_names,
    *,
    as_frame,
    descr,
    agent_label="agent",
    task_label="task",
    **extra,
):
    """Bunch for an agents x tasks matrix (``frame`` indexed by agent)."""
    frame = None
    agent_names = np.asarray(agent_names, dtype=object)
    feature_names = np.asarray(feature_names, dtype=object)
    if as_frame:
        frame = _result_matrix_frame(
            data, agent_names, feature_names, agent_label, task_label
        )
        data = frame
    return Bunch(
        data=data,
        frame=frame,
        agent_names=agent_names,
        feature_names=feature_names,
        DESCR=_load_descr(descr),
        **extra,
    )


def _long_table_bunch(columns, dtypes, *, as_frame, descr, **extra):
    """Bunch for a long table given as {name: column ndarray}.

    Without pandas ``data`` is an object ndarray (one column per field, numbers
    as float or int, missing strings as None); with pandas a typed DataFrame.
    """
    names = list(columns)
    if as_frame:
        pd = _import_pandas("as_frame=True")
        frame = pd.DataFrame({name: columns[name] for name in names})
        frame = frame.astype(dtypes)
        data = frame
    else:
        frame = None
        data = np.empty((len(columns[names[0]]), len(names)), dtype=object)
        for position, name in enumerate(names):
            data[:, position] = columns[name]
    return Bunch(
        data=data,
        frame=frame,
        feature_names=np.asarray(names, dtype=object),
        DESCR=_load_descr(descr),
        **extra,
    )


# ---------------------------------------------------------------------------
# Atari
# ---------------------------------------------------------------------------
_ATARI_KINDS = ("noop_matrix", "long", "agent57", "rainbow", "muesli")
_OPENSPIEL_TABLES = {
    "agent57": "openspiel_atari_agent57_table.txt",
    "rainbow": "openspiel_atari_rainbow_table6.txt",
    "muesli": "openspiel_atari_muesli_table11.txt",
}
_REFERENCE_COLUMNS = ("random", "human")


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
        ``DESCR``.

    Examples
    --------
    >>> from sklearn_eval.datasets import load_atari
    >>> atari = load_atari()
    >>> atari.data.shape
    (32, 57)
    >>> load_atari("agent57").agent_names[0]
    'agent57'
    """
    kind = _check_option(kind, "kind", _ATARI_KINDS)
    as_frame = _check_bool(as_frame, "as_frame")
    if kind == "noop_matrix":
        return _load_atari_noop_matrix(as_frame)
    if kind == "long":
        return _load_atari_long(as_frame)
    return _load_atari_openspiel(kind, as_frame)


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
    as_frame = _check_bool(as_frame, "as_frame")
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


# ---------------------------------------------------------------------------
# ChemBench
# ---------------------------------------------------------------------------
def load_chembench(*, as_frame=False):
    """Load ChemBench item responses of 22 large language models.

    Binary "all correct" outcome of each model on each of 2854 ChemBench
    questions, from the irt-on-bench repository. The source file has questions as
    rows; here it is transposed so agents (LLMs) are rows, as the IRT estimators
    expect.

    Parameters
    ----------
    as_frame : bool, default=False
        If True, ``data`` is a DataFrame indexed by model, ``target`` a Series.

    Returns
    -------
    data : :class:`~sklearn.utils.Bunch`
        ``data`` (22, 2854) float64 of 0/1 responses; ``agent_names`` (22,)
        model names; ``feature_names`` (2854,) item names ``"item_0000"`` ...
        (``"item_k"`` is row ``k`` of the source file); ``target`` (22,) the
        published model score (fraction of items all-correct, equal to the row
        mean of ``data``); ``frame``; ``DESCR``.

    Examples
    --------
    >>> from sklearn_eval.datasets import load_chembench
    >>> chem = load_chembench()
    >>> chem.data.shape
    (22, 2854)
    >>> bool(abs(chem.data.mean(axis=1) - chem.target).max() < 1e-12)
    True
    """
    as_frame = _check_bool(as_frame, "as_frame")
    header, rows = _read_csv_rows("irt_on_bench_chembench_binary_matrix.csv.gz")
    models = header[1:]
    item_ids = [int(row[0]) for row in rows]
    if item_ids != list(range(len(rows))):
        raise ValueError("ChemBench item index is not 0 .. n_items - 1")
    responses = np.array([[float(cell) for cell in row[1:]] for row in rows])
    data = np.ascontiguousarray(responses.T)
    items = np.array([f"item_{k:04d}" for k in item_ids], dtype=object)

    score_header, score_rows = _read_csv_rows("irt_on_bench_chembench_model_scores.csv")
    scores = {row[0]: float(row[1]) for row in score_rows}
    missing = [model for model in models if model not in scores]
    if missing:
        raise ValueError(f"ChemBench scores missing for models {missing}")
    target = np.array([scores[model] for model in models], dtype=np.float64)

    bunch = _result_matrix_bunch(
        data,
        models,
        items,
        as_frame=as_frame,
        descr="chembench",
        agent_label="model",
        task_label="item",
        target=target,
    )
    if as_frame:
        pd = _import_pandas("as_frame=True")
        bunch.target = pd.Series(target, index=bunch.frame.index, name="score")
    return bunch


# ---------------------------------------------------------------------------
# Match tables: Vicuna80 and international football
# ---------------------------------------------------------------------------
def _matches_bunch(
    first, second, y, *, names, extra_columns, dtypes, as_frame, descr, **extra
):
    """Bunch for a match table; ``extra_columns`` go to the frame and the Bunch."""
    X = np.column_stack([first, second]).astype(object)
    players = np.array(sorted(set(first) | set(second)), dtype=object)
    frame = None
    target = y
    data = X
    if as_frame:
        pd = _import_pandas("as_frame=True")
        frame = pd.DataFrame(
            {names[0]: first, names[1]: second, **extra_columns, "y": y}
        ).astype(dtypes)
        data = frame[list(names)]
        target = frame["y"]
    return Bunch(
        data=data,
        target=target,
        frame=frame,
        players=players,
        feature_names=np.array(names, dtype=object),
        DESCR=_load_descr(descr),
        **extra_columns,
        **extra,
    )


_VICUNA_OUTCOME = {1: 1.0, 2: 0.0, 3: 0.5}


def load_vicuna80(*, as_frame=False):
    """Load the Vicuna80 pairwise human judgments as a table of matches.

    7040 human three-way judgments of answers by nine chat models to the 80
    Vicuna questions (PRD repository): each row compares the answer of
    ``model_a`` with that of ``model_b`` on one question; the raw ``score`` is 1
    (A better), 2 (B better) or 3 (tie), mapped to the outcome for ``model_a``:
    ``y = 1``, ``0`` or ``0.5``.

    Parameters
    ----------
    as_frame : bool, default=False
        If True, ``data`` is a DataFrame with columns model_a, model_b,
        ``target`` a Series and ``frame`` has all columns.

    Returns
    -------
    data : :class:`~sklearn.utils.Bunch`
        ``data`` (7040, 2) object array of model names; ``target`` (7040,)
        float64 in {0, 0.5, 1}; ``question_id`` (7040,) int64 in 1..80;
        ``score`` (7040,) int64 raw judgment; ``players`` (9,) sorted model
        names; ``feature_names``; ``frame``; ``DESCR``.

    Examples
    --------
    >>> from sklearn_eval.datasets import load_vicuna80
    >>> vicuna = load_vicuna80()
    >>> vicuna.data.shape, len(vicuna.players)
    ((7040, 2), 9)
    >>> sorted(set(vicuna.target.tolist()))
    [0.0, 0.5, 1.0]
    """
    as_frame = _check_bool(as_frame, "as_frame")
    header, rows = _read_csv_rows("prd_vicuna80_human_pairwise.csv.gz")
    if header != ["model_a", "model_b", "question_id", "score"]:
        raise ValueError(f"unexpected Vicuna80 columns {header}")
    score = np.array([int(row[3]) for row in rows], dtype=np.int64)
    unknown = sorted(set(score.tolist()) - set(_VICUNA_OUTCOME))
    if unknown:
        raise ValueError(f"unexpected Vicuna80 scores {unknown}")
    y = np.array([_VICUNA_OUTCOME[value] for value in score.tolist()])
    extra_columns = {
        "question_id": np.array([int(row[2]) for row in rows], dtype=np.int64),
        "score": score,
    }
    return _matches_bunch(
        _str_column(rows, 0),
        _str_column(rows, 1),
        y,
        names=("model_a", "model_b"),
        extra_columns=extra_columns,
        dtypes={"model_a": "object", "model_b": "object"},
        as_frame=as_frame,
        descr="vicuna80",
    )


_FOOTBALL_SUBSETS = ("all", "world_cup")
_FOOTBALL_COLUMNS = [
    "date",
    "home_team",
    "away_team",
    "home_score",
    "away_score",
    "tournament",
    "city",
    "country",
    "neutral",
]


def load_international_football(subset="all", *, as_frame=False):
    """Load results of men's international football matches, 1872 onwards.

    Matches from martj42/international_results (CC0-1.0), in chronological
    order, as a match table: first player the home team, second the away
    team, ``y`` from the score (1 home win, 0 away win, 0.5 draw; shoot-outs are
    not counted). ``neutral`` flags matches at a neutral venue, where "home" is
    nominal.

    Parameters
    ----------
    subset : {"all", "world_cup"}, default="all"
        ``"world_cup"`` keeps only matches of the final tournaments
        (``tournament == "FIFA World Cup"``, not qualifiers).
    as_frame : bool, default=False
        If True, ``data`` is a DataFrame (home_team, away_team), ``target`` a
        Series and ``frame`` has all columns (``date`` as datetime64).

    Returns
    -------
    data : :class:`~sklearn.utils.Bunch`
        ``data`` (n_matches, 2) object array (home, away); ``target``
        (n_matches,) float64; ``date`` datetime64[D]; ``home_score``,
        ``away_score`` int64; ``tournament``, ``city``, ``country`` object;
        ``neutral`` bool; ``players`` sorted team names; ``feature_names``;
        ``frame``; ``DESCR``.

    Examples
    --------
    >>> from sklearn_eval.datasets import load_international_football
    >>> wc = load_international_football("world_cup")
    >>> wc.data.shape
    (1068, 2)
    >>> wc.data[0].tolist(), float(wc.target[0])
    (['Belgium', 'United States'], 0.0)
    """
    subset = _check_option(subset, "subset", _FOOTBALL_SUBSETS)
    as_frame = _check_bool(as_frame, "as_frame")
    header, rows = _read_csv_rows("martj42_international_results_full.csv.gz")
    if header != _FOOTBALL_COLUMNS:
        raise ValueError(f"unexpected football columns {header}")
    if subset == "world_cup":
        rows = [row for row in rows if row[5] == "FIFA World Cup"]
    columns = list(zip(*rows, strict=True))
    home_score = np.array(columns[3], dtype=np.int64)
    away_score = np.array(columns[4], dtype=np.int64)
    y = 0.5 * (np.sign(home_score - away_score) + 1.0)
    if not set(columns[8]) <= {"TRUE", "FALSE"}:
        raise ValueError("football 'neutral' column must be TRUE or FALSE")
    extra_columns = {
        "date": np.array(columns[0], dtype="datetime64[D]"),
        "home_score": home_score,
        "away_score": away_score,
        "tournament": np.array(columns[5], dtype=object),
        "city": np.array(columns[6], dtype=object),
        "country": np.array(columns[7], dtype=object),
        "neutral": np.array(columns[8], dtype=object) == "TRUE",
    }
    return _matches_bunch(
        np.array(columns[1], dtype=object),
        np.array(columns[2], dtype=object),
        y,
        names=("home_team", "away_team"),
        extra_columns=extra_columns,
        dtypes={"home_team": "object", "away_team": "object"},
        as_frame=as_frame,
        descr="international_football",
        subset=subset,
    )


# ---------------------------------------------------------------------------
# Agent-vs-agent payoff tables: RRPS and soccer
# ---------------------------------------------------------------------------
_RRPS_LINE = re.compile(
    r"^\('(?P<first>[^']+)',\s*'(?P<second>[^']+)',\s*"
    r"(?P<value>[-+]?\d+(?:\.\d*)?(?:[eE][-+]?\d+)?)\)$"
)


def load_rrps(*, as_frame=False):
    """Load the 43 x 43 repeated rock-paper-scissors bot payoff table.

    Mean return (over 1000 matches of 1000 throws; in [-1000, 1000]) of each
    row bot against each column bot, from OpenSpiel's population-based evaluation
    data (arXiv 2303.03196). Every ordered pair, the diagonal (self-play)
    included, is its own estimate, so the matrix is only approximately
    antisymmetric; use ``(A - A.T) / 2`` for an exactly antisymmetric game.

    Parameters
    ----------
    as_frame : bool, default=False
        If True, ``data`` is a DataFrame indexed and labelled by bot name.

    Returns
    -------
    data : :class:`~sklearn.utils.Bunch`
        ``data`` (43, 43) float64; ``agent_names`` (43,) bot names sorted
        alphabetically (rows and columns share this order); ``feature_names``
        the same names; ``frame``; ``DESCR``.

    Examples
    --------
    >>> from sklearn_eval.datasets import load_rrps
    >>> rrps = load_rrps()
    >>> rrps.data.shape
    (43, 43)
    >>> names = list(rrps.agent_names)
    >>> float(rrps.data[names.index("granite"), names.index("copybot")])
    992.803
    """
    as_frame = _check_bool(as_frame, "as_frame")
    entries = []
    lines = _open_text("openspiel_pbe_rrps_bot_table_file.txt.gz").splitlines()
    for line_number, line in enumerate(lines, start=1):
        line = line.strip()
        if not line:
            continue
        match = _RRPS_LINE.match(line)
        if match is None:
            raise ValueError(f"RRPS table line {line_number} is malformed: {line!r}")
        entries.append((match["first"], match["second"], float(match["value"])))
    names = sorted({e[0] for e in entries} | {e[1] for e in entries})
    position = {name: i for i, name in enumerate(names)}
    data = np.full((len(names), len(names)), np.nan)
    for first, second, value in entries:
        data[position[first], position[second]] = value
    if np.isnan(data).any():
        raise ValueError("RRPS table does not cover every ordered pair of bots")
    return _result_matrix_bunch(
        data,
        names,
        names,
        as_frame=as_frame,
        descr="rrps",
        agent_label="bot",
        task_label="opponent",
    )


def load_soccer(*, as_frame=False):
    """Load the 10 x 10 MuJoCo soccer win-probability matrix.

    ``data[i, j]`` is the probability that agent ``i`` beats agent ``j``
    (``data + data.T == 1``, 0.5 on the diagonal), from OpenSpiel's
    response-graph UCB data (Rowland et al., 2019). The agents are anonymous in
    the source; they are named ``"agent_0"`` .. ``"agent_9"`` in file order.

    Parameters
    ----------
    as_frame : bool, default=False
        If True, ``data`` is a DataFrame indexed and labelled by agent.

    Returns
    -------
    data : :class:`~sklearn.utils.Bunch`
        ``data`` (10, 10) float64; ``agent_names`` (10,); ``feature_names``
        the same names; ``frame``; ``DESCR``.

    Examples
    --------
    >>> from sklearn_eval.datasets import load_soccer
    >>> soccer = load_soccer()
    >>> soccer.data.shape, float(soccer.data[0, 0])
    ((10, 10), 0.5)
    """
    as_frame = _check_bool(as_frame, "as_frame")
    rows = [
        line.split()
        for line in _open_text("openspiel_response_graph_ucb_soccer.txt").splitlines()
        if line.strip()
    ]
    data = np.array([[float(cell) for cell in row] for row in rows])
    if data.ndim != 2 or data.shape[0] != data.shape[1]:
        raise ValueError(f"soccer matrix is not square: {data.shape}")
    names = [f"agent_{i}" for i in range(data.shape[0])]
    return _result_matrix_bunch(
        data,
        names,
        names,
        as_frame=as_frame,
        descr="soccer",
        task_label="opponent",
    )


# ---------------------------------------------------------------------------
# AutoML Benchmark 2019
# ---------------------------------------------------------------------------
_AMLB_BUDGETS = ("1h", "4h")
_AMLB_KINDS = ("summary", "all")
_AMLB_METRIC = {"binary": "auc", "multiclass": "logloss"}
_AMLB_CELL = re.compile(r"^(?P<value>[^ ]+)(?: \((?P<failed>\d+)\))?$")
_AMLB_INT_COLUMNS = ("fold",)
_AMLB_STR_COLUMNS = (
    "framework",
    "id",
    "info",
    "mode",
    "params",
    "tag",
    "task",
    "utc",
    "version",
    "type",
)


def _parse_amlb_cell(cell, where):
    """'0.84251 (1)' -> (0.84251, 1); 'nan' -> (nan, 0)."""
    match = _AMLB_CELL.match(cell.strip())
    try:
        value = _to_float(match["value"]) if match is not None else None
    except ValueError:
        value = None
    if value is None:
        raise ValueError(f"AutoML benchmark summary: cannot parse {cell!r} {where}")
    failed = int(match["failed"]) if match["failed"] else 0
    return value, failed


def _load_amlb_summary(budget, as_frame):
    header, rows = _read_csv_rows(f"amlb2019_{budget}_result_summary.csv")
    if header[:2] != ["type", "task"]:
        raise ValueError(f"unexpected AutoML benchmark columns {header}")
    frameworks = header[2:]
    tasks = [row[1] for row in rows]
    task_types = np.array([row[0] for row in rows], dtype=object)
    cells = [
        [
            _parse_amlb_cell(cell, f"(task {row[1]!r}, framework {frameworks[j]!r})")
            for j, cell in enumerate(row[2:])
        ]
        for row in rows
    ]
    data = np.array([[value for value, _ in row] for row in cells]).T.copy()
    failed = np.array([[n for _, n in row] for row in cells], dtype=np.int64).T.copy()
    metrics = np.array([_AMLB_METRIC[t] for t in task_types], dtype=object)
    return _result_matrix_bunch(
        data,
        frameworks,
        tasks,
        as_frame=as_frame,
        descr="automl_benchmark",
        agent_label="framework",
        budget=budget,
        kind="summary",
        task_types=task_types,
        metrics=metrics,
        n_failed_folds=failed,
    )


def _load_amlb_all(budget, as_frame):
    header, rows = _read_csv_rows(f"amlb2019_{budget}_all_results.csv.gz")
    columns, dtypes = {}, {}
    for position, name in enumerate(header):
        if name in _AMLB_STR_COLUMNS:
            columns[name] = np.array(
                [row[position] or None for row in rows], dtype=object
            )
            dtypes[name] = "object"
        elif name in _AMLB_INT_COLUMNS:
            columns[name] = np.array(
                [int(row[position]) for row in rows], dtype=np.int64
            )
            dtypes[name] = "int64"
        else:
            columns[name] = _float_column(rows, position)
            dtypes[name] = "float64"
    return _long_table_bunch(
        columns,
        dtypes,
        as_frame=as_frame,
        descr="automl_benchmark",
        budget=budget,
        kind="all",
    )


def load_automl_benchmark(budget="1h", kind="summary", *, as_frame=False):
    """Load the AutoML Benchmark 2019 results (Gijsbers et al., 2019).

    Seven frameworks (autosklearn, autoweka, constantpredictor, h2oautoml,
    randomforest, tpot, tunedrandomforest) on the OpenML classification tasks,
    10 folds each, with a 1-hour or 4-hour budget per fold.

    Parameters
    ----------
    budget : {"1h", "4h"}, default="1h"
        Time budget per fold.
    kind : {"summary", "all"}, default="summary"
        ``"summary"``: the published frameworks x tasks table of mean results
        over folds (the fold mean of ``imp_result``, failed folds imputed; AUC
        for binary tasks, higher is better; log-loss for multiclass tasks,
        LOWER is better). ``"all"``: every run, one row per
        (framework, task, fold), 22 columns.
    as_frame : bool, default=False
        If True, ``data`` is a DataFrame and ``frame`` holds it.

    Returns
    -------
    data : :class:`~sklearn.utils.Bunch`
        For ``"summary"``: ``data`` (7, n_tasks) float64 with NaN where a
        framework failed on every fold (n_tasks = 35 for 1h, 39 for 4h);
        ``agent_names`` (frameworks); ``feature_names`` (tasks); ``task_types``
        ("binary"/"multiclass"); ``metrics`` ("auc"/"logloss");
        ``n_failed_folds`` (7, n_tasks) int64, the "(n)" footnotes of the
        source table. For ``"all"``: ``data`` an object ndarray (or DataFrame)
        with columns ``feature_names``. Both: ``budget``, ``kind``, ``frame``,
        ``DESCR``.

    Examples
    --------
    >>> from sklearn_eval.datasets import load_automl_benchmark
    >>> amlb = load_automl_benchmark("1h")
    >>> amlb.data.shape, amlb.agent_names[0], amlb.feature_names[0]
    ((7, 35), 'autosklearn', 'adult')
    >>> load_automl_benchmark("4h", "all").data.shape
    (2730, 22)
    """
    budget = _check_option(budget, "budget", _AMLB_BUDGETS)
    kind = _check_option(kind, "kind", _AMLB_KINDS)
    as_frame = _check_bool(as_frame, "as_frame")
    if kind == "summary":
        return _load_amlb_summary(budget, as_frame)
    return _load_amlb_all(budget, as_frame)


# ---------------------------------------------------------------------------
# One-call summary
# ---------------------------------------------------------------------------
_CATALOGUE = (
    # (name, loader, kind, licence)
    (
        "atari_noop_matrix",
        lambda: load_atari("noop_matrix"),
        "result matrix (agents x games)",
        "MIT",
    ),
    ("atari_long", lambda: load_atari("long"), "long table", "MIT"),
    (
        "atari_agent57",
        lambda: load_atari("agent57"),
        "result matrix (agents x games)",
        "Apache-2.0",
    ),
    (
        "atari_rainbow",
        lambda: load_atari("rainbow"),
        "result matrix (agents x games)",
        "Apache-2.0",
    ),
    (
        "atari_muesli",
        lambda: load_atari("muesli"),
        "result matrix (agents x games)",
        "Apache-2.0",
    ),
    (
        "atari_reference_scores",
        load_atari_reference_scores,
        "reference scores (games x random/human)",
        "Apache-2.0",
    ),
    ("chembench", load_chembench, "result matrix (LLMs x items, 0/1)", "MIT"),
    ("vicuna80", load_vicuna80, "matches", "MIT"),
    ("rrps", load_rrps, "payoff matrix (bots x bots)", "Apache-2.0"),
    ("soccer", load_soccer, "win-probability matrix (agents x agents)", "Apache-2.0"),
    (
        "automl_benchmark_1h",
        lambda: load_automl_benchmark("1h"),
        "result matrix (frameworks x tasks)",
        "MIT",
    ),
    (
        "automl_benchmark_4h",
        lambda: load_automl_benchmark("4h"),
        "result matrix (frameworks x tasks)",
        "MIT",
    ),
    (
        "automl_benchmark_1h_all",
        lambda: load_automl_benchmark("1h", "all"),
        "long table (runs)",
        "MIT",
    ),
    (
        "automl_benchmark_4h_all",
        lambda: load_automl_benchmark("4h", "all"),
        "long table (runs)",
        "MIT",
    ),
    ("international_football", load_international_football, "matches", "CC0-1.0"),
    (
        "international_football_world_cup",
        lambda: load_international_football("world_cup"),
        "matches",
        "CC0-1.0",
    ),
)


_LOADER_CALLS = {
    "atari_noop_matrix": 'load_atari("noop_matrix")',
    "atari_long": 'load_atari("long")',
    "atari_agent57": 'load_atari("agent57")',
    "atari_rainbow": 'load_atari("rainbow")',
    "atari_muesli": 'load_atari("muesli")',
    "atari_reference_scores": "load_atari_reference_scores()",
    "chembench": "load_chembench()",
    "vicuna80": "load_vicuna80()",
    "rrps": "load_rrps()",
    "soccer": "load_soccer()",
    "automl_benchmark_1h": 'load_automl_benchmark("1h")',
    "automl_benchmark_4h": 'load_automl_benchmark("4h")',
    "automl_benchmark_1h_all": 'load_automl_benchmark("1h", "all")',
    "automl_benchmark_4h_all": 'load_automl_benchmark("4h", "all")',
    "international_football": "load_international_football()",
    "international_football_world_cup": 'load_international_football("world_cup")',
}


def describe_datasets():
    """Summarise every built-in dataset: name, shape, kind and licence.

    Each dataset is loaded to report its real shape (about a second in all).

    Returns
    -------
    summary : list of dict
        One dict per dataset, in a fixed order, with keys ``"name"``,
        ``"loader"`` (the call that loads it, e.g. ``'load_atari("long")'``),
        ``"shape"`` (tuple, the shape of the loader's ``data``), ``"kind"``
        (matches, result matrix, payoff matrix, long table, ...) and
        ``"licence"`` (SPDX identifier of the source's licence).

    Examples
    --------
    >>> from sklearn_eval.datasets import describe_datasets
    >>> summary = describe_datasets()
    >>> summary[0]["name"], summary[0]["shape"], summary[0]["licence"]
    ('atari_noop_matrix', (32, 57), 'MIT')
    >>> sorted({entry["licence"] for entry in summary})
    ['Apache-2.0', 'CC0-1.0', 'MIT']
    """
    summary = []
    for name, loader, kind, licence in _CATALOGUE:
        shape = tuple(int(n) for n in np.shape(loader().data))
        summary.append(
            {
                "name": name,
                "loader": _LOADER_CALLS[name],
                "shape": shape,
                "kind": kind,
                "licence": licence,
            }
        )
    return summary
