"""Task selection: which tasks tell agents apart (information gain).

:class:`InfoGainSelector` chooses the tasks of a benchmark that best identify
the agents (Stephenson et al., 2020); :func:`subset_agreement` and
:func:`choose_n_tasks` check whether the chosen subset stands in for the whole
benchmark; :func:`task_clusters` groups tasks by how they separate agents.
"""

from ._clusters import task_clusters
from ._gain import (
    confusion_matrix,
    discrete_information_gain,
    greedy_select,
    information_gain,
)
from ._infogain import InfoGainSelector
from ._metrics import choose_n_tasks, make_subset_scorer, subset_agreement
from ._subset_files import read_items_csv
from ._subset_io import write_items_csv
from ._subset_score import SubsetScoreEstimator

__all__ = [
    "InfoGainSelector",
    "SubsetScoreEstimator",
    "choose_n_tasks",
    "confusion_matrix",
    "discrete_information_gain",
    "greedy_select",
    "information_gain",
    "make_subset_scorer",
    "read_items_csv",
    "subset_agreement",
    "task_clusters",
    "write_items_csv",
]
