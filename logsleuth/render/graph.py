"""The causal graph across processes as a picture: DOT, Mermaid, or SVG.

Nodes are the errors of the failure and the processes' lifecycle events, coloured by the role of
the process that printed them; edges go from cause to effect, labelled with why they are linked
(`Inference.links`). SVG comes from graphviz's `dot` when it is installed and otherwise from a
small layout of our own: one column per process, one row per event in log order.
"""

from __future__ import annotations

import shutil
import subprocess
from dataclasses import dataclass
from enum import Enum
from xml.sax.saxutils import escape

from logsleuth.knowledge import Causality, default_causality
from logsleuth.model import (ErrorEvent, Event, Inference, LinkReason, Milestone, MilestoneKind,
                             Role)

MAX_NODES = 60
_NOT_STEPS = frozenset({MilestoneKind.PHASE, MilestoneKind.CAPTURED, MilestoneKind.REPORT})
ROLE_COLOURS = {Role.API_SERVER: "#4c78a8", Role.ENGINE_CORE: "#9467bd", Role.WORKER: "#f58518",
                Role.MAIN: "#7f7f7f", Role.OTHER: "#7f7f7f"}
_LINK_LABELS = {LinkReason.CHAINED: "raised from", LinkReason.DUPLICATE: "printed again",
                LinkReason.POINTER: "points to", LinkReason.EMBEDDED: "quotes",
                LinkReason.PROCESS_ORDER: "child failed first", LinkReason.EXPLAINED: "leads to",
                LinkReason.UNRAISABLE: "crashed after", LinkReason.ABORTED: "aborted over",
                LinkReason.EXIT_REPORT: "exit report"}


class NodeStatus(Enum):
    """What a node is to the failure."""

    ROOT = "root_cause"
    CHAIN = "chain"  # raised from the root cause
    SYMPTOM = "symptom"
    OTHER = "error"  # an error linked to the failure that the report does not list
    EVENT = "event"  # a lifecycle point (ready, serving, hang, shutdown requested)


@dataclass(frozen=True, slots=True)
class GraphNode:
    """One drawn box: an error as printed by one or more processes (identical copies collapse
    into one node, `ValueError ×8`), or a lifecycle point."""

    id: str
    label: str
    process: str  # the process, or the range of processes that printed it (`Worker_TP0–TP7`)
    role: Role
    line: int  # the first copy's line
    status: NodeStatus
    count: int = 1
    lane: str = ""  # the column it is drawn in: one per process role


@dataclass(frozen=True, slots=True)
class GraphEdge:
    cause: str
    effect: str
    label: str
    reason: LinkReason | None = None


@dataclass(frozen=True, slots=True)
class CausalPicture:
    """The nodes and edges to draw, nodes in log order."""

    nodes: tuple[GraphNode, ...]
    edges: tuple[GraphEdge, ...]
    lanes: tuple[str, ...]  # lane titles, left to right


# Lanes left to right in the order a failure travels: workers raise, the engine core reports,
# the API server gives up.
_LANE_ORDER = (Role.WORKER, Role.ENGINE_CORE, Role.API_SERVER, Role.MAIN, Role.OTHER)
_LANE_NAMES = {Role.WORKER: "workers", Role.ENGINE_CORE: "engine core",
               Role.API_SERVER: "API server", Role.MAIN: "main", Role.OTHER: "other processes"}


def build_picture(events: list[Event], inference: Inference,
                  causality: Causality | None = None, *, max_nodes: int = MAX_NODES
                  ) -> CausalPicture:
    """Choose what to draw: the root cause, its chain and symptoms, the errors linked to them,
    and the first lifecycle event of each kind per role. Copies of one error printed by several
    processes (the same exception and message, numbers masked) become one node."""
    from logsleuth.signatures.template import mask

    know = causality or default_causality()
    errors = {e.id: e for e in events if isinstance(e, ErrorEvent)}
    status: dict[int, NodeStatus] = {}
    for event in inference.symptoms:
        status[event.id] = NodeStatus.SYMPTOM
    for event in inference.chain:
        status[event.id] = NodeStatus.CHAIN
    if inference.root_cause is not None:
        errors.setdefault(inference.root_cause.id, inference.root_cause)
        status[inference.root_cause.id] = NodeStatus.ROOT
    for event in (*inference.symptoms, *inference.copies):
        errors.setdefault(event.id, event)
    for event in inference.copies:
        status.setdefault(event.id, NodeStatus.ROOT)
    for link in inference.links:
        for end in (link.cause, link.effect):
            status.setdefault(end, NodeStatus.OTHER)
    chosen = sorted((errors[i] for i in status if i in errors), key=lambda e: (e.line, e.id))
    groups: dict[tuple[NodeStatus, Role, str, str], list[ErrorEvent]] = {}
    for event in chosen:
        role = know.role_of(event.process.name)
        key = (status[event.id], role, event.exception, mask(event.message))
        groups.setdefault(key, []).append(event)
    node_of: dict[int, str] = {}
    nodes: list[GraphNode] = []
    for (state, role, _, _), copies in groups.items():
        first = min(copies, key=lambda e: (status[e.id] is not NodeStatus.ROOT, e.line))
        if inference.root_cause is not None and inference.root_cause in copies:
            first = inference.root_cause
        node_id = f"e{first.id}"
        for event in copies:
            node_of[event.id] = node_id
        names = list(dict.fromkeys(e.process.name for e in copies))
        nodes.append(GraphNode(node_id, _error_label(first), process_range(names), role,
                               first.line, state, len(copies), _LANE_NAMES[role]))
    nodes.sort(key=lambda n: (n.status is not NodeStatus.ROOT, n.line))
    nodes = nodes[:max_nodes]
    seen: set[tuple[Role, str]] = set()
    for item in events:
        # phase marks are context for matching, a test report's section headers the report's
        # layout: neither is a step of the causal story
        if isinstance(item, Milestone) and item.kind not in _NOT_STEPS \
                and len(nodes) < max_nodes:
            role = know.role_of(item.process.name)
            if (role, item.kind.value) not in seen:
                seen.add((role, item.kind.value))
                nodes.append(GraphNode(f"m{item.line}", f"{item.kind.value}: {item.text}",
                                       item.process.name, role, item.line, NodeStatus.EVENT,
                                       lane=_LANE_NAMES[role]))
    nodes.sort(key=lambda n: (n.line, n.id))
    ids = {n.id for n in nodes}
    edges: dict[tuple[str, str], LinkReason] = {}
    for link in inference.links:
        cause, effect = node_of.get(link.cause), node_of.get(link.effect)
        if cause is None or effect is None or cause == effect or cause not in ids \
                or effect not in ids:
            continue
        edges.setdefault((cause, effect), link.reason)
    lanes = tuple(_LANE_NAMES[r] for r in _LANE_ORDER if any(n.role is r for n in nodes))
    return CausalPicture(tuple(nodes), tuple(GraphEdge(c, e, _LINK_LABELS[r], r)
                                             for (c, e), r in edges.items()), lanes)


def process_range(names: list[str]) -> str:
    """`Worker_TP0–TP7` for Worker_TP0 ... Worker_TP7; a short list otherwise."""
    if len(names) == 1:
        return names[0]
    stems = {name.rstrip("0123456789") for name in names}
    if len(stems) == 1:
        stem = stems.pop()
        numbers = sorted(int(name[len(stem):]) for name in names if name[len(stem):])
        if len(numbers) == len(names) and numbers == list(range(numbers[0], numbers[-1] + 1)):
            tail = stem.rsplit("_", 1)[-1] if "_" in stem else ""
            return f"{stem}{numbers[0]}–{tail}{numbers[-1]}"
    return ", ".join(names[:3]) + (f" +{len(names) - 3}" if len(names) > 3 else "")


def to_dot(picture: CausalPicture) -> str:
    """Graphviz DOT source: one cluster per lane."""
    out = ["digraph causal {", '  rankdir=TB; node [shape=box, style="rounded,filled", '
           'fontname="Helvetica", fontsize=10]; edge [fontname="Helvetica", fontsize=9];']
    for index, lane in enumerate(picture.lanes):
        out.append(f'  subgraph cluster_{index} {{ label="{_dot(lane)}"; style=dashed;')
        for node in picture.nodes:
            if node.lane == lane:
                out.append(f'    {node.id} [label="{_dot(node_text(node))}", '
                           f'{_dot_style(node)}];')
        out.append("  }")
    for edge in picture.edges:
        out.append(f'  {edge.cause} -> {edge.effect} [label="{_dot(edge.label)}"];')
    out.append("}")
    return "\n".join(out) + "\n"


def to_mermaid(picture: CausalPicture) -> str:
    """Mermaid flowchart source (GitHub renders it in Markdown)."""
    out = ["flowchart LR"]
    for index, lane in enumerate(picture.lanes):
        out.append(f'  subgraph p{index}["{_mermaid(lane)}"]')
        for node in picture.nodes:
            if node.lane == lane:
                out.append(f'    {node.id}["{_mermaid(node_text(node))}"]')
        out.append("  end")
    for edge in picture.edges:
        out.append(f"  {edge.cause} -->|{_mermaid(edge.label)}| {edge.effect}")
    for node in picture.nodes:
        fill, stroke = _colours(node)
        out.append(f"  style {node.id} fill:{fill},stroke:{stroke},stroke-width:"
                   f"{3 if node.status is NodeStatus.ROOT else 1}px")
    return "\n".join(out) + "\n"


def to_svg(picture: CausalPicture, *, use_dot: bool = False) -> str:
    """An SVG picture from our own layout (lanes, log order, collapsed copies, a legend for the
    edges); graphviz's `dot` when asked (`use_dot`) and installed."""
    dot = shutil.which("dot") if use_dot else None
    if dot:
        done = subprocess.run([dot, "-Tsvg"], input=to_dot(picture).encode("utf-8"),
                              capture_output=True, timeout=60, check=False)
        if done.returncode == 0 and done.stdout:
            return done.stdout.decode("utf-8")
    return layout_svg(picture)


# Our own layout ---------------------------------------------------------------------------------
# Lanes are columns, nodes are rows in log order, so a row never holds two boxes and no two texts
# can overlap. Edges carry no text: their reason is their colour and dash, named in a legend
# (labels on crossing curves are what made the old picture unreadable).

_COL, _BOX_W, _MARGIN, _GAP = 360, 320, 30, 18
_LINE_H, _PAD, _CHARS = 14, 8, 48
_EDGE_STYLE = {LinkReason.CHAINED: ("#222222", ""), LinkReason.DUPLICATE: ("#999999", "2 3"),
               LinkReason.POINTER: ("#1f77b4", "6 4"), LinkReason.EMBEDDED: ("#2ca02c", "1 3"),
               LinkReason.PROCESS_ORDER: ("#d62728", "8 3 2 3"),
               LinkReason.EXPLAINED: ("#8c564b", "4 2"),
               LinkReason.UNRAISABLE: ("#9467bd", "4 2"),
               LinkReason.ABORTED: ("#9467bd", "1 2"),
               LinkReason.EXIT_REPORT: ("#999999", "1 3")}


def layout_svg(picture: CausalPicture) -> str:
    """One column per lane, one row per node in log order; edges as styled curves."""
    column = {lane: i for i, lane in enumerate(picture.lanes)}
    where: dict[str, tuple[float, float, float]] = {}  # x, y, height
    y = _MARGIN + 34.0
    texts: dict[str, list[str]] = {}
    for node in picture.nodes:
        texts[node.id] = _box_lines(node)
        height = _PAD * 2 + _LINE_H * len(texts[node.id])
        where[node.id] = (_MARGIN + column[node.lane] * _COL, y, height)
        y += height + _GAP
    reasons = [r for r in _EDGE_STYLE if any(e.reason is r for e in picture.edges)]
    width = _MARGIN * 2 + max(1, len(picture.lanes)) * _COL
    legend_y = y + 10
    height = int(legend_y + 20 * (len(reasons) + 1) + _MARGIN)
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
           f'viewBox="0 0 {width} {height}" font-family="Helvetica, Arial, sans-serif">',
           '<defs><marker id="arrow" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="7" '
           'markerHeight="7" orient="auto-start-reverse"><path d="M 0 0 L 10 5 L 0 10 z" '
           'fill="context-stroke"/></marker></defs>',
           f'<rect width="{width}" height="{height}" fill="white"/>']
    for lane, index in column.items():
        left = _MARGIN + index * _COL
        out.append(f'<text x="{left}" y="{_MARGIN + 6}" font-size="14" font-weight="bold">'
                   f'{escape(_short(lane, 40))}</text>')
        out.append(f'<line x1="{left + _BOX_W / 2}" y1="{_MARGIN + 16}" '
                   f'x2="{left + _BOX_W / 2}" y2="{legend_y - 10}" stroke="#e4e4e4" '
                   f'stroke-dasharray="4 4"/>')
    for edge in picture.edges:
        out.append(_edge_path(edge, where[edge.cause], where[edge.effect]))
    for node in picture.nodes:
        x, top, box_h = where[node.id]
        fill, stroke = _colours(node)
        thick = 3 if node.status is NodeStatus.ROOT else 1
        out.append(f'<g class="node {node.status.value}" id="{node.id}"><title>'
                   f'{escape(node.label)} (line {node.line}, {escape(node.process)})</title>')
        out.append(f'<rect x="{x}" y="{top}" width="{_BOX_W}" height="{box_h}" rx="6" '
                   f'fill="{fill}" stroke="{stroke}" stroke-width="{thick}"/>')
        for index, text in enumerate(texts[node.id]):
            weight = ' font-weight="bold"' if index == 0 else ""
            out.append(f'<text x="{x + 8}" y="{top + _PAD + 11 + index * _LINE_H}" '
                       f'font-size="11"{weight}>{escape(text)}</text>')
        out.append("</g>")
    for index, reason in enumerate(reasons):
        colour, dash = _EDGE_STYLE[reason]
        row = legend_y + 20 * index
        out.append(f'<line x1="{_MARGIN}" y1="{row}" x2="{_MARGIN + 40}" y2="{row}" '
                   f'stroke="{colour}" stroke-width="1.6" stroke-dasharray="{dash}"/>')
        out.append(f'<text x="{_MARGIN + 50}" y="{row + 4}" font-size="11">'
                   f'{escape(_LINK_LABELS[reason])}</text>')
    out.append("</svg>")
    return "\n".join(out) + "\n"


def _edge_path(edge: GraphEdge, cause: tuple[float, float, float],
               effect: tuple[float, float, float]) -> str:
    (x1, y1, h1), (x2, y2, _) = cause, effect
    colour, dash = _EDGE_STYLE.get(edge.reason, ("#555555", "")) if edge.reason else \
        ("#555555", "")
    if x1 == x2:  # same lane: a curve out of the right side and back in
        sx, sy, ex, ey = x1 + _BOX_W, y1 + h1 / 2, x2 + _BOX_W, y2 + 10
        path = f"M {sx} {sy} C {sx + 30} {sy}, {ex + 30} {ey}, {ex} {ey}"
    else:
        sx, sy = (x1 + _BOX_W if x2 > x1 else x1), y1 + h1 / 2
        ex, ey = (x2 if x2 > x1 else x2 + _BOX_W), y2 + 10
        mid = (sx + ex) / 2
        path = f"M {sx} {sy} C {mid} {sy}, {mid} {ey}, {ex} {ey}"
    dashes = f' stroke-dasharray="{dash}"' if dash else ""
    return (f'<path class="edge" d="{path}" fill="none" stroke="{colour}" stroke-width="1.6"'
            f'{dashes} marker-end="url(#arrow)"><title>{escape(edge.label)}</title></path>')


def _box_lines(node: GraphNode) -> list[str]:
    """The text of a box: what and where, then the message wrapped (never cut mid-word) to at
    most four lines, so the message's key words stay."""
    import textwrap

    head = node_text(node).split("\n", 1)[0]
    body = textwrap.wrap(" ".join(node.label.split()), _CHARS, break_long_words=True)
    if len(body) > 4:
        body = body[:3] + [_short(" ".join(body[3:]), _CHARS)]
    return [head, _short(node.process, _CHARS), *body]


def node_text(node: GraphNode) -> str:
    """`ROOT CAUSE · line 325 · ×8` and the label, for DOT and Mermaid boxes."""
    tag = {NodeStatus.ROOT: "ROOT CAUSE · ", NodeStatus.SYMPTOM: "symptom · ",
           NodeStatus.CHAIN: "raised from the root · "}.get(node.status, "")
    copies = f" · ×{node.count}" if node.count > 1 else ""
    return f"{tag}line {node.line}{copies}\n{_short(node.label, 120)}"


def _colours(node: GraphNode) -> tuple[str, str]:
    stroke = ROLE_COLOURS[node.role]
    if node.status is NodeStatus.ROOT:
        return "#ffd6d6", "#c00000"
    if node.status is NodeStatus.EVENT:
        return "#eef6ee", stroke
    return "#ffffff", stroke


def _dot_style(node: GraphNode) -> str:
    fill, stroke = _colours(node)
    width = 3 if node.status is NodeStatus.ROOT else 1
    return f'fillcolor="{fill}", color="{stroke}", penwidth={width}'


def _error_label(event: ErrorEvent) -> str:
    return f"{event.exception}: {_short(event.message, 200)}" if event.message \
        else event.exception


def _short(text: str, limit: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _dot(text: str) -> str:
    return text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")


def _mermaid(text: str) -> str:
    return (text.replace('"', "#quot;").replace("|", "#124;").replace("\n", "<br/>")
            .replace("[", "#91;").replace("]", "#93;").replace("<", "#lt;").replace(">", "#gt;")
            .replace("#lt;br/#gt;", "<br/>"))
