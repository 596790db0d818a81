"""Regenerate the pictures in docs/ from the shipped sample logs (run from the repository root):

    python docs/make_pictures.py

Needs logsleuth importable (`pip install -e .`) and Debian's `chromium` for the PNG screenshots.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from click.testing import CliRunner

from logsleuth.cli import main

DOCS = Path(__file__).resolve().parent
CORPUS = DOCS.parent / "tests" / "fixtures" / "corpus"
LOGS = {"seed": CORPUS / "seed" / "seed-kimi-k25-nvfp4-sm120-full" / "log.txt",
        "four-processes": CORPUS / "multi" / "nim-tp2-free-memory-below-utilization"
        / "log.txt"}
# (output name, command, window size for the screenshot)
PICTURES = [("graph-seed", ["graph", "--format", "svg"], "seed", (1140, 620)),
            ("graph-four-processes", ["graph", "--format", "svg"], "four-processes", (1140, 700)),
            ("timeline-seed", ["timeline", "--format", "svg"], "seed", (1400, 480)),
            ("report-seed", ["explain", "--format", "html"], "seed", (1250, 2400))]


def screenshot(page: Path, png: Path, size: tuple[int, int]) -> None:
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if chromium is None:
        sys.exit("chromium is needed for the screenshots (Debian: apt-get install chromium)")
    with tempfile.TemporaryDirectory() as profile:
        subprocess.run([chromium, "--headless", "--no-sandbox", "--disable-gpu",
                        "--disable-quic", "--no-first-run", "--disable-background-networking",
                        "--disable-component-update", "--disable-sync", "--hide-scrollbars",
                        f"--user-data-dir={profile}", f"--window-size={size[0]},{size[1]}",
                        f"--screenshot={png}", page.as_uri()], check=True,
                       capture_output=True, timeout=120)


def main_() -> None:
    with tempfile.TemporaryDirectory() as work:
        for name, command, log, size in PICTURES:
            source = Path(work) / (name + (".html" if "html" in command else ".svg"))
            result = CliRunner().invoke(main, [*command, "-o", str(source), str(LOGS[log])])
            if not source.exists():
                sys.exit(f"{name}: {result.output}")
            screenshot(source, DOCS / f"{name}.png", size)
            print(f"wrote docs/{name}.png")


if __name__ == "__main__":
    main_()
