"""Loaders detect a corrupted or tampered data file with a clear ValueError.

The shipped files are plain text parsed with the standard library; if one is
damaged (a changed header, a malformed line, an unknown outcome) the loader
must say which file and what is wrong instead of returning wrong data. The
corruptions are injected by wrapping the package's file readers.
"""

from __future__ import annotations

import pytest

from sklearn_eval import datasets
from sklearn_eval.datasets import _atari, _automl, _base, _football, _games, _llm

REAL_READ_CSV = _base._read_csv_rows
REAL_OPEN_TEXT = _base._open_text
# the loader module that reads each file (where the reader is looked up)
READER_OF = {
    "rldb_atari_scores_long.csv.gz": _atari,
    "dqnzoo_atari57_random_human.csv": _atari,
    "openspiel_atari_agent57_table.txt": _atari,
    "irt_on_bench_chembench_binary_matrix.csv.gz": _llm,
    "irt_on_bench_chembench_model_scores.csv": _llm,
    "prd_vicuna80_human_pairwise.csv.gz": _llm,
    "martj42_international_results_full.csv.gz": _football,
    "amlb2019_1h_result_summary.csv": _automl,
    "openspiel_pbe_rrps_bot_table_file.txt.gz": _games,
    "openspiel_response_graph_ucb_soccer.txt": _games,
}


def _csv_patch(filename, change):
    def read(name):
        header, rows = REAL_READ_CSV(name)
        if name == filename:
            header, rows = change(list(header), [list(r) for r in rows])
        return header, rows

    return read


def _text_patch(filename, change):
    def read(name, *args, **kwargs):
        text = REAL_OPEN_TEXT(name, *args, **kwargs)
        return change(text) if name == filename else text

    return read


def _rename_first(header, rows):
    return ["renamed", *header[1:]], rows


CSV_CASES = [
    (
        "atari-long-header",
        "rldb_atari_scores_long.csv.gz",
        _rename_first,
        lambda: datasets.load_atari(kind="long"),
        "unexpected rldb columns",
    ),
    (
        "atari-reference-header",
        "dqnzoo_atari57_random_human.csv",
        _rename_first,
        datasets.load_atari_reference_scores,
        "unexpected dqn_zoo columns",
    ),
    (
        "chembench-item-index",
        "irt_on_bench_chembench_binary_matrix.csv.gz",
        lambda h, r: (h, [["7", *r[0][1:]], *r[1:]]),
        datasets.load_chembench,
        "item index",
    ),
    (
        "chembench-missing-score",
        "irt_on_bench_chembench_model_scores.csv",
        lambda h, r: (h, r[1:]),
        datasets.load_chembench,
        "scores missing for models",
    ),
    (
        "vicuna-header",
        "prd_vicuna80_human_pairwise.csv.gz",
        _rename_first,
        datasets.load_vicuna80,
        "unexpected Vicuna80 columns",
    ),
    (
        "vicuna-outcome",
        "prd_vicuna80_human_pairwise.csv.gz",
        lambda h, r: (h, [[*r[0][:3], "7"], *r[1:]]),
        datasets.load_vicuna80,
        r"unexpected Vicuna80 scores \[7\]",
    ),
    (
        "football-header",
        "martj42_international_results_full.csv.gz",
        _rename_first,
        datasets.load_international_football,
        "unexpected football columns",
    ),
    (
        "football-neutral",
        "martj42_international_results_full.csv.gz",
        lambda h, r: (h, [[*r[0][:8], "maybe", *r[0][9:]], *r[1:]]),
        datasets.load_international_football,
        "TRUE or FALSE",
    ),
    (
        "amlb-summary-cell",
        "amlb2019_1h_result_summary.csv",
        lambda h, r: (h, [[*r[0][:2], "n/a?", *r[0][3:]], *r[1:]]),
        datasets.load_automl_benchmark,
        "cannot parse",
    ),
]


@pytest.mark.parametrize(
    ("case", "filename", "change", "load", "message"),
    CSV_CASES,
    ids=[c[0] for c in CSV_CASES],
)
def test_corrupted_csv_is_detected(case, filename, change, load, message, monkeypatch):
    monkeypatch.setattr(
        READER_OF[filename], "_read_csv_rows", _csv_patch(filename, change)
    )
    with pytest.raises(ValueError, match=message):
        load()


TEXT_CASES = [
    (
        "openspiel-header",
        "openspiel_atari_agent57_table.txt",
        lambda t: t.replace("# game", "# level", 1),
        lambda: datasets.load_atari(kind="agent57"),
        "unexpected header",
    ),
    (
        "openspiel-ragged-line",
        "openspiel_atari_agent57_table.txt",
        lambda t: t.rstrip("\n") + "\nextra_game 1\n",
        lambda: datasets.load_atari(kind="agent57"),
        "fields, expected",
    ),
    (
        "rrps-malformed-line",
        "openspiel_pbe_rrps_bot_table_file.txt.gz",
        lambda t: "this is not a table line\n" + t,
        datasets.load_rrps,
        "RRPS table line 1 is malformed",
    ),
    (
        "rrps-missing-pair",
        "openspiel_pbe_rrps_bot_table_file.txt.gz",
        lambda t: "\n".join(t.splitlines()[1:]),
        datasets.load_rrps,
        "every ordered pair",
    ),
    (
        "soccer-not-square",
        "openspiel_response_graph_ucb_soccer.txt",
        lambda t: "\n".join(t.strip().splitlines()[:-1]),
        datasets.load_soccer,
        "soccer matrix is not square",
    ),
]


@pytest.mark.parametrize(
    ("case", "filename", "change", "load", "message"),
    TEXT_CASES,
    ids=[c[0] for c in TEXT_CASES],
)
def test_corrupted_text_file_is_detected(
    case, filename, change, load, message, monkeypatch
):
    monkeypatch.setattr(
        READER_OF[filename], "_open_text", _text_patch(filename, change)
    )
    with pytest.raises(ValueError, match=message):
        load()


def test_every_damaged_file_has_its_reader():
    cases = {case[1] for case in CSV_CASES} | {case[1] for case in TEXT_CASES}
    assert cases == set(READER_OF)
