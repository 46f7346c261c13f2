"""Regenerate docs/_static/report_screenshot.png, the landing page's picture.

Runs ``sklearn-eval demo`` from this checkout, opens the report in headless
Chromium and keeps the top of the page, scaled down and saved with a 128-colour
palette so the file stays small (a few hundred KB at most)::

    PYTHONPATH=$PWD python docs/make_report_screenshot.py [--chromium PATH]

Run it after a change to the report's look; commit the PNG it writes.
"""

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
OUTPUT = HERE / "_static" / "report_screenshot.png"


def screenshot(chromium, url, path, window):
    with tempfile.TemporaryDirectory() as profile:
        subprocess.run(
            [
                chromium, "--headless", "--no-sandbox", "--disable-gpu",
                "--disable-quic", "--no-first-run", "--disable-background-networking",
                "--disable-component-update", "--disable-sync", "--hide-scrollbars",
                f"--user-data-dir={profile}", f"--screenshot={path}",
                f"--window-size={window[0]},{window[1]}", url,
            ],
            check=True, capture_output=True, timeout=300,
        )


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--chromium", default=shutil.which("chromium") or "chromium")
    parser.add_argument("--width", type=int, default=1100, help="browser width (px)")
    parser.add_argument("--height", type=int, default=1500, help="kept height (px)")
    parser.add_argument("--scale", type=float, default=0.8)
    parser.add_argument("--output", type=Path, default=OUTPUT)
    args = parser.parse_args()

    from PIL import Image

    with tempfile.TemporaryDirectory() as tmp:
        report = Path(tmp) / "report.html"
        env = {**os.environ, "MPLBACKEND": "Agg"}
        subprocess.run(
            [sys.executable, "-m", "sklearn_eval", "demo", "-o", str(report)],
            check=True, stdout=subprocess.DEVNULL, env=env,
        )
        shot = Path(tmp) / "shot.png"
        screenshot(args.chromium, report.as_uri(), shot, (args.width, args.height))
        image = Image.open(shot).convert("RGB").crop((0, 0, args.width, args.height))
    size = (round(args.width * args.scale), round(args.height * args.scale))
    image = image.resize(size, Image.LANCZOS).quantize(colors=128, dither=0)
    image.save(args.output, optimize=True)
    print(f"{args.output}: {size[0]}x{size[1]}, {args.output.stat().st_size:,} bytes")


if __name__ == "__main__":
    main()
