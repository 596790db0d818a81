"""The vLLM plugins whose messages the plugin index holds, and which of their releases.

A plugin here is a PyPI package whose Python code runs inside vLLM's processes and prints its
own errors there: a platform plugin (vllm-ascend), a KV-cache connector's library (lmcache,
nixl's Python layer), a hardware extension (vllm-hpu-extension). Each entry names the pip
package and the import package whose `**/*.py` are mined; the import package is also how a
traceback frame names it (`.../site-packages/vllm_ascend/...`).
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # the repository's logsleuth
from logsleuth.index.versions import version_key  # noqa: E402  (one ordering everywhere)

# pip name -> import package (the folder mined, and the name the index file carries)
PACKAGES: dict[str, str] = {
    "vllm-ascend": "vllm_ascend",
    "lmcache": "lmcache",
    "nixl": "nixl",
    "vllm-hpu-extension": "vllm_hpu_extension",
    "tpu-inference": "tpu_inference",
    "vllm-spyre": "vllm_spyre",
    "vllm-rbln": "vllm_rbln",
    "vllm-metal": "vllm_metal",
    "vllm-kunlun": "vllm_kunlun",
    "vllm-gaudi": "vllm_gaudi",  # not on PyPI: its repository's release tags (fetch.py --git)
}
# packages read from a git clone only (fetch.py --git NAME=DIR)
GIT_ONLY = frozenset({"vllm-gaudi"})


def base(version: str) -> str:
    """`0.11.0rc3` -> `0.11.0`, `0.7.3.post1` -> `0.7.3`: the release a pre-release leads to."""
    parts = []
    for part in version.split("."):
        digits = ""
        for char in part:
            if not char.isdigit():
                break
            digits += char
        if not digits:
            break
        parts.append(digits)
        if digits != part:
            break
    return ".".join(parts)


def select_releases(versions: list[str]) -> list[str]:
    """The first and last release of every release number (`0.11.0rc0` and `0.11.0`), dev
    builds left out. Plugins publish mostly release candidates (vllm-ascend's `X.Y.ZrcN` track
    vLLM X.Y.Z), so vLLM's own rule (finals of every minor) would keep almost none of them."""
    kept = [v for v in versions if "dev" not in v]
    groups: dict[str, list[str]] = {}
    for version in kept:
        groups.setdefault(base(version), []).append(version)
    chosen: set[str] = set()
    for group in groups.values():
        group.sort(key=version_key)
        chosen.update((group[0], group[-1]))
    return sorted(chosen, key=version_key)
