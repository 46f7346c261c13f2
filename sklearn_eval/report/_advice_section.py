"""The report's opening section: which method fits this data, and why.

Built from an advice (:func:`sklearn_eval.advise`) set on the analysis as
``analysis["advice"]`` (the command line does so before it fits the
models); without one the section is not part of the page. The section reads
only the advice's public attributes: its explanation, its diagnostics and
its candidates.
"""

from __future__ import annotations

from ._tables import num, paragraph, table

__all__ = []

KEY = "advice"
TITLE = "Which method fits this data"


def sections(analysis, titles):
    """``titles`` with the advice section first when the analysis has advice."""
    if analysis.get(KEY) is None:
        return titles
    return {KEY: TITLE, **titles}


def renderer(key):
    """The advice section's renderer for ``key``, else None."""
    return advice_section if key == KEY else None


def advice_section(page):
    advice = page.analysis[KEY]
    html = paragraph(advice.explain())
    rows = [
        [check, str(row["value"]), str(row["verdict"])]
        for check, row in advice.diagnostics.iterrows()
    ]
    html += table(["check", "value", "verdict"], rows, labels=3,
                  caption="Diagnostics of the data", key="advice-diagnostics")
    if advice.candidates is not None:
        rows = [
            [name, num(row["heldout_loglik"], 4), num(row["heldout_se"], 4),
             num(row["diff_to_best"], 4), num(row["diff_se"], 4),
             num(row["n_parameters"], 0),
             "yes" if row["within_noise"] else "no",
             "recommended" if row["recommended"] else ""]
            for name, row in advice.candidates.iterrows()
        ]
        html += table(
            ["model", "held-out log-likelihood", "se", "behind best",
             "paired se", "parameters", "within noise", ""],
            rows, caption="Candidate models, cross-validated",
            key="advice-candidates",
        )
    return html
