#!/usr/bin/env bash
# Test sklearn-eval against the oldest and the newest scikit-learn it supports.
#
# The supported range is the "scikit-learn>=OLDEST,<UPPER" requirement of
# pyproject.toml. For each end of it this builds a virtual environment (reused
# on later runs), installs the package with its test extra, pins scikit-learn
# (OLDEST.*, or the newest release below UPPER) and runs the tests that touch
# scikit-learn's API: the compatibility module, the contract suite and the
# protocol, or the pytest arguments given after the version.
#
# usage: tools/test_sklearn_versions.sh [oldest|newest|both] [pytest args ...]
#   SKLEARN_EVAL_VENVS   directory of the environments (default: .venvs/)
#   PYTHON               interpreter that creates them (default: python3)
set -euo pipefail
cd "$(dirname "$0")/.."

which=${1:-both}
[ $# -gt 0 ] && shift
python=${PYTHON:-python3}
venvs=${SKLEARN_EVAL_VENVS:-.venvs}
requirement=$(sed -n 's/^ *"scikit-learn\(>=[^"]*\)",.*/\1/p' pyproject.toml)
oldest=$(printf '%s' "$requirement" | sed -n 's/^>=\([0-9.]*\).*/\1/p')
upper=$(printf '%s' "$requirement" | sed -n 's/.*,<\([0-9.]*\).*/\1/p')
if [ -z "$oldest" ] || [ -z "$upper" ]; then
    echo "pyproject.toml: expected scikit-learn>=OLDEST,<UPPER; got '$requirement'" >&2
    exit 2
fi
if [ $# -gt 0 ]; then
    tests=("$@")
else
    tests=(tests/utils/test_sklearn_compat.py tests/common/test_contract.py
           tests/common/test_protocol.py)
fi

run() {  # $1: oldest|newest, $2: pip requirement of scikit-learn
    local env="$venvs/sklearn-$1"
    if [ ! -x "$env/bin/python" ]; then
        "$python" -m venv "$env"
        "$env/bin/python" -m pip install --quiet --upgrade pip
    fi
    "$env/bin/python" -m pip install --quiet -e ".[test]"
    "$env/bin/python" -m pip install --quiet "$2"
    echo "== $1 supported scikit-learn: $("$env/bin/python" -c \
        'import sklearn; print(sklearn.__version__)')"
    OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 "$env/bin/python" -m pytest -q \
        -p no:cacheprovider "${tests[@]}"
}

case "$which" in
    oldest) run oldest "scikit-learn==$oldest.*" ;;
    newest) run newest "scikit-learn<$upper" ;;
    both) run oldest "scikit-learn==$oldest.*"; run newest "scikit-learn<$upper" ;;
    *) echo "usage: $0 [oldest|newest|both] [pytest args ...]" >&2; exit 2 ;;
esac
