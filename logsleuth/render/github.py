"""GitHub Actions workflow commands: the root cause as an `::error` annotation on its log line,
symptoms as `::warning`, the fix as a `::notice`. A workflow step that runs
`logsleuth explain --format github vllm.log` shows them on the run's summary page."""

from __future__ import annotations

from logsleuth.model import ErrorEvent, Report, Verdict

_MAX_SYMPTOMS = 10  # GitHub shows at most ten warnings a step


def _data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _property(text: str) -> str:
    return _data(text).replace(":", "%3A").replace(",", "%2C")


def annotation(level: str, message: str, *, file: str | None = None, line: int | None = None,
               title: str | None = None) -> str:
    """One workflow command line, escaped as GitHub's runner expects."""
    props = []
    if file is not None:
        props.append(f"file={_property(file)}")
    if line is not None:
        props.append(f"line={line}")
    if title is not None:
        props.append(f"title={_property(title)}")
    head = f"::{level} {','.join(props)}" if props else f"::{level}"
    return f"{head}::{_data(message)}"


def _event(level: str, event: ErrorEvent, source: str, what: str) -> str:
    return annotation(level, f"{event.exception}: {event.message.strip()}", file=source,
                      line=event.line, title=f"{what} ({event.process.label})")


def render_github(report: Report) -> str:
    """The report as workflow commands, one per line."""
    lines = []
    if report.root_cause is not None:
        lines.append(_event("error", report.root_cause, report.source, "vLLM root cause"))
    elif report.verdict is Verdict.ROOT_CAUSE_MISSING:
        lines.append(annotation("error", "the log shows a failure but not its cause: "
                                + "; ".join(report.look_for), file=report.source,
                                title="vLLM failure, root cause not in the log"))
    for event in report.symptoms[:_MAX_SYMPTOMS]:
        lines.append(_event("warning", event, report.source, "symptom"))
    if report.signature is not None:
        lines.append(annotation("notice", report.signature.fix, file=report.source,
                                title=f"Fix: {report.signature.title} [{report.signature.id}]"))
    for notice in report.notices:
        lines.append(annotation("notice", notice, file=report.source, title="logsleuth"))
    return "".join(line + "\n" for line in lines)
