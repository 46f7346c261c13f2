"""inspect_ai summaries read alike by pyarrow's JSON reader and the standard library.

The per-sample summaries of an ``.eval`` archive (``summaries.json``, or
the journal's batches of a run that did not finish) are parsed by pyarrow
with the types it infers (the scorers are the keys of each sample's
``scores``); anything unusual is read with the standard library. Both paths
run here on the real fixtures and on a seeded corpus of generated archives,
half of them hostile (missing fields, values of other types, scorers that
differ between samples, null, unicode, bytes that are not UTF-8, huge
strings, duplicated keys, samples repeated across epochs, truncated or
extended documents, broken members): the outcome (the table with its
warnings, or the error) must be the same.
"""

import json
import struct
import zipfile
import zlib
from pathlib import Path

import pytest
import zstandard

from sklearn_eval.io import _files, _inspect, read_inspect

from .test_files import (
    _MISSING,
    _ODD_TEXT,
    CORPUS,
    _assert_same,
    _check_corpus,
    _document_accident,
    _dumps,
    _generated,
    _score,
    _text,
    _threads_alike,
    _value,
)

pytest.importorskip("pyarrow")

DATA = Path(__file__).parent / "data" / "inspect"


def test_both_parsers_read_the_fixtures_alike(monkeypatch):
    assert _assert_same(read_inspect, DATA / "eval", monkeypatch) == "table"


def test_the_fixtures_take_the_pyarrow_path():
    # the summaries and the journal's batches, each read as the other path does
    for log in sorted((DATA / "eval").glob("*.eval")):
        with zipfile.ZipFile(log) as archive:
            journal = sorted(n for n in archive.namelist()
                             if n.startswith("_journal/summaries/"))
            summaries = [_inspect._member_bytes(archive, log, "summaries.json")]
            batches = [_inspect._member_bytes(archive, log, n) for n in journal]
        whole = _inspect._arrow_frame(summaries, "m", "t")
        joined = _inspect._arrow_frame(batches, "m", "t")
        assert whole is not None and joined is not None, log
        assert len(batches) > 1 and whole[1] == joined[1] == 8
        columns = ["item", "epoch", "metric", "score", "target", "answer"]
        assert sorted(whole[0][columns].itertuples(index=False)) == sorted(
            joined[0][columns].itertuples(index=False))


_LETTERS = ['"C"', '"I"', '"P"', '"N"']
_ODD_VALUE = ['"yes"', '" C"', '"0.5"', '"X"', "true", "null", _MISSING,
              '{"a": 1}', "NaN", "1e400", "[1]", "1", '"C"']


def _entry(rng, letters):
    value = _value(rng, lambda r: r.choice(_LETTERS) if letters else _score(r),
                   _ODD_VALUE, 0.02)
    pairs = [("value", value),
             ("answer", _value(rng, lambda r: json.dumps(_text(r)), _ODD_TEXT)),
             ("explanation", json.dumps(_text(rng))), ("history", "[]")]
    if rng.random() < 0.05:
        rng.shuffle(pairs)
    return _dumps(pairs, rng)


def _summary(rng, k, style):
    scorers = list(style["scorers"])
    if rng.hostile and rng.random() < 0.05:
        scorers = rng.choice([scorers[::-1], scorers[:1], scorers + ["extra"]])
    entries = [(name, _entry(rng, style["letters"])) for name in scorers]
    if rng.hostile and rng.random() < 0.03:
        entries.append(("odd", rng.choice(["{}", "1", "null", '{"answer": "x"}'])))
    scores = _value(rng, lambda r: _dumps(entries, r),
                    ["null", "{}", _MISSING, "[]", '"C"'], 0.02)
    item = style["ids"](k)
    epoch = 1 + k % style["epochs"]
    if rng.hostile and rng.random() < 0.03:  # a sample logged twice
        item, epoch = style["ids"](0), 1
    target = (json.dumps([_text(rng), _text(rng)]) if style["lists"]
              else json.dumps(_text(rng)))
    pairs = [
        ("id", _value(rng, lambda r: json.dumps(item),
                      ["3", '"3"', "3.5", "null", _MISSING, "true", '"\\ud800"',
                       '["a"]'])),
        ("epoch", _value(rng, lambda r: str(epoch),
                         ['"1"', "1.0", "null", _MISSING, "true", "0"])),
        ("input", json.dumps(_text(rng))),
        ("target", _value(rng, lambda r: target,
                          [*_ODD_TEXT, '["a", null]', "[]", "[1]", '[["a"]]'])),
        ("metadata", _value(rng, lambda r: json.dumps({"k": r.randint(0, 3)}),
                            ['{"k": "x"}', "{}", '{"k": null}', '{"j": [1]}'],
                            0.05)),
        ("scores", scores),
        ("model_usage", '{"mockllm/m": {"input_tokens": 5, "output_tokens": 1}}'),
        ("total_time", repr(rng.random())),
        ("completed", "true"),
    ]
    if rng.random() < 0.05:
        rng.shuffle(pairs)
    if rng.hostile and rng.random() < 0.01:
        pairs.append(("epoch", "2"))  # a key twice
    return _dumps(pairs, rng)


def _zip(path, members, zstd):
    """An archive of zstandard members (method 93) as inspect_ai writes them.

    ``zstd`` False: deflate members, as older releases wrote.
    """
    if not zstd:
        with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as out:
            for name, data in members:
                out.writestr(name, data)
        return path
    local, central = b"", b""
    for name, data in members:
        packed, crc, raw = (zstandard.ZstdCompressor().compress(data),
                            zlib.crc32(data), name.encode())
        sizes = struct.pack("<III", crc, len(packed), len(data))
        central += (struct.pack("<IHHHHHH", 0x02014B50, 63, 63, 0, 93, 0, 0)
                    + sizes + struct.pack("<HHHHHII", len(raw), 0, 0, 0, 0, 0,
                                          len(local)) + raw)
        local += (struct.pack("<IHHHHH", 0x04034B50, 63, 0, 93, 0, 0) + sizes
                  + struct.pack("<HH", len(raw), 0) + raw + packed)
    end = struct.pack("<IHHHHIIH", 0x06054B50, 0, 0, len(members), len(members),
                      len(central), len(local), 0)
    path.write_bytes(local + central + end)
    return path


def _write_inspect(folder, rng, model="mockllm/m"):
    style = {
        "scorers": rng.choice([["match"], ["match", "includes"],
                               ["a", "b", "c"]]),
        "letters": rng.random() < 0.5, "lists": rng.random() < 0.2,
        "epochs": rng.choice([1, 1, 2, 3]),
        "ids": rng.choice([lambda k: f"q{k}", lambda k: k]),
    }
    samples = [_summary(rng, k, style) for k in range(rng.randint(1, 30))]
    text = "[" + ", ".join(samples) + "]"
    if rng.random() < 0.3:  # pydantic writes it compact
        try:
            text = json.dumps(json.loads(text), separators=(",", ":"))
        except ValueError:
            pass
    header = {"version": 2, "status": "success",
              "eval": {"model": model, "task": "t"}}
    if rng.hostile and rng.random() < 0.1:  # a run that did not finish
        header["status"] = "cancelled"
    members = [("header.json", json.dumps(header).encode())]
    if rng.random() < 0.3:  # a run that did not finish: the journal's batches
        cuts = sorted({len(samples), *rng.sample(range(1, len(samples) + 1),
                                                 min(len(samples), 2))})
        batches = [samples[a:b] for a, b in zip([0, *cuts[:-1]], cuts, strict=True)]
        members += [(f"_journal/summaries/{k + 1}.json", _document_accident(
            "[" + ", ".join(batch) + "]", rng)) for k, batch in enumerate(batches)]
        rng.shuffle(members)
    else:
        summaries = _document_accident(text, rng)
        if rng.hostile and rng.random() < 0.05:  # bytes that are not UTF-8
            summaries = summaries.replace(b"text", b"t\xffxt", 1)
        members.append(("summaries.json", summaries))
    path = _zip(folder / f"{model.replace('/', '_')}.eval", members,
                rng.random() < 0.8)
    if rng.hostile and rng.random() < 0.05:  # a member cut short
        raw = path.read_bytes()
        with zipfile.ZipFile(path) as archive:
            info = archive.infolist()[-1]
        start = info.header_offset + 30 + len(info.filename)
        cut = start + info.compress_size // 2
        path.write_bytes(raw[:cut] + b"\0" * (info.compress_size - cut + start)
                         + raw[start + info.compress_size:])


@pytest.mark.parametrize("n_files", CORPUS)
def test_inspect_both_parsers_agree_on_generated_archives(n_files, tmp_path,
                                                          monkeypatch):
    _check_corpus(read_inspect, _write_inspect, (_inspect, "_arrow_frame"),
                  tmp_path, monkeypatch, n_files, 7)


def test_inspect_summaries_cut_in_pieces_read_alike(tmp_path, monkeypatch):
    # pieces of whole samples parsed by several threads, each inferring its
    # own types (a scorer's values numbers in one piece, letters in another)
    monkeypatch.setattr(_files, "SPLIT_BYTES", 100)
    monkeypatch.setattr(_files, "N_THREADS", 3)
    _check_corpus(read_inspect, _write_inspect, (_inspect, "_arrow_frame"),
                  tmp_path, monkeypatch, 40, 8)


@pytest.mark.parametrize("value", ["1e400", "-0.0", "9007199254740993",
                                   "123456789012345678901", "0.1", "5e-324"])
def test_numbers_are_the_floats_python_reads(value, tmp_path, monkeypatch):
    # pyarrow's number parsing, int to float conversion included, gives the
    # float json.loads gives (or the document is left to the standard library)
    samples = [{"id": k, "epoch": 1, "scores": {"s": {"value": 1}}}
               for k in range(3)]
    end = '"value": 1}}}]'
    text = json.dumps(samples).replace(end, end.replace("1", value))
    assert value in text
    header = {"version": 2, "status": "success", "eval": {"model": "m", "task": "t"}}
    _zip(tmp_path / "run.eval", [("header.json", json.dumps(header).encode()),
                                 ("summaries.json", text.encode())], True)
    expected = "error" if value == "1e400" else "table"  # an infinite score
    assert _assert_same(read_inspect, tmp_path, monkeypatch) == expected


def _write_logs(folder, rng):
    for model in range(rng.randint(2, 4)):
        _write_inspect(folder, rng, f"mockllm/m{model}")


def test_logs_read_by_parallel_threads_read_alike(tmp_path, monkeypatch):
    # the logs of a folder read by several threads: the same table, warnings
    # and first error as one log after the other
    outcomes = _generated(_write_logs, tmp_path, 12, 15, lambda folder:
                          _threads_alike(read_inspect, folder, monkeypatch))
    assert {"table", "error"} <= set(outcomes)
