"""Agent-vs-agent payoff tables: repeated rock-paper-scissors bots and soccer."""

import re

import numpy as np

from ..utils._sklearn_compat import validate_params
from ._base import _open_text
from ._bunches import _result_matrix_bunch

__all__ = ["load_rrps", "load_soccer"]


_RRPS_LINE = re.compile(
    r"^\('(?P<first>[^']+)',\s*'(?P<second>[^']+)',\s*"
    r"(?P<value>[-+]?\d+(?:\.\d*)?(?:[eE][-+]?\d+)?)\)$"
)


@validate_params({"as_frame": ["boolean"]}, prefer_skip_nested_validation=True)
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
        the same names; ``frame``; ``DESCR``; ``reference_agents``
        (``{"randbot": "random"}``: it throws uniformly at random, the
        competition's baseline; also in ``frame.attrs``) and ``is_reference``
        (a boolean mask over the bots).

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


@validate_params({"as_frame": ["boolean"]}, prefer_skip_nested_validation=True)
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
        the same names; ``frame``; ``DESCR``; ``reference_agents`` (empty:
        the source has no reference agent) and ``is_reference``.

    Examples
    --------
    >>> from sklearn_eval.datasets import load_soccer
    >>> soccer = load_soccer()
    >>> soccer.data.shape, float(soccer.data[0, 0])
    ((10, 10), 0.5)
    """
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
