"""Reader of inspect_ai evaluation logs (``.eval`` archives and ``.json`` logs)."""

import json
import math
import struct
import warnings
import zipfile
import zlib
from pathlib import Path

import numpy as np
import pandas as pd

from ._files import (
    all_finite_or_nan,
    arrow_column,
    arrow_inferred,
    arrow_joined_text,
    constant_column,
    finite_score,
    input_files,
    ordered_map,
    score_of,
)
from ._lfs import check_not_lfs_pointer
from ._long import LONG_COLUMNS, checked_long_table, part_sources

__all__ = ["read_inspect"]

_VERSIONS = {2}  # the log format versions this reader understands
_ZSTD = 93  # zip compression method of zstandard members
# inspect_ai's letter values (CORRECT, INCORRECT, PARTIAL, NOANSWER)
_LETTERS = {"C": 1.0, "I": 0.0, "P": 0.5, "N": 0.0}
_WORDS = {"yes": 1.0, "true": 1.0, "no": 0.0, "false": 0.0}


def _zstd_member(path, info):
    """Bytes of a zstandard member (Python < 3.14 zipfile cannot decode it)."""
    import zstandard

    with open(path, "rb") as handle:
        handle.seek(info.header_offset)
        header = handle.read(30)
        if header[:4] != b"PK\x03\x04":
            raise ValueError(f"{path}: member {info.filename!r} has a broken header")
        name_length, extra_length = struct.unpack("<HH", header[26:30])
        handle.seek(info.header_offset + 30 + name_length + extra_length)
        raw = handle.read(info.compress_size)
    return zstandard.ZstdDecompressor().decompress(raw, max_output_size=info.file_size)


def _member_bytes(archive, path, name):
    import zstandard

    info = archive.getinfo(name)
    try:
        if info.compress_type == _ZSTD:
            return _zstd_member(path, info)
        return archive.read(name)
    except (ValueError, zipfile.BadZipFile, OSError, zlib.error,
            zstandard.ZstdError) as exc:
        raise ValueError(
            f"{path}: member {name!r} is not readable JSON ({exc})"
        ) from exc


def _member_json(archive, path, name, raw=None):
    try:
        if raw is None:
            raw = _member_bytes(archive, path, name)
        return json.loads(raw)
    except ValueError as exc:
        if str(path) in str(exc):
            raise
        raise ValueError(
            f"{path}: member {name!r} is not readable JSON ({exc})"
        ) from exc


def _score(value, where):
    """Float of a logged score value; dicts give one entry per key."""
    if value is None:
        return math.nan
    if isinstance(value, bool):
        return float(value)
    if isinstance(value, int | float):
        return score_of(value, where)  # an infinite score is refused
    if isinstance(value, str):
        text = value.strip()
        if text in _LETTERS:
            return _LETTERS[text]
        if text.lower() in _WORDS:
            return _WORDS[text.lower()]
        try:
            number = float(text)
        except ValueError:
            pass
        else:
            return finite_score(number, where)
    raise ValueError(
        f"{where}: score value {value!r} is not a number, a letter C/I/P/N or "
        "yes/no; the reader takes scores as logged and cannot convert it."
    )


def _header_fields(header, path):
    version = header.get("version")
    if version not in _VERSIONS:
        raise ValueError(
            f"{path}: field 'version' is {version!r}; this reader understands "
            f"inspect_ai log format version(s) {sorted(_VERSIONS)}."
        )
    spec = header.get("eval")
    if not isinstance(spec, dict) or "model" not in spec or "task" not in spec:
        raise ValueError(f"{path}: field 'eval' lacks 'model' or 'task'.")
    return spec["model"], spec["task"], header.get("status", "started")


def _sample_rows(sample, model, task, path):
    try:
        item, epoch, scores = sample["id"], sample["epoch"], sample.get("scores")
    except (KeyError, TypeError) as exc:
        raise ValueError(f"{path}: a sample lacks the field {exc}") from exc
    if scores and not isinstance(scores, dict):
        raise ValueError(
            f"{path}: sample {item!r} epoch {epoch}: field 'scores' is not an "
            "object of scorers"
        )
    target = sample.get("target")
    if isinstance(target, list):
        target = " | ".join(map(str, target))
    for scorer, logged in (scores or {}).items():
        if not isinstance(logged, dict) or "value" not in logged:
            raise ValueError(
                f"{path}: sample {item!r} epoch {epoch} scorer {scorer!r}: field "
                "'value' is missing"
            )
        value = logged["value"]
        values = (
            {f"{scorer}/{key}": v for key, v in value.items()}
            if isinstance(value, dict) else {scorer: value}
        )
        for metric, v in values.items():
            kind = type(v)  # the common cases first; _score names any problem
            if kind is float and v - v == 0.0:  # finite
                score = v
            elif kind is str and v in _LETTERS:
                score = _LETTERS[v]
            else:
                score = _score(
                    v, f"{path}: sample {item!r} epoch {epoch} scorer {scorer!r}"
                )
            yield (model, task, item, epoch, metric, score, target,
                   logged.get("answer"))


_COLUMNS = [*LONG_COLUMNS, "target", "answer"]


def _fast_columns(samples, model, task):
    """The columns of a list of samples, scorer by scorer; None when unusual.

    The common case (every sample scored by the same scorers, each value a
    number or one of the letters C/I/P/N, the target text) is read field by
    field; anything else returns None and the samples are read one by one,
    which names a problem. Rows are sample by sample, the scorers in order.
    """
    try:
        ids = [sample["id"] for sample in samples]
        epochs = [sample["epoch"] for sample in samples]
        scores = [sample["scores"] for sample in samples]
        targets = [sample.get("target") for sample in samples]
    except (KeyError, TypeError, AttributeError):
        return None
    if not samples or type(scores[0]) is not dict or not scores[0]:
        return None
    scorers = list(scores[0])
    if not all(type(x) is dict and len(x) == len(scorers) for x in scores):
        return None
    values, answers = [], []
    try:
        for scorer in scorers:
            logged = [x[scorer] for x in scores]
            raw = [entry["value"] for entry in logged]
            answers.append([entry.get("answer") for entry in logged])
            if all(type(v) is float or type(v) is int for v in raw):
                try:
                    values.append([float(v) for v in raw])
                except OverflowError:  # an integer beyond the float range
                    return None
                if not all_finite_or_nan(values[-1]):
                    return None  # read sample by sample, which names it
            elif all(type(v) is str and v in _LETTERS for v in raw):
                values.append([_LETTERS[v] for v in raw])
            else:
                return None
    except (KeyError, TypeError, AttributeError):
        return None
    if not all(type(t) is str for t in targets):
        targets = [" | ".join(map(str, t)) if isinstance(t, list) else t
                   for t in targets]
    m = len(scorers)
    if m == 1:
        return {"model": model, "task": task, "item": ids, "epoch": epochs,
                "metric": scorers[0], "score": values[0], "target": targets,
                "answer": answers[0]}

    def repeat(column):
        return [x for x in column for _ in range(m)]

    return {"model": model, "task": task, "item": repeat(ids),
            "epoch": repeat(epochs), "metric": scorers * len(ids),
            "score": [v for row in zip(*values, strict=True) for v in row],
            "target": repeat(targets),
            "answer": [a for row in zip(*answers, strict=True) for a in row]}


def _arrow_scorer(entry):
    """``(scores, answers)`` of one scorer's entries parsed by pyarrow, or None.

    The common case only, as :func:`_fast_columns` reads it: every entry an
    object whose ``value`` is a number, or every one a letter C/I/P/N, and
    whose ``answer`` is text, null or absent.
    """
    import pyarrow as pa
    import pyarrow.compute as pc

    if not pa.types.is_struct(entry.type) or entry.null_count:
        return None
    fields = dict(zip([f.name for f in entry.type], entry.flatten(), strict=True))
    value, answer = fields.get("value"), fields.get("answer")
    if value is None or value.null_count:
        return None
    if value.type in (pa.int64(), pa.float64()):
        # int64 to float64 rounds to the nearest, as Python's float(int)
        scores = value.to_numpy().astype(np.float64)
        if not all_finite_or_nan(scores):
            return None
    elif value.type == pa.string():
        code = pc.index_in(value, value_set=pa.array(list(_LETTERS)))
        if code.null_count:
            return None
        scores = np.array(list(_LETTERS.values()))[code.to_numpy()]
    else:
        return None
    if answer is None:
        answer = pa.nulls(len(entry), pa.string())
    elif answer.type not in (pa.string(), pa.null()):
        return None
    return scores, answer.cast(pa.string())


def _arrow_target(target, n):
    """The samples' targets as text (lists joined by " | "), or None if unusual."""
    import pyarrow as pa

    if target is None:
        return pa.nulls(n, pa.string())
    return arrow_joined_text(target)


def _arrow_frame(documents, model, task):
    """``(long table, samples)`` of summaries documents parsed by pyarrow, or None.

    ``documents`` are the bytes of JSON lists of summaries (``summaries.json``,
    or the journal's members in order). Every key of every summary is parsed
    (:func:`~._files.arrow_inferred`): the scorers are the keys of the
    ``scores`` objects. The common case that
    :func:`_fast_columns` reads (every sample with the same scorers, an id,
    an integer epoch, text or list targets, the values numbers or letters)
    gives the same table; anything else returns None, and the standard
    library reads the document (the same table, or the error naming the
    sample and field).
    """
    runs = []
    for data in documents:  # each one a list: none is valid only joined
        parsed = arrow_inferred(data)
        if parsed is None:
            return None
        runs += parsed
    import pyarrow as pa

    scorers, id_type, columns = None, None, []
    for run in runs:
        fields = dict(zip([f.name for f in run.type], run.flatten(), strict=True))
        ids, epochs, scores = (fields.get(k) for k in ("id", "epoch", "scores"))
        if ids is None or epochs is None or scores is None \
                or ids.null_count or epochs.null_count or scores.null_count \
                or ids.type not in (pa.string(), pa.int64()) \
                or epochs.type != pa.int64() or not pa.types.is_struct(scores.type):
            return None
        names = [f.name for f in scores.type]
        scorers = scorers or names
        id_type = id_type or ids.type
        if not names or sorted(names) != sorted(scorers) or ids.type != id_type:
            return None
        entries = dict(zip(names, scores.flatten(), strict=True))
        parsed = [_arrow_scorer(entries[name]) for name in scorers]
        target = _arrow_target(fields.get("target"), len(run))
        if target is None or any(p is None for p in parsed):
            return None
        columns.append((ids, epochs, target, parsed))
    n, m = sum(len(c[0]) for c in columns), len(scorers)
    # rows sample by sample, the scorers in order: row k * m + j
    sample = np.repeat(np.arange(n), m)
    answers = pa.concat_arrays([p[j][1] for j in range(m) for p in
                                (c[3] for c in columns)])
    frame = pd.DataFrame({
        "model": constant_column(model, n * m),
        "task": constant_column(task, n * m),
        "item": arrow_column(pa.concat_arrays([c[0] for c in columns])
                             .take(sample)),
        "epoch": np.concatenate([c[1].to_numpy() for c in columns])[sample],
        "metric": arrow_column(pa.DictionaryArray.from_arrays(
            pa.array(np.tile(np.arange(m), n)), pa.array(scorers))
            .dictionary_decode()) if m > 1 else constant_column(scorers[0], n),
        "score": np.column_stack([np.concatenate([c[3][j][0] for c in columns])
                                  for j in range(m)]).ravel(),
        "target": arrow_column(pa.concat_arrays([c[2] for c in columns])
                               .take(sample)),
        "answer": arrow_column(answers.take(
            (np.arange(m)[None, :] * n + np.arange(n)[:, None]).ravel())),
    })
    return frame, n


def _frame(samples, model, task, path):
    """The long table of a log's samples, and their number."""
    columns = _fast_columns(samples, model, task) if isinstance(samples, list) \
        else None
    if columns is not None:
        return pd.DataFrame(columns)[_COLUMNS], len(samples)
    rows, n_samples = [], 0
    for sample in samples:
        rows.extend(_sample_rows(sample, model, task, path))
        n_samples += 1
    return pd.DataFrame(rows, columns=_COLUMNS), n_samples


def _read_eval(path):
    try:
        archive = zipfile.ZipFile(path)
    except (zipfile.BadZipFile, OSError) as exc:
        check_not_lfs_pointer(path)
        raise ValueError(f"{path}: not a readable .eval zip archive ({exc})") from exc
    with archive:
        names = archive.namelist()
        if "header.json" in names:
            header = _member_json(archive, path, "header.json")
        elif "_journal/start.json" in names:  # a run that did not finish
            header = {"status": "started",
                      **_member_json(archive, path, "_journal/start.json")}
        else:
            raise ValueError(f"{path}: no header.json (not an inspect_ai log)")
        model, task, status = _header_fields(header, path)
        journal = sorted(
            (n for n in names if n.startswith("_journal/summaries/")),
            key=lambda n: int(n.rsplit("/", 1)[1].split(".")[0]),
        )
        if "summaries.json" in names:  # the per-sample summaries hold the scores
            raw = _member_bytes(archive, path, "summaries.json")
            fast = _arrow_frame([raw], model, task)
            if fast is not None:
                return (*fast, status)
            samples = _member_json(archive, path, "summaries.json", raw)
        elif journal:  # a run that did not finish: the summaries written so far
            raws = [_member_bytes(archive, path, n) for n in journal]
            fast = _arrow_frame(raws, model, task)
            if fast is not None:
                return (*fast, status)
            samples = [s for n, raw in zip(journal, raws, strict=True)
                       for s in _member_json(archive, path, n, raw)]
        else:  # sample by sample, member by member
            samples = (
                _member_json(archive, path, n) for n in names
                if n.startswith("samples/")
            )
        frame, n_samples = _frame(samples, model, task, path)
    return frame, n_samples, status


_MANIFEST = "logs.json"  # inspect_ai's write_log_dir_manifest


def _is_manifest(path):
    """Whether ``path`` is the manifest inspect_ai writes into a log folder.

    ``logs.json``: an object mapping each log's file name to its header; a
    log has the fields ``version`` and ``eval`` at its top level instead.
    """
    if path.name != _MANIFEST:
        return False
    try:
        with open(path, encoding="utf-8") as handle:
            content = json.load(handle)
    except (ValueError, OSError):
        return False  # read as a log, whose reader names the problem
    return isinstance(content, dict) and "eval" not in content


def _read_json(path):
    try:
        with open(path, encoding="utf-8") as handle:
            log = json.load(handle)
    except (ValueError, OSError) as exc:
        check_not_lfs_pointer(path)
        raise ValueError(f"{path}: not a readable JSON log ({exc})") from exc
    if not isinstance(log, dict):
        raise ValueError(f"{path}: not an inspect_ai log (top level is not an object)")
    model, task, status = _header_fields(log, path)
    samples = log.get("samples") or []
    frame, n_samples = _frame(samples, model, task, path)
    return frame, n_samples, status


def read_inspect(path):
    """Read inspect_ai logs into a long table of per-sample scores.

    Reads ``.eval`` archives (zip files whose members are zstandard-compressed,
    or deflate-compressed as older releases wrote them) from their per-sample
    summaries (``summaries.json``, or the journal of a run that did not
    finish; the sample members one by one when neither is there), and
    ``.json`` logs. Each log is one run of one model on one task as
    inspect_ai records it; a folder is read log by log, its subfolders too
    (sorted by path, both formats; the manifest ``logs.json`` that
    inspect_ai may write beside the logs is not a log and is passed over).
    Scores are taken as logged: numbers as they are, the letters
    C, I, P, N as 1, 0, 0.5, 0 (inspect_ai's own conversion), yes/no and
    booleans as 1/0; a scorer whose value is a dict gives one metric per key
    (``"<scorer>/<key>"``).

    Parameters
    ----------
    path : str or path-like
        A log file (``.eval`` or ``.json``) or a folder of logs.

    Returns
    -------
    DataFrame
        The columns of :data:`~sklearn_eval.io.LONG_COLUMNS` (``metric`` is
        the scorer's name, ``item`` the sample id, ``epoch`` inspect_ai's
        1-based epoch) plus ``target``, ``answer`` and ``log`` (the file's
        name; its path under the folder read, for a log in a subfolder), one
        row per sample, epoch and scorer.

    Raises
    ------
    ValueError
        Naming the file (and the sample or field): an unknown log format
        version, a file that is not an inspect_ai log, a log without samples
        or without any scored sample,
        a score that is not a number, or the same sample logged twice (two
        logs of one model and task in a folder).

    Warns
    -----
    UserWarning
        For a log whose run did not finish (status other than "success"):
        its samples are read as logged; and for a log some of whose samples
        have no score (an errored sample): they are left out.

    Examples
    --------
    >>> import json, os, tempfile
    >>> from sklearn_eval.io import read_inspect
    >>> log = {"version": 2, "status": "success",
    ...        "eval": {"model": "mockllm/a", "task": "sums"},
    ...        "samples": [{"id": "q1", "epoch": 1, "target": "2",
    ...                     "scores": {"match": {"value": "C", "answer": "2"}}}]}
    >>> path = os.path.join(tempfile.mkdtemp(), "run.json")
    >>> with open(path, "w") as handle:
    ...     json.dump(log, handle)
    >>> long = read_inspect(path)
    >>> long[["model", "item", "epoch", "metric", "score"]].values.tolist()
    [['mockllm/a', 'q1', 1, 'match', 1.0]]
    """
    path = Path(path)
    files = input_files(
        path, lambda p: p.suffix in (".eval", ".json") and not _is_manifest(p),
        ".eval or .json log",
    )
    for file in files:
        if file.suffix not in (".eval", ".json"):
            raise ValueError(f"{file}: not an inspect_ai log (.eval or .json)")
        if _is_manifest(file):
            raise ValueError(
                f"{file}: inspect_ai's manifest of a log folder (log names and "
                "headers), not a log; read the folder"
            )
    # a log's name in the table: its path under the folder read
    names = {file: file.name if file == path else
             file.relative_to(path).as_posix() for file in files}

    def read(file):
        return (_read_eval if file.suffix == ".eval" else _read_json)(file)

    parts = []
    for file, (found, n_samples, status) in zip(
        files, ordered_map(read, files), strict=True
    ):
        if n_samples == 0:
            raise ValueError(f"{file}: the log has no samples (status {status!r})")
        n_scored = len(found[["item", "epoch"]].drop_duplicates())
        if n_scored == 0:
            raise ValueError(
                f"{file}: none of the log's {n_samples} samples has a score (a "
                "run without scoring, or every sample errored); score the log "
                "(inspect score) or leave it out"
            )
        if n_scored < n_samples:
            warnings.warn(
                f"{file}: {n_samples - n_scored} of the log's {n_samples} "
                "samples have no score (errored or not scored); they are left "
                "out, and missing from the result matrix.",
                UserWarning,
                stacklevel=2,
            )
        if status != "success":
            warnings.warn(
                f"{file}: the run's status is {status!r}; its {n_samples} "
                "logged samples are read as they are.",
                UserWarning,
                stacklevel=2,
            )
        parts.append(found.assign(log=names[file]))
    return checked_long_table(pd.concat(parts, ignore_index=True),
                              part_sources(parts, files))
