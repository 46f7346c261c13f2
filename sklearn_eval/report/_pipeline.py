"""The report pipeline: the sections of each report, in page order, one registry.

Both reports (``"benchmark"`` and ``"matches"``) are written by the same
steps: the page asks :func:`page_sections` for the sections of its kind that
the analysis shows, builds each section's typed input (``Section.inputs``),
renders the section (``render(page)``, which reads ``page.input``) and draws
its figures with the kind's drawers. Adding a section is one registration::

    register_section("matches", "advisor", "Which method fits this data",
                     advisor_section, draw=draw_advisor, before="summary")

``kind`` is ``"benchmark"`` or ``"matches"`` (or a tuple of both), ``key`` the
section's ``id`` in the page, ``render(page)`` returns the section's HTML
(raising :class:`~._figures.MissingAnalysis` when its input is missing; the
page then shows an error box), and ``draw(plotting, plt, analysis)``, when
given, draws the section's figure ``key`` with a plotting Display (the
section calls ``page.figure(key, caption)``). ``inputs(analysis)``, when
given, returns the section's typed input (a frozen dataclass), set on the
page as ``page.input`` before ``render`` runs. ``shown(analysis)``, when
given, says whether the analysis has the section at all (the advice section
is shown only with an advice). ``before`` / ``after`` place the section
(default: last; a section registered again keeps its place).

The title, renderer and drawer tables of each kind (``SECTIONS``,
``SECTION_RENDERERS``, ``BENCHMARK_DRAWERS`` and their match twins) stay the
lookup of the sections shown on every page; a renderer is looked up when the
page is written, so a replaced table entry takes effect.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ._figures import BENCHMARK_DRAWERS
from ._match_figures import MATCH_DRAWERS
from ._match_sections import MATCH_SECTION_RENDERERS, MATCH_SECTIONS
from ._sections import SECTION_RENDERERS, SECTIONS

__all__ = [
    "KINDS",
    "Section",
    "page_sections",
    "register_section",
    "registered_sections",
]

KINDS = ("benchmark", "matches")


@dataclass(frozen=True)
class Section:
    """One section of a report: what the pipeline needs to write it.

    Attributes
    ----------
    key : str
        The section's ``id`` in the page (and its figure's key).
    title : str
        Its ``<h2>`` heading and navigation link.
    render : callable
        ``render(page) -> str``, the section's HTML body.
    inputs : callable or None
        ``inputs(analysis)``: the section's typed input, ``page.input``.
    shown : callable or None
        ``shown(analysis) -> bool``; None: on every page of its kind.
    """

    key: str
    title: str
    render: Callable[[Any], str]
    inputs: Callable[[Any], Any] | None = None
    shown: Callable[[Any], bool] | None = None


# the tables of the sections on every page, per kind: titles, renderers,
# drawers (the benchmark and match modules define their base sections there)
_TABLES = {
    "benchmark": (SECTIONS, SECTION_RENDERERS, BENCHMARK_DRAWERS),
    "matches": (MATCH_SECTIONS, MATCH_SECTION_RENDERERS, MATCH_DRAWERS),
}
# per kind, key -> (inputs, shown) of the registered sections
_EXTRAS = {kind: {} for kind in KINDS}
# per kind, the sections shown only on some pages: key -> (title, before, after)
_CONDITIONAL = {kind: {} for kind in KINDS}


def _place(mapping, key, value, before=None, after=None):
    """Put ``key: value`` into ``mapping`` in place, before/after a key."""
    items = [(k, v) for k, v in mapping.items() if k != key]
    position = len(items)
    if before is not None and before in mapping:
        position = [k for k, _ in items].index(before)
    elif after is not None and after in mapping:
        position = [k for k, _ in items].index(after) + 1
    items.insert(position, (key, value))
    mapping.clear()
    mapping.update(items)


def register_section(kind, key, title, render, *, draw=None, before=None,
                     after=None, inputs=None, shown=None):
    """Add a section (and its figure) to the benchmark and/or match report."""
    for one in (kind,) if isinstance(kind, str) else kind:
        if one not in _TABLES:
            raise ValueError(f"kind must be one of {KINDS}; got {one!r}.")
        titles, renderers, drawers = _TABLES[one]
        renderers[key] = render
        if draw is not None:
            drawers[key] = draw
        _EXTRAS[one][key] = (inputs, shown)
        if shown is None:
            _CONDITIONAL[one].pop(key, None)
            if key in titles and before is None and after is None:
                titles[key] = title  # registered again: same place
            else:
                _place(titles, key, title, before, after)
        else:  # not in the title table: pages without it are unchanged
            titles.pop(key, None)
            _CONDITIONAL[one][key] = (title, before, after)


def page_sections(kind, analysis):
    """The sections of the page of ``analysis`` (a report of ``kind``), in order."""
    titles, renderers, _ = _TABLES[kind]
    order = dict(titles)
    for key, (title, before, after) in _CONDITIONAL[kind].items():
        _, shown = _EXTRAS[kind][key]
        if shown(analysis):
            _place(order, key, title, before, after)
    sections = []
    for key, title in order.items():
        inputs, shown = _EXTRAS[kind].get(key, (None, None))
        sections.append(Section(key, title, renderers[key], inputs, shown))
    return sections


def registered_sections(kind):
    """Every section registered for a report of ``kind``, shown or not.

    The sections on every page first, in page order, then the conditional
    ones (shown only when their ``shown(analysis)`` says so).
    """
    if kind not in _TABLES:
        raise ValueError(f"kind must be one of {KINDS}; got {kind!r}.")
    titles, renderers, _ = _TABLES[kind]
    everything = dict(titles)
    everything.update(
        (key, title) for key, (title, _, _) in _CONDITIONAL[kind].items()
    )
    sections = []
    for key, title in everything.items():
        inputs, shown = _EXTRAS[kind].get(key, (None, None))
        sections.append(Section(key, title, renderers[key], inputs, shown))
    return sections


def drawers(kind):
    """The figure drawers of a report of ``kind`` (figure key -> function)."""
    return _TABLES[kind][2]
