"""Typed records of a triage run: one Case per log, one Group per root-cause fingerprint."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum

from logsleuth.model import Verdict


class Engine(Enum):
    """Where the logs are explained."""

    LOCAL = "local"  # a process pool on this machine
    RAY = "ray"  # Ray tasks, for logs on storage shared by the nodes of a cluster


class Status(Enum):
    """What became of one file."""

    REPORTED = "reported"  # a report was made (whatever its verdict)
    UNREADABLE = "unreadable"  # the input could not be used (missing, no permission, a directory)
    CRASHED = "crashed"  # logsleuth itself failed on it (a bug, or the worker process died)


class GroupKind(Enum):
    """How a group's cases were put together; also the order of the table's sections."""

    SIGNATURE = "signature"  # the same matched signature id
    UNMATCHED = "unmatched"  # no signature: the same exception and masked message
    NO_FAILURE = "no_failure"  # nothing failed and no signature matched
    UNREADABLE = "unreadable"  # the same masked input error
    CRASHED = "crashed"  # the same masked crash


class CauseSource(Enum):
    """Where a case's cause text was taken from."""

    ROOT_CAUSE = "root_cause"
    SYMPTOM = "symptom"  # root_cause_missing: the first symptom stands in for the cause


@dataclass(frozen=True, slots=True)
class FileId:
    """A file's identity at the moment it was listed: the cache key of its report."""

    path: str
    size: int
    mtime_ns: int
    inode: int


@dataclass(frozen=True, slots=True)
class Explained:
    """What a worker hands back for one path: the report contract as JSON, or why not."""

    path: str
    status: Status
    report_json: str | None = None  # render.json.report_to_dict, serialised
    error: str | None = None


@dataclass(frozen=True, slots=True)
class SignatureRef:
    """The matched signature, as the triage table shows it."""

    id: str
    title: str
    score: float


@dataclass(frozen=True, slots=True)
class Cause:
    """The error a case is grouped by when no signature matched."""

    exception: str
    message: str
    process: str
    line: int
    source: CauseSource
    time: str | None = None


@dataclass(frozen=True, slots=True)
class Case:
    """One log of the run."""

    path: str  # absolute, as listed (symbolic links are kept, not resolved)
    status: Status
    fingerprint: str  # the group key
    kind: GroupKind
    file: FileId | None = None  # None when the file could not even be listed
    verdict: Verdict | None = None  # None unless status is REPORTED
    signature: SignatureRef | None = None
    cause: Cause | None = None
    error: str | None = None
    notices: int = 0
    lines_read: int = 0
    recognised: bool = True  # False: no line of the file looks like log output (explain's exit 3)
    # Bookkeeping of this run, not part of the answer: equal cases compare equal either way.
    from_cache: bool = field(default=False, compare=False)


@dataclass(frozen=True, slots=True)
class Group:
    """Cases with the same fingerprint."""

    kind: GroupKind
    fingerprint: str
    title: str  # the signature title, or the masked `Exception: message`, or the masked error
    cases: tuple[Case, ...]  # newest first, then by path
    first_seen_ns: int | None  # the root causes' own timestamps, else the files' mtimes
    last_seen_ns: int | None
    seen_in_logs: bool = False  # True: every time above came from the logs themselves

    @property
    def count(self) -> int:
        return len(self.cases)


@dataclass(frozen=True, slots=True)
class TriageResult:
    """Every case, their groups, and what limited the run."""

    roots: tuple[str, ...]  # the paths given
    cases: tuple[Case, ...]  # by path
    groups: tuple[Group, ...]  # by kind, then largest first
    notices: tuple[str, ...] = ()

    @property
    def read(self) -> int:
        """Logs explained in this run (not taken from the cache)."""
        return sum(1 for case in self.cases if not case.from_cache)

    @property
    def cached(self) -> int:
        return sum(1 for case in self.cases if case.from_cache)

    def count(self, what: Verdict | Status) -> int:
        """Cases with this verdict, or with this status."""
        if isinstance(what, Verdict):
            return sum(1 for case in self.cases if case.verdict is what)
        return sum(1 for case in self.cases if case.status is what)
