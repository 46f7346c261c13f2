"""Results of evaluation harnesses in, estimator inputs out.

Readers (:func:`read_inspect` for inspect_ai logs) turn the files that
evaluation tools write into one tidy **long table** with the columns of
:data:`LONG_COLUMNS`: ``model``, ``task``, ``item`` (the tool's sample id),
``epoch`` (the tool's 1-based repeat number; 1 where it has no repeats),
``metric`` and ``score`` (float). From the long
table, :func:`to_result_matrix` builds a models x items result matrix and
:func:`to_matches` a table of pairwise comparisons per item, with no
hand-written glue. Duplicated samples are refused, never averaged in.
"""

from ._inspect import read_inspect
from ._long import LONG_COLUMNS, check_long_table, to_matches, to_result_matrix

__all__ = [
    "LONG_COLUMNS",
    "check_long_table",
    "read_inspect",
    "to_matches",
    "to_result_matrix",
]
