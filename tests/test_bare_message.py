"""A vLLM error message pasted alone, without `Type: ` or a logger header (index/bare.py).

Generated from the shipped message index: any message vLLM raises, rendered with sample values
and pasted on its own (or after a few lines of ordinary output), is a failure of the class vLLM
raises it with, at its line; a message vLLM only logs or warns, or a long healthy log, is not.
"""

from __future__ import annotations

import random
import re

import pytest

from logsleuth.index.bare import MAX_LINES
from logsleuth.index.data import MessageKind, default_index
from logsleuth.index.lookup import Fit
from logsleuth.index.origin import default_matcher
from logsleuth.pipeline import explain_text

SAMPLE = {"int": "7", "float": "0.5", "num": "3", "size": "2.00 GiB", "path": "/models/m",
          "hex": "0x1f", "word": "alpha", "quoted": "'beta'", "any": "gamma delta"}
PLACEHOLDER = re.compile(r"\{(" + "|".join(SAMPLE) + r")\}")
HEALTHY_LINES = [
    "INFO 05-01 10:00:00 [api_server.py:1090] Starting vLLM API server 0 on http://0.0.0.0:8000",
    "INFO:     Started server process [4242]",
    "INFO:     Application startup complete.",
]


def render(text: str) -> str:
    return PLACEHOLDER.sub(lambda found: SAMPLE[found.group(1)], text)


def pasted_messages(kind: MessageKind, count: int) -> list[tuple[str, str]]:
    """(rendered message, class) for `count` index messages of `kind` that the matcher finds
    whole as themselves, drawn with a fixed seed."""
    index = default_index()
    matcher = default_matcher()
    sites = [site for site in index.templates if site.kind is kind]
    chosen: list[tuple[str, str]] = []
    for site in random.Random(11).sample(sites, len(sites)):
        message = render(site.text)
        if "\n" in message or len(message) < 40:
            continue
        found = matcher.find(message)
        if found is None or found.fit is not Fit.WHOLE or found.text != site.text:
            continue
        if {s.kind for s in found.sites} != {kind}:
            continue  # the same text raised in one place and logged in another
        chosen.append((message, site.cls))
        if len(chosen) == count:
            break
    assert len(chosen) == count, f"only {len(chosen)} {kind.value} messages to paste"
    return chosen


@pytest.mark.parametrize("message,cls", pasted_messages(MessageKind.RAISE, 12))
def test_a_raised_message_pasted_alone_is_the_root_cause(message: str, cls: str) -> None:
    report = explain_text(message + "\n")
    assert report.verdict == "failure"
    assert report.root_cause is not None
    assert (report.root_cause.exception, report.root_cause.line) == (cls, 1)


@pytest.mark.parametrize("message,cls", pasted_messages(MessageKind.RAISE, 4))
def test_a_raised_message_after_ordinary_lines_is_found_at_its_line(message: str,
                                                                     cls: str) -> None:
    report = explain_text("\n".join([*HEALTHY_LINES, message]) + "\n")
    assert report.root_cause is not None
    assert (report.root_cause.exception, report.root_cause.line) == (cls, 4)


@pytest.mark.parametrize("message,level", pasted_messages(MessageKind.LOG, 6))
def test_a_message_vllm_only_logs_is_no_failure_alone(message: str, level: str) -> None:
    assert explain_text(message + "\n").verdict == "no_failure"


def test_a_long_log_is_not_searched_line_by_line() -> None:
    message, _ = pasted_messages(MessageKind.RAISE, 1)[0]
    ordinary = [HEALTHY_LINES[i % 3] for i in range(MAX_LINES)]
    assert explain_text("\n".join([*ordinary, message]) + "\n").verdict == "no_failure"


def test_a_prefix_of_a_raised_message_is_not_enough() -> None:
    message, _ = pasted_messages(MessageKind.RAISE, 1)[0]
    assert explain_text(message[: len(message) // 2] + "\n").verdict == "no_failure"
