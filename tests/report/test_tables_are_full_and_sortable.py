"""Report tables: every row on screen and on paper, sortable by a header click."""

import html.parser
import json
import re
import shutil
import subprocess

import numpy as np
import pytest

from sklearn_eval.report import render_report
from sklearn_eval.report._html import _STYLE
from sklearn_eval.report._tables import table as html_table


class _Tables(html.parser.HTMLParser):
    """Each table: its key, header cells (attrs, text) and rows of (attrs, text)."""

    def __init__(self):
        super().__init__()
        self.tables, self._cell, self._in_button = [], None, False

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "table":
            self.tables.append({"attrs": attrs, "head": [], "rows": []})
        elif tag == "tr" and self.tables:
            self.tables[-1]["rows"].append([])
        elif tag in ("th", "td"):
            self._cell = {"tag": tag, "attrs": attrs, "text": "", "buttons": 0}
        elif tag == "button" and self._cell is not None:
            self._cell["buttons"] += 1
            self._cell["button_type"] = attrs.get("type")

    def handle_endtag(self, tag):
        if tag in ("th", "td") and self._cell is not None:
            target = self.tables[-1]
            if tag == "th":
                target["head"].append(self._cell)
            else:
                target["rows"][-1].append(self._cell)
            self._cell = None

    def handle_data(self, data):
        if self._cell is not None:
            self._cell["text"] += data


def parse_tables(page):
    parser = _Tables()
    parser.feed(page)
    for table in parser.tables:
        table["rows"] = [row for row in table["rows"] if row]
    return parser.tables


def _media_print(css):
    start = css.index("@media print")
    depth = 0
    for k in range(css.index("{", start), len(css)):
        depth += {"{": 1, "}": -1}.get(css[k], 0)
        if depth == 0:
            return css[start : k + 1]
    raise AssertionError("unclosed @media print")


def test_no_table_sits_in_a_scroll_box(synthetic, atari_page):
    analysis, _ = synthetic
    for page in (render_report(analysis, figures=False), atari_page):
        assert 'class="scroll"' not in page
        css = page[page.index("<style>") : page.index("</style>")]
        # nothing clips: no height limit and no overflow rule anywhere
        assert "max-height" not in css and "overflow" not in css
    ranking = next(
        t for t in parse_tables(atari_page) if t["attrs"].get("data-table") == "ranking"
    )
    assert len(ranking["rows"]) == 29  # every agent, none behind a scroll bar


def test_print_css_keeps_every_row_and_repeats_headers():
    printed = _media_print(_STYLE)
    assert re.search(r"thead\s*\{\s*display:\s*table-header-group", printed)
    assert re.search(r"tr,[^{]*\{[^}]*break-inside:\s*avoid", printed)
    # printing hides the navigation, the sort hint and the header buttons
    # (their text is printed from data-label), never a table or a row
    for hidden in re.findall(r"([^{}]+)\{[^}]*display:\s*none", printed):
        selectors = {s.strip() for s in hidden.split(",")}
        assert selectors <= {"nav", ".hint", "th button"}, selectors
    assert re.search(r"th::before\s*\{\s*content:\s*attr\(data-label\)", printed)
    assert "max-width: none" in printed


def test_every_header_is_a_button_and_numbers_carry_their_value(synthetic):
    analysis, _ = synthetic
    tables = parse_tables(render_report(analysis, figures=False))
    assert len(tables) >= 8
    for table in tables:
        assert "sortable" in table["attrs"]["class"]
        for cell in table["head"]:
            assert cell["buttons"] == 1 and cell["button_type"] == "button"
            assert cell["attrs"].get("scope") == "col"
        for column, head in enumerate(table["head"]):
            numeric = head["attrs"].get("data-type") == "number"
            for row in table["rows"]:
                cell = row[column]
                if not numeric:
                    assert "data-sort" not in cell["attrs"]
                    continue
                key = cell["attrs"]["data-sort"]
                text = cell["text"].strip().rstrip("%")
                if key == "":
                    assert text in ("—", "")  # a missing value sorts last
                    continue
                value = float(key)
                # the key is the number shown (before rounding), or the lower
                # bound of an interval ("[a, b]", or a rank set "a\u2013b"), or
                # the share behind a percentage
                shown = text.strip("[]").split(",")[0].split("\u2013")[0]
                if shown in ("∞", "-∞"):
                    assert np.isinf(value)
                    continue
                scale = 100 if cell["text"].strip().endswith("%") else 1
                digits = len(shown.split(".")[1]) if "." in shown else 0
                assert abs(scale * value - float(shown)) <= 0.51 * 10**-digits


def _browser():
    for name in ("chromium", "chromium-browser", "google-chrome", "chrome"):
        path = shutil.which(name)
        if path:
            return path
    return None


# clicks header buttons once the page has loaded, recording the first column
# of the table and the aria-sort of every header after each click
_CLICKS = """
<script>
window.addEventListener("load", function () {
  var table = document.querySelector('table[data-table="ranking"]');
  var buttons = table.tHead.querySelectorAll("button");
  var log = [];
  [[2, 1], [2, 1], [0, 1], [4, 1], [4, 1]].forEach(function (step) {
    buttons[step[0]].click();
    log.push({
      column: step[0],
      labels: Array.prototype.map.call(table.tBodies[0].rows, function (row) {
        return row.cells[0].firstChild.textContent.trim();
      }),
      keys: Array.prototype.map.call(table.tBodies[0].rows, function (row) {
        return row.cells[step[0]].dataset.sort || row.cells[step[0]].textContent;
      }),
      aria: Array.prototype.map.call(table.tHead.rows[0].cells, function (th) {
        return th.getAttribute("aria-sort");
      })
    });
  });
  var out = document.createElement("pre");
  out.id = "clicks";
  out.textContent = JSON.stringify(log);
  document.body.appendChild(out);
});
</script>
"""


def test_clicking_a_header_sorts_the_rows_in_headless_chromium(atari, tmp_path):
    browser = _browser()
    if browser is None:
        pytest.skip("no Chromium/Chrome browser installed")
    page = render_report(atari, figures=False)
    path = tmp_path / "clicks.html"
    path.write_text(page.replace("</body>", _CLICKS + "</body>"), encoding="utf-8")
    done = subprocess.run(
        [
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
        ],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    dom = done.stdout
    start = dom.index('<pre id="clicks">') + len('<pre id="clicks">')
    log = json.loads(html.unescape(dom[start : dom.index("</pre>", start)]))
    agents, ability = atari.benchmark.agents, atari.irt.ability
    by_ability = [str(agents[k]) for k in np.argsort(ability, kind="stable")]
    # 1st click on "IRT ability": ascending, numerically
    assert log[0]["labels"] == by_ability
    assert log[0]["aria"][2] == "ascending"
    assert [a for k, a in enumerate(log[0]["aria"]) if k != 2] == [None] * 8
    # 2nd click: descending
    assert log[1]["labels"] == by_ability[::-1]
    assert log[1]["aria"][2] == "descending"
    # the agent column sorts alphabetically, and only it carries aria-sort
    assert log[2]["labels"] == sorted(map(str, agents), key=lambda s: (s.lower(), s))
    assert log[2]["aria"][0] == "ascending" and log[2]["aria"][2] is None
    # "uniform average": numbers numerically, the agent outside the block
    # ("—", no value) last in both directions
    for entry, reverse in ((log[3], False), (log[4], True)):
        keys = entry["keys"]
        missing = [k for k in keys if k in ("—", "")]
        numbers = [float(k) for k in keys if k not in ("—", "")]
        assert numbers == sorted(numbers, reverse=reverse)
        assert keys[len(numbers) :] == missing and len(missing) == 1


def test_printed_pages_repeat_the_header_text_in_headless_chromium(tmp_path):
    # Chromium paints no button in a header it repeats on a new page: the
    # printed header must still name every column on every page
    browser, pdftotext = _browser(), shutil.which("pdftotext")
    if browser is None or pdftotext is None:
        pytest.skip("needs Chromium/Chrome and pdftotext")
    header = ("agent", "IRT ability", "interval")
    rows = [(f"agent{k:03d}", k / 7, f"[{k}, {k + 1}]") for k in range(180)]
    path = tmp_path / "long.html"
    path.write_text(
        f"<!doctype html><html><head><meta charset='utf-8'><style>{_STYLE}"
        f"</style></head><body>{html_table(header, rows)}</body></html>",
        encoding="utf-8",
    )
    pdf = tmp_path / "long.pdf"
    done = subprocess.run(
        [
            browser,
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-dev-shm-usage",
            "--no-first-run",
            f"--user-data-dir={tmp_path / 'profile'}",
            "--no-pdf-header-footer",
            f"--print-to-pdf={pdf}",
            path.as_uri(),
        ],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0 and pdf.is_file(), done.stderr[-2000:]
    text = subprocess.run(
        [pdftotext, "-layout", str(pdf), "-"],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    ).stdout
    pages = [page for page in text.split("\f") if page.strip()]
    assert len(pages) >= 3
    for page in pages:
        assert all(name in page for name in header), page[:300]
    # every row printed once, none clipped
    assert all(text.count(f"agent{k:03d}") == 1 for k in range(180))
