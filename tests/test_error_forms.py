"""Every error form is evidence: a failing log is never read as healthy, nor its cause cut
short, because the error took a form its record's logger, its wrapper or its reporter gave it
(issue 10). Each test generates the form's variations: prefixes, eras, wrappers, truncations.
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from logsleuth.model import Verdict
from logsleuth.pipeline import explain_text
from logsleuth.signatures import default_signatures
from scenario_logs import Server


def _explain(lines: list[str]):  # noqa: ANN202 - a Report
    return explain_text("\n".join(lines) + "\n", signatures=default_signatures())


# ---- 1. pydantic's check lines under a ValidationError a record named -----------------------

CHECKS = [
    ("Value error", "Total number of attention heads (64) must be divisible by tensor parallel "
     "size (3)."),
    ("Value error", "max_num_batched_tokens (2048) is smaller than max_model_len (8192)."),
    ("Assertion failed", "Only quantization methods fp8 and awq are supported on this GPU."),
]
VALIDATION_NAMES = ["pydantic_core._pydantic_core.ValidationError", "pydantic.ValidationError",
                    "ValidationError"]
CONFIGS = ["ModelConfig", "VllmConfig", "SpeculativeConfig", "CacheConfig"]
# a record's head as its logger writes it: vLLM's two eras (its formatter repeats the head on
# every line of a record: `repeated`), Python's default format, a level word (written once)
VLLM_HEADS = 2
RECORD_HEADS = ["ERROR 06-01 10:00:01 [api_server.py:700] ", "ERROR 06-01 10:00:01 core.py:700] ",
                "2025-06-01 10:00:01,123 - vllm.entrypoints - ERROR - ",
                "2025-06-01T10:00:01.123Z ERROR vllm::launcher: "]
PREFIXES = ["", "(APIServer pid=2800) ", "(EngineCore_DP0 pid=2900) "]
OUTER = ["", "2025-06-01T10:00:01.123456789Z ", "vllm-1  | ", "[pod/vllm-0/vllm] "]
LEADS = ["", "Error in startup: ", "EngineCore failed to start: "]


@settings(max_examples=80, deadline=None)
@given(st.sampled_from(CHECKS), st.sampled_from(VALIDATION_NAMES), st.sampled_from(CONFIGS),
       st.sampled_from(RECORD_HEADS), st.sampled_from(PREFIXES), st.sampled_from(OUTER),
       st.sampled_from(LEADS), st.booleans(), st.booleans(), st.integers(0, 2))
def test_a_validation_errors_checks_go_on_its_message_under_a_record_head_printed_once(
        check: tuple[str, str], name: str, config: str, head: str, prefix: str, outer: str,
        lead: str, repeated: bool, field: bool, before: int) -> None:
    """A logger that writes its head once (or vLLM's, which repeats it on every line) before
    `ValidationError: 1 validation error for X`: pydantic's check line under it, and the
    `For further information` line, are the message going on, not an error of their own, so
    the check reaches the signatures."""
    label, message = check
    again = head if repeated and RECORD_HEADS.index(head) < VLLM_HEADS else ""
    body = [f"{lead}{name}: 1 validation error for {config}",
            *([f"{again}max_model_len"] if field else []),
            f"{again}  {label}, {message} [type=value_error, input_value=ArgsKwargs((), "
            "{}), input_type=ArgsKwargs]",
            f"{again}    For further information visit https://errors.pydantic.dev/2.11/v/"
            "value_error"]
    lines = Server().startup()[:before]
    lines += [f"{outer}{prefix}{head if i == 0 else ''}{text}" for i, text in enumerate(body)]
    report = _explain(lines)
    assert report.verdict is not Verdict.NO_FAILURE, lines
    root = report.root_cause
    assert root is not None and root.exception.endswith("ValidationError"), (lines, root)
    assert root.line == before + 1 and message in root.message, (lines, root)
    assert not any(message in s.text for s in report.symptoms), (lines, report.symptoms)


# ---- 2. a rank's lines relayed indented under a record of its parent -------------------------

RANK_ERRORS = [
    ("ValueError", "The checkpoint you are trying to load has model type `qwen3_moe` but "
     "Transformers does not recognize this architecture."),
    ("torch.OutOfMemoryError", "CUDA out of memory. Tried to allocate 2.00 GiB. GPU 1 has a total "
     "capacity of 79.10 GiB of which 1.00 GiB is free."),
    ("RuntimeError", "NCCL error in: ../torch/csrc/distributed/c10d/NCCLUtils.hpp:317, unhandled "
     "system error (run with NCCL_DEBUG=INFO for details), NCCL version 2.21.5"),
]
OWNERS = ["INFO 06-01 10:00:01 [multiproc_executor.py:120] Worker output follows",
          "WARNING 06-01 10:00:01 [utils.py:100] Subprocess stderr:",
          "WARNING 06-01 10:00:01 ray_utils.py:80] Relaying the output of rank workers"]
RANK_PREFIXES = ["", "(pid=4242) ", "(VllmWorker rank=0 pid=4242) ",
                 "(RayWorkerWrapper pid=4242, ip=10.0.0.2) "]
INDENTS = ["  ", "    ", "\t", "        "]


@settings(max_examples=80, deadline=None)
@given(st.sampled_from(RANK_ERRORS), st.sampled_from(OWNERS), st.sampled_from(RANK_PREFIXES),
       st.sampled_from(OUTER[:3]), st.sampled_from(INDENTS), st.integers(0, 7), st.booleans(),
       st.integers(0, 3))
def test_an_exception_a_rank_tag_carries_indented_is_read_whatever_record_owns_it(
        error: tuple[str, str], owner: str, prefix: str, outer: str, indent: str, rank: int,
        traceback: bool, before: int) -> None:
    """`    [rank0]: ValueError: ...` behind a parent's prefix or none, under an INFO or WARNING
    record the prefilter drops: the rank's exception, read on its own line."""
    name, message = error
    tag = f"{indent}[rank{rank}]: "
    rank_lines = [*(["Traceback (most recent call last):",
                     '  File "/usr/local/lib/python3.12/dist-packages/vllm/worker/worker.py", '
                     "line 180, in load_model",
                     "    self.model_runner.load_model()"] if traceback else []),
                  f"{name}: {message}"]
    lines = Server().startup()[:before]
    lines += [f"{outer}{prefix}{owner}", *(f"{outer}{prefix}{tag}{text}" for text in rank_lines)]
    report = _explain(lines)
    assert report.verdict is not Verdict.NO_FAILURE, lines
    root = report.root_cause
    assert root is not None and root.exception == name and root.message == message, (lines, root)
    assert root.line == len(lines), (lines, root)


@settings(max_examples=30, deadline=None)
@given(st.sampled_from(OWNERS), st.sampled_from(RANK_PREFIXES), st.sampled_from(INDENTS),
       st.sampled_from(["Loading safetensors checkpoint shards: 100% 4/4",
                        "Graph capturing finished in 12 secs", "NCCL version 2.21.5+cuda12.4",
                        "Exception handling is enabled for this worker"]))
def test_a_ranks_indented_healthy_output_stays_healthy(owner: str, prefix: str, indent: str,
                                                       text: str) -> None:
    server = Server()
    lines = [*server.startup(), f"{prefix}{owner}", f"{prefix}{indent}[rank0]: {text}",
             *server.requests(2)]
    assert _explain(lines).verdict is Verdict.NO_FAILURE, lines


# ---- 3. what a client or a tool says of an error, alone in a short paste ---------------------

ROUTES = ["/v1/chat/completions", "/v1/completions", "/v1/embeddings", "/v1/responses"]
REFUSALS = ["400 Bad Request", "404 Not Found", "422 Unprocessable Entity"]
POLLS = ['"GET /v1/models HTTP/1.1" 200 OK', '"GET /health HTTP/1.1" 200 OK',
         '"GET /metrics HTTP/1.1" 200 OK']
ACCESS_PREFIXES = ["", "(APIServer pid=1) ", "2026-01-10T10:00:00.123456789Z (APIServer pid=1) "]


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(ROUTES), st.sampled_from(REFUSALS)), min_size=1,
                max_size=4),
       st.lists(st.sampled_from(POLLS), max_size=4), st.sampled_from(ACCESS_PREFIXES),
       st.randoms(use_true_random=False))
def test_a_paste_of_refused_requests_among_polls_is_a_failure_without_its_cause(
        refused: list[tuple[str, str]], polls: list[str], prefix: str, order) -> None:  # noqa: ANN001
    """Access lines only: every request the server was asked to run refused (4xx), whatever polls
    it answered between them. The reason is in the answers' bodies: not in the log."""
    answers = [f'"POST {route} HTTP/1.1" {status}' for route, status in refused] + polls
    order.shuffle(answers)
    lines = [f"{prefix}INFO:     10.0.0.{i}:4{i:04d} - {answer}" for i, answer in enumerate(answers)]
    report = _explain(lines)
    assert report.verdict is Verdict.ROOT_CAUSE_MISSING, lines


@settings(max_examples=40, deadline=None)
@given(st.lists(st.sampled_from(POLLS), min_size=1, max_size=4), st.sampled_from(ACCESS_PREFIXES),
       st.sampled_from(['"GET /favicon.ico HTTP/1.1" 404 Not Found',
                        '"POST /v1/chat/completions HTTP/1.1" 200 OK']), st.booleans())
def test_answers_of_a_server_that_serves_or_only_lacks_a_path_stay_healthy(
        polls: list[str], prefix: str, other: str, refused_too: bool) -> None:
    answers = [*polls, other,
               *(['"POST /v1/chat/completions HTTP/1.1" 400 Bad Request'] if refused_too
                 and "200" in other else [])]
    lines = [f"{prefix}INFO:     10.0.0.{i}:4{i:04d} - {answer}" for i, answer in enumerate(answers)]
    assert _explain(lines).verdict is Verdict.NO_FAILURE, lines


STATUS_PHRASES = {"400": "Bad Request", "404": "Not Found", "422": "Unprocessable Entity",
                  "500": "Internal Server Error", "502": "Bad Gateway",
                  "503": "Service Unavailable"}
CLIENT_STATUS_SHAPES = [
    "HTTP {code}: {phrase}", "HTTP Error {code}: {phrase}", "HTTP {code} {phrase}",
    "{code} {phrase}", "{code} {phrase}: http://localhost:8000/v1/chat/completions",
    "Request failed with status code {code}", "Server responded with status {code}",
    "status_code={code}", "Response status: {code}", "HTTP status code {code}", "<Response [{code}]>",
    "curl: (22) The requested URL returned error: {code}", "Error code: {code}",
]
CLIENT_WRAPPERS = ["", "2025-06-01 10:00:01 ", "[client] ", "> ", "    "]


@settings(max_examples=100, deadline=None)
@given(st.sampled_from(CLIENT_STATUS_SHAPES), st.sampled_from(sorted(STATUS_PHRASES)),
       st.sampled_from(CLIENT_WRAPPERS), st.sampled_from(["alone", "first", "last"]))
def test_a_clients_word_of_an_http_error_status_is_a_failure_without_its_cause(
        shape: str, code: str, wrapper: str, where: str) -> None:
    """A short paste of only a client's report of a 4xx or 5xx, first or last among lines that
    say nothing of their own: the request failed, why is in the server's log or the answer's
    body (a symptom: root_cause_missing), never a healthy log."""
    line = wrapper + shape.format(code=code, phrase=STATUS_PHRASES[code])
    quiet = ["$ python client.py --model Qwen/Qwen3-8B", "sending 1 request(s)"]
    lines = {"alone": [line], "first": [line, *quiet], "last": [*quiet, line]}[where]
    report = _explain(lines)
    assert report.verdict is Verdict.ROOT_CAUSE_MISSING, (lines, report.verdict, report.root_cause)
    assert any(s.line == lines.index(line) + 1 for s in report.symptoms), (lines, report.symptoms)


@settings(max_examples=40, deadline=None)
@given(st.sampled_from(CLIENT_STATUS_SHAPES[:6]), st.sampled_from(["500", "503"]),
       st.integers(0, 1))
def test_a_clients_5xx_after_the_engines_error_is_its_symptom(shape: str, code: str,
                                                              order: int) -> None:
    server = Server()
    error = ["RuntimeError: CUDA error: an illegal memory access was encountered"]
    lines = [*server.startup(), *server.requests(2), *server.engine_error(error),
             shape.format(code=code, phrase=STATUS_PHRASES[code])]
    report = _explain(lines)
    root = report.root_cause
    assert report.verdict is Verdict.FAILURE and root is not None, lines
    assert root.exception == "RuntimeError" and "illegal memory access" in root.message, root


@settings(max_examples=40, deadline=None)
@given(st.sampled_from(["Returned HTTP 200 OK", "200 OK", "status_code=200", "<Response [200]>",
                        "HTTP/1.1 200 OK", "Listening on port 5000", "Downloaded 404 files",
                        "processed 500 prompts in 12.3 s", "Response time: 0.503 s"]),
       st.sampled_from(CLIENT_WRAPPERS))
def test_a_clients_word_of_success_or_a_number_is_no_error(text: str, wrapper: str) -> None:
    server = Server()
    lines = [*server.startup(), wrapper + text, *server.requests(2)]
    assert _explain(lines).verdict is Verdict.NO_FAILURE, lines


# ---- 4. an exception named in the middle of a line, after text nobody taught the grammar -------

MID_LEADS = ["", "Error: ", "my_script.py: ", "Failed: ", "Exception in thread Thread-3: ",
             "[worker-3] ", "2025-01-01 10:00:00.123 [main] ", "myapp.module:42 ", "I get this: ",
             "报错：", "Root cause: ", "-> ", "Caught ", "error=", '{"detail": "', "'",
             "Task exception was never retrieved: ", "    worker_main.py  ", "\tcaller: "]
MID_ERRORS = [
    ("torch._dynamo.exc.Unsupported", "call_function UserDefinedClassVariable(SomeModule) [] {}"),
    ("triton.runtime.errors.OutOfResources", "out of resource: shared memory, Required: 131072, "
     "Hardware limit: 101376."),
    ("NotImplementedError", "FP8 is not supported on this GPU"),
    ("openai.BadRequestError", "Error code: 400 - {'object': 'error', 'message': 'This model does "
     "not support tools.', 'type': 'BadRequestError', 'param': None, 'code': 400}"),
    ("ValueError", "Model architectures ['FooForCausalLM'] are not supported for now."),
]


@settings(max_examples=100, deadline=None)
@given(st.sampled_from(MID_LEADS), st.sampled_from(MID_ERRORS), st.sampled_from(OUTER),
       st.sampled_from(["alone", "first", "last", "in a log"]))
def test_an_exception_named_after_unknown_text_is_evidence_wherever_the_line_stands(
        lead: str, error: tuple[str, str], outer: str, where: str) -> None:
    name, message = error
    tail = '"}' if lead.endswith('"') else "'" if lead == "'" else ""
    line = f"{outer}{lead}{name}: {message}{tail}"
    server = Server()
    lines = {"alone": [line], "first": [line, "$ echo done"], "last": ["$ python run.py", line],
             "in a log": [*server.startup(), *server.requests(2), line]}[where]
    report = _explain(lines)
    assert report.verdict is not Verdict.NO_FAILURE, lines
    involved = [e for e in (report.root_cause, *report.symptoms) if e is not None]
    assert any(e.exception == name and e.line == lines.index(line) + 1 for e in involved), \
        (lines, report.root_cause, report.symptoms)


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(["500", "502", "503"]),
       st.sampled_from(["", " - {'message': 'Internal server error'}",
                        ' - {"detail": "Internal Server Error"}', " - {'error': 'Bad Gateway'}",
                        " - {'message': 'Service Unavailable'}"]),
       st.sampled_from(["Error in generating model output:", "LLM call failed, retrying (3/3)",
                        "Calling the model (step 2)"]),
       st.sampled_from(CLIENT_WRAPPERS[:4]), st.booleans())
def test_the_openai_clients_bare_5xx_message_says_the_server_failed_not_why(
        code: str, body: str, lead: str, wrapper: str, lead_first: bool) -> None:
    """`Error code: 500 - {'message': 'Internal server error'}` as a harness prints `str(e)`:
    the server failed the request; its reason is in the server's log (root_cause_missing). A
    body that quotes the server's error is that error (tests/test_request_errors.py)."""
    line = f"{wrapper}Error code: {code}{body}"
    lines = [wrapper + lead, line] if lead_first else [line, wrapper + lead]
    report = _explain(lines)
    assert report.verdict is Verdict.ROOT_CAUSE_MISSING, (lines, report.root_cause)
    assert any(s.line == lines.index(line) + 1 and code in s.exception for s in report.symptoms), \
        report.symptoms


@settings(max_examples=40, deadline=None)
@given(st.sampled_from(MID_ERRORS), st.sampled_from(["logger.warning(\"{name}: %s\", x)",
                                                     "# {name}: raised by the kernel",
                                                     "msg = '{name}: ' + str(e)"]),
       st.sampled_from(["", "    "]))
def test_a_source_line_quoting_an_exception_inside_a_traceback_is_no_error_of_its_own(
        error: tuple[str, str], source: str, shift: str) -> None:
    name, _ = error
    lines = [shift + text for text in [
        "Traceback (most recent call last):",
        '  File "/app/serve.py", line 10, in main',
        "    " + source.format(name=name),
        '  File "/app/engine.py", line 20, in step',
        '    raise RuntimeError("the step failed")',
        "RuntimeError: the step failed"]]
    report = _explain(lines)
    root = report.root_cause
    assert root is not None and root.exception == "RuntimeError" and root.line == len(lines), \
        (lines, root)
    assert not report.symptoms, report.symptoms


DETAIL_LEADS = ["", "Failed to get response: ", "Response: ", "[client] ", "error -> ", "> "]


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(DETAIL_LEADS), st.sampled_from(['"', "'"]),
       st.sampled_from(["Not Found", "Method Not Allowed", "Internal Server Error"]),
       st.sampled_from(["alone", "first", "last"]))
def test_fastapis_body_with_only_a_status_phrase_is_a_failure_without_its_cause(
        lead: str, quote: str, phrase: str, where: str) -> None:
    line = f"{lead}{{{quote}detail{quote}: {quote}{phrase}{quote}}}"
    quiet = ["$ python client.py", "sending request 1"]
    lines = {"alone": [line], "first": [line, *quiet], "last": [*quiet, line]}[where]
    report = _explain(lines)
    assert report.verdict is Verdict.ROOT_CAUSE_MISSING, (lines, report.root_cause)
    assert any(s.line == lines.index(line) + 1 for s in report.symptoms), report.symptoms


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(DETAIL_LEADS),
       st.sampled_from([('{"detail":[{"type":"missing","loc":["body","model"],"msg":"Field '
                         'required","input":{}}]}', "RequestValidationError", "Field required"),
                        ('{"detail": "LoRA adapter sql-lora is not supported for this model"}',
                         "HTTPException", "LoRA adapter sql-lora is not supported"),
                        ('{"detail": "ValueError: The model does not support LoRA"}',
                         "ValueError", "The model does not support LoRA")]),
       st.sampled_from(["alone", "first", "last"]))
def test_fastapis_body_that_says_why_is_the_error(lead: str, body: tuple[str, str, str],
                                                  where: str) -> None:
    text, name, words = body
    line = lead + text
    quiet = ["$ python client.py", "sending request 1"]
    lines = {"alone": [line], "first": [line, *quiet], "last": [*quiet, line]}[where]
    report = _explain(lines)
    root = report.root_cause
    assert report.verdict is Verdict.FAILURE and root is not None, (lines, report.verdict)
    assert root.exception == name and words in root.message, (lines, root)
