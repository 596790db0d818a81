"""The keys of vLLM's JSON-valued settings that a message names.

vLLM's configuration checks name a setting by its field ("cudagraph_mode=FULL is not supported",
"Please specify kv_role when kv_connector is set"); many fields are not engine arguments of their
own but keys inside a JSON-valued flag (`--compilation-config '{"cudagraph_mode": ...}'`,
`--kv-transfer-config`, `--speculative-config`, `--profiler-config`, ...). The data file
`vllm_config_keys.json.gz` maps each such key to its flag and its path in the flag's value; it is
mined from vLLM's releases by `tools/vllm_index/config_keys.py` and read on first use.
"""

from __future__ import annotations

import gzip
import json
import re
from dataclasses import dataclass
from functools import cache
from importlib import resources

__all__ = ["ConfigKey", "default_config_keys", "keys_named"]

DATA_FILE = "vllm_config_keys.json.gz"
_SNAKE = re.compile(r"\b[a-z][a-z0-9]*(?:_[a-z0-9]+)+\b")


@dataclass(frozen=True, slots=True)
class ConfigKey:
    """A key of a JSON-valued flag: `cudagraph_mode` in `--compilation-config`."""

    key: str
    flag: str
    path: str  # the key's dotted path in the flag's JSON value: pass_config.fuse_attn_quant

    @property
    def example(self) -> str:
        """The flag with the key set, as a command line writes it."""
        value = "..."
        for part in reversed(self.path.split(".")):
            value = f'{{"{part}": {value}}}'
        return f"{self.flag} '{value}'"


@cache
def default_config_keys() -> dict[str, ConfigKey]:
    """The keys shipped inside the package, by key."""
    raw = resources.files("logsleuth.index").joinpath(DATA_FILE).read_bytes()
    data = json.loads(gzip.decompress(raw))
    return {key: ConfigKey(key, flag, path) for key, (flag, path) in data["keys"].items()}


def keys_named(text: str, keys: dict[str, ConfigKey] | None = None) -> tuple[ConfigKey, ...]:
    """The keys of JSON-valued settings a message names, in the order it names them."""
    known = default_config_keys() if keys is None else keys
    found = dict.fromkeys(known[w] for w in _SNAKE.findall(text) if w in known)
    return tuple(found)
