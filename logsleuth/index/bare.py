"""A vLLM error message pasted on its own: no logger header, no `Type:` lead.

Users often paste only the line they think matters, `The quantization method awq is not
supported for the current GPU. Minimum capability: 75. Current capability: 70.`, without the
`ValueError: ` before it. When a short input yields no error event at all, each of its lines is
looked up among the messages vLLM's source raises; a line that is the whole of one (not a
prefix, and long enough to be specific) is that error, with the class vLLM raises it with.
Only short inputs are searched: a pasted excerpt fits in the sniffed head, and a long log
without any error event is a healthy run, not a paste.
"""

from __future__ import annotations

from collections import Counter

from logsleuth.index.data import MessageKind
from logsleuth.index.lookup import Fit
from logsleuth.index.origin import default_matcher
from logsleuth.model import MAIN, ErrorEvent, EventKind

MAX_LINES = 200  # a paste, not a run: longer inputs are never searched
MIN_LINE_CHARS = 24


def bare_errors(head: bytes, line_count: int, first_id: int) -> list[ErrorEvent]:
    """The lines of `head` (the whole input, `line_count` lines) that are a message vLLM
    raises, each as an error event of the class it is raised with."""
    lines = head.decode("utf-8", errors="replace").split("\n")
    if line_count > MAX_LINES or len(lines) < line_count:
        return []  # longer than a paste, or the head does not hold the whole input
    matcher = default_matcher()
    found: list[ErrorEvent] = []
    for number, raw in enumerate(lines, 1):
        text = raw.strip()
        if len(text) < MIN_LINE_CHARS:
            continue
        match = matcher.find(text)
        if match is None or match.fit is not Fit.WHOLE:
            continue
        raised = Counter(site.cls for site in match.sites if site.kind is MessageKind.RAISE)
        if not raised:
            continue  # logged or warned, not raised: vLLM went on
        exception = raised.most_common(1)[0][0]
        found.append(ErrorEvent(first_id + len(found), EventKind.EXCEPTION, exception, text,
                                MAIN, number, number, number, raw=True))
    return found
