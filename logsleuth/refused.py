"""A paste of nothing but a server's answers refusing requests: `INFO:     172.30.0.4:33706 -
"POST /v1/chat/completions HTTP/1.1" 400 Bad Request`, again and again, and no other line.

Such an excerpt is what a reporter shows when every request of theirs fails (vllm-ascend's
function-calling requests answered 400 by a server started without tool calling). The server
refused them for a reason it does not print at INFO (the answer's body holds it), so the log
shows the failure and not its cause. The client's polls of the server's state between them (a
`GET /v1/models` or `/health` answered 200: causality.yaml milestones `alive`) do not change
that, as long as the paste ends on a refusal: a Home Assistant integration lists the models,
then every chat request with its tools is refused. A log with anything else in it (start-up, a
request served, the request's error record that says why) is read as every log is: a refusal
among them is the answer to one request (causality.yaml milestones `rejected`).

Read from the log's last lines only, and only when they are the whole log.
"""

from __future__ import annotations

from dataclasses import dataclass

from logsleuth.knowledge import Causality
from logsleuth.model import LineKind, LogLine, MilestoneKind


@dataclass(frozen=True, slots=True)
class Refusals:
    """The first refused answer, its line number, how many the log holds, and how many polls
    of the server's state were answered among them."""

    line: LogLine
    number: int
    count: int
    polls: int = 0


def refused_only(tail: str, line_count: int, know: Causality) -> Refusals | None:
    """The refusals of a log that holds nothing else (blank lines aside) but answered polls,
    and ends on a refusal; or None."""
    from logsleuth.tokenize import parse_line  # only needed for logs without errors
    from logsleuth.tokenize.grammar import clean

    texts = tail.split("\n")
    if not tail or len(texts) < line_count:
        return None  # the log is longer than its tail
    first: tuple[LogLine, int] | None = None
    count = polls = 0
    kind: MilestoneKind | None = None
    for number, text in enumerate(texts, line_count - len(texts) + 1):
        if not text.strip():
            continue
        line = parse_line(clean(text))
        kind = know.milestone_of(line.text) if line.kind is LineKind.ACCESS else None
        if line.exception is not None or kind not in (MilestoneKind.REJECTED, MilestoneKind.ALIVE):
            return None
        if kind is MilestoneKind.ALIVE:
            polls += 1
            continue
        first = first or (line, number)
        count += 1
    if first is None or kind is not MilestoneKind.REJECTED:
        return None
    return Refusals(first[0], first[1], count, polls)
