"""What makes two errors the same failure, computed once per distinct message.

Eight workers' OOMs, or a request error repeated all day, differ only in numbers, sizes and
paths: the exception type (without its module) and the masked first line of the message are the
failure's identity. Inference and matching both ask for it, many times per event; the
masking is the costly part, so it is cached per (type, message), with a bound.
"""

from __future__ import annotations

from functools import lru_cache

from logsleuth.model import ErrorEvent
from logsleuth.signatures.template import mask


def fingerprint(event: ErrorEvent) -> tuple[str, str]:
    """(short exception type, masked first message line)."""
    return _fingerprint(event.exception, event.message)


@lru_cache(maxsize=4096)
def _fingerprint(exception: str, message: str) -> tuple[str, str]:
    first_line = " ".join(message.split("\n", 1)[0].split())
    return exception.rsplit(".", 1)[-1], mask(first_line)
