"""Which deployment each process of one run belongs to, when two write into one log at once.

Two vLLM deployments (two servers, a server and an offline script) may append to one file or
terminal. The run split (runs.py) keeps them one run while both go on; inside it, the evidence
that an error was survived (causal.py `_Work`) must come from the failing deployment's own
processes, not from the other one's serving.

Most runs hold one deployment, and then nothing changes: every process's work counts as today.
A run holds several when the log says so:

- a name that exists once per deployment (causality.yaml `singletons`: the API server, a DP
  rank's engine core) appears with two pids at once;
- one start marker (`milestones.start`), or one line an engine prints once for itself
  (causality.yaml `engine_once`: its KV cache sized), is printed by two processes of one name, or
  by an API server or engine core with a pid and by unprefixed output (two servers' banners, one
  prefixed, one not: a deployment prefixes all its engine's lines or none; a DP rank's engine
  core prints the engine banner for itself, under its own name);
- a process with a pid already talks before the run's API server printed its start, or an engine
  core or worker (causality.yaml `children`) has a pid below every such server's: it cannot be
  that server's child (the server starts its engine cores, they start their workers).

Then each API server with a pid heads a deployment. It owns one engine core of each name: the
nearest pid above its own among those that first talk after it began (it starts them); the
rest of the processes with a pid go with the nearest engine core or API server below them (an
engine core starts its workers). Processes with a pid that no server owns, and unprefixed output
that printed its own start or talked before any server began, are one more deployment, the
unowned one, and so is unprefixed output that printed a step of its own start-up (an init phase
line: vLLM's rank assignment, which a deployment that prefixes its lines prefixes too). Other
unprefixed output (a library's line, an
NCCL warning printed without a prefix beside prefixed processes) may be anyone's: its work
counts for every deployment and every deployment's for it, as in a run that holds one.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Iterable
from dataclasses import dataclass, field

from logsleuth.knowledge import Causality
from logsleuth.model import ErrorEvent, Event, Milestone, MilestoneKind, Phase, Process, Role

ENGINE_ONCE = -1  # the key of an engine's once-only lines among the start markers
UNOWNED = -1  # the deployment of unprefixed output and of processes no API server owns


@dataclass(frozen=True, slots=True)
class Deployments:
    """The deployment of each process of a run; empty when the run holds one."""

    groups: dict[Process, int] = field(default_factory=dict)

    @property
    def several(self) -> bool:
        return bool(self.groups)

    def of(self, process: Process) -> int | None:
        """The process's deployment (the pid of the API server that heads it, or UNOWNED), or
        None when it may be any (a run that holds one, unprefixed output of no start)."""
        return self.groups.get(process)

    def shares(self, process: Process, other: Process) -> bool:
        """`other`'s work may be `process`'s deployment's."""
        mine, theirs = self.groups.get(process), self.groups.get(other)
        return mine is None or theirs is None or mine == theirs


ONE = Deployments()


def deployments_of(events: Iterable[Event], know: Causality) -> Deployments:
    """The deployments of one run's events, or ONE when it holds one."""
    first: dict[Process, int] = {}  # each process's first line
    marker_printers: dict[int, set[Process]] = {}
    singleton_pids: dict[str, set[int]] = {}
    servers: dict[Process, int] = {}  # API servers with a pid -> the line of their first start
    # unprefixed output that printed a step of its own start-up (an init phase line: vLLM's
    # rendezvous record, its rank assignment), as a start would be
    stepped: set[Process] = set()
    heads_stepped: set[Process] = set()  # and the processes with a pid that printed one
    single: dict[str, bool] = {}  # a day of request errors repeats a few names
    for event in events:
        process = event.process
        line = event.first_line if isinstance(event, ErrorEvent) else event.line
        first[process] = min(line, first.get(process, line))
        one = single.get(process.name)
        if one is None:
            one = single[process.name] = know.is_singleton(process.name)
        if one and process.pid is not None:
            singleton_pids.setdefault(process.name, set()).add(process.pid)
        if isinstance(event, Milestone) and event.kind is MilestoneKind.START:
            marker = know.start_marker(event.text)
            if marker is not None:
                marker_printers.setdefault(marker, set()).add(process)
            if process.pid is not None and know.role_of(process.name) is Role.API_SERVER:
                servers.setdefault(process, event.line)
        elif isinstance(event, Milestone) and know.is_engine_once(event.text):
            marker_printers.setdefault(ENGINE_ONCE, set()).add(process)  # a start as well
        if isinstance(event, Milestone) and event.phase is Phase.INIT:
            (stepped if process.pid is None else heads_stepped).add(process)
    if not servers:
        return ONE  # no deployment shows its own head: nothing to tell them apart by
    begun = min(servers.values())
    mixed = know.executors_differ(p.name for p in first)  # Ray's actors beside own workers
    lowest = min(p.pid or 0 for p in servers)
    several = any(len(pids) > 1 for pids in singleton_pids.values()) \
        or any(_two_heads(printers, know) for printers in marker_printers.values()) \
        or any(p.pid is not None and p not in servers
               and (line < begun or p.pid < lowest and know.is_child(p.name))
               for p, line in first.items()) \
        or mixed \
        or bool(stepped) and any(know.role_of(p.name) is Role.API_SERVER
                                 or know.is_singleton(p.name) for p in heads_stepped)
    if not several:
        return ONE
    groups: dict[Process, int] = {}
    started = {p for printers in marker_printers.values() for p in printers}
    for process, line in first.items():
        if process.pid is None and (process in started or process in stepped or line < begun):
            groups[process] = UNOWNED
    groups.update({server: server.pid or 0 for server in servers})
    if mixed:  # Ray's actors beside a server's own workers: the other deployment's
        groups.update({p: UNOWNED for p in first if know.is_ray_actor(p.name)})
    heads = sorted(servers, key=lambda p: p.pid or 0)
    # a deployment's engine cores: each name once, the nearest pid above its API server (the
    # one it started); another pid of that name is another deployment's
    claimed: set[tuple[int, str]] = set()
    ones = sorted((p for p in first if p.pid is not None and p not in servers
                   and p.name in singleton_pids), key=lambda p: p.pid or 0)
    for process in ones:
        owners = [h for h in heads if (h.pid or 0) <= (process.pid or 0)
                  and servers[h] <= first[process]]
        head = (owners[-1].pid or 0) if owners else UNOWNED
        if head != UNOWNED and (head, process.name) in claimed:
            head = UNOWNED
        claimed.add((head, process.name))
        groups[process] = head
    # every other process with a pid: the deployment of the nearest engine core or API server
    # below it (a server starts its engine cores, they start their workers)
    parents = sorted(ones + heads, key=lambda p: p.pid or 0)
    pids = [p.pid or 0 for p in parents]
    for process in first:
        if process.pid is None or process in groups:
            continue
        index = bisect_right(pids, process.pid) - 1
        groups[process] = groups[parents[index]] if index >= 0 else UNOWNED
    return Deployments(groups)


def _two_heads(printers: set[Process], know: Causality) -> bool:
    """Two of the processes that printed one start marker head two deployments."""
    names = [p.name for p in printers]
    if len(set(names)) < len(names):
        return True
    return any(p.pid is None for p in printers) and any(
        p.pid is not None and (know.role_of(p.name) is Role.API_SERVER or know.is_singleton(p.name))
        for p in printers)
