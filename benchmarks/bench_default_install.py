"""Online Elo as a user gets it (``pip install .``) against evalica, 1M matches.

The speed a newcomer sees is the speed of the default install, not of a
development environment: this script times ``EloRanker().fit`` from the
checkout installed non-editable with ``pip install .`` (numba included, as a
core dependency) in its own virtual environment, against ``evalica.elo``
(Rust core) in another, on the same seeded matches: ``--n-matches`` (1M)
Bradley-Terry matches among ``--n-players`` (1,000) string-labelled players
given as pandas string columns. Label coding is inside both timings; the
compile (numba) and import costs are outside (a warm-up fit runs first).
Target: ours <= 0.5 x evalica's time. Both compute the same online Elo (same
K, same logistic on base 10, scale 400); the script prints the largest
difference between the two rating vectors (centred) as a check.

The two sides run in separate processes, alternately, ``--rounds`` times; each
process reports its best of ``--repeat`` fits; the table shows the best time
of each side. The machine may be shared: compare the ratio, and repeat when it
is quiet. ::

    python3 benchmarks/bench_default_install.py --setup   # create/refresh venvs
    python3 benchmarks/bench_default_install.py           # venvs exist

Environments (``--venv-root``, default ``/work/bench-venvs``):

- ``default-install``: ``pip install <checkout>``, exactly the README's
  install (reinstalled from the checkout, without its dependencies, on every
  run unless ``--no-reinstall``, so the timed code is the checkout's);
- ``evalica``: evalica, numpy and pandas (the anchor; never a dependency).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
TARGET = 0.5


# --------------------------------------------------------------- workers
def make_data(path, n_matches, n_players):
    import numpy as np

    from sklearn_eval.datasets import make_matches

    X, y = make_matches(n_players=n_players, n_matches=n_matches, labels="str",
                        random_state=0)
    np.savez(path, X=X.astype(str), y=y)


def load_frame(path):
    import numpy as np
    import pandas as pd

    data = np.load(path)
    frame = pd.DataFrame(data["X"].astype(object), columns=["first", "second"])
    return frame, data["y"]


def best_of(func, repeat):
    best, result = float("inf"), None
    for _ in range(repeat):
        start = time.perf_counter()
        result = func()
        best = min(best, time.perf_counter() - start)
    return best, result


def worker_ours(args):
    import numpy as np

    import sklearn_eval
    from sklearn_eval.pairwise import EloRanker, _kernels

    frame, y = load_frame(args.data)
    EloRanker(k_factor=args.k_factor).fit(frame.iloc[:1000], y[:1000])  # warm-up
    seconds, model = best_of(
        lambda: EloRanker(k_factor=args.k_factor).fit(frame, y), args.repeat
    )
    ratings = np.asarray(model.ratings_, dtype=float)
    result = {"seconds": seconds, "numba": bool(_kernels.HAVE_NUMBA),
              "package": sklearn_eval.__file__, "version": sklearn_eval.__version__}
    anchor = Path(args.data).with_suffix(".evalica.npy")
    if anchor.exists():  # same labels in the same (sorted) order
        theirs = np.load(anchor)
        diff = (ratings - ratings.mean()) - (theirs - theirs.mean())
        result["max_abs_rating_difference"] = float(np.abs(diff).max())
    print(json.dumps(result))


def worker_evalica(args):
    import evalica
    import numpy as np

    frame, y = load_frame(args.data)
    winners = list(np.where(y == 1.0, evalica.Winner.X, evalica.Winner.Y))
    evalica.elo(frame["first"][:1000], frame["second"][:1000], winners[:1000],
                k=args.k_factor)  # warm-up
    seconds, result = best_of(
        lambda: evalica.elo(frame["first"], frame["second"], winners,
                            k=args.k_factor),
        args.repeat,
    )
    labels = np.sort(np.unique(frame.to_numpy().ravel().astype(str)))
    np.save(Path(args.data).with_suffix(".evalica.npy"),
            result.scores.reindex(labels).to_numpy(dtype=float))
    print(json.dumps({"seconds": seconds, "version": evalica.__version__}))


# ---------------------------------------------------------- orchestration
def python_of(venv):
    return str(venv / "bin" / "python")


def clean_env():
    env = {k: v for k, v in os.environ.items()
           if k not in ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV")}
    env["OMP_NUM_THREADS"] = env["OPENBLAS_NUM_THREADS"] = "1"
    return env


def run(command, **kwargs):
    return subprocess.run(command, check=True, env=clean_env(), text=True, **kwargs)


def copy_checkout(destination):
    """The files git tracks, as in the working tree (no stale build/ dirs)."""
    names = subprocess.run(["git", "ls-files", "-z"], cwd=REPO, check=True,
                           capture_output=True).stdout.decode().split("\0")
    for name in filter(None, names):
        if (REPO / name).is_file():
            (destination / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(REPO / name, destination / name)
    return destination


def setup(root, reinstall):
    ours, anchor = root / "default-install", root / "evalica"
    with tempfile.TemporaryDirectory() as tmp:
        source = str(copy_checkout(Path(tmp)))
        if not (ours / "bin" / "python").exists():
            print(f"creating {ours} (pip install <checkout>)", flush=True)
            run([sys.executable, "-m", "venv", str(ours)])
            run([python_of(ours), "-m", "pip", "install", "--quiet", source])
        elif reinstall:
            run([python_of(ours), "-m", "pip", "install", "--quiet", "--no-deps",
                 "--force-reinstall", source])
    if not (anchor / "bin" / "python").exists():
        print(f"creating {anchor} (evalica)", flush=True)
        run([sys.executable, "-m", "venv", str(anchor)])
        run([python_of(anchor), "-m", "pip", "install", "--quiet", "evalica",
             "numpy", "pandas"])
    return ours, anchor


def worker(venv, role, data, args):
    out = run(
        [python_of(venv), str(Path(__file__).resolve()), "--worker", role,
         "--data", str(data), "--repeat", str(args.repeat),
         "--k-factor", str(args.k_factor)],
        capture_output=True, cwd=tempfile.gettempdir(),
    ).stdout
    return json.loads(out.strip().splitlines()[-1])


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n-matches", type=int, default=1_000_000)
    parser.add_argument("--n-players", type=int, default=1_000)
    parser.add_argument("--k-factor", type=float, default=4.0)
    parser.add_argument("--repeat", type=int, default=3, help="fits per process")
    parser.add_argument("--rounds", type=int, default=3, help="processes per side")
    parser.add_argument("--venv-root", type=Path, default=Path("/work/bench-venvs"))
    parser.add_argument("--setup", action="store_true",
                        help="create missing environments")
    parser.add_argument("--no-reinstall", action="store_true")
    parser.add_argument("--worker", choices=["ours", "evalica", "data"])
    parser.add_argument("--data", type=Path)
    args = parser.parse_args()

    if args.worker == "data":
        return make_data(args.data, args.n_matches, args.n_players)
    if args.worker == "ours":
        return worker_ours(args)
    if args.worker == "evalica":
        return worker_evalica(args)

    missing = [
        venv for venv in ("default-install", "evalica")
        if not (args.venv_root / venv / "bin" / "python").exists()
    ]
    if missing and not args.setup:
        sys.exit(f"missing environments {missing} under {args.venv_root}: "
                 "run with --setup")
    ours_venv, anchor_venv = setup(args.venv_root, not args.no_reinstall)
    with tempfile.TemporaryDirectory() as tmp:
        data = Path(tmp) / "matches.npz"
        run([python_of(ours_venv), str(Path(__file__).resolve()), "--worker", "data",
             "--data", str(data), "--n-matches", str(args.n_matches),
             "--n-players", str(args.n_players)], cwd=tmp)
        best_ours, best_anchor, info = float("inf"), float("inf"), {}
        for _ in range(args.rounds):
            anchor = worker(anchor_venv, "evalica", data, args)
            best_anchor = min(best_anchor, anchor["seconds"])
            info = worker(ours_venv, "ours", data, args)
            best_ours = min(best_ours, info["seconds"])
    print(f"sklearn-eval {info['version']} from {info['package']} "
          f"(numba: {info['numba']}); evalica {anchor['version']}")
    print(f"{args.n_matches:,} matches, {args.n_players:,} string-labelled players, "
          f"K = {args.k_factor}; best of {args.rounds} x {args.repeat} fits per side")
    ratio = best_ours / best_anchor
    verdict = "OK" if ratio <= TARGET else "MISSED"
    print(f"online Elo fit: ours {best_ours:.3f} s, evalica.elo {best_anchor:.3f} s, "
          f"ratio {ratio:.3f} ({verdict}, target <= {TARGET})")
    print("largest rating difference (centred): "
          f"{info.get('max_abs_rating_difference', float('nan')):.2e}")
    return 0 if ratio <= TARGET else 1


if __name__ == "__main__":
    sys.exit(main())
