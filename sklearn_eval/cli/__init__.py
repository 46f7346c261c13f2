"""Command line interface: ``sklearn-eval`` and ``python -m sklearn_eval``.

Commands
--------
``rank``        matches CSV -> Elo, Bradley-Terry or mElo rating table
``nash``        result matrix, win-rate matrix or matches -> Nash averages
``irt``         result matrix -> 2PL item parameters and agent abilities
``generality``  result matrix -> ability, generality and response-curve indicators
``select``      result matrix -> reduced task subset by information gain
``report``      result matrix -> one self-contained HTML report of all the above
``demo``        the report on the built-in Atari data

Each command lives in its own module (``_rank``, ``_nash``, ...); the shared
modules hold the option groups (``_options``), the input readers
(``_inputs``) and the table and CSV output (``_output``). Every command prints
its result on stdout; progress of long work goes to stderr; an error is one
line on stderr naming the file and the problem, and exit code 2 for bad input
(1 when the command cannot finish otherwise, 3 when ``report`` or ``demo``
wrote the report with error boxes, 130 when interrupted), never a traceback
(``--debug`` shows it). The user guide's command line page documents every option.

Importing this package imports neither scikit-learn nor the estimators: they
are imported when a command runs, so ``sklearn-eval --version`` and
``--help`` answer at once.
"""

from ._main import main

__all__ = ["main"]
