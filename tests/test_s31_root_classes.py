"""Classes of issue 10 (root cause and verdict) that session 31's development split showed, each
over generated logs of its class, with the same shapes where they are the failure.

- **A driver's word that the command it ran exited non-zero.** A test or a harness that runs vLLM
  (or a script that runs it) as a command and checks its exit code says only that it failed: the
  speculators e2e tests' `AssertionError: run_vllm.py command exited with non-zero return code:
  1`, a harness's `RuntimeError: Process exited with code 1`. A symptom (causality.yaml
  `symptoms`): the command's own output, above it or in what pytest captured, is the root; with
  none, the cause is not in the log (tests/fixtures/tuning: ff-speculators-e2e-pytest-v0172rc1-
  ...). A message that goes on with a reason after the code carries its cause and stays the root;
  so does a test's assertion about anything else.
- **Records glued into one line.** A paste that turned the line breaks of a traceback into single
  spaces holds every record on one line, each behind its head: `... ^^^^ (APIServer pid=135812)
  NotImplementedError: ...` (vllm#31883). The exception at the margin behind a glued head (a
  process prefix, torch's rank prefix, vLLM's ERROR header) is that record's, with its own process
  and level whatever record the line began with (grammars/vllm.lark EXC_LEAD, GLUED_HEAD), and
  its message ends where the next glued record begins (tests/fixtures/tuning: u-v0130-wsl-
  rtx4070-draft-model-spec-decode-not-implemented-records-glued-one-line). A glued record below
  ERROR that quotes an exception, or a source line that names one, stays what it is.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from logsleuth.model import Report, Verdict
from logsleuth.pipeline import explain_text
from logsleuth.signatures import default_signatures
from logsleuth.tokenize import parse_line

SOME = settings(max_examples=25, deadline=None)

# the wrappers a collector puts around every line: none, docker's time, a CI runner's time
WRAPS = ["", "2026-01-31T14:21:03.123456789Z ", "[2025-05-20T10:11:12Z] "]


def explain(lines: list[str], wrap: str = "") -> Report:
    return explain_text("".join(f"{wrap}{line}\n" for line in lines),
                        signatures=default_signatures())


# --- a driver's word that its command exited non-zero ----------------------------------------

EXITS = [
    "AssertionError: run_vllm.py command exited with non-zero return code: {rc}",
    "AssertionError: vllm serve exited with code {rc}",
    "RuntimeError: Process exited with code {rc}",
    "RuntimeError: Server process exited unexpectedly with exit code {rc}.",
    "Exception: Command failed with exit status {rc}",
    "AssertionError: Subprocess returned non-zero exit code",
    "ChildProcessError: benchmark.sh terminated with non-zero exit status {rc}",
    "RuntimeError: Command '['vllm', 'serve', 'http://models.local:9000/llama']' returned "
    "non-zero exit status {rc}.",
    "AssertionError: vLLM process exited with code {rc} (SIGKILL)",
]
CODES = st.sampled_from([1, 2, 137, -9])


def _exit(form: str, rc: int) -> str:
    return form.format(rc=rc)


# the command's own output: an engine core that failed to start (V1, prefixed or not)
ENGINE = [
    "{p}ERROR 03-14 09:12:01 [core.py:1099] EngineCore failed to start.",
    "{p}ERROR 03-14 09:12:01 [core.py:1099] Traceback (most recent call last):",
    '{p}ERROR 03-14 09:12:01 [core.py:1099]   File "/opt/venv/lib/python3.12/site-packages/vllm/'
    'compilation/compiler_interface.py", line 383, in compile',
    "{p}ERROR 03-14 09:12:01 [core.py:1099]     with pregrad_ctx, fake_mode_ctx:",
    "{p}ERROR 03-14 09:12:01 [core.py:1099] AttributeError: <function standalone_compile at "
    "0x7fb044bee440> does not have the attribute 'FakeTensorMode'",
]
ENGINE_PREFIXES = ["(EngineCore_DP0 pid=92680) ", "(EngineCore pid=4411) ", ""]


def _engine(prefix: str) -> list[str]:
    return [line.format(p=prefix) for line in ENGINE]


def _pytest(error: str, captured: list[str]) -> list[str]:
    """A failed test's section: the assertion, then what the test captured (the command's
    output), then the short summary."""
    exc, _, message = error.partition(": ")
    return [
        "=================================== FAILURES ===================================",
        "________ TestEagle3vLLM.test_vllm_engine_eagle3[llama3-converted-quantized] ________",
        "",
        ">       assert result.returncode == 0, (",
        f"E       {error}",
        "",
        f"tests/e2e/vllm/test_eagle3.py:88: {exc}",
        *(["----------------------------- Captured stderr call -----------------------------",
           *captured] if captured else []),
        "=========================== short test summary info ============================",
        "FAILED tests/e2e/vllm/test_eagle3.py::TestEagle3vLLM::test_vllm_engine_eagle3[llama3] - "
        f"{exc}: {message}",
        "========================= 1 failed, 3 passed in 312.51s (0:05:12) =========================",
    ]


@SOME
@given(st.sampled_from(EXITS), CODES, st.sampled_from(ENGINE_PREFIXES), st.sampled_from(WRAPS),
       st.sampled_from(["above", "captured", "summary first"]))
def test_the_commands_own_error_is_the_root_not_the_drivers_word(
        form: str, rc: int, prefix: str, wrap: str, where: str) -> None:
    error = _exit(form, rc)
    engine = _engine(prefix)
    if where == "above":  # pytest -s: the command's output streams live, before the report
        lines = [*engine, *_pytest(error, [])]
    elif where == "captured":
        lines = _pytest(error, engine)
    else:  # the case's paste: the summary line and the assertion, then the command's output
        lines = [f"FAILED tests/e2e/vllm/test_eagle3.py::test_x[a] - {error}", error, "",
                 *engine]
    report = explain(lines, wrap)
    assert report.verdict is Verdict.FAILURE
    root = report.root_cause
    assert root is not None and root.exception == "AttributeError", root
    assert "FakeTensorMode" in root.message


@SOME
@given(st.sampled_from(EXITS), CODES, st.sampled_from(WRAPS), st.booleans())
def test_a_drivers_word_alone_leaves_the_root_out(form: str, rc: int, wrap: str,
                                                   traceback: bool) -> None:
    error = _exit(form, rc)
    lines = [error] if not traceback else [
        "Traceback (most recent call last):",
        '  File "/home/ci/speculators/tests/e2e/vllm/run.py", line 41, in main',
        "    raise_for_returncode(result)",
        error]
    assert explain(lines, wrap).verdict is Verdict.ROOT_CAUSE_MISSING


@SOME
@given(st.sampled_from(EXITS), CODES, st.sampled_from(WRAPS), st.sampled_from([
    ": CUDA out of memory. Tried to allocate 2.00 GiB",
    ". stderr: ValueError: --max-model-len 131072 exceeds the model's 32768",
    " (see stderr above); last line: ImportError: libcudart.so.12 not found",
]))
def test_a_word_that_goes_on_with_the_reason_is_the_root(form: str, rc: int, wrap: str,
                                                        reason: str) -> None:
    error = _exit(form, rc).rstrip(".") + reason
    report = explain([error], wrap)
    assert report.verdict is Verdict.FAILURE
    assert report.root_cause is not None
    assert report.root_cause.exception == error.partition(":")[0]


@SOME
@given(st.sampled_from([
    "AssertionError: Expected the exit code to be logged, got 'Killed'",
    "AssertionError: outputs differ between the baseline and the speculative run",
    "RuntimeError: the command's output holds no JSON: exited",
    "ValueError: Process exited with code 1",  # not a driver's word: a ValueError is data's
    # a reason named before the code (a colon and a space)
    "RuntimeError: model load: weights missing for layer 3, process exited with code 1",
    # a message's own time is no glued record's head
    "TimeoutError: the request sent at 2026-01-31T14:21:03Z timed out after 600 s",
]), st.sampled_from(WRAPS))
def test_other_assertions_stay_the_root(error: str, wrap: str) -> None:
    report = explain([error], wrap)
    assert report.verdict is Verdict.FAILURE
    assert report.root_cause is not None and report.root_cause.message == error.partition(": ")[2]


# --- records glued into one line -------------------------------------------------------------

# the head of each record: a process prefix (V1's, Ray's, a worker's with torch's rank prefix),
# torch's rank prefix alone, vLLM's own record header (prefixed, or the unprefixed 0.5 era's)
HEADS = [
    "(APIServer pid=135812) ",
    "(EngineCore_DP0 pid=2231) ",
    "(RayWorkerWrapper pid=991, ip=10.0.0.7) ",
    "(pid=4412) ",
    "[rank0]: ",
    "(Worker_TP1 pid=77) [rank1]: ",
    "(EngineCore_DP0 pid=2231) ERROR 01-14 10:00:00 [core.py:708] ",
    "ERROR 07-16 09:31:45 multiproc_worker_utils.py:226] ",
]
RAISED = [
    ("NotImplementedError", "Speculative decoding with draft model is not supported yet. "
     "Please consider using other speculative decoding methods such as ngram, medusa, eagle, "
     "or mtp."),
    ("ValueError", "Free memory on device cuda:0 (3.22/4.0 GiB) on startup is less than desired "
     "GPU memory utilization (0.9, 3.6 GiB)."),
    ("torch.OutOfMemoryError", "CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a "
     "total capacity of 23.55 GiB of which 1.07 GiB is free."),
    ("KeyError", "'layers.5.self_attn.qkv_proj.v_proj.weight'"),
]
TRACEBACK = [
    "Traceback (most recent call last):",
    '  File "/root/anaconda3/envs/vllm/lib/python3.11/site-packages/vllm/engine/arg_utils.py", '
    "line 1021, in create_engine_config",
    "    config = self.create_speculative_config(",
    "             ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^",
    '  File "/root/anaconda3/envs/vllm/lib/python3.11/site-packages/vllm/config/speculative.py", '
    "line 380, in __post_init__",
    "    raise {name}(",
]
# what a failed start prints after the root: the API server's report of it
AFTER = [
    "(APIServer pid=135812) Traceback (most recent call last):",
    '(APIServer pid=135812)   File "/usr/lib/python3.12/site-packages/vllm/v1/engine/utils.py", '
    "line 1057, in wait_for_engine_startup",
    "(APIServer pid=135812)     raise RuntimeError(",
    "(APIServer pid=135812) RuntimeError: Engine core initialization failed. See root cause "
    "above. Failed core proc(s): {}",
]
BEFORE = [
    "(APIServer pid=135812) INFO 01-14 09:59:58 [api_server.py:1885] vLLM API server version "
    "0.13.0",
    "(APIServer pid=135812) WARNING 01-14 09:59:59 [arg_utils.py:1302] The model has a long "
    "context length. This may cause OOM during the initial memory profiling phase.",
]


def _records(head: str, raised: tuple[str, str], before: bool, after: bool) -> tuple[list[str],
                                                                                     int]:
    """The records of a failed start, and the index of the root's record among them."""
    name, message = raised
    records = [*(BEFORE if before else []),
               *(f"{head}{body.format(name=name.rsplit('.', 1)[-1])}" for body in TRACEBACK),
               f"{head}{name}: {message}"]
    return [*records, *(AFTER if after else [])], len(records) - 1


def _glue(records: list[str], cuts: list[int]) -> tuple[list[str], list[int]]:
    """The records glued with single spaces into lines, a line break before each record index
    in `cuts` (0 aside); and for each record, the (0-based) line that holds it."""
    lines: list[list[str]] = [[]]
    where: list[int] = []
    for index, record in enumerate(records):
        if index and index in cuts:
            lines.append([])
        lines[-1].append(record)
        where.append(len(lines) - 1)
    return [" ".join(line) for line in lines], where


@SOME
@given(st.sampled_from(HEADS), st.sampled_from(RAISED), st.booleans(), st.booleans(),
       st.lists(st.integers(1, 14), max_size=4), st.integers(0, 12), st.sampled_from(WRAPS))
def test_the_exception_of_a_glued_record_is_the_root(
        head: str, raised: tuple[str, str], before: bool, after: bool, cuts: list[int],
        cut_chars: int, wrap: str) -> None:
    records, root = _records(head, raised, before, after)
    lines, where = _glue(records, [c for c in cuts if c != root])
    if where[root] != 0 or root != 0:  # a paste cut at its start (never into the root itself)
        lines[0] = lines[0][cut_chars:]
    report = explain(lines, wrap)
    assert report.verdict is Verdict.FAILURE, lines
    found = report.root_cause
    name, message = raised
    assert found is not None and found.exception == name, (found, lines)
    assert found.message.strip() == message
    assert found.line == where[root] + 1


@SOME
@given(st.sampled_from(HEADS), st.sampled_from(RAISED), st.sampled_from(WRAPS), st.booleans())
def test_glued_and_unglued_read_the_same_root(head: str, raised: tuple[str, str],
                                              wrap: str, each: bool) -> None:
    # the wrapper before the first record only, or before each (`docker logs -t` glued)
    records, root = _records(head, raised, True, True)
    glued_line = " ".join(f"{wrap}{record}" for record in records)[len(wrap):] if each \
        else " ".join(records)
    apart, glued = explain(records, wrap), explain([glued_line], wrap)
    for report in (apart, glued):
        assert report.verdict is Verdict.FAILURE
        assert report.root_cause is not None
    assert apart.root_cause is not None and glued.root_cause is not None
    assert (glued.root_cause.exception, glued.root_cause.message.strip(),
            glued.root_cause.process.name) == (
        apart.root_cause.exception, apart.root_cause.message.strip(),
        apart.root_cause.process.name)


@SOME
@given(st.sampled_from(["(APIServer pid=135812) ", "(EngineCore_DP0 pid=2231) ", "[rank0]: "]),
       st.sampled_from(RAISED), st.sampled_from(["WARNING", "INFO"]), st.sampled_from(WRAPS))
def test_a_glued_record_below_error_that_quotes_an_exception_is_no_failure(
        head: str, raised: tuple[str, str], level: str, wrap: str) -> None:
    name, message = raised
    line = " ".join([
        *BEFORE,
        f"{head}{level} 01-14 10:00:01 [utils.py:88] Retrying after {name}: {message}",
        f"{head}{level} 01-14 10:00:02 [utils.py:90] The previous attempt raised "
        f"{name}: {message}",
        "(APIServer pid=135812) INFO 01-14 10:00:09 [api_server.py:1920] Starting vLLM API "
        "server 0 on http://0.0.0.0:8000",
    ])
    assert explain([line], wrap).verdict is Verdict.NO_FAILURE


@SOME
@given(st.sampled_from(HEADS[:4]), st.sampled_from(RAISED), st.sampled_from(WRAPS))
def test_a_glued_source_line_that_names_an_exception_is_no_failure(
        head: str, raised: tuple[str, str], wrap: str) -> None:
    # the frames of a handled error's source (a source line is indented under its frame), then
    # the server going on: nothing failed
    name, message = raised
    line = " ".join([
        *BEFORE,
        f"{head}  File \"/usr/lib/python3.12/site-packages/vllm/utils.py\", line 12, in check",
        f"{head}    msg = \"{name}: {message}\"",
        "(APIServer pid=135812) INFO 01-14 10:00:09 [api_server.py:1920] Starting vLLM API "
        "server 0 on http://0.0.0.0:8000",
    ])
    assert explain([line], wrap).verdict is Verdict.NO_FAILURE


# --- a record's text that quotes another record is not a record glued on -------------------
# (a paste's glued heads follow a whole record; a quoted head follows words that introduce it,
# `retrying: `, or sits inside a string the text opened: a JSON value, a repr, a logged prompt)

QUOTED_EXC = "RuntimeError: CUDA error: an illegal memory access was encountered"
QUOTED_HEADS = [*HEADS, "2026-01-31T14:21:03Z ", "2026-01-31T14:21:03Z ERROR 01-14 10:00:00 "
                "[core.py:708] "]
LONG = "please help me read what my server printed while it ran on two gpus, " * 4
QUOTERS = [
    "(APIServer pid=10) WARNING 01-14 10:00:05 [client.py:9] Request failed, retrying: {q}",
    "(APIServer pid=10) INFO 01-14 10:00:05 [client.py:9] " + LONG + "the engine said: {q}",
    '{{"level": "info", "msg": "chat completion", "content": "My server printed {q} now"}}',
    '{{"level": "info", "msg": "chat completion", "request": "' + LONG + '{q} now"}}',
    "(APIServer pid=10) DEBUG 01-14 10:00:05 [x.py:1] " + LONG + "record=LogRecord(msg='{q}')",
    "[bench] " + LONG + "server log tail: {q}",
]
SERVING = [*BEFORE,
           "(APIServer pid=135812) INFO 01-14 10:00:09 [api_server.py:1920] Starting vLLM API "
           "server 0 on http://0.0.0.0:8000",
           '(APIServer pid=135812) INFO:     127.0.0.1:50000 - "POST /v1/chat/completions '
           'HTTP/1.1" 200 OK']


@SOME
@given(st.sampled_from(QUOTED_HEADS), st.sampled_from(QUOTERS), st.sampled_from(RAISED))
def test_a_record_that_quotes_another_records_exception_keeps_the_real_root(
        head: str, quoter: str, raised: tuple[str, str]) -> None:
    # the quoting record comes first, then a failed start: its own root, not the quoted one
    records, root = _records("(EngineCore_DP0 pid=2231) ", raised, True, True)
    lines = [*records[:len(BEFORE)], quoter.format(q=f"{head}{QUOTED_EXC}"),
             *records[len(BEFORE):]]
    report = explain(lines)
    found = report.root_cause
    name, message = raised
    assert found is not None and found.exception == name, (found, lines)
    assert found.message.strip() == message
    assert found.line == root + 2


@SOME
@given(st.sampled_from([h for h in QUOTED_HEADS if "ERROR " not in h]),
       st.sampled_from(QUOTERS))
def test_a_serving_log_that_quotes_a_record_with_its_exception_is_no_failure(
        head: str, quoter: str) -> None:
    # (a quoted ERROR record's header is not in it: a line that names the exception an error
    # record logged reads as that exception, as it did before records were read glued)
    lines = [*SERVING, quoter.format(q=f"{head}{QUOTED_EXC}"), *SERVING[-2:]]
    assert explain(lines).verdict is Verdict.NO_FAILURE, lines


@pytest.mark.parametrize("message", [
    "Engine core process (pid=2231) died unexpectedly with exit code -9.",
    "Worker (EngineCore_DP0 pid=2231) stopped answering, see its log above",
    "Worker failed with error '(EngineCore_DP0 pid=2231) ERROR 01-14 10:00:00 [core.py:708] "
    "ValueError: bad shape', please check the stack trace above for the root cause",
    "NCCL watchdog on [rank0]: timed out after 600000 ms",
    "no heartbeat since 2026-01-31T14:21:03Z (EngineCore_DP0 pid=2231) is gone",
    "bad input 2026-01-31T14:21:03Z Traceback (most recent call last) was logged",
])
@pytest.mark.parametrize("head", ["", "(APIServer pid=10) "])
def test_a_message_that_quotes_a_head_keeps_its_words(message: str, head: str) -> None:
    # a head inside an exception's message, followed by more of its words or inside its quote,
    # is no record a paste glued on: the message is the whole of it
    line = parse_line(f"{head}RuntimeError: {message}")
    assert (line.exception, line.message) == ("RuntimeError", message)


@pytest.mark.parametrize("after", [
    "(APIServer pid=10) Traceback (most recent call last):",
    "(APIServer pid=10)   File \"/x/vllm/v1/engine/utils.py\", line 1057, in wait",
    "(APIServer pid=10)     raise RuntimeError(",
    "(EngineCore_DP0 pid=2231) vllm.v1.engine.exceptions.EngineDeadError: dead",
    "[rank0]: RuntimeError: boom",
    "2026-01-31T14:21:03Z (APIServer pid=10) Traceback (most recent call last):",
])
def test_a_record_glued_after_a_message_still_ends_it(after: str) -> None:
    # the counter-evidence: a whole record glued on after the message (a paste's) still cuts it
    line = parse_line(f"(APIServer pid=10) ValueError: bad shape (3, 4) {after}")
    assert (line.exception, (line.message or "").strip()) == ("ValueError", "bad shape (3, 4)")


def test_a_message_that_ends_in_a_position_and_a_colon_still_ends_at_a_glued_record() -> None:
    # triton's `CompilationError: at 106:17:` ends in a colon before its source: no word
    # introduces a quote there, and the glued source line is the next record
    line = parse_line("(Worker_TP1 pid=7) triton.compiler.errors.CompilationError: at 106:17: "
                      "(Worker_TP1 pid=7)     def kernel(x):")
    assert (line.message or "").strip() == "at 106:17:"
    quoted = parse_line("(APIServer pid=1) RuntimeError: Request failed, retrying: "
                        "(EngineCore_DP0 pid=2) ValueError: x")
    assert quoted.exception == "RuntimeError"
    assert quoted.message == "Request failed, retrying: (EngineCore_DP0 pid=2) ValueError: x"
