"""The spreadsheet rule (OWASP, against CSV injection) and its exact inverse.

Every CSV the package writes quotes text cells a spreadsheet would run as a
formula; item files, which the package reads back, use a reversible form of
the same rule so that task names round-trip.
"""

from hypothesis import given, settings
from hypothesis import strategies as st

from sklearn_eval.utils._spreadsheet import (
    escape_label,
    neutralize_text,
    unescape_label,
)

LINES = st.text(alphabet=st.sampled_from(list("=+-@'\t\r\n a1.,\"\u00a0")), max_size=12)


@settings(max_examples=300, deadline=None)
@given(st.one_of(st.text(max_size=12), LINES))
def test_escaped_labels_are_safe_and_round_trip(text):
    escaped = escape_label(text)
    assert unescape_label(escaped) == text
    assert neutralize_text(escaped) == escaped  # nothing left to neutralise


@settings(max_examples=300, deadline=None)
@given(st.one_of(st.text(max_size=12), LINES), st.one_of(st.text(max_size=12), LINES))
def test_escaping_tells_labels_apart(a, b):
    if a != b:
        assert escape_label(a) != escape_label(b)


def test_rule_matches_the_csv_writer():
    for text in ("=SUM(A1)", "+cmd", "-x", "@x", " =x", "\tx", "-35.2", "+1e5",
                 "plain", "a\n=b"):
        escaped = escape_label(text)
        assert (escaped != text) == (neutralize_text(text) != text), text
