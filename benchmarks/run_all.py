"""Run every performance target against its anchor and print one table.

One command sets up the anchor environments (each anchor lives in its own
virtual environment and never becomes a dependency of sklearn-eval) and runs
every family's benchmark script, then prints: family, case, our time, the
anchor's time, the ratio ours/anchor (< 1 means we are faster), an accuracy
figure, the target and pass/fail::

    python3 benchmarks/run_all.py --setup          # create missing venvs, run all
    python3 benchmarks/run_all.py                  # run all (venvs exist)
    python3 benchmarks/run_all.py --quick          # smaller, no slow anchors
    python3 benchmarks/run_all.py --only pairwise --only uncertainty
    python3 benchmarks/run_all.py --scaling        # also the scaling curves

Run it from anywhere; the package is taken from this checkout (PYTHONPATH).
Environments (``--venv-root``, default ``/work``; ``--dev-python`` is the
development environment with the package's own dependencies, default
``/work/venv/bin/python``):

- ``bench_pairwise_venv``: evalica (Rust Elo / Bradley-Terry) and numba
  (``/work/bench-venvs/evalica`` is used when it exists and this does not);
- ``bench_game_venv``: OpenSpiel's ``nash_averaging`` (cvxpy + Clarabel);
- ``bench_irt_venv``: PyPI ``mirt`` and ``girth``.

``--setup`` creates any of them that is missing with ``python3 -m venv`` and
``pip install`` (PyPI must be reachable). The information-gain, generality,
command-line and uncertainty benchmarks need no anchor package (their anchors
are reference loops written in the scripts, or pandas).

Each family runs in its own subprocess; its full output is kept in
``--log-dir`` (default ``<tmp>/sklearn_eval_bench_logs``) and the table is
built from it.
A family whose output cannot be read shows ``NO RESULT`` with its log path.
The machine may be shared: read the ratios, and repeat when it is quiet.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent

VENVS = {
    "bench_pairwise_venv": ["evalica", "numba", "numpy", "scipy", "scikit-learn",
                            "pandas", "joblib", "threadpoolctl"],
    "bench_game_venv": ["numpy", "scipy", "cvxpy", "clarabel", "open_spiel",
                        "scikit-learn", "joblib", "pandas"],
    "bench_irt_venv": ["numpy", "scipy", "scikit-learn", "joblib", "pandas", "mirt",
                       "girth"],
}


# Shared anchor environments used when ``<venv-root>/<name>`` does not exist.
ALTERNATIVE_VENVS = {"bench_pairwise_venv": Path("/work/bench-venvs/evalica")}


def venv_path(root, name):
    path = Path(root) / name
    alternative = ALTERNATIVE_VENVS.get(name)
    if not (path / "bin" / "python").exists() and alternative is not None and (
            alternative / "bin" / "python").exists():
        return alternative
    return path


@dataclass
class Row:
    family: str
    case: str
    ours: float = float("nan")
    anchor: float = float("nan")
    accuracy: str = ""
    target: str = ""
    status: str = "info"

    @property
    def ratio(self):
        if self.anchor == self.anchor and self.anchor > 0:
            return self.ours / self.anchor
        return float("nan")


# ----------------------------------------------------------------- setup
def setup_venvs(root):
    """Create the anchor environments that do not exist yet."""
    for name, packages in VENVS.items():
        path = venv_path(root, name)
        python = path / "bin" / "python"
        if python.exists():
            print(f"[setup] {path} exists", flush=True)
            continue
        print(f"[setup] creating {path}", flush=True)
        subprocess.run([sys.executable, "-m", "venv", str(path)], check=True)
        subprocess.run([str(python), "-m", "pip", "install", "-q", *packages],
                       check=True)


# --------------------------------------------------------------- parsing
_NUMBER = r"(?:[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?|nan|inf)"


def _float(text):
    try:
        return float(text)
    except (TypeError, ValueError):
        return float("nan")


def parse_pairwise(text):
    rows = []
    line_re = re.compile(
        rf"^(?P<name>\S.*?)\s+ours\s+(?P<ours>{_NUMBER}) s"
        rf"(?:\s+anchor\s+(?P<anchor>{_NUMBER}) s\s+ratio\s+{_NUMBER}"
        r"(?:\s+(?P<verdict>OK|MISSED)(?: \(target (?P<target>[\d.]+)\))?)?)?"
        r"(?P<extra>.*)$"
    )
    targets = {"online Elo fit vs evalica.elo": "0.5",
               "batch fit vs evalica.bradley_terry": "0.5",
               "MultiElo(1) online fit vs our online Elo fit": "2",
               "MultiElo(1) batch fit vs our batch BT fit": "5"}
    for line in text.splitlines():
        match = line_re.match(line.strip())
        if not match:
            continue
        name = match["name"].strip()
        extra = match["extra"]
        row = Row("pairwise", name, _float(match["ours"]), _float(match["anchor"]))
        rho = re.search(rf"rho ours ({_NUMBER}) evalica ({_NUMBER})", extra)
        if rho:
            row.accuracy = f"rho {rho[1]} vs {rho[2]}"
        if name.startswith("online scan"):
            per = re.search(rf"({_NUMBER}) s per million", extra)
            row.accuracy = f"{per[1]} s/M matches" if per else ""
            row.target = "<= 0.05 s/M"
            row.status = "PASS" if "(OK" in extra else "FAIL"
        elif name in targets:
            row.target = f"ratio <= {targets[name]}"
            row.status = "PASS" if match["verdict"] == "OK" else "FAIL"
            if "WORSE" in extra:
                row.status = "FAIL"
        rows.append(row)
    return rows


def parse_labels(text):
    rows = []
    for line in text.splitlines():
        growth = re.match(
            rf"^(?P<case>\S.*?)\s+(?P<clock>cpu|wall) (?:\S+M \S+s\s+)+exponent "
            rf"(?P<k>{_NUMBER}).*?(?P<verdict>OK|MISSED)?(?: \(target [\d.]+\))?$",
            line.strip())
        if growth:
            row = Row("labels", f"online Elo fit growth ({growth['clock']}), "
                      f"{growth['case']}", accuracy=f"exponent {growth['k']}")
            if growth["verdict"]:
                row.target = "exponent <= 1.05"
                row.status = "PASS" if growth["verdict"] == "OK" else "FAIL"
            rows.append(row)
            continue
        ratio = re.match(
            rf"^(?P<case>\S.*?)\s+ours (?P<ours>{_NUMBER}) s\s+evalica "
            rf"(?P<anchor>{_NUMBER}) s\s+ratio {_NUMBER}\s+(?P<verdict>OK|MISSED)",
            line.strip())
        if ratio:
            rows.append(Row("labels", f"online Elo vs evalica.elo, {ratio['case']}",
                            _float(ratio["ours"]), _float(ratio["anchor"]),
                            target="ratio <= 0.2",
                            status="PASS" if ratio["verdict"] == "OK" else "FAIL"))
    return rows


def parse_game(text):
    rows = []
    for line in text.splitlines():
        parts = re.match(
            rf"^(?P<case>Av[AT] .+?)\s+(?P<ours>{_NUMBER})\s+(?P<anchor>{_NUMBER})"
            rf"\s+(?P<ratio>{_NUMBER})\s+(?P<expl>{_NUMBER})\s+(?P<expl_a>{_NUMBER})"
            rf"\s+(?P<h>{_NUMBER})\s+(?P<h_a>{_NUMBER})(?P<note>.*)$",
            line.strip(),
        )
        if not parts:
            continue
        case = parts["case"].strip()
        ours, anchor = _float(parts["ours"]), _float(parts["anchor"])
        expl, expl_a = _float(parts["expl"]), _float(parts["expl_a"])
        row = Row("game", case, ours, anchor,
                  accuracy=f"expl {expl:.1e} vs {expl_a:.1e}")
        speedup = anchor / ours if anchor == anchor else float("nan")
        if case.startswith("AvT 200x200"):
            row.target, ok = "<= 0.3 s", ours <= 0.3
        elif case.startswith("AvT 50x50"):
            row.target = "anchor/ours >= 1000"
            ok = speedup >= 1000 if speedup == speedup else None
        elif "make_cyclic_game" in case:
            row.target, ok = "<= 2 s", ours <= 2.0
        elif "cyclic_rank=499" in case:
            row.target = ">= 3x faster, expl <= 1e-9"
            ok = expl <= 1e-9 and (speedup >= 3 if speedup == speedup else True)
        else:
            ok = None
        if ok is not None:
            row.status = "PASS" if ok else "FAIL"
        if parts["note"].strip():
            row.accuracy += f" ({parts['note'].strip()[:40]})"
        rows.append(row)
    return rows


def parse_irt(text):
    rows = []
    ours = re.search(rf"IRT2PL\s*: wall\s+({_NUMBER}) s\s+cpu\s+({_NUMBER}) s", text)
    mirt = re.search(rf"mirt\s*: wall\s+({_NUMBER}) s\s+cpu\s+({_NUMBER}) s", text)
    ratio = re.search(rf"ratio ours/mirt: wall ({_NUMBER})\s+cpu ({_NUMBER})", text)
    loglik = re.search(rf"loglik ours - mirt: ({_NUMBER})", text)
    if ours and mirt:
        row = Row("irt", "IRT2PL vs mirt 5000x500 20% missing (cpu s)",
                  _float(ours[2]), _float(mirt[2]), target="cpu ratio <= 0.33, "
                  "loglik >= mirt")
        diff = _float(loglik[1]) if loglik else float("nan")
        row.accuracy = f"loglik ours-mirt {diff:+.1f}"
        ok_ratio = ratio is not None and _float(ratio[2]) <= 0.33
        row.status = "PASS" if ok_ratio and diff >= 0 else "FAIL"
        rows.append(row)
    girth = re.search(rf"girth finished in ({_NUMBER}) s", text)
    if girth or "girth did NOT finish" in text:
        t = _float(girth[1]) if girth else float("nan")
        rows.append(Row("irt", "girth.twopl_mml 5000x500 (anchor only)",
                        float("nan"), t,
                        accuracy="" if girth else "anchor timed out"))
    board = re.search(
        rf"1000 x\s+20000: wall\s+({_NUMBER}) s\s+cpu\s+({_NUMBER}) s\s+peak RSS "
        rf"({_NUMBER}) GB.*?RMSE a ({_NUMBER}) b ({_NUMBER})", text)
    if board:
        wall, peak = _float(board[1]), _float(board[3])
        rows.append(Row("irt", "IRT2PL leaderboard 1000x20000", wall,
                        accuracy=f"RMSE a {board[4]} b {board[5]}, {peak:.2f} GB",
                        target="<= 60 s, < 4 GB",
                        status="PASS" if wall <= 60 and peak < 4 else "FAIL"))
    return rows


def parse_generality(text):
    rows = []
    for match in re.finditer(
        rf"(?P<case>\d+ agents x\s+\d+ tasks.*?missing): ours\s+(?P<ours>{_NUMBER}) ms"
        rf"\s+loop anchor\s+(?P<anchor>{_NUMBER}) ms", text):
        rows.append(Row("generality", "transform " + " ".join(match["case"].split()),
                        _float(match["ours"]) / 1e3, _float(match["anchor"]) / 1e3,
                        accuracy="equal to anchor (rtol 1e-9)"))
    return rows


def parse_selection(text):
    rows = []
    for line in text.splitlines():
        match = re.match(
            rf"^(?P<case>.+?): ours (?P<ours>{_NUMBER}) s, per-pair Python ~?"
            rf"(?P<anchor>{_NUMBER}) (?P<unit>[sh])", line.strip())
        if not match:
            continue
        anchor = _float(match["anchor"]) * (3600 if match["unit"] == "h" else 1)
        row = Row("selection", match["case"], _float(match["ours"]), anchor,
                  accuracy="same picks as anchor")
        target = re.search(r"\[target (<= [\d.]+ s): (met|MISSED)\]", line)
        if target:
            row.target = target[1]
            row.status = "PASS" if target[2] == "met" else "FAIL"
        if "extrapolated" in line:
            row.accuracy = "anchor time extrapolated"
        rows.append(row)
    return rows


def parse_cli(text):
    rows = []
    for line in text.splitlines():
        match = re.match(
            rf"^(?P<case>\S.*?)\s+ours\s+(?P<ours>{_NUMBER}) s"
            rf"(?:\s+anchor\s+(?P<anchor>{_NUMBER}) s)?", line.strip())
        if not match:
            continue
        row = Row("cli", match["case"], _float(match["ours"]),
                  _float(match["anchor"]))
        if "demo" in row.case:
            row.target = "< 60 s"
            row.status = "PASS" if row.ours < 60 else "FAIL"
        rows.append(row)
    return rows


def parse_uncertainty(text):
    rows = []
    match = re.search(
        rf"TARGET (?P<case>bootstrap BT .*?): ours (?P<ours>{_NUMBER}) s.*?median "
        rf"95% width (?P<width>{_NUMBER}) Elo\s+\[(?P<verdict>OK|MISSED)", text)
    anchor = re.search(rf"anchor evalica\S* .*?({_NUMBER}) s \(1 process", text)
    if match:
        rows.append(Row("uncertainty", match["case"], _float(match["ours"]),
                        _float(anchor[1]) if anchor else float("nan"),
                        accuracy=f"median 95% width {match['width']} Elo",
                        target="<= 15 s",
                        status="PASS" if match["verdict"] == "OK" else "FAIL"))
    return rows


# ---------------------------------------------------------------- running
def families(args):
    root = Path(args.venv_root)
    dev = args.dev_python
    quick = args.quick
    venv_python = {name: str(venv_path(root, name) / "bin" / "python")
                   for name in VENVS}
    pairwise = [venv_python["bench_pairwise_venv"], "bench_pairwise.py",
                "--repeat", "1" if quick else "3"]
    if quick:
        pairwise += ["--n-matches", "200000", "--n-players", "200"]
    game = [dev, "bench_nash.py", "--venv", str(root / "bench_game_venv"),
            "--repeat", "1" if quick else "3"]
    if quick:
        game.append("--quick")
    irt_cases = [["--case", "mirt", "--repeat", "1"]]
    if not quick:
        irt_cases.append(["--case", "leaderboard"])
        if args.slow_anchors:
            irt_cases.append(["--case", "girth"])
    irt = [[venv_python["bench_irt_venv"], "bench_irt.py", *case]
           for case in irt_cases]
    cli = [dev, "bench_cli.py", "--repeat", "1"]
    if quick:
        cli += ["--n-matches", "200000"]
    selection = [dev, "bench_selection.py"] + (["--quick"] if quick else [])
    labels = [venv_python["bench_pairwise_venv"], "bench_labels.py", "--repeat",
              "1" if quick else "3"] + (["--quick"] if quick else [])
    return {
        "pairwise": ([pairwise], parse_pairwise),
        "labels": ([labels], parse_labels),
        "game": ([game], parse_game),
        "irt": (irt, parse_irt),
        "generality": ([[dev, "bench_generality.py"]], parse_generality),
        "selection": ([selection], parse_selection),
        "cli": ([cli], parse_cli),
        "uncertainty": ([[venv_python["bench_pairwise_venv"], "scaling.py",
                          "--target-only"]], parse_uncertainty),
    }


def run_family(name, commands, log_dir, timeout):
    env = dict(os.environ)
    env["PYTHONPATH"] = str(REPO) + os.pathsep + env.get("PYTHONPATH", "")
    log = Path(log_dir) / f"{name}.log"
    chunks = []
    for command in commands:
        command = [command[0], str(HERE / command[1]), *command[2:]]
        print(f"[run] {' '.join(command)}", flush=True)
        start = time.perf_counter()
        try:
            done = subprocess.run(command, cwd=REPO, env=env, capture_output=True,
                                  text=True, timeout=timeout)
            out = done.stdout + ("\n[stderr]\n" + done.stderr if done.stderr else "")
            if done.returncode:
                out += f"\n[exit code {done.returncode}]"
        except FileNotFoundError as error:
            out = f"[not run: {error}; run with --setup]"
        except subprocess.TimeoutExpired as error:
            out = (error.stdout or b"").decode() if isinstance(error.stdout, bytes) \
                else (error.stdout or "")
            out += f"\n[timed out after {timeout} s]"
        chunks.append(f"$ {' '.join(command)}\n{out}")
        print(f"[done] {name} in {time.perf_counter() - start:.0f} s", flush=True)
    text = "\n".join(chunks)
    log.write_text(text)
    return text, log


def _fmt(value, digits=3):
    return "-" if value != value else f"{value:.{digits}g}"


def print_table(rows):
    header = (f"{'family':<12} {'case':<58} {'ours s':>9} {'anchor s':>10} "
              f"{'ours/anchor':>11}  {'accuracy':<40} {'target':<32} status")
    print("\n" + header)
    print("-" * len(header))
    for row in rows:
        print(f"{row.family:<12} {row.case[:58]:<58} {_fmt(row.ours):>9} "
              f"{_fmt(row.anchor):>10} {_fmt(row.ratio):>11}  "
              f"{row.accuracy[:40]:<40} {row.target[:32]:<32} {row.status}")
    failed = [row for row in rows if row.status in ("FAIL", "NO RESULT")]
    print(f"\n{sum(r.status == 'PASS' for r in rows)} targets passed, "
          f"{len(failed)} failed or missing, "
          f"{sum(r.status == 'info' for r in rows)} rows for information.")
    return not failed


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--setup", action="store_true",
                        help="create missing anchor environments first")
    parser.add_argument("--quick", action="store_true",
                        help="smaller sizes; skip OpenSpiel and the large cases")
    parser.add_argument("--only", action="append", help="family to run (repeat)")
    parser.add_argument("--scaling", action="store_true",
                        help="also print the scaling curves (benchmarks/scaling.py)")
    parser.add_argument("--slow-anchors", action="store_true",
                        help="also run girth's MML (up to 10 minutes)")
    parser.add_argument("--venv-root", default=os.environ.get(
        "SKLEARN_EVAL_BENCH_ROOT", "/work"))
    parser.add_argument("--dev-python", default=os.environ.get(
        "SKLEARN_EVAL_DEV_PYTHON", "/work/venv/bin/python"))
    parser.add_argument("--log-dir", default=str(
        Path(tempfile.gettempdir()) / "sklearn_eval_bench_logs"))
    parser.add_argument("--timeout", type=float, default=3600.0,
                        help="per benchmark command, seconds")
    args = parser.parse_args(argv)
    if args.setup:
        setup_venvs(args.venv_root)
    Path(args.log_dir).mkdir(parents=True, exist_ok=True)
    plan = families(args)
    unknown = set(args.only or ()) - set(plan)
    if unknown:
        parser.error(f"unknown families {sorted(unknown)}; choose from {list(plan)}")
    rows = []
    for name, (commands, parse) in plan.items():
        if args.only and name not in args.only:
            continue
        text, log = run_family(name, commands, args.log_dir, args.timeout)
        found = parse(text)
        if not found:
            found = [Row(name, f"(see {log})", status="NO RESULT")]
        rows.extend(found)
    if args.scaling:
        command = [args.dev_python, str(HERE / "scaling.py")]
        if args.quick:
            command.append("--quick")
        env = dict(os.environ, PYTHONPATH=str(REPO))
        print("\n== scaling curves ==", flush=True)
        subprocess.run(command, cwd=REPO, env=env, check=False)
    return 0 if print_table(rows) else 1


if __name__ == "__main__":
    sys.exit(main())
