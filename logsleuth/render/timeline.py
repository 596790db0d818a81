"""One lane per process with its key events and the failure: in the terminal (rich), as SVG, or
as an HTML page holding the SVG. The x axis is the log's line number, which orders events across
processes even where clocks or timestamps are missing."""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from xml.sax.saxutils import escape

from rich.console import Console
from rich.text import Text

from logsleuth.knowledge import Causality, default_causality
from logsleuth.model import ErrorEvent, Event, FactOrigin, Inference, Milestone, Process, Role
from logsleuth.render.graph import ROLE_COLOURS

MAX_PER_LANE = 14
# Facts that mark a start-up step of the process that printed them.
_FACT_EVENTS = {"vllm_version": "vLLM {value}", "non_default_args": "command line read",
                "model": "engine config ({value})", "platform": "platform {value}",
                "attention_backend": "attention backend {value}",
                "kv_cache_memory": "KV cache memory {value}",
                "kv_cache_tokens": "KV cache {value} tokens"}


class Mark(Enum):
    """What a point on a lane is."""

    STEP = "step"  # a start-up step read from a fact line
    MILESTONE = "milestone"  # ready, serving, hang, shutdown requested
    ERROR = "error"
    ROOT = "root_cause"


@dataclass(frozen=True, slots=True)
class LaneEvent:
    line: int
    label: str
    mark: Mark


@dataclass(frozen=True, slots=True)
class Lane:
    process: Process
    role: Role
    events: tuple[LaneEvent, ...]


@dataclass(frozen=True, slots=True)
class Timeline:
    lanes: tuple[Lane, ...]
    first_line: int
    last_line: int
    root_line: int | None


def build_timeline(events: list[Event], inference: Inference,
                   origins: dict[str, FactOrigin], facts: dict[str, object],
                   causality: Causality | None = None) -> Timeline:
    """Lanes in order of each process's first appearance."""
    know = causality or default_causality()
    per: dict[Process, list[LaneEvent]] = {}
    for name, template in _FACT_EVENTS.items():
        origin = origins.get(name)
        if origin is not None:
            per.setdefault(origin.process, []).append(
                LaneEvent(origin.line, template.format(value=_short(str(facts.get(name)), 30)),
                          Mark.STEP))
    for item in events:
        if isinstance(item, Milestone):
            per.setdefault(item.process, []).append(
                LaneEvent(item.line, f"phase {item.phase.value}" if item.phase else item.kind.value,
                          Mark.MILESTONE))
    root = inference.root_cause
    shown: set[int] = set()
    for event in (root, *inference.chain, *inference.symptoms):
        if isinstance(event, ErrorEvent) and event.id not in shown:
            shown.add(event.id)
            mark = Mark.ROOT if event is root else Mark.ERROR
            per.setdefault(event.process, []).append(
                LaneEvent(event.line, _short(event.text, 60), mark))
    first_error: dict[Process, ErrorEvent] = {}
    for item in events:
        if isinstance(item, ErrorEvent) and item.process not in first_error:
            first_error[item.process] = item
    for process, event in first_error.items():
        if event.id not in shown and (root is None or event.line <= max(
                [root.line, *(s.line for s in inference.symptoms)])):
            per.setdefault(process, []).append(LaneEvent(event.line, _short(event.text, 60),
                                                         Mark.ERROR))
    lanes = []
    for process, items in sorted(per.items(), key=lambda kv: min(e.line for e in kv[1])):
        items.sort(key=lambda e: (e.line, e.mark is not Mark.ROOT))
        items = _thin(items)
        lanes.append(Lane(process, know.role_of(process.name), tuple(items)))
    lines = [e.line for lane in lanes for e in lane.events] or [1]
    return Timeline(tuple(lanes), min(lines), max(lines), root.line if root else None)


def _thin(items: list[LaneEvent]) -> list[LaneEvent]:
    """Keep the failure and as many other events as fit, repeated milestones once."""
    seen: set[tuple[str, Mark]] = set()
    kept = []
    for item in items:
        key = (item.label, item.mark)
        if item.mark is Mark.MILESTONE and key in seen:
            continue
        seen.add(key)
        kept.append(item)
    if len(kept) <= MAX_PER_LANE:
        return kept
    must = [e for e in kept if e.mark is Mark.ROOT]
    rest = [e for e in kept if e.mark is not Mark.ROOT][: MAX_PER_LANE - len(must)]
    return sorted(must + rest, key=lambda e: e.line)


# Terminal --------------------------------------------------------------------------------------

_RICH_ROLE = {Role.API_SERVER: "blue", Role.ENGINE_CORE: "magenta", Role.WORKER: "dark_orange",
              Role.MAIN: "white", Role.OTHER: "white"}
_RICH_MARK = {Mark.STEP: ("·", "dim"), Mark.MILESTONE: ("◆", "green"),
              Mark.ERROR: ("✖", "red"), Mark.ROOT: ("✖", "bold white on red")}


def render_timeline_text(timeline: Timeline, console: Console, *, width: int = 48) -> None:
    """A bar per lane, then its events with their line numbers."""
    span = max(1, timeline.last_line - timeline.first_line)
    for lane in timeline.lanes:
        head = Text(lane.process.label, style=f"bold {_RICH_ROLE[lane.role]}")
        head.append(f"  ({lane.role.value})", style="dim")
        console.print(head)
        bar = ["─"] * (width + 1)
        for event in lane.events:
            at = round((event.line - timeline.first_line) / span * width)
            symbol = _RICH_MARK[event.mark][0]
            if bar[at] != "✖":
                bar[at] = symbol
        console.print(Text("  " + "".join(bar), style=_RICH_ROLE[lane.role]))
        for event in lane.events:
            symbol, style = _RICH_MARK[event.mark]
            line = Text(f"  {symbol} ", style=style)
            line.append(f"line {event.line:>6}  ", style="dim")
            line.append(("ROOT CAUSE  " if event.mark is Mark.ROOT else "") + event.label,
                        style=style if event.mark in (Mark.ROOT, Mark.ERROR) else "")
            console.print(line)
        console.print()


# SVG and HTML ----------------------------------------------------------------------------------

_LEFT, _PLOT_W, _TOP = 230, 900, 56
_LABEL_PX, _LEVEL_H, _MAX_LEVELS = 5.6, 13, 5  # px per character at font-size 10


def _place_labels(xs: list[tuple[float, str]]) -> list[int | None]:
    """A level (row above the lane) for each label so that no two labels on a level overlap;
    None when every level is taken there (the mark keeps its label as a tooltip)."""
    ends: list[float] = []  # per level: where its last label ends
    placed: list[int | None] = []
    for x, text in xs:
        start, stop = x - 3, x + len(text) * _LABEL_PX + 3
        level = next((i for i, end in enumerate(ends) if end < start), None)
        if level is None and len(ends) < _MAX_LEVELS:
            ends.append(stop)
            level = len(ends) - 1
        elif level is not None:
            ends[level] = stop
        placed.append(level)
    return placed


def timeline_svg(timeline: Timeline) -> str:
    """Lanes as horizontal bands; each event a mark at its line number, its label on the first
    free row above the lane, so labels of nearby events never print over each other."""
    span = max(1, timeline.last_line - timeline.first_line)

    def x_of(line: int) -> float:
        return _LEFT + (line - timeline.first_line) / span * _PLOT_W

    labelled = []
    for lane in timeline.lanes:
        items = [(x_of(e.line), _short(e.label, 40)) for e in lane.events]
        labelled.append((lane, items, _place_labels(items)))
    heights = [24 + _LEVEL_H * (1 + max((lv for lv in levels if lv is not None), default=0))
               for _, _, levels in labelled]
    width = _LEFT + _PLOT_W + 260
    height = _TOP + sum(heights) + 30
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
           f'viewBox="0 0 {width} {height}" font-family="Helvetica, Arial, sans-serif">',
           f'<rect width="{width}" height="{height}" fill="white"/>',
           f'<text x="10" y="18" font-size="12" fill="#555">log lines '
           f'{timeline.first_line}–{timeline.last_line}</text>']
    if timeline.root_line is not None:
        x = x_of(timeline.root_line)
        out.append(f'<line x1="{x}" y1="{_TOP - 12}" x2="{x}" y2="{height - 20}" '
                   f'stroke="#c00000" stroke-dasharray="5 3"/>')
        out.append(f'<text x="{x + 4}" y="{_TOP - 16}" font-size="11" fill="#c00000">'
                   f'root cause, line {timeline.root_line}</text>')
    top = float(_TOP)
    for (lane, items, levels), lane_h in zip(labelled, heights, strict=True):
        y = top + lane_h - 12  # the lane's line, its labels stacked above it
        colour = ROLE_COLOURS[lane.role]
        out.append(f'<g class="lane" data-process="{escape(lane.process.label)}">')
        out.append(f'<text x="10" y="{y + 4}" font-size="12" font-weight="bold" '
                   f'fill="{colour}">{escape(_short(lane.process.label, 30))}</text>')
        out.append(f'<line x1="{_LEFT}" y1="{y}" x2="{_LEFT + _PLOT_W}" y2="{y}" '
                   f'stroke="{colour}" stroke-width="3" opacity="0.5"/>')
        for event, (x, label), level in zip(lane.events, items, levels, strict=True):
            fill = {Mark.ROOT: "#c00000", Mark.ERROR: "#e45756", Mark.MILESTONE: "#54a24b",
                    Mark.STEP: "#999999"}[event.mark]
            radius = 7 if event.mark is Mark.ROOT else 4
            out.append(f'<circle class="{event.mark.value}" cx="{x:.1f}" cy="{y}" r="{radius}" '
                       f'fill="{fill}"><title>line {event.line}: {escape(event.label)}</title>'
                       "</circle>")
            if level is not None:
                label_y = y - 10 - level * _LEVEL_H
                out.append(f'<line x1="{x:.1f}" y1="{y - 4}" x2="{x:.1f}" y2="{label_y + 2}" '
                           f'stroke="#ccc" stroke-width="0.8"/>')
                out.append(f'<text class="label" x="{x:.1f}" y="{label_y}" font-size="10" '
                           f'fill="#333">{escape(label)}</text>')
        out.append("</g>")
        top += lane_h
    out.append("</svg>")
    return "\n".join(out) + "\n"


def timeline_html(timeline: Timeline, *, title: str = "logsleuth timeline") -> str:
    """A standalone HTML page with the SVG and a table of the events."""
    rows = "\n".join(
        f"<tr><td>{escape(lane.process.label)}</td><td>{event.line}</td>"
        f"<td>{escape(event.mark.value)}</td><td>{escape(event.label)}</td></tr>"
        for lane in timeline.lanes for event in lane.events)
    return ("<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>"
            f"{escape(title)}</title><style>body{{font-family:Helvetica,Arial,sans-serif}}"
            "td{padding:2px 8px;border-bottom:1px solid #eee;font-size:13px}"
            # the picture shrinks to a narrow window rather than scroll the page sideways
            "svg{max-width:100%;height:auto}</style></head>"
            f"<body><h2>{escape(title)}</h2>\n{timeline_svg(timeline)}\n<table><tr><th>process"
            "</th><th>line</th><th>kind</th><th>event</th></tr>\n"
            f"{rows}\n</table></body></html>\n")


def _short(text: str, limit: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"
