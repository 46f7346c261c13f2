"""inspect_ai samples without a score are never dropped silently.

A run with scoring turned off, or whose samples errored, logs samples whose
``scores`` are missing, null or empty (as in inspect_ai's own test logs
``tests/scorer/logs/*popularity_dPiJ*.eval``, ten samples scored later, and
``tests/log/test_eval_log/log_tool_call_error.json``). Such a log used to
give no rows: alone, the error "The long table is empty" named no file; in a
folder, the log vanished from the table without a word.
"""

import json
import shutil
import warnings
import zipfile
from pathlib import Path

import pytest

from sklearn_eval.io import read_inspect, read_results
from sklearn_eval.io._inspect import _member_bytes

DATA = Path(__file__).parent / "data" / "inspect"


def _json_log(tmp_path, unscored):
    """A copy of the JSON fixtures, ``unscored(samples)`` applied to the first."""
    folder = tmp_path / "logs"
    shutil.copytree(DATA / "json", folder)
    file = sorted(folder.glob("*.json"))[0]
    log = json.loads(file.read_text())
    unscored(log["samples"])
    file.write_text(json.dumps(log))
    return folder, file, len(log["samples"])


def _eval_log(tmp_path):
    """A copy of the first .eval fixture whose summaries have no scores."""
    folder = tmp_path / "logs"
    shutil.copytree(DATA / "eval", folder)
    file = sorted(folder.glob("*.eval"))[0]
    with zipfile.ZipFile(file) as archive:
        members = {name: _member_bytes(archive, file, name)
                   for name in archive.namelist()}
    for name, data in members.items():
        if name == "summaries.json" or name.startswith(("samples/",
                                                        "_journal/summaries/")):
            content = json.loads(data)
            for sample in content if isinstance(content, list) else [content]:
                sample["scores"] = {}
            members[name] = json.dumps(content).encode()
    with zipfile.ZipFile(file, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in members.items():
            archive.writestr(name, data)
    return folder, file


def _none(samples):
    for sample in samples:
        sample["scores"] = None


def _absent(samples):
    for sample in samples:
        sample.pop("scores", None)


@pytest.mark.parametrize("unscored", [_none, _absent])
@pytest.mark.parametrize("read", [read_inspect, read_results])
def test_log_without_scores_is_refused_naming_it(tmp_path, unscored, read):
    folder, file, n = _json_log(tmp_path, unscored)
    for path in (file, folder):  # alone, and among scored logs
        with pytest.raises(ValueError, match=f"none of the log's {n} samples"):
            read(path)
        with pytest.raises(ValueError) as info:
            read(path)
        assert str(file) in str(info.value)


def test_eval_log_without_scores_is_refused_naming_it(tmp_path):
    folder, file = _eval_log(tmp_path)
    with pytest.raises(ValueError, match="has a score") as info:
        read_inspect(folder)
    assert str(file) in str(info.value)


def test_errored_samples_are_counted_in_a_warning(tmp_path):
    def first_errored(samples):
        samples[0]["scores"] = None
        samples[0]["error"] = {"message": "RuntimeError"}

    folder, file, n = _json_log(tmp_path, first_errored)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        complete = read_inspect(DATA / "json")
    with pytest.warns(UserWarning, match=f"1 of the log's {n} samples have no"):
        long = read_inspect(folder)
    assert len(long) < len(complete)
    assert long["score"].notna().all()
