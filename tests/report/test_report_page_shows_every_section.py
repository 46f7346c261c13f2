"""The HTML page of the report: every section, self-contained, in a real browser."""

import os
import runpy
import shutil
import subprocess
import sys

import numpy as np
import pytest

from sklearn_eval.report import SECTIONS, write_report
from tests.report.pages import PNG_MAGIC, decode_png, parse_sections


def test_atari_report_has_every_section_with_table_and_figure(atari_page):
    sections = parse_sections(atari_page)
    assert list(sections) == list(SECTIONS)
    for key, title in SECTIONS.items():
        section = sections[key]
        assert section["h2"] == title
        assert section["tables"] >= 1, key
        assert section["rows"] >= 3, key
        assert section["images"], key
        for src in section["images"]:
            png = decode_png(src)
            assert png.startswith(PNG_MAGIC)
            assert len(png) > 5000  # a drawn figure, not an empty canvas


def test_atari_report_has_no_failure(atari_rendering):
    page, result, messages = atari_rendering
    assert result.ok and result.failures == () and result.failed_sections == ()
    assert sum(message.startswith("figure: ") for message in messages) == 10
    assert not [m for m in messages if "failed" in m]
    assert "error-box" not in page.split("<style>")[1].split("</style>")[1]


def test_atari_report_is_self_contained(atari_page):
    assert atari_page.startswith("<!DOCTYPE html>")
    assert "http://" not in atari_page and "https://" not in atari_page
    assert 'src="data:image/png;base64,' in atari_page
    assert "<link" not in atari_page


def test_atari_report_content(atari, atari_page):
    sections = parse_sections(atari_page)
    summary = " ".join(sections["summary"]["cells"])
    assert "29" in summary and "57" in summary and "59 (3.6%)" in summary
    assert "28 x 46" in summary
    assert "success = baseline-normalised score >= 100" in summary
    ranking = sections["ranking"]["cells"]
    # one row per agent, led by the most able one
    assert ranking[0] == atari.benchmark.agents[np.argmax(atari.irt.ability)]
    assert sum(cell in set(atari.benchmark.agents) for cell in ranking) == 29
    tasks = sections["tasks"]["cells"]
    assert sum(cell in set(atari.benchmark.tasks) for cell in tasks) == 57
    subset = sections["subset"]["cells"]
    chosen = atari.block.tasks[atari.selection.order]
    assert all(task in subset for task in chosen)


def test_report_without_figures_has_notes_instead(synthetic, tmp_path):
    analysis, _ = synthetic
    result = write_report(analysis, tmp_path / "r.html", figures=False)
    page = open(result, encoding="utf-8").read()
    sections = parse_sections(page)
    assert all(not section["images"] for section in sections.values())
    assert page.count("not drawn: figures are turned off") == 10
    assert os.path.isabs(result.path) and str(result) == result.path
    assert os.fspath(result) == str(tmp_path / "r.html") and result.ok


def _find_browser():
    for name in ("chromium", "chromium-browser", "google-chrome", "chrome"):
        path = shutil.which(name)
        if path:
            return path
    return None


def test_python_dash_m_runs_the_command_line(monkeypatch, capsys):
    from sklearn_eval import __version__

    monkeypatch.setattr(sys, "argv", ["sklearn-eval", "--version"])
    with pytest.raises(SystemExit) as exit_info:
        runpy.run_module("sklearn_eval", run_name="__main__")
    assert exit_info.value.code == 0
    assert __version__ in capsys.readouterr().out


def test_report_renders_in_headless_chromium(tmp_path, request):
    browser = _find_browser()
    if browser is None:
        pytest.skip("no Chromium/Chrome browser installed")
    atari_page = request.getfixturevalue("atari_page")
    path = tmp_path / "report.html"
    path.write_text(atari_page, encoding="utf-8")
    command = [
        browser,
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-dev-shm-usage",
        "--no-first-run",
        "--virtual-time-budget=5000",
        f"--user-data-dir={tmp_path / 'profile'}",
        "--dump-dom",
        path.as_uri(),
    ]
    done = subprocess.run(
        command, capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode == 0, done.stderr[-2000:]
    dom = done.stdout
    n_images = atari_page.count("<figure ")
    n_tables = atari_page.count("<table ")
    # the page's script ran after load: every embedded PNG decoded
    assert f'data-images-loaded="{n_images}"' in dom
    assert f'data-tables="{n_tables}"' in dom
    sections = parse_sections(dom)
    assert list(sections) == list(SECTIONS)
    # and a screenshot is not blank
    shot = tmp_path / "shot.png"
    done = subprocess.run(
        [
            *command[:-2],
            f"--screenshot={shot}",
            "--window-size=1200,3000",
            path.as_uri(),
        ],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0 and shot.is_file()
    assert shot.read_bytes().startswith(PNG_MAGIC) and shot.stat().st_size > 20000
