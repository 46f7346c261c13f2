"""Men's international football results, 1872 onwards, as a match table."""

import numpy as np

from ..utils._sklearn_compat import StrOptions, validate_params
from ._base import _read_csv_rows
from ._bunches import _matches_bunch

__all__ = ["load_international_football"]


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


@validate_params(
    {"subset": [StrOptions(set(_FOOTBALL_SUBSETS))], "as_frame": ["boolean"]},
    prefer_skip_nested_validation=True,
)
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
        ``frame``; ``DESCR``; ``reference_agents`` (empty) and
        ``is_reference`` (over ``players``).

    Examples
    --------
    >>> from sklearn_eval.datasets import load_international_football
    >>> wc = load_international_football("world_cup")
    >>> wc.data.shape
    (1068, 2)
    >>> wc.data[0].tolist(), float(wc.target[0])
    (['Belgium', 'United States'], 0.0)
    """
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
