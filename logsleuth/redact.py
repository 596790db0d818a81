"""Masks for a report that will be pasted in public: addresses, host names, user names in
paths, and secrets. Applied to rendered output (text, Markdown, HTML), so the quoted log lines
are masked too. Masks keep the shape (`<ip>`, `/home/<user>/`) so the report still reads.

These patterns describe secrets and personal names, not log lines: they are the same whatever
printed them, which is why they live here and not in the grammar.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

# Hosts that every vLLM user shares; naming them discloses nothing.
PUBLIC_HOSTS = frozenset({"github.com", "docs.vllm.ai", "pytorch.org", "huggingface.co",
                          "hf.co", "pypi.org", "docs.nvidia.com", "docs.ray.io",
                          "download.pytorch.org", "localhost", "raw.githubusercontent.com"})


@dataclass(frozen=True, slots=True)
class _Mask:
    what: str
    pattern: re.Pattern[str]
    replacement: str


_MASKS = (
    _Mask("secret", re.compile(r"\b(?:hf_[A-Za-z0-9]{20,}|sk-[A-Za-z0-9_-]{20,}|gh[pousr]_"
                               r"[A-Za-z0-9]{20,}|AKIA[0-9A-Z]{16}|xox[abp]-[A-Za-z0-9-]{10,})"),
          "<token>"),
    _Mask("secret", re.compile(r"(?i)\b((?:api[_-]?key|token|password|secret|authorization)"
                               r"[\"']?\s*[:=]\s*[\"']?(?:Bearer\s+)?)[^\s\"',}]{6,}"),
          r"\1<token>"),
    _Mask("email", re.compile(r"\b[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,}\b"), "<email>"),
    _Mask("ip", re.compile(r"(?<![\w.])(?:(?:25[0-5]|2[0-4]\d|1?\d?\d)\.){3}"
                           r"(?:25[0-5]|2[0-4]\d|1?\d?\d)(?![\w.])"), "<ip>"),
    _Mask("ip", re.compile(r"(?<![\w:])(?:[0-9a-fA-F]{1,4}:){7}[0-9a-fA-F]{1,4}(?![\w:])"),
          "<ip>"),
    _Mask("user", re.compile(r"(/(?:home|Users)/)[^/\s\"']+"), r"\1<user>"),
    _Mask("user", re.compile(r"(?i)([A-Z]:\\Users\\)[^\\\s\"']+"), r"\1<user>"),
)
_URL_HOST = re.compile(r"(?i)\b(https?|wss?|tcp|grpc)://([A-Za-z0-9.-]+)")
_HOST_SETTING = re.compile(r"(?i)\b((?:MASTER_ADDR|hostname|host_ip|node_ip_address|--host)"
                           r"[=\s:]+[\"']?)([A-Za-z][A-Za-z0-9.-]*)")


def redact(text: str) -> str:
    """`text` with addresses, host names, user names and secrets masked."""
    for mask in _MASKS:
        text = mask.pattern.sub(mask.replacement, text)
    text = _URL_HOST.sub(_url_host, text)
    return _HOST_SETTING.sub(lambda m: m.group(1) + ("<host>" if m.group(2).lower()
                                                      not in PUBLIC_HOSTS else m.group(2)), text)


def _url_host(match: re.Match[str]) -> str:
    host = match.group(2)
    if host.lower() in PUBLIC_HOSTS or host.startswith("<"):
        return match.group(0)
    return f"{match.group(1)}://<host>"


NOTICE = ("Addresses, host names, user names in paths and tokens are masked; "
          "--no-redact shows them.")
