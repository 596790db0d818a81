"""Download vLLM releases from PyPI and keep only their Python source.

Usage: python tools/vllm_index/fetch.py --cache DIR [--all] [VERSION ...]

For each release: ``pip download --no-deps`` the wheel (any CPython/linux wheel: the Python
source is the same in all of them) into DIR, extract ``vllm/**/*.py`` to DIR/src/<version>/,
and delete the wheel. Releases that only ever shipped an sdist (the first ones) are fetched
from PyPI's JSON API, because ``pip download`` would try to build them (which needs torch and
CUDA). Nothing is imported or executed from the downloaded code.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tarfile
import tempfile
import urllib.request
import zipfile
from pathlib import Path

from releases import select_releases

_WHEEL_PLATFORMS = ("manylinux1_x86_64", "manylinux2014_x86_64", "manylinux_2_17_x86_64",
                    "manylinux_2_24_x86_64", "manylinux_2_27_x86_64",
                    "manylinux_2_28_x86_64", "manylinux_2_31_x86_64", "manylinux_2_35_x86_64")
_PYTHONS = ("3.10", "3.11", "3.12", "3.9", "3.8")  # 3.10: the one most releases built for


def list_versions() -> list[str]:
    """Every release of vllm the index lists (``pip index versions``)."""
    out = subprocess.run([sys.executable, "-m", "pip", "index", "versions", "vllm", "--pre"],
                         capture_output=True, text=True, check=True).stdout
    for line in out.splitlines():
        if line.startswith("Available versions:"):
            return [v.strip() for v in line.split(":", 1)[1].split(",")]
    raise SystemExit("pip index versions vllm: no version list")


def _pip_wheel(version: str, dest: Path) -> Path | None:
    for python in _PYTHONS:
        cmd = [sys.executable, "-m", "pip", "download", "-q", "--no-deps", "--only-binary=:all:",
               "--python-version", python, "-d", str(dest), f"vllm=={version}"]
        for platform in _WHEEL_PLATFORMS:
            cmd += ["--platform", platform]
        if subprocess.run(cmd, capture_output=True).returncode == 0:
            found = sorted(dest.glob("vllm-*.whl"))
            if found:
                return found[0]
    return None


def _pypi_sdist(version: str, dest: Path) -> Path | None:
    """The sdist, found on the index's simple page (PEP 691 JSON), the one pip itself reads."""
    request = urllib.request.Request("https://pypi.org/simple/vllm/",
                                     headers={"Accept": "application/vnd.pypi.simple.v1+json"})
    with urllib.request.urlopen(request) as response:
        files = json.load(response)["files"]
    for entry in files:
        if entry["filename"] in (f"vllm-{version}.tar.gz", f"vllm-{version}.zip"):
            target = dest / entry["filename"]
            with urllib.request.urlopen(entry["url"]) as response, target.open("wb") as out:
                shutil.copyfileobj(response, out)
            return target
    return None


def _extract(archive: Path, target: Path) -> int:
    """Copy vllm/**/*.py out of a wheel or sdist; returns the number of files."""
    count = 0
    if archive.suffix == ".whl":
        with zipfile.ZipFile(archive) as zf:
            for name in zf.namelist():
                if name.startswith("vllm/") and name.endswith(".py"):
                    out = target / name
                    out.parent.mkdir(parents=True, exist_ok=True)
                    out.write_bytes(zf.read(name))
                    count += 1
        return count
    with tarfile.open(archive) as tf:
        for member in tf.getmembers():
            # sdist layout: vllm-X/vllm/...
            parts = member.name.split("/", 1)
            if len(parts) == 2 and parts[1].startswith("vllm/") and parts[1].endswith(".py") \
                    and member.isfile():
                data = tf.extractfile(member)
                if data is None:
                    continue
                out = target / parts[1]
                out.parent.mkdir(parents=True, exist_ok=True)
                out.write_bytes(data.read())
                count += 1
    return count


def fetch(version: str, cache: Path) -> bool:
    """Extract one release's source into cache/src/<version>; True when it is there."""
    target = cache / "src" / version
    if (target / ".complete").exists():
        return True
    with tempfile.TemporaryDirectory(dir=cache) as tmp:
        archive = _pip_wheel(version, Path(tmp)) or _pypi_sdist(version, Path(tmp))
        if archive is None:
            print(f"{version}: no wheel or sdist", file=sys.stderr)
            return False
        if target.exists():
            shutil.rmtree(target)
        count = _extract(archive, target)
        (target / ".complete").write_text(f"{archive.name}\n{count}\n")
        print(f"{version}: {count} .py files from {archive.name}", file=sys.stderr)
    return True


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cache", type=Path, required=True, help="outside the repository")
    parser.add_argument("--all", action="store_true", help="every release, not the selection")
    parser.add_argument("versions", nargs="*")
    args = parser.parse_args()
    args.cache.mkdir(parents=True, exist_ok=True)
    versions = args.versions or list_versions()
    if not args.versions and not args.all:
        versions = select_releases(versions)
    for version in versions:
        fetch(version, args.cache)


if __name__ == "__main__":
    main()
