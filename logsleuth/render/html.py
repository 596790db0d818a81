"""One self-contained HTML report: verdict, root cause with its whole message and log excerpt,
fix, symptoms, environment, requested vs effective settings, the causal graph and the timeline.

Everything is inline (styles, SVG): the page needs no network and works offline as a CI
artifact. Log text is data, never markup: every piece of it goes through `html.escape`, and the
fix's Markdown is rendered with raw HTML disabled.
"""

from __future__ import annotations

from collections.abc import Sequence
from html import escape

from logsleuth.model import ErrorEvent, Report, Verdict
from logsleuth.render.markdown import source_lines
from logsleuth.render.text import (confidence_sentence, difference_lines, environment,
                                   no_failure_sentence)

_VERDICT = {Verdict.FAILURE: ("Failure", "#c00000"),
            Verdict.ROOT_CAUSE_MISSING: ("Failure, root cause not in the log", "#b26b00"),
            Verdict.NO_FAILURE: ("No failure", "#2e7d32")}
_STYLE = """
body{font-family:-apple-system,Segoe UI,Helvetica,Arial,sans-serif;margin:24px auto;max-width:1200px;
color:#1d1d1d;line-height:1.45;padding:0 16px}
h1{font-size:22px;margin:0 0 4px} h2{font-size:17px;margin:28px 0 8px;border-bottom:1px solid #ddd}
.verdict{display:inline-block;color:#fff;padding:3px 10px;border-radius:4px;font-weight:600}
.meta{color:#666;font-size:13px} pre{background:#f6f8fa;padding:10px;overflow-x:auto;
font-size:12.5px;border-radius:6px;white-space:pre-wrap;word-break:break-word}
.exc{font-weight:700;color:#b00020} table{border-collapse:collapse;font-size:13.5px}
td,th{padding:3px 10px;border-bottom:1px solid #eee;text-align:left;vertical-align:top}
.fix{background:#f1f8f1;border-left:4px solid #2e7d32;padding:4px 16px;border-radius:4px}
.picture{overflow-x:auto;border:1px solid #eee;border-radius:6px;padding:6px}
.small{font-size:12.5px;color:#555} code{background:#f0f0f0;padding:0 3px;border-radius:3px}
"""


def _bullets(title: str, items: Sequence[str]) -> list[str]:
    """A titled bullet list of escaped sentences; nothing when there are none."""
    if not items:
        return []
    return [f"<h2>{escape(title)}</h2><ul>", *(f"<li>{escape(item)}</li>" for item in items),
            "</ul>"]


def render_html(report: Report, *, graph_svg: str | None = None,
                timeline_svg: str | None = None, footer: str | None = None) -> str:
    """The report as a standalone HTML page."""
    label, colour = _VERDICT[report.verdict]
    body = [f"<h1>logsleuth report</h1><p><span class=\"verdict\" id=\"verdict\" "
            f"style=\"background:{colour}\">{escape(label)}</span> "
            f"<span class=\"meta\">{escape(report.source)} · {report.lines_read:,} lines</span></p>"]
    body += _root_cause(report)
    body += _fix(report)
    if report.symptoms:
        body.append("<h2>Symptoms</h2><p class=\"small\">Errors that only follow from "
                    "the root cause.</p><table><tr><th>line</th><th>process</th><th>error</th>"
                    "</tr>")
        body += [f"<tr><td>{e.line}</td><td>{escape(e.process.label)}</td>"
                 f"<td>{escape(_short(e.text, 300))}</td></tr>" for e in report.symptoms]
        body.append("</table>")
    body += _bullets("Why this one" if report.verdict is not Verdict.NO_FAILURE
                     else "Refused requests", report.reasons)
    if graph_svg:
        body.append(f"<h2>Causal graph</h2><div class=\"picture\">{graph_svg}</div>")
    if timeline_svg:
        body.append(f"<h2>Timeline</h2><div class=\"picture\">{timeline_svg}</div>")
    rows = environment(report.facts)
    if rows:
        body.append("<h2>Environment</h2><table>")
        body += [f"<tr><th>{escape(label)}</th><td>{escape(value)}</td></tr>"
                 for _, label, value in rows]
        body.append("</table>")
    if report.config_differences:
        body += _bullets("Requested vs effective", difference_lines(report))
    body += _bullets("Notices", report.notices)
    if footer:
        body.append(f"<p class=\"small\">{escape(footer)}</p>")
    title = escape(f"logsleuth: {label} in {report.source}")
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
            f"<title>{title}</title><style>{_STYLE}</style></head><body>\n"
            + "\n".join(body) + "\n</body></html>\n")


def _root_cause(report: Report) -> list[str]:
    event = report.root_cause
    if event is None:
        if report.verdict is Verdict.NO_FAILURE:
            return [f"<h2>Root cause</h2><p>{escape(no_failure_sentence(report))}</p>"]
        out = ["<h2>Root cause</h2><p>The log shows a failure but not its cause. Where to look:"
               "</p><ul>"]
        out += [f"<li>{escape(hint)}</li>" for hint in report.look_for]
        return [*out, "</ul>"]
    out = ["<h2>Root cause</h2>", f"<p id=\"root-cause\"><span class=\"exc\">"
           f"{escape(event.exception)}</span> in <code>{escape(event.process.label)}</code>, "
           f"line {event.line}{_span(event)}</p>",
           f"<pre id=\"root-message\">{escape(event.text)}</pre>"]
    lines = source_lines(report)
    if lines:
        out.append("<details><summary>The original log lines</summary><pre>")
        out += [f"{number:>6} | {escape(lines[number])}" for number in sorted(lines)]
        out.append("</pre></details>")
    return out


def _fix(report: Report) -> list[str]:
    match = report.signature
    if match is None:
        if report.verdict is Verdict.NO_FAILURE:
            return []
        return ["<h2>Fix</h2><p>No known signature matches this failure. "
                "<code>logsleuth signatures new --from LOG</code> starts one.</p>"]
    from markdown_it import MarkdownIt

    fix = MarkdownIt("commonmark", {"html": False}).render(match.fix)
    out = [f"<h2>Fix: {escape(match.title)}</h2>",
           f"<p class=\"small\">signature <code>{escape(match.id)}</code>, score "
           f"{match.score:.2f}</p>"]
    caution = confidence_sentence(match)
    if caution is not None:
        out.append(f"<p><strong>{escape(caution)}</strong></p>")
    out.append(f"<div class=\"fix\" id=\"fix\">{fix}</div>")
    if match.references:
        out.append("<p class=\"small\">References: " + " · ".join(
            f"<a href=\"{escape(url)}\">{escape(url)}</a>" for url in match.references) + "</p>")
    return out


def _span(event: ErrorEvent) -> str:
    if event.first_line == event.last_line:
        return ""
    return f" (traceback lines {event.first_line}-{event.last_line})"


def _short(text: str, limit: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"
