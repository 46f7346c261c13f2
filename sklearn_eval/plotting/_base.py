"""Shared helpers of the Display classes: Axes, validation, labels.

User strings (agent, task, item and game names) are drawn literally: every
Text artist that shows one is created or switched to ``parse_math=False`` and
``usetex=False`` (see :func:`_literal`), so a name such as ``$x^$`` or
``$\\foo$`` is not parsed as math text (which fails to draw) nor sent to TeX.
"""

from __future__ import annotations

import numbers

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.axes import Axes

__all__ = []

# largest number of labels pushed apart (the pairwise pass is O(n^2))
_MAX_REPEL = 400

# Text properties of an artist that shows a user string as it is
LITERAL = {"parse_math": False, "usetex": False}


def _literal(texts):
    """Show the Text artists' strings literally (no math text, no TeX); return them."""
    texts = list(texts)
    for text in texts:
        text.set_parse_math(False)
        text.set_usetex(False)
    return texts


def _literal_legend(ax, **legend_kw):
    """``ax.legend(**legend_kw)`` with every entry drawn literally."""
    legend = ax.legend(**legend_kw)
    _literal(legend.get_texts())
    return legend


def _literal_ticklabels(ax, axis, labels, **text_kw):
    """Set the tick labels of ``axis`` ("x" or "y") to literal ``str(label)``."""
    setter = ax.set_xticklabels if axis == "x" else ax.set_yticklabels
    return setter([str(label) for label in labels], **LITERAL, **text_kw)


def _single_ax(ax, caller, **subplots_kw):
    """The Axes to draw on: ``ax``, or a new figure's single Axes."""
    if ax is None:
        _, ax = plt.subplots(**subplots_kw)
        return ax
    if not isinstance(ax, Axes):
        raise TypeError(
            f"{caller}: ax must be a matplotlib Axes or None; got {type(ax).__name__}."
        )
    return ax


def _panel_axes(ax, n_panels, caller, *, figsize=None, ncols=None, width_ratios=None):
    """``n_panels`` Axes: from ``ax`` (Axes or sequence of Axes) or a new figure."""
    if ax is None:
        ncols = n_panels if ncols is None else ncols
        nrows = -(-n_panels // ncols)
        _, axes = plt.subplots(
            nrows,
            ncols,
            figsize=figsize,
            squeeze=False,
            layout="constrained",
            width_ratios=width_ratios,
        )
        flat = list(axes.ravel())
        for extra in flat[n_panels:]:
            extra.remove()
        return flat[:n_panels]
    if isinstance(ax, Axes):
        if n_panels != 1:
            raise ValueError(
                f"{caller}: this plot has {n_panels} panels; pass a sequence of "
                f"{n_panels} Axes as ax (or ax=None), not a single Axes."
            )
        return [ax]
    flat = list(np.ravel(np.asarray(ax, dtype=object)))
    if len(flat) != n_panels or not all(isinstance(a, Axes) for a in flat):
        raise ValueError(
            f"{caller}: ax must hold exactly {n_panels} matplotlib Axes; got "
            f"{len(flat)} object(s)."
        )
    return flat


def _as_float_vector(values, name, n=None, *, allow_nan=False, allow_inf=False):
    """1-D float64 copy of ``values``; checks its length and finiteness."""
    try:
        array = np.asarray(values, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise TypeError(f"{name} must hold numbers; got {values!r:.80}.") from exc
    if array.ndim != 1:
        raise ValueError(f"{name} must be 1-D; got shape {array.shape}.")
    if n is not None and array.shape[0] != n:
        raise ValueError(f"{name} must have {n} entries; got {array.shape[0]}.")
    bad = np.zeros(array.shape, dtype=bool)
    if not allow_nan:
        bad |= np.isnan(array)
    if not allow_inf:
        bad |= np.isinf(array)
    if bad.any():
        i = int(np.argmax(bad))
        raise ValueError(
            f"{name} has a non-finite value {float(array[i])!r} at index {i}."
        )
    return array.copy()


def _as_matrix(values, name, shape=None, *, allow_nan=False):
    """2-D float64 copy of ``values``; checks its shape (None: any) and finiteness."""
    try:
        array = np.asarray(values, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise TypeError(f"{name} must hold numbers; got {values!r:.80}.") from exc
    if array.ndim != 2:
        raise ValueError(f"{name} must be 2-D; got shape {array.shape}.")
    if shape is not None:
        expected = tuple(
            s if s is not None else array.shape[k] for k, s in enumerate(shape)
        )
        if array.shape != expected:
            raise ValueError(f"{name} must have shape {expected}; got {array.shape}.")
    bad = np.isinf(array) if allow_nan else ~np.isfinite(array)
    if bad.any():
        i, j = np.argwhere(bad)[0]
        raise ValueError(f"{name} has a non-finite value at row {i}, column {j}.")
    return array.copy()


def _optional_vector(values, name, n=None, **kw):
    """:func:`_as_float_vector` of ``values``, or None when ``values`` is None."""
    return None if values is None else _as_float_vector(values, name, n, **kw)


def _both_or_neither(first, second, names):
    if (first is None) != (second is None):
        raise ValueError(f"Pass both {names[0]} and {names[1]}, or neither.")


def _resolve_items(selection, names, kind):
    """Indices of ``selection`` (labels or integer positions) among ``names``."""
    names = np.asarray(names, dtype=object)
    lookup = {str(v): i for i, v in enumerate(names)}
    indices = []
    for item in np.ravel(np.asarray(selection, dtype=object)):
        if (
            isinstance(item, numbers.Integral)
            and not isinstance(item, bool)
            and str(item) not in lookup
        ):
            if not 0 <= item < names.size:
                raise ValueError(
                    f"{kind} index {item} is out of range [0, {names.size})."
                )
            indices.append(int(item))
        elif str(item) in lookup:
            indices.append(lookup[str(item)])
        else:
            raise ValueError(f"Unknown {kind} {item!r}.")
    if not indices:
        raise ValueError(f"No {kind}s selected.")
    return np.asarray(indices, dtype=np.int64)


def _as_labels(labels, n, name, default_prefix):
    """``n`` display labels as an object array (defaults ``prefix 0..n-1``)."""
    if labels is None:
        return np.asarray([f"{default_prefix} {i}" for i in range(n)], dtype=object)
    array = np.asarray(labels, dtype=object).ravel()
    if array.shape[0] != n:
        raise ValueError(f"{name} must have {n} labels; got {array.shape[0]}.")
    return array.copy()


def _fitted_labels(estimator, attribute):
    """The protocol labels ``agents_``/``tasks_`` of a fit, None when positional.

    A fit on an array labels its rows and columns ``0 .. n - 1``; the displays
    then draw their own ``"agent k"`` / ``"task k"`` defaults instead.
    """
    labels = getattr(estimator, attribute, None)
    if labels is None:
        return None
    array = np.asarray(labels)
    if array.dtype.kind in "iu" and np.array_equal(array, np.arange(array.shape[0])):
        return None
    return array


def _fit_ticklabels(axes_and_axis, *, min_size=4.0, spacing=1.2):
    """Shrink, then thin, tick labels until none overlap.

    ``axes_and_axis`` lists ``(ax, "x" or "y")`` pairs of one figure. Each
    label needs ``spacing`` times its font size (points) along the axis; the
    labels get the largest size that fits, down to ``min_size``, and below
    that only every k-th label is shown. Labels that fit with room to spare
    before layout are left alone; otherwise the figure's layout engine (if
    any: constrained layout moves the Axes) runs once and the Axes are
    measured. A figure without an engine keeps its Axes where they are: no
    draw is needed to measure them.
    """
    crowded = [
        (ax, axis) for ax, axis in axes_and_axis if _label_room(ax, axis) < 2.0
    ]
    if not crowded:
        return
    _settle_layout(crowded[0][0].figure)
    for ax, axis in crowded:
        _shrink_ticklabels(ax, axis, min_size, spacing)


def _settle_layout(figure):
    """Put the Axes of ``figure`` where its layout engine puts them, once.

    Only the engine runs (it measures the labels it needs), not a whole
    draw; without an engine the Axes positions are already final.
    """
    engine = figure.get_layout_engine()
    if engine is not None:
        engine.execute(figure)


def _label_room(ax, axis, spacing=1.2):
    """Room per tick label over the room it needs, from the Axes' position."""
    texts = [t for t in _ticklabels(ax, axis) if t.get_text()]
    if len(texts) < 2:
        return np.inf
    width, height = ax.figure.get_size_inches()
    position = ax.get_position()
    inches = position.width * width if axis == "x" else position.height * height
    length = 72.0 * inches
    return length / len(texts) / (spacing * float(texts[0].get_fontsize()))


def _ticklabels(ax, axis):
    return ax.get_xticklabels() if axis == "x" else ax.get_yticklabels()


def _shrink_ticklabels(ax, axis, min_size, spacing):
    texts = [t for t in _ticklabels(ax, axis) if t.get_text()]
    if len(texts) < 2:
        return 1
    figure = ax.figure
    box = ax.get_window_extent()
    length = (box.width if axis == "x" else box.height) * 72.0 / figure.dpi
    per_label = length / len(texts)
    size = float(texts[0].get_fontsize())
    fitting = per_label / spacing
    if fitting >= size:
        return 1
    step = 1
    if fitting < min_size:
        step = int(np.ceil(min_size * spacing / per_label))
        fitting = min_size
    for k, text in enumerate(texts):
        text.set_fontsize(fitting)
        text.set_visible(k % step == 0)
    return step


def _check_positive_int(value, name, *, allow_none=True):
    if value is None and allow_none:
        return None
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < 1:
        raise ValueError(f"{name} must be a positive integer or None; got {value!r}.")
    return int(value)


def _check_fitted_attrs(estimator, attributes, caller):
    """Raise NotFittedError / TypeError when ``estimator`` lacks ``attributes``."""
    from sklearn.exceptions import NotFittedError

    if isinstance(estimator, type):
        raise TypeError(f"{caller} needs a fitted estimator instance, not a class.")
    missing = [a for a in attributes if not hasattr(estimator, a)]
    if missing:
        name = type(estimator).__name__
        if hasattr(estimator, "fit"):
            raise NotFittedError(
                f"{caller}: this {name} is not fitted (missing {missing}); call "
                "fit first."
            )
        raise TypeError(f"{caller}: {name} has none of the attributes {missing}.")


def _frame_labels(X, axis):
    """Index (axis 0) or column (axis 1) labels of a DataFrame, else None."""
    if axis == 0 and hasattr(X, "index") and hasattr(X, "iloc"):
        return np.asarray(X.index, dtype=object)
    if axis == 1 and hasattr(X, "columns"):
        return np.asarray(X.columns, dtype=object)
    return None


def _overlaps(centre_a, size_a, centre_b, size_b):
    """Pairwise overlap extents (x, y) and centre offsets of two box sets."""
    d = centre_a[:, None, :] - centre_b[None, :, :]
    extent = (size_a[:, None, :] + size_b[None, :, :]) / 2 - np.abs(d)
    return extent, d


def _push(extent, d, tie_break):
    """Displacement of the first boxes out of the overlapping second boxes.

    Each clash is resolved along the axis of smaller overlap (half the
    overlap for label pairs, applied by both; the caller scales it).
    """
    clash = (extent[..., 0] > 0) & (extent[..., 1] > 0)
    along_y = extent[..., 1] <= extent[..., 0]
    sign_y = np.where(np.abs(d[..., 1]) < 1e-9, tie_break, np.sign(d[..., 1]))
    sign_x = np.where(np.abs(d[..., 0]) < 1e-9, tie_break, np.sign(d[..., 0]))
    push_y = np.where(clash & along_y, sign_y * (extent[..., 1] + 0.5), 0.0)
    push_x = np.where(clash & ~along_y, sign_x * (extent[..., 0] + 0.5), 0.0)
    return np.stack([push_x.sum(axis=1), push_y.sum(axis=1)], axis=1), clash.any()


def _spread_labels(ax, x, y, labels, *, fontsize=8, n_iter=400, **text_kw):
    """Label points, pushing labels off each other and off the points.

    Labels start just above-right of their points. Overlaps are measured in
    display pixels on the labels' bounding boxes (and small boxes around
    every point); each round moves every clashing label out along the axis
    of least overlap (vectorised over all pairs), for up to ``n_iter``
    rounds, keeping labels within a few label heights of their points. A
    label moved away from its point gets a thin leader line. Call it once
    the axis limits are final. Returns the Text artists (one per label).
    """
    x = np.asarray(x, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64)
    n = x.shape[0]
    if n == 0:
        return []
    fig = ax.figure
    ax.autoscale_view()
    # settle the layout (constrained layout, colour bars, equal aspect) first:
    # the pixel positions of the points must be the final ones
    _settle_layout(fig)
    ax.apply_aspect()
    renderer = fig.canvas.get_renderer()
    probes = [
        ax.text(0, 0, str(label), fontsize=fontsize, **LITERAL) for label in labels
    ]
    boxes = np.array(
        [p.get_window_extent(renderer).size for p in probes], dtype=np.float64
    )
    for probe in probes:
        probe.remove()
    scale = fig.dpi / 72.0
    anchors = ax.transData.transform(np.column_stack([x, y]))
    marker = np.full((n, 2), 7.0 * scale)
    offsets = np.tile([3.0 * scale, 2.0 * scale], (n, 1))
    index = np.arange(n)
    tie_break = np.sign(index[:, None] - index[None, :]).astype(np.float64)
    limit = np.column_stack([boxes[:, 0] + 6 * boxes[:, 1], 12 * boxes[:, 1]])
    # each round is O(n^2): bound the work (about a second at most), and stop
    # when the number of clashes has not improved for a while
    n_iter = 0 if n > _MAX_REPEL else min(n_iter, max(30, int(6e6 / n**2)))
    best, stale = np.inf, 0
    for _ in range(n_iter):
        centre = anchors + offsets + boxes / 2
        extent, d = _overlaps(centre, boxes, centre, boxes)
        extent[index, index] = -1.0
        between, clash_labels = _push(extent, d, tie_break)
        extent, d = _overlaps(centre, boxes, anchors, marker)
        off_points, clash_points = _push(extent, d, np.ones((n, n)))
        if not (clash_labels or clash_points):
            break
        n_clashes = int(np.count_nonzero(between)) + int(np.count_nonzero(off_points))
        best, stale = (n_clashes, 0) if n_clashes < best else (best, stale + 1)
        if stale > 40:
            break
        offsets += 0.5 * between + off_points
        preferred = boxes / 2 + 3.0 * scale
        offsets = np.clip(offsets, -limit - preferred, limit)
    texts = []
    for xi, yi, label, offset, box in zip(x, y, labels, offsets, boxes, strict=True):
        moved = np.hypot(*(offset + box / 2)) > box[0] / 2 + box[1] + 6 * scale
        arrowprops = (
            {"arrowstyle": "-", "lw": 0.4, "color": "0.6", "shrinkA": 0, "shrinkB": 3}
            if moved
            else None
        )
        texts.append(
            ax.annotate(
                str(label),
                (xi, yi),
                xytext=tuple(offset / scale),
                textcoords="offset points",
                fontsize=fontsize,
                arrowprops=arrowprops,
                **LITERAL,
                **text_kw,
            )
        )
    return texts


# ---------------------------------------------------------------------------
# payoff matrices (Hodge and cyclic-embedding displays)
# ---------------------------------------------------------------------------
def _antisymmetric(A, name):
    from ..utils import check_antisymmetric

    return check_antisymmetric(np.asarray(A, dtype=np.float64), name=name)


def _as_logits(P, clip, name):
    """Log-odds of a win-probability matrix (validated, symmetrised, clipped)."""
    from ..utils import check_square

    P = check_square(np.asarray(P, dtype=np.float64), name=name)
    off = ~np.eye(P.shape[0], dtype=bool)
    bad = off & ~((P >= 0) & (P <= 1))
    if bad.any():
        i, j = np.argwhere(bad)[0]
        raise ValueError(
            f"{name} must hold win probabilities in [0, 1]; got {P[i, j]!r} at row "
            f"{i}, column {j}."
        )
    excess = np.where(off, np.abs(P + P.T - 1.0), 0.0)
    if excess.max() > 1e-6:
        i, j = np.argwhere(excess > 1e-6)[0]
        raise ValueError(
            f"{name} must satisfy P[i, j] + P[j, i] = 1; at row {i}, column {j}: "
            f"{P[i, j]!r} + {P[j, i]!r}."
        )
    if not 0 < clip < 0.5:
        raise ValueError(f"clip must be in (0, 0.5); got {clip!r}.")
    P = np.clip(0.5 * (P + 1.0 - P.T), clip, 1.0 - clip)
    A = np.log(P) - np.log1p(-P)
    np.fill_diagonal(A, 0.0)
    return 0.5 * (A - A.T)
