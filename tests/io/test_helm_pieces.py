"""HELM documents read from their file in pieces, one thread each, read alike.

``read_helm`` parses ``per_instance_stats.json`` with pyarrow in runs of
whole instances, each thread reading its own run of the file into the buffer
that wraps it (the cuts found in small windows read around them; see the
user guide's "Reading speed"). On seeded corpora of generated HELM runs
(indented as HELM writes them or compact, keys in other orders, unicode,
huge strings, duplicated instances, perturbations, several splits, and
hostile ones: missing fields, values of other types, truncated documents,
bytes that are not UTF-8, long whitespace) the outcome must be the one of
the document's bytes parsed whole and of the standard library: the same
table with its dtypes, order and warnings, or the same error.
"""

import json
import random
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sklearn_eval.io import _files, _helm, read_helm

from .test_files import _assert_same

pytest.importorskip("pyarrow")

DATA = Path(__file__).parent / "data"

_NAMES = ["exact_match", "quasi_exact_match", "num_output_tokens", "bleu_4",
          "é😀 score", 'a "quoted" \\ name']
_SPLITS = ["test", "valid", "train"]
_IDS = ["é😀\u2028中文", "\x00", 'q"uote\\', "x" * 40000]


def _stat(rng, name, hostile):
    stat = {"name": {"name": name, "split": rng.choice(_SPLITS)},
            "count": 1, "sum": 1.0, "sum_squared": 1.0, "min": 0.0, "max": 1.0,
            "mean": rng.choice([0.0, 1.0, rng.random(), 3.0, -2.5, 1, None]),
            "variance": 0.0, "stddev": 0.0}
    if rng.random() < 0.1:
        stat["name"]["sub_split"] = "hard"
    if rng.random() < rng.huge:  # a huge field the reader skips
        stat["extra"] = "y" * rng.randint(1000, 100000)
    if rng.random() < rng.nested:  # a list of objects then a key, skipped
        stat["extra"] = {"l": [{"a": 1}], "b": 2}
    if hostile and rng.random() < 0.05:
        key, value = rng.choice([
            ("mean", True), ("mean", "1.0"), ("mean", [1]), ("mean", {"a": 1}),
            ("mean", 1e300 * 10), ("name", None), ("name", {"split": "test"}),
            ("name", {"name": 3}), ("name", "em"), ("mean", 10 ** 20)])
        stat[key] = value
    if hostile and rng.random() < 0.02:
        del stat[rng.choice(["mean", "name"])]
    return stat


def _entry(rng, k, hostile, seen):
    item = f"id{k}" if rng.random() > 0.05 else rng.choice(_IDS) + str(k)
    trial = rng.randint(0, 2)
    if seen and rng.random() < 0.02:  # an instance logged twice
        item, trial = rng.choice(seen)
    seen.append((item, trial))
    names = rng.sample(_NAMES, rng.randint(1, 4))
    entry = {"instance_id": item, "train_trial_index": trial,
             "stats": [_stat(rng, name, hostile) for name in names]}
    if rng.random() < 0.2:  # where HELM writes it, or (rarely) last
        perturbation = rng.choice([
            {"name": "typos", "prob": 0.1, "seed": 0},
            {"name": "dialect", "source_class": {"name": "SAE"}, "prob": 1.0},
            {"name": "é😀"}])
        if not rng.last:
            entry = {"instance_id": item, "perturbation": perturbation, **entry}
        else:
            entry["perturbation"] = perturbation
    if hostile and rng.random() < 0.05:
        key, value = rng.choice([
            ("instance_id", 3), ("instance_id", None), ("train_trial_index", "0"),
            ("train_trial_index", 0.0), ("train_trial_index", None),
            ("stats", None), ("stats", []), ("stats", "x"),
            ("perturbation", {"prob": 1}), ("perturbation", "typos"),
            ("perturbation", {"name": None}), ("perturbation", {})])
        entry[key] = value
    if hostile and rng.random() < 0.02:
        del entry[rng.choice(["instance_id", "train_trial_index", "stats"])]
    return entry


def _document(rng, entries):
    style = rng.random()
    if style < 0.4:  # as HELM writes it
        text = json.dumps(entries, indent=2)
    elif style < 0.5:
        text = json.dumps(entries, indent=4, sort_keys=True, ensure_ascii=False)
    else:
        text = json.dumps(entries, ensure_ascii=rng.random() < 0.5)
    if rng.random() < 0.1:  # whitespace runs longer than a look around a cut
        text = text.replace(', {"instance_id"', "," + " " * 300 + '{"instance_id"', 3)
        text = text.replace("]}", "]" + "\n" * 100 + "}", 3)
    return text.encode()


def _accident(data, rng):
    accident = rng.random()
    if accident < 0.05:
        return data[:-rng.randint(1, 40)]  # truncated
    if accident < 0.07:
        return data[:len(data) // 2]
    if accident < 0.09:
        return "\ufeff".encode() + data
    if accident < 0.11:
        return data.replace(b'"id', b'"i\xffd', 1)  # not UTF-8
    if accident < 0.13:
        return data + rng.choice([b" x", b', "w": [{"a": 1}]', b"\n\n"])
    if accident < 0.15:
        return rng.choice([b"[]", b"null", b"{}", b""])
    return data


def _write_run(folder, rng):
    """A HELM run folder; half the runs hostile. Returns the stats file."""
    hostile = rng.random() < 0.5
    rng.huge = 0.02 if rng.random() < 0.2 else 0.0
    rng.nested = 0.02 if rng.random() < 0.1 else 0.0
    rng.last = rng.random() < 0.05
    run = folder / "run"
    run.mkdir(parents=True)
    (run / "run_spec.json").write_text(json.dumps(
        {"name": "qa:model=m", "adapter_spec": {"model": "m"}}))
    seen = []
    entries = [_entry(rng, k, hostile, seen) for k in range(rng.randint(1, 60))]
    data = _document(rng, entries)
    path = run / "per_instance_stats.json"
    path.write_bytes(_accident(data, rng) if hostile else data)
    return path


def _same_columns(a, b):
    if a is None or b is None:
        return a is None and b is None
    for x, y in zip(a, b, strict=True):
        x, y = np.asarray(x, dtype=object), np.asarray(y, dtype=object)
        if x.shape != y.shape or not all(
                u == v or (u != u and v != v) for u, v in zip(x, y, strict=True)):
            return False
    return True


_SETTINGS = [(1, 1 << 16), (3, 64), (3, 301), (2, 1 << 16)]


@pytest.mark.parametrize("seed, n_runs", [
    (0, 40), pytest.param(1, 300, marks=pytest.mark.slow)])
def test_pieces_read_from_the_file_parse_as_the_bytes_whole(seed, n_runs, tmp_path,
                                                            monkeypatch):
    # the columns of the file read in pieces by threads, whatever the threads
    # and the windows the cuts are looked for in, are those of its bytes
    monkeypatch.setattr(_files, "SPLIT_BYTES", 100)
    rng = random.Random(seed)
    taken = []
    for k in range(n_runs):
        path = _write_run(tmp_path / str(k), rng)
        monkeypatch.setattr(_files, "N_THREADS", 1)
        whole = _helm._arrow_columns(path.read_bytes())
        taken.append(whole is not None)
        for n_threads, window in _SETTINGS:
            monkeypatch.setattr(_files, "N_THREADS", n_threads)
            monkeypatch.setattr(_files, "WINDOW_BYTES", window)
            assert _same_columns(_helm._arrow_columns(path), whole), (k, n_threads)
    assert n_runs / 4 <= sum(taken) < n_runs


@pytest.mark.parametrize("seed, n_runs", [
    (2, 30), pytest.param(3, 200, marks=pytest.mark.slow)])
def test_generated_runs_read_alike_by_both_parsers_and_any_threads(
        seed, n_runs, tmp_path, monkeypatch):
    # the table with its dtypes, order and warnings, or the error naming the
    # file and the instance, as the standard library reads the run
    monkeypatch.setattr(_files, "SPLIT_BYTES", 100)
    rng = random.Random(seed)
    outcomes = set()
    for k in range(n_runs):
        path = _write_run(tmp_path / str(k), rng)
        for n_threads, window in _SETTINGS[:3]:
            monkeypatch.setattr(_files, "N_THREADS", n_threads)
            monkeypatch.setattr(_files, "WINDOW_BYTES", window)
            outcomes.add(_assert_same(read_helm, path.parent, monkeypatch))
    assert outcomes == {"table", "error"}


def test_the_cuts_found_in_windows_are_those_of_the_bytes(tmp_path):
    # cuts before the first instance's opening that follows a comma, searched
    # from the same places as in the document's bytes
    rng = random.Random(4)
    rng.huge, rng.nested, rng.last = 0.02, 0.0, False
    for k in range(60):
        entries = [_entry(rng, j, False, []) for j in range(rng.randint(1, 40))]
        data = json.dumps(entries, indent=rng.choice([None, 2])).encode()
        path = tmp_path / f"{k}.json"
        path.write_bytes(data)
        n_pieces = rng.randint(1, 6)
        for window in (32, 100, 1 << 16):
            _files.WINDOW_BYTES, saved = window, _files.WINDOW_BYTES
            try:
                with open(path, "rb", buffering=0) as handle:
                    pieces = _files._file_pieces(handle, len(data), n_pieces)
            finally:
                _files.WINDOW_BYTES = saved
            if window > 4 * len(b'{"instance_id"'):
                assert pieces == _files._array_pieces(data, n_pieces), (k, window)
            else:  # too small a window to look for the opening: one piece
                assert pieces is None or len(pieces) == 1


def test_a_file_shorter_than_its_cut_is_not_read(tmp_path):
    path = tmp_path / "f.json"
    path.write_bytes(b'[{"a": 1}]')
    assert _files._read_wrapped(path, 1, 20) is None
    wrapped = _files._read_wrapped(path, 1, 9)
    assert wrapped.tobytes() == b'{"v": [{"a": 1}\n]}'


def test_a_document_without_its_opening_or_bracket_in_a_window_is_read_whole(
        tmp_path, monkeypatch):
    # a first key longer than the window, whitespace longer than the window at
    # the end: the document is read whole, with the same columns
    monkeypatch.setattr(_files, "SPLIT_BYTES", 10)
    monkeypatch.setattr(_files, "N_THREADS", 2)
    monkeypatch.setattr(_files, "WINDOW_BYTES", 200)
    stats = [{"name": {"name": "em", "split": "test"}, "mean": 1.0}]
    entries = [{"instance_id": f"id{k}", "train_trial_index": 0, "stats": stats}
               for k in range(30)]
    long_key = [{("k" * 300): 1, **entry} for entry in entries]
    for data in (json.dumps(entries).encode() + b" " * 500,
                 json.dumps(long_key).encode()):
        path = tmp_path / "per_instance_stats.json"
        path.write_bytes(data)
        columns = _helm._arrow_columns(path)
        assert columns is not None
        assert _same_columns(columns, _helm._arrow_columns(data))
        assert list(columns[0]) == [f"id{k}" for k in range(30)]


_BYTES = st.lists(st.sampled_from([b"}", b"]", b",", b'"', b" ", b"\n", b"\t", b"x",
                                   b"{", b"[", b" " * 70, b"\n" * 65]),
                  max_size=16).map(b"".join)


@settings(max_examples=300, deadline=None)
@given(data=_BYTES, cut=st.tuples(st.integers(0, 400), st.integers(0, 400)),
       kind=st.sampled_from([bytes, bytearray, "numpy"]))
def test_the_closed_list_guard_is_the_pattern_on_any_buffer(data, cut, kind):
    # `}`, `]`, `,` and a quote with whitespace between, runs of it longer
    # than numpy's look included, in bytes, a bytearray or a numpy buffer
    import re

    start, end = min(cut[0], len(data)), min(max(cut), len(data))
    pattern = re.compile(rb'\}[ \t\n\r]*\][ \t\n\r]*,[ \t\n\r]*"')
    buffer = np.frombuffer(data, np.uint8).copy() if kind == "numpy" else kind(data)
    assert _files._closes_list_then_key(buffer, start, end) == (
        pattern.search(data, start, end) is not None)


@pytest.mark.parametrize("n_threads, window", _SETTINGS)
def test_the_real_runs_take_the_pieces_of_their_file(n_threads, window, monkeypatch):
    # the fixtures written by HELM itself: read in pieces from the file, the
    # columns of their bytes parsed whole
    monkeypatch.setattr(_files, "SPLIT_BYTES", 1000)
    monkeypatch.setattr(_files, "N_THREADS", n_threads)
    monkeypatch.setattr(_files, "WINDOW_BYTES", window)
    files = sorted((DATA / "helm").rglob("per_instance_stats.json"))
    assert files
    for path in files:
        columns = _helm._arrow_columns(path)
        assert columns is not None, path
        assert _same_columns(columns, _helm._arrow_columns(path.read_bytes()))
