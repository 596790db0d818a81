"""Labels of logs that read the same agree (tuning set and shared corpus).

Two logs whose errors read the same give logsleuth nothing to tell them apart, so their labels
must agree on the verdict (healthy, root cause in the log or not), or a mechanism tuned to one
answers the other wrong and the miss ends up on a strict list as "the label contradicts its
twins" (session 28: four such entries of KNOWN_VERDICT_MISSES were labels, not logsleuth).

A log's reading is what its errors say, whatever form they were printed in, read by logsleuth's
own tokenizer and assembler (no inference, a few seconds for the whole set):

- its exceptions: each the short class name (no module) and the first line of its message,
  numbers, hex addresses and absolute paths masked; frames are not part of it, so an exception
  printed with its traceback and the same exception printed as one bare line read the same;
- the same exceptions with the logger record that printed each (`Error in extracting tool call
  from response.` with its traceback under it, or as the record right above a raw traceback) in
  place of its message: the record says what failed, the message is the data that failed it.

Logs that read the same in either way and whose labels disagree fail the test, unless each case
on the other side is in ALLOWED with the evidence outside its errors that tells it apart (a
shutdown requested before the error, work done after it). An entry that no longer separates its
case from a twin fails too.
"""

from __future__ import annotations

import io
import re
from collections import defaultdict
from collections.abc import Iterable, Mapping
from pathlib import Path

import pytest

from corpus_judge import CORPUS, Case, expected_verdict, load_cases
from logsleuth.model import ErrorEvent, EventKind
from logsleuth.pipeline import parse

TUNING = Path(__file__).parent / "fixtures" / "tuning"

Statement = tuple[str, str]
Reading = frozenset[Statement]

# case id (corpus cases as `corpus:<group>/<name>`) -> what outside its errors tells it apart
ALLOWED: dict[str, str] = {
    "healthy/d-v03-offline-tp-cupy-tcpstore-del-ignored":
        "its TypeError is unraisable: Python's `Exception ignored in: <function TCPStore.__del__ "
        "...>` over a destructor run at the interpreter's exit, after the offline run printed every "
        "generated text; its failing twin's (launchers/z-vllm-ascend-v071rc1-...-fused-experts-"
        "none-not-callable) is raised in the profile run, under `Error executing method "
        "'determine_num_available_blocks'`",
    "startup/v073-runpod-newest-first-qwen25vl-architecture-unsupported":
        "its exit report (`worker exited with exit code 1`) follows RunPod's `Uncaught exception | "
        "<class 'ValueError'>; ...` record and the engine's `Error initializing vLLM engine: ...` "
        "line, which name the cause; its twin's only error is the exit report (a symptom)",
    "corpus:long/healthy-dgx-spark-sigterm-shutdown":
        "its EngineDeadError follows the engine core's `[shutdown] EngineCore: trigger received "
        "signal=SIGTERM` and the API server's own shutdown after hours of serving: the error "
        "is the requested stop, where its twins' EngineDeadError comes with no stop asked for",
    "healthy/v-v0230-qwen25-coder-7b-bench-serving-shutdown-engine-dead-at-sigterm-leaked-semaphore":
        "as corpus:long/healthy-dgx-spark-sigterm-shutdown: `[shutdown] EngineCore: trigger "
        "received signal=SIGTERM` after a benchmark served, then the EngineDeadError of the stop",
    "healthy/s36r-gb10-v0251-int4-served-shutdown-enginedeaderror-in-abort":
        "as corpus:long/healthy-dgx-spark-sigterm-shutdown: `[shutdown] API server: shutdown "
        "triggered` (mode=abort) and the engine core's `trigger received signal=SIGTERM` after "
        "it served, then the output handler's EngineDeadError of that stop",
    "healthy/s36r-gb10-v0251-qwen38-nvfp4-served-shutdown-enginedeaderror-in-abort":
        "as corpus:long/healthy-dgx-spark-sigterm-shutdown: `[shutdown] API server: shutdown "
        "triggered` (mode=abort) and the engine core's `trigger received signal=SIGTERM` after "
        "it served, then the output handler's EngineDeadError of that stop",
    "healthy/s36r-gb10-v0251-served-shutdown-enginedeaderror-in-abort":
        "as corpus:long/healthy-dgx-spark-sigterm-shutdown: `[shutdown] API server: shutdown "
        "triggered` (mode=abort) and the engine core's `trigger received signal=SIGTERM` after "
        "it served, then the output handler's EngineDeadError of that stop",
    "healthy/g-k8s-aibrix-ascend-v0110rc1-tp2-serving-aclgraph-vllm-c-import-warnings":
        "the `No module named 'vllm._C'` import warning of a platform plugin's start (vLLM's "
        "CUDA ops are not used on the NPU) is followed by serving; its failing twins end on it",
    "healthy/jj-ascend-early-plugin-v0-gpt2-offline-npu-vllm-c-warning-generations":
        "the `No module named 'vllm._C'` warning of an NPU plugin's start is followed by the "
        "offline run's generations; its failing twins end on it",
    "healthy/kk-gaudi-v053-opt125m-offline-startup-buckets-weights-loaded":
        "the `No module named 'vllm._C'` warning of the Gaudi fork's start is followed by its "
        "buckets and the weights loaded; its failing twins end on it",
    "healthy/nn-gaudi-v0141-qwen3-vl-32b-fp8-warmup-buckets-then-serving-debug-stats":
        "the `No module named 'vllm._C'` warning of the HPU plugin's start is followed by its "
        "bucket warm-up, start-up complete and answered requests; its failing twins end on it",
    "healthy/pp-tpu-v7x-qwen3-5-serve-long-compile-start":
        "the `No module named 'vllm._C'` warning of the TPU plugin's start is followed by its "
        "precompilation and `Application startup complete`; its failing twins end on it",
    "healthy/t-ascend-v074dev-early-v1-qwen25-7b-modelscope-vllm-c-missing-warnings-serving-curl-in-paste":
        "the `No module named 'vllm._C'` warning of the Ascend plugin's start is followed by the "
        "server's start and a completion answered 200; its failing twins end on it",
    "healthy/tt-macos-m3-flask-app-imports-vllm-c-extension-and-triton-missing-warnings-reloader-serving":
        "the `No module named 'vllm._C'` warning of vLLM imported as a library (a web app's "
        "start, no engine) is followed by the app's own start and its server running, twice "
        "(the reloader's second start); its failing twins end on it",
}

_HEX = re.compile(r"0x[0-9a-fA-F]+")
_PATH = re.compile(r"(?<![\w.])(?:/[\w.@+-]+)+")
_NUMBER = re.compile(r"\d+(?:\.\d+)*")


def normalised(text: str | None) -> str:
    """The first line of a message, its spaces folded, addresses, paths and numbers masked
    (quoted names stay: `No module named 'vllm._C'` is not `No module named 'numba'`)."""
    line = " ".join((text or "").split("\n", 1)[0].split())
    return _NUMBER.sub("<n>", _PATH.sub("<path>", _HEX.sub("<hex>", line)))


def readings(events: Iterable[object]) -> tuple[Reading, Reading]:
    """(exceptions by message, exceptions by the record that printed them) of a log's events;
    logger records without an exception are no statements of their own."""
    by_message: set[Statement] = set()
    by_record: set[Statement] = set()
    record: ErrorEvent | None = None
    for event in events:
        if not isinstance(event, ErrorEvent):
            continue
        if event.kind is EventKind.ERROR_RECORD:
            record = event
            continue
        kind = event.exception.rsplit(".", 1)[-1]
        message = normalised(event.message)
        by_message.add((kind, message))
        title = event.title
        if not title and record is not None and record.last_line + 1 >= event.first_line:
            title = record.message  # a record right above a traceback printed raw
        by_record.add((kind, "record: " + normalised(title)) if title else (kind, message))
        record = None
    return frozenset(by_message), frozenset(by_record)


def case_id(case: Case) -> str:
    corpus = case.log.is_relative_to(CORPUS)
    return f"{'corpus:' if corpus else ''}{case.group}/{case.name}"


def twin_groups(cases: Iterable[tuple[str, Reading, Reading]]) -> list[set[str]]:
    """The cases that read the same, in either way (groups of two or more)."""
    groups: dict[tuple[str, Reading], set[str]] = defaultdict(set)
    for name, by_message, by_record in cases:
        if by_message:
            groups[("message", by_message)].add(name)
        if by_record and by_record != by_message:
            groups[("record", by_record)].add(name)
    return [group for group in groups.values() if len(group) > 1]


def disagreements(groups: Iterable[set[str]], verdicts: Mapping[str, str],
                  allowed: Mapping[str, str]) -> tuple[list[str], set[str]]:
    """(the groups whose labels disagree among cases not allowed, the allowed cases that
    differ from a twin's label)."""
    problems: list[str] = []
    used: set[str] = set()
    for group in groups:
        held = {verdicts[name] for name in group if name not in allowed}
        if len(held) > 1:
            problems.append(", ".join(f"{name} ({verdicts[name]})" for name in sorted(group)))
        used |= {name for name in group if name in allowed and verdicts[name] not in held}
    return problems, used


@pytest.fixture(scope="module")
def labelled() -> tuple[list[set[str]], dict[str, str]]:
    cases = [*load_cases(CORPUS), *load_cases(TUNING)]
    verdicts = {case_id(case): expected_verdict(case.label) for case in cases}
    groups = twin_groups((case_id(case), *readings(parse(case.log))) for case in cases)
    return groups, verdicts


def test_logs_that_read_the_same_are_labelled_alike(
        labelled: tuple[list[set[str]], dict[str, str]]) -> None:
    groups, verdicts = labelled
    problems, _ = disagreements(groups, verdicts, ALLOWED)
    assert not problems, (
        "logs that read the same are labelled differently (make the labels agree, with the "
        "reason in case.yaml, or allow the case with the evidence that tells it apart):\n"
        + "\n".join(problems))


def test_every_allowed_case_still_differs_from_a_twin(
        labelled: tuple[list[set[str]], dict[str, str]]) -> None:
    groups, verdicts = labelled
    assert set(ALLOWED) <= set(verdicts), set(ALLOWED) - set(verdicts)
    _, used = disagreements(groups, verdicts, ALLOWED)
    assert set(ALLOWED) == used, f"stale entries: {sorted(set(ALLOWED) - used)}"


# --- the reading itself, on generated logs -------------------------------------------------

_EXCEPTIONS = [
    ("TimeoutError", "RPC call to execute_model timed out."),
    ("json.decoder.JSONDecodeError", "Expecting value: line 1 column 1 (char 0)"),
    ("torch.OutOfMemoryError", "CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a "
                               "total capacity of 79.15 GiB"),
    ("ModuleNotFoundError", "No module named 'vllm._C'"),
    ("vllm.v1.engine.exceptions.EngineDeadError", "EngineCore encountered an issue. See stack "
                                                  "trace (above) for the root cause."),
]
_PREFIXES = ["", "ERROR 12-02 05:59:06 engine.py:108] ", "(EngineCore_0 pid=412) "]


def _traceback(exception: str, message: str, prefix: str, depth: int) -> str:
    frames = "".join(
        f'{prefix}  File "/usr/lib/python3.12/site-packages/vllm/mod{i}.py", line {10 + i}, '
        f"in step{i}\n{prefix}    value = call{i}(x)\n" for i in range(depth))
    return f"{prefix}Traceback (most recent call last):\n{frames}{prefix}{exception}: {message}\n"


def _reading_of(text: str) -> tuple[Reading, Reading]:
    return readings(parse(io.StringIO(text)))


@pytest.mark.parametrize("prefix", _PREFIXES)
@pytest.mark.parametrize("exception,message", _EXCEPTIONS)
def test_with_and_without_a_traceback_read_the_same(exception: str, message: str,
                                                      prefix: str) -> None:
    bare = _reading_of(f"INFO starting\n{exception}: {message}\n")
    for depth in (1, 3):
        assert _reading_of(_traceback(exception, message, prefix, depth))[0] == bare[0]
    assert bare[0] == frozenset({(exception.rsplit(".", 1)[-1], normalised(message))})


@pytest.mark.parametrize("exception,message", _EXCEPTIONS)
def test_numbers_paths_and_addresses_do_not_change_a_reading(exception: str,
                                                               message: str) -> None:
    other = re.sub(r"\d", "7", message) + " at 0xdeadbeef in /tmp/run-3/x.py"
    same = message + " at 0x7f00aa12 in /opt/app/y.py"
    assert (_reading_of(f"{exception}: {other}\n")[0]
            == _reading_of(f"{exception}: {same}\n")[0])


def test_another_message_or_class_reads_otherwise() -> None:
    readings_seen = {_reading_of(f"{exception}: {message}\n")[0]
                     for exception, message in _EXCEPTIONS}
    assert len(readings_seen) == len(_EXCEPTIONS)
    assert (_reading_of("ModuleNotFoundError: No module named 'numba'\n")[0]
            != _reading_of("ModuleNotFoundError: No module named 'vllm._C'\n")[0])


def test_the_record_that_printed_a_traceback_is_its_reading_either_way() -> None:
    # the record as the traceback's header line by line, or once above a raw traceback; the
    # exception's messages differ (the data), the record and class do not
    prefix = "ERROR 12-02 05:59:06 hermes_tool_parser.py:108] "
    headed = (f"{prefix}Error in extracting tool call from response.\n"
              + _traceback("json.decoder.JSONDecodeError",
                           "Expecting value: line 1 column 1 (char 0)", prefix, 2))
    raw = ("ERROR [hermes_tool_parser.py:110] Error in extracting tool call from response.\n"
           + _traceback("json.decoder.JSONDecodeError", "Extra data: line 3 column 1 (char 527)",
                        "", 2))
    assert _reading_of(headed)[1] == _reading_of(raw)[1] == frozenset(
        {("JSONDecodeError", "record: Error in extracting tool call from response.")})
    assert _reading_of(headed)[0] != _reading_of(raw)[0]


def test_disagreeing_twins_are_flagged_unless_allowed() -> None:
    groups = twin_groups([("a", frozenset({("E", "m")}), frozenset({("E", "m")})),
                          ("b", frozenset({("E", "m")}), frozenset({("E", "m")})),
                          ("c", frozenset({("F", "m")}), frozenset({("F", "m")}))])
    verdicts = {"a": "failure", "b": "no_failure", "c": "failure"}
    assert disagreements(groups, verdicts, {})[0]
    assert disagreements(groups, verdicts, {"b": "stopped first"}) == ([], {"b"})
    assert disagreements(groups, {**verdicts, "b": "failure"}, {"b": "stale"}) == ([], set())
