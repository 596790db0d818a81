"""Download releases of vLLM's plugins from PyPI and keep only their Python source.

Usage: python tools/plugin_index/fetch.py --cache DIR [--package NAME ...] [--all]

For each package of packages.py and each selected release: the release's files are read from
the index's simple page (PEP 691 JSON, the page pip itself reads), the sdist is downloaded (or,
for a release without one, its smallest wheel: the Python source is the same in all of them),
`<import package>/**/*.py` is copied to DIR/<package>/src/<version>/, and the archive deleted.
Nothing downloaded is imported, built or run.

A plugin not published on PyPI (vllm-gaudi) is read from a local git clone of its repository
instead: `--git vllm-gaudi=/path/to/vllm-gaudi.git` takes its release tags (`v0.19.0rc0`), the
same selection of first and last release of every release number, and copies each tag's
`<import package>/**/*.py` with `git archive` (tests, examples and benchmarks left out).
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
import urllib.request
import zipfile
from pathlib import Path

from packages import GIT_ONLY, PACKAGES, select_releases

_SIMPLE = "https://pypi.org/simple/{name}/"
_VERSION = re.compile(r"^[A-Za-z0-9_.]+?-(\d[^-]*?)(?:\.tar\.gz|\.zip|-.*\.whl)$")


def release_files(name: str) -> dict[str, list[dict[str, object]]]:
    """Version -> the files PyPI holds for it."""
    request = urllib.request.Request(_SIMPLE.format(name=name),
                                     headers={"Accept": "application/vnd.pypi.simple.v1+json"})
    with urllib.request.urlopen(request, timeout=120) as response:
        files = json.load(response)["files"]
    out: dict[str, list[dict[str, object]]] = {}
    for entry in files:
        if entry.get("yanked"):
            continue
        found = _VERSION.match(str(entry["filename"]))
        if found is not None:
            out.setdefault(found.group(1), []).append(entry)
    return out


def _choose(files: list[dict[str, object]]) -> dict[str, object] | None:
    sdists = [f for f in files if str(f["filename"]).endswith((".tar.gz", ".zip"))]
    wheels = [f for f in files if str(f["filename"]).endswith(".whl")]
    if sdists:
        return sdists[0]
    return min(wheels, key=lambda f: int(f.get("size") or 0), default=None)  # type: ignore[call-overload]


def _extract(archive: Path, package: str, target: Path) -> int:
    """Copy <package>/**/*.py (at the archive's top, under a source folder or an sdist's
    `name-version/` folder) into target/<package>/...; returns the number of files."""
    count = 0

    def place(name: str, data: bytes) -> None:
        nonlocal count
        parts = name.split("/")
        if package not in parts[:-1] or not name.endswith(".py"):
            return
        relative = parts[parts.index(package):]
        if any(p in ("tests", "test", "examples", "benchmarks") for p in relative):
            return
        out = target.joinpath(*relative)
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_bytes(data)
        count += 1

    if archive.suffix in (".whl", ".zip"):
        with zipfile.ZipFile(archive) as zf:
            for name in zf.namelist():
                place(name, zf.read(name))
        return count
    with tarfile.open(archive) as tf:
        for member in tf.getmembers():
            if member.isfile():
                data = tf.extractfile(member)
                if data is not None:
                    place(member.name, data.read())
    return count


def fetch(name: str, package: str, version: str, files: list[dict[str, object]],
          cache: Path) -> bool:
    target = cache / name / "src" / version
    if (target / ".complete").exists():
        return True
    chosen = _choose(files)
    if chosen is None:
        print(f"{name} {version}: no sdist or wheel", file=sys.stderr)
        return False
    with tempfile.TemporaryDirectory(dir=cache) as tmp:
        archive = Path(tmp) / str(chosen["filename"])
        with urllib.request.urlopen(str(chosen["url"]), timeout=300) as response, \
                archive.open("wb") as out:
            shutil.copyfileobj(response, out)
        if target.exists():
            shutil.rmtree(target)
        target.mkdir(parents=True)
        count = _extract(archive, package, target)
        (target / ".complete").write_text(f"{archive.name}\n{count}\n")
    print(f"{name} {version}: {count} .py files from {chosen['filename']}", file=sys.stderr)
    return True


def fetch_git(name: str, package: str, git_dir: Path, cache: Path) -> None:
    """The selected release tags of a git clone (`vX.Y.Z[rcN]`), each as a tar from
    `git archive`, extracted like an sdist."""
    tags = subprocess.run(["git", "--git-dir", str(git_dir), "tag"], check=True,
                          capture_output=True, text=True).stdout.split()
    versions = {t.removeprefix("v"): t for t in tags if re.fullmatch(r"v?\d+(?:\.\d+)+\S*", t)}
    for version in select_releases(list(versions)):
        target = cache / name / "src" / version
        if (target / ".complete").exists():
            continue
        with tempfile.TemporaryDirectory(dir=cache) as tmp:
            archive = Path(tmp) / f"{name}-{version}.tar"
            with archive.open("wb") as out:
                subprocess.run(["git", "--git-dir", str(git_dir), "archive", versions[version]],
                               check=True, stdout=out)
            if target.exists():
                shutil.rmtree(target)
            target.mkdir(parents=True)
            count = _extract(archive, package, target)
            (target / ".complete").write_text(f"{versions[version]}\n{count}\n")
        print(f"{name} {version}: {count} .py files from tag {versions[version]}", file=sys.stderr)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cache", type=Path, required=True, help="outside the repository")
    parser.add_argument("--package", action="append", choices=sorted(PACKAGES))
    parser.add_argument("--all", action="store_true", help="every release, not the selection")
    parser.add_argument("--git", action="append", default=[], metavar="NAME=GIT_DIR",
                        help="read NAME's release tags from this git clone, not PyPI")
    args = parser.parse_args()
    args.cache.mkdir(parents=True, exist_ok=True)
    clones = dict(item.split("=", 1) for item in args.git)
    for name, git_dir in clones.items():
        fetch_git(name, PACKAGES[name], Path(git_dir), args.cache)
    for name in [n for n in args.package or sorted(PACKAGES)
                 if n not in clones and n not in GIT_ONLY]:
        by_version = release_files(name)
        versions = list(by_version) if args.all else select_releases(list(by_version))
        for version in versions:
            fetch(name, PACKAGES[name], version, by_version[version], args.cache)


if __name__ == "__main__":
    main()
