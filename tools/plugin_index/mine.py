"""Mine every message a vLLM plugin can print, release by release, into one index per package.

Usage: python tools/plugin_index/mine.py --cache DIR [--package NAME ...] [--out DIR]

Reads the sources fetch.py extracted into DIR/<package>/src/<version>/ with the vLLM index's own
walker (tools/vllm_index/mine.py: raise, assert, logger and warnings sites, the same template
vocabulary and the same filing of each template under its rarest word), and writes
`logsleuth/index/plugin_<import package>.json.gz`: deterministic gzipped JSON, the same
releases give the same bytes.
"""

from __future__ import annotations

import argparse
import hashlib
import importlib.util
import json
import sys
from pathlib import Path
from types import ModuleType

from packages import PACKAGES


def _vllm_miner() -> ModuleType:
    """tools/vllm_index/mine.py (a script beside this one's folder, of the same name)."""
    folder = Path(__file__).resolve().parents[1] / "vllm_index"
    spec = importlib.util.spec_from_file_location("vllm_index_mine", folder / "mine.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["vllm_index_mine"] = module
    sys.path.insert(0, str(folder))  # it imports args.py beside it
    try:
        spec.loader.exec_module(module)
    finally:
        sys.path.remove(str(folder))
    return module


_miner = _vllm_miner()
MESSAGES_VERSION, _cached = _miner.MESSAGES_VERSION, _miner._cached
messages_of, write = _miner.messages_of, _miner.write
texts_and_sites = _miner.texts_and_sites

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # the repository's logsleuth
from logsleuth.index.versions import version_key  # noqa: E402

SCHEMA = "logsleuth.plugin-index/1"
OUT = Path(__file__).resolve().parents[2] / "logsleuth" / "index"


def mine_release(cache: Path, name: str, version: str) -> list[dict[str, object]]:
    """One release's messages (cached in DIR/<package>/mined/)."""
    root = cache / name / "src" / version
    return _cached(cache / name / "mined" / f"{version}.{MESSAGES_VERSION}.json", lambda: [
        {"t": m.template, "k": m.kind, "c": m.cls, "m": m.module, "f": m.function}
        for m in sorted(set(messages_of(root)))])


def build(cache: Path, name: str, releases: list[str]) -> dict[str, object]:
    mined = [mine_release(cache, name, version) for version in releases]
    for version, messages in zip(releases, mined):
        print(f"{name} {version}: {len(messages)} messages", file=sys.stderr)
    body: dict[str, object] = {
        "package": name, "module": PACKAGES[name], "releases": releases,
        **texts_and_sites(mined)}
    digest = hashlib.sha256(json.dumps(body, sort_keys=True).encode()).hexdigest()[:12]
    return {"schema": SCHEMA, "stamp": f"{releases[-1]}+{digest}", **body}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cache", type=Path, required=True)
    parser.add_argument("--package", action="append", choices=sorted(PACKAGES))
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args()
    for name in args.package or sorted(PACKAGES):
        src = args.cache / name / "src"
        releases = sorted((p.name for p in src.iterdir() if (p / ".complete").exists()),
                          key=version_key) if src.is_dir() else []
        if not releases:
            print(f"{name}: no release fetched", file=sys.stderr)
            continue
        index = build(args.cache, name, releases)
        out = args.out / f"plugin_{PACKAGES[name]}.json.gz"
        write(index, out)
        print(f"{name}: {len(releases)} releases, {len(index['texts'])} templates "  # type: ignore[arg-type]
              f"-> {out} ({out.stat().st_size:,} bytes)", file=sys.stderr)


if __name__ == "__main__":
    main()
