"""Public model x task leaderboards (HELM, Open LLM Leaderboard, GLUE, ...).

The tables come verbatim from the benchbench package (version 1.0.1, MIT
licence), which scraped them from the public leaderboards; the loader
``load_leaderboard(name)`` turns each into an agents x tasks result matrix.
"""

import csv
import io

import numpy as np
import pandas as pd

from ..utils._sklearn_compat import StrOptions, validate_params
from ._base import _load_descr, _open_text
from ._bunches import _result_matrix_bunch, _to_float

__all__ = ["list_leaderboards", "load_leaderboard"]

_MISSING = {"-", "N/A", ""}

_HELM = "https://crfm.stanford.edu/helm/"
_HELM_FILES = (
    "accuracy", "bias", "calibration", "efficiency", "fairness", "robustness",
    "summarization", "toxicity",
)
_HELM_LOWER = {"bias", "calibration", "efficiency", "toxicity"}
_HEIM_FILES = (
    "aesthetics_auto", "aesthetics_human", "alignment_auto", "alignment_human",
    "black_out", "nsfw", "nudity", "originality", "quality_auto", "quality_human",
)


def _board(file, title, units, *, agent=0, target=None, info=(), drop=(),
           lower=False, source=""):
    return {
        "file": file, "title": title, "units": units, "agent": agent,
        "target": target, "info": tuple(info), "drop": tuple(drop),
        "lower": lower, "source": source,
    }


_BOARDS = {}
for _name in _HELM_FILES:
    _BOARDS[f"helm_{_name}"] = _board(
        f"benchbench_helm_{_name}.tsv",
        f"HELM classic, {_name} metrics, 67 language models",
        "0-1 (efficiency: seconds)" if _name == "efficiency" else "0-1",
        target="Mean win rate",
        lower=_name in _HELM_LOWER,
        source=_HELM + "classic/",
    )
_BOARDS["helm_lite"] = _board(
    "benchbench_helm_lite.tsv", "HELM Lite, 91 language models", "0-1",
    target="Mean win rate", source=_HELM + "lite/",
)
_BOARDS["helm_capability"] = _board(
    "benchbench_helm_capability.tsv", "HELM Capabilities, 65 language models",
    "0-1", target="Mean score", source=_HELM + "capabilities/",
)
for _name in _HEIM_FILES:
    _BOARDS[f"heim_{_name}"] = _board(
        f"benchbench_heim_{_name}.tsv",
        f"HEIM (text-to-image HELM), {_name} metrics, 26 models",
        "per metric (see the column names)",
        target="Mean win rate", lower="arrow", source=_HELM + "heim/",
    )
_BOARDS["openllm"] = _board(
    "benchbench_openllm.tsv", "Open LLM Leaderboard v1, top 100 models",
    "0-100", agent="Model", target="Average", info=("T",),
    source="https://huggingface.co/spaces/open-llm-leaderboard",
)
_BOARDS["mmlu"] = _board(
    "benchbench_mmlu.tsv.gz",
    "MMLU per subject (Open LLM Leaderboard v1 details), 98 models",
    "0-1", agent="model_name", target="average_score", info=("split_name",),
    drop=("",), source="https://huggingface.co/open-llm-leaderboard",
)
_BOARDS["bbh"] = _board(
    "benchbench_bbh.tsv", "BIG-Bench Hard, 107 models", "0-100", agent="Model",
    target="Average", info=("Rank", "Company", "Release", "Parameters"),
    source="BIG-Bench Hard leaderboard (via benchbench)",
)
_BOARDS["bigcode"] = _board(
    "benchbench_bigcode.tsv", "BigCode models leaderboard, 41 code models",
    "0-100 (pass@1)", agent="Models", target="Win", info=("T", "Throughput"),
    source="https://huggingface.co/spaces/bigcode/bigcode-models-leaderboard",
)
_BOARDS["glue"] = _board(
    "benchbench_glue.tsv", "GLUE, 87 submissions", "0-100", agent="Model",
    target="Score", info=("Rank", "Name"), drop=("URL",),
    source="https://gluebenchmark.com/leaderboard",
)
_BOARDS["superglue"] = _board(
    "benchbench_superglue.tsv", "SuperGLUE, 28 submissions", "0-100",
    agent="Model", target="Score", info=("Rank", "Name"), drop=("URL",),
    source="https://super.gluebenchmark.com/leaderboard",
)
_BOARDS["mteb"] = _board(
    "benchbench_mteb.tsv", "MTEB (English), 83 embedding models", "0-100",
    agent="Model", target="Average (56 datasets)",
    info=("Rank", "Model Size (GB)", "Embedding Dimensions", "Max Tokens"),
    drop=("-",), source="https://huggingface.co/spaces/mteb/leaderboard",
)
_BOARDS["vtab"] = _board(
    "benchbench_vtab.tsv", "VTAB-1k, 16 representation-learning methods",
    "0-100", agent=0, target="Mean (selected datasets)",
    source="Zhai et al. (2019), arXiv:1910.04867",
)
_BOARDS["imagenet"] = _board(
    "benchbench_imagenet.tsv.gz",
    "ImageNet per-class top-1 accuracy of 112 torchvision weights", "0-1",
    agent="Weight", target="acc",
    info=("Acc@1", "Acc@5", "Params", "GFLOPS", "Recipe", "Model"),
    source="torchvision weights on the ImageNet validation set (benchbench)",
)

_NAMES = tuple(_BOARDS)

# GLUE / SuperGLUE cells "a/b": the two metrics, as the boards' pages name them
_PAIRS = {
    "MRPC": ("F1", "Acc"), "STS-B": ("Pearson", "Spearman"), "QQP": ("F1", "Acc"),
    "CB": ("F1", "Acc"), "MultiRC": ("F1a", "EM"), "ReCoRD": ("F1", "Acc"),
    "AX-g": ("GPS", "Acc"),
}


def list_leaderboards():
    """Names and titles of the built-in leaderboards of :func:`load_leaderboard`.

    Returns
    -------
    boards : dict
        ``{name: title}`` in a fixed order.

    Examples
    --------
    >>> from sklearn_eval.datasets import list_leaderboards
    >>> boards = list_leaderboards()
    >>> len(boards), boards["helm_lite"]
    (29, 'HELM Lite, 91 language models')
    """
    return {name: spec["title"] for name, spec in _BOARDS.items()}


def _read_tsv(filename):
    text = _open_text(filename)
    rows = [row for row in csv.reader(io.StringIO(text), delimiter="\t") if row]
    return rows[0], rows[1:]


def _cell(text, *, board, row, column):
    text = text.strip()
    if text in _MISSING:
        return np.nan
    try:
        return _to_float(text)
    except ValueError:
        raise ValueError(
            f"leaderboard {board!r}: cell {text!r} at row {row}, column "
            f"{column!r} is not a number"
        ) from None


def _direction(label, spec):
    """(clean label, higher is better) of a task column."""
    if spec["lower"] == "arrow":
        for arrow, higher in ((" ↑ [ sort ]", True), (" ↓ [ sort ]", False)):
            if label.endswith(arrow):
                return label[: -len(arrow)], higher
        raise ValueError(f"HEIM column {label!r} has no direction arrow")
    return label, not spec["lower"]


def _unique(names):
    """Agent names made unique: later repeats get ' #2', ' #3', ..."""
    seen = {}
    out = []
    for name in names:
        seen[name] = seen.get(name, 0) + 1
        out.append(name if seen[name] == 1 else f"{name} #{seen[name]}")
    return out


def _parse(name):
    spec = _BOARDS[name]
    header, rows = _read_tsv(spec["file"])
    if isinstance(spec["agent"], int) and len(header) == len(rows[0]) - 1:
        header = [""] + header  # VTAB: unlabelled first field
    bad = [k for k, row in enumerate(rows, start=2) if len(row) != len(header)]
    if bad:
        raise ValueError(
            f"leaderboard {name!r}: line {bad[0]} has a different number of "
            f"fields than the header ({len(header)})"
        )
    agent = spec["agent"] if isinstance(spec["agent"], int) else header.index(
        spec["agent"]
    )
    special = {agent, *(header.index(c) for c in spec["info"] + spec["drop"])}
    labels = [_direction(label, spec)[0] if j not in special else label
              for j, label in enumerate(header)]
    target = labels.index(spec["target"]) if spec["target"] else None
    if target is not None:
        special.add(target)
    columns, labels, higher = [], [], []
    for j, label in enumerate(header):
        if j in special:
            continue
        label, up = _direction(label, spec)
        if any("/" in row[j] for row in rows):  # "F1/Acc" cells: two tasks
            if label not in _PAIRS:
                raise ValueError(f"leaderboard {name!r}: column {label!r} has "
                                 "'a/b' cells of unknown metrics")
            for half in range(2):
                columns.append((j, half))
                labels.append(f"{label} {_PAIRS[label][half]}")
                higher.append(up)
        else:
            columns.append((j, None))
            labels.append(label)
            higher.append(up)
    data = np.empty((len(rows), len(columns)), dtype=np.float64)
    for i, row in enumerate(rows):
        for k, (j, half) in enumerate(columns):
            text = row[j] if half is None else (row[j].split("/") + ["-"])[half]
            data[i, k] = _cell(text, board=name, row=i + 2, column=header[j])
    agents = [row[agent].strip() for row in rows]
    if name == "mmlu":  # details_<org>__<model> -> <org>/<model>
        agents = [a.removeprefix("details_").replace("__", "/", 1) for a in agents]
    info = {
        label: np.array([row[header.index(label)] for row in rows], dtype=object)
        for label in spec["info"]
    }
    y = None
    if target is not None:
        y = np.array(
            [_cell(row[target], board=name, row=i + 2, column=header[target])
             for i, row in enumerate(rows)],
            dtype=np.float64,
        )
    return data, _unique(agents), labels, np.array(higher, dtype=bool), y, info


@validate_params(
    {"name": [StrOptions(set(_NAMES))], "as_frame": ["boolean"]},
    prefer_skip_nested_validation=True,
)
def load_leaderboard(name, *, as_frame=False):
    """Load a public model x task leaderboard as a result matrix.

    29 tables scraped from public leaderboards by the benchbench package
    (version 1.0.1, MIT licence): HELM classic (eight metric families), HELM
    Lite, HELM Capabilities, HEIM (ten text-to-image metric families), the
    Open LLM Leaderboard v1 and its MMLU per-subject scores, BIG-Bench Hard,
    BigCode, GLUE, SuperGLUE, MTEB, VTAB-1k and ImageNet per-class accuracy of
    torchvision weights. :func:`list_leaderboards` names them;
    ``describe_datasets()`` gives each table's origin and licence.

    Numbers are as the board publishes them: 0-1 or 0-100 (``units``), with
    lower-is-better columns (HELM bias, calibration error, inference time,
    toxicity; HEIM columns marked ↓) left as they are and flagged in
    ``higher_is_better``. Missing cells ("-", "N/A") are NaN. GLUE and
    SuperGLUE cells holding two metrics ("94.2/92.3", F1/accuracy) become
    two tasks, ``"MRPC F1"`` and ``"MRPC Acc"``. The board's own aggregate column
    (mean win rate, average, score) is ``target``, never a task. A model the
    board lists twice (another run or precision) keeps both rows; the later
    ones are named ``"<name> #2"``, ``"<name> #3"``.

    Parameters
    ----------
    name : str
        The board, one of the keys of :func:`list_leaderboards`, e.g.
        ``"helm_lite"``, ``"openllm"``, ``"glue"``, ``"heim_nsfw"``.
    as_frame : bool, default=False
        If True, ``data`` is a DataFrame indexed by model and ``target`` a
        Series.

    Returns
    -------
    data : :class:`~sklearn.utils.Bunch`
        ``data`` (n_models, n_tasks) float64 with NaN where missing;
        ``agent_names``; ``feature_names`` (task labels);
        ``higher_is_better`` (n_tasks,) bool; ``target`` (n_models,) the
        board's aggregate (NaN array when the board has none); ``units``;
        ``info`` (dict of the board's other per-model columns as text, e.g.
        model type, parameters, release date); ``frame``; ``DESCR``;
        ``reference_agents`` (the human baselines of GLUE and SuperGLUE) and
        ``is_reference``.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_eval.datasets import load_leaderboard
    >>> lite = load_leaderboard("helm_lite")
    >>> lite.data.shape, int(np.isnan(lite.data).sum())
    ((91, 10), 1)
    >>> lite.agent_names[0], lite.feature_names[0]
    ('GPT-4o (2024-05-13)', 'NarrativeQA - F1')
    >>> glue = load_leaderboard("glue")
    >>> glue.reference_agents
    {'GLUE Human Baselines': 'human'}
    """
    data, agents, labels, higher, y, info = _parse(name)
    spec = _BOARDS[name]
    if y is None:
        y = np.full(len(agents), np.nan)
    bunch = _result_matrix_bunch(
        data,
        agents,
        labels,
        as_frame=as_frame,
        descr="leaderboards",
        agent_label="model",
        task_label="task",
        dataset=f"leaderboard_{name}",
        target=y,
        higher_is_better=higher,
        units=spec["units"],
        info=info,
        name=name,
    )
    bunch.DESCR = (
        f"{spec['title']}\n\n:Shape: {data.shape[0]} models x {data.shape[1]} "
        f"tasks, {int(np.isnan(data).sum())} missing cells\n:Units: "
        f"{spec['units']}\n:Board: {spec['source']}\n\n" + _load_descr("leaderboards")
    )
    if as_frame:
        bunch.target = pd.Series(y, index=bunch.frame.index, name="aggregate")
    return bunch
