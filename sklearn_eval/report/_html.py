"""One self-contained HTML page from the analyses of a benchmark.

The page has no external resource: styles are inline and figures are PNG
images embedded as base64 data URIs, so the file can be mailed or archived.
Every section is a ``<section>`` with a stable ``id`` (``summary``,
``ranking``, ``rank_sets``, ``nash``, ``hodge``, ``tasks``, ``generality``,
``subset``) and
an ``<h2>`` heading; a small inline script records, once the page has
loaded, how many images decoded (``data-images-loaded`` on ``<body>``), which
the browser test reads.

Each section and each figure is written on its own: one that fails (its
analysis failed, or drawing raised) becomes a visible error box with a
one-line reason (``<div class="error-box">``), and the rest of the page is
written. :func:`write_report` returns a :class:`ReportResult` saying which
parts failed.
"""

from __future__ import annotations

import html
import sys
import traceback
from dataclasses import dataclass, field

from .. import __version__
from ..utils._files import write_text_atomic
from . import _advice_section
from ._analysis import one_line_reason
from ._benchmark_inputs import (
    benchmark_hodge_input,
    benchmark_nash_input,
    benchmark_summary_input,
    generality_input,
    ranking_input,
    subset_input,
    tasks_input,
)
from ._degenerate import benchmark_degeneracies
from ._figures import (
    MissingAnalysis,
    draw_figure,
    import_pyplot,
    to_png_base64,
)
from ._match_inputs import (
    cyclic_input,
    hodge_input,
    nash_game_input,
    ratings_input,
    summary_input,
)
from ._match_sections import (
    MATCH_SECTION_RENDERERS,
    MATCH_SECTIONS,
    match_degeneracies,
)
from ._pipeline import KINDS, drawers, page_sections, register_section
from ._rank_set_section import TITLE as RANK_SET_TITLE
from ._rank_set_section import draw_rank_sets, rank_sets_input, rank_sets_section
from ._sections import SECTION_RENDERERS, SECTIONS
from ._tables import degenerate_box

# the sections added to the reports' base sets, one registration each (see
# ._pipeline for the contract)
register_section("matches", "rank_sets", RANK_SET_TITLE, rank_sets_section,
                 draw=draw_rank_sets, after="ratings", inputs=rank_sets_input)
register_section("benchmark", "rank_sets", RANK_SET_TITLE, rank_sets_section,
                 draw=draw_rank_sets, after="ranking", inputs=rank_sets_input)
# the match report's sections with their typed inputs (same places)
for _key, _inputs in (("summary", summary_input), ("ratings", ratings_input),
                      ("cyclic", cyclic_input), ("nash", nash_game_input),
                      ("hodge", hodge_input)):
    register_section("matches", _key, MATCH_SECTIONS[_key],
                     MATCH_SECTION_RENDERERS[_key], inputs=_inputs)
# the benchmark report's sections with their typed inputs (same places)
for _key, _inputs in (("summary", benchmark_summary_input),
                      ("ranking", ranking_input), ("nash", benchmark_nash_input),
                      ("hodge", benchmark_hodge_input), ("tasks", tasks_input),
                      ("generality", generality_input), ("subset", subset_input)):
    register_section("benchmark", _key, SECTIONS[_key], SECTION_RENDERERS[_key],
                     inputs=_inputs)
# the advisor's answer opens either report when the analysis carries one
register_section(KINDS, _advice_section.KEY, _advice_section.TITLE,
                 _advice_section.advice_section, draw=_advice_section.draw_advice,
                 before="summary", inputs=_advice_section.advice_input,
                 shown=_advice_section.has_advice)

__all__ = [
    "MATCH_SECTIONS",
    "SECTIONS",
    "ReportResult",
    "SectionFailure",
    "render_report",
    "write_report",
]

# On paper the header text comes from data-label: Chromium leaves buttons blank
# in the table headers it repeats on each printed page.
_STYLE = """
body { font-family: system-ui, -apple-system, "Segoe UI", sans-serif; margin: 2em auto;
       max-width: 1100px; color: #222; line-height: 1.45; padding: 0 1em; }
h1 { font-size: 1.7em; margin-bottom: 0.2em; }
h2 { border-bottom: 2px solid #ddd; padding-bottom: 0.2em; margin-top: 2em; }
h3 { font-size: 1.1em; margin-top: 1.6em; }
table { border-collapse: collapse; margin: 0.8em 0; font-size: 0.86em; }
th, td { border: 1px solid #ddd; padding: 0.25em 0.6em; text-align: right; }
td { white-space: nowrap; }
th { background: #f3f3f3; vertical-align: bottom; }
td.label, th.label { text-align: left; }
th button { font: inherit; font-weight: bold; color: inherit; background: none;
            border: 0; padding: 0; margin: 0; cursor: pointer; text-align: inherit; }
th button:focus-visible { outline: 2px solid #1a5fb4; outline-offset: 2px; }
th button::after { content: " \\2195"; color: #999; font-weight: normal; }
th[aria-sort="ascending"] button::after { content: " \\25B2"; color: #222; }
th[aria-sort="descending"] button::after { content: " \\25BC"; color: #222; }
.tag { font-size: 0.8em; color: #7a4b00; background: #fff3d6; border: 1px solid #e9c46a;
       border-radius: 3px; padding: 0 0.3em; margin-left: 0.3em; }
figure { margin: 1em 0; }
figure img { max-width: 100%; border: 1px solid #eee; }
figcaption { font-size: 0.85em; color: #555; }
.note { font-size: 0.88em; color: #555; }
nav a { margin-right: 1em; }
.hint { font-size: 0.85em; color: #555; margin-top: 0.4em; }
.error-box { border: 1px solid #d33; border-left: 6px solid #d33; background: #fdecec;
             color: #8a1010; padding: 0.5em 0.8em; margin: 0.8em 0; font-size: 0.9em; }
.degenerate { border: 1px solid #c98a00; border-left: 6px solid #c98a00;
              background: #fff7e0; color: #5c3d00; padding: 0.5em 0.8em;
              margin: 0.8em 0; font-size: 0.9em; }
@media print {
  body { max-width: none; margin: 0; padding: 0; font-size: 10pt; }
  nav, .hint { display: none; }
  h2 { break-after: avoid; page-break-after: avoid; }
  table { font-size: 8pt; }
  thead { display: table-header-group; }
  tr, figure, .degenerate, .error-box { break-inside: avoid; page-break-inside: avoid; }
  th button { display: none; }
  th::before { content: attr(data-label); }
  th[aria-sort="ascending"]::after { content: " \\25B2"; }
  th[aria-sort="descending"]::after { content: " \\25BC"; }
  .degenerate, .error-box, .tag, th { -webkit-print-color-adjust: exact;
                                      print-color-adjust: exact; }
}
"""

# Sorts a table when a header button is clicked: numbers (th data-type="number",
# each cell's data-sort, empty = missing, always last) numerically, text
# alphabetically (case-insensitive, then by code point: the same order in every
# browser and locale); a second click reverses. aria-sort is on the sorted
# header only; rows that compare equal keep their order (a stable sort).
_SORT_SCRIPT = """
function sortTable(table, column, ascending) {
  var body = table.tBodies[0];
  var numeric = table.tHead.rows[0].cells[column].dataset.type === "number";
  var rows = Array.prototype.slice.call(body.rows);
  function key(row) {
    var cell = row.cells[column];
    if (!numeric) { return cell.textContent.trim(); }
    var raw = cell.dataset.sort;
    return raw === undefined || raw === "" ? NaN : Number(raw);
  }
  rows.sort(function (a, b) {
    var x = key(a), y = key(b);
    if (numeric) {
      if (isNaN(x) || isNaN(y)) { return isNaN(x) - isNaN(y); }
      return ascending ? x - y : y - x;
    }
    var lx = x.toLowerCase(), ly = y.toLowerCase();
    var order = lx < ly ? -1 : lx > ly ? 1 : x < y ? -1 : x > y ? 1 : 0;
    return ascending ? order : -order;
  });
  rows.forEach(function (row) { body.appendChild(row); });
}
document.querySelectorAll("table.sortable").forEach(function (table) {
  var heads = table.tHead.rows[0].cells;
  Array.prototype.forEach.call(heads, function (th, column) {
    th.querySelector("button").addEventListener("click", function () {
      var ascending = th.getAttribute("aria-sort") !== "ascending";
      Array.prototype.forEach.call(heads, function (other) {
        other.removeAttribute("aria-sort");
      });
      th.setAttribute("aria-sort", ascending ? "ascending" : "descending");
      sortTable(table, column, ascending);
    });
  });
});
"""

_LOAD_SCRIPT = """
window.addEventListener("load", function () {
  var images = document.querySelectorAll("figure img");
  var loaded = 0;
  images.forEach(function (img) {
    if (img.complete && img.naturalWidth > 0) { loaded += 1; }
  });
  document.body.setAttribute("data-images-loaded", String(loaded));
  document.body.setAttribute("data-tables", String(
    document.querySelectorAll("section table").length));
});
"""

_SCRIPT = _SORT_SCRIPT + _LOAD_SCRIPT


@dataclass(frozen=True)
class SectionFailure:
    """One error box of the report.

    Attributes
    ----------
    section : str
        Key of the section holding the box (a key of :data:`SECTIONS`).
    part : str
        What failed: ``"section"`` (the whole section), ``"figure 'icc'"``, or
        an analysis shown inside the section (``"bootstrap intervals (nash)"``,
        ``"complete block"``).
    reason : str
        The one-line reason shown in the box.
    detail : str
        The full traceback(s) behind the reason (for debugging).
    """

    section: str
    part: str
    reason: str
    detail: str = field(default="", repr=False, compare=False)


@dataclass(frozen=True)
class ReportResult:
    """What :func:`write_report` wrote: the path and the parts that failed.

    ``os.fspath(result)`` and ``str(result)`` give the path, so a result can
    be opened or printed like the path it replaces.

    Attributes
    ----------
    path : str
        Absolute path of the HTML file.
    failures : tuple of SectionFailure
        One entry per error box in the page, in page order; empty when every
        section and figure was written.
    """

    path: str
    failures: tuple = ()

    @property
    def ok(self):
        """True when no section, figure or analysis failed."""
        return not self.failures

    @property
    def failed_sections(self):
        """Keys of the sections with at least one error box, in page order."""
        return tuple(dict.fromkeys(f.section for f in self.failures))

    def __fspath__(self):
        return self.path

    def __str__(self):
        return self.path


@dataclass(frozen=True)
class _Kind:
    """What a kind of analysis shows: its title, figures, degenerate findings.

    Its sections come from the pipeline (:func:`~._pipeline.page_sections`).
    """

    name: str
    title: str
    drawers: dict
    degeneracies: object


_KINDS = {
    "benchmark": _Kind(
        "benchmark", "Benchmark report", drawers("benchmark"),
        benchmark_degeneracies,
    ),
    "matches": _Kind(
        "matches", "Match report", drawers("matches"), match_degeneracies,
    ),
}


def _kind(analysis):
    return _KINDS[analysis.get("kind", "benchmark")]


def _error_box(part, reason):
    if part == "section":
        title = "This section could not be written"
    else:
        title = f"Not shown: {part}"
    return (
        f'<div class="error-box" role="alert" data-part="{html.escape(part)}">'
        f"<strong>{html.escape(title)}.</strong> {html.escape(reason)}</div>"
    )


def _figure_html(key, caption, data):
    return (
        f'<figure id="figure-{key}"><img alt="{html.escape(caption)}" '
        f'src="data:image/png;base64,{data}">'
        f"<figcaption>{html.escape(caption)}</figcaption></figure>"
    )


class _Page:
    """The page being written: draws figures on demand and collects failures."""

    def __init__(self, analysis, plt, draw, progress):
        self.analysis = analysis
        self.kind = _kind(analysis)
        self.plt = plt
        self.draw = draw
        self.progress = progress
        self.failures = []
        self.section = None
        self.input = None  # the typed input of the section being written
        self.findings = self._degeneracies()

    def _degeneracies(self):
        """Degenerate findings; a check that raises is skipped (it is a note)."""
        try:
            return self.kind.degeneracies(self.analysis)
        except Exception as exc:  # a note must not take the page down
            self.progress(f"degeneracy checks skipped: {one_line_reason(exc)}")
            return []

    def error(self, part, reason, detail=""):
        """Record a failure of ``part`` in the current section; its error box."""
        self.failures.append(SectionFailure(self.section, part, reason, detail))
        return _error_box(part, reason)

    def _detail(self, exc):
        """Traceback of ``exc``, or of the failed analysis it stands for."""
        if isinstance(exc, MissingAnalysis):
            step = self.analysis.get("tracebacks", {}).get(exc.step)
            if step:
                return step
        return "".join(traceback.format_exception(exc))

    def figure(self, key, caption):
        """The figure ``key`` as HTML, or an error box (or a note) in its place."""
        if not self.draw:
            return _note_html(f"[figure '{key}' not drawn: figures are turned off]")
        self.progress(f"figure: {key}")
        try:
            figure = draw_figure(self.plt, key, self.analysis, self.kind.drawers)
            data = to_png_base64(figure)
        except Exception as exc:  # a figure must not take its section down
            reason = _reason(exc)
            self.progress(f"figure {key!r} failed: {reason}")
            return self.error(f"figure '{key}'", reason, self._detail(exc))
        return _figure_html(key, caption, data)

    def section_html(self, section):
        """The body of ``section`` (a :class:`~._pipeline.Section`), or an
        error box when it fails."""
        key = self.section = section.key
        start = len(self.failures)
        notes = "".join(
            degenerate_box(finding)
            for finding in self.findings
            if finding.section == key
        )
        try:
            self.input = None
            if section.inputs is not None:
                self.input = section.inputs(self.analysis)
            return notes + section.render(self)
        except Exception as exc:  # one section must not take the page down
            reason = _reason(exc)
            self.progress(f"section {key!r} failed: {reason}")
            del self.failures[start:]  # the whole section is one failure
            return self.error("section", reason, self._detail(exc))


def _reason(exc):
    """One line: the message of a missing analysis, else ``Type: message``."""
    if isinstance(exc, MissingAnalysis):
        text = str(exc)
        return text[:1].upper() + text[1:]
    return one_line_reason(exc)


def _note_html(text):
    return f'<p class="note">{html.escape(text)}</p>'


def _render(analysis, *, figures=True, progress=None):
    """The HTML page and the tuple of its failures."""
    progress = progress or (lambda message: None)
    plt = None
    if figures:
        plt = import_pyplot()
    page = _Page(analysis, plt, figures, progress)
    shown = page_sections(page.kind.name, analysis)
    titles = {section.key: section.title for section in shown}
    sections = "".join(
        f'<section id="{section.key}"><h2>{html.escape(section.title)}</h2>'
        f"{page.section_html(section)}</section>"
        for section in shown
    )
    name = html.escape(analysis.summary.name)
    nav = "".join(
        f'<a href="#{key}">{html.escape(title)}</a>' for key, title in titles.items()
    )
    document = (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>sklearn-eval report: {name}</title>"
        f"<style>{_STYLE}</style></head><body>"
        f"<h1>{html.escape(page.kind.title)}: {name}</h1>"
        f'<p class="note">Generated by sklearn-eval {html.escape(__version__)}.</p>'
        f"{_failure_summary(page.failures, titles)}"
        f"{_degenerate_summary(page.findings, titles)}"
        f"<nav>{nav}</nav>"
        '<p class="hint">Click a column header to sort a table; click again to '
        "reverse.</p>"
        f"{sections}"
        f"<script>{_SCRIPT}</script></body></html>\n"
    )
    return document, tuple(page.failures)


def _links(keys, titles):
    return ", ".join(
        f'<a href="#{key}">{html.escape(titles[key])}</a>'
        for key in dict.fromkeys(keys)
    )


def _failure_summary(failures, titles):
    """A line under the title listing the sections with error boxes."""
    if not failures:
        return ""
    links = _links((f.section for f in failures), titles)
    return (
        f'<p class="error-box" role="alert">{len(failures)} part(s) of this report '
        f"could not be written; see the boxes in: {links}.</p>"
    )


def _degenerate_summary(findings, titles):
    """A line under the title when a ranking or an equilibrium is degenerate."""
    if not findings:
        return ""
    links = _links((f.section for f in findings), titles)
    return (
        '<p class="degenerate" role="note"><strong>Degenerate data:</strong> '
        f"{len(findings)} ranking(s) or equilibria cannot separate some agents; "
        f"see the notes in: {links}.</p>"
    )


def render_report(analysis, *, figures=True, progress=None):
    """The HTML page of a benchmark analysis.

    Every section and figure is written on its own: one that fails becomes an
    error box with a one-line reason (use :func:`write_report` to learn which
    parts failed).

    Parameters
    ----------
    analysis : Bunch
        From :func:`~sklearn_eval.report.analyze_benchmark`.
    figures : bool, default=True
        Draw and embed the figures (needs matplotlib; skipped with a note in
        the page when it is missing).
    progress : callable or None, default=None
        Called with a short message before each figure and for each failure.

    Returns
    -------
    str
        A complete HTML document.

    Examples
    --------
    >>> from sklearn_eval.datasets import make_irt_responses
    >>> from sklearn_eval.report import (analyze_benchmark, prepare_benchmark,
    ...                                  render_report)
    >>> X = make_irt_responses(30, 10, random_state=0)
    >>> analysis = analyze_benchmark(prepare_benchmark(X), n_tasks=3,
    ...                              n_resamples=0)
    >>> page = render_report(analysis, figures=False)
    >>> page.count("<section")
    8
    """
    return _render(analysis, figures=figures, progress=progress)[0]


def write_report(analysis, path, *, figures=True, progress=None):
    """Render the report and write it to ``path`` (UTF-8).

    Parameters
    ----------
    analysis : Bunch
        From :func:`~sklearn_eval.report.analyze_benchmark`.
    path : str or path-like
        The HTML file, replaced atomically: a process killed while writing
        leaves the old file or the whole new page, never a partial one.
    figures : bool, default=True
    progress : callable, bool or None, default=None
        A callable taking a message, or True for lines on stderr.

    Returns
    -------
    result : ReportResult
        ``result.path`` is the absolute path written (``os.fspath(result)``
        and ``str(result)`` give it too); ``result.ok`` is False when a
        section, figure or analysis failed, and ``result.failures`` lists the
        error boxes of the page. A command line exits non-zero when
        ``result.ok`` is False.

    Examples
    --------
    >>> import os, tempfile
    >>> from sklearn_eval.datasets import make_agent_task_scores
    >>> from sklearn_eval.report import (analyze_benchmark, prepare_benchmark,
    ...                                  write_report)
    >>> scores = make_agent_task_scores(12, 8, random_state=0)
    >>> analysis = analyze_benchmark(prepare_benchmark(scores, threshold=0.5),
    ...                              n_tasks=3, n_resamples=0)
    >>> result = write_report(analysis, os.path.join(tempfile.mkdtemp(), "r.html"),
    ...                       figures=False)
    >>> result.ok, result.failures
    (True, ())
    >>> open(result, encoding="utf-8").read().count("<h2>")
    8
    """
    if progress is True:

        def progress(message):
            sys.stderr.write(f"[sklearn-eval] {message}\n")

    page, failures = _render(analysis, figures=figures, progress=progress)
    path = write_text_atomic(path, page, newline=None)
    return ReportResult(path, failures)
