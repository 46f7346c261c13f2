"""The report opens with "Which method fits this data" when given advice.

The section shows the advice's explanation, diagnostics and candidates (see
the user guide's "Which method fits my data" page); without advice the page
is unchanged.
"""

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
