"""Matches from judged pairwise comparisons, with position and length covariates."""

import numpy as np
import pandas as pd

__all__ = ["JUDGED_COLUMNS", "judged_matches"]

#: the extra columns of a long table of judged comparisons
JUDGED_COLUMNS = ("opponent", "position", "length", "opponent_length")


def judged_matches(rows):
    """Matches from judged rows (``model`` vs ``opponent``), with covariates.

    ``rows`` are the long table's rows of one metric. ``model_a`` is the first
    of the two models in sorted order; ``y`` the judge's decision for it (1,
    0 or 0.5 for a draw), a fractional preference ``p`` split into a win of
    ``weight`` p and a loss of ``weight`` 1 - p;
    ``position`` is +1 when ``model_a``'s output was shown first and -1 when
    second; ``length_diff`` is ``model_a``'s output length minus ``model_b``'s,
    in thousands of characters.
    """
    missing = [column for column in JUDGED_COLUMNS if column not in rows.columns]
    if missing:
        raise ValueError(
            f"The judged comparisons lack the column(s) {missing}; a long table "
            f"with an 'opponent' column needs {list(JUDGED_COLUMNS)}."
        )
    rows = rows[rows["score"].notna()]
    if len(rows) == 0:
        raise ValueError("No judged comparison has a preference.")
    model = rows["model"].to_numpy(dtype=object)
    opponent = rows["opponent"].to_numpy(dtype=object)
    position = pd.to_numeric(rows["position"], errors="coerce").to_numpy(float)
    if not np.isin(position, (1.0, 2.0)).all():
        raise ValueError("Column 'position' must be 1 or 2 (the model's output "
                         "shown first or second).")
    length = rows["length"].to_numpy(float) - rows["opponent_length"].to_numpy(float)
    score = rows["score"].to_numpy(float)
    swap = model.astype(str) > opponent.astype(str)
    shown_first = np.where(position == 1.0, 1.0, -1.0)
    y = np.where(swap, 1.0 - score, score)
    # a weighted judge's preference p is split into a win of weight p and a
    # loss of weight 1 - p: the Bradley-Terry likelihood of a soft outcome
    soft = ~np.isin(y, (0.0, 0.5, 1.0))
    index = np.repeat(np.arange(len(y)), np.where(soft, 2, 1))
    second = np.zeros(len(index), dtype=bool)
    second[1:] = index[1:] == index[:-1]
    y_out = np.where(second, 0.0, np.where(soft[index], 1.0, y[index]))
    weight = np.where(
        soft[index], np.where(second, 1.0 - y[index], y[index]), 1.0
    )
    matches = pd.DataFrame({
        "model_a": np.where(swap, opponent, model)[index],
        "model_b": np.where(swap, model, opponent)[index],
        "y": y_out,
        "weight": weight,
        "position": np.where(swap, -shown_first, shown_first)[index],
        "length_diff": (np.where(swap, -length, length) / 1000.0)[index],
        "task": rows["task"].to_numpy()[index],
        "item": rows["item"].to_numpy()[index],
    })
    return matches
