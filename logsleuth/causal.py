"""Causal inference over the error events of one run of vLLM. Wraps networkx; no other module
sees a graph. (runs.py splits a log into runs and calls this once per distinct run.)

Nodes are the errors of the failure; edges say why one follows from another:

- CHAINED: Python printed them as one chain (`raise ... from e`, or during handling);
- DUPLICATE: the same exception printed again by the same process (logged, then raw);
- EMBEDDED: a wrapper quotes the cause's message (`Worker failed with error '...'`);
- POINTER: vLLM's own cross-process messages (`See root cause above`, `EngineDeadError`,
  `Worker proc ... died`) point from a symptom to the processes where the cause is;
- PROCESS_ORDER: a child (worker, engine core) failed before its parent reported an error;
- EXIT_REPORT: a level-only record a process printed as it exited over its uncaught exception.

No edge crosses a stretch where the cause's process or engine demonstrably went on working.
An error is survived when its process or engine went on working after it (engine output served,
its own next start-up step, start-up completed; an API server's own answers count for its own
errors only) and nothing unsurvived follows from it. The root cause is the earliest remaining
error that may be a cause, preferring exceptions and fatal lines over bare ERROR records and the
processes the symptoms point to. Everything reachable from it is a symptom.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

from logsleuth.assemble import CUT_TRACEBACK
from logsleuth.deployments import ONE, Deployments, deployments_of
from logsleuth.drivers import default_drivers, passed_sessions
from logsleuth.fingerprint import fingerprint
from logsleuth.knowledge import Causality, default_causality
from logsleuth.model import (ChainReason, ErrorEvent, Event, EventKind, EventRole,
                             Inference, Level, LineKind, Link, LinkReason, Milestone,
                             MilestoneKind, Phase, Process, Role, Run, Verdict)
from logsleuth.recordheads import fold_record_heads
from logsleuth.refused import Refusals, refused_only
from logsleuth.repeats import RepeatedWait, repeated_wait
from logsleuth.restatements import fold_headlines, fold_restatements, lone_headline
from logsleuth.runs import (Outcome, RecordKey, Recurring, RunKey, RunSlice, RunSpan,
                            captured_spans, explained_index, exits_program, inside, outcome_of,
                            record_key, run_key, split_runs, start_time, summarize)

if TYPE_CHECKING:
    import networkx as nx  # imported where a graph is built: a run without errors needs none

    from logsleuth.runfold import FoldedRuns

# Which process roles a pointer to a role may mean. An engine core's failure often starts in its
# workers; in eras without prefixes (before 2025-07) the engine core and workers print as `main`.
_COMPATIBLE: dict[Role, frozenset[Role]] = {
    Role.ENGINE_CORE: frozenset({Role.ENGINE_CORE, Role.WORKER, Role.MAIN, Role.OTHER}),
    Role.WORKER: frozenset({Role.WORKER, Role.MAIN, Role.OTHER}),
    Role.API_SERVER: frozenset(Role),
    Role.MAIN: frozenset(Role),
    Role.OTHER: frozenset(Role),
}
# Parents after children: a worker's error comes before its engine core's, the engine core's
# before the API server's.
_DEPTH = {Role.WORKER: 0, Role.OTHER: 1, Role.MAIN: 1, Role.ENGINE_CORE: 1, Role.API_SERVER: 2}
_MAX_SYMPTOMS = 12
_COPY_WINDOW = 400  # lines between two prints of one exception (the logged and the raw copy)
_POINTER_REACH = 64  # a symptom points at the causes printed just before it, not at every one
# Answers printed within this many lines after an error may be requests that were already in
# flight when it happened: they do not show that the engine survived it.
IN_FLIGHT = 30


@dataclass(frozen=True, slots=True)
class _Node:
    event: ErrorEvent
    role: EventRole
    process_role: Role
    pointer: Role | None  # for symptoms: where they say the cause is
    embedded: str | None  # for wrappers: the quoted cause
    corrupting: bool = False  # the error leaves its process unable to work (knowledge)
    handled: bool = False  # vLLM catches it and answers the request it failed (knowledge)
    # the event's fingerprint, masked once here: a day of request errors is thousands of
    # distinct messages, more than fingerprint.py's cache holds, asked for again and again
    fingerprint: tuple[str, str] = ("", "")
    # the HTTP server raised it while handling one request (knowledge: its frames or call site)
    request: bool = False
    # it reached the top of a vLLM program uncaught: the program exited (knowledge: `exits`)
    exit: bool = False
    # its process died natively (knowledge: `deaths`): no other process's work saves it
    dies: bool = False
    # an unprefixed record native code logged right after a named process's error: that
    # process's, for whose work may save it (_speakers)
    speaks_for: Process | None = None
    # a level-only record its process printed as it exited: the id of the uncaught exception it
    # follows (causality.yaml `exit_reports`)
    exit_of: int | None = None
    # a reporter's headline above the records they pasted, which nothing restates
    # (restatements.py `lone_headline`): those records are its lead-up, not work after it
    headline: bool = False


@dataclass
class _Work:
    """Where the log shows normal work, by kind and process: the evidence that an error was
    survived."""

    serving: list[int] = field(default_factory=list)  # an engine produced output (any process)
    ready: list[int] = field(default_factory=list)  # start-up completed (any process)
    own_steps: dict[Process, list[int]] = field(default_factory=dict)  # start-up steps, ready
    own_serving: dict[Process, list[int]] = field(default_factory=dict)
    # the engine's stats lines with output (causality.yaml `engine_stats`), all and by process
    stats: list[int] = field(default_factory=list)
    own_stats: dict[Process, list[int]] = field(default_factory=dict)
    # the answers that show the HTTP server went on after a request error, by process
    # (causality.yaml `requests.saved_by`), and those of the kind that answers the failed request
    # itself (`requests.answered_by`), of which the first after the error does not count
    own_request_savers: dict[Process, list[int]] = field(default_factory=dict)
    own_request_answers: dict[Process, list[int]] = field(default_factory=dict)
    api_servers: list[Process] = field(default_factory=list)  # with pids, by pid
    own_starts: dict[Process, list[int]] = field(default_factory=dict)  # vLLM's start lines
    # vLLM's start lines of named processes (a prefix names them), each with the line its process
    # is first heard at, by start line: the unnamed output before that line was its own
    named_starts: list[tuple[int, int]] = field(default_factory=list)
    restarted: bool = False  # a later run of the log followed this one (`went_past`)
    # two deployments in one run (deployments.py): an error's evidence is its own deployment's
    deployments: Deployments = ONE
    group_serving: dict[int, list[int]] = field(default_factory=dict)
    group_ready: dict[int, list[int]] = field(default_factory=dict)
    # a run that ended halted after its engine's stats went stuck (`_stopped`): by the process
    # that printed the stats, the line from which its answers show no engine output
    stopped: dict[Process, int] = field(default_factory=dict)
    # by error id, the last line of the burst of errors it was printed in (`_bursts`): answers
    # logged within IN_FLIGHT lines after the burst may be requests in flight when it began
    burst_ends: dict[int, int] = field(default_factory=dict)

    @classmethod
    def of(cls, milestones: list[Milestone], api_servers: list[Process],
           know: Causality | None = None, starts: Iterable[Milestone] = (),
           deployments: Deployments = ONE) -> _Work:
        know = know or default_causality()
        work = cls(api_servers=sorted(api_servers, key=lambda p: p.pid or 0),
                   deployments=deployments)
        heard: dict[Process, int] = {}
        for milestone in sorted([*milestones, *starts], key=lambda m: m.line):
            heard.setdefault(milestone.process, milestone.line)
        for start in sorted(starts, key=lambda m: m.line):
            work.own_starts.setdefault(start.process, []).append(start.line)
            if know.role_of(start.process.name) is not Role.MAIN:
                work.named_starts.append((heard[start.process], start.line))
        for milestone in sorted(milestones, key=lambda m: m.line):
            kind, line, process = milestone.kind, milestone.line, milestone.process
            if kind is MilestoneKind.SERVING:
                work.serving.append(line)
                work.own_serving.setdefault(process, []).append(line)
                if know.engine_stats is not None and know.engine_stats.search(milestone.text):
                    work.stats.append(line)
                    work.own_stats.setdefault(process, []).append(line)
            if kind is know.request_answer:
                work.own_request_answers.setdefault(process, []).append(line)
            elif kind in know.request_savers:
                work.own_request_savers.setdefault(process, []).append(line)
            if kind is MilestoneKind.READY:
                work.ready.append(line)
            # a lifecycle line the process logs after an error is a step it went on to take
            if kind in (MilestoneKind.READY, MilestoneKind.PROGRESS, MilestoneKind.PHASE):
                work.own_steps.setdefault(process, []).append(line)
        if deployments.several:
            work._group_work(milestones)
        return work

    def _group_work(self, milestones: list[Milestone]) -> None:
        """Each deployment's engine output and completed start-ups, with those of output that
        may be anyone's (deployments.py), in line order."""
        groups = set(self.deployments.groups.values())
        self.group_serving = {group: [] for group in groups}
        self.group_ready = {group: [] for group in groups}
        for milestone in sorted(milestones, key=lambda m: m.line):
            table = self.group_serving if milestone.kind is MilestoneKind.SERVING \
                else self.group_ready if milestone.kind is MilestoneKind.READY else None
            if table is None:
                continue
            group = self.deployments.of(milestone.process)
            for lines in table.values() if group is None else (table[group],):
                lines.append(milestone.line)

    def evidence(self, node: _Node) -> tuple[list[list[int]], list[list[int]], list[list[int]]]:
        """(steps, own answers, others' answers): the lines that show `node`'s process or engine
        working. Answers may be requests in flight; steps may not. Its own process's answers
        show at once that it lives; answers another process logs for it (the API server serving
        for a failed engine core or worker) may be streams whose `200` was logged as they
        started, before the failure ended them (`IN_FLIGHT`).

        Its own process counts for every error, except the answers of unnamed output after an
        unnamed traceback vLLM does not catch per request (see below). An engine core's, a
        worker's or an unnamed process's error is also saved by any engine output (past those in
        flight) and any completed start-up (the log does not say which API server serves which
        engine, but a failed engine makes its API server report it, and that report is not saved
        by another server's work). A symptom
        speaks for its own process only; an API server's own polls do not save its report that
        an engine died, nor anything after a corrupting error.
        """
        process = node.event.process
        steps = [self.own_steps.get(process, [])]
        answers = [self.own_serving.get(process, [])]
        others: list[list[int]] = []
        if node.process_role is Role.MAIN and node.event.kind is not EventKind.ERROR_RECORD \
                and not node.handled:
            # Unnamed output is several processes at once (the API server, an engine, its
            # workers): requests it answers after an unnamed traceback may be answered by
            # another than the one that failed, or be streams whose 200 came before the failure
            # ended them. A start-up step it goes on to log still shows work went on.
            answers = []
        if _bare(node.event):
            # Python prints an uncaught exception with its traceback: one printed alone was
            # caught and printed by code that went on, which its own output starting vLLM after
            # it shows (a library's import-time noise, printed before vLLM's start banner)
            steps.append(self.own_starts.get(process, []))
        symptom = node.role is EventRole.SYMPTOM
        # An unnamed process's record (no traceback: NCCL's WARN, torch's glog, a library's ERROR
        # line, printed without a prefix beside prefixed vLLM processes) counts as an engine's
        # error, and so does a tool's own error line (`jq: error: ...`, a compiler's or a
        # wrapper script's: a program of its own, printed into the same output, that exits or
        # goes on without the deployment); its exceptions and crashes do not, since another
        # deployment's work may be what the log shows after them.
        unnamed_record = node.process_role is Role.MAIN and node.event.kind in _UNNAMED_RECORDS
        if (node.process_role in (Role.ENGINE_CORE, Role.WORKER, Role.OTHER) or unnamed_record) \
                and not symptom:
            owner = self._owner(node.speaks_for or process)
            group = self.deployments.of(node.speaks_for or process)
            if owner is None and node.dies:
                pass  # a process gone: whose deployment it was, the log does not say
            elif owner is None and group is not None:
                # one of two deployments, no API server of its own in the log: its own
                # deployment's work only (deployments.py)
                others.append(self.group_serving.get(group, []))
                if not node.corrupting:
                    steps.append(self.group_ready.get(group, []))
            elif owner is None:
                stopped = min(self.stopped.values(), default=None)
                others.append(self.serving if stopped is None
                              else self.serving[:bisect_left(self.serving, stopped)])
                if not node.corrupting:
                    steps.append(self.ready)
                    steps.append(_later_stats(self.stats, node))
            else:
                served = self.own_serving.get(owner, [])
                stopped = self.stopped.get(owner)
                others.append(served if stopped is None
                              else served[:bisect_left(served, stopped)])
                if not node.corrupting:
                    steps.append(self.own_steps.get(owner, []))
                    steps.append(_later_stats(self.own_stats.get(owner, []), node))
        if _may_be_request_error(node) and node.role is EventRole.CAUSE \
                and node.pointer not in (Role.ENGINE_CORE, Role.WORKER):
            # One rule for every error the HTTP server may have hit in one request (an API
            # server's, one its frames or call site place in a request handler, an unnamed
            # process's record): the answers of the kinds `requests.saved_by` names that the same
            # output logs after it (causality.yaml: requests served, a refusal other than the one
            # that answers the failed request; never polls)
            # (an unnamed traceback whose frames place it in a request handler is the HTTP
            # server's, whatever prefix its lines lost: its API servers' answers count too)
            speakers = [process, *(self.api_servers if node.request
                                   and node.process_role is Role.MAIN else [])]
            for speaker in speakers:
                answers.append(self.own_request_savers.get(speaker, []))
                refusals = self.own_request_answers.get(speaker, [])
                # the failed request's answer: the first refusal at or after its last line (a
                # client's copy of a refusal body is the error and its answer on one line)
                own = bisect_left(refusals, node.event.last_line)
                answers.append(refusals[own + 1:own + 2])  # the next: another request's
        return steps, answers, others

    def _owner(self, process: Process) -> Process | None:
        """The API server an engine core or worker serves, when pids tell: the one started
        last before it (vLLM's API server starts its engine cores, they start their workers).
        Two deployments in one log thus keep their evidence apart. None: any server's work
        counts (no pids, or no API server in the log)."""
        if process.pid is None or not self.api_servers:
            return None
        if self.deployments.several:
            group = self.deployments.of(process)
            return next((a for a in self.api_servers if a.pid == group), None)
        started = [a for a in self.api_servers if a.pid is not None and a.pid <= process.pid]
        return started[-1] if started else None

    def worked_after(self, node: _Node, end: int) -> bool:
        """The node's process or engine did normal work after it, before line `end`.

        A report that an engine or worker died (`EngineDeadError`, `Engine process (pid N)
        died`) is the engine's failure as its API server saw it: the answers of requests already
        in flight (a stream's `200` is logged as it starts) do not undo it. A program that
        exited (`exits`) went on with nothing: what the run logs after it is another
        deployment's."""
        if node.exit or node.headline:
            return False
        if node.role is EventRole.SYMPTOM and node.pointer is not None:
            return self.healthy_between(node, end)
        after = node.event.last_line
        flight = self.burst_ends.get(node.event.id, after) + IN_FLIGHT
        steps, answers, others = self.evidence(node)
        return (any(_any_between(lines, after, end) for lines in steps + answers)
                or any(_any_between(lines, flight, end) for lines in others)
                or _any_between(self.went_past(node), after, end))

    def went_past(self, node: _Node) -> list[int]:
        """The start lines that show the program went on past an unnamed record printed before
        vLLM started: a process vLLM names by a prefix prints its import-time records before it
        names itself (the prefix is set once its entry point runs; a platform plugin's, an
        optional kernel package's `Failed to import ...` comes first, unprefixed), so a named
        process first heard after the record that prints vLLM's start line went on past it.
        Survival only, never a stretch of health that cuts a link: a start-up that fails later
        may still have failed over what the record says (`healthy_between` does not ask). And
        only in a run a later start followed (a harness that started the server again): where
        the log stops during start-up, the record is the likeliest reason it stopped there."""
        if not self.restarted or node.process_role is not Role.MAIN \
                or node.event.kind not in _UNNAMED_RECORDS \
                or node.role is EventRole.SYMPTOM or node.corrupting:
            return []
        return [line for heard, line in self.named_starts if heard > node.event.last_line]

    def stepped_between(self, process: Process, after: int, before: int) -> bool:
        """The process itself logged a start-up step or engine output between two lines."""
        return any(_any_between(lines, after, before) for lines in
                   (self.own_steps.get(process, []), self.own_serving.get(process, [])))

    def healthy_between(self, node: _Node, end: int) -> bool:
        """Demonstrably working between the node and line `end` (answers in flight aside)."""
        if node.exit or node.headline:
            return False
        after = node.event.last_line
        flight = self.burst_ends.get(node.event.id, after) + IN_FLIGHT
        steps, answers, others = self.evidence(node)
        return (any(_any_between(lines, after, end) for lines in steps)
                or any(_any_between(lines, flight, end) for lines in answers + others))


def _later_stats(stats: list[int], node: _Node) -> list[int]:
    """For an error record (a logged line, no traceback), the engine's stats lines with output
    after the first one that follows it: the first may count tokens produced before the error,
    each later one an interval (or an offline batch) wholly after it. Not answers in flight (a
    stream's `200` is logged as it starts): output the engine produced, so a step of the engine's
    work, however soon after the record (the verdict probe, tools/verdict_probe: a worker's
    record mid-serving or mid-batch, then a few intervals or batches with output). Not for an
    exception: an engine core's or worker's traceback is most often its process's end, and the
    answers and stats just after it in flight (tests/test_survival.py)."""
    if node.event.kind is not EventKind.ERROR_RECORD:
        return []
    return stats[bisect_right(stats, node.event.last_line) + 1:]


# The kinds of unnamed output's error that the deployment's later work saves like an engine's
# (_Work.evidence): a record a logger wrote, a tool's own diagnostic line.
_UNNAMED_RECORDS = frozenset({EventKind.ERROR_RECORD, EventKind.DIAGNOSTIC})


# Stats intervals in a row, with requests held and nothing processed, after the engine's last
# output, that make a hang (causality.yaml milestones `stuck`): one is a request just admitted.
STUCK_REPEATS = 2


def _late_hangs(hangs: list[Milestone], activity: list[Milestone],
                deployments: Deployments) -> list[Milestone]:
    """The hang lines after the last work of their own deployment (of the run, when it holds
    one), in line order: another deployment's serving does not end this one's wait, nor does the
    HTTP server's answer to a poll."""
    last: dict[int | None, int] = {}  # the last work of each deployment (None: anyone's)
    for milestone in activity:
        if milestone.kind is MilestoneKind.ALIVE:
            continue  # a health poll is answered without the engine: no work (vllm#17972)
        group = deployments.of(milestone.process)
        last[group] = max(last.get(group, 0), milestone.line)
    anyone = max(last.values(), default=0)
    late = []
    for hang in hangs:
        group = deployments.of(hang.process)
        before = anyone if group is None else max(last.get(group, 0), last.get(None, 0))
        if hang.line > before:
            late.append(hang)
    return sorted(late, key=lambda h: h.line)


# Times a periodic wait notice (causality.yaml `periodic_waits`) is printed after the last work
# before it stands for a stall on its own in start-up: once is one interval of one slow step.
PERIODIC_REPEATS = 2


def _standing_hangs(late: list[Milestone], started: bool, know: Causality) -> list[Milestone]:
    """The late hang lines that show a stall: all of them, unless they are only periodic wait
    notices printed fewer than PERIODIC_REPEATS times in a start-up that had not completed (one
    interval of a slow load or compilation, which the notice itself names; GPUStack's
    DeepSeek-V3.2 load printed one and went on). After start-up completed, or printed again,
    such a notice is a wait that did not end. A line that folds repeats into one (kubectl's
    `(x20 over 10m)`) counts as the intervals it says. A summary of start-up's waits
    (`startup_waits`: a kubelet's probe events) is start-up's past once start-up completed."""
    if started:
        return [h for h in late if not know.startup_wait(h.text)]
    if not late or sum(know.wait_times(h.text) for h in late) >= PERIODIC_REPEATS:
        return late
    if all(know.periodic_wait(hang.text) for hang in late):
        return []
    return late


def _stopped(activity: list[Milestone], stuck: list[Milestone], hangs: list[Milestone],
             know: Causality) -> dict[Process, int]:
    """By the process that printed the engine's stats, when they end stuck (requests held,
    nothing processed) and the run ended halted after that (a hang line, or STUCK_REPEATS stuck
    intervals in a row): the line after its last stats with output read (only the first
    activity line of a kind after each stretch of anchored lines, and the last before one, is
    read: locate.py; none read, no line). Its answers after that line (a stream's `200` is logged as it starts, a
    poll needs no engine) show no engine output, so they save no engine's or worker's error
    before them (causality.yaml `engine_stats`)."""
    if know.engine_stats is None or not stuck:
        return {}
    stats: dict[Process, list[tuple[int, bool]]] = {}
    for milestone in activity:
        if milestone.kind is MilestoneKind.SERVING and know.engine_stats.search(milestone.text):
            stats.setdefault(milestone.process, []).append((milestone.line, False))
    for milestone in stuck:
        stats.setdefault(milestone.process, []).append((milestone.line, True))
    hang_lines = sorted(h.line for h in hangs)
    stopped: dict[Process, int] = {}
    for process, lines in stats.items():
        lines.sort()
        index = len(lines)
        while index and lines[index - 1][1]:
            index -= 1  # back over the stuck intervals the stats end on
        if index in (0, len(lines)):
            continue  # the stats end on output, or none with output was read before
        halted = len(lines) - index >= STUCK_REPEATS \
            or bisect_right(hang_lines, lines[index][0]) < len(hang_lines)
        if halted:
            stopped[process] = lines[index - 1][0] + 1
    return stopped


def _drivers_verdicts(nodes: dict[int, _Node], first_output: int | None,
                      know: Causality) -> tuple[list[int], list[int]]:
    """The errors of a run whose engine produced output (from `first_output` on) that are the
    program's that drives vLLM (a harness, a benchmark client, a trainer), not vLLM's failure
    (drivers.yaml, logsleuth/drivers.py): printed by a process none of vLLM's roles names
    (unprefixed, or a trainer's Ray actor), and
    - each one printed after that output that is that program's judgement of its task (a record
      of another logger than vLLM's, its usage error, a traceback through its code and not vLLM's
      engine, whose words report no failure of vLLM: a score under a threshold, a sample it could
      not parse, a results file it could not write; `judges_output`), and no native code's record
      (causality.yaml `native`: a CANN code, Neuron's runtime, which write for the engine);
    - then, when every other error of the run is a level-only record of such a logger naming
      nothing of vLLM's (`alone`; one pointing at no other error, no native logger's), those too,
      wherever they were printed: before the output the engine came up after them, and they
      stopped nothing (an evaluation harness's `ERROR - FAILED: Recovery thresholds not met`).
    In a run whose engine never produced output such an error may be all the log says of why,
    and stays the failure; one beside an error of vLLM's is weighed as any record is
    (`_pick_root`). The two lists, in the errors' order: those judged one at a time, and those
    set aside as a whole."""
    if first_output is None or not nodes:
        return [], []  # (drivers.yaml is loaded only when a run holds such an error)
    drivers = default_drivers()
    theirs = {key: node for key, node in nodes.items()
              if node.process_role in (Role.MAIN, Role.OTHER)}
    # (not native code's record: the runtime under the engine writes it unprefixed, a CANN code's
    # or Neuron's runtime's site is no driver's logger; causality.yaml `native`)
    judged = [key for key, node in theirs.items()
              if node.event.first_line > first_output and not node.corrupting
              and not know.logged_natively(node.event.site, node.event.exception)
              and drivers.judges_output(node.event)]
    rest = [key for key in nodes if key not in judged]
    if all(key in theirs and nodes[key].pointer is None
           and not know.logged_natively(nodes[key].event.site, nodes[key].event.exception)
           and drivers.alone(nodes[key].event) for key in rest):
        return judged, rest
    return judged, []


def _bare(event: ErrorEvent) -> bool:
    """An exception line printed alone: no traceback, no record introducing it, no chain."""
    return event.kind is EventKind.EXCEPTION and not event.frames and event.title is None \
        and event.cause_id is None and event.first_line == event.last_line


def _reported_interrupts(errors: list[ErrorEvent], know: Causality) -> set[int]:
    """The interrupts that stopped no program (causality.yaml `interrupts`): each raised in a
    process a deployment starts itself (`children`: an engine core, a worker), where no process
    of another kind was interrupted, and which a later error of a process that was not
    interrupted reports as a failure of its role (a symptom pointing at it: the API server's
    `Engine core initialization failed. See root cause above`, an engine core's `Worker proc ...
    died unexpectedly`). Ctrl-C reaches every process of the terminal's job, and the program's own
    process then stops too (its KeyboardInterrupt, uvicorn's shutdown); an interrupt that only a
    child got, whose parent went on to report it failed, is the failure the parent reports: the
    run did not end as asked (tests/fixtures/tuning: dd-v0230-py313-awq-engine-core-
    keyboardinterrupt-during-torch-compile, the engine core interrupted inside torch.compile).
    Not in a run whose lines show a shutdown asked for (uvicorn's, a signal received), before
    or after the interrupt: that stop is what reached the child. `errors` sorted by line."""
    interrupts = [e for e in errors if know.interrupts_process(e.exception)]
    if not interrupts or not all(know.is_child(e.process.name) for e in interrupts):
        return set()
    stopped = {e.process for e in interrupts}
    reported: set[int] = set()
    for interrupt in interrupts:
        role = know.role_of(interrupt.process.name)
        for later in errors:
            if later.first_line <= interrupt.last_line or later.process in stopped:
                continue
            symptom = know.symptom_of(later.text)
            # (an engine core's report of its worker, the API server's of its engine core)
            if symptom is not None and (symptom.points_to is None
                                        or role in _COMPATIBLE[symptom.points_to]):
                reported.add(interrupt.id)
                break
    return reported


def _bursts(nodes: dict[int, _Node], activity: list[Milestone]) -> dict[int, int]:
    """By error id, the last line of the burst it belongs to: errors printed one after the
    other (each within IN_FLIGHT lines of the one before), no engine's work logged between
    them. One failure is printed by every process it reaches at once (eight tensor-parallel workers'
    records of one failed KV transfer, native code's records of each between them): the requests
    in flight when it began are answered after the last of them, however long the burst, so the
    window of answers that may be in flight runs from its end, not from each copy's own line
    (tests/fixtures/tuning: k-ascend-v0110rc2-pd-1p1d-dp2-tp8-decode-mooncake-..., where the one
    request's 200 came 32 lines after the first record)."""
    # (a poll answered, a request refused: the HTTP server's own work, which goes on while the
    # engine's failure is printed)
    work = sorted(m.line for m in activity
                  if m.kind not in (MilestoneKind.ALIVE, MilestoneKind.REJECTED))
    ends: dict[int, int] = {}
    burst: list[int] = []
    last = 0
    for node in sorted(nodes.values(), key=lambda n: (n.event.first_line, n.event.id)):
        event = node.event
        if burst and (event.first_line - last > IN_FLIGHT
                      or _any_between(work, last, event.first_line)):
            ends.update(dict.fromkeys(burst, last))
            burst = []
        burst.append(event.id)
        last = max(last, event.last_line) if len(burst) > 1 else event.last_line
    ends.update(dict.fromkeys(burst, last))
    return ends


def _any_between(lines: list[int], after: int, before: int) -> bool:
    """Some line in the sorted list lies strictly between `after` and `before`."""
    index = bisect_right(lines, after)
    return index < len(lines) and lines[index] < before


class CausalGraph:
    """The errors of one run and how they follow from each other."""

    def __init__(self, nodes: dict[int, _Node], graph: nx.DiGraph[int] | None,
                 survived: list[ErrorEvent],
                 stalled: ErrorEvent | None, know: Causality | None = None,
                 named: frozenset[Role] = frozenset(),
                 refused: dict[int, int] | None = None):
        self._know = know or default_causality()
        # a request's error (raised on the HTTP server's request path) -> the line of the 4xx
        # answer that refused that request (`_refused_requests`)
        self._refused = refused or {}
        self._nodes = nodes
        self._graph = graph
        self._survived = survived
        self._stalled = stalled
        self._named = named  # the roles of the run's processes that a prefix names
        self._runs: tuple[Run, ...] = ()
        # the lines of the first failed test when the run's errors open on a test runner's
        # summary line (`_first_test`): its cause is among them, or not in the log
        self._first_test: tuple[int, int] | None = None

    @classmethod
    def build(cls, events: Iterable[Event], causality: Causality | None = None, *,
              last_line: str = "", line_count: int = 0, tail: str = "",
              folded: FoldedRuns | None = None) -> CausalGraph:
        """The graph of the run the report explains (the last that failed), with every run of
        the log summarised. `last_line` is the log's last line, which tells whether the log
        ended on a stalled progress bar; `tail`, its last lines, whether one of two deployments
        writing into it did (its last line a stalled bar, the other's output after it).
        `folded`: the runs before `events` folded as they ended (runfold.py)."""
        know = causality or default_causality()
        slices = split_runs(list(events), know)
        outcomes: list[Outcome] = []
        known: dict[RunKey, tuple[Outcome, int]] = {}  # identical runs are inferred once
        graphs: dict[int, CausalGraph] = {}
        before = 0  # runs folded as they ended (runfold.py): summarised, their events gone
        # the records earlier runs printed and went on past: benign evidence in the last run
        recurring = Recurring()
        if folded is not None and folded.runs:
            slices[0] = RunSlice(folded.start, slices[0].end_line, slices[0].events)
            known = dict(folded.known)
            outcomes = [run.outcome for run in folded.runs]
            before = len(outcomes)
            recurring = replace(folded.recurring, gone_past=dict(folded.recurring.gone_past))
        for index, run in enumerate(slices, before):
            last = index == before + len(slices) - 1
            key = run_key(run)
            if key in known and not last:
                outcome, start = known[key]
                outcomes.append(outcome.shifted(run.start_line - start, start_time(run)))
                recurring.add(run, outcomes[-1], key)
                continue
            graph = cls._build_run(run.events, know, last_line=last_line if last else "",
                                   line_count=line_count if last else 0,
                                   tail=tail if last else "", restarted=not last,
                                   benign=recurring.benign() if last and index else frozenset())
            outcome = outcome_of(graph._infer_run(), run)
            known.setdefault(key, (outcome, run.start_line))
            outcomes.append(outcome)
            if not last:
                recurring.add(run, outcome, key)
            # keep only the graphs that may still be the one explained (explained_index: the
            # last run that failed, else the last run): the last that failed so far and this
            # one (identical runs are inferred once; a log of many distinct failed runs kept
            # every one's graph)
            graphs = {i: g for i, g in graphs.items()
                      if outcome.verdict is Verdict.NO_FAILURE
                      and outcomes[i].verdict is not Verdict.NO_FAILURE}
            graphs[index] = graph
        explained = explained_index(outcomes)
        if explained < before:  # a folded run: the fold kept the events of its last failed one
            assert folded is not None and folded.explained == explained
            chosen = cls._build_run(folded.explained_events, know)
        else:
            chosen = graphs.get(explained) or cls._build_run(
                slices[explained - before].events, know,
                restarted=explained < before + len(slices) - 1)
        spans = [RunSpan.of(run) for run in slices]
        runs = [*folded.spans(), *spans] if folded is not None else spans
        chosen._runs = summarize(runs, outcomes, explained)
        return chosen

    @classmethod
    def infer_run(cls, events: Iterable[Event], causality: Causality) -> Inference:
        """The inference of one run that is not the log's last (runfold.py: a run folded as it
        ended is inferred as `build` would infer it)."""
        return cls._build_run(events, causality)._infer_run()

    @classmethod
    def _build_run(cls, events: Iterable[Event], know: Causality, *, last_line: str = "",
                   line_count: int = 0, tail: str = "", restarted: bool = True,
                   benign: frozenset[RecordKey] = frozenset()) -> CausalGraph:
        """Classify every error of one run and link them. `restarted`: a later run of the log
        followed this one (every run but the log's last; a folded run is never the last).
        `benign`: records every earlier run that printed them went on past (runs.Recurring),
        set aside as survived."""
        events = tuple(events)
        errors: list[ErrorEvent] = []
        activity: list[Milestone] = []
        hangs: list[Milestone] = []
        stuck: list[Milestone] = []  # stats of an engine holding requests and doing nothing
        starts: list[Milestone] = []
        reports: list[tuple[int, str]] = []  # a test report's section headers: lines, texts
        shutdown_from: int | None = None
        began = False  # the log shows this run's start (vLLM's start line, its first step)
        # output a test runner captured while a test ran, printed after the test's failure
        # (runs.py): it happened before the errors printed above it, so it shows no work, stop
        # or wait after them
        captured = captured_spans(events)
        for event in events:
            if isinstance(event, Milestone):
                began = began or event.kind is MilestoneKind.START or event.phase is Phase.INIT
                if event.kind is MilestoneKind.REPORT:
                    reports.append((event.line, event.text))
                if event.kind in _SECTIONS or captured and inside(captured, event.line):
                    continue
                if event.kind is MilestoneKind.HANG:
                    hangs.append(event)
                elif event.kind is MilestoneKind.STUCK:
                    stuck.append(event)
                elif event.kind is MilestoneKind.SHUTDOWN_REQUESTED:
                    shutdown_from = event.line if shutdown_from is None else min(shutdown_from,
                                                                                 event.line)
                elif event.kind is not MilestoneKind.START:
                    activity.append(event)
                else:
                    starts.append(event)
            else:
                errors.append(event)
        errors = _merge_crashes(_fold_recovered_asserts(
            _fold_native_echoes(sorted(errors, key=lambda e: (e.line, e.id)))))
        # (before a summary line folds into the report it restates: which test failed first)
        first_test = _first_test(errors, reports, know)
        errors = fold_record_heads(fold_restatements(_fold_mechanisms(errors, know), know))
        # a reporter's headline above the run's records that its own copy below restates
        records = sorted((e for e in events if isinstance(e, Milestone)), key=lambda m: m.line)
        errors = fold_headlines(errors, [m.line for m in records])
        # and one nothing restates, above the lead-up to it (not work after it)
        headline = lone_headline(errors, records)
        errors = _said_more(errors)
        warned = [e for e in errors if e.latent and not e.unraisable]
        errors, crashed = _unraisable_causes(errors, events, know)
        errors, explained = _latent_causes(errors, know)
        # (an operator's stop anywhere in the run, before or after it, is what the interrupt was)
        reported = _reported_interrupts(errors, know) if shutdown_from is None else set()
        interrupted = [e.first_line for e in errors if know.interrupts_process(e.exception)
                       and e.id not in reported]
        # the job's end its scheduler or owner decided (a time limit, a preemption, scancel),
        # after the run was up (ready, or output served), is a stop like an operator's; before
        # that it is what it says (a time limit: start-up ran out of time, a cause)
        up = min((m.line for m in activity
                  if m.kind in (MilestoneKind.READY, MilestoneKind.SERVING)), default=None)
        interrupted += [e.first_line for e in errors if up is not None and e.first_line > up
                        and know.ends_on_schedule(e.text)]
        # so is a kill that names no reason while the run was up and idle (an operator's kill
        # -9, a wrapper's timeout); one while it served is most often the OOM killer's
        interrupted += [e.first_line for e in errors if up is not None and e.first_line > up
                        and know.kills_idle(e.text) and not _serving_before(activity, e.first_line)]
        if interrupted:  # Ctrl-C, or the job's planned end: it and what follows are the stop
            first = min(interrupted) - 1
            shutdown_from = first if shutdown_from is None else min(shutdown_from, first)
        end = max((e.last_line for e in errors), default=0) + 1
        end = max([end, *(m.line + 1 for m in [*activity, *starts])])

        # the run's engine produced output from here on: a driver's records after it judge it
        first_output = min((m.line for m in activity if m.kind is MilestoneKind.SERVING),
                           default=None)
        # a test runner's sessions whose summary reports success: their errors were expected
        passed = passed_sessions(reports, default_drivers()) if reports else []
        nodes: dict[int, _Node] = {}
        shutdown_noise: list[ErrorEvent] = []  # and records that say they are harmless
        places: dict[int, int] = {}  # an error's place among them, were it set aside in turn
        steps = [*activity, *starts]  # once, not per error: an error-heavy log has thousands
        loop_exit = _loop_exit(errors, steps, know)
        for event in errors:
            if shutdown_from is not None and event.line > shutdown_from:
                shutdown_noise.append(event)  # errors of a shutdown the operator asked for
                continue
            if up is not None and event.first_line > up and know.tears_down(
                    [f"{frame.file}:{frame.function}" for frame in event.frames]):
                # a helper's teardown bookkeeping after the run was up (causality `teardown`)
                shutdown_noise.append(event)
                continue
            if any(after < event.first_line and event.last_line < before
                   for after, before in passed):
                shutdown_noise.append(event)  # part of a passing test (drivers.yaml)
                continue
            if _offline_exit(event, errors, steps, know):
                shutdown_noise.append(event)  # an offline program's exit (`offline_exits`)
                continue
            if event.id in loop_exit:
                shutdown_noise.append(event)  # a program's loop closing (`teardown`)
                continue
            if benign and record_key(event) in benign:
                shutdown_noise.append(event)  # earlier runs printed it and went on past it
                continue
            node = _classify(event, know)
            reporter = nodes.get(event.cause_id) if event.cause_id is not None else None
            if reporter is not None and know.reported_elsewhere(reporter.event.title):
                # an exception chained to a failure a driver reports (`reported_titles`) is the
                # rest of that report
                node = replace(node, role=EventRole.SYMPTOM, pointer=None, embedded=None)
            if event.id == headline:
                node = replace(node, headline=True)
            if node.role is EventRole.BENIGN:
                shutdown_noise.append(event)
            else:
                nodes[event.id] = node
                places[event.id] = len(shutdown_noise)
        # the driving program's errors (drivers.yaml): each judged one at its place among the
        # errors set aside, the run's others as a whole after them
        judged, alone = _drivers_verdicts(nodes, first_output, know)
        for key in reversed(judged):
            shutdown_noise.insert(places[key], nodes.pop(key).event)
        shutdown_noise += [nodes.pop(key).event for key in alone]
        _speakers(nodes, know)
        _placeless_copies(nodes)
        _exit_reports(nodes, events, know)
        _self_kills(nodes, know)
        for cause, crash in crashed:
            if cause in nodes and crash not in nodes:
                del nodes[cause]  # the crash was part of a stop, or harmless: so is its cause
        shutdown_noise = [e for e in shutdown_noise if not e.unraisable]
        processes = {e.process for e in errors} | {m.process for m in activity}
        servers = {p for p in processes
                   if p.pid is not None and know.role_of(p.name) is Role.API_SERVER}
        deployments = deployments_of(events, know)
        work = _Work.of(activity, list(servers), know, starts, deployments)
        work.restarted = restarted
        work.burst_ends = _bursts(nodes, activity)
        if not deployments.several:
            work.stopped = _stopped(activity, stuck, hangs, know)
        graph: nx.DiGraph[int] | None = None
        survived: list[ErrorEvent] = []
        refused = _refused_requests(nodes, work)
        if nodes:  # networkx (~0.2 s to import: all its algorithms) only for errors to link
            import networkx as nx
            graph = nx.DiGraph()
            graph.add_nodes_from(nodes)
            _link(graph, nodes, work, know)
            for cause, effect in [*_unbound_causes(nodes, know),
                                  *_restated_causes(nodes, know)]:
                # raised while handling the exception that left its variable unbound, or raised
                # from the exception it restates: chained
                if not graph.has_edge(effect, cause):
                    graph.add_edge(cause, effect, reason=LinkReason.CHAINED)
                nodes[effect] = replace(nodes[effect], role=EventRole.SYMPTOM)
            probes = _probes(nodes, know)
            for cause, effect in [*explained, *_handled_effects(nodes, know),
                                  *_probe_effects(nodes, probes, know)]:
                if cause in nodes and effect in nodes and not graph.has_edge(effect, cause):
                    graph.add_edge(cause, effect, reason=LinkReason.EXPLAINED)
            for cause, effect in crashed:
                if cause in nodes and effect in nodes and not graph.has_edge(effect, cause):
                    graph.add_edge(cause, effect, reason=LinkReason.UNRAISABLE)
            survived = _survivors(nodes, graph, work, end)
            for event in survived:
                graph.remove_node(event.id)
                del nodes[event.id]
            gone_past = _probes_gone_past(nodes, graph, probes, work, end)
            for event in gone_past:
                graph.remove_node(event.id)
                del nodes[event.id]
            if gone_past:
                survived = sorted([*survived, *gone_past], key=lambda e: (e.line, e.id))
        stalled = None
        if not nodes:
            late_hangs = _late_hangs(hangs, activity, deployments)
            late_stuck = _late_hangs(stuck, activity, deployments)
            if len(late_stuck) >= STUCK_REPEATS:
                late_hangs = sorted(late_hangs + late_stuck, key=lambda h: h.line)
            # A bar left unfinished after the run's engine produced output is the log read
            # while the run was working (a committed log file, a `tail` of a live server): a
            # stall without an error shows itself before the first output (NCCL or P2P set-up
            # hangs at the first collective), or by the hang lines below.
            # start-up is over once the server is ready or the engine sized its KV cache (an
            # offline run has no server: its last generate bar may end a finished script)
            started = bool(work.ready) or any(m.phase in _STARTED for m in activity)
            reached = {m.phase for m in activity if m.phase is not None}
            late_hangs = _standing_hangs(late_hangs, started, know)
            bar = _stalled(last_line, line_count, know, started=started, began=began,
                           reached=reached, asked=shutdown_from is not None, tail=tail,
                           raw=tail.rsplit("\n", 1)[-1]) \
                if not work.serving else None
            if bar is None and not late_hangs and deployments.several and tail:
                bar = _stall_of(tail, line_count, know, deployments, events, began=began)
            times = sum(know.wait_times(h.text) for h in late_hangs)  # (kubectl's `x20`)
            stalled = bar or (_hung(late_hangs[0], times) if late_hangs else None)
            if stalled is None and began and not started and not work.serving and tail:
                stalled = _waited(repeated_wait(tail, line_count))
            if stalled is None and not survived and not shutdown_noise and tail:
                # a paste of refused answers and nothing else (refused.py)
                stalled = _refused(refused_only(tail, line_count, know))
            warning = _warned_of(stalled, warned, know) if stalled is not None else None
            if stalled is None and not survived and not shutdown_noise:
                # a warning that no engine can start after it, then a start-up step and nothing
                # more: that step's error never reached the log (causality.yaml `latent`,
                # `dooms_startup`)
                warning, stalled = _doomed_startup(warned, activity, starts, know)
            if warning is not None and stalled is not None:
                # a warning that says why the wait cannot end (causality.yaml `latent`) is the
                # cause of the stall it explains: the failure, with the stall its symptom
                nodes, graph = _explained_stall(warning, stalled, know)
                stalled = None
        named = frozenset(know.role_of(p.name) for p in processes if p.pid is not None)
        chosen = cls(nodes, graph, survived + shutdown_noise, stalled, know, named, refused)
        chosen._first_test = first_test
        return chosen

    def infer(self) -> Inference:
        """Name the root cause, its symptoms and the verdict (of the run explained), and list
        every run."""
        inference = self._infer_run()
        return replace(inference, runs=self._runs) if self._runs else inference

    def _infer_run(self) -> Inference:
        nodes, graph = self._nodes, self._graph
        links = () if graph is None else \
            tuple(Link(a, b, data["reason"]) for a, b, data in graph.edges(data=True))
        failed = _unique_processes(n.event.process for n in nodes.values())
        if not nodes or graph is None:
            if self._stalled:
                look_for = (self._know.refused_advice if self._stalled.exception == REFUSED
                            else _look_for_stall())
                return Inference(Verdict.ROOT_CAUSE_MISSING, None, (self._stalled,),
                                 tuple(self._survived), (self._stalled.message,), links,
                                 (self._stalled.process,), look_for)
            return Inference(Verdict.NO_FAILURE, None, (), tuple(self._survived),
                             _refused_reasons(self._survived, self._refused), links, ())
        root = _pick_root(nodes, self._know, graph, self._named)
        other_tests: tuple[str, ...] = ()
        if root is not None and self._first_test is not None:
            first, last = self._first_test
            if not first <= root.event.line <= last:
                # the first failed test's cause is not in the log: the other tests' own errors
                # are theirs
                other_tests = (f"The first failed test (line {first}) failed only with a report "
                               f"of a failure elsewhere; an error of a later test (line "
                               f"{root.event.line}: {_quote(root.event.text, 80)}) is that "
                               "test's own, not its cause.",)
                root = None
        if root is None:
            # (the other tests' own errors are no symptoms of the first test's failure)
            reported = {i: n for i, n in nodes.items() if n.role is EventRole.SYMPTOM} \
                if other_tests else nodes
            symptoms = _symptom_list(reported, None, graph)
            reasons, look_for = _missing_root_advice(nodes)
            reasons = other_tests or reasons
            return Inference(Verdict.ROOT_CAUSE_MISSING, None, symptoms, tuple(self._survived),
                             reasons, links, failed, look_for)
        symptoms = _symptom_list(nodes, root, graph)
        probed = {e.id: package for e in self._survived if e.line < root.event.line
                  and (package := self._know.probed_package(e.exception, e.message, e.frames))}
        reasons = _reasons(root, nodes, graph, symptoms, self._survived, probed)
        if root.event.id in self._refused:
            reasons = (reasons[0], _refused_reason(root.event, self._refused[root.event.id]),
                       *reasons[1:])
        chain = _chain_of(root.event.id, nodes, graph)
        copies = tuple(n.event for n in nodes.values()
                       if n.event.id != root.event.id and _same_failure(n.event, root.event))
        return Inference(Verdict.FAILURE, root.event, symptoms, tuple(self._survived), reasons,
                         links, failed, chain=chain, copies=copies)


def _first_test(errors: list[ErrorEvent], reports: list[tuple[int, str]],
                know: Causality) -> tuple[int, int] | None:
    """The lines of the first failed test, when the run's first error is a test runner's summary
    line (`FAILED tests/x.py::test - <error>`, causality.yaml `restatements`) or sits in the
    section of a test's report (under pytest's `____ test_x ____`, causality.yaml
    `test_headings`), and the test failed only with reports of a failure elsewhere: that line
    or heading and what follows (a remote traceback a RayTaskError carries, the test's `E`
    lines, the output it captured), up to the next test's summary line or the next section of
    the report.

    pytest lists the failed tests in the order they ran, a section each and then a summary line
    each; each test is its own failure, set up and torn down on its own. A later test's error
    is no cause of an earlier test's: when the first test failed only with a report of a
    failure elsewhere (the engine core's `See root cause above`, vLLM's test helpers' word that
    the child process or the server they started exited), its cause is not in the log, whatever
    other tests failed of (an assertion of their own, another fixture's error). The summary
    line counts as the error it names, though it restates another's copy (folded later); so
    does pytest's place-and-type line (`utils.py:161: RuntimeError`) under the test's `E` lines
    of the same exception. None: not such a run, or the first test's own error is there."""
    ordered = sorted(errors, key=lambda e: (e.first_line, e.id))
    if not ordered:
        return None
    first = ordered[0].first_line
    if not know.restates(ordered[0].title):
        heading = max(((line, text) for line, text in reports if line < first), default=None)
        if heading is None or not know.heads_test(heading[1]):
            return None
        first = heading[0]
    bounds = [e.first_line for e in ordered if know.restates(e.title) and e.first_line > first]
    bounds += [line for line, _ in reports if line > first]
    last = min(bounds, default=max(e.last_line for e in ordered) + 1) - 1
    test = [e for e in ordered if first <= e.first_line <= last]
    named = {e.exception for e in test if e.text != e.exception}
    if any(_classify(e, know).role is not EventRole.SYMPTOM for e in test
           if not (_bare(e) and e.text == e.exception and e.exception in named)):
        return None
    return first, last


def _survivors(nodes: dict[int, _Node], graph: nx.DiGraph[int], work: _Work,
               end: int) -> list[ErrorEvent]:
    """The errors their process or engine went on working after, with nothing unsurvived
    following from them. Latest first, so that what follows an error is decided before it.

    Then recurrences: a request handler's error (an API server's, or an unnamed process's record
    without a traceback) that its process already went on working after once (the same failure,
    or the same logger call site) is survived again when nothing unsurvived follows from it, even
    where the log ends before the process shows work again (a log cut after the last one). Not
    an engine's exception: its copies are printed with answers in flight between them. Then once
    more latest first, for the errors whose effects that settled."""
    ordered = sorted(nodes.values(), key=lambda n: (n.event.line, n.event.id))
    survived: set[int] = set()

    def settled(node: _Node) -> bool:
        return all(effect in survived for effect in graph.successors(node.event.id))

    def latest_first() -> None:
        for node in reversed(ordered):
            if node.event.id not in survived and work.worked_after(node, end) and settled(node):
                survived.add(node.event.id)

    latest_first()
    # a request's error that vLLM catches and answers: survived, whether or not the log goes on
    # to show the server working, unless something unsurvived follows from it
    for node in reversed(ordered):
        if node.handled and node.event.id not in survived and settled(node):
            survived.add(node.event.id)
    # the first error of each recurrence key that its process went on working after
    lived: dict[tuple[Process | str, str], int] = {}
    for node in ordered:
        if work.worked_after(node, end):
            for key in _recurrence_keys(node, lived=True):
                lived.setdefault(key, node.event.line)
    for node in reversed(ordered):  # latest first: what follows a copy is decided before it
        if node.event.id not in survived and _may_recur(node) and settled(node) \
                and any(lived.get(key, end) < node.event.line for key in _recurrence_keys(node)):
            survived.add(node.event.id)
    latest_first()
    return sorted((nodes[i].event for i in survived), key=lambda e: (e.line, e.id))


def _may_recur(node: _Node) -> bool:
    """A request handler's error, which its process may log once per request and survive; or
    an exception of a program's own process that is none of vLLM's (`_task_error`)."""
    if node.pointer is not None:
        return False  # a report that a failure happened elsewhere
    # (and an exception printed alone, which code caught and printed: each process that
    # imports the same library prints it again)
    return _may_be_request_error(node) or _bare(node.event) or _task_error(node)


def _task_error(node: _Node) -> bool:
    """An exception (or a traceback cut before it) of a process that is none of vLLM's roles: a
    program's own actors around its engines (an RL trainer's agent loop, its reward workers, Ray
    Serve's replicas) run one task per item and catch and log what one item raised (a model's
    answer the loop could not parse) while the run goes on. Not a sticky device error, nor an
    uncaught exit or a native death."""
    return node.process_role is Role.OTHER and not node.corrupting and not node.exit \
        and not node.dies and node.event.kind in (EventKind.EXCEPTION, EventKind.ERROR_RECORD) \
        and (node.event.kind is EventKind.EXCEPTION or node.event.exception == CUT_TRACEBACK)


def _may_be_request_error(node: _Node) -> bool:
    """An error the HTTP server may have hit while handling one request: an API server's, one
    its frames or call site place in a request handler, or an unnamed process's error record
    (no traceback: a V0 server prints its request errors unprefixed). Not a sticky CUDA error,
    which no request survives, nor a record native code wrote unprefixed for a named process
    (`_speakers`: a KV-transfer engine's glog lines among its worker's records), which is that
    process's, not a request handler's."""
    if node.corrupting or node.speaks_for is not None:
        return False
    return node.process_role is Role.API_SERVER or node.request or (
        node.process_role is Role.MAIN and node.event.kind is EventKind.ERROR_RECORD)


def _recurrence_keys(node: _Node, *, lived: bool = False) -> list[tuple[Process | str, str]]:
    """What makes two errors of one process the same recurring error: the same masked failure,
    or the same logger call site. For a task's error (`_task_error`) also, in any process of the
    same name (Ray's actors of one class, each a replica running the same code), the same
    exception class with a message that opens with the same words (`_HEAD_WORDS`, masked: a
    message that goes on to quote the input it failed on, a model's answer), and a traceback cut
    before its exception line is a copy of an exception raised in the function its innermost
    frame names. `lived`: the keys an error its process went on from gives its later copies."""
    event = node.event
    keys: list[tuple[Process | str, str]] = [(event.process, "\0".join(node.fingerprint))]
    if event.site:
        keys.append((event.process, event.site))
    if _task_error(node):
        name = event.process.name
        cut = event.exception == CUT_TRACEBACK
        if not cut:
            head = " ".join(node.fingerprint[1].split()[:_HEAD_WORDS])
            keys.append((name, f"{node.fingerprint[0]}\0{head}"))
        if event.frames and (cut or lived):
            keys.append((name, f"{event.frames[-1].file}:{event.frames[-1].function}"))
    return keys


_HEAD_WORDS = 5  # the words a task's recurring message opens with (`_recurrence_keys`)


_CRASH_WINDOW = 60  # lines: one crash prints its signal banner and its Python stack together
_FAULTHANDLER = "Fatal Python error"


_CHAINS = (ChainReason.DIRECT_CAUSE, ChainReason.DURING_HANDLING)
_SECTIONS = (MilestoneKind.CAPTURED, MilestoneKind.REPORT)  # a test report's, not vLLM's


def _fold_mechanisms(errors: list[ErrorEvent], know: Causality) -> list[ErrorEvent]:
    """The errors without those that are only how the exception raised from them came about
    (causality.yaml `mechanisms`: the CancelledError an asyncio timeout raises its TimeoutError
    from). The exception raised from one takes its place: its lines and its logged title."""
    by_id = {e.id: e for e in errors}
    folded: dict[int, ErrorEvent] = {}  # mechanism id -> the exception raised from it
    for event in errors:
        cause = by_id.get(event.cause_id) if event.cause_id is not None else None
        # either chain: Python < 3.11's asyncio raises the TimeoutError while it handles the
        # CancelledError ("During handling of the above exception"), 3.11+ raises it `from` it
        if cause is not None and event.cause_reason in _CHAINS \
                and cause.process == event.process \
                and know.is_mechanism(cause.exception, event.exception):
            folded[cause.id] = event
    if not folded:
        return errors
    out: list[ErrorEvent] = []
    for event in errors:
        if event.id in folded:
            continue
        mechanisms = [m for m, effect in folded.items() if effect.id == event.id]
        if mechanisms:
            mechanism = by_id[mechanisms[0]]
            event = replace(event, first_line=min(event.first_line, mechanism.first_line),
                            title=event.title or mechanism.title, cause_id=mechanism.cause_id,
                            cause_reason=mechanism.cause_reason)
        out.append(event)
    return out


def _warned_of(stalled: ErrorEvent, warned: list[ErrorEvent],
               know: Causality) -> ErrorEvent | None:
    """The last warning before a stall that says why it cannot end (causality.yaml `latent`:
    the Ray placement group needs more GPUs than the cluster has, then the engine waits)."""
    # (at or before: Ray Serve's controller says on one line that replicas wait and why)
    before = [w for w in warned if w.last_line <= stalled.first_line
              and know.explains(w.title or "", stalled.text)]
    return before[-1] if before else None


def _doomed_startup(warned: list[ErrorEvent], activity: list[Milestone],
                    starts: list[Milestone], know: Causality
                    ) -> tuple[ErrorEvent | None, ErrorEvent | None]:
    """The last warning that says no engine can start after it (causality.yaml `latent`,
    `dooms_startup`: no platform detected) that the run's start-up goes on from (a start line,
    an init phase line) with nothing else after it (no later step, no output, no answer), and
    the first such step, as the stall the warning explains; (None, None) when there is none."""
    for warning in reversed([w for w in warned if know.dooms_startup(w.title or "")]):
        after = sorted((m for m in [*activity, *starts] if m.line > warning.last_line),
                       key=lambda m: m.line)
        if any(m.kind is not MilestoneKind.START and m.phase is not Phase.INIT for m in after):
            return None, None  # the run went on past building its engine: it had a device
        if after:
            step = after[0]
            message = (f"vLLM went on to start an engine after it ('{step.text.strip()[:120]}'), "
                       "which cannot run without a platform, and the log ends before any "
                       "start-up step completed: the error it met is not in the log")
            return warning, ErrorEvent(0, EventKind.ERROR_RECORD, STALLED, message, step.process,
                                       step.line, step.line, step.line)
    return None, None


def _explained_stall(warning: ErrorEvent, stalled: ErrorEvent, know: Causality
                     ) -> tuple[dict[int, _Node], nx.DiGraph[int]]:
    """The graph of a stall a warning explains: the warning, a cause, and the stall after it."""
    import networkx as nx
    stall = replace(stalled, id=warning.id + 1_000_000_000)  # no assembled event's id
    nodes = {warning.id: _classify(warning, know),
             stall.id: _Node(stall, EventRole.SYMPTOM, know.role_of(stall.process.name), None,
                             None)}
    graph: nx.DiGraph[int] = nx.DiGraph()
    graph.add_edge(warning.id, stall.id, reason=LinkReason.EXPLAINED)
    return nodes, graph


def _handled_effects(nodes: dict[int, _Node], know: Causality) -> list[tuple[int, int]]:
    """(handled error, error) pairs for the errors a client made of an answer a parser's
    handled error left short (causality.yaml `handled.explains`): each follows from the nearest
    handled error before it."""
    ordered = sorted(nodes.values(), key=lambda n: (n.event.line, n.event.id))
    pairs: list[tuple[int, int]] = []
    handled: _Node | None = None
    for node in ordered:
        if node.handled and node.role is EventRole.CAUSE:
            handled = node
        elif handled is not None and node.role is EventRole.CAUSE and not node.request \
                and handled.event.last_line < node.event.first_line \
                and know.follows_handled(node.event.text):
            pairs.append((handled.event.id, node.event.id))
    return pairs


def _probes(nodes: dict[int, _Node], know: Causality) -> dict[int, str]:
    """By error id, the optional package whose trial import by vLLM's probe failed
    (causality.yaml `optional_imports`): the causes that are such a failure."""
    found: dict[int, str] = {}
    for node in nodes.values():
        if node.role is EventRole.CAUSE and node.event.kind is EventKind.EXCEPTION:
            package = know.probed_package(node.event.exception, node.event.message,
                                          node.event.frames)
            if package is not None:
                found[node.event.id] = package
    return found


def _probe_effects(nodes: dict[int, _Node], probes: dict[int, str],
                   know: Causality) -> list[tuple[int, int]]:
    """(probe, error) pairs: a later error that names the package whose import failed (vLLM
    went on without it, and then needed it: `DeepGEMM backend is not available`) follows from
    the nearest such failure before it."""
    if not probes:
        return []
    # (the probes alone, in log order: a log holds few of them and may hold thousands of errors)
    probe_nodes = sorted((nodes[i] for i in probes if i in nodes),
                         key=lambda n: (n.event.line, n.event.id))
    pairs: list[tuple[int, int]] = []
    for node in sorted(nodes.values(), key=lambda n: (n.event.line, n.event.id)):
        if node.event.id in probes:
            continue
        before = [n for n in probe_nodes if n.event.last_line < node.event.first_line
                  and know.names_package(probes[n.event.id], node.event.text)]
        if before:
            pairs.append((before[-1].event.id, node.event.id))
    return pairs


# the links that say a later error follows from an earlier one, by what the later one says or
# how Python printed it; not where it was printed (`PROCESS_ORDER`, `POINTER`: a presumption)
_FOLLOWS = frozenset({LinkReason.CHAINED, LinkReason.EMBEDDED, LinkReason.EXPLAINED})


def _probes_gone_past(nodes: dict[int, _Node], graph: nx.DiGraph[int], probes: dict[int, str],
                      work: _Work, end: int) -> list[ErrorEvent]:
    """The failed trial imports of optional packages (`_probes`) that the run went on past: the
    run completed its start-up or served output after one (any process: vLLM goes on without
    the package by design, and a bare line says not whose it was), or a later cause, no
    request's, that does not follow from the import (it names no spelling of the package) is
    the failure vLLM went on to. With neither, the import failure stays the likeliest reason
    the run stopped (an older vLLM imported the package outright)."""
    gone: list[ErrorEvent] = []
    for probe_id in probes:
        if probe_id not in nodes:
            continue
        probe = nodes[probe_id]
        edges = [(b, data["reason"]) for _, b, data in graph.out_edges(probe_id, data=True)]
        if any(reason in _FOLLOWS for _, reason in edges):
            continue
        after = probe.event.last_line
        copies = {b for b, reason in edges if reason is LinkReason.DUPLICATE}
        if _any_between(work.ready, after, end) or _any_between(work.serving, after, end) \
                or any(node.role is EventRole.CAUSE and node.event.id not in probes
                       and node.event.id not in copies and not node.handled and not node.request
                       and node.event.first_line > after for node in nodes.values()):
            gone.append(probe.event)
    return gone


def _unbound_causes(nodes: dict[int, _Node], know: Causality) -> list[tuple[int, int]]:
    """(cause, UnboundLocalError) pairs: an UnboundLocalError whose variable another exception
    of its process, printed near it before or after, failed to bind (a frame of that exception's
    traceback is the statement that binds it: causality.yaml `unbound`) was raised while that
    exception was handled, in the same function where the UnboundLocalError's own frames say
    which; the nearest such exception is its cause."""
    pairs: list[tuple[int, int]] = []
    for node in nodes.values():
        event = node.event
        if node.role is not EventRole.CAUSE or "UnboundLocalError" not in event.exception:
            continue
        variable = know.unbound_variable(event.text)
        if variable is None:
            continue
        function = event.frames[-1].function if event.frames else None
        causes = [other for other in nodes.values()
                  if other is not node and other.role is EventRole.CAUSE
                  and other.event.process == event.process
                  and abs(other.event.line - event.line) <= _COPY_WINDOW
                  and know.unbound_variable(other.event.text) is None
                  and any(know.binds(frame.code, variable)
                          and function in (None, frame.function) for frame in other.event.frames)]
        if causes:
            cause = min(causes, key=lambda other: (abs(other.event.line - event.line),
                                                   other.event.line))
            pairs.append((cause.event.id, event.id))
    return pairs


_RESTATED_REACH = 12  # lines between an exception and the one that restates it as it happened


def _restated_causes(nodes: dict[int, _Node], know: Causality) -> list[tuple[int, int]]:
    """(cause, restatement) pairs: an exception whose message is another's headline followed by
    what was under way when it happened (causality.yaml `restated`: `CUDA out of memory
    occurred when warming up sampler ...` after or before `CUDA out of memory.`), printed by the
    same process within a few lines of it in either order, was raised from it."""
    exceptions = sorted((n for n in nodes.values() if n.role is EventRole.CAUSE
                         and n.event.kind is EventKind.EXCEPTION),
                        key=lambda n: n.event.first_line)
    starts = [n.event.first_line for n in exceptions]
    by_end = sorted(exceptions, key=lambda n: n.event.last_line)
    ends = [n.event.last_line for n in by_end]
    pairs: list[tuple[int, int]] = []
    for node in exceptions:
        # its first sentence: torch's `CUDA out of memory. Tried to allocate ...` on one line
        headline = _first_line(node.event.message).strip().partition(". ")[0].rstrip(".:!")
        event = node.event
        # those that begin within reach after it, and those that end within reach before it
        # (looked up, not scanned: an error-heavy log holds thousands of exceptions)
        after = exceptions[bisect_left(starts, event.last_line):
                           bisect_right(starts, event.last_line + _RESTATED_REACH)]
        before = by_end[bisect_left(ends, event.first_line - _RESTATED_REACH):
                        bisect_right(ends, event.first_line)]
        for other in {id(n): n for n in [*before, *after]}.values():
            if other is not node and other.event.process == event.process \
                    and know.raised_from_headline(other.event.message, headline):
                pairs.append((event.id, other.event.id))
    return pairs


def _said_more(errors: list[ErrorEvent]) -> list[ErrorEvent]:
    """A failing warning (causality.yaml `failing_warnings`: logged while a model step's
    exception is handled, quoting an error) is the failure only when no later error of its
    process says more: the step's own traceback after it, even one cut before its exception
    line, is that failure (and where it is cut, the cause is missing, not the warning's)."""
    if not any(event.failing_warning for event in errors):
        return errors
    last: dict[Process, int] = {}  # by process, where its last error that is no warning begins
    for event in errors:
        if not event.failing_warning:
            last[event.process] = max(last.get(event.process, 0), event.first_line)
    return [event for event in errors
            if not event.failing_warning or last.get(event.process, 0) <= event.last_line]


def _latent_causes(errors: list[ErrorEvent], know: Causality
                   ) -> tuple[list[ErrorEvent], list[tuple[int, int]]]:
    """The errors without the warnings no later error follows from, and (warning, error) pairs
    for those that one does (causality.yaml `latent`): each error is explained by the nearest
    such warning before it, its own process's first (vLLM's processes each import the kernels
    and warn)."""
    warnings = [e for e in errors if e.latent and not e.unraisable]
    if not warnings:
        return errors, []
    pairs: list[tuple[int, int]] = []
    reported: set[int] = set()  # warnings a diagnostic script's later error leaves the failure
    for event in errors:
        if event.latent:
            continue
        before = [w for w in warnings if w.last_line < event.first_line
                  and know.explains(w.title or "", event.text)]
        if before:
            own = [w for w in before if w.process == event.process]
            pairs.append(((own or before)[-1].id, event.id))
        elif know.diagnostic(event.frames):
            # an environment report run after the failure the warning reports, whose own error
            # does not follow from it: the warning stands as an error of its own (_pick_root
            # puts the script's error after it)
            reported.update(w.id for w in warnings if w.last_line < event.first_line
                            and know.diagnosed(w.title or ""))
    used = {cause for cause, _ in pairs} | reported
    return [e for e in errors if not e.latent or e.unraisable or e.id in used], pairs


_SPEAKER_WINDOW = 30  # lines from a named process's error to a native record it wrote unprefixed


def _placeless_copies(nodes: dict[int, _Node]) -> None:
    """An exception printed without frames (cut above its exception line) is a symptom when the
    same exception, raised where a symptom is (causality.yaml `raised_at`), is a symptom in
    another process: several processes raising one exception at once (workers' signal handlers
    as they are stopped) are one event, and the copies whose place was cut show nothing else."""
    placed = {n.fingerprint: n for n in nodes.values()
              if n.role is EventRole.SYMPTOM and n.event.frames}
    if not placed:
        return
    for key, node in list(nodes.items()):
        twin = placed.get(node.fingerprint)
        if node.role is EventRole.CAUSE and not node.event.frames and twin is not None \
                and twin.event.process != node.event.process \
                and node.event.kind is EventKind.EXCEPTION:
            nodes[key] = replace(node, role=EventRole.SYMPTOM, pointer=twin.pointer)


def _speakers(nodes: dict[int, _Node], know: Causality) -> None:
    """Give each unprefixed record native code logged (causality.yaml `native`: torch's NCCL
    watchdog, NCCL's WARN) the named process whose error it follows within a few lines: native
    code writes to the process's stderr around vLLM's prefix, so it is that process's output, and
    only work that could be that process's deployment's saves it (in a log another deployment
    writes into as well, its serving does not)."""
    named = [n.event for n in nodes.values() if n.event.process.pid is not None]
    if not named:
        return
    ends = sorted((e.last_line, e.process) for e in named)
    starts = sorted((e.first_line, e.process) for e in named)
    end_lines, start_lines = [line for line, _ in ends], [line for line, _ in starts]
    for key, node in list(nodes.items()):
        event = node.event
        if event.process.pid is not None or event.kind is not EventKind.ERROR_RECORD \
                or node.process_role is not Role.MAIN \
                or not know.logged_natively(event.site, event.exception):
            continue
        # the nearest named error before it or after it (NCCL's WARN, then the worker's error)
        near: list[tuple[int, Process]] = []
        before = bisect_left(end_lines, event.first_line) - 1
        if before >= 0:
            near.append((event.first_line - ends[before][0], ends[before][1]))
        after = bisect_right(start_lines, event.last_line)
        if after < len(starts):
            near.append((starts[after][0] - event.last_line, starts[after][1]))
        gap, process = min(near, key=lambda pair: pair[0], default=(_SPEAKER_WINDOW + 1, None))
        if process is not None and gap <= _SPEAKER_WINDOW:
            nodes[key] = replace(node, speaks_for=process)


def _exit_reports(nodes: dict[int, _Node], events: tuple[Event, ...], know: Causality) -> None:
    """Make each level-only record (no exception named: `[ERROR] ... ERR99999 UNKNOWN
    applicaiton exception`) that a process printed within `exit_reports.within` lines after its
    own uncaught exception (a traceback printed raw), with nothing else of that process between
    but such records and records that report a failure elsewhere, a symptom of that exception:
    the process's report that it exited. Only a process its prefix names (a pid): unprefixed
    output is several processes at once, unless the record is on the very next line after the
    uncaught exception's last."""
    window = know.exit_report_within
    if window <= 0:
        return
    # everything each named process printed, in order: (line, error node or None for work)
    said: dict[Process, list[tuple[int, _Node | None]]] = {}
    for node in nodes.values():
        if node.event.process.pid is not None:
            said.setdefault(node.event.process, []).append((node.event.first_line, node))
    for event in events:
        if isinstance(event, Milestone) and event.process in said \
                and event.kind not in _SECTIONS:
            said[event.process].append((event.line, None))
    for lines in said.values():
        last: _Node | None = None  # the uncaught exception the process may be exiting over
        end = 0  # the last line of it, or of the exit report after it
        for _, said_node in sorted(lines, key=lambda pair: (pair[0], pair[1] is not None)):
            if said_node is None:
                last = None  # a step or output of its own: it went on
                continue
            node = said_node
            event = node.event
            if last is not None and event.kind is EventKind.ERROR_RECORD \
                    and 0 < event.first_line - end <= window:
                if node.role is EventRole.SYMPTOM:  # a record that reports a failure elsewhere
                    end = event.last_line  # (Ray's `Unhandled error`) is teardown too
                    continue
                if event.exception in _LEVEL_LABELS:
                    nodes[event.id] = replace(node, role=EventRole.SYMPTOM,
                                              exit_of=last.event.id)
                    end = event.last_line
                    continue
            uncaught = event.kind is EventKind.EXCEPTION and event.raw and bool(event.frames)
            last, end = (node, event.last_line) if uncaught else (None, 0)
    # An unprefixed record may be any process's, except where it comes on the line right after
    # an uncaught exception's last: nothing came between, so it is the exit report of the
    # process that printed that exception (an offline script's TypeError, then torch_npu's
    # `[ERROR] ... ERR99999 UNKNOWN applicaiton exception` as the interpreter exits; behind
    # torchrun's `[rank0]: ` prefix the exception, the record printed bare after it). Not after
    # a report of a failure elsewhere (`Engine core initialization failed`): the record may be
    # the failed process's, the only sign of its failure.
    ordered = sorted(nodes.values(), key=lambda n: (n.event.first_line, n.event.id))
    for before, node in zip(ordered, ordered[1:]):
        event, raised = node.event, before.event
        if event.kind is EventKind.ERROR_RECORD and event.exception in _LEVEL_LABELS \
                and event.process.pid is None and node.role is not EventRole.SYMPTOM \
                and before.role is EventRole.CAUSE and raised.kind is EventKind.EXCEPTION \
                and raised.raw and bool(raised.frames) \
                and event.first_line == raised.last_line + 1:
            nodes[event.id] = replace(node, role=EventRole.SYMPTOM, exit_of=raised.id)


def _self_kills(nodes: dict[int, _Node], know: Causality) -> None:
    """Make a kill report that names no reason (a shell's `Killed`, exit 137: `idle_kills`)
    printed within `self_kills.within` lines after a record that says its process kills its own
    process tree (`self_kills.records`: 0.8's engine client on a worker's fatal signal) a
    symptom of that record: the kill is vLLM's own, not one from outside. The report is the
    shell's, unprefixed, or the same process's."""
    window = know.self_kill_within
    if window <= 0 or not know.self_kills:
        return
    ordered = sorted(nodes.values(), key=lambda n: (n.event.first_line, n.event.id))
    killer: _Node | None = None  # the last record that announced a kill of its own tree
    for node in ordered:
        event = node.event
        if know.kills_itself(event.text):
            killer = node
            continue
        if killer is not None and know.kills_idle(event.text) \
                and 0 < event.first_line - killer.event.last_line <= window \
                and event.process.pid in (None, killer.event.process.pid):
            nodes[event.id] = replace(node, role=EventRole.SYMPTOM, exit_of=killer.event.id)


def _unraisable_causes(errors: list[ErrorEvent], events: tuple[Event, ...], know: Causality
                       ) -> tuple[list[ErrorEvent], list[tuple[int, int]]]:
    """The errors without the unraisable exceptions no native death follows from, and
    (exception, crash) pairs for those one does (causality.yaml `unraisable`): each crash of the
    kinds listed is caused by the nearest unraisable exception before it, within the window, of
    its own process (any process for an unprefixed crash), when nothing else of either process
    came between (no error, no lifecycle line) and that process had reported no error before
    the exception (a teardown after a failure is the failure's). `errors` is sorted by line."""
    if not any(e.unraisable for e in errors):
        return errors, []
    seen: dict[Process, list[int]] = {}  # the lines where each process reported anything
    failed: dict[Process, list[int]] = {}  # and where it reported an error
    for event in events:
        if isinstance(event, Milestone):
            seen.setdefault(event.process, []).append(event.line)
        elif not event.latent:
            seen.setdefault(event.process, []).append(event.first_line)
            failed.setdefault(event.process, []).append(event.first_line)
    for lines in (*seen.values(), *failed.values()):
        lines.sort()
    pairs: list[tuple[int, int]] = []
    for index, crash in enumerate(errors):
        if crash.latent or not know.is_death(crash.text):
            continue
        anyone = crash.process.pid is None and know.role_of(crash.process.name) is Role.MAIN
        for before in reversed(errors[:index]):
            if crash.first_line - before.last_line > know.unraisable_within:
                break
            if not before.unraisable or before.last_line >= crash.first_line \
                    or not (anyone or before.process == crash.process):
                continue
            quiet = all(not _any_between(seen.get(p, []), before.last_line, crash.first_line)
                        for p in {before.process, crash.process})
            if quiet and bisect_left(failed.get(before.process, []), before.first_line) == 0:
                pairs.append((before.id, crash.id))
            break
    used = {cause for cause, _ in pairs}
    # (a destructor's on a half-built object is a symptom of its constructor's failure)
    return [e for e in errors if not e.unraisable or e.id in used
            or know.built_half(e.title, e.text)], pairs


def _fold_native_echoes(errors: list[ErrorEvent]) -> list[ErrorEvent]:
    """The errors without a native CHECK line that a later exception repeats word for word.

    vLLM's cumem allocator prints `CUDA Error: out of memory at csrc/cumem_allocator.cpp:139` to
    stderr, unprefixed, and (since vLLM PR 12981) the Python code that called it raises
    `RuntimeError: CUDA Error: out of memory at ...` with the same text, its process and stack.
    The exception is that failure as printed in full: it takes the line's place (and its first
    line). A native line no exception repeats (before the PR: the process went on, then crashed)
    stays the error it is. `errors` is sorted by line.
    """
    lines = [e.line for e in errors]
    folded: dict[int, int] = {}  # the exception's id -> the first native line it repeats
    dropped: set[int] = set()
    for event in errors:
        if event.kind is not EventKind.FATAL or event.frames or not event.message \
                or event.first_line != event.last_line:
            continue
        said = _first_line(event.text)
        start = bisect_right(lines, event.line)
        for later in errors[start:]:
            if later.first_line - event.last_line > _COPY_WINDOW:
                break
            if later.kind is EventKind.EXCEPTION and not later.latent \
                    and later.exception != event.exception \
                    and _first_line(later.message).startswith(said):
                dropped.add(event.id)
                folded[later.id] = min(folded.get(later.id, event.first_line), event.first_line)
                break
    return _without_folded(errors, dropped, folded)


_HOST_ASSERT = "assertion failure"  # grammar.py's label for glibc's `...: Assertion `x' failed.`
_COMPILER_ERROR = "compiler error"


def _fold_recovered_asserts(errors: list[ErrorEvent]) -> list[ErrorEvent]:
    """The errors without a host assert() that a compiler caught and reported as its own error.

    A failed C/C++ assert aborts its process, so it is the failure. MLIR's crash recovery (Triton's
    compiler) catches that abort inside a pass instead and fails the pass: `x.py:262:0: error:
    Failures have been detected while processing an MLIR pass pipeline` follows in the same
    process, and that error is what the run died of. The assert is its detail: it joins that
    error (whose first line it becomes) instead of being an error of its own. `errors` is sorted.
    """
    dropped: set[int] = set()
    folded: dict[int, int] = {}  # the compiler error's id -> the first assert it reports
    for index, event in enumerate(errors):
        if event.exception != _HOST_ASSERT:
            continue
        for later in errors[index + 1:]:
            if later.first_line - event.last_line > _COPY_WINDOW:
                break
            if later.exception == _COMPILER_ERROR and later.process == event.process:
                dropped.add(event.id)
                folded[later.id] = min(folded.get(later.id, event.first_line), event.first_line)
                break
    return _without_folded(errors, dropped, folded)


def _without_folded(errors: list[ErrorEvent], dropped: set[int],
                    folded: dict[int, int]) -> list[ErrorEvent]:
    """`errors` less the `dropped` ones, each error that took one in starting at the first line of
    what it took (`folded`: its id -> that line)."""
    if not dropped:
        return errors
    return [replace(e, first_line=min(e.first_line, folded[e.id])) if e.id in folded else e
            for e in errors if e.id not in dropped]


def _merge_crashes(errors: list[ErrorEvent]) -> list[ErrorEvent]:
    """One native crash of one process is one error.

    A segfault prints absl's `*** SIGSEGV received` banner, Ray's copy of it through its C++
    logger, then faulthandler's `Fatal Python error: Segmentation fault` with the Python stack.
    They become one FATAL event spanning all of them, named after faulthandler's line (which has
    the frames) when there is one.
    """
    merged: list[ErrorEvent] = []
    open_crash: dict[tuple[int | None, str], int] = {}  # process -> index in merged
    for event in errors:
        key = (event.process.pid, event.process.name)
        index = open_crash.get(key)
        if event.kind is EventKind.FATAL and index is not None \
                and event.first_line - merged[index].last_line <= _CRASH_WINDOW:
            merged[index] = _join_crash(merged[index], event)
            continue
        if event.kind is EventKind.FATAL:
            open_crash[key] = len(merged)
        merged.append(event)
    return merged


def _join_crash(first: ErrorEvent, later: ErrorEvent) -> ErrorEvent:
    named = later if later.exception == _FAULTHANDLER or first.exception != _FAULTHANDLER \
        and len(later.frames) > len(first.frames) else first
    return replace(named, id=first.id, first_line=min(first.first_line, later.first_line),
                   last_line=max(first.last_line, later.last_line))


def _classify(event: ErrorEvent, know: Causality) -> _Node:
    node = _classify_text(event, know)
    if event.kind is EventKind.FATAL and know.is_death(event.text):
        return replace(node, dies=True)
    return node


def _classify_text(event: ErrorEvent, know: Causality) -> _Node:
    mark = fingerprint(event)
    process_role = know.role_of(event.process.name)
    text = event.text
    corrupting = know.corrupts(text)
    places = [f"{frame.file}:{frame.function}" for frame in event.frames]
    handled = not corrupting and process_role in (Role.API_SERVER, Role.MAIN) \
        and know.handles(event.site, places, event.title)
    request = not corrupting and not handled and process_role in (Role.API_SERVER, Role.MAIN) \
        and know.in_request(event.site, places)
    # a request the client must change (too long for the context): refused by design, as a
    # parser's error is answered (causality.yaml `requests.clients`)
    if request and know.client_fault(text):
        handled, request = True, False
    if event.kind is EventKind.ERROR_RECORD and not corrupting and know.declares_harmless(text):
        # its own text says it does not stop the program (causality.yaml `harmless`); a sticky
        # CUDA error it names still does
        return _Node(event, EventRole.BENIGN, process_role, None, None, corrupting,
                     fingerprint=mark)
    if event.exception == CUT_TRACEBACK or event.unraisable and know.built_half(event.title,
                                                                                 text):
        # (the second: a destructor that found its object half built, the constructor having
        # failed: causality.yaml `unraisable.half_built`)
        return _Node(event, EventRole.SYMPTOM, process_role, None, None, corrupting, handled,
                     mark)
    embedded = know.wrapped_cause(text)
    if embedded:
        restated = know.symptom_of(embedded)
        if restated is not None:
            # the wrapper restates a symptom (`Worker failed with error 'NCCL communicator was
            # aborted on rank 1.'`): it reports a failure elsewhere, as the error it quotes does
            return _Node(event, EventRole.SYMPTOM, process_role, restated.points_to, None,
                         corrupting, fingerprint=mark)
        return _Node(event, EventRole.CAUSE, process_role, None, embedded, corrupting,
                     fingerprint=mark)
    if know.reported_elsewhere(event.title):
        # a driver's report of a failure it caught (a benchmark's failed request): the failure
        # happened in the program it drove, whose own error says why (causality.yaml
        # `reported_titles`)
        return _Node(event, EventRole.SYMPTOM, process_role, None, None, corrupting,
                     fingerprint=mark)
    exit = exits_program(event, know)
    symptom = know.symptom_of(text) or know.symptom_raised(
        text, event.frames[-1].code if event.frames else None)
    if symptom is not None:
        return _Node(event, EventRole.SYMPTOM, process_role, symptom.points_to, None, corrupting,
                     fingerprint=mark, exit=exit)
    return _Node(event, EventRole.CAUSE, process_role, None, None, corrupting, handled, mark,
                 request=request, exit=exit)


# The milestones of its own process that show a process went on working after a request's error
# (_Work.evidence): start-up steps and engine output count for every such error, an API
# server's answers of any kind for its own, an unnamed process's refusals for its records.
_OWN_WORK = frozenset({MilestoneKind.SERVING, MilestoneKind.READY, MilestoneKind.PROGRESS,
                       MilestoneKind.PHASE})


def recurring(event: ErrorEvent, know: Causality) -> frozenset[MilestoneKind] | None:
    """For a request's error vLLM answers (knowledge: handled, or raised in the HTTP server
    while it served one request; a cause by its text, not corrupting), whose copies recur.py
    folds into counts as they stream by: the kinds of its own process's milestones that show
    the process went on working after it, which is what saves a copy of such an error
    (`_survivors`' recurrences); empty for a handled one, which is survived whatever follows.
    None for every other error."""
    node = _classify(event, know)
    if node.role is not EventRole.CAUSE or node.corrupting or node.embedded is not None \
            or not (node.handled or node.request):
        return None
    if node.handled:
        return frozenset()
    if node.process_role is Role.API_SERVER:
        return _OWN_WORK | {MilestoneKind.ALIVE, MilestoneKind.REJECTED}
    if event.kind is EventKind.ERROR_RECORD:
        return _OWN_WORK | {MilestoneKind.REJECTED}
    return _OWN_WORK


def _fingerprint(event: ErrorEvent) -> tuple[str, str]:
    """Type and masked first message line: eight workers' OOMs differ only in GPU numbers."""
    return fingerprint(event)  # cached per distinct message (logsleuth/fingerprint.py)


def _same_failure(a: ErrorEvent, b: ErrorEvent) -> bool:
    return _fingerprint(a) == _fingerprint(b)


def _first_line(text: str) -> str:
    return " ".join(text.split("\n", 1)[0].split())


def _quote(text: str, limit: int) -> str:
    """A message's first line for a sentence, at most `limit` characters; a cut one ends in `…`
    so a reader does not take the cut for the message's own end ("See stack tr")."""
    first = _first_line(text)
    return first if len(first) <= limit else first[:limit - 1].rstrip() + "…"


def _link(graph: nx.DiGraph[int], nodes: dict[int, _Node], work: _Work,
          know: Causality | None = None) -> None:
    """Add every edge; linear in the number of errors except for a bounded pointer reach. No
    edge from a cause crosses a stretch where its process or engine went on working."""
    know = know or default_causality()
    ordered = sorted(nodes.values(), key=lambda n: (n.event.line, n.event.id))
    for node in ordered:
        event = node.event
        if event.cause_id is not None and event.cause_id in nodes:
            graph.add_edge(event.cause_id, event.id, reason=LinkReason.CHAINED)
        if event.group_id is not None and event.group_id in nodes:
            # an exception group only collects what it was printed with: raised from them
            graph.add_edge(event.id, event.group_id, reason=LinkReason.CHAINED)

    def link(a: ErrorEvent, b: ErrorEvent, reason: LinkReason) -> None:
        if a.id != b.id and not graph.has_edge(a.id, b.id) and not graph.has_edge(b.id, a.id):
            graph.add_edge(a.id, b.id, reason=reason)

    # Copies of one exception (logged, then raw, then re-raised) are printed close together and
    # hang off the first; the same error far apart is another occurrence (a handled request
    # error repeated all day), not a copy.
    copies: dict[tuple[Process, str, str], tuple[ErrorEvent, int]] = {}
    for node in ordered:
        key = (node.event.process, *node.fingerprint)
        first, seen_at = copies.get(key, (node.event, 0))
        if first is not node.event and node.event.first_line - seen_at <= _COPY_WINDOW:
            link(first, node.event, LinkReason.DUPLICATE)
        else:
            first = node.event
        copies[key] = (first, node.event.last_line)

    causes = [n for n in ordered if n.role is EventRole.CAUSE]
    cause_lines = [n.event.line for n in causes]
    carriers = _carried(ordered, know)
    for node in ordered:
        before = causes[:bisect_left(cause_lines, node.event.line)]
        if node.embedded:
            quoted = _first_line(node.embedded)
            holders = [cause for cause in before if quoted in cause.event.message
                       and not work.healthy_between(cause, node.event.first_line)]
            # the quote is str(e) of the exception it reports: one whose message begins with it
            # is that exception; another that only holds it in its text (torch's watchdog:
            # `... terminated with exception: CUDA error: ...`) reports the same error
            exact = [cause for cause in holders
                     if _first_line(cause.event.message).startswith(quoted)]
            # the quote is one rank's copy (the engine core relays its first worker's); the same
            # error the other ranks of that role raised for the same step (one fingerprint: they
            # differ in the device's number and its memory figures) is the one failure too, so
            # the earliest copy printed can be the root (vllm-ascend's sixteen workers' NPU OOM)
            sibling = {(cause.process_role, cause.fingerprint) for cause in exact}
            exact += [cause for cause in before if cause not in exact
                      and (cause.process_role, cause.fingerprint) in sibling
                      and not work.healthy_between(cause, node.event.first_line)]
            for cause in exact or holders:
                link(cause.event, node.event, LinkReason.EMBEDDED)
        carried, remote = carriers.get(node.event.id, (None, None))
        if carried is not None and all(c.event.process.pid == remote for c in before
                                       if not work.healthy_between(c, node.event.first_line)
                                       and c.fingerprint != carried.fingerprint):
            # the cause a wrapper prints in full under its line, of the process it names, where
            # the errors before it are that process's own reports (or copies of that cause)
            for cause in [*(c for c in before if c.fingerprint == carried.fingerprint
                            and not work.healthy_between(c, node.event.first_line)), carried]:
                link(cause.event, node.event, LinkReason.EMBEDDED)
        if node.exit_of is not None and node.exit_of in nodes:
            link(nodes[node.exit_of].event, node.event, LinkReason.EXIT_REPORT)
        elif node.role is EventRole.SYMPTOM:
            for cause in before[-_POINTER_REACH:]:
                # a request's error vLLM answered is not what a later report of a failure
                # elsewhere points at
                if (node.pointer is None or cause.process_role in _COMPATIBLE[node.pointer]) \
                        and not cause.handled and not cause.request \
                        and not work.healthy_between(cause, node.event.first_line):
                    link(cause.event, node.event, LinkReason.POINTER)

    # each cause -> the next cause printed by a parent (deeper) role
    following: dict[int, _Node] = {}
    # (a request's error in the HTTP server neither follows from an engine's failure nor causes
    # one: the server answers it and goes on)
    # (a carried cause is the process its carrier names, printed by the caller: that process's
    # own earlier reports of its failure are not what it follows from)
    raised_in = {carried.event.id: pid for carried, pid in carriers.values() if pid is not None}
    for node in reversed([c for c in causes if not c.handled and not c.request]):
        depth = _DEPTH[node.process_role]
        for parent_depth in range(depth + 1, max(_DEPTH.values()) + 1):
            parent = following.get(parent_depth)
            if parent is not None and parent.event.process != node.event.process \
                    and raised_in.get(parent.event.id, -1) != node.event.process.pid \
                    and not work.healthy_between(node, parent.event.first_line):
                link(node.event, parent.event, LinkReason.PROCESS_ORDER)
                break
        following[depth] = node

    # the records native code logged right before its process died (causality.yaml `native`,
    # `deaths`: torch's NCCL watchdog logs the timeout, then throws and aborts) are what it
    # died over: they are settled with the death, not saved by another process's work. Not a
    # record its own process went on from, a start-up step or output of its own printed between
    # it and the death: the death came of something later (RCCL's set-up WARN lines, then the
    # worker loads its model and segfaults in a kernel; tests/test_s28_root_classes.py)
    deaths: dict[Process, list[_Node]] = {}
    for node in ordered:
        if node.dies:
            deaths.setdefault(node.event.process, []).append(node)
    for node in ordered if deaths else ():
        event = node.event
        if event.kind is not EventKind.ERROR_RECORD \
                or not know.logged_natively(event.site, event.exception):
            continue
        death = next((d for d in deaths.get(event.process, ())
                      if 0 <= d.event.first_line - event.last_line <= _CRASH_WINDOW), None)
        if death is not None and not work.stepped_between(event.process, event.last_line,
                                                           death.event.first_line):
            link(event, death.event, LinkReason.ABORTED)


_CARRIED_GAP = 2  # lines from a carrier's own line to the first of the traceback it carries


def _carried(ordered: list[_Node], know: Causality) -> dict[int, tuple[_Node, int | None]]:
    """The cause each carrier prints in full right under its own line (causality.yaml
    `carriers`: Ray's `RayTaskError(X): ray::f() (pid=N, ...)`, then the remote traceback and
    its `X: ...`), with the pid of the process that raised it (the innermost carrier's), by the
    carrier's id. The carried exception is of the class the carrier names (any, where it names
    none), printed by the same output; a carrier under a carrier (a task that called an actor)
    passes the cause on to the one above it. `ordered`: by line."""
    found: dict[int, tuple[_Node, int | None]] = {}
    # carriers whose cause is still to come, innermost last, with the class and pid they name
    pending: list[tuple[_Node, str, int | None]] = []
    for node in ordered:
        event = node.event
        while pending and (event.process != pending[-1][0].event.process
                           or event.first_line - pending[-1][0].event.last_line > _CARRIED_GAP):
            pending.pop()
        named = know.carried_class(event.text) if event.kind is EventKind.EXCEPTION else None
        if pending and event.kind is EventKind.EXCEPTION:
            _, wanted, pid = pending[-1]
            if named is None and node.role is EventRole.CAUSE \
                    and (not wanted or _short_class(event.exception) == _short_class(wanted)):
                for carrier, _, _ in pending:
                    found[carrier.event.id] = (node, pid)
                pending = []
            elif named is None:
                pending = []
        if named is not None:
            pending.append((node, *named))
    return found


def _short_class(name: str) -> str:
    return name.rsplit(".", 1)[-1]


_LEVEL_LABELS = frozenset(level.value for level in Level)  # an error record labelled by its level


# The roles whose errors a report that names a role points at, as printed by a named process:
# an engine core's report covers its workers, a worker's only workers.
_NAMED_TARGET: dict[Role, frozenset[Role]] = {
    Role.ENGINE_CORE: frozenset({Role.ENGINE_CORE, Role.WORKER}),
    Role.WORKER: frozenset({Role.WORKER}),
}


def _pick_root(nodes: dict[int, _Node], know: Causality, graph: nx.DiGraph[int],
               named: frozenset[Role]) -> _Node | None:
    pointed = {n.pointer for n in nodes.values() if n.role is EventRole.SYMPTOM and n.pointer}
    # A report that an engine or worker failed is never about a request's error in the HTTP
    # server (the server answers those and goes on): with none but such errors left, the
    # engine's cause is not in the log.
    engine_failed = bool(pointed & {Role.ENGINE_CORE, Role.WORKER})
    causes = [n for n in nodes.values() if n.role is EventRole.CAUSE
              and not (engine_failed and n.request)]
    if not causes:
        return None
    # A report that quotes its cause (`Worker failed with error 'X'`) names it: the causes it
    # quotes, and what they follow from, come before any other cause, however early.
    import networkx as nx
    quoted = {a for a, _, data in graph.edges(data=True)
              if data["reason"] in (LinkReason.EMBEDDED, LinkReason.EXPLAINED)}
    quoted |= {up for a in list(quoted) for up in set(nx.ancestors(graph, a))}
    # A record that states the condition a later error follows from (causality.yaml `latent`,
    # a compiled extension that failed to import, logged at ERROR with no exception's repr) is
    # that error's cause: it is not weighed below the exception it explains.
    explaining = {a for a, _, data in graph.edges(data=True)
                  if data["reason"] is LinkReason.EXPLAINED and nodes[a].event.latent}
    # A report that names a role (`Engine core initialization failed. See root cause above`)
    # in a log whose processes of that role are named by their prefix points at those
    # processes: an unnamed (unprefixed) traceback is then another program's or the launching
    # process's, and an earlier one only comes first when a named cause follows from it.
    # (Where the role is printed unprefixed, as vLLM 0.8-0.9 printed its engine core, the
    # unnamed error may be that process's own: it keeps its place.)
    # (A title record that introduces a process's own traceback, `WorkerProc hit an
    # exception`, names its own role: only a report from another process says where to look.)
    named_by_others = {n.pointer for n in nodes.values() if n.role is EventRole.SYMPTOM
                       and n.pointer is not None and n.pointer in named
                       and n.process_role not in _NAMED_TARGET.get(n.pointer, ())}
    targets = frozenset().union(*(_NAMED_TARGET.get(p, frozenset()) for p in named_by_others))
    aimed = {n.event.id for n in causes if n.process_role in targets}

    set_aside: set[int] = set()
    for node in causes:
        if aimed and node.process_role is Role.MAIN:
            downstream = set(nx.descendants(graph, node.event.id))
            if not aimed & downstream:
                set_aside.add(node.event.id)
    # A process that aborts (C++'s terminate, SIGABRT) right after native code logged errors
    # aborted over them: torch's NCCL watchdog logs `Watchdog caught collective operation timeout`
    # at E level, then throws from its thread and the process dies. Those records weigh as its
    # crash does (causality.yaml `native`).
    crashes: dict[Process, list[int]] = {}
    for node in nodes.values():
        if node.event.kind is EventKind.FATAL:
            crashes.setdefault(node.event.process, []).append(node.event.first_line)

    def aborted_over(event: ErrorEvent) -> bool:
        return know.logged_natively(event.site, event.exception) and any(
            0 <= start - event.last_line <= _CRASH_WINDOW for start in crashes.get(event.process, ()))

    # A sticky device error (causality.yaml `corrupting`) that a process's Python code raised
    # with its traceback, and that native code of the same process reported on its own (torch's
    # NCCL watchdog polls the stream, finds the error and logs it, then aborts; an unprefixed
    # native line may be any process's): those reports are echoes of the raised exception, which
    # says where it surfaced, and they come after it whichever was printed first.
    raised = sorted((n for n in causes if n.corrupting and n.event.kind is EventKind.EXCEPTION
                     and n.event.frames), key=lambda n: n.event.line)
    raised_lines = [n.event.line for n in raised]

    def echoes(node: _Node) -> bool:
        event = node.event
        if not raised or event.frames or not (
                event.kind is EventKind.ERROR_RECORD and know.logged_natively(
                    event.site, event.exception) or event.kind is EventKind.FATAL):
            return False
        near = raised[bisect_left(raised_lines, event.line - _COPY_WINDOW):
                      bisect_right(raised_lines, event.line + _COPY_WINDOW)]
        return any((event.process.pid is None
                    or event.process in (other.event.process, node.speaks_for))
                   and _first_line(other.event.message) in event.text for other in near)

    # The remote traceback a carrier prints under its line (causality.yaml `carriers`: Ray's
    # `RayTaskError(X): ray::RayWorkerWrapper.execute_method() (pid=N, ...)`) is the error of the
    # process the carrier names, whatever prefix the caller's output gives it: a report that
    # points at that role points at this copy too, which the caller often prints before the
    # worker's own record reaches the log (Ray forwards a remote worker's output later).
    raised_as = {a: nodes[b].pointer for a, b, data in graph.edges(data=True)
                 if data["reason"] is LinkReason.EMBEDDED and nodes[b].pointer is not None
                 and know.carried_class(nodes[b].event.text) is not None}

    def rank(node: _Node) -> tuple[int, int, int, int, int, int, int, int, int]:
        # a script run to describe the environment failed on its own (causality.yaml
        # `diagnostics`): the failure it was run to report comes first, wherever it is printed
        diagnostic = know.diagnostic(node.event.frames)
        weak = node.event.kind is EventKind.ERROR_RECORD and not aborted_over(node.event) \
            and node.event.id not in explaining
        role = raised_as.get(node.event.id) or node.process_role
        off_target = bool(pointed) and not any(role in _COMPATIBLE[p] for p in pointed)
        unquoted = bool(quoted) and node.event.id not in quoted
        # of the records, one that names no exception (only its level: `[ERROR] RUNTIME(...)`,
        # `EZ9999: ...` of CANN, any logger's ERROR line) comes after one that names the exception
        # the same failure was raised as (a repr logged later: `RuntimeError('The Inner error is
        # reported as above ...')`); issue 10's rule for records without an exception
        bare = weak and node.event.exception in _LEVEL_LABELS
        return (int(diagnostic), int(weak), int(bare), int(off_target), int(unquoted),
                int(node.event.id in set_aside), int(echoes(node)), node.event.line,
                node.event.id)

    return min(causes, key=rank)


def _chain_of(root_id: int, nodes: dict[int, _Node],
              graph: nx.DiGraph[int]) -> tuple[ErrorEvent, ...]:
    """The exceptions Python printed as raised from the root (`raise ... from e`, or during
    handling), following the chain."""
    import networkx as nx
    chained = nx.subgraph_view(graph, filter_edge=lambda a, b: graph[a][b]["reason"]
                               is LinkReason.CHAINED)
    found = nx.descendants(chained, root_id)
    return tuple(sorted((nodes[i].event for i in found), key=lambda e: (e.line, e.id)))


def _symptom_list(nodes: dict[int, _Node], root: _Node | None,
                  graph: nx.DiGraph[int]) -> tuple[ErrorEvent, ...]:
    if root is not None:
        import networkx as nx
        chosen = set(nx.descendants(graph, root.event.id))
        chosen |= {i for i, n in nodes.items() if n.role is EventRole.SYMPTOM}
        chosen.discard(root.event.id)
    else:
        chosen = set(nodes)
    seen: set[tuple[str, str]] = set()
    out: list[ErrorEvent] = []
    for event_id in sorted(chosen, key=lambda i: (nodes[i].event.line, i)):
        event = nodes[event_id].event
        if root is not None and _same_failure(event, root.event):
            continue  # copies of the root are reported as copies, not symptoms
        key = (event.process.name, _first_line(event.text))
        if key in seen:
            continue
        seen.add(key)
        out.append(event)
    return tuple(out[:_MAX_SYMPTOMS])


def _refused_requests(nodes: dict[int, _Node], work: _Work) -> dict[int, int]:
    """The request errors (raised on the HTTP server's request path, or answered by design:
    `requests`, `handled` in causality.yaml) that their process answered with a refusal (4xx,
    `requests.answered_by`) before its next error: by error id, that answer's line. Such an error
    failed one request, which the server refused; its client's request is what to change."""
    refused: dict[int, int] = {}
    by_process: dict[Process, list[int]] = {}
    for node in nodes.values():
        by_process.setdefault(node.event.process, []).append(node.event.first_line)
    for starts in by_process.values():
        starts.sort()
    for node in nodes.values():
        if not (node.request or node.handled) or node.corrupting:
            continue
        event = node.event
        answers = work.own_request_answers.get(event.process, [])
        index = bisect_right(answers, event.last_line)
        if index == len(answers):
            continue
        starts = by_process[event.process]
        later = bisect_right(starts, event.first_line)
        if later == len(starts) or answers[index] < starts[later]:
            refused[event.id] = answers[index]
    return refused


def _refused_reason(event: ErrorEvent, answer: int) -> str:
    return (f"It failed one request, not the server: {event.process.name} raised it while "
            f"handling a request and refused that request (the 4xx answer at line {answer}). "
            "The client's request is what to change (or the server setting the message names); "
            "requests that fit the server's settings are served.")


def _refused_reasons(survived: Iterable[ErrorEvent], refused: dict[int, int]) -> tuple[str, ...]:
    """For a run that did not fail: one sentence on the requests its server refused after an
    error of their own (the clients' requests, not a failure of the server)."""
    events = [e for e in survived if e.id in refused]
    if not events:
        return ()
    # (no count: copies of a request error fold as they stream by, and a folded copy's own 4xx
    # answer is not kept, so a count would differ between a folded and an unfolded reading)
    first = events[0]
    said = _first_line(first.message)
    said = said if len(said) <= 200 else said[:199] + "…"
    return ("The server refused requests after an error in handling them and went "
            "on serving: those are the clients' requests to change (or a server limit their "
            "message names), not a failure of the server. The first: "
            f"{first.exception} at line {first.line}, refused at line {refused[first.id]}: "
            f"\"{said}\"",)


def _reasons(root: _Node, nodes: dict[int, _Node], graph: nx.DiGraph[int],
             symptoms: tuple[ErrorEvent, ...], survived: list[ErrorEvent],
             probed: dict[int, str] | None = None) -> tuple[str, ...]:
    """Why the root is the root. `probed`: the survived errors that are an optional package's
    failed trial import (causality.yaml `optional_imports`), by id, with the package."""
    event = root.event
    reasons: list[str] = []
    copies = [n.event for n in nodes.values()
              if n.event.id != event.id and _same_failure(n.event, event)]
    others = _unique_processes(c.process for c in copies if c.process != event.process)
    causes = [n for n in nodes.values() if n.role is EventRole.CAUSE]
    before = sorted(n.event.line for n in causes if n.event.line < event.line
                    and n.event.kind is not EventKind.ERROR_RECORD)
    earlier = "the earliest" if len(causes) > 1 else "the only"
    # the innermost carrier that prints it in full under its own line (causality.yaml
    # `carriers`; linked only where every error before it is the process it names: `_link`)
    carrier = max((nodes[b].event for _, b, d in graph.out_edges(event.id, data=True)
                   if d["reason"] is LinkReason.EMBEDDED
                   and nodes[b].role is EventRole.SYMPTOM), key=lambda e: e.line, default=None)
    if before and carrier is not None:
        reasons.append(f"It is the error the report at line {carrier.line} carries in full, of "
                       f"the process that report names: {event.process.name} printed it at "
                       f"line {event.line}; the earlier error(s) at line(s) "
                       f"{', '.join(map(str, before[:3]))} are that process's own reports of "
                       "the failure.")
    elif before:  # set aside by a report that quotes or names another (_pick_root)
        reasons.append(f"It is the error the failure's reports quote or name: "
                       f"{event.process.name} printed it at line {event.line}; the earlier "
                       f"error(s) at line(s) {', '.join(map(str, before[:3]))} are not what "
                       "they point at.")
    else:
        reasons.append(f"It is {earlier} error that is not a symptom: {event.process.name} "
                       f"printed it at line {event.line}.")
    if others:
        names = ", ".join(p.name for p in others[:6]) + (" ..." if len(others) > 6 else "")
        reasons.append(f"The same {event.exception} was raised in {len(others)} other "
                       f"process(es) ({names}); {event.process.name} printed it first.")
    pointers = [nodes[b].event for _, b, d in graph.out_edges(event.id, data=True)
                if d["reason"] is LinkReason.POINTER]
    for symptom in pointers[:3]:
        reasons.append(f"Line {symptom.line} ({symptom.process.name}) only reports a failure "
                       f"elsewhere: \"{_quote(symptom.message, 90)}\".")
    if root.embedded:
        reasons.append("It quotes the error of another process whose own traceback is not in "
                       "the log.")
    for _, effect, data in graph.out_edges(event.id, data=True):
        if data["reason"] is LinkReason.EXPLAINED:
            later = nodes[effect].event
            how = "answered as a request's error" if root.handled else "only logged as a warning"
            reasons.append(f"It was {how} and {event.process.name} went on, "
                           f"but the {later.exception} at line {later.line} follows from it.")
            break
    if not pointers and symptoms:
        ahead = sum(1 for symptom in symptoms if symptom.line < event.line)
        # (an error raised while it was handled may be printed above it: `_unbound_causes`)
        reasons.append(f"{len(symptoms)} later error(s) follow from it." if not ahead else
                       f"{len(symptoms)} error(s) follow from it, {ahead} of them printed "
                       "above it.")
    probed = probed or {}
    gone_past = [e for e in survived if e.id in probed]
    if gone_past:
        packages = ", ".join(dict.fromkeys(probed[e.id] for e in gone_past))
        reasons.append(f"vLLM went on past its failed import of the optional package(s) "
                       f"{packages} (line {gone_past[0].line}): it probes them, logs the error "
                       "and goes on without them.")
    lived_through = [e for e in survived if e.line < event.line and e.id not in probed]
    if lived_through:
        # copies folded into a survived error count as the errors they are (recur.py); those
        # printed after the root cause too, since a server that survived one goes on answering
        counted = sum(e.occurrences for e in lived_through)
        reasons.append(f"{counted} earlier error(s) were survived: their process or engine went "
                       f"on working after them (the first at line {lived_through[0].line}).")
    return tuple(reasons)


def _missing_root_advice(nodes: dict[int, _Node]) -> tuple[tuple[str, ...], tuple[str, ...]]:
    symptoms = sorted((n for n in nodes.values() if n.role is EventRole.SYMPTOM),
                      key=lambda n: n.event.line) or sorted(nodes.values(),
                                                            key=lambda n: n.event.line)
    first = symptoms[0].event
    pointed = {n.pointer for n in symptoms if n.pointer}
    if Role.ENGINE_CORE in pointed:
        pointed.add(Role.WORKER)  # an engine core's failure often starts in one of its workers
    roles = sorted(p.value for p in pointed) or ["any"]
    reasons = (f"Every error in the log only reports a failure elsewhere; the earliest is "
               f"\"{_first_line(first.text)[:100]}\" ({first.process.name}, line {first.line}).",)
    targets = {"engine_core": "the engine core process (EngineCore, EngineCore_DP0, ...)",
               "worker": "the worker processes (Worker_TP*, VllmWorker*, RayWorkerWrapper)",
               "any": "every process"}
    look_for = tuple(
        f"In the full log, search {targets.get(role, role)} for 'Traceback' and 'Error' lines "
        f"before line {first.line}." for role in roles)
    return reasons, look_for + (
        "If no traceback exists anywhere, the process was killed from outside: check "
        "`dmesg` / `journalctl -k` for the OOM killer or a SIGKILL.",)


# Phases an engine reaches only after start-up's profile run: it could take requests from there.
_STARTED = frozenset({Phase.KV_CACHE, Phase.GRAPH_CAPTURE, Phase.SERVING})
STALLED = "Stalled"  # the label of the symptom a log gives when it ends on an unfinished bar
REFUSED = "Refused"  # the label of the symptom of a log of refused answers alone (refused.py)


# The start-up phases in the order vLLM goes through them: a wait of one phase after a later one
# began is not where start-up stopped.
_START_UP = (Phase.INIT, Phase.LOAD, Phase.PROFILE, Phase.KV_CACHE, Phase.GRAPH_CAPTURE)


def _stalled(last_line: str, line_count: int, know: Causality, *, started: bool,
             began: bool = True, reached: frozenset[Phase] | set[Phase] = frozenset(),
             asked: bool = False, tail: str = "", raw: str = "") -> ErrorEvent | None:
    """A log that ends on an unfinished progress bar stopped (hung or killed) mid-way. So does a
    log that ends on a finished one before start-up completed (`started`), where the log shows
    the run from its start (`began`): the step after it (the next download, the weights, the
    engine's profiling) never printed a line, which a process that went on starting would have
    done (vllm#1282: a rejected quantization after the tokenizer's downloads, its error not in
    the excerpt). And so does one that ends, before
    start-up completed, on a set-up step that waits on its peers (causality.yaml `waits`: NCCL's
    set-up output, a rendezvous): the step never finished. Only where the log shows the run from
    its start (`began`: an excerpt of a working run may end anywhere in NCCL's output) and the run
    reached no start-up phase after the wait's (`reached`: NCCL output printed after the model
    loaded is another communicator's, or late output, not where start-up stopped)."""
    from logsleuth.tokenize import parse_line  # only needed for logs without errors
    from logsleuth.tokenize.grammar import terminal_regex

    if raw and terminal_regex("RAY_REPEATED").search(raw):
        # Ray's summary of a line its actors printed alike (`[repeated 6x across cluster]`) is
        # printed when its aggregation window closes (5 s), after lines printed later: no sign
        # of where any process stopped (Ray's ray_logging LogDeduplicator). (`last_line` is
        # cleaned of the suffix: `raw` is the line as the log holds it.)
        return None
    line = parse_line(last_line)
    if line.kind is not LineKind.PROGRESS:
        phase = None if started or not began else know.waiting_in(last_line, tail)
        went_on = phase is None and not started and began \
            and line.level in (Level.ERROR, Level.CRITICAL) and know.says_goes_on(line.text)
        # the program's exit, with no stop asked for (causality.yaml `exit_noise`)
        exited = phase is None and not started and began and not asked \
            and know.is_exit_noise(last_line)
        if went_on or exited:
            # an error record that says start-up goes on with a fallback (causality.yaml
            # `goes_on`: "falling back to disk loading"), and nothing after it: the step it went
            # on with never printed a line, as a working start-up would have (tools/failure_probe)
            phase = max((p for p in reached if p in _START_UP), key=_START_UP.index,
                        default=Phase.INIT)
        if phase is None or any(_START_UP.index(p) > _START_UP.index(phase)
                                for p in reached if p in _START_UP and phase in _START_UP):
            return None
        # a wait on peers names the usual culprits; a step that prints its own end (the load,
        # the profile run) only says where it stopped
        step, why = (("an error record that says start-up goes on", "the step it went on "
                      "with never finished") if went_on else
                     ("the noise of the program's exit", "") if exited else
                     ("a set-up step that waits on other processes", "a rank that never joined, "
                      "a transport that never connected") if phase is Phase.INIT else
                     ("a start-up step that never printed its end", "slow storage, a peer "
                      "that never answered, a process stuck in a collective"))
        ending = ("the program exited there without printing an error" if exited else
                  f"the run hung there ({why}) or was killed, without printing an error")
        message = (f"the log ends in the {phase.value} phase on {step} "
                   f"('{line.text.strip()[:80]}'), before start-up completed: {ending}")
        return ErrorEvent(0, EventKind.ERROR_RECORD, STALLED, message, line.process, line_count,
                          line_count, line_count)
    if know.counts_answers(line.text.strip()):
        return None  # a run read while it worked: its bar counts answers (`answered_bars`)
    finished = "100%" in line.text
    if not finished and know.transfers(last_line):
        return None  # a download under way: a stalled one times out and says so
    if finished and (started or not began):
        # a finished step is where a reporter cuts an excerpt of a working run (a docs page's
        # start-up shown up to its weights loading): a stall only where the log shows the run
        # from its start, as for a wait above (an unfinished bar is one wherever it is)
        return None
    where = ("right after a progress bar finished, before start-up completed" if finished
             else "on an unfinished progress bar")
    message = (f"the log ends {where} ('{line.text.strip()[:80]}'): the "
               "run stopped or hung there without printing an error")
    return ErrorEvent(0, EventKind.ERROR_RECORD, STALLED, message, line.process, line_count,
                      line_count, line_count)


def _stall_of(tail: str, line_count: int, know: Causality, deployments: Deployments,
              events: tuple[Event, ...], *, began: bool) -> ErrorEvent | None:
    """The stall of one of two deployments writing into one log, which another deployment's
    output follows (the log's last line is the other's): each deployment's last line in the
    tail, read as `_stalled` reads a log's last line, against that deployment's own start-up.
    Only where the other deployment had begun before that line (both went on at once: a hang
    followed by a restart, or by a server started after it, is a run that ended) and where the
    stalled deployment never served. Stops at a line that may be anyone's (deployments.py)."""
    from logsleuth.tokenize import parse_line  # only needed for logs without errors
    from logsleuth.tokenize.grammar import clean

    begun: dict[int, int] = {}  # each deployment's first line
    for event in events:
        group = deployments.of(event.process)
        if group is not None:
            begun.setdefault(group, event.line)
    texts = tail.split("\n")
    seen: set[int] = set()  # the deployments whose last line is below
    for offset, text in enumerate(reversed(texts)):
        if not text.strip():
            continue
        raw, text = text, clean(text)
        group = deployments.of(parse_line(text).process)
        if group is None:
            return None
        if group in seen:
            if len(seen) == len(begun):
                return None  # every deployment's last line is read
            continue
        number = line_count - offset
        if seen and any(begun.get(other, number) < number for other in seen):
            own = [m for m in events if isinstance(m, Milestone)
                   and deployments.of(m.process) == group]
            if not any(m.kind is MilestoneKind.SERVING for m in own):
                started = any(m.kind is MilestoneKind.READY or m.phase in _STARTED for m in own)
                reached = {m.phase for m in own if m.phase is not None}
                stall = _stalled(text, number, know, started=started, began=began,
                                 reached=reached, tail=tail, raw=raw)
                if stall is not None:
                    return stall
        seen.add(group)
    return None


def _offline_exit(event: ErrorEvent, errors: list[ErrorEvent], activity: list[Milestone],
                  know: Causality) -> bool:
    """An offline client's report that its engine died (causality.yaml `offline_exits`: its
    process unnamed, the program's own), right after the run's last batch finished (its last
    activity before it is output) and with nothing after it (no activity, no error but an
    exit's unraisable noise): the program's exit tore the engine down."""
    if event.process.pid is not None or know.role_of(event.process.name) is not Role.MAIN \
            or not know.exits_offline(event.text) \
            or not _serving_before(activity, event.first_line):
        return False
    return not any(m.line > event.last_line for m in activity) \
        and not any(e.first_line > event.last_line and not e.unraisable for e in errors)


def _loop_exit(errors: list[ErrorEvent], activity: list[Milestone], know: Causality
               ) -> set[int]:
    """The ids of asyncio's reports at a program's exit (causality.yaml `teardown.loop_reports`):
    a loop's record of what no code awaited, with the traceback right under it and the chain
    that traceback heads, every exception of it a cancellation or the closed loop
    (`teardown.cancellations`), after the run's last activity was output served and with
    nothing after it but unraisable noise and other such reports."""
    if not know.loop_reports:
        return set()
    blocks: list[list[ErrorEvent]] = []
    for index, report in enumerate(errors):
        if report.kind is not EventKind.ERROR_RECORD or report.frames \
                or not know.reports_from_loop(report.message):
            continue
        block = [report]
        for later in errors[index + 1:]:
            if later.first_line - block[-1].last_line > _LOOP_CHAIN_REACH:
                break  # (an error-heavy log: not every later error is looked at)
            if later.process != report.process:
                continue  # another process's line printed in between
            chained = later.cause_id == block[-1].id if len(block) > 1 \
                else later.first_line - report.last_line <= _LOOP_REPORT_REACH
            if later.kind is not EventKind.EXCEPTION or not chained:
                break
            block.append(later)
        if all(know.cancels(e.text) for e in block[1:]):
            blocks.append(block)
    noise: set[int] = set()
    for block in reversed(blocks):  # latest first: what follows a report is decided before it
        first, last = block[0].first_line, max(e.last_line for e in block)
        ids = {e.id for e in block}
        if _serving_before(activity, first) and not any(m.line > last for m in activity) \
                and not any(e.first_line > first and e.id not in ids and e.id not in noise
                            and not e.unraisable for e in errors):
            noise |= ids
    return noise


# lines between a loop's report and its traceback: the `handle: <Handle ...>`, `task: <Task
# ...>` or `future: <Future ...>` line asyncio prints under the message
_LOOP_REPORT_REACH = 3
# lines between one traceback of the chain and the next, other processes' lines among them
_LOOP_CHAIN_REACH = 40


def _hung(first: Milestone, count: int) -> ErrorEvent:
    message = (f"{first.text.strip()[:200]} (printed {count} time(s) after the last sign of "
               "progress; a process hangs)")
    return ErrorEvent(0, EventKind.ERROR_RECORD, STALLED, message, first.process, first.line,
                      first.line, first.line)


def _serving_before(activity: list[Milestone], line: int) -> bool:
    """The last activity before `line` is output served (a request answered, tokens produced)."""
    last = max((m for m in activity if m.line < line), key=lambda m: m.line, default=None)
    return last is not None and last.kind is MilestoneKind.SERVING


def _waited(wait: RepeatedWait | None) -> ErrorEvent | None:
    if wait is None:
        return None
    message = (f"the log ends, before start-up completed, on one record printed {wait.count} "
               f"times in a row ('{wait.line.text.strip()[:120]}'): a process waits for something "
               "that never comes (a peer, a lock, a resource), without printing an error")
    return ErrorEvent(0, EventKind.ERROR_RECORD, STALLED, message, wait.line.process, wait.number,
                      wait.number, wait.number)


def _refused(refusals: Refusals | None) -> ErrorEvent | None:
    if refusals is None:
        return None
    line = refusals.line
    message = (f"every request in the log was refused, polls aside ({refusals.count} answer(s) "
               f"like '{line.text.strip()[:120]}') and no line says why: the server's reason is "
               "in the answer's body, or in its log around the request")
    return ErrorEvent(0, EventKind.ERROR_RECORD, REFUSED, message, line.process, refusals.number,
                      refusals.number, refusals.number)


def _look_for_stall() -> tuple[str, ...]:
    return ("Rerun with NCCL_DEBUG=INFO and py-spy dump --pid <worker pid> to see where it waits.",
            "If it was killed: check `dmesg` / `journalctl -k` for the OOM killer.")


def _unique_processes(processes: Iterable[Process]) -> tuple[Process, ...]:
    seen: dict[Process, None] = {}
    for process in processes:
        seen.setdefault(process, None)
    return tuple(seen)
