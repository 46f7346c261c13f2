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

from ..utils._files import write_text_atomic
from ..utils._sklearn_compat import validate_params
from ._item_format import (
    file_columns,
    format_grid,
    format_item_file,
    join_numbers,
    normal_weights,
)
from ._subset_models import FittedEstimate, ItemBank

__all__ = [
    "build_estimator",
    "build_from_items",
    "item_file_text",
    "task_frame",
    "write_items_csv",
]


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
    if bank.guessing is not None:  # a 3PL/4PL calibration
        frame["guessing"] = np.where(np.isfinite(bank.discrimination),
                                     bank.guessing, np.nan)
        frame["upper"] = np.where(np.isfinite(bank.discrimination), bank.upper,
                                  np.nan)
    return frame


def _header(estimator):
    """The ``# key=value`` values of the fitted state (ordered)."""
    fitted = estimator._fitted
    nodes, weights = format_grid(estimator._bank.nodes,
                                 np.exp(estimator._bank.log_prior))
    meta = {
        "selection": estimator.selection_,
        "estimator": estimator.method_,
        "interval_method": estimator.interval_method_,
        "fallback_accuracy": repr(fitted.fallback),
        "quadrature_nodes": nodes,
        "quadrature_weights": weights,
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
    meta["labels"] = "names" if hasattr(estimator, "feature_names_in_") else "positions"
    meta["cv_residuals"] = join_numbers(estimator.cv_residuals_)  # long: last
    return meta


def _column_positions(estimator, labels):
    position = {label: k for k, label in enumerate(estimator.tasks_)}
    return np.asarray([position[label] for label in labels], dtype=np.int64)


def item_file_text(estimator):
    """The text of the item file of a fitted estimator (see write_items_csv)."""
    from sklearn.utils.validation import check_is_fitted

    if not hasattr(type(estimator), "_from_fitted_state"):
        raise TypeError("write_items_csv writes a fitted SubsetScoreEstimator; got "
                        f"{type(estimator).__name__}.")
    check_is_fitted(estimator, "selected_items_")
    scored = estimator._bank.scored
    if scored is not None:
        raise ValueError(
            f"write_items_csv writes 2PL, 3PL and 4PL calibrations; this estimator's "
            f"IRT(model={scored.model!r}) has no item-file form (its items have "
            "categories or a score distribution). Save the fitted estimator with "
            "joblib.dump instead.")
    asymptotes = estimator._bank.guessing is not None
    meta = _header(estimator)
    table = estimator.task_table()
    # the file lists the chosen items first, in selection order
    n = len(table)
    rank = np.where(table["selected"], table["order"], n + 1 + np.arange(n))
    order = np.argsort(rank, kind="stable")
    columns = _column_positions(estimator, table.index)[order]
    table = table.iloc[order]
    labels = [label if isinstance(label, str) else str(label) for label in table.index]
    rows = [
        [label, int(column), *values]
        for label, column, values in zip(
            labels, columns,
            table[list(file_columns(asymptotes)[2:])]
            .itertuples(index=False, name=None), strict=True)
    ]
    return format_item_file(meta, rows, asymptotes=asymptotes)


@validate_params(
    {"estimator": [object], "path": [str, os.PathLike, io.IOBase]},
    prefer_skip_nested_validation=True,
)
def write_items_csv(estimator, path):
    """Write a fitted :class:`SubsetScoreEstimator` to a CSV of items.

    One row per item of the benchmark, the chosen items first in selection
    order: ``task`` (the item's label), ``column`` (its position in ``X``)
    and the columns of :meth:`SubsetScoreEstimator.task_table`;
    ``# key=value`` lines at the top hold the estimator's remaining state
    (the quadrature grid in a compact form such as
    ``linspace(-6.0, 6.0, 121)``), the number of rows and a checksum of the
    file, so that :func:`read_items_csv` refuses a file cut short or edited.
    Filter ``selected == 1`` for the items to run. A 3PL or 4PL calibration
    adds the columns ``guessing`` and ``upper`` (format ``v3``); an estimator
    calibrated by a graded or continuous model has no item-file form and is
    refused (save it with ``joblib.dump``).

    A file on disk is replaced atomically: a process killed while writing
    leaves the old file or the complete new one. Task names that a
    spreadsheet would take for a formula (starting with ``=``, ``+``, ``-``
    or ``@``) get a leading quote, as in every CSV the package writes;
    :func:`read_items_csv` removes it, so names round-trip.

    Parameters
    ----------
    estimator : SubsetScoreEstimator
        Fitted. A ``"regression"`` estimator needs a linear regressor (the
        default ridge is).
    path : str, path-like or file object
        Where to write (a file object gets the text, UTF-8 encoded when it
        is binary).

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
    >>> print(buffer.getvalue()[:50])
    # format=sklearn-eval subset-score v2
    # selection=
    >>> _ = buffer.seek(0)
    >>> again = read_items_csv(buffer)
    >>> bool(np.allclose(again.predict(X[:, est.selected_items_]), est.predict(X)))
    True
    """
    text = item_file_text(estimator)
    if isinstance(path, io.RawIOBase | io.BufferedIOBase):
        path.write(text.encode("utf-8"))
    elif isinstance(path, io.IOBase):
        path.write(text)
    else:
        write_text_atomic(path, text)


def build_estimator(cls, item_file):
    """A fitted ``cls`` (SubsetScoreEstimator) from a parsed :class:`ItemFile`."""
    meta = item_file.meta
    positions = np.argsort(item_file.columns["column"], kind="stable")
    columns = {name: values[positions] for name, values in item_file.columns.items()}
    labels = columns["task"]
    selected = columns["selected"]
    position = np.flatnonzero(selected)
    pick = position[np.argsort(columns["order"][selected], kind="stable")]
    kind = meta["estimator"]
    bank = ItemBank(columns["discrimination"], columns["difficulty"],
                    columns["success_rate"], meta["quadrature_nodes"],
                    meta["quadrature_weights"], guessing=columns.get("guessing"),
                    upper=columns.get("upper"))
    fitted = FittedEstimate(kind, meta["fallback_accuracy"])
    fitted.blend = meta.get("blend_weight")
    if kind == "regression":
        coef = np.append(columns["coefficient"][position],
                         meta["ability_coefficient"])
        fitted.regressor = LinearCorrection(coef, meta["intercept"])
    if meta["labels"] == "names":
        names = labels  # object strings (a numpy str array drops trailing NULs)
    else:
        names = _legacy_names(labels)
    return _assemble(cls, {"n_items": int(position.size),
                           "selection": meta["selection"], "method": kind},
                     labels, names, position, pick, columns["weight"][position],
                     bank, fitted, meta)


def _legacy_names(labels):
    """Item names, or None when the labels are the column positions."""
    if all(str(k) == str(label) for k, label in enumerate(labels)):
        return None
    return np.asarray([str(label) for label in labels], dtype=object)


def _assemble(cls, params, labels, names, items, pick, weights, bank, fitted, meta):
    """A fitted ``cls`` built through its restoring constructor."""
    from ..irt import IRT2PL

    residuals = np.asarray(meta.get("cv_residuals", ()), dtype=np.float64)
    attributes = {
        "selected_items_": np.asarray(items, dtype=np.intp),
        "selection_order_": np.asarray(pick, dtype=np.intp),
        "item_weights_": np.asarray(weights, dtype=np.float64),
        "selection_": meta["selection"],
        "method_": fitted.kind,
        "cv_results_": {"selection": np.asarray([], dtype=object),
                        "estimator": np.asarray([], dtype=object),
                        "mae": np.asarray([])},
        "cv_residuals_": residuals,
        "cv_mae_": float(np.mean(np.abs(residuals))) if residuals.size else np.nan,
        "interval_method_": meta["interval_method"],
        "blend_weight_": fitted.blend,
        "regressor_": fitted.regressor,
        "n_features_in_": labels.size,
        "tasks_": (np.asarray(names, dtype=object) if names is not None
                   else np.arange(labels.size)),
    }
    if np.isfinite(bank.discrimination).any() and bank.guessing is None:
        attributes["irt_"] = IRT2PL.from_item_params(
            bank.discrimination, bank.difficulty, item_names=names)
    if names is not None:
        attributes["feature_names_in_"] = np.asarray(names, dtype=object)
    return cls._from_fitted_state(params, attributes, bank=bank, fitted=fitted)


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
    bank = ItemBank(a, b, np.full(n, 0.5), nodes, normal_weights(nodes))
    kind = "irt" if calibrated else "mean"
    residuals = np.asarray([] if residuals is None else residuals,
                           dtype=np.float64).reshape(-1)
    meta = {
        "selection": "given",
        "interval_method": "posterior" if calibrated else "conformal",
        "cv_residuals": residuals,
    }
    labels = names if names is not None else np.arange(n).astype(object)
    return _assemble(cls, {"n_items": int(positions.size), "method": kind},
                     labels, names, positions[order], positions, weights[order],
                     bank, FittedEstimate(kind, np.nan), meta)
