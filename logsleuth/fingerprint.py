"""What makes two errors the same failure, computed once per distinct message.

Eight workers' OOMs, or a request error repeated all day, differ only in numbers, sizes and
paths: the exception type (without its module) and the masked first line of the message are the
failure's identity. Inference and matching both ask for it, many times per event; the
masking is the costly part, so it is cached per (type, message), with a bound, and done once
per shape of message (`template.mask_by_shape`: a day of request errors is thousands of
messages that differ in their digits only).
"""

from __future__ import annotations

from functools import lru_cache

from logsleuth.model import ErrorEvent
from logsleuth.signatures.template import mask_by_shape


def fingerprint(event: ErrorEvent) -> tuple[str, str]:
    """(short exception type, masked first message line)."""
    return _fingerprint(event.exception, event.message)


def masked_first_line(message: str) -> str:
    """The first line of a message, its spaces folded, masked (`template.mask`)."""
    return mask_by_shape(" ".join(message.split("\n", 1)[0].split()))


@lru_cache(maxsize=4096)
def _fingerprint(exception: str, message: str) -> tuple[str, str]:
    return exception.rsplit(".", 1)[-1], masked_first_line(message)
