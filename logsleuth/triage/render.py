"""A triage result as a rich table, JSON (`logsleuth.triage/1`), JSON lines, CSV or Markdown.

JSON holds the summary, every group and every case; JSON lines one case per line; the table,
CSV and Markdown one row per group. Fields may be added, never renamed or dropped.
"""

from __future__ import annotations

import csv
import io
import json
import os
from datetime import datetime, timezone
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from logsleuth.model import Verdict
from logsleuth.triage.model import Case, Group, GroupKind, Status, TriageResult

if TYPE_CHECKING:
    from rich.console import Console

SCHEMA = "logsleuth.triage/1"
EXAMPLES = 3  # example files per group in the table, CSV and Markdown

SECTION_TITLES = {
    GroupKind.SIGNATURE: "Known failures, by signature",
    GroupKind.UNMATCHED: "No signature yet, by masked root cause (a start for a new signature)",
    GroupKind.NO_FAILURE: "Nothing failed",
    GroupKind.UNREADABLE: "Could not be read",
    GroupKind.CRASHED: "logsleuth failed on these (please report)",
}


def iso_time(ns: int | None) -> str | None:
    """A file time as UTC ISO 8601, to the second."""
    if ns is None:
        return None
    moment = datetime.fromtimestamp(ns / 1e9, tz=timezone.utc).replace(microsecond=0)
    return moment.isoformat().replace("+00:00", "Z")


def summary(result: TriageResult) -> dict[str, int]:
    """Counts of the run: logs, each verdict, each failed status, read and cached."""
    out = {"logs": len(result.cases)}
    out.update({verdict.value: result.count(verdict) for verdict in Verdict})
    out.update({status.value: result.count(status) for status in Status
                if status is not Status.REPORTED})
    out.update({"groups": len(result.groups), "read": result.read, "cached": result.cached})
    return out


def case_to_dict(case: Case) -> dict[str, Any]:
    cause = case.cause
    return {
        "path": case.path,
        "status": case.status.value,
        "verdict": case.verdict.value if case.verdict else None,
        "fingerprint": case.fingerprint,
        "kind": case.kind.value,
        "signature": {"id": case.signature.id, "title": case.signature.title,
                      "score": case.signature.score} if case.signature else None,
        "cause": {"exception": cause.exception, "message": cause.message,
                  "process": cause.process, "line": cause.line, "source": cause.source.value,
                  "time": cause.time} if cause else None,
        "error": case.error,
        "mtime": iso_time(case.file.mtime_ns) if case.file else None,
        "size": case.file.size if case.file else None,
        "lines_read": case.lines_read,
        "notices": case.notices,
    }


def group_to_dict(group: Group) -> dict[str, Any]:
    verdicts: dict[str, int] = {}
    for case in group.cases:
        key = case.verdict.value if case.verdict else case.status.value
        verdicts[key] = verdicts.get(key, 0) + 1
    first = group.cases[0]
    return {
        "kind": group.kind.value,
        "fingerprint": group.fingerprint,
        "title": group.title,
        "signature": first.signature.id if first.signature else None,
        "count": group.count,
        "verdicts": verdicts,
        "first_seen": iso_time(group.first_seen_ns),
        "last_seen": iso_time(group.last_seen_ns),
        "seen_from": "log" if group.seen_in_logs else "file",
        "paths": [case.path for case in group.cases],
    }


def to_json(result: TriageResult, *, indent: int | None = 2) -> str:
    data = {"schema": SCHEMA, "roots": list(result.roots), "summary": summary(result),
            "groups": [group_to_dict(g) for g in result.groups],
            "cases": [case_to_dict(c) for c in result.cases], "notices": list(result.notices)}
    return json.dumps(data, indent=indent, ensure_ascii=False)


def to_jsonl(result: TriageResult) -> str:
    return "".join(json.dumps(case_to_dict(c), ensure_ascii=False) + "\n" for c in result.cases)


CSV_COLUMNS = ("kind", "fingerprint", "title", "count", "first_seen", "last_seen", "examples")


def to_csv(result: TriageResult, *, examples: int = EXAMPLES) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(CSV_COLUMNS)
    for group in result.groups:
        writer.writerow([group.kind.value, group.fingerprint, group.title, group.count,
                         iso_time(group.first_seen_ns) or "", iso_time(group.last_seen_ns) or "",
                         " ".join(c.path for c in group.cases[:examples])])
    return out.getvalue()


def to_markdown(result: TriageResult, *, examples: int = EXAMPLES) -> str:
    root = _common_root(result)
    lines = [f"# logsleuth triage: {_headline(result)}", ""]
    if root:
        lines += [f"Paths are relative to {_code(root)}.", ""]
    for kind, groups in _sections(result):
        lines += [f"## {SECTION_TITLES[kind]}", "",
                  "| count | signature / fingerprint | first seen | last seen | examples |",
                  "|---:|---|---|---|---|"]
        for group in groups:
            shown = ", ".join(_code(_relative(c.path, root)) for c in group.cases[:examples])
            lines.append(f"| {group.count} | {_md_cell(_label(group))} | "
                         f"{iso_time(group.first_seen_ns) or ''} | "
                         f"{iso_time(group.last_seen_ns) or ''} | {shown} |")
        lines.append("")
    lines += [f"- {_md_cell(notice)}" for notice in result.notices]
    return "\n".join(lines).rstrip() + "\n"


def render_table(result: TriageResult, console: Console, *, examples: int = EXAMPLES) -> None:
    """The grouped table, one section per kind of group, with rich."""
    from rich.table import Table
    from rich.text import Text

    root = _common_root(result)
    where = f" under {root}" if root else ""
    console.print(Text(f"logsleuth triage{where}: {_headline(result)}", style="bold"))
    for kind, groups in _sections(result):
        table = Table(title=SECTION_TITLES[kind], title_justify="left", title_style="bold",
                      show_lines=True)
        table.add_column("n", justify="right")
        table.add_column("signature / fingerprint", ratio=3, overflow="fold")
        table.add_column("seen (UTC)", no_wrap=True)
        table.add_column("examples", ratio=2, overflow="fold")
        for group in groups:
            label = Text(group.fingerprint.partition(":")[2], style="bold") \
                if group.kind is GroupKind.SIGNATURE else Text(group.title)
            if group.kind is GroupKind.SIGNATURE:
                label.append(f"\n{group.title}", style="dim")
            shown = [_relative(c.path, root) for c in group.cases[:examples]]
            if group.count > examples:
                shown.append(f"(+{group.count - examples} more)")
            table.add_row(str(group.count), label, _seen(group), Text("\n".join(shown)))
        console.print(table)
    for notice in result.notices:
        console.print(Text(f"note: {notice}", style="yellow"))


def _label(group: Group) -> str:
    if group.kind is GroupKind.SIGNATURE:
        return f"{group.fingerprint.partition(':')[2]}: {group.title}"
    return group.title


def _headline(result: TriageResult) -> str:
    counts = summary(result)
    parts = [_counted(counts['logs'], "log")]
    parts += [f"{counts[key]} {key}" for key in
              ("failure", "root_cause_missing", "no_failure", "unreadable", "crashed")
              if counts[key]]
    return ", ".join(parts) + f" in {_counted(counts['groups'], 'group')} (read " \
                              f"{counts['read']}, cached {counts['cached']})"


def _counted(count: int, noun: str) -> str:
    """`1 log`, `2 logs`."""
    return f"{count} {noun}" if count == 1 else f"{count} {noun}s"


def _sections(result: TriageResult) -> list[tuple[GroupKind, list[Group]]]:
    return [(kind, [g for g in result.groups if g.kind is kind]) for kind in GroupKind
            if any(g.kind is kind for g in result.groups)]


def _common_root(result: TriageResult) -> str:
    paths = [case.path for case in result.cases]
    if len(paths) < 2:
        return os.path.dirname(paths[0]) if paths else ""
    return os.path.commonpath(paths)


def _relative(path: str, root: str) -> str:
    return os.path.relpath(path, root) if root else path


def _seen(group: Group) -> str:
    first, last = iso_time(group.first_seen_ns), iso_time(group.last_seen_ns)
    if first is None or last is None:
        return "-"
    first, last = first[:16].replace("T", " "), last[:16].replace("T", " ")
    return first if first == last else f"{first}\n{last}"


def _md_cell(text: str) -> str:
    from logsleuth.render.markdown import escape

    return escape(text).replace("\n", " ")


def _code(text: str) -> str:
    """A path as a code span that survives any backticks and pipes in it."""
    fence = "``" if "`" in text else "`"
    return f"{fence} {text} {fence}".replace("|", "\\|") if fence == "``" else \
        f"`{text}`".replace("|", "\\|")


def to_junit(result: TriageResult, *, fix_of: Callable[[str], str | None] | None = None) -> str:
    """JUnit XML, which CI dashboards read: one test case per log; a failing log is a failed
    test whose message is its root cause and whose text holds the fix; an unreadable log, or
    one logsleuth failed on, is an error."""
    from xml.etree import ElementTree as ET

    failed = sum(1 for c in result.cases if c.verdict in (Verdict.FAILURE,
                                                          Verdict.ROOT_CAUSE_MISSING))
    errors = sum(1 for c in result.cases if c.status is not Status.REPORTED)
    suite = ET.Element("testsuite", name="logsleuth triage", tests=str(len(result.cases)),
                       failures=str(failed), errors=str(errors), skipped="0")
    for case in result.cases:
        test = ET.SubElement(suite, "testcase", classname=_junit_class(case), name=case.path)
        if case.status is not Status.REPORTED:
            ET.SubElement(test, "error", message=case.error or case.status.value,
                          type=case.status.value)
        elif case.verdict in (Verdict.FAILURE, Verdict.ROOT_CAUSE_MISSING):
            cause = case.cause
            message = f"{cause.exception}: {cause.message}" if cause else case.fingerprint
            node = ET.SubElement(test, "failure", message=message[:1000],
                                 type=case.verdict.value if case.verdict else "failure")
            node.text = _junit_text(case, fix_of)
    ET.indent(suite)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(suite, encoding="unicode") \
        + "\n"


def _junit_class(case: Case) -> str:
    if case.signature is not None:
        return f"signature.{case.signature.id}"
    return case.kind.value


def _junit_text(case: Case, fix_of: Callable[[str], str | None] | None) -> str:
    lines = []
    if case.cause is not None:
        lines.append(f"{case.cause.exception} in {case.cause.process}, line {case.cause.line} "
                     f"({case.cause.source.value})")
        lines.append(case.cause.message)
    if case.signature is not None:
        lines.append(f"\nKnown failure: {case.signature.title} [{case.signature.id}]")
        fix = fix_of(case.signature.id) if fix_of else None
        lines.append(f"\nFix:\n{fix}" if fix else
                     f"Fix: logsleuth signatures show {case.signature.id}")
    else:
        lines.append("\nNo signature knows this failure yet.")
    return "\n".join(lines)
