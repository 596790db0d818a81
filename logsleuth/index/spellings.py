"""Both spellings of the engine arguments a fix names.

Users type an engine argument one of two ways: `--max-model-len 8192` on a `vllm serve` line, or
`max_model_len=8192` in `LLM(...)` / `EngineArgs` (and in the configs of the frameworks that pass
it on). Fixes are written in one of them, mostly the flag, and a user holding the other has to
translate it; a search for the spelling they typed finds nothing. `with_spellings` adds, after
whatever fix answers, the other spelling of every engine argument the fix names in only one,
read from vLLM's own argument table (the index: every release's flags and their fields), so the
same holds for every fix and every argument, including ones written after this module:

- a flag `--enforce-eager` gains its keyword `enforce_eager=True` (a boolean flag turns it on;
  `--no-enable-prefix-caching` is `enable_prefix_caching=False`), `--max-model-len` gains
  `max_model_len`;
- a keyword `gpu_memory_utilization=` gains its flag `--gpu-memory-utilization`.

Only names that are engine arguments of some indexed release count, so a pip, Docker or Hugging
Face CLI flag (`--force-reinstall`, `--shm-size`, `--local-dir`) is left alone, and a snake-case
word counts only when it is given a value (`name=`): a bare one may be a key of the model's
config.json or another library's parameter. Flags only the API server reads (`--tool-call-parser`,
`--lora-modules`: `vllm_server_flags.json.gz`, mined by `tools/vllm_index/server_flags.py`) have
no keyword in `LLM(...)` or `EngineArgs` and are left alone too.
"""

from __future__ import annotations

import gzip
import json
import re
from dataclasses import dataclass
from functools import cache
from importlib import resources

from logsleuth.index.data import VllmIndex, default_index
from logsleuth.model import Match

__all__ = ["Spellings", "default_server_flags", "default_spellings", "missing_spellings",
           "with_spellings"]

SERVER_FLAGS_FILE = "vllm_server_flags.json.gz"

# a flag as a whole word: not inside a longer flag or path, not a negative number
_FLAG = re.compile(r"(?<![\w/.-])--([a-z][a-z0-9]*(?:-[a-z0-9]+)+)(?![\w-])")
# a keyword given a value, as Python code writes it: max_model_len=8192 (a bare snake-case word
# may be a config.json key or another library's parameter of the same name)
_KEYWORD = re.compile(r"(?<![\w.-])([a-z][a-z0-9]*(?:_[a-z0-9]+)+)=(?!=)")
KEYWORDS = "The settings above as Python keywords (`LLM(...)`, `EngineArgs`): "
FLAGS = "As `vllm serve` flags: "


@dataclass(frozen=True, slots=True)
class Spellings:
    """Every engine argument of the indexed releases: flag -> (field, whether it is a switch)."""

    flags: dict[str, tuple[str, bool]]
    fields: dict[str, str]  # field -> flag

    @classmethod
    def of(cls, index: VllmIndex, server_flags: frozenset[str] = frozenset()) -> Spellings:
        flags: dict[str, tuple[str, bool]] = {}
        for argument in index.arguments:
            name = argument.flag.removeprefix("--")
            if not re.fullmatch(r"[a-z][a-z0-9]*(?:-[a-z0-9]+)+", name) \
                    or argument.field != name.replace("-", "_"):
                continue  # internal (`---api-process-count`), one-word or renamed arguments
            if argument.flag in server_flags:
                continue  # the API server's own: no keyword of LLM(...) or EngineArgs
            switch = "bool" in (argument.type or "").lower() or argument.default in ("False",)
            flags[name] = (argument.field, switch or flags.get(name, ("", False))[1])
        return cls(flags, {field: flag for flag, (field, _) in flags.items()})


@cache
def default_server_flags() -> frozenset[str]:
    """The flags of `vllm serve` only the API server reads, shipped inside the package."""
    raw = resources.files("logsleuth.index").joinpath(SERVER_FLAGS_FILE).read_bytes()
    return frozenset(json.loads(gzip.decompress(raw))["flags"])


@cache
def default_spellings() -> Spellings:
    return Spellings.of(default_index(), default_server_flags())


def missing_spellings(fix: str, spellings: Spellings | None = None) -> tuple[str, ...]:
    """The other spelling of each engine argument the fix names in one spelling only, in the
    order the fix names them."""
    table = default_spellings() if spellings is None else spellings
    words = set(re.findall(r"[a-z0-9_]+", fix))
    dashed = set(_FLAG.findall(fix))
    out: list[str] = []
    for found in re.finditer(rf"{_FLAG.pattern}|{_KEYWORD.pattern}", fix):
        flag, keyword = found.group(1), found.group(2)
        if flag is not None:
            negative = flag.startswith("no-") and flag[3:] in table.flags
            entry = table.flags.get(flag[3:] if negative else flag)
            if entry is None or entry[0] in words:
                continue
            field, switch = entry
            spelled = f"{field}=False" if negative else f"{field}=True" if switch else field
        else:
            flag = table.fields.get(keyword)
            if flag is None or flag in dashed or f"no-{flag}" in dashed:
                continue
            spelled = f"--{flag}"
        if spelled not in out:
            out.append(spelled)
    return tuple(out)


def with_spellings(match: Match | None, spellings: Spellings | None = None) -> Match | None:
    """The match with the other spelling of the engine arguments its fix names in one only."""
    if match is None:
        return None
    spelled = missing_spellings(match.fix, spellings)
    if not spelled:
        return match
    keywords = [f"`{s}`" for s in spelled if not s.startswith("--")]
    flags = [f"`{s}`" for s in spelled if s.startswith("--")]
    lines = ([KEYWORDS + ", ".join(keywords) + "."] if keywords else []) \
        + ([FLAGS + ", ".join(flags) + "."] if flags else [])
    return match.with_paragraph(" ".join(lines))
