"""Evaluations of large language models: ChemBench items and Vicuna80 judgments."""

import numpy as np
import pandas as pd

from ..utils._sklearn_compat import validate_params
from ._base import _read_csv_rows
from ._bunches import _matches_bunch, _result_matrix_bunch, _str_column

__all__ = ["load_chembench", "load_vicuna80"]


@validate_params({"as_frame": ["boolean"]}, prefer_skip_nested_validation=True)
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
        mean of ``data``); ``frame``; ``DESCR``; ``reference_agents`` (empty:
        every model is a competitor) and ``is_reference``.

    Examples
    --------
    >>> from sklearn_eval.datasets import load_chembench
    >>> chem = load_chembench()
    >>> chem.data.shape
    (22, 2854)
    >>> bool(abs(chem.data.mean(axis=1) - chem.target).max() < 1e-12)
    True
    """
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
        bunch.target = pd.Series(target, index=bunch.frame.index, name="score")
    return bunch


_VICUNA_OUTCOME = {1: 1.0, 2: 0.0, 3: 0.5}


@validate_params({"as_frame": ["boolean"]}, prefer_skip_nested_validation=True)
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
        names; ``feature_names``; ``frame``; ``DESCR``; ``reference_agents``
        (empty: every model is a competitor) and ``is_reference`` (over
        ``players``).

    Examples
    --------
    >>> from sklearn_eval.datasets import load_vicuna80
    >>> vicuna = load_vicuna80()
    >>> vicuna.data.shape, len(vicuna.players)
    ((7040, 2), 9)
    >>> sorted(set(vicuna.target.tolist()))
    [0.0, 0.5, 1.0]
    """
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
