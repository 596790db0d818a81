"""Human output with rich: the root cause first, then why, then the fix, then the symptoms."""

from __future__ import annotations

import re

from rich.console import Console, Group
from rich.padding import Padding
from rich.table import Table
from rich.text import Text

from logsleuth.model import Confidence, ErrorEvent, Match, Report, SignatureKind, Verdict
from logsleuth.render.origin import advice_to_show, origin_sentence

MAX_MESSAGE_CHARS = 400
INNER_FRAMES = 4
# The environment facts a reader looks for first, in reading order, with their labels. Other
# facts follow in name order; `<name>.requested` and the raw `non_default_args` only with -v.
ENVIRONMENT = (("vllm_version", "vLLM"), ("platform", "platform"), ("gpu_name", "GPU"),
               ("compute_capability", "compute capability"), ("python_version", "Python"),
               ("cuda_version", "CUDA"), ("model", "model"), ("served_model_name", "served as"),
               ("dtype", "dtype"), ("quantization", "quantization"),
               ("kv_cache_dtype", "kv-cache dtype"), ("attention_backend", "attention backend"),
               ("tensor_parallel_size", "TP"), ("pipeline_parallel_size", "PP"),
               ("data_parallel_size", "DP"), ("expert_parallel", "EP"),
               ("max_model_len", "max-model-len"),
               ("gpu_memory_utilization", "gpu-memory-utilization"),
               ("max_num_seqs", "max-num-seqs"), ("kv_cache_tokens", "KV cache tokens"),
               ("kv_cache_memory", "KV cache memory"))
ARGS_FACT = "non_default_args"


def environment(facts: dict[str, object], *,
                verbose: bool = False) -> list[tuple[str, str, str]]:
    """(fact name, label, value) rows, the well-known facts first. A value the command line asked
    for differently carries it: `fp8_e4m3 (requested auto)`."""
    labels = dict(ENVIRONMENT)
    names = [n for n, _ in ENVIRONMENT if n in facts]
    names += sorted(n for n in facts if n not in labels and n != ARGS_FACT
                    and (verbose or not n.endswith(".requested")))
    rows = []
    for name in names:
        value = str(facts[name])
        asked = facts.get(f"{name}.requested")
        if asked is not None and str(asked).lower() != value.lower():
            value += f" (requested {asked})"
        rows.append((name, labels.get(name, name), value))
    args = facts.get(ARGS_FACT)
    if verbose and isinstance(args, dict):
        rows.append((ARGS_FACT, "non-default args",
                     ", ".join(f"{k}={v!r}" for k, v in args.items())))
    return rows


def confidence_sentence(match: Match) -> str | None:
    """What a reader must know about advice matched on a symptom alone (None otherwise)."""
    if match.confidence is Confidence.HIGH:
        return None
    if match.target != "symptom":
        return ("Low confidence: this class's signature fits the error only in part (see its "
                "evidence: another exception type, phase or call path than it names), so its "
                "steps are the likeliest, not a diagnosis.")
    return ("Low confidence: matched on the symptoms only. The error that caused them is not in "
            "the log, so this is the likeliest cause of what the log shows, not a diagnosis; "
            "find the first error to be sure.")


def no_failure_sentence(report: Report) -> str:
    """What a report without a root cause or a failure says: a healthy log, or the wrong file."""
    if report.recognised:
        return "Nothing in this log failed."
    why = "no line of this input looks like log output" if report.lines_read else \
        "the input is empty"
    return f"Nothing to explain: {why}."


def difference_lines(report: Report) -> list[str]:
    """One sentence per setting the engine did not take from the command line."""
    out = []
    for d in report.config_differences:
        asked = f" (line {d.requested_line})" if d.requested_line else ""
        ran = f" (line {d.effective_line})" if d.effective_line else ""
        out.append(f"{d.name}: requested {d.requested}{asked}, but the engine ran "
                   f"{d.effective}{ran}")
    return out
_VERDICT_STYLE = {Verdict.FAILURE: ("FAILURE", "bold white on red"),
                  Verdict.ROOT_CAUSE_MISSING: ("ROOT CAUSE NOT IN LOG", "bold black on yellow"),
                  Verdict.NO_FAILURE: ("NO FAILURE", "bold black on green")}


def runs_lines(report: Report) -> list[str]:
    """A log with several starts of vLLM: how the explained run compares with the others."""
    runs = report.runs
    explained = next((r for r in runs if r.explained), runs[-1])
    out: list[str] = []
    if explained.verdict is not Verdict.NO_FAILURE:
        if explained.same_failure > 1:
            out.append(f"the same failure in {explained.same_failure} of {len(runs)} runs; "
                       f"this report explains the last of them (from line "
                       f"{explained.start_line})")
        else:  # "the last of them" of one run reads as a miscount
            out.append(f"a failure in 1 of {len(runs)} runs; this report explains it (from "
                       f"line {explained.start_line})")
    others = len({r.fingerprint for r in runs if r.fingerprint} - {explained.fingerprint})
    if others:
        out.append(f"{others} other way(s) of failing in the other runs (--format json: runs)")
    if runs[-1] is not explained and runs[-1].verdict is Verdict.NO_FAILURE:
        out.append(f"the last run (from line {runs[-1].start_line}) did not fail")
    if not out:
        out.append(f"none of the {len(runs)} runs failed")
    return out


def _item(text: Text) -> Padding:
    """A list item (`text` starts with "- ") indented two columns; a line it wraps onto at a
    terminal's width hangs under its first word, not under the dash. Unwrapped (a pipe, a
    file) it prints as the one line it is."""
    grid = Table.grid()
    grid.add_column(no_wrap=True)
    grid.add_column()
    grid.add_row(text[:2], text[2:])
    return Padding(grid, (0, 2), expand=False)


def _trim(text: str, limit: int = MAX_MESSAGE_CHARS) -> str:
    first = text.strip()
    return first if len(first) <= limit else first[: limit - 1] + "…"


def _where(event: ErrorEvent) -> Text:
    text = Text()
    text.append(event.process.name, style="bold cyan")
    if event.process.pid is not None:
        text.append(f" pid={event.process.pid}", style="cyan")
    text.append(f"  line {event.line}", style="bold")
    if event.first_line != event.line or event.last_line != event.line:
        text.append(f" (lines {event.first_line}-{event.last_line})", style="dim")
    if event.time:
        text.append(f"  {event.time}", style="dim")
    return text


def _event_block(event: ErrorEvent, *, frames: int, whole: bool = False) -> Group:
    head = Text()
    head.append(event.exception, style="bold red")
    head.append("  ")
    head.append_text(_where(event))
    message = event.message.strip() if whole else _trim(event.message)
    # a type printed alone (`raise AssertionError`) says so rather than leave a blank line
    said = Text(message, style="red") if message else Text("(no message)", style="dim")
    parts: list[Text] = [head, said]
    if message != event.message.strip():
        parts.append(Text(f"(message trimmed; -v shows it whole, as does line {event.line})",
                          style="dim"))
    if event.title:
        parts.append(Text(f"logged as: {event.title}", style="dim"))
    if frames and event.frames:
        parts.append(Text("innermost frames:", style="dim"))
        for frame in event.frames[-frames:][::-1]:
            parts.append(Text(f"  {frame.file}:{frame.line} in {frame.function}", style="dim"))
    return Group(*parts)


def unwrapped_width(report: Report) -> int:
    """A console width at which nothing of this report wraps (for pipes and files, where a
    hard wrap would split paths and ids that a reader greps for or copies)."""
    texts = [report.source, *(e.text for e in (report.root_cause, *report.symptoms,
                                                *report.survived) if e is not None)]
    if report.signature is not None:
        texts += [report.signature.title, *_paragraph_lines(report.signature.fix),
                  "  ".join(report.signature.references)]
    texts += [str(value) for value in report.facts.values()]
    texts += [*report.notices, *report.reasons, *report.look_for]
    return min(max(120, *(len(t) + 40 for t in texts)), 1 << 16)


_BLOCK_START = re.compile(r"\s*(?:[-*+>#|]|\d+[.)]\s|```)")


def _paragraph_lines(fix: str) -> list[str]:
    """The fix's lines as Markdown prints them: a line that goes on a paragraph or a list item
    (a soft break, as a YAML fix and the release evidence are written) joins the one above."""
    lines: list[str] = []
    for line in fix.splitlines():
        if lines and lines[-1].strip() and line.strip() and not _BLOCK_START.match(line):
            lines[-1] += " " + line.strip()
        else:
            lines.append(line)
    return lines


def render_text(report: Report, console: Console, *, verbose: bool = False) -> None:
    """Print the report. Colour follows the console (rich honours NO_COLOR and non-TTYs)."""
    label, style = _VERDICT_STYLE[report.verdict]
    title = Text()
    title.append(f" {label} ", style=style)
    title.append(f"  {report.source}  ({report.lines_read:,} lines)", style="dim")
    console.print(title)

    if report.root_cause is not None:
        console.print(Text("\nRoot cause", style="bold underline"))
        console.print(Padding(_event_block(report.root_cause, frames=INNER_FRAMES,
                                                   whole=verbose), (0, 2), expand=False))
        source = report.origins.get(report.root_cause.id)
        if source is not None:
            where = f"{source.product} source: {origin_sentence(source)}"
            console.print(Padding(Text(where, style="dim"), (0, 2), expand=False))
    elif report.verdict is Verdict.ROOT_CAUSE_MISSING:
        console.print(Text("\nThe log shows a failure but not its cause.", style="bold"))
        if report.failed_processes:
            names = ", ".join(p.label for p in report.failed_processes)
            console.print(Padding(Text(f"processes that failed: {names}"), (0, 2), expand=False))
    else:  # the wrong file (exit 3) is no healthy log
        console.print(Text(f"\n{no_failure_sentence(report)}",
                           style="green" if report.recognised else "yellow"))

    if report.phase is not None and report.verdict is not Verdict.NO_FAILURE:
        console.print(Padding(Text(f"phase: {report.phase.phase.value} "
                                   f"({report.phase.source}: {report.phase.detail})",
                                   style="dim"), (0, 2)))
    if len(report.runs) > 1:
        console.print(Text("\nRuns", style="bold underline"))
        for sentence in runs_lines(report):
            console.print(_item(Text(f"- {sentence}")))
    if report.reasons:
        # a run that did not fail has reasons only for the requests its server refused
        heading = "Why this one" if report.verdict is not Verdict.NO_FAILURE \
            else "Refused requests"
        console.print(Text(f"\n{heading}", style="bold underline"))
        for reason in report.reasons:
            console.print(_item(Text(f"- {reason}")))
    if report.config_differences:
        console.print(Text("\nRequested vs effective", style="bold underline"))
        for sentence in difference_lines(report):
            console.print(_item(Text(f"- {sentence}", style="bold yellow")))
    if report.look_for:
        console.print(Text("\nWhere to look", style="bold underline"))
        for hint in report.look_for:
            console.print(_item(Text(f"- {hint}")))

    if report.signature is not None:
        match = report.signature
        head = Text("\nFix: ", style="bold underline")
        head.append(match.title, style="bold green")
        last = ": the last resort for its class" if match.kind is SignatureKind.FALLBACK else ""
        head.append(f"  [{match.kind.value} {match.id}{last}, score {match.score:.2f}]"
                    if match.kind is not SignatureKind.MESSAGE else
                    "  [no signature matched: the error's message states the fix]", style="dim")
        console.print(head)
        caution = confidence_sentence(match)
        if caution is not None:
            console.print(Padding(Text(caution, style="yellow"), (0, 2), expand=False))
        from rich.markdown import Markdown  # markdown-it (~0.1 s): only to print a fix

        console.print(Padding(Markdown(match.fix), (0, 2), expand=False))
        if match.references:
            console.print(Padding(Text("References: " + "  ".join(match.references),
                                       style="dim"), (0, 2), expand=False))
    elif report.verdict is not Verdict.NO_FAILURE:
        console.print(Text("\nNo known signature matches this failure.", style="yellow"))
        console.print(Padding(Text("Add one: logsleuth signatures new --from LOG", style="dim"),
                              (0, 2), expand=False))
    own_advice = advice_to_show(report)  # the fix above when no signature matched
    if own_advice:
        advice, *settings = own_advice
        console.print(Text("\nThe message's own advice", style="bold underline"))
        if advice:
            console.print(Padding(Text(advice, style="green"), (0, 2), expand=False))
        for setting in settings:
            console.print(_item(Text(f"- {setting}")))
    # beside a last resort, the near misses are worth a look as they were with no match at all
    weak = report.signature is None \
        or report.signature.kind in (SignatureKind.FALLBACK, SignatureKind.RELEASE)
    if report.alternatives and (verbose or weak):
        console.print(Text("\nAlso considered", style="bold underline"))
        for alt in report.alternatives:
            console.print(_item(Text(f"- {alt.id} ({alt.kind.value}, {alt.score:.2f}): "
                                     f"{alt.title}")))

    if report.symptoms:
        # a consequence may be printed before its cause (an UnboundLocalError above the error that
        # left the variable unassigned), so the heading does not say "later"
        heading = "Symptoms (errors that follow from it)" if report.root_cause else \
            "Errors in the log (symptoms only)"
        console.print(Text(f"\n{heading}", style="bold underline"))
        shown = report.symptoms if verbose else report.symptoms[:6]
        for event in shown:
            line = Text(f"- line {event.line} ", style="bold")
            line.append(event.process.name, style="cyan")
            line.append(f"  {_trim(event.text, 140)}")
            if report.root_cause and event.line < report.root_cause.line:
                line.append("  (printed above the root cause)", style="dim")
            console.print(_item(line))
        if len(report.symptoms) > len(shown):
            console.print(Padding(Text(f"... {len(report.symptoms) - len(shown)} more "
                                       "(--verbose)", style="dim"), (0, 2), expand=False))
    if verbose and report.survived:
        console.print(Text("\nErrors the server survived or that belong to a shutdown",
                           style="bold underline"))
        for event in report.survived:
            copies = f"  ({event.occurrences:,} times, the last at line " \
                f"{event.last_occurrence})" if event.occurrences > 1 else ""
            console.print(_item(Text(f"- line {event.line} {event.process.name}  "
                                     f"{_trim(event.text, 140)}{copies}")))
    rows = environment(report.facts, verbose=verbose)
    if rows:
        console.print(Text("\nEnvironment", style="bold underline"))
        width = max(len(label) for _, label, _ in rows)
        for name, label, value in rows:
            line = Text(f"{label:<{width}}  ", style="dim")
            line.append(_trim(value, 300))
            origin = report.fact_origins.get(name)
            if verbose and origin is not None:
                line.append(f"  (line {origin.line})", style="dim")
            console.print(Padding(line, (0, 2), expand=False))
    if report.notices:
        console.print(Text("\nNotices", style="bold yellow"))
        for notice in report.notices:
            console.print(_item(Text(f"- {notice}", style="yellow")))
