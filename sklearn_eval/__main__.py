"""Allow ``python -m sklearn_eval``."""

import sys

from sklearn_eval.cli import main

if __name__ == "__main__":  # pragma: no cover - exercised through a subprocess test
    sys.exit(main())
