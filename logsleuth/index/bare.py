"""A vLLM error message pasted on its own: no logger header, no `Type:` lead.

Users often paste only the line they think matters, `The quantization method awq is not
supported for the current GPU. Minimum capability: 75. Current capability: 70.`, without the
`ValueError: ` before it. When a short input yields no error event at all, each of its lines is
looked up among the messages vLLM's source raises; a line that is the whole of one (not a
prefix, and long enough to be specific) is that error, with the class vLLM raises it with.
Only short inputs are searched (the pipeline's PASTE_LINES): a pasted excerpt fits in the
sniffed head, and a long log without any error event is a healthy run, not a paste. Lines come
parsed, wrappers and prefixes removed: only plain text with no record header is looked up.

Other programs' error sentences are pasted the same way, without the level tag their logger put
before them (`[ERROR] the socversion Ascend910B1 of bin package does not match the current device
socverison Ascend310P3. ...`, the AscendC runtime's): a line whose own words say that a binary
does not fit where it runs (causality.yaml `pasted`) is then an error record.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable

from logsleuth.assemble import warning_text
from logsleuth.index.data import MessageKind
from logsleuth.index.lookup import Fit, TemplateMatcher, TextMatch
from logsleuth.index.origin import default_matcher
from logsleuth.knowledge import Causality
from logsleuth.model import ErrorEvent, EventKind, Level, LineKind, LogLine
from logsleuth.tokenize.grammar import terminal_regex

MIN_LINE_CHARS = 24
# What may stand around vLLM's message in a pasted line (a name and a colon that say what printed
# it, a program's own label, markdown's inline code), and a client's print of the error answer it
# got (`400 <message> None`, `Error 400: ...`, `[400] ...`, `HTTP 400: Bad Request: ...`): shapes
# of grammars/vllm.lark (`pasted_line`, `client_answer`), compiled from it when first needed.


def bare_errors(lines: Iterable[LogLine], first_id: int) -> list[ErrorEvent]:
    """The lines (of a whole short input, every line parsed) that are a message vLLM raises,
    each as an error event of the class it is raised with."""
    matcher = default_matcher()
    found: list[ErrorEvent] = []
    lines = list(lines)
    warned = warning_text(lines)  # a warning's text: what it quotes it went on from
    for line in lines:
        text = _uncoded(line.text.strip())
        if line.kind is not LineKind.PLAIN or line.level is not None or line.number in warned \
                or len(text) < MIN_LINE_CHARS or terminal_regex("NAMED_LEAD").match(text):
            continue  # a record, a traceback's line, a typed line: the assembler judged those
        match = _whole(matcher, text)
        if match is None:
            continue
        raised = Counter(site.cls for site in match.sites if site.kind is MessageKind.RAISE)
        if not raised:
            continue  # logged or warned, not raised: vLLM went on
        exception = raised.most_common(1)[0][0]
        found.append(ErrorEvent(first_id + len(found), EventKind.EXCEPTION, exception, text,
                                line.process, line.number, line.number, line.number, raw=True))
    return found


def raised_class(text: str) -> str | None:
    """The class vLLM's source raises `text` with, when the whole of it is one message it raises
    (as bare_errors reads a pasted line); None when it is not, or vLLM only logs it."""
    match = _whole(default_matcher(), _uncoded(text.strip()))
    if match is None:
        return None
    raised = Counter(site.cls for site in match.sites if site.kind is MessageKind.RAISE)
    return raised.most_common(1)[0][0] if raised else None


def answered_class(text: str) -> str | None:
    """The class vLLM raised the message of a client's status line with (grammars/vllm.lark
    CLIENT_STATUS: `HTTP 400: <message>`, `status 400: <message>`, `400 Bad Request: <message>`),
    when what follows the status (its reason phrase and separators aside, the answer's other
    fields after it) is the whole of a message vLLM raises; None when it is not."""
    status = terminal_regex("CLIENT_STATUS_REASON").search(text)
    if status is None:
        return None
    rest = text[status.end():]
    if len(rest) < MIN_LINE_CHARS:
        return None
    return raised_class(rest) or raised_class(_fieldless(rest))


def stated_errors(lines: Iterable[LogLine], first_id: int, know: Causality) -> list[ErrorEvent]:
    """The lines (of a whole short input, every line parsed) whose own words state a failure
    (causality.yaml `pasted`), each as an error record: a sentence copied without its level."""
    found: list[ErrorEvent] = []
    lines = list(lines)
    warned = warning_text(lines)
    for line in lines:
        text = _uncoded(line.text.strip())
        if line.kind is not LineKind.PLAIN or line.level is not None or line.number in warned \
                or len(text) < MIN_LINE_CHARS or not know.states_failure(text):
            continue
        found.append(ErrorEvent(first_id + len(found), EventKind.ERROR_RECORD, Level.ERROR.value,
                                text, line.process, line.number, line.number, line.number,
                                raw=True))
    return found


def _uncoded(text: str) -> str:
    """The line without a markdown inline-code span that wraps all of it."""
    code = terminal_regex("INLINE_CODE").fullmatch(text)
    return code.group("code_text") if code else text


def _whole(matcher: TemplateMatcher, text: str) -> TextMatch | None:
    """The template the whole line, or the whole of it after a program's own label, renders."""
    for message in _messages(text):
        match = matcher.find(message) if message else None
        if match is not None and match.fit is Fit.WHOLE and not match.weak:
            return match
    return None


def _messages(text: str) -> list[str]:
    """The line, the line after a program's own label, and either after a client's HTTP
    status (without the answer's fields printed after the message): where vLLM's message may
    be."""
    label = terminal_regex("PROGRAM_LABEL").match(text)
    found = [text, text[label.end():]] if label else [text]
    for message in list(found):
        status = terminal_regex("CLIENT_ANSWER_LEAD").match(message)
        if status is not None:
            rest = message[status.end():]
            found += [rest, _fieldless(rest)]
    return found


def _fieldless(message: str) -> str:
    """The message without the answer's fields a client printed after it."""
    return terminal_regex("CLIENT_ANSWER_FIELDS").sub("", message)
