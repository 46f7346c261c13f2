"""Small helpers and reference games shared by the plotting tests."""

import numpy as np

RPS = np.array([[0.0, 1, -1], [-1, 0, 1], [1, -1, 0]])
LADDER = np.array([[0.0, 1, 2], [-1, 0, 1], [-2, -1, 0]])
C4 = np.array([[0.0, 1, 0, -1], [-1, 0, 1, 0], [0, -1, 0, 1], [1, 0, -1, 0]])
SUITE = np.array([[89.0, 93, 76], [85, 85, 85], [79, 74, 99]])


def heights(container):
    return np.array([bar.get_height() for bar in container])


def widths(container):
    return np.array([bar.get_width() for bar in container])


def ticklabels(labels):
    return [t.get_text() for t in labels]


def save(display, tmp_path, name):
    """Save the display's figure as PNG and check something was drawn."""
    path = tmp_path / f"{name}.png"
    display.figure_.savefig(path, dpi=60)
    assert path.stat().st_size > 5000
    return path


def t19_t20():
    """The C-test note's step agent and specialist on 4 difficulty levels."""
    difficulty = np.repeat([1.0, 2.0, 3.0, 4.0], 5)
    step = np.repeat([1.0, 1.0, 0.0, 0.0], 5)
    specialist = np.array([1, 1, 1, 0, 0] * 3 + [1, 0, 0, 0, 0], float)
    return difficulty, np.vstack([step, specialist])
