"""A paste of nothing but a server's answers refusing requests: `INFO:     172.30.0.4:33706 -
"POST /v1/chat/completions HTTP/1.1" 400 Bad Request`, again and again, and no other line but
answered polls (`"GET /v1/models HTTP/1.1" 200 OK`: a client checking the server is there
between its refused requests).

Such an excerpt is what a reporter shows when every request of theirs fails (vllm-ascend's
function-calling requests answered 400 by a server started without tool calling; a Home
Assistant integration's chat requests with tools, the same). The server refused them for a reason
it does not print at INFO (the answer's body holds it), so the log shows the failure and not its
cause. A log with anything else in it (start-up, a request served, the request's error record
that says why) is read as every log is: a refusal among them is the answer to one request
(causality.yaml milestones `rejected`; a request served is `serving`).

Read from the log's last lines only, and only when they are the whole log.
"""

from __future__ import annotations

from dataclasses import dataclass

from logsleuth.knowledge import Causality
from logsleuth.model import LineKind, LogLine, MilestoneKind


@dataclass(frozen=True, slots=True)
class Refusals:
    """The first refused answer, its line number, and how many the log holds."""

    line: LogLine
    number: int
    count: int


def refused_only(tail: str, line_count: int, know: Causality) -> Refusals | None:
    """The refusals of a log that holds nothing else but answered polls (blank lines aside),
    or None."""
    from logsleuth.tokenize import parse_line  # only needed for logs without errors
    from logsleuth.tokenize.grammar import clean

    texts = tail.split("\n")
    if not tail or len(texts) < line_count:
        return None  # the log is longer than its tail
    first: tuple[LogLine, int] | None = None
    count = 0
    for number, text in enumerate(texts, line_count - len(texts) + 1):
        if not text.strip():
            continue
        line = parse_line(clean(text))
        if line.kind is not LineKind.ACCESS or line.exception is not None:
            return None
        kind = know.milestone_of(line.text)
        if kind is MilestoneKind.ALIVE:
            continue  # a poll answered: the server is there, it did no work
        if kind is not MilestoneKind.REJECTED:
            return None  # a request served (or an answer of no known kind)
        if not know.asks_for_work(line.text):
            continue  # a page the server lacks (`GET /favicon.ico` 404): no request refused
        first = first or (line, number)
        count += 1
    return None if first is None else Refusals(first[0], first[1], count)
