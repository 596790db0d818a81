"""A ready-to-paste GitHub bug-report block: environment, root cause with the original log lines,
symptoms, the suggested fix, and the causal chain folded in a `<details>` section."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from logsleuth.errors import LogsleuthError
from logsleuth.model import Report, SignatureKind, Verdict
from logsleuth.render.origin import advice_to_show, origin_sentence
from logsleuth.render.text import (confidence_sentence, difference_lines, environment,
                                   no_failure_sentence, runs_lines)

HEAD_LINES = 3  # first lines of a traceback kept in the excerpt
TAIL_LINES = 10  # and its last lines, where the innermost frames and the message are
MAX_LINE_CHARS = 300
MAX_SPAN = 5000  # a longer traceback span is read only near its two ends
_NOT_A_FILE = ("<stdin>", "<text>", "<stream>", "-")


def render_markdown(report: Report, *, footer: str | None = None) -> str:
    """The report as GitHub-flavoured Markdown. Log text is always quoted as data (code spans,
    fenced blocks, escaped prose), never as markup. `footer` names the versions that made it."""
    lines = source_lines(report)
    out: list[str] = [_title(report), ""]
    out.append(f"**Verdict:** `{report.verdict.value}` · **log:** `{report.source}` "
                f"({report.lines_read:,} lines) · found by logsleuth")
    if len(report.runs) > 1:
        out += ["", *(f"- {sentence[0].upper()}{sentence[1:]}." for sentence in runs_lines(report))]
    rows = environment(report.facts)
    if rows:
        out += ["", "#### Environment", "", "| | |", "|---|---|"]
        out += [f"| {_cell(label)} | {_cell(value)} |" for _, label, value in rows]
    if report.config_differences:
        out += ["", "#### Requested vs effective", "",
                "| setting | requested (command line) | effective (engine) |", "|---|---|---|"]
        for d in report.config_differences:
            out.append(f"| `{d.name}` | `{_code_cell(str(d.requested))}`{_at(d.requested_line)}"
                       f" | `{_code_cell(str(d.effective))}`{_at(d.effective_line)} |")
    out += ["", *_root_cause(report, lines)]
    if report.symptoms:
        out += ["", "#### Symptoms (follow from the root cause)" if report.root_cause
                else "#### Errors in the log (symptoms only)", ""]
        for event in report.symptoms[:12]:
            above = " (printed above the root cause)" if report.root_cause \
                and event.line < report.root_cause.line else ""
            out.append(f"- line {event.line}, `{event.process.label}`: "
                       f"`{_inline(_trim(event.text, 200))}`{above}")
        if len(report.symptoms) > 12:
            out.append(f"- … and {len(report.symptoms) - 12} more")
    fix = _fix(report)
    out += ["", *fix] if fix else []
    own_advice = advice_to_show(report)
    if own_advice:
        text, *names = own_advice
        out += ["", "#### The message's own advice"] + (["", f"> {_inline(text)}"] if text else [])
        out += ["", *[f"- {_inline(n)}" for n in names]] if names else []
    chain = _chain(report)
    out += ["", *chain, ""] if chain else [""]
    if footer:
        out += [f"<sub>{escape(footer)}</sub>", ""]
    return "\n".join(out)


def _title(report: Report) -> str:
    if report.root_cause is not None:
        event = report.root_cause
        return (f"### vLLM failure: `{event.exception}` in `{event.process.name}` "
                f"(line {event.line})")
    if report.verdict is Verdict.ROOT_CAUSE_MISSING:
        return "### vLLM failure: the root cause is not in this log"
    return "### vLLM log: no failure found"


def _root_cause(report: Report, lines: dict[int, str] | None) -> list[str]:
    event = report.root_cause
    if event is None:
        said = no_failure_sentence(report) if report.verdict is Verdict.NO_FAILURE \
            else "Not in this log."
        out = ["#### Root cause", "", said]
        out += [f"- {escape(hint)}" for hint in report.look_for]
        return out
    out = ["#### Root cause", "",
           f"**`{event.exception}`** in `{event.process.label}`, line {event.line}"
           + (f" (traceback lines {event.first_line}-{event.last_line})"
              if event.first_line != event.last_line else ""), ""]
    if lines:
        numbers = _excerpt_numbers(sorted(lines))
        interleaved = len(lines) < event.last_line - event.first_line + 1
        out.append(f"Original log lines (from `{report.source}`"
                   + (f"; only those of `{event.process.name}`, other processes' lines in "
                      "between are left out" if interleaved else "") + "):")
        out += ["", *_fenced(_numbered(numbers, lines))]
    else:
        where = "stdin" if report.source in _NOT_A_FILE else f"`{report.source}`"
        out.append(f"The log came from {where} and cannot be read again; the error as parsed:")
        out += ["", *_fenced([f"{event.line:>6} | {_trim(event.text, MAX_LINE_CHARS * 2)}"])]
    if len(event.text) > MAX_LINE_CHARS:  # the excerpt trims long lines: the message, whole
        out += ["", "<details><summary>The whole message</summary>", "",
                *_fenced(_wrapped(event.text)), "", "</details>"]
    origin = report.origins.get(event.id)
    if origin is not None:
        out += ["", f"{origin.product} source: {_inline(origin_sentence(origin))}."]
    return out


def _wrapped(text: str, width: int = 120) -> list[str]:
    """A long message as lines a reader can scroll: split at its own line breaks, then at
    spaces near `width` (a message such as the attention selector's is one 1,000-character
    line whose end, the Reasons list, is what the reader needs)."""
    import textwrap

    out: list[str] = []
    for line in text.splitlines() or [""]:
        out += textwrap.wrap(line, width, break_long_words=False, break_on_hyphens=False) or [""]
    return out


def _fix(report: Report) -> list[str]:
    match = report.signature
    if match is None:
        if report.verdict is Verdict.NO_FAILURE:
            return []  # nothing failed: there is nothing to fix, nor a signature to write
        return ["#### Suggested fix", "",
                "No known signature matches. (`logsleuth signatures new --from LOG` starts one.)"]
    facts = [f"`{e.detail}`" for e in match.evidence if e.part == "facts"]
    used = f"; facts used: {', '.join(facts)}" if facts else ""
    phase = f"; phase: {report.phase.phase.value}" if report.phase else ""
    source = "No signature matches; the error's message states the fix itself" \
        if match.kind is SignatureKind.MESSAGE else f"Signature `{match.id}` ({match.kind.value})"
    if match.kind is SignatureKind.FALLBACK:
        source = f"No signature knows this failure; `{match.id}` is the last resort for its class"
    if match.kind is SignatureKind.RELEASE:
        source = "No signature knows this failure; a later vLLM release no longer raises it"
    out = [f"#### Suggested fix: {match.title}", "",
           f"{source}, score {match.score:.2f}{used}{phase}", ""]
    caution = confidence_sentence(match)
    if caution is not None:
        out += [f"**{caution}**", ""]
    out.append(match.fix.strip())
    if match.references:
        out += ["", "References:", *[f"- {url}" for url in match.references]]
    return out


def _chain(report: Report) -> list[str]:
    summary = "Causal chain: why this is the root cause" if report.root_cause is not None \
        else "Why" if report.verdict is not Verdict.NO_FAILURE else "Details"
    out = [f"<details><summary>{summary}</summary>", ""]
    if report.root_cause is not None:
        steps = [report.root_cause, *report.symptoms]
        out.append(" → ".join(f"`{e.process.name}` line {e.line} `{e.exception}`"
                              for e in steps[:8]) + (" → …" if len(steps) > 8 else ""))
        out.append("")
    out += [f"- {escape(reason)}" for reason in report.reasons]
    out += [f"- {escape(sentence)}" for sentence in difference_lines(report)]
    if report.signature is not None:
        out += ["", "Signature evidence:", ""]
        out += [f"- {e.part}: {escape(e.detail)} ({e.score:.2f})"
                for e in report.signature.evidence]
    if report.notices:
        out += ["", "Notices:", "", *[f"- {escape(notice)}" for notice in report.notices]]
    if not any(out[2:]):
        return []  # nothing to unfold: no empty block
    out += ["", "</details>"]
    return out


def _excerpt_numbers(numbers: list[int]) -> list[int]:
    """The numbers to show, 0 standing for the elided middle of a long traceback."""
    if len(numbers) <= HEAD_LINES + TAIL_LINES + 1:
        return numbers
    return [*numbers[:HEAD_LINES], 0, *numbers[-TAIL_LINES:]]


def _numbered(numbers: Iterable[int], lines: dict[int, str]) -> list[str]:
    out = []
    for number in numbers:
        if number == 0:
            out.append("   ... | …")
        else:
            out.append(f"{number:>6} | {_trim(lines[number], MAX_LINE_CHARS)}")
    return out


def source_lines(report: Report) -> dict[int, str] | None:
    """The root cause's original lines, read again from the file and kept to its own process
    (vLLM interleaves the tracebacks of all workers); None for stdin."""
    from logsleuth.tokenize import parse_line

    event = report.root_cause
    if event is None or report.source in _NOT_A_FILE or not Path(report.source).is_file():
        return None
    first, last = event.first_line, max(event.last_line, event.line)
    if last - first > MAX_SPAN:
        wanted = {*range(first, first + HEAD_LINES * 20), *range(last - TAIL_LINES * 20, last + 1)}
    else:
        wanted = set(range(first, last + 1))
    try:
        found = read_lines(report.source, wanted)
    except (OSError, LogsleuthError):
        return None
    own = {n: text for n, text in found.items()
           if parse_line(text, n).process == event.process}
    own[event.line] = found.get(event.line, event.text)
    return own


def read_lines(path: str, wanted: set[int]) -> dict[int, str]:
    """Lines `wanted` (1-based, counting `\\n` as the report does) of a log file, plain or gzip,
    with colour codes removed. The numbers are the file's, as the report's are (inputorder.py):
    a line whose rows a hard wrap cut is read whole, at the row it begins on (its
    other rows are not lines of their own); a newest-first download's line k of N read is
    the file's line N + 1 - k."""
    from logsleuth.read import open_input
    from logsleuth.tokenize import clean

    found: dict[int, str] = {}
    if not wanted:
        return found
    last = max(wanted)
    log = open_input(path)
    read: list[bytes] = []  # a newest-first download's lines: numbered once all are read
    try:
        number = 0
        for block in log.blocks():
            pieces = block.split(b"\n")
            if block.endswith(b"\n"):
                pieces.pop()
            for raw in pieces:
                number += 1
                if log.last_line_first:
                    read.append(raw)
                    continue
                row = log.rows.first(number) if log.rows is not None else number
                if row in wanted:
                    found[row] = clean(raw.decode("utf-8", "replace"))
                if row >= last:
                    return found
    finally:
        log.close()
    for at, raw in enumerate(read):
        if len(read) - at in wanted:
            found[len(read) - at] = clean(raw.decode("utf-8", "replace"))
    return found


def _fenced(lines: list[str]) -> list[str]:
    fence = "`" * max(3, _longest_backticks(lines) + 1)
    return [f"{fence}text", *lines, fence]


def _longest_backticks(lines: list[str]) -> int:
    best = 0
    for line in lines:
        run = 0
        for char in line:
            run = run + 1 if char == "`" else 0
            best = max(best, run)
    return best


def _trim(text: str, limit: int) -> str:
    text = text.rstrip()
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _code_cell(text: str) -> str:
    return _inline(_trim(text, 200)).replace("|", "\\|").replace("\n", " ")


def _cell(text: str) -> str:
    return escape(_trim(text, 200)).replace("\n", " ")


_MARKDOWN_SPECIAL = str.maketrans({c: f"\\{c}" for c in "\\`*_[]|#~"})


def escape(text: str) -> str:
    """Log text as Markdown prose that shows exactly as printed: `<script>` stays text,
    `__init__` does not turn bold, a `|` does not split a table cell."""
    import html

    return html.escape(text, quote=False).translate(_MARKDOWN_SPECIAL)


def _inline(text: str) -> str:
    return text.replace("`", "'")


def _at(line: int | None) -> str:
    return f" (line {line})" if line else ""
