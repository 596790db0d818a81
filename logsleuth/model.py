"""Typed, immutable records passed between the pipeline stages. No logic beyond small accessors."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from enum import Enum, StrEnum

from logsleuth.quickinit import quick_init


# Members are singletons and compare by identity: hashing them by identity (in C) instead of
# Enum's hash of the name (Python code, ~0.2 us) changes no lookup, and one was made for every
# kind, level and milestone kind that keys a dict or a set, several times a line.
_identity_hash = object.__hash__


class Level(Enum):
    """Severity of a log record (vLLM logger, uvicorn, glog)."""

    __hash__ = _identity_hash

    DEBUG = "DEBUG"
    INFO = "INFO"
    WARNING = "WARNING"
    ERROR = "ERROR"
    CRITICAL = "CRITICAL"


class LineKind(Enum):
    """What one physical line is, as the grammar sees it."""

    __hash__ = _identity_hash

    TRACEBACK_HEADER = "traceback_header"
    GROUP_HEADER = "group_header"
    GROUP_BOX = "group_box"
    FRAME = "frame"
    CARET = "caret"
    ELIDED = "elided"
    REPEAT = "repeat"
    EXCEPTION = "exception"
    EXCEPTION_REPR = "exception_repr"  # `RuntimeError('...')`: logger.exception(repr(e))'s title
    NO_EXCEPTION = "no_exception"  # `NoneType: None`: logger.exception() with nothing to print
    IGNORED = "ignored"  # `Exception ignored in: <...>`: Python's report of an error it ignored
    CHAIN = "chain"
    PROCESS_HEADER = "process_header"
    FATAL = "fatal"
    DIAGNOSTIC = "diagnostic"  # a tool's own error line: compiler, linker, build tool, argparse
    FAULT_THREAD = "fault_thread"
    FRAME_LIST = "frame_list"  # `At:`: frames follow, innermost first (Triton's Python backend)
    EXTENSION_MODULES = "extension_modules"
    NCCL = "nccl"
    UVICORN = "uvicorn"
    ACCESS = "access"
    PY_WARNING = "py_warning"
    PROGRESS = "progress"
    REQUEST = "request"  # a request logged with its prompt: user text, not a message of vLLM
    INDENTED = "indented"
    BLANK = "blank"
    PLAIN = "plain"


class ChainReason(Enum):
    """How Python printed one exception after another."""

    __hash__ = _identity_hash

    DIRECT_CAUSE = "direct_cause"  # raise ... from e
    DURING_HANDLING = "during_handling"  # implicit __context__


class Role(Enum):
    """The job of a process in a vLLM deployment, whatever its prefix era."""

    __hash__ = _identity_hash

    API_SERVER = "api_server"
    ENGINE_CORE = "engine_core"
    WORKER = "worker"
    MAIN = "main"
    OTHER = "other"


class Verdict(StrEnum):
    """The answer of a report (the contract in REPORT_SCHEMA.md)."""

    FAILURE = "failure"
    ROOT_CAUSE_MISSING = "root_cause_missing"
    NO_FAILURE = "no_failure"


class EventKind(Enum):
    """Kinds of error events the assembler produces."""

    __hash__ = _identity_hash

    EXCEPTION = "exception"  # a traceback, or a bare `Type: message` line
    FATAL = "fatal"  # a fatal line that is not a Python exception (segfault, CUDA abort)
    # a tool's own error line (compiler, linker, build tool, argument parser): one per line, never
    # part of a native crash
    DIAGNOSTIC = "diagnostic"
    ERROR_RECORD = "error_record"  # an ERROR/CRITICAL log record with no traceback


class MilestoneKind(Enum):
    """Lifecycle points that decide whether an error was survived or fatal."""

    __hash__ = _identity_hash

    SERVING = "serving"  # an engine produced output: a generation request answered, throughput
    ALIVE = "alive"  # the HTTP server answered (a health or metrics poll): says nothing of engines
    REJECTED = "rejected"  # the HTTP server refused one request (4xx): a request error's answer
    READY = "ready"  # start-up completed
    PROGRESS = "progress"  # a process completed a start-up step (weights loaded, KV cache sized)
    START = "start"  # vLLM started (again): a log holding several starts holds several runs
    SHUTDOWN_REQUESTED = "shutdown_requested"  # an operator asked the server to stop
    HANG = "hang"  # a process reports it has waited too long on another
    # the engine's stats say requests are held and nothing was processed: a hang when repeated
    STUCK = "stuck"
    PHASE = "phase"  # the engine entered a lifecycle phase (Milestone.phase says which)
    # an offline run's batch under way (its bars before they finish): work begun, not output
    BATCH = "batch"
    # a test runner's report (pytest's): output it captured while the test above ran, printed
    # after that test's failure, begins; and the report's own sections resume (runs.py)
    CAPTURED = "captured"
    REPORT = "report"


class Phase(Enum):
    """Where in its lifecycle vLLM was when it failed (evidence for signatures, never a gate).

    Marked by lifecycle lines and by the functions of a traceback; both are data, in the
    `phases` section of signatures/causality.yaml.
    """

    __hash__ = _identity_hash

    INIT = "init"  # processes, devices, distributed groups
    LOAD = "load"  # model construction and weight loading
    PROFILE = "profile"  # the dummy forward pass that measures peak memory (torch.compile too)
    KV_CACHE = "kv_cache"  # sizing and allocating the KV cache
    GRAPH_CAPTURE = "graph_capture"  # CUDA graph capture and warm-up
    SERVING = "serving"  # requests are being served
    SHUTDOWN = "shutdown"  # an operator asked the server to stop


class SignatureKind(Enum):
    """How much a signature knows, strongest first: an exact signature knows one failure, a
    family covers a class of failures with the fix that holds for all of it. When both match
    without contradiction the stronger kind wins; a new, weaker kind is one more member at the end.
    """

    __hash__ = _identity_hash

    EXACT = "exact"
    FAMILY = "family"
    # no signature: the remedy the error's message states itself (logsleuth.index); never the
    # kind of a signature file
    MESSAGE = "message"
    # advice of last resort for a failure whose root cause was found and that nothing above
    # knows: a family keyed by the exception class and the phase (signatures/fallback/), ranked
    # below every exact signature, family and the message's own remedy
    FALLBACK = "fallback"
    # no signature at all, not even a fallback: vLLM's source index shows a release after the
    # log's no longer holds the root cause's message (logsleuth/index/release.py); never the kind
    # of a signature file. Beside any other kind the same evidence is added to that kind's fix.
    RELEASE = "release"

    @property
    def strength(self) -> int:
        """Higher is stronger: the first member is the strongest."""
        members = list(type(self))
        return len(members) - members.index(self)


# the score at which a signature's match is the report's advice (logsleuth/signatures/match.py);
# a family near it may answer too, with low confidence
MATCH_THRESHOLD = 0.6


class Confidence(Enum):
    """How far a match's advice is a diagnosis. Advice matched on the root cause (or an error
    raised from it) fixes what the log shows; advice matched on a symptom alone, when the cause
    is not in the log, is the likeliest cause of what the log shows, not a diagnosis."""

    __hash__ = _identity_hash

    HIGH = "high"
    LOW = "low"


class EventRole(Enum):
    """What the causality knowledge says about an error message."""

    __hash__ = _identity_hash

    CAUSE = "cause"  # may be a root cause
    SYMPTOM = "symptom"  # only reports a failure elsewhere; never a root cause
    BENIGN = "benign"  # printed but harmless


class LinkReason(Enum):
    """Why the causal graph links two events."""

    __hash__ = _identity_hash

    CHAINED = "chained"  # Python exception chaining in one traceback
    DUPLICATE = "duplicate"  # the same exception printed again (logged, raw, re-raised)
    POINTER = "pointer"  # vLLM's own cross-process message ("See root cause above")
    EMBEDDED = "embedded"  # a wrapper quoting the cause's message
    PROCESS_ORDER = "process_order"  # a child failed before its parent reported
    # knowledge says the later error follows from a warning's exception (causality.yaml `latent`)
    EXPLAINED = "explained"
    # the process died natively right after an exception it could not raise (`unraisable`)
    UNRAISABLE = "unraisable"
    # native code logged it, then its process died natively (causality.yaml `native`, `deaths`)
    ABORTED = "aborted"
    # a level-only record its process printed as it exited over the exception (`exit_reports`)
    EXIT_REPORT = "exit_report"


class _KeptHash:
    """A slot, not a field, for a frozen dataclass's hash once computed."""

    __slots__ = ("_hash",)
    _hash: int


@dataclass(frozen=True, slots=True)
class Process(_KeptHash):
    """A process as the log labels it: `(Worker_TP3 pid=207853)` or `main` without a prefix."""

    name: str
    pid: int | None = None
    ip: str | None = None

    def __hash__(self) -> int:
        # the dataclass's own hash, kept: processes key most of the assembler's tables, asked
        # several times a line (the generated method built and hashed the tuple every time)
        try:
            return self._hash
        except AttributeError:
            value = hash((self.name, self.pid, self.ip))
            object.__setattr__(self, "_hash", value)
            return value

    @property
    def label(self) -> str:
        return self.name if self.pid is None else f"{self.name} pid={self.pid}"


MAIN = Process("main")


@dataclass(frozen=True, slots=True)
class Frame:
    """One traceback frame."""

    file: str
    line: int
    function: str
    code: str | None = None  # the source line printed under it, when there is one


@quick_init
@dataclass(frozen=True, slots=True)
class LogLine:
    """One tokenized physical line. `number` is 1-based, counting `\\n` only."""

    number: int
    kind: LineKind
    text: str  # the body: what follows every wrapper, prefix and record header
    process: Process = MAIN
    level: Level | None = None
    time: str | None = None
    site: str | None = None  # the logger call site of a record, `core.py:708`; None for raw output
    exception: str | None = None  # EXCEPTION / FATAL: the type or fatal label
    message: str | None = None  # EXCEPTION / FATAL: the text after `Type: `
    frame: Frame | None = None
    chain: ChainReason | None = None
    # the outermost wrapper (docker time, journald host), if any; a test summary's (`FAILED x::t -`)
    # wherever it stands
    outer: str | None = None
    # inside a PEP 654 exception group's borders: the margin's column / 2 (`  | ` 1, `    | ` 2);
    # 0 outside any group
    depth: int = 0
    # behind a relaying logger's wrapper (`[ERROR] `, `... - INFO - vLLM: `, logfmt's `level=`):
    # another writer's record around the text, whatever wrappers the whole log has (`outer` is
    # the outermost: a launcher's time, not the relay, once a launcher wraps every line)
    relayed: bool = False



@quick_init
@dataclass(frozen=True, slots=True)
class LineRun:
    """Consecutive lines of one multi-line record (vLLM's NewLineFormatter repeats the record
    header on each) whose bodies the tokenizer has read before: a logged traceback printed
    again. Later stages that know what such a run does replay it instead of reading its lines.

    `key` names what the lines say apart from where and when (their bodies' bytes, the
    header's level, a relaying logger's level, the call site): the LogLines of two runs with one
    key differ only in their numbers (by the same offset), time and process. `level` is the
    header's (a line's own may come from its body).
    `lines()` makes the LogLines, for a stage that must read them one by one."""

    first: int  # the number of the first line; the others follow without a gap
    count: int
    process: Process
    level: Level | None
    time: str | None
    site: str | None
    key: tuple[bytes, Level | None, Level | None, str | None]
    make: Callable[[], tuple[LogLine, ...]]
    made: list[tuple[LogLine, ...]] = field(default_factory=list, compare=False)

    def lines(self) -> tuple[LogLine, ...]:
        """The run's LogLines (made once)."""
        if not self.made:
            self.made.append(self.make())
        return self.made[0]


@quick_init
@dataclass(frozen=True, slots=True)
class RecordRun:
    """A logged traceback read as one: an ERROR record's first line, the run of its repeated
    lines (LineRun) and its exception line right after them, all with one head. A request's
    error logged all day is this, again and again, differing only in its digits: later stages
    that know what such a record does replay it with its first and last lines' own text
    instead of reading its lines (Assembler.feed_record). `lines()` gives them all, in order."""

    first: LogLine
    run: LineRun
    last: LogLine

    def lines(self) -> tuple[LogLine, ...]:
        return (self.first, *self.run.lines(), self.last)


@dataclass(frozen=True, slots=True)
class Hint:
    """A remedy a warning stated in the few lines before an error, in the same process
    (assemble.py keeps it as the lines stream; hint.py offers it when only a fallback knows the
    error)."""

    line: int  # the warning's line
    remedy: str  # the remedy its text states (remedy.yaml, RemedyPhrasing.hint_of)


@quick_init
@dataclass(frozen=True, slots=True)
class ErrorEvent:
    """One error as printed once: a whole traceback, a fatal line, or an ERROR record."""

    id: int
    kind: EventKind
    exception: str
    message: str
    process: Process
    line: int  # the `Type: message` line, or the fatal line
    first_line: int
    last_line: int
    frames: tuple[Frame, ...] = ()
    time: str | None = None
    title: str | None = None  # the record that introduced a logged traceback
    cause_id: int | None = None  # the event printed above it in the same chain
    cause_reason: ChainReason | None = None
    raw: bool = False  # printed to stderr without a logger header
    site: str | None = None  # the logger call site that printed it (`serving_chat.py:898`)
    # the exception group whose borders it was printed inside (PEP 654): the group only
    # collects it, so it is the group's cause (None: not inside a group)
    group_id: int | None = None
    # copies of this error folded into it as they streamed by (recur.py): the same request's
    # failure answered again and again; itself included, and the last line of the last copy
    occurrences: int = 1
    last_occurrence: int | None = None
    # reported by a warning the process went on from (causality.yaml `latent`): an error only
    # when a later error follows from it
    latent: bool = False
    # a warning logged only while a model step's exception is handled, quoting an error
    # (causality.yaml `failing_warnings`): the failure when no later error of its process says
    # more (a traceback of the same step, even one cut before its exception line)
    failing_warning: bool = False
    # an exception Python reported as unraisable (`Exception ignored in:`, its `title`): latent
    # too, the cause only of a native death of its process right after it (`unraisable`)
    unraisable: bool = False
    # the remedy a warning of the same process stated right before its first line (None: none)
    hint: Hint | None = None
    # a traceback cut above its `Traceback` header: it begins at a frame (recordheads.py)
    headless: bool = False
    # a traceback cut before its exception line whose exception its heading record names
    # (assemble.py: a repr, a quoted str(e)): its innermost frames were never printed
    tailless: bool = False

    @property
    def text(self) -> str:
        """`Type: message` as one string, for matching."""
        return f"{self.exception}: {self.message}" if self.message else self.exception


@quick_init
@dataclass(frozen=True, slots=True)
class Milestone:
    """A lifecycle point (ready, serving, shutdown requested)."""

    kind: MilestoneKind
    line: int
    process: Process
    text: str
    phase: Phase | None = None  # the phase this line begins (kind PHASE, or a lifecycle line)
    time: str | None = None


Event = ErrorEvent | Milestone


@dataclass(frozen=True, slots=True)
class Link:
    """An edge of the causal graph, cause to effect, with its reason."""

    cause: int
    effect: int
    reason: LinkReason


@dataclass(frozen=True, slots=True)
class Failure:
    """One failure seen possibly several times (duplicate copies merged)."""

    event: ErrorEvent  # the earliest copy
    copies: tuple[int, ...]  # ids of every copy, earliest first
    role: EventRole


@dataclass(frozen=True, slots=True)
class Run:
    """One start of vLLM in a log that holds several (a restart, a crash loop, days of journald)."""

    start_line: int
    end_line: int
    verdict: Verdict
    exception: str | None  # the root cause's type (or, with no root, the first symptom's)
    message: str | None  # its first message line
    line: int | None  # its line
    fingerprint: str | None  # type and masked message: equal for runs that failed the same way
    same_failure: int  # runs of the log with this fingerprint, this one included
    first_time: str | None  # the time of the first and the last run with this fingerprint
    last_time: str | None
    start_time: str | None = None
    explained: bool = False  # the run the report explains


@dataclass(frozen=True, slots=True)
class Inference:
    """What the causal stage concluded."""

    verdict: Verdict
    root_cause: ErrorEvent | None
    symptoms: tuple[ErrorEvent, ...]
    survived: tuple[ErrorEvent, ...]  # errors the server lived through
    reasons: tuple[str, ...]  # why this root cause: one short sentence each
    links: tuple[Link, ...]
    failed_processes: tuple[Process, ...]
    look_for: tuple[str, ...] = ()  # root_cause_missing: what to search for in the full log
    chain: tuple[ErrorEvent, ...] = ()  # exceptions raised from the root cause, in order
    copies: tuple[ErrorEvent, ...] = ()  # the root cause printed again (other stream, process)
    runs: tuple[Run, ...] = ()  # every start of vLLM in the log, in order


@dataclass(frozen=True, slots=True)
class Evidence:
    """One part of a signature that matched, and how well."""

    part: str  # exception | message | regex | frames | process | facts
    score: float
    detail: str


@dataclass(frozen=True, slots=True)
class Match:
    """A signature scored against the failure."""

    id: str
    title: str
    score: float
    fix: str
    references: tuple[str, ...]
    evidence: tuple[Evidence, ...]
    target: str  # root_cause | chain | symptom
    file: str | None = None
    kind: SignatureKind = SignatureKind.EXACT

    @property
    def confidence(self) -> Confidence:
        """LOW when only a symptom matched (the cause is not in the log), or when a family
        answers the root cause under the matching threshold (it fits only in part)."""
        partial = self.kind is SignatureKind.FAMILY and self.score < MATCH_THRESHOLD
        return Confidence.LOW if self.target == "symptom" or partial else Confidence.HIGH

    def with_paragraph(self, paragraph: str) -> Match:
        """The match with a paragraph after its fix: what the log adds to the signature's advice
        (the log's release, platform, framework, plugin, the other spelling of a setting)."""
        return replace(self, fix=f"{self.fix.rstrip()}\n\n{paragraph}\n")


@dataclass(frozen=True, slots=True)
class PhaseEvidence:
    """The lifecycle phase a failure happened in, and what says so."""

    phase: Phase
    source: str  # "frames" (a function of the traceback) or "log" (a lifecycle line before it)
    detail: str  # the frame `file:function`, or `line N: <text>`
    line: int | None = None  # the lifecycle line, for source "log"


@dataclass(frozen=True, slots=True)
class ConfigDifference:
    """A setting the command line asked for that the engine did not use.

    The founding case: `non-default args` held `'kv_cache_dtype': 'auto'` while the engine's
    config line said `kv_cache_dtype=fp8_e4m3`, forced by the checkpoint's hf_quant_config.json.
    """

    name: str  # the fact name: kv_cache_dtype, dtype, quantization, max_model_len, ...
    requested: object
    effective: object
    requested_line: int | None = None
    effective_line: int | None = None


@dataclass(frozen=True, slots=True)
class FactOrigin:
    """Where a fact was read: its line and the process that printed it."""

    line: int
    process: Process = MAIN


@dataclass(frozen=True, slots=True)
class Report:
    """Everything `logsleuth explain` says about one log."""

    source: str
    verdict: Verdict
    root_cause: ErrorEvent | None
    symptoms: tuple[ErrorEvent, ...]
    signature: Match | None
    alternatives: tuple[Match, ...]
    facts: dict[str, object] = field(default_factory=dict)
    notices: tuple[str, ...] = ()
    reasons: tuple[str, ...] = ()
    look_for: tuple[str, ...] = ()
    failed_processes: tuple[Process, ...] = ()
    survived: tuple[ErrorEvent, ...] = ()
    lines_read: int = 0
    config_differences: tuple[ConfigDifference, ...] = ()  # requested vs what the engine used
    fact_origins: dict[str, FactOrigin] = field(default_factory=dict)  # fact name -> its line
    origins: dict[int, Origin] = field(default_factory=dict)  # event id -> where vLLM prints it
    advice: MessageAdvice | None = None  # the message's own remedy, when no exact signature
    # a release after the log's whose source no longer holds the root cause's message
    upgrade: ReleaseEvidence | None = None
    runs: tuple[Run, ...] = ()  # every start of vLLM in the log; the report explains one
    phase: PhaseEvidence | None = None  # where in its lifecycle vLLM failed, when known
    recognised: bool = True  # False: no line of the input looked like log output at all


@dataclass(frozen=True, slots=True)
class OriginSite:
    """One place in vLLM's source that prints a message (mined from vLLM's releases)."""

    module: str  # vllm.worker.worker
    function: str  # Worker.determine_num_available_blocks
    exception: str  # the exception class raised, or the log level / warning category
    kind: str  # raise | log | warn
    releases: tuple[str, ...]  # the indexed releases whose source holds it, oldest first
    span: str = ""  # the same as runs of consecutive indexed releases: "0.9.2-0.13.0, 0.15.0"


@dataclass(frozen=True, slots=True)
class Origin:
    """Where vLLM (or a plugin of it) prints an error's message, by the index of its source."""

    template: str  # the message as vLLM writes it, with typed placeholders
    sites: tuple[OriginSite, ...]  # the best site first (same exception class as the event)
    change: str | None = None  # "reworded in 0.9.0" / "no longer raised since 0.11.0"
    # whose source prints it: `vllm`, or a plugin's pip name (`vllm-ascend`, `lmcache`), whose
    # own releases `sites[].releases` then name (logsleuth/index/plugin.py)
    package: str = "vllm"

    @property
    def product(self) -> str:
        """How a sentence names the package: `vLLM`, or the plugin's pip name."""
        return "vLLM" if self.package == "vllm" else self.package

    @property
    def site(self) -> OriginSite:
        return self.sites[0]


@dataclass(frozen=True, slots=True)
class ConfigName:
    """A setting named in a message, as the same release's CLI flag or environment variable."""

    name: str
    flag: str | None = None  # --gpu-memory-utilization
    env: str | None = None  # VLLM_ATTENTION_BACKEND
    default: str | None = None


@dataclass(frozen=True, slots=True)
class MessageAdvice:
    """The remedy a vLLM message states itself ("Try ...", "Consider ..."): advice of kind
    `message`, weaker than a family or exact signature."""

    text: str
    event_line: int  # the line of the error whose message says it
    release: str | None  # the vLLM release whose flags and variables `names` are read from
    names: tuple[ConfigName, ...] = ()


@dataclass(frozen=True, slots=True)
class ReleaseEvidence:
    """vLLM's source, by the index of every release, no longer holds the root cause's message
    after the log's release, while the function that raised it lives on: the check was dropped,
    so upgrading vLLM is advice with evidence (logsleuth/index/release.py says when it is not:
    a message that moved, was reworded, or a version the index does not cover)."""

    release: str  # the first indexed release whose source lacks the message: upgrade to >= it
    last_release: str  # the newest indexed release whose source still holds it
    log_version: str  # the log's vLLM version, as printed
    site: str  # module.function that raised it up to `last_release` and still exists in `release`
    event_line: int  # the root cause's line
    package: str = "vllm"  # whose releases: vllm, or a plugin's pip name (`vllm-ascend`)

    @property
    def product(self) -> str:
        """How a sentence names the package: `vLLM`, or the plugin's pip name."""
        return "vLLM" if self.package == "vllm" else self.package

    @property
    def command(self) -> str:
        return f"pip install -U '{self.package}>={self.release}'"

    @property
    def evidence(self) -> str:
        return (f"this message is gone from {self.product} {self.release}'s source: {self.site} "
                f"still exists there but no longer raises it ({self.product} {self.last_release} "
                f"is the newest indexed release that does; the log's {self.product} is "
                f"{self.log_version})")
