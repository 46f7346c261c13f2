"""Results of evaluation harnesses in, estimator inputs out.

Readers turn the files that evaluation tools write into one tidy **long
table** with the columns of :data:`LONG_COLUMNS`: ``model``, ``task``,
``item`` (the tool's sample id), ``epoch`` (the tool's 1-based repeat number;
1 where it has no repeats), ``metric`` and ``score`` (float):
:func:`read_lm_eval` (lm-evaluation-harness), :func:`read_inspect`
(inspect_ai), :func:`read_helm` (HELM) and :func:`read_alpaca_eval`
(AlpacaEval's pairwise judge annotations) and
:func:`read_leaderboard_details` (Open LLM Leaderboard style per-sample
details tables in parquet); :func:`read_results` detects the
tool (:func:`detect_tool`) and reads it. From the long table,
:func:`to_result_matrix` builds a models x items result matrix and
:func:`to_matches` a table of pairwise comparisons per item (or of the judged
comparisons, with position and length covariates), with no hand-written
glue. Duplicated samples are refused, never averaged in.
"""

from ._alpaca import read_alpaca_eval
from ._details import read_leaderboard_details
from ._detect import detect_tool, read_results
from ._helm import read_helm
from ._inspect import read_inspect
from ._lm_eval import read_lm_eval
from ._long import LONG_COLUMNS, check_long_table, to_matches, to_result_matrix

__all__ = [
    "LONG_COLUMNS",
    "check_long_table",
    "detect_tool",
    "read_alpaca_eval",
    "read_helm",
    "read_inspect",
    "read_leaderboard_details",
    "read_lm_eval",
    "read_results",
    "to_matches",
    "to_result_matrix",
]
