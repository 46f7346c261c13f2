"""A fitted SubsetScoreEstimator as a table of items, and back.

The item table (:meth:`SubsetScoreEstimator.task_table`) lists every item of
the benchmark, the chosen ones first, with their weight and calibration.
:func:`write_items_csv` writes it with a few ``# key=value`` header lines
holding the rest of the fitted state (estimator, blend weight, regression
intercept, quadrature grid, cross-validated residuals), so that
:func:`read_items_csv` rebuilds an estimator that predicts exactly as the
original from responses on the chosen items only.
"""

from __future__ import annotations

import io
import os

import numpy as np
import pandas as pd

from ..utils._sklearn_compat import validate_params
from ._subset_models import FittedEstimate, ItemBank

__all__ = [
    "build_estimator",
    "build_from_items",
    "parse_items_csv",
    "task_frame",
    "write_items_csv",
]

_FORMAT = "sklearn-eval subset-score v1"
_COLUMNS = ("selected", "order", "weight", "success_rate", "discrimination",
            "difficulty", "coefficient")


class LinearCorrection:
    """A linear regressor given by its coefficients (restored from a file)."""

    def __init__(self, coef, intercept):
        self.coef_ = np.asarray(coef, dtype=np.float64)
        self.intercept_ = float(intercept)

    def predict(self, X):
        return np.asarray(X, dtype=np.float64) @ self.coef_ + self.intercept_


def _linear_parts(regressor, n_columns):
    """(coef, intercept) of a fitted linear regressor, or None."""
    coef = getattr(regressor, "coef_", None)
    intercept = getattr(regressor, "intercept_", None)
    if coef is None or intercept is None:
        return None
    coef = np.asarray(coef, dtype=np.float64).reshape(-1)
    if coef.size != n_columns or np.ndim(intercept) > 0 and np.size(intercept) != 1:
        return None
    return coef, float(np.asarray(intercept).reshape(-1)[0])


def task_frame(estimator):
    """Per-item DataFrame of a fitted estimator (chosen items first)."""

    n = estimator.n_features_in_
    items = estimator.selected_items_
    selected = np.zeros(n, dtype=bool)
    selected[items] = True
    weight = np.zeros(n)
    weight[items] = estimator.item_weights_
    order = np.zeros(n, dtype=np.int64)
    order[estimator.selection_order_] = np.arange(1, estimator.selection_order_.size
                                                  + 1)
    coefficient = np.full(n, np.nan)
    if estimator.method_ == "regression":
        parts = _linear_parts(estimator.regressor_, items.size + 1)
        if parts is not None:
            coefficient[items] = parts[0][:-1]
    bank = estimator._bank
    frame = pd.DataFrame(
        {
            "selected": selected,
            "order": order,
            "weight": weight,
            "success_rate": bank.success_rate,
            "discrimination": bank.discrimination,
            "difficulty": bank.difficulty,
            "coefficient": coefficient,
        },
        index=pd.Index(estimator.tasks_, name="task"),
    )
    return frame


def _header(estimator):
    fitted = estimator._fitted
    meta = {
        "format": _FORMAT,
        "selection": estimator.selection_,
        "estimator": estimator.method_,
        "interval_method": estimator.interval_method_,
        "fallback_accuracy": repr(fitted.fallback),
        "quadrature_nodes": _join(estimator._bank.nodes),
        "quadrature_weights": _join(np.exp(estimator._bank.log_prior)),
        "cv_residuals": _join(estimator.cv_residuals_),
    }
    if fitted.blend is not None:
        meta["blend_weight"] = repr(fitted.blend)
    if estimator.method_ == "regression":
        parts = _linear_parts(estimator.regressor_, estimator.selected_items_.size + 1)
        if parts is None:
            raise ValueError(
                "Only a linear regressor (with coef_ and intercept_) can be "
                f"written to a file; got {type(estimator.regressor_).__name__}."
            )
        meta["ability_coefficient"] = repr(float(parts[0][-1]))
        meta["intercept"] = repr(parts[1])
    return "".join(f"# {key}={value}\n" for key, value in meta.items())


def _column_positions(estimator, labels):
    position = {label: k for k, label in enumerate(estimator.tasks_)}
    return np.asarray([position[label] for label in labels], dtype=np.int64)


def _join(values):
    return ",".join(repr(float(v)) for v in np.asarray(values).reshape(-1))


def _split(text):
    return np.asarray([float(v) for v in text.split(",") if v], dtype=np.float64)


@validate_params(
    {"estimator": [object], "path": [str, os.PathLike, io.IOBase]},
    prefer_skip_nested_validation=True,
)
def write_items_csv(estimator, path):
    """Write a fitted :class:`SubsetScoreEstimator` to a CSV of items.

    One row per item of the benchmark, the chosen items first in selection
    order: ``task`` (the item's label), ``column`` (its position in ``X``)
    and the columns of :meth:`SubsetScoreEstimator.task_table`;
    ``# key=value`` lines at the top hold the estimator's remaining state.
    :func:`read_items_csv` reads it back. Filter ``selected == 1`` for the
    items to run.

    Parameters
    ----------
    estimator : SubsetScoreEstimator
        Fitted. A ``"regression"`` estimator needs a linear regressor (the
        default ridge is).
    path : str, path-like or file object
        Where to write.

    Examples
    --------
    >>> import io
    >>> import numpy as np
    >>> from sklearn_eval.datasets import make_irt_responses
    >>> from sklearn_eval.selection import (SubsetScoreEstimator,
    ...                                     read_items_csv, write_items_csv)
    >>> X = make_irt_responses(200, 60, random_state=0)
    >>> est = SubsetScoreEstimator(n_items=15, random_state=0).fit(X)
    >>> buffer = io.StringIO()
    >>> write_items_csv(est, buffer)
    >>> _ = buffer.seek(0)
    >>> again = read_items_csv(buffer)
    >>> bool(np.allclose(again.predict(X[:, est.selected_items_]), est.predict(X)))
    True
    """
    from sklearn.utils.validation import check_is_fitted

    check_is_fitted(estimator, "selected_items_")
    header = _header(estimator)
    table = estimator.task_table()
    # the file lists the chosen items first, in selection order
    n = len(table)
    rank = np.where(table["selected"], table["order"], n + 1 + np.arange(n))
    table = table.iloc[np.argsort(rank, kind="stable")]
    body = table.reset_index()
    body.insert(1, "column", _column_positions(estimator, table.index))
    body["selected"] = body["selected"].astype(int)
    text = header + body.to_csv(index=False, float_format="%.17g")
    if isinstance(path, io.IOBase):
        path.write(text)
    else:
        with open(path, "w", encoding="utf-8", newline="") as handle:
            handle.write(text)


def parse_items_csv(path):
    """The item table (in column order) and header of an item file."""

    if isinstance(path, io.IOBase):
        text = path.read()
    else:
        with open(path, encoding="utf-8") as handle:
            text = handle.read()
    meta = {}
    lines = text.splitlines(keepends=True)
    n_header = 0
    for line in lines:
        if not line.startswith("#"):
            break
        key, _, value = line[1:].strip().partition("=")
        meta[key.strip()] = value.strip()
        n_header += 1
    if meta.get("format") != _FORMAT:
        raise ValueError(
            f"Not a subset-score item file (expected '# format={_FORMAT}' first)."
        )
    table = pd.read_csv(io.StringIO("".join(lines[n_header:])), dtype={"task": str})
    missing = [c for c in ("task", "column", *_COLUMNS) if c not in table.columns]
    if missing:
        raise ValueError(f"The item file lacks the column(s) {missing}.")
    columns = table["column"].to_numpy()
    if not np.array_equal(np.sort(columns), np.arange(len(table))):
        raise ValueError("The item file's 'column' must number the items 0..n-1.")
    return table.iloc[np.argsort(columns)].reset_index(drop=True), meta


def build_estimator(cls, table, meta):
    """A fitted ``cls`` (SubsetScoreEstimator) from an item table (column order)."""
    labels = table["task"].to_numpy(dtype=object)
    order_column = table["order"].to_numpy(dtype=np.int64)
    selected = table["selected"].to_numpy().astype(bool)
    position = np.flatnonzero(selected)
    pick = position[np.argsort(order_column[selected], kind="stable")]
    kind = meta.get("estimator", "mean")
    bank = ItemBank(table["discrimination"].to_numpy(dtype=float),
                    table["difficulty"].to_numpy(dtype=float),
                    table["success_rate"].to_numpy(dtype=float),
                    _split(meta["quadrature_nodes"]),
                    _split(meta["quadrature_weights"]))
    fitted = FittedEstimate(kind, float(meta.get("fallback_accuracy", "nan")))
    if "blend_weight" in meta:
        fitted.blend = float(meta["blend_weight"])
    if kind == "regression":
        coef = np.append(table["coefficient"].to_numpy(dtype=float)[position],
                         float(meta["ability_coefficient"]))
        fitted.regressor = LinearCorrection(coef, float(meta["intercept"]))
    return _assemble(cls(n_items=int(position.size),
                         selection=meta.get("selection", "random"),
                         method=kind),
                     labels, position, pick, table["weight"].to_numpy(dtype=float)[
                         position], bank, fitted, meta)


def _assemble(estimator, labels, items, pick, weights, bank, fitted, meta):
    """Set the fitted attributes of a restored estimator; return it."""
    from ..irt import IRT2PL

    names = None if all(str(k) == str(label) for k, label in enumerate(labels)) \
        else labels.astype(str)
    if np.isfinite(bank.discrimination).any():
        estimator.irt_ = IRT2PL.from_item_params(bank.discrimination,
                                                 bank.difficulty, item_names=names)
    estimator.selected_items_ = np.asarray(items, dtype=np.intp)
    estimator.selection_order_ = np.asarray(pick, dtype=np.intp)
    estimator.item_weights_ = np.asarray(weights, dtype=np.float64)
    estimator.selection_ = meta.get("selection", "random")
    estimator.method_ = fitted.kind
    estimator.cv_results_ = {"selection": np.asarray([], dtype=object),
                             "estimator": np.asarray([], dtype=object),
                             "mae": np.asarray([])}
    residuals = _split(meta.get("cv_residuals", ""))
    estimator.cv_residuals_ = residuals
    estimator.cv_mae_ = float(np.mean(np.abs(residuals))) if residuals.size else np.nan
    estimator.interval_method_ = meta.get("interval_method", "conformal")
    estimator.blend_weight_ = fitted.blend
    estimator.regressor_ = fitted.regressor
    estimator.n_features_in_ = labels.size
    if names is not None:
        estimator.feature_names_in_ = np.asarray(names, dtype=object)
    estimator.tasks_ = (np.asarray(names, dtype=object) if names is not None
                        else np.arange(labels.size))
    estimator._bank = bank
    estimator._fitted = fitted
    estimator._features = bank.subset(estimator.selected_items_)
    return estimator


def _item_positions(items, n_features, names):
    items = np.asarray(items).reshape(-1)
    if items.size == 0:
        raise ValueError("items is empty: choose at least one item.")
    if names is not None and items.dtype.kind in "OUS":
        position = {name: k for k, name in enumerate(names)}
        unknown = [item for item in items if item not in position]
        if unknown:
            raise ValueError(f"Unknown item name(s) {unknown[:5]}.")
        positions = np.asarray([position[item] for item in items], dtype=np.intp)
    elif items.dtype.kind in "iu":
        positions = items.astype(np.intp)
        if positions.min() < 0 or positions.max() >= n_features:
            raise ValueError(
                f"Item indices must lie in [0, {n_features}); got {items.tolist()}."
            )
    else:
        raise TypeError("items must be column indices or names (with feature_names).")
    if np.unique(positions).size != positions.size:
        raise ValueError("items contains duplicates.")
    return positions


def _check_weights(weights, n):
    if weights is None:
        return np.full(n, 1.0 / n)
    weights = np.asarray(weights, dtype=np.float64).reshape(-1)
    if weights.size != n:
        raise ValueError(f"weights has {weights.size} entries for {n} items.")
    if not np.all(np.isfinite(weights)) or (weights < 0).any() or weights.sum() <= 0:
        raise ValueError("weights must be finite, non-negative and not all zero.")
    return weights / weights.sum()


def build_from_items(cls, items, weights, *, n_features, feature_names,
                     discrimination, difficulty, residuals):
    """Implementation of :meth:`SubsetScoreEstimator.from_items`."""
    names = None if feature_names is None else np.asarray(feature_names,
                                                          dtype=object).reshape(-1)
    calibrated = discrimination is not None or difficulty is not None
    if calibrated and (discrimination is None or difficulty is None):
        raise ValueError("Pass both discrimination and difficulty, or neither.")
    sizes = {len(v) for v in (names, discrimination, difficulty) if v is not None}
    if n_features is not None:
        sizes.add(int(n_features))
    if len(sizes) != 1:
        raise ValueError(
            "Give the number of items (n_features, feature_names or the item "
            f"parameters) consistently; got sizes {sorted(sizes)}."
        )
    n = sizes.pop()
    positions = _item_positions(items, n, names)
    weights = _check_weights(weights, positions.size)
    order = np.argsort(positions, kind="stable")
    if calibrated:
        a = np.asarray(discrimination, dtype=np.float64).reshape(-1)
        b = np.asarray(difficulty, dtype=np.float64).reshape(-1)
        if not (np.all(np.isfinite(a)) and np.all(np.isfinite(b))):
            raise ValueError("discrimination and difficulty must be finite.")
    else:
        a = b = np.full(n, np.nan)
    nodes = np.linspace(-6.0, 6.0, 121)  # IRT2PL's default grid
    prior = np.exp(-0.5 * nodes**2)
    bank = ItemBank(a, b, np.full(n, 0.5), nodes, prior / prior.sum())
    kind = "irt" if calibrated else "mean"
    residuals = np.asarray([] if residuals is None else residuals,
                           dtype=np.float64).reshape(-1)
    meta = {
        "selection": "given",
        "interval_method": "posterior" if calibrated else "conformal",
        "cv_residuals": _join(residuals),
    }
    labels = names if names is not None else np.arange(n).astype(object)
    estimator = cls(n_items=int(positions.size), method=kind)
    return _assemble(estimator, labels, positions[order], positions,
                     weights[order], bank, FittedEstimate(kind, np.nan), meta)
