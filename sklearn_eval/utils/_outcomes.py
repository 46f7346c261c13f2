"""The outcome vocabulary of matches, shared by the API and the file readers."""

import numpy as np

__all__ = ["OUTCOME_WORDS", "outcomes_from_words"]

#: Words accepted for a match outcome (case-insensitive, surrounding spaces
#: ignored), as the first player's score: 1 win, 0 loss, 0.5 draw.
OUTCOME_WORDS = {
    "win": 1.0,
    "w": 1.0,
    "won": 1.0,
    "loss": 0.0,
    "lose": 0.0,
    "lost": 0.0,
    "l": 0.0,
    "draw": 0.5,
    "d": 0.5,
    "tie": 0.5,
    "1-0": 1.0,
    "0-1": 0.0,
    "1/2-1/2": 0.5,
}


def outcomes_from_words(y):
    """``y`` with outcome words (``"win"``, ``"draw"``, ...) turned into numbers.

    Numeric input, and anything that is not an array of strings, is returned
    as it is; a string that is neither a word of ``OUTCOME_WORDS`` nor a
    number is a ValueError naming its row.
    """
    arr = np.asarray(y)
    if arr.dtype.kind not in "OUS" or arr.ndim != 1:
        return y
    values = np.empty(arr.shape[0], dtype=object)
    for k, item in enumerate(arr):
        if isinstance(item, (str, np.str_)):
            word = OUTCOME_WORDS.get(item.strip().lower())
            if word is None:
                try:
                    word = float(item)
                except ValueError:
                    raise ValueError(
                        f"y must be 1 (first player wins), 0 (loses) or 0.5 "
                        "(draw), or a word: win, loss, draw (also w, l, d, tie, "
                        f"1-0, 0-1, 1/2-1/2); got {str(item)!r} at row {k}."
                    ) from None
            values[k] = word
        else:
            values[k] = item
    return values
