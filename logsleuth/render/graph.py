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
ROLE_COLOURS = {Role.API_SERVER: "#4c78a8", Role.ENGINE_CORE: "#9467bd", Role.WORKER: "#f58518",
                Role.MAIN: "#7f7f7f", Role.OTHER: "#7f7f7f"}
_LINK_LABELS = {LinkReason.CHAINED: "raised from", LinkReason.DUPLICATE: "printed again",
                LinkReason.POINTER: "points to", LinkReason.EMBEDDED: "quotes",
                LinkReason.PROCESS_ORDER: "child failed first"}


class NodeStatus(Enum):
    """What a node is to the failure."""

    ROOT = "root_cause"
    CHAIN = "chain"  # raised from the root cause
    SYMPTOM = "symptom"
    OTHER = "error"  # an error linked to the failure that the report does not list
    EVENT = "event"  # a lifecycle point (ready, serving, hang, shutdown requested)


@dataclass(frozen=True, slots=True)
class GraphNode:
    id: str
    label: str
    process: str
    role: Role
    line: int
    status: NodeStatus


@dataclass(frozen=True, slots=True)
class GraphEdge:
    cause: str
    effect: str
    label: str


@dataclass(frozen=True, slots=True)
class CausalPicture:
    """The nodes and edges to draw, nodes in log order."""

    nodes: tuple[GraphNode, ...]
    edges: tuple[GraphEdge, ...]
    lanes: tuple[str, ...]  # process labels in order of first appearance


def build_picture(events: list[Event], inference: Inference,
                  causality: Causality | None = None, *, max_nodes: int = MAX_NODES
                  ) -> CausalPicture:
    """Choose what to draw: the root cause, its chain and symptoms, the errors linked to them,
    and the first lifecycle event of each kind per process."""
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
    for event in inference.symptoms:
        errors.setdefault(event.id, event)
    for link in inference.links:
        for end in (link.cause, link.effect):
            status.setdefault(end, NodeStatus.OTHER)
    chosen = sorted((errors[i] for i in status if i in errors),
                    key=lambda e: (status[e.id] is not NodeStatus.ROOT, e.line))[:max_nodes]
    nodes = [GraphNode(f"e{e.id}", _error_label(e), e.process.label, know.role_of(e.process.name),
                       e.line, status[e.id]) for e in chosen]
    seen: set[tuple[str, str]] = set()
    for item in events:
        # phase marks are context for matching, not steps of the causal story
        if isinstance(item, Milestone) and item.kind is not MilestoneKind.PHASE \
                and len(nodes) < max_nodes:
            key = (item.process.label, item.kind.value)
            if key not in seen:
                seen.add(key)
                nodes.append(GraphNode(f"m{item.line}", f"{item.kind.value}: "
                                       f"{_short(item.text, 40)}", item.process.label,
                                       know.role_of(item.process.name), item.line,
                                       NodeStatus.EVENT))
    nodes.sort(key=lambda n: (n.line, n.id))
    ids = {n.id for n in nodes}
    edges = tuple(GraphEdge(f"e{link.cause}", f"e{link.effect}", _LINK_LABELS[link.reason])
                  for link in inference.links
                  if f"e{link.cause}" in ids and f"e{link.effect}" in ids)
    lanes = tuple(dict.fromkeys(n.process for n in nodes))
    return CausalPicture(tuple(nodes), edges, lanes)


def to_dot(picture: CausalPicture) -> str:
    """Graphviz DOT source: one cluster per process."""
    out = ["digraph causal {", '  rankdir=TB; node [shape=box, style="rounded,filled", '
           'fontname="Helvetica", fontsize=10]; edge [fontname="Helvetica", fontsize=9];']
    for index, lane in enumerate(picture.lanes):
        out.append(f'  subgraph cluster_{index} {{ label="{_dot(lane)}"; style=dashed;')
        for node in picture.nodes:
            if node.process == lane:
                out.append(f'    {node.id} [label="{_dot(_node_text(node))}", '
                           f'{_dot_style(node)}];')
        out.append("  }")
    for edge in picture.edges:
        out.append(f'  {edge.cause} -> {edge.effect} [label="{_dot(edge.label)}"];')
    out.append("}")
    return "\n".join(out) + "\n"


def to_mermaid(picture: CausalPicture) -> str:
    """Mermaid flowchart source (GitHub renders it in Markdown)."""
    out = ["flowchart TB"]
    for index, lane in enumerate(picture.lanes):
        out.append(f'  subgraph p{index}["{_mermaid(lane)}"]')
        for node in picture.nodes:
            if node.process == lane:
                out.append(f'    {node.id}["{_mermaid(_node_text(node))}"]')
        out.append("  end")
    for edge in picture.edges:
        out.append(f"  {edge.cause} -->|{_mermaid(edge.label)}| {edge.effect}")
    for node in picture.nodes:
        fill, stroke = _colours(node)
        out.append(f"  style {node.id} fill:{fill},stroke:{stroke},stroke-width:"
                   f"{3 if node.status is NodeStatus.ROOT else 1}px")
    return "\n".join(out) + "\n"


def to_svg(picture: CausalPicture, *, use_dot: bool = True) -> str:
    """An SVG picture: graphviz's `dot` when installed (and `use_dot`), else our own layout."""
    dot = shutil.which("dot") if use_dot else None
    if dot:
        done = subprocess.run([dot, "-Tsvg"], input=to_dot(picture).encode("utf-8"),
                              capture_output=True, timeout=60, check=False)
        if done.returncode == 0 and done.stdout:
            return done.stdout.decode("utf-8")
    return layout_svg(picture)


# Our own layout ---------------------------------------------------------------------------------

_COL, _ROW, _BOX_W, _BOX_H, _MARGIN = 260, 70, 230, 44, 30


def layout_svg(picture: CausalPicture) -> str:
    """One column per process, one row per node in log order; edges as labelled curves."""
    column = {lane: i for i, lane in enumerate(picture.lanes)}
    where: dict[str, tuple[float, float]] = {}
    for row, node in enumerate(picture.nodes):
        where[node.id] = (_MARGIN + column[node.process] * _COL, _MARGIN + 30 + row * _ROW)
    width = _MARGIN * 2 + max(1, len(picture.lanes)) * _COL
    height = _MARGIN * 2 + 40 + max(1, len(picture.nodes)) * _ROW
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
           f'viewBox="0 0 {width} {height}" font-family="Helvetica, Arial, sans-serif">',
           '<defs><marker id="arrow" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="7" '
           'markerHeight="7" orient="auto-start-reverse"><path d="M 0 0 L 10 5 L 0 10 z" '
           'fill="#555"/></marker></defs>',
           f'<rect width="{width}" height="{height}" fill="white"/>']
    for lane, index in column.items():
        left = _MARGIN + index * _COL
        out.append(f'<text x="{left}" y="{_MARGIN}" font-size="13" font-weight="bold">'
                   f'{escape(_short(lane, 34))}</text>')
        out.append(f'<line x1="{left + _BOX_W / 2}" y1="{_MARGIN + 8}" x2="{left + _BOX_W / 2}" '
                   f'y2="{height - _MARGIN}" stroke="#ddd" stroke-dasharray="4 4"/>')
    for edge in picture.edges:
        (x1, y1), (x2, y2) = where[edge.cause], where[edge.effect]
        sx, sy, ex, ey = x1 + _BOX_W / 2, y1 + _BOX_H, x2 + _BOX_W / 2, y2
        bend = 0.0 if x1 != x2 else 60.0
        path = (f"M {sx} {sy} C {sx + bend} {sy + 30}, {ex + bend} {ey - 30}, {ex} {ey}")
        out.append(f'<path d="{path}" fill="none" stroke="#555" marker-end="url(#arrow)"/>')
        out.append(f'<text x="{(sx + ex) / 2 + bend / 2 + 4}" y="{(sy + ey) / 2}" font-size="9" '
                   f'fill="#333">{escape(edge.label)}</text>')
    for node in picture.nodes:
        x, y = where[node.id]
        fill, stroke = _colours(node)
        thick = 3 if node.status is NodeStatus.ROOT else 1
        out.append(f'<g class="node {node.status.value}" id="{node.id}"><title>'
                   f'{escape(node.label)} (line {node.line})</title>')
        out.append(f'<rect x="{x}" y="{y}" width="{_BOX_W}" height="{_BOX_H}" rx="6" '
                   f'fill="{fill}" stroke="{stroke}" stroke-width="{thick}"/>')
        first, second = _node_text(node).split("\n", 1)
        out.append(f'<text x="{x + 8}" y="{y + 17}" font-size="11" font-weight="bold">'
                   f'{escape(_short(first, 36))}</text>')
        out.append(f'<text x="{x + 8}" y="{y + 33}" font-size="10">'
                   f'{escape(_short(second, 40))}</text></g>')
    out.append("</svg>")
    return "\n".join(out) + "\n"


def _node_text(node: GraphNode) -> str:
    tag = {NodeStatus.ROOT: "ROOT CAUSE ", NodeStatus.SYMPTOM: "symptom ",
           NodeStatus.CHAIN: "raised from root "}.get(node.status, "")
    return f"{tag}line {node.line}\n{node.label}"


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
    return f"{event.exception}: {_short(event.message, 60)}" if event.message \
        else event.exception


def _short(text: str, limit: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _dot(text: str) -> str:
    return text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")


def _mermaid(text: str) -> str:
    return (text.replace('"', "#quot;").replace("|", "#124;").replace("\n", "<br/>")
            .replace("[", "#91;").replace("]", "#93;"))
