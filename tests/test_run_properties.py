"""Properties of root-cause inference over whole logs (issue 10, item 4), with hypothesis.

Every failing log of the copied corpus (tests/fixtures/corpus) whose root cause logsleuth names
is a subject; its own report is the reference, and each transformation must keep the answer:

- put into a long healthy server log, interleaved line by line -> the same root, at its new line;
- with errors the healthy server survives before it -> unchanged;
- k failing logs one after another, each started as vLLM starts -> k runs, each with its root;
- wrapped as docker, journald, compose, CRI, a terminal pane, a CI runner, a launcher (kubectl,
  srun, mpirun) or a logger that re-logs a child's lines print it -> the same answer;
- exported as CSV by a log service (CloudWatch for SageMaker, Logs Insights, Loki) -> the same
  answer, one line further down (the header row);

The main suite runs them derandomized (tests/conftest.py); `HYPOTHESIS_PROFILE=explore` draws
fresh examples (.ci/properties). Hypothesis prints the case counts with
--hypothesis-show-statistics, which .ci/properties passes.

Interleaving puts two deployments into one log. A failure that nothing else in its deployment
reports (a lone worker traceback in an excerpt) cannot be told from an error the other server
lived through, so those subjects are left out of the interleaving properties only.
"""

from __future__ import annotations

import csv
import io
import random
import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from logsleuth.knowledge import default_causality
from logsleuth.model import Report, Role, Verdict
from logsleuth.pipeline import explain_text
from logsleuth.signatures import default_signatures
from scenario_logs import Server

CORPUS = Path(__file__).parent / "fixtures" / "corpus"
PREFIX_AT_START = re.compile(r"^\((?:[^()\n]*? )?pid=\d+(?:, ip=[^()\n]*)?\)")
SOME = settings(max_examples=12, deadline=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


@dataclass(frozen=True)
class Answer:
    exception: str
    message: str
    line: int


def explain_lines(lines: list[str]) -> Report:
    return explain_text("\n".join(lines) + "\n", signatures=default_signatures())


def answer(report: Report) -> Answer | None:
    root = report.root_cause
    if report.verdict is not Verdict.FAILURE or root is None:
        return None
    return Answer(root.exception, " ".join(root.message.split("\n", 1)[0].split())[:120], root.line)


@cache
def corpus_reports() -> dict[Path, Report]:
    """Every corpus log's report, explained as its lines (lines_of) once per worker: subjects()
    and the process each subject's root is in (_reference_process) read the same reports."""
    return {log: explain_lines(lines_of(log)) for log in sorted(CORPUS.glob("*/*/log.txt"))}


@cache
def subjects() -> tuple[tuple[Path, Answer, bool], ...]:
    """(log, its answer, reported by its own deployment) for every failing corpus log."""
    know = default_causality()
    found = []
    for log, report in corpus_reports().items():
        reference = answer(report)
        if reference is None or len(report.runs) > 1:
            continue
        role = know.role_of(report.root_cause.process.name) if report.root_cause else Role.OTHER
        reported = bool(report.symptoms) or role in (Role.API_SERVER, Role.MAIN)
        found.append((log, reference, reported))
    return tuple(found)


def lines_of(log: Path) -> list[str]:
    return log.read_text(encoding="utf-8", errors="replace").splitlines()


SUBJECT = st.sampled_from(range(64)).map(lambda i: subjects()[i % len(subjects())])
REPORTED = st.sampled_from(range(64)).map(
    lambda i: [s for s in subjects() if s[2]][i % len([s for s in subjects() if s[2]])])


def healthy(requests: int) -> Server:
    return Server(api=990_001, engine=990_101, workers=2)


def interleave(inserted: list[str], host: list[str], at: int, seed: int) -> tuple[list[str],
                                                                                   list[int]]:
    """`inserted` merged into `host` from host line `at` on, each keeping its order; returns the
    merged lines and where each inserted line went (1-based)."""
    rng = random.Random(seed)
    out = host[:at]
    where: list[int] = []
    i, j = 0, at
    while i < len(inserted):
        if j < len(host) and rng.random() < 0.5:
            out.append(host[j])
            j += 1
        else:
            out.append(inserted[i])
            where.append(len(out))
            i += 1
    out += host[j:]
    return out, where


@SOME
@given(REPORTED, st.integers(0, 400), st.integers(0, 2**32))
def test_root_of_a_failing_log_inserted_into_a_healthy_one(subject: tuple[Path, Answer, bool],
                                                          at: int, seed: int) -> None:
    log, reference, _ = subject
    server = healthy(0)
    host = server.startup() + server.requests(1500)
    merged, where = interleave(lines_of(log), host, len(server.startup()) + at, seed)
    got = answer(explain_lines(merged))
    assert got == Answer(reference.exception, reference.message, where[reference.line - 1])


@SOME
@given(REPORTED, st.integers(1, 4), st.integers(0, 2**32))
def test_survived_errors_before_it_change_nothing(subject: tuple[Path, Answer, bool],
                                                  survived: int, seed: int) -> None:
    log, reference, _ = subject
    server = healthy(0)
    host = server.startup()
    for _ in range(survived):
        host += server.requests(60) + server.request_error() + server.requests(60)
    at = len(host)
    host += server.requests(600)
    merged, where = interleave(lines_of(log), host, at, seed)
    report = explain_lines(merged)
    assert answer(report) == Answer(reference.exception, reference.message,
                                    where[reference.line - 1])
    assert sum(e.occurrences for e in report.survived if e.process.pid == server.api) == survived


START = "INFO 01-01 00:00:00 [utils.py:254] non-default args: {'model_tag': 'x'}"


# (distinct logs: one log twice in a row, its start lines repeated time and all, is the same output
# pasted twice, one run: runs.py, tests/test_pasted_twice.py)
@SOME
@given(st.lists(SUBJECT, min_size=2, max_size=4, unique_by=lambda subject: subject[0]))
def test_k_failing_logs_in_a_row_are_k_runs_each_with_its_root(
        picked: list[tuple[Path, Answer, bool]]) -> None:
    lines: list[str] = []
    expected: list[tuple[str, int]] = []
    for log, reference, _ in picked:
        lines.append(START)  # every run of vLLM prints its arguments first
        expected.append((reference.exception, len(lines) + reference.line))
        lines += lines_of(log)
    report = explain_lines(lines)
    assert [(r.exception, r.line) for r in report.runs] == expected
    assert all(r.verdict is Verdict.FAILURE for r in report.runs)
    assert report.root_cause is not None and report.root_cause.line == expected[-1][1]


WRAPPERS = {
    "docker": lambda line: f"2024-07-22T10:38:57.216715364Z {line}",
    "journald": lambda line: f"Aug 17 18:42:18 gpu-node-1 vllm[8052]: {line}",
    # journald in a Chinese, Japanese or Korean locale writes the month as a number (vllm#5376)
    "journald-cjk": lambda line: f"6月 10 16:45:05 ma-Z690M bash[107468]: {line}",
    "journald-korean": lambda line: f"6월 10 16:45:05 gpu1 vllm[77]: {line}",
    "compose": lambda line: f"vllm-1  | {line}",
    "cri": lambda line: f"2024-07-22T10:38:57.216715364+08:00 stderr F {line}",
    "pane": lambda line: f"│ {line:<200} │",
    # docker logs --timestamps of compose, and compose's own view of a timestamped service
    "docker-compose": lambda line: f"2025-01-02T03:04:05.123456789Z svc-1  | {line}",
    "compose-docker": lambda line: f"svc-1  | 2025-01-02T03:04:05.123456789Z {line}",
    "buildkite": lambda line: f"[2025-01-02T03:04:05Z] {line}",
    "github-actions": lambda line: f"2025-01-02T03:04:05.1234567Z {line}",
    "kubectl-prefix": lambda line: f"[pod/vllm-0/vllm] {line}",
    "kubectl-prefix-timestamps": lambda line: f"[pod/vllm-7d9f/vllm] 2025-01-02T03:04:05.1Z {line}",
    "modal": lambda line: f"May 01  14:38:18.434 | {line}",  # Modal's dashboard copy
    "srun": lambda line: f"0: {line}",
    "srun-wide": lambda line: f"12: {line}",
    "mpirun": lambda line: f"[1,0]<stderr>:{line}",
    "pdsh": lambda line: f"gpu-node-3: {line}",
    "fastchat-stderr": lambda line: f"2024-01-02 03:04:05 | ERROR | stderr | {line}",
    "relaying-logger": lambda line: f"2024-01-02 03:04:05,123 - INFO - vLLM: {line}",
    "relaying-logger-bracketed": lambda line: f"[2024-01-02 03:04:05] INFO: {line}",
    "pasted-ellipsis": lambda line: f"... {line}",
    "syslog-escapes": lambda line: f"#033[0;36m{line}#033[0m",
    # vLLM 0.11+ colours only the process prefix; rsyslog escapes that colour, a browser copy
    # loses its ESC byte (vllm#5484)
    "syslog-prefix": lambda line: PREFIX_AT_START.sub(r"#033[1;36m\g<0>#033[0;0m", line, 1),
    "lost-escape-prefix": lambda line: PREFIX_AT_START.sub(r"[1;36m\g<0>[0;0m", line, 1),
    "lost-escape-line": lambda line: f"[0;36m{line}",
    "gutter": lambda line: f"  | {line}",  # a log viewer's margin (vllm#6042)
    # a GitHub comment quoting a log; a caret-form line end (a paste) saved again with CRLF
    "markdown-quote": lambda line: f"> {line}" if line else ">",
    "caret-crlf": lambda line: f"{line}^M\r",
}


@SOME
@given(SUBJECT, st.sampled_from(sorted(WRAPPERS)))
def test_a_wrapped_log_gives_the_same_answer(subject: tuple[Path, Answer, bool],
                                             wrapper: str) -> None:
    log, reference, _ = subject
    wrap = WRAPPERS[wrapper]
    assert answer(explain_lines([wrap(line) for line in lines_of(log)])) == reference


def _reference_process(log: Path) -> str:
    report = corpus_reports()[log]  # the report subjects() took the log's answer from
    assert report.root_cause is not None
    return report.root_cause.process.label


@pytest.mark.parametrize("wrapper", sorted(WRAPPERS))
def test_every_wrapper_keeps_root_verdict_and_process(wrapper: str) -> None:
    """Each wrapper over a third of the subjects (a different third for each wrapper, so that
    every subject meets several wrappers): the same root, verdict and process as unwrapped."""
    wrap = WRAPPERS[wrapper]
    offset = sorted(WRAPPERS).index(wrapper)
    for index, (log, reference, _) in enumerate(subjects()):
        if (index + offset) % 3:
            continue
        report = explain_lines([wrap(line) for line in lines_of(log)])
        assert answer(report) == reference, (wrapper, log.parent.name)
        assert report.root_cause is not None
        assert report.root_cause.process.label == _reference_process(log), (wrapper, log)


CSV_HEADERS: list[tuple[str, ...] | None] = [("timestamp", "message"),
                                             ("@timestamp", "@message", "@logStream"),
                                             ("time", "log"), None]


def as_csv(lines: list[str], header: tuple[str, ...] | None, quote_all: bool,
           escaped_cr: bool) -> list[str]:
    """The log as a log service's CSV export: a header row or none (CloudWatch's own export of
    a SageMaker endpoint's log stream), then one event a row, its `\\r` written `#015`."""
    out = io.StringIO()
    writer = csv.writer(out, quoting=csv.QUOTE_ALL if quote_all else csv.QUOTE_MINIMAL,
                        lineterminator="\n")
    columns = len(header) if header else 2
    if header:
        writer.writerow(header)
    for number, line in enumerate(lines):
        row = [str(1718000000000 + number), line + ("#015" if escaped_cr else ""),
               "vllm/AllTraffic/i-0ab"]
        writer.writerow(row[:columns])
    return out.getvalue().rstrip("\n").split("\n")


@SOME
@given(SUBJECT, st.sampled_from(CSV_HEADERS), st.booleans(), st.booleans())
def test_a_csv_export_gives_the_same_answer(subject: tuple[Path, Answer, bool],
                                            header: tuple[str, ...] | None, quote_all: bool,
                                            escaped_cr: bool) -> None:
    log, reference, _ = subject
    exported = explain_lines(as_csv(lines_of(log), header, quote_all, escaped_cr))
    shift = 1 if header else 0
    assert answer(exported) == Answer(reference.exception, reference.message,
                                      reference.line + shift)
