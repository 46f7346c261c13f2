"""The report opens with "Which method fits this data" when given advice.

The section shows the advice's explanation, diagnostics and candidates (see
the user guide's "Which method fits my data" page); without advice the page
is unchanged.
"""

import numpy as np

from sklearn_eval import advise
from sklearn_eval.datasets import make_irt_responses
from sklearn_eval.report import (
    SECTIONS,
    analyze_benchmark,
    prepare_benchmark,
    render_report,
)

from .pages import parse_sections


def _analysis():
    X = make_irt_responses(40, 10, random_state=0)
    analysis = analyze_benchmark(prepare_benchmark(X), n_tasks=3, n_resamples=0)
    return X, analysis


def test_advice_section_opens_the_page():
    X, analysis = _analysis()
    analysis["advice"] = advice = advise(X, random_state=0)
    page = render_report(analysis, figures=False)
    sections = parse_sections(page)
    assert list(sections) == ["advice", *SECTIONS]
    assert sections["advice"]["h2"] == "Which method fits this data"
    text = " ".join(sections["advice"]["cells"])
    for check in advice.diagnostics.index:
        assert check in text
    for model in advice.candidates.index:
        assert model in text
    assert "Recommended: IRT(" in page
    assert 'data-table="advice-candidates"' in page


def test_without_advice_the_page_is_unchanged():
    _, analysis = _analysis()
    page = render_report(analysis, figures=False)
    assert list(parse_sections(page)) == list(SECTIONS)
    assert "Which method fits this data" not in page


def test_advice_figure_shows_every_candidate_with_its_standard_error():
    # the figure reads only the advice's public candidates table: one point
    # per candidate at its held-out log-likelihood, bars of one standard
    # error, the recommended model's label marked
    from sklearn_eval.report._figures import draw_figure, import_pyplot
    from sklearn_eval.report._pipeline import drawers

    X, analysis = _analysis()
    analysis["advice"] = advice = advise(X, random_state=0)
    plt = import_pyplot()
    figure = draw_figure(plt, "advice", analysis, drawers("benchmark"))
    try:
        ax = figure.axes[0]
        labels = [t.get_text() for t in ax.get_yticklabels()]
        table = advice.candidates.sort_values("heldout_loglik", ascending=False,
                                              kind="stable")
        chosen = table.index[table["recommended"]][0]
        assert f"{chosen} (recommended)" in labels
        assert sum(label.endswith("(recommended)") for label in labels) == 1
        names = [label.removesuffix(" (recommended)") for label in labels]
        assert sorted(names) == sorted(advice.candidates.index)
        points = ax.lines[0].get_xdata()
        np.testing.assert_allclose(
            np.sort(points), np.sort(advice.candidates["heldout_loglik"]))
        segments = ax.collections[0].get_segments()
        widths = sorted(float(s[1, 0] - s[0, 0]) for s in segments)
        np.testing.assert_allclose(
            widths, np.sort(2 * advice.candidates["heldout_se"]), rtol=1e-12)
    finally:
        plt.close(figure)


def test_advice_figure_is_in_the_page_with_alt_text():
    X, analysis = _analysis()
    analysis["advice"] = advise(X, random_state=0)
    page = render_report(analysis, figures=True)
    start = page.index('<section id="advice">')
    section = page[start:page.index("</section>", start)]
    assert '<figure id="figure-advice"><img alt="Held-out log-likelihood per ' \
        'response' in section
    assert "recommended model is marked" in section
