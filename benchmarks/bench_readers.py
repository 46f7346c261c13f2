"""Throughput of the harness readers on large synthetic files in the tools' formats.

Writes, in a temporary folder, the output of an lm-evaluation-harness run
(``results_*.json`` and a ``samples_*.jsonl`` whose lines have the fields the
tool logs: doc, arguments, responses, hashes, metrics; once in one task, once
in 50 tasks whose small files are read by parallel threads), an inspect_ai
``.eval`` archive (zstandard members, ``summaries.json`` as inspect_ai
writes), a HELM run folder, an AlpacaEval annotations file and a lighteval
details table (parquet; skipped without pyarrow), then times each reader.
Reports samples per second (one sample = one logged
document/instance/annotation, whatever its number of metrics), per second
of wall time and of the process's CPU time (all its threads: the latter is
less sensitive to other load on the machine, the former shows what the
threads gain), each the best of ``repeats`` reads, and the CPU time of the
parsing alone (the stdlib ``json.loads`` of the files, lines or members the
reader must parse; ``pyarrow.parquet.read_table`` of the whole table): the
bound of a reader that builds its table in Python from the parsed JSON. The
load average is printed before and after: on a shared machine the wall
times are only as good as the cores left free.

With pyarrow installed each JSON reader is timed with the standard
library's parser (``USE_ARROW`` off, the path without pyarrow) and with
pyarrow's JSON reader (only the fields the table needs; inspect_ai's
summaries with inferred types) on ``n_jobs`` = 1 thread and on all the
cores (``N_THREADS``); the tables are checked equal.

Each row ends with the 1-minute load average when its reads ended: the
other jobs' share of the cores while they ran.

HELM, 100,000 instances (a 57 MB document), ``100000 3 helm``, 2 cores with
one other job running (load average 0.9-1.7): each thread reading, checking
and parsing its own piece of the file, 2 threads 0.37-0.44 s wall
(230,000-271,000 samples/s) and one thread 0.51-0.55 CPU seconds, against
0.54-0.59 s (170,000-186,000) and 0.60-0.62 for the reader that read the file
whole before cutting it, timed alternately.

Run: ``python benchmarks/bench_readers.py [n_samples] [repeats] [case ...]``
(default 200,000 samples, best of 3, every case; the cases are
``lm_eval``, ``lm_eval_tasks``, ``inspect``, ``helm``, ``alpaca_eval`` and
``details``).
"""

import json
import os
import shutil
import struct
import sys
import tempfile
import time
import zipfile
import zlib
from pathlib import Path

import zstandard

from sklearn_eval.io import (
    _files,
    read_alpaca_eval,
    read_helm,
    read_inspect,
    read_leaderboard_details,
    read_lm_eval,
)

STAMP = "2026-01-01T00-00-00.000000"


def write_lm_eval(folder, n, n_tasks=1, name="lm_eval"):
    """A run of ``n`` samples in ``n_tasks`` tasks (one samples file each)."""
    run = folder / name / "model"
    run.mkdir(parents=True)
    tasks = [f"mcq{t}" if n_tasks > 1 else "mcq" for t in range(n_tasks)]
    table = {"acc,none": 0.5, "acc_stderr,none": 0.01, "acc_norm,none": 0.5,
             "acc_norm_stderr,none": 0.01}
    results = {
        "results": {task: {"alias": task, **table} for task in tasks},
        "configs": {task: {"task": task} for task in tasks},
        "versions": dict.fromkeys(tasks, 1.0),
        "config": {"model": "hf", "model_args": "pretrained=m"},
        "model_name": "m",
    }
    (run / f"results_{STAMP}.json").write_text(json.dumps(results))
    for t, task in enumerate(tasks):
        _write_samples(run / f"samples_{task}_{STAMP}.jsonl",
                       range(t * n // n_tasks, (t + 1) * n // n_tasks))
    return run.parent


def write_lm_eval_tasks(folder, n):
    """A run of 50 tasks: small files, read by parallel threads one file each."""
    return write_lm_eval(folder, n, 50, "lm_eval_tasks")


def _write_samples(path, docs):
    with open(path, "w") as handle:
        for k in docs:
            context = f"Question {k}: which of these is right? Answer:"
            handle.write(json.dumps({
                "doc_id": k, "doc": {"question": context, "choices": ["a", "b"],
                                     "label": k % 2},
                "target": str(k % 2),
                "arguments": {f"gen_args_{j}": {"arg_0": context, "arg_1": c}
                              for j, c in enumerate([" a", " b"])},
                "resps": [[[str(-0.5), "False"]], [[str(-0.7), "False"]]],
                "filtered_resps": [[str(-0.5), "False"], [str(-0.7), "False"]],
                "filter": "none", "metrics": ["acc", "acc_norm"],
                "doc_hash": "0" * 64, "prompt_hash": "1" * 64,
                "target_hash": "2" * 64, "acc": float(k % 2), "acc_norm": 1.0,
            }) + "\n")


def _zstd_zip(path, members):
    """A zip archive of zstandard members (method 93), as inspect_ai writes."""
    compressor = zstandard.ZstdCompressor()
    central = []
    with open(path, "wb") as handle:
        for name, data in members:
            packed, crc = compressor.compress(data), zlib.crc32(data)
            raw = name.encode()
            offset = handle.tell()
            handle.write(struct.pack("<IHHHHHIIIHH", 0x04034B50, 63, 0, 93, 0, 0,
                                     crc, len(packed), len(data), len(raw), 0))
            handle.write(raw + packed)
            central.append(struct.pack(
                "<IHHHHHHIIIHHHHHII", 0x02014B50, 63, 63, 0, 93, 0, 0, crc,
                len(packed), len(data), len(raw), 0, 0, 0, 0, 0, offset) + raw)
        start = handle.tell()
        handle.write(b"".join(central))
        handle.write(struct.pack("<IHHHHIIH", 0x06054B50, 0, 0, len(central),
                                 len(central), handle.tell() - start, start, 0))


def write_inspect(folder, n):
    path = folder / "inspect" / "run.eval"
    path.parent.mkdir()
    header = {"version": 2, "status": "success",
              "eval": {"model": "mockllm/a", "task": "sums"}}
    summaries = [
        {"id": f"q{k}", "epoch": 1, "input": f"What is {k} + {k}?",
         "target": str(2 * k), "metadata": {},
         "scores": {"match": {"value": "C" if k % 2 else "I",
                              "answer": str(2 * k), "explanation": str(2 * k)}},
         "model_usage": {}, "total_time": 0.1, "working_time": 0.1,
         "retries": 0, "completed": True}
        for k in range(n)
    ]
    _zstd_zip(path, [(name, json.dumps(data).encode()) for name, data in
                     (("header.json", header), ("summaries.json", summaries))])
    return path.parent


def write_helm(folder, n):
    run = folder / "helm" / "qa__model=m"
    run.mkdir(parents=True)
    (run / "run_spec.json").write_text(json.dumps(
        {"name": "qa:model=m", "adapter_spec": {"model": "org/m"}}))
    names = ["exact_match", "quasi_exact_match", "num_output_tokens"]
    entries = [
        {"instance_id": f"id{k}", "train_trial_index": 0, "stats": [
            {"name": {"name": s, "split": "test"}, "count": 1, "sum": 1.0,
             "sum_squared": 1.0, "min": 1.0, "max": 1.0, "mean": float(k % 2),
             "variance": 0.0, "stddev": 0.0} for s in names]}
        for k in range(n)
    ]
    (run / "per_instance_stats.json").write_text(json.dumps(entries))
    return run.parent


def write_alpaca(folder, n):
    path = folder / "alpaca" / "annotations.json"
    path.parent.mkdir()
    path.write_text(json.dumps([
        {"instruction": f"Write about {k}.", "output_1": "a" * 300,
         "generator_1": "ref", "dataset": "helpful_base", "output_2": "b" * 200,
         "generator_2": "m", "annotator": "judge", "preference": 1 + (k % 3) / 2,
         "price_per_example": 0.01, "time_per_example": 0.5}
        for k in range(n)
    ]))
    return path.parent


def write_details(folder, n):
    import pyarrow as pa
    import pyarrow.parquet as pq

    run = folder / "details" / "details" / "org" / "m" / STAMP
    run.mkdir(parents=True)
    pq.write_table(pa.Table.from_pylist([
        {"example": f"Question {k}: which is right?", "full_prompt": "x" * 200,
         "predictions": [-0.5, -0.7], "gold": [str(k % 2)], "choices": ["a", "b"],
         "gold_index": [k % 2], "metrics": {"acc": k % 2, "acc_norm": 1}}
        for k in range(n)
    ]), run / f"details_lb|mcq|0_{STAMP}.parquet")
    return run.parent.parent.parent


def parse_only(name, path):
    """CPU seconds of the parsing alone (what the reader cannot avoid)."""
    start = time.process_time()
    if name == "read_lm_eval":
        for file in path.rglob("samples_*.jsonl"):
            with open(file, "rb") as handle:
                for line in handle:
                    json.loads(line)
    elif name == "read_inspect":
        for file in path.rglob("*.eval"):
            with zipfile.ZipFile(file) as archive:
                info = archive.getinfo("summaries.json")
            with open(file, "rb") as handle:
                handle.seek(info.header_offset)
                head = handle.read(30)
                skip = sum(struct.unpack("<HH", head[26:30]))
                handle.seek(info.header_offset + 30 + skip)
                json.loads(zstandard.ZstdDecompressor().decompress(
                    handle.read(info.compress_size), max_output_size=info.file_size))
    elif name == "read_helm":
        for file in path.rglob("per_instance_stats.json"):
            json.loads(file.read_bytes())
    elif name == "read_alpaca_eval":
        for file in path.rglob("annotations.json"):
            json.loads(file.read_bytes())
    else:
        import pyarrow.parquet as pq

        for file in path.rglob("*.parquet"):
            pq.read_table(file, columns=["metrics", "gold", "example"])
    return time.process_time() - start


def _timed(read, path, repeats):
    """The table, and the best wall and CPU seconds of ``repeats`` reads."""
    walls, cpus = [], []
    for _ in range(repeats):
        start, cpu = time.perf_counter(), time.process_time()
        long = read(path)
        walls.append(time.perf_counter() - start)
        cpus.append(time.process_time() - cpu)
    return long, min(walls), min(cpus)


def _load():
    try:
        return "load average " + " ".join(f"{x:.2f}" for x in os.getloadavg())
    except OSError:
        return "load average unknown"


def _load_now():
    try:
        return f"{os.getloadavg()[0]:.2f}"
    except OSError:
        return "unknown"


CASES = ("lm_eval", "lm_eval_tasks", "inspect", "helm", "alpaca_eval", "details")


def main(n=200_000, repeats=3, only=CASES):
    try:
        import pyarrow  # noqa: F401
    except ImportError:
        has_arrow = False
        print("pyarrow not installed: the standard-library parsers only, "
              "read_leaderboard_details not timed")
    else:
        has_arrow = True
    cores = os.cpu_count() or 1
    jobs = sorted({1, min(cores, 8)})
    print(f"{cores} cores, best of {repeats} reads; {_load()}")
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        cases = [
            ("read_lm_eval", read_lm_eval, write_lm_eval),
            ("read_lm_eval", read_lm_eval, write_lm_eval_tasks),
            ("read_inspect", read_inspect, write_inspect),
            ("read_helm", read_helm, write_helm),
            ("read_alpaca_eval", read_alpaca_eval, write_alpaca),
        ]
        if has_arrow:
            cases.append(("read_leaderboard_details", read_leaderboard_details,
                          write_details))
            read_lm_eval(write_lm_eval(folder / "warm", 10))  # imports apart
        cases = [case for case, name in zip(cases, CASES, strict=False)
                 if name in only]
        print(f"{'reader':<24} {'parser':<8} {'n_jobs':>6} {'samples':>9} "
              f"{'rows':>9} {'wall s':>7} {'samples/s':>10} {'cpu s':>7} "
              f"{'samples/cpu s':>14} {'parse-only samples/cpu s':>25}")
        for name, read, write in cases:
            path = write(folder, n)
            files = [p for p in path.rglob("*") if p.is_file()]
            size = sum(p.stat().st_size for p in files)
            bound = parse_only(name, path)
            runs = [("stdlib", False, 1)] if name != "read_leaderboard_details" \
                else []
            if has_arrow:
                parser = "parquet" if name == "read_leaderboard_details" \
                    else "pyarrow"
                runs += [(parser, True, j) for j in jobs]
            tables = []
            for parser, arrow, n_jobs in runs:
                _files.USE_ARROW, _files.N_THREADS = arrow, n_jobs
                long, seconds, cpu = _timed(read, path, repeats)
                tables.append(long)
                print(f"{name:<24} {parser:<8} {n_jobs:>6} {n:>9,} {len(long):>9,} "
                      f"{seconds:>7.2f} {n / seconds:>10,.0f} {cpu:>7.2f} "
                      f"{n / cpu:>14,.0f} {n / bound:>25,.0f}   "
                      f"({size / 1e6:.0f} MB, {len(files)} files, load "
                      f"{_load_now()})")
            _files.USE_ARROW, _files.N_THREADS = True, None
            assert all(t.equals(tables[0]) for t in tables[1:]), name
            shutil.rmtree(path)
    print(_load())


if __name__ == "__main__":
    unknown = sorted(set(sys.argv[3:]) - set(CASES))
    if unknown:
        sys.exit(f"unknown case(s) {unknown}; the cases are {list(CASES)}")
    main(*(int(arg) for arg in sys.argv[1:3]), only=sys.argv[3:] or CASES)
