"""The readers parse alike with pyarrow's JSON reader and with the standard library.

With pyarrow installed the readers parse only the fields they need with
pyarrow (JSON lines in blocks of whole lines, a JSON document whole) and
fall back to the standard library on anything unusual, which then gives the
table or the error naming the file and line. Both paths are run here on the
real fixtures and on seeded corpora of generated files, hostile ones
included (missing fields, values of other types, null, NaN, unicode, huge
strings, duplicated keys, blank or doubled lines, a byte order mark, bytes
that are not UTF-8, a truncated last line): the outcome (the table with its
warnings, or the error) must be the same.
"""

import io
import json
import random
import re
import shutil
import warnings
from pathlib import Path

import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sklearn_eval.io import (
    _alpaca,
    _files,
    _helm,
    _lm_eval,
    read_alpaca_eval,
    read_helm,
    read_lm_eval,
)
from sklearn_eval.io._files import _array_pieces, _chunks
from sklearn_eval.io._lm_eval import _arrow_samples

pytest.importorskip("pyarrow")

DATA = Path(__file__).parent / "data"


def _outcome(read, path, monkeypatch, arrow):
    monkeypatch.setattr(_files, "USE_ARROW", arrow)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            table = read(path)
        except (ValueError, TypeError) as exc:
            return "error", type(exc).__name__, str(exc)
    return "table", table, sorted(str(w.message) for w in caught)


def _assert_same(read, path, monkeypatch):
    fast = _outcome(read, path, monkeypatch, True)
    slow = _outcome(read, path, monkeypatch, False)
    assert fast[0] == slow[0], (fast, slow)
    if fast[0] == "error":
        assert fast[1:] == slow[1:]
    else:
        pd.testing.assert_frame_equal(fast[1], slow[1], check_exact=True)
        assert fast[2] == slow[2]
    return fast[0]


@pytest.mark.parametrize("read, folder", [
    (read_lm_eval, "lm_eval"), (read_helm, "helm"), (read_alpaca_eval, "alpaca_eval"),
])
@pytest.mark.parametrize("n_threads", [1, 3])
def test_both_parsers_read_the_fixtures_alike(read, folder, n_threads, monkeypatch):
    monkeypatch.setattr(_files, "N_THREADS", n_threads)
    monkeypatch.setattr(_files, "SPLIT_BYTES", 1000)  # documents in pieces
    assert _assert_same(read, DATA / folder, monkeypatch) == "table"


def test_the_fixtures_take_the_pyarrow_path():
    # the real tools' files are the common case the fast path is for
    for file in sorted((DATA / "helm").rglob("per_instance_stats.json")):
        assert _helm._arrow_columns(file.read_bytes()) is not None, file
    for file in sorted((DATA / "alpaca_eval").rglob("annotations.json")):
        assert _alpaca._arrow_columns(file, file.read_bytes(), []) is not None, file
    for results in sorted((DATA / "lm_eval").rglob("results_*.json")):
        configs = json.loads(results.read_text())["results"]
        stamp = results.stem.removeprefix("results_")
        for task, table in configs.items():
            filters = {}
            for key in table:
                metric, _, name = key.partition(",")
                if name and not metric.endswith("_stderr"):
                    filters.setdefault(name, []).append(metric)
            file = results.parent / f"samples_{task}_{stamp}.jsonl"
            if file.is_file():
                assert _arrow_samples(file, filters) is not None, file


def test_blocks_are_whole_lines_and_cover_the_file():
    rng = random.Random(0)
    for _ in range(2000):
        data = b"".join(rng.choice([b"x" * rng.randint(0, 30) + b"\n", b"\n", b"yz"])
                        for _ in range(rng.randint(0, 20)))
        parts = [block[:end] for block, end in _chunks(io.BytesIO(data),
                                                       rng.randint(1, 40))]
        assert b"".join(parts) == data
        assert all(part.endswith(b"\n") for part in parts[:-1])
        assert all(part for part in parts)


# --- generated files: mostly well formed, each field now and then hostile ---

_UNICODE = ["é", "😀", "\u2028", "ß\u0301", "中文", "\x00", "\\", '"']


def _text(rng):
    if rng.random() < 0.05:  # unicode, escaped or not
        return "".join(rng.choice(_UNICODE) for _ in range(rng.randint(1, 5)))
    if rng.random() < 0.03:
        return "a" * rng.randint(2000, 40000)
    return f"text {rng.randint(0, 9)}"


def _value(rng, usual, odd, p=0.03):
    """JSON text of a field: ``usual(rng)`` mostly, one of ``odd`` else.

    Only in the hostile files (half of them): the other half is well formed
    throughout, the common case the pyarrow path reads.
    """
    if rng.hostile and rng.random() < p:
        return rng.choice(odd)
    return usual(rng)


def _dumps(pairs, rng):
    """An object from (key, JSON text) pairs, as written by hand (keys may repeat)."""
    ascii_only = rng.random() < 0.5
    return "{" + ", ".join(f"{json.dumps(k, ensure_ascii=ascii_only)}: {v}"
                           for k, v in pairs if v is not None) + "}"


_MISSING = None  # a field left out
_ODD_NUMBER = ["true", "null", '"1.0"', "[1, 0]", "NaN", "-0", "1e308", "5e-324",
               "123456789012345678901", _MISSING, '{"a": 1}']
_ODD_TEXT = ["3", "null", "[\"a\"]", "true", '"\\ud800"', _MISSING, '{"x": 1}']


def _score(rng):
    return rng.choice(["0.0", "1.0", "1", "0", repr(rng.random()),
                       repr(rng.uniform(-1e6, 1e6))])


def _lm_eval_line(rng, k, filters):
    name = _value(rng, lambda r: json.dumps(r.choice(list(filters))),
                  ['"other"', "null", _MISSING, "1"])
    pairs = [
        ("doc_id", _value(rng, lambda r: str(k), ['"3"', "3.0", "true", _MISSING,
                                                  str(10 ** 20), "-0"])),
        ("doc", json.dumps({"question": _text(rng), "choices": [_text(rng)]},
                           ensure_ascii=rng.random() < 0.5)),
        ("target", _value(rng, lambda r: json.dumps(_text(r)), _ODD_TEXT)),
        ("arguments", json.dumps({"gen_args_0": {"arg_0": _text(rng)}})),
        ("filter", name),
        ("doc_hash", _value(rng, lambda r: json.dumps("0" * 8), ["null", "1"])),
    ]
    pairs += [(m, _value(rng, _score, _ODD_NUMBER, 0.01))
              for m in ("acc", "acc_norm", "exact_match")]
    if rng.random() < 0.05:
        rng.shuffle(pairs)
    if rng.random() < 0.01:
        pairs.append(("acc", "0.5"))  # a key twice
    return _dumps(pairs, rng)


def _corrupt(lines, rng):
    """The file's bytes, sometimes with a line-level accident."""
    end = "\r\n" if rng.random() < 0.05 else "\n"
    data = "".join(line + end for line in lines).encode()
    accident = rng.random() * 0.3 if rng.hostile else 1.0
    if accident < 0.03:
        data = data.replace(b"\n", b"\n\n", 1)  # a blank line
    elif accident < 0.06:
        data = data.replace(b"}\n", b"}", 1)  # two objects on one line
    elif accident < 0.09:
        data = data[:-rng.randint(2, 30)]  # a truncated last line
    elif accident < 0.11:
        data = "\ufeff".encode() + data  # a byte order mark
    elif accident < 0.13:
        data = data.replace(b"text", b"t\xffxt", 1)  # not UTF-8
    elif accident < 0.15:
        data = data[:-1]  # no newline at the end
    return data


def _document_accident(text, rng):
    """A JSON document's bytes, sometimes cut short, empty, or with extras."""
    accident = rng.random() * 0.3 if rng.hostile else 1.0
    if accident < 0.03:
        text = text[:-rng.randint(1, 20)]
    elif accident < 0.05:
        text = rng.choice(["{}", "[]", "null"])
    elif accident < 0.07:
        text = "\ufeff" + text
    elif accident < 0.09:
        text = text + rng.choice([" x", ', "w": 1', "\n"])
    return text.encode()


def _write_lm_eval(folder, rng):
    filters = {"none": ["acc", "acc_norm"], "strict": ["exact_match"]}
    results = {"results": {"t": {"acc,none": 0.5, "acc_stderr,none": 0.1,
                                 "acc_norm,none": 0.5, "exact_match,strict": 0.5}},
               "configs": {"t": {}}, "versions": {"t": 1}, "config": {"model": "m"},
               "model_name": "m"}
    (folder / "results_1.json").write_text(json.dumps(results))
    lines = [_lm_eval_line(rng, k, filters) for k in range(rng.randint(1, 40))]
    (folder / "samples_t_1.jsonl").write_bytes(_corrupt(lines, rng))


def _count_taken(fast, monkeypatch):
    """A list told, at each call of the pyarrow step ``fast``, whether it read."""
    module, name = fast
    taken = []
    step = getattr(module, name)

    def counted(*args):
        result = step(*args)
        taken.append(result is not None)
        return result

    monkeypatch.setattr(module, name, counted)
    return taken


def _check_corpus(read, write, fast, tmp_path, monkeypatch, n_files, seed):
    """Both parsers on ``n_files`` generated files; ``fast`` the pyarrow step."""
    taken = _count_taken(fast, monkeypatch)
    rng = random.Random(seed)
    outcomes = []
    for k in range(n_files):
        folder = tmp_path / str(k)
        folder.mkdir()
        rng.hostile = rng.random() < 0.5
        write(folder, rng)
        outcomes.append(_assert_same(read, folder, monkeypatch))
        shutil.rmtree(folder)
    # the corpus holds well formed and refused files, read by both paths
    assert {"table", "error"} <= set(outcomes)
    assert sum(taken) >= n_files / 4 and not all(taken)


CORPUS = [pytest.param(40, id="40"),
          pytest.param(400, id="400", marks=pytest.mark.slow)]


@pytest.mark.parametrize("n_files", CORPUS)
def test_lm_eval_both_parsers_agree_on_generated_files(n_files, tmp_path,
                                                       monkeypatch):
    _check_corpus(read_lm_eval, _write_lm_eval, (_lm_eval, "_arrow_samples"),
                  tmp_path, monkeypatch, n_files, 0)


@pytest.mark.parametrize("n_threads", [1, 3])
def test_lm_eval_small_blocks_read_alike(n_threads, tmp_path, monkeypatch):
    # blocks of a few lines, lines longer than a block, several blocks parsed
    # at a time by parallel threads: the same table
    monkeypatch.setattr(_files, "CHUNK_BYTES", 700)
    monkeypatch.setattr(_files, "BLOCK_BYTES", 300)
    monkeypatch.setattr(_files, "N_THREADS", n_threads)
    _check_corpus(read_lm_eval, _write_lm_eval, (_lm_eval, "_arrow_samples"),
                  tmp_path, monkeypatch, 40, 1)


def _helm_stat(rng, name):
    pairs = [
        ("name", _value(rng, lambda r: json.dumps(
            {"name": name, "split": r.choice(["test", "valid"])}),
            ['{"split": "test"}', '{"name": 3}', '{"name": "x", "split": null}',
             "null", _MISSING, '{"name": "em", "split": 1}'])),
        ("count", "1"), ("sum", "1.0"),
        ("mean", _value(rng, _score, _ODD_NUMBER, 0.02)),
        ("variance", "0.0"),
    ]
    return _dumps(pairs, rng)


def _helm_entry(rng, k):
    stats = [_helm_stat(rng, name) for name in ("exact_match", "num_tokens")]
    pairs = [
        ("instance_id", _value(rng, lambda r: json.dumps(f"id{k}"),
                               ["3", "null", _MISSING, '"\\ud800"'])),
        ("train_trial_index", _value(rng, lambda r: str(r.randint(0, 1)),
                                     ['"0"', "0.0", "null", _MISSING, "-1"])),
        ("perturbation", _value(rng, lambda r: _MISSING, [
            '{"name": "typos"}', '{"name": "typos", "prob": 0.1}', "{}",
            '{"name": null}', '{"prob": 1}', '"typos"', "false", "null"], 0.1)),
        ("stats", _value(rng, lambda r: "[" + ", ".join(stats) + "]",
                         ["[]", "null", _MISSING, '"x"'], 0.02)),
    ]
    return _dumps(pairs, rng)


def _write_helm(folder, rng):
    run = folder / "run"
    run.mkdir()
    (run / "run_spec.json").write_text(json.dumps(
        {"name": "qa:model=m", "adapter_spec": {"model": "m"}}))
    entries = [_helm_entry(rng, k) for k in range(rng.randint(1, 30))]
    if rng.random() < 0.3:  # HELM writes its files indented
        text = json.dumps(json.loads("[" + ", ".join(entries) + "]"), indent=2) \
            if rng.random() < 0.9 else "[" + ",\n".join(entries) + "]"
    else:
        text = "[" + ", ".join(entries) + "]"
    (run / "per_instance_stats.json").write_bytes(_document_accident(text, rng))


@pytest.mark.parametrize("n_files", CORPUS)
def test_helm_both_parsers_agree_on_generated_files(n_files, tmp_path, monkeypatch):
    _check_corpus(read_helm, _write_helm, (_helm, "_arrow_columns"), tmp_path,
                  monkeypatch, n_files, 2)


def _alpaca_record(rng, k):
    generators = ["ref", "m1", "m2"]
    pairs = [
        ("instruction", _value(rng, lambda r: json.dumps(f"Write {k} {_text(r)}"),
                               _ODD_TEXT)),
        ("output_1", _value(rng, lambda r: json.dumps(_text(r)), _ODD_TEXT)),
        ("generator_1", _value(rng, lambda r: json.dumps("ref"), _ODD_TEXT)),
        ("dataset", _value(rng, lambda r: json.dumps(r.choice(["a", "b"])),
                           ['""', "null", _MISSING, "1"], 0.1)),
        ("output_2", _value(rng, lambda r: json.dumps(_text(r)), _ODD_TEXT)),
        ("generator_2", _value(rng, lambda r: json.dumps(r.choice(generators)),
                               _ODD_TEXT)),
        ("annotator", _value(rng, lambda r: json.dumps("judge"),
                             ['""', "null", _MISSING, "1"], 0.1)),
        ("preference", _value(rng, lambda r: r.choice(
            ["1", "2", "1.0", "2.0", "1.5", "0", repr(r.uniform(1, 2))]),
            ["2.5", "null", "NaN", "true", '"2"', _MISSING, "-1"], 0.03)),
        ("price_per_example", "0.01"),
    ]
    return _dumps(pairs, rng)


def _write_alpaca(folder, rng):
    records = [_alpaca_record(rng, k) for k in range(rng.randint(1, 30))]
    text = "[" + ", ".join(records) + "]"
    (folder / "annotations.json").write_bytes(_document_accident(text, rng))


@pytest.mark.parametrize("n_files", CORPUS)
def test_alpaca_eval_both_parsers_agree_on_generated_files(n_files, tmp_path,
                                                           monkeypatch):
    _check_corpus(read_alpaca_eval, _write_alpaca, (_alpaca, "_arrow_columns"),
                  tmp_path, monkeypatch, n_files, 3)


@pytest.mark.parametrize("read, write, seed", [
    (read_helm, _write_helm, 4), (read_alpaca_eval, _write_alpaca, 5),
])
def test_documents_cut_in_pieces_read_alike(read, write, seed, tmp_path,
                                            monkeypatch):
    # a document parsed in pieces of whole elements, by several threads
    monkeypatch.setattr(_files, "SPLIT_BYTES", 100)
    monkeypatch.setattr(_files, "N_THREADS", 3)
    outcomes = _generated(write, tmp_path, seed, 40,
                          lambda folder: _assert_same(read, folder, monkeypatch))
    assert {"table", "error"} <= set(outcomes)


def _generated(write, tmp_path, seed, n_folders, check):
    """``check(folder)`` of ``n_folders`` folders written by ``write``, half hostile."""
    rng = random.Random(seed)
    outcomes = []
    for k in range(n_folders):
        folder = tmp_path / str(k)
        folder.mkdir()
        rng.hostile = rng.random() < 0.5
        write(folder, rng)
        outcomes.append(check(folder))
    return outcomes


def _threads_alike(read, folder, monkeypatch):
    """Reading ``folder`` on one thread and on three: the same outcome."""
    monkeypatch.setattr(_files, "N_THREADS", 1)
    one = _outcome(read, folder, monkeypatch, True)
    monkeypatch.setattr(_files, "N_THREADS", 3)
    several = _outcome(read, folder, monkeypatch, True)
    assert one[0] == several[0], (one, several)
    if one[0] == "table":
        pd.testing.assert_frame_equal(one[1], several[1], check_exact=True)
    assert one[2:] == several[2:]
    return one[0]


def test_a_document_is_cut_only_between_elements():
    for indent in (None, 2):
        data = json.dumps([{"a": k, "b": [{"a": 1}, {"a": 2}]} for k in range(20)],
                          indent=indent).encode()
        pieces = _array_pieces(data, 4)
        assert pieces[0][0] == data.index(b"{") and len(pieces) > 1
        texts = [b"[" + data[a:b] + b"]" for a, b in pieces]
        if all(map(_valid, texts)):  # else the document is parsed whole
            joined = [e for text in texts for e in json.loads(text)]
            assert joined == json.loads(data)
        if indent:  # nested objects are indented deeper: every cut is right
            assert len(pieces) == 4 and all(map(_valid, texts))
    assert _array_pieces(b"[1, 2]", 2) is None
    assert _array_pieces(b'{"a": [{"b": 1}]}', 2) is None


def _valid(text):
    try:
        json.loads(text)
    except ValueError:
        return False
    return True


@pytest.mark.parametrize("extra", [', "w": [1]', ', "w": [{"a": 1}]', ' x',
                                   ', {"a": 1}', ""])
def test_a_document_that_is_more_than_one_list_is_refused_alike(extra, tmp_path,
                                                                 monkeypatch):
    # wrapped for pyarrow as {"v": ...}, `[...], "w": [1]` would be an object
    annotations = [{"instruction": "i", "output_1": "a", "output_2": "b",
                    "generator_1": "ref", "generator_2": "m",
                    "preference": 2.0}]
    path = tmp_path / "annotations.json"
    path.write_text(json.dumps(annotations) + extra)
    expected = "table" if not extra else "error"
    assert _assert_same(read_alpaca_eval, tmp_path, monkeypatch) == expected


def test_a_samples_line_that_is_not_utf8_is_named(tmp_path, monkeypatch):
    rng = random.Random(6)
    rng.hostile = False
    _write_lm_eval(tmp_path, rng)
    samples = tmp_path / "samples_t_1.jsonl"
    lines = samples.read_bytes().splitlines(keepends=True)
    lines[-1] = lines[-1].replace(b'"doc"', b'"d\xffoc"', 1)
    samples.write_bytes(b"".join(lines))
    for arrow in (True, False):
        outcome = _outcome(read_lm_eval, tmp_path, monkeypatch, arrow)
        assert outcome[0] == "error"
        assert f"{samples}: line {len(lines)} is not UTF-8" in outcome[2]


def test_ordered_map_keeps_the_order_and_raises_the_first_error(monkeypatch):
    import threading
    import time

    monkeypatch.setattr(_files, "N_THREADS", 3)
    running, most, lock = [0], [0], threading.Lock()

    def work(k):
        with lock:
            running[0] += 1
            most[0] = max(most[0], running[0])
        time.sleep(0.001 * (k % 4))  # later items may finish first
        with lock:
            running[0] -= 1
        if k in (7, 9):
            raise ValueError(f"item {k}")
        return k * k

    assert list(_files.ordered_map(work, range(7))) == [k * k for k in range(7)]
    assert 1 < most[0] <= 3  # parallel, never more items in flight than threads
    with pytest.raises(ValueError, match="item 7"):
        list(_files.ordered_map(work, range(12)))
    monkeypatch.setattr(_files, "N_THREADS", 1)
    assert list(_files.ordered_map(work, [2, 1])) == [4, 1]


def _write_lm_eval_tasks(folder, rng):
    # one run of several tasks, some without their samples file
    filters = {"none": ["acc", "acc_norm"], "strict": ["exact_match"]}
    tasks = [f"t{k}" for k in range(rng.randint(2, 5))]
    table = {"acc,none": 0.5, "acc_norm,none": 0.5, "exact_match,strict": 0.5}
    (folder / "results_1.json").write_text(json.dumps({
        "results": dict.fromkeys(tasks, table), "configs": dict.fromkeys(tasks, {}),
        "versions": dict.fromkeys(tasks, 1), "config": {"model": "m"},
        "model_name": "m"}))
    for task in tasks:
        if rng.random() < 0.9:
            lines = [_lm_eval_line(rng, k, filters) for k in range(rng.randint(1, 30))]
            (folder / f"samples_{task}_1.jsonl").write_bytes(_corrupt(lines, rng))


def _write_helm_runs(folder, rng):
    for k in range(rng.randint(2, 5)):
        (folder / str(k)).mkdir()
        _write_helm(folder / str(k), rng)
        (folder / str(k) / "run" / "run_spec.json").write_text(json.dumps(
            {"name": f"qa{k}:model=m", "adapter_spec": {"model": "m"}}))


def _write_alpaca_files(folder, rng):
    for k in range(rng.randint(2, 5)):
        (folder / str(k)).mkdir()
        _write_alpaca(folder / str(k), rng)


@pytest.mark.parametrize("read, write, seed", [
    (read_lm_eval, _write_lm_eval_tasks, 9), (read_helm, _write_helm_runs, 10),
    (read_alpaca_eval, _write_alpaca_files, 11),
])
def test_folders_read_by_parallel_threads_read_alike(read, write, seed, tmp_path,
                                                    monkeypatch):
    # the files of a folder read by several threads: the same table, warnings
    # and first error as one file after the other
    outcomes = _generated(write, tmp_path, seed, 15,
                          lambda folder: _threads_alike(read, folder, monkeypatch))
    assert "table" in outcomes


def _both_parsers_and_thread_counts_alike(read, folder, monkeypatch):
    """pyarrow (on one thread and on three) and the standard library alike."""
    monkeypatch.setattr(_files, "N_THREADS", 1)
    outcome = _assert_same(read, folder, monkeypatch)
    monkeypatch.setattr(_files, "N_THREADS", 3)
    assert _assert_same(read, folder, monkeypatch) == outcome
    return outcome


@pytest.mark.parametrize("read, write, fast, seed", [
    (read_lm_eval, _write_lm_eval_tasks, (_lm_eval, "_arrow_samples"), 12),
    (read_helm, _write_helm_runs, (_helm, "_arrow_columns"), 13),
    (read_alpaca_eval, _write_alpaca_files, (_alpaca, "_arrow_columns"), 14),
])
def test_folders_read_alike_by_both_parsers_on_one_and_several_threads(
        read, write, fast, seed, tmp_path, monkeypatch):
    # folders of generated files, hostile ones among them: the tasks of an
    # lm-evaluation-harness run read by pyarrow are joined into one frame,
    # the others framed line by line between them; HELM and AlpacaEval
    # documents cut in pieces parsed by several threads: the same table,
    # warnings and first error as the standard library file by file
    monkeypatch.setattr(_files, "SPLIT_BYTES", 200)
    taken = _count_taken(fast, monkeypatch)
    outcomes = _generated(
        write, tmp_path, seed, 20,
        lambda folder: _both_parsers_and_thread_counts_alike(read, folder,
                                                             monkeypatch))
    assert {"table", "error"} <= set(outcomes)
    assert any(taken) and not all(taken)


def _sample(doc_id, target, acc, **extra):
    return json.dumps({"doc_id": doc_id, "doc": {"q": "?"}, "target": target,
                       "filter": "none", "doc_hash": f"h{doc_id}", "acc": acc,
                       **extra}) + "\n"


@pytest.mark.parametrize("n_threads", [1, 3])
def test_lm_eval_tasks_of_every_kind_in_one_run_read_alike(n_threads, tmp_path,
                                                           monkeypatch):
    # files read by pyarrow (text targets, targets all null, some null, unicode)
    # around files read line by line (a target that is a number, a
    # corpus-level metric's parts): the dtypes and values of file by file
    monkeypatch.setattr(_files, "N_THREADS", n_threads)
    files = {
        "a": [_sample(0, "x", 1.0), _sample(1, "é😀", 0.0)],
        "b": [_sample(0, None, 1.0), _sample(1, None, 0.5)],
        "c": [_sample(0, 3, 1.0)],
        "d": [_sample(5, None, 0.0), _sample(6, "y", 1.0)],
        "e": [_sample(0, "z", 1.0, bleu=[1, 2])],
        "f": [_sample(k, "t" * (k % 3), float(k % 2)) for k in range(50)],
    }
    metrics = {"acc,none": 0.5}
    results = {"results": {t: dict(metrics, **({"bleu,none": 1.0} if t == "e" else {}))
                           for t in files},
               "configs": dict.fromkeys(files, {}), "versions": dict.fromkeys(files, 1),
               "config": {"model": "m"}, "model_name": "m"}
    (tmp_path / "results_1.json").write_text(json.dumps(results))
    for task, lines in files.items():
        (tmp_path / f"samples_{task}_1.jsonl").write_text("".join(lines))
    assert _assert_same(read_lm_eval, tmp_path, monkeypatch) == "table"
    with pytest.warns(UserWarning, match="e:bleu"):
        long = read_lm_eval(tmp_path)
    assert list(long["task"].drop_duplicates()) == list(files)
    assert long.loc[long["task"] == "b", "target"].isna().all()
    assert long.loc[long["task"] == "c", "target"].tolist() == ["3"]
    monkeypatch.setattr(_files, "USE_ARROW", True)
    filters = {"none": ["acc"]}
    fast = {t for t in files
            if _arrow_samples(tmp_path / f"samples_{t}_1.jsonl", filters) is not None}
    assert fast >= {"a", "b", "d", "f"} and "c" not in fast


@pytest.mark.parametrize("order", [
    ["doc_id", "doc", "acc", "target", "arguments", "filter", "doc_hash"],
    ["doc_id", "doc", "target", "arguments", "doc_hash", "filter", "acc"],
    ["doc_id", "doc", "target", "arguments", "filter", "doc_hash", "acc", "target"],
])
def test_lm_eval_keys_in_another_order_read_as_json_reads_them(order, tmp_path,
                                                               monkeypatch):
    # the line-by-line reader skips the document when the keys are in the
    # harness's order; in any other order the values are those of json.loads
    values = {"doc_id": 0, "doc": {"acc": 0.0, "filter": "x"}, "target": "t",
              "arguments": {}, "filter": "none", "doc_hash": "h", "acc": 1.0}
    line = "{" + ", ".join(f'"{key}": {json.dumps(values[key])}' for key in order)
    (tmp_path / "results_1.json").write_text(json.dumps({
        "results": {"t": {"acc,none": 1.0}}, "configs": {"t": {}},
        "versions": {"t": 1}, "config": {"model": "m"}, "model_name": "m"}))
    (tmp_path / "samples_t_1.jsonl").write_text(line + "}\n")
    for arrow in (False, True):
        outcome = _outcome(read_lm_eval, tmp_path, monkeypatch, arrow)
        assert outcome[0] == "table", outcome
        long = outcome[1]
        assert long[["item", "metric", "score", "target", "doc_hash"]].values.tolist() \
            == [[0, "acc,none", 1.0, "t", "h"]]


@settings(max_examples=200, deadline=None)
@given(data=st.lists(st.sampled_from([b"}", b"]", b",", b'"', b" ", b"\n", b"\t",
                                      b"x", b"{", b"["]), max_size=16).map(b"".join),
       cut=st.tuples(st.integers(0, 16), st.integers(0, 16)))
def test_a_closed_list_then_a_key_is_found_as_the_pattern_says(data, cut):
    # the guard against a piece that closes the wrapper's list and adds a key:
    # `}`, `]`, `,` and a quote, JSON whitespace between, inside the range
    start, end = min(cut[0], len(data)), min(max(cut), len(data))
    pattern = re.compile(rb'\}[ \t\n\r]*\][ \t\n\r]*,[ \t\n\r]*"')
    assert _files._closes_list_then_key(data, start, end) == (
        pattern.search(data, start, end) is not None)


_PIECES = st.one_of(
    st.binary(max_size=4),
    st.characters(codec=None).map(lambda c: c.encode("utf-8", "surrogatepass")),
    st.sampled_from([b"\xc0\x80", b"\xed\xa0\x80", b"\xf4\x90\x80\x80", b"\xef\xbb\xbf",
                     b"\xe2\x82", b"\xf0\x9f\x98\x80", b"a"]),
)


@settings(max_examples=500, deadline=None)
@given(data=st.lists(_PIECES, max_size=12).map(b"".join))
def test_utf8_is_checked_as_the_strict_decoder_checks_it(data):
    # surrogates, overlong forms, code points past U+10FFFF, cut sequences
    import pyarrow as pa

    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        valid = False
    else:
        valid = True
    assert _files._is_utf8(pa, data) == valid
    assert _files._is_utf8(pa, memoryview(b"x" + data)[1:]) == valid
