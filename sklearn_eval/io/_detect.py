"""Which evaluation tool wrote a file or folder, and reading it with its reader."""

from pathlib import Path

from ._alpaca import read_alpaca_eval
from ._details import is_details_file, read_leaderboard_details
from ._helm import read_helm
from ._inspect import read_inspect
from ._lm_eval import read_lm_eval

__all__ = ["TOOLS", "detect_tool", "read_results"]

#: the tools :func:`read_results` reads, with their readers
TOOLS = {
    "lm_eval": read_lm_eval,
    "inspect": read_inspect,
    "helm": read_helm,
    "alpaca_eval": read_alpaca_eval,
    "leaderboard_details": read_leaderboard_details,
}


def _json_kind(path):
    """``"inspect"`` or ``"alpaca_eval"`` from the start of a JSON file."""
    try:
        with open(path, "rb") as handle:
            head = handle.read(4096).lstrip()
    except OSError:
        return None
    if head.startswith(b"["):
        return "alpaca_eval" if b'"generator_1"' in head or b'"output_1"' in head \
            else None
    if head.startswith(b"{") and b'"version"' in head and b'"eval"' in head:
        return "inspect"
    return None


def _results_tool(path):
    """lighteval's results file (``config_general`` first), else lm-eval's."""
    try:
        with open(path, "rb") as handle:
            head = handle.read(4096)
    except OSError:
        return "lm_eval"
    return "leaderboard_details" if b'"config_general"' in head else "lm_eval"


def _file_tool(path):
    name = path.name
    if path.suffix == ".eval":
        return "inspect"
    if path.suffix == ".parquet":
        return "leaderboard_details" if is_details_file(path) else None
    if name.startswith("results_") and path.suffix == ".json":
        return _results_tool(path)
    if name == "annotations.json":
        return "alpaca_eval"
    if name in ("run_spec.json", "per_instance_stats.json"):
        return "helm"
    if name.startswith("samples_") and path.suffix == ".jsonl":
        return "lm_eval"
    if path.suffix == ".json":
        return _json_kind(path)
    return None


def detect_tool(path):
    """The evaluation tool whose output ``path`` is, or None.

    Looks at names first (``results_*.json``: lm-evaluation-harness;
    ``.eval``: inspect_ai; ``run_spec.json``: HELM; ``annotations.json``:
    AlpacaEval; ``details_*.parquet``, ``samples_*.parquet`` and lighteval's
    ``results_*.json``: Open LLM Leaderboard style details tables), then at
    the start of other JSON files (an inspect_ai JSON
    log, a list of pairwise annotations). A folder is searched recursively
    for the tools' files, except that the ``samples_*.jsonl`` and
    per-instance files of lm-evaluation-harness and HELM go with their runs.

    Parameters
    ----------
    path : str or path-like
        A file or folder.

    Returns
    -------
    {"lm_eval", "inspect", "helm", "alpaca_eval", "leaderboard_details"} or None
        None for anything else (e.g. a CSV file).

    Raises
    ------
    ValueError
        When a folder holds the output of more than one tool.

    Examples
    --------
    >>> import os, tempfile
    >>> from sklearn_eval.io import detect_tool
    >>> folder = tempfile.mkdtemp()
    >>> open(os.path.join(folder, "run.eval"), "wb").close()
    >>> detect_tool(folder), detect_tool(os.path.join(folder, "scores.csv"))
    ('inspect', None)
    """
    path = Path(path)
    if not path.is_dir():
        return _file_tool(path) if path.is_file() else None
    found = {}
    for file in sorted(path.rglob("*")):
        if not file.is_file() or (
            file.name.startswith("samples_") and file.suffix == ".jsonl"
        ):
            continue
        tool = _file_tool(file)
        if tool is not None:
            found.setdefault(tool, file)
    if len(found) > 1:
        listed = ", ".join(f"{tool} ({file})" for tool, file in found.items())
        raise ValueError(
            f"{path}: the folder holds the output of several tools ({listed}); "
            "point at the folder of one"
        )
    return next(iter(found), None)


def read_results(path, tool=None):
    """Read an evaluation tool's output into a long table, the tool detected.

    Parameters
    ----------
    path : str or path-like
        A file or folder of lm-evaluation-harness, inspect_ai, HELM or
        AlpacaEval output, or of parquet details tables.
    tool : str or None, default=None
        The tool (``"lm_eval"``, ``"inspect"``, ``"helm"``, ``"alpaca_eval"``
        or ``"leaderboard_details"``); detected with :func:`detect_tool` when
        None.

    Returns
    -------
    DataFrame
        The long table of the tool's reader (:func:`read_lm_eval`,
        :func:`read_inspect`, :func:`read_helm`, :func:`read_alpaca_eval` or
        :func:`read_leaderboard_details`).

    Raises
    ------
    ValueError
        When the tool is unknown or cannot be detected, and whatever the
        reader raises.

    Examples
    --------
    >>> import json, os, tempfile
    >>> from sklearn_eval.io import read_results
    >>> log = {"version": 2, "status": "success",
    ...        "eval": {"model": "mockllm/a", "task": "sums"},
    ...        "samples": [{"id": "q1", "epoch": 1, "scores": {"match": {"value": 1}}}]}
    >>> path = os.path.join(tempfile.mkdtemp(), "log.json")
    >>> with open(path, "w") as handle:
    ...     json.dump(log, handle)
    >>> read_results(path)[["model", "metric", "score"]].values.tolist()
    [['mockllm/a', 'match', 1.0]]
    """
    if tool is None:
        tool = detect_tool(path)
        if tool is None:
            raise ValueError(
                f"{path}: not the output of a tool this library reads "
                f"({', '.join(TOOLS)})"
            )
    if tool not in TOOLS:
        raise ValueError(f"tool must be one of {list(TOOLS)}; got {tool!r}.")
    return TOOLS[tool](path)
