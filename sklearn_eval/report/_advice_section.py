"""The report's opening section: which method fits this data, and why.

Built from an advice (:func:`sklearn_eval.advise`) set on the analysis as
``analysis["advice"]`` (the command line does so before it fits the
models); without one the section is not part of the page. The section is a
registered section of both reports (see :mod:`._pipeline`) whose typed input,
:class:`AdviceInput`, holds only the advice's public attributes: its
explanation, its diagnostics and its candidates. Its figure shows each
candidate's held-out log-likelihood with its standard error, the recommended
model marked.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from ._figures import LAYOUT, PAGE_INCHES, MissingAnalysis, short_labels
from ._tables import num, paragraph, table

__all__ = ["AdviceInput", "advice_input", "advice_section", "draw_advice"]

KEY = "advice"
TITLE = "Which method fits this data"
RECOMMENDED = " (recommended)"


@dataclass(frozen=True)
class AdviceInput:
    """What the advice section shows, read from an ``Advice``."""

    explanation: str
    diagnostics: pd.DataFrame
    candidates: pd.DataFrame | None
    unit: str  # what the held-out log-likelihood is per: "vote" or "response"


def has_advice(analysis):
    """Whether the analysis carries an advice (the section is then shown)."""
    return analysis.get(KEY) is not None


def advice_input(analysis):
    """The section's typed input, from the advice's public attributes."""
    advice = analysis.get(KEY)
    if advice is None:
        raise MissingAnalysis(KEY, "no advice was computed for this data")
    unit = "vote" if advice.kind == "matches" else "response"
    return AdviceInput(advice.explain(), advice.diagnostics, advice.candidates,
                       unit)


def draw_advice(plotting, plt, analysis):
    """Held-out log-likelihood of each candidate, +- one standard error."""
    data = advice_input(analysis)
    candidates = data.candidates
    if candidates is None or candidates.empty:
        raise MissingAnalysis(KEY, "no candidate model was cross-validated")
    estimate = candidates["heldout_loglik"].to_numpy(dtype=np.float64)
    se = candidates["heldout_se"].to_numpy(dtype=np.float64)
    recommended = candidates["recommended"].to_numpy(dtype=bool)
    labels = [
        name + (RECOMMENDED if chosen else "")
        for name, chosen in zip(short_labels(candidates.index, 56), recommended,
                                strict=True)
    ]
    n = len(labels)
    fig, ax = plt.subplots(figsize=(0.8 * PAGE_INCHES, 0.26 * n + 1.2),
                           layout=LAYOUT)
    plotting.RatingTableDisplay.from_data(
        labels, estimate, low=estimate - se, high=estimate + se,
        xlabel=f"held-out log-likelihood per {data.unit} (higher is better)",
        ax=ax,
    )
    for text in ax.get_yticklabels():
        if text.get_text().endswith(RECOMMENDED):
            text.set_fontweight("bold")
    ax.set_title("Candidate models, cross-validated (bars: one standard error)",
                 fontsize=9)
    return fig


def advice_section(page):
    data = page.input  # an AdviceInput
    html = paragraph(data.explanation)
    rows = [
        [check, str(row["value"]), str(row["verdict"])]
        for check, row in data.diagnostics.iterrows()
    ]
    html += table(["check", "value", "verdict"], rows, labels=3,
                  caption="Diagnostics of the data", key="advice-diagnostics")
    if data.candidates is not None:
        rows = [
            [name, num(row["heldout_loglik"], 4), num(row["heldout_se"], 4),
             num(row["diff_to_best"], 4), num(row["diff_se"], 4),
             num(row["n_parameters"], 0),
             "yes" if row["within_noise"] else "no",
             "recommended" if row["recommended"] else ""]
            for name, row in data.candidates.iterrows()
        ]
        html += table(
            ["model", "held-out log-likelihood", "se", "behind best",
             "paired se", "parameters", "within noise", ""],
            rows, caption="Candidate models, cross-validated",
            key="advice-candidates",
        )
        if not data.candidates.empty:
            html += page.figure(
                KEY,
                f"Held-out log-likelihood per {data.unit} of each candidate "
                "model with one standard error over the folds; the "
                "recommended model is marked",
            )
    return html
