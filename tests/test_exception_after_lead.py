"""An exception named with its message after text the grammar does not know is an error (issue 10).

A user's paste often puts something before the exception's line: a label in their own language
(`错误信息：`, `Fehler: `), a shell prompt, a timestamp of a format no logger here prints, a
mail's `> ` quote, a bullet, a logger's name. `Name: message` after it (`ValueError: ...`,
`torch.OutOfMemoryError: ...`, Python's bare base class `Exception: ...`, dotted or not) is the
error the paste reports (vllm.lark EXC_LEAD): never `no_failure`, and the root is that line.
A traceback printed before it stays the root. Look-alikes stay as they are in a healthy serving
log: a WARNING or INFO record that quotes an exception the server survived, prose that names one,
a Python warning, a benchmark's `Failed requests: 0`, an exception's name in an answer's JSON,
counters named after errors.
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from logsleuth.model import Verdict
from logsleuth.pipeline import explain_text
from logsleuth.signatures import default_signatures
from scenario_logs import Server

LABELS = ["", "错误信息：", "报错：", "エラー: ", "Fehler: ", "Erreur : ", "Ошибка: ", "오류: ",
          "Error: ", "I get this: ", "output: ", "stderr: ", "Got: ", "Result -> ",
          "**Error**: ", "Unhandled ", "Caught "]
PROMPTS = ["", "$ ", "(venv) user@host:~/vllm$ ", ">>> ", "PS C:\\work> ", "# "]
TIMES = ["", "2025/01/02 10:00:00.123 ", "[10:00:00] ", "1735812000.123 ", "02.01.2025 10:00:00 ",
         "[Thu Jan  2 10:00:00 2025] ", "10:00:00 | ", "<2025-01-02 10:00> "]
LOGGERS = ["", "myapp.server: ", "[worker-3] ", "app_1 | ", "root - ", "client.py:88 - ",
           "(pid=4211) ", "serve.sh: "]
BULLETS = ["", "- ", "* ", "• ", "1. ", "+ "]
QUOTES = ["", "> ", "> > "]
NAMES = ["ValueError", "RuntimeError", "KeyError", "torch.OutOfMemoryError", "OSError",
         "huggingface_hub.errors.GatedRepoError", "pydantic_core._pydantic_core.ValidationError",
         "ssl.SSLError", "MyCustomException", "Exception",
         "builtins.Exception"]
MESSAGES = ["The model's max seq len (32768) is larger than the maximum number of tokens that "
            "can be stored in KV cache (12000).",
            "CUDA out of memory. Tried to allocate 2.00 GiB",
            "'model.layers.0.mlp.experts.w13_weight'",
            "Model architectures ['FooForCausalLM'] are not supported for now.",
            "libcudart.so.12: cannot open shared object file: No such file or directory",
            "Call to collective_rpc method failed"]
CONTEXT = ["I ran `vllm serve Qwen/Qwen3-8B --tensor-parallel-size 2` and got:",
           "Environment: 2x A100 80GB, CUDA 12.4", "It worked with the previous version.",
           "Steps to reproduce:", "```", "vllm serve Qwen/Qwen3-8B"]

LEADS = st.builds(lambda q, b, t, p, lg, lb: q + b + t + p + lg + lb,
                  st.sampled_from(QUOTES), st.sampled_from(BULLETS), st.sampled_from(TIMES),
                  st.sampled_from(PROMPTS), st.sampled_from(LOGGERS), st.sampled_from(LABELS))
PASTES = st.lists(st.sampled_from(CONTEXT), max_size=3)


@settings(max_examples=300, deadline=None)
@given(LEADS, st.sampled_from(NAMES), st.sampled_from(MESSAGES), PASTES)
def test_an_exception_after_unknown_text_is_the_root(lead: str, name: str, message: str,
                                                     before: list[str]) -> None:
    lines = [*before, f"{lead}{name}: {message}"]
    report = explain_text("\n".join(lines) + "\n", signatures=default_signatures())
    assert report.verdict is not Verdict.NO_FAILURE, lines
    assert report.root_cause is not None, lines
    assert report.root_cause.line == len(lines), lines
    assert report.root_cause.exception == name, lines


@settings(max_examples=60, deadline=None)
@given(LEADS, st.sampled_from(NAMES), st.sampled_from(MESSAGES))
def test_a_traceback_before_it_stays_the_root(lead: str, name: str, message: str) -> None:
    """The line after unknown text is weighed below a traceback's exception: a later paste of
    a name (a user's summary of the error above) does not take the root from it."""
    lines = ["Traceback (most recent call last):",
             '  File "/app/serve.py", line 12, in <module>',
             "    main()",
             "ImportError: libcuda.so.1: cannot open shared object file: No such file or directory",
             f"{lead}{name}: {message}"]
    report = explain_text("\n".join(lines) + "\n", signatures=default_signatures())
    assert report.verdict is Verdict.FAILURE, lines
    assert report.root_cause is not None and report.root_cause.line == 4, lines
    assert report.root_cause.exception == "ImportError", lines


def _healthy(requests: int, polls: int, among: tuple[str, ...] = ()) -> list[str]:
    # the look-alikes among the server's lines, answers going on after them
    server = Server()
    work = server.requests(requests)
    return [*server.startup(), *work[:1], *among, *work[1:], *server.polls(polls),
            *server.requests(1)]


LOOK_ALIKES = [
    # records whose level says the server went on
    "(APIServer pid=2800) WARNING 08-01 20:00:04 [serving_chat.py:900] Failed to load chat "
    "template: ValueError: no template found",
    "(APIServer pid=2800) WARNING 08-01 20:00:04 [api_server.py:900] Failed to fetch generation "
    "config: Exception: it is not found; using the default sampling parameters.",
    "(APIServer pid=2800) INFO 08-01 20:00:04 [launcher.py:40] Retrying after Exception: "
    "connection reset by peer",
    "(APIServer pid=2800) DEBUG 08-01 20:00:04 [client.py:40] handled KeyError: 'usage'",
    # prose that names the base class as a noun
    "To avoid an Exception: pass --trust-remote-code",
    "If the Exception: line is empty, see the docs",
    # a Python warning, result tables and counters
    "/usr/lib/python3/dist-packages/torch/storage.py:12: UserWarning: TypedStorage is deprecated",
    "Failed requests: 0",
    "error_count: 0",
    "(APIServer pid=2800) INFO 08-01 20:00:04 [metrics.py:1] error_count: 0, "
    "Exception_count: 0",
    "Exception handling: enabled",
    # an answer that talks about exceptions
    '{"id": "cmpl-1", "choices": [{"message": {"content": "A ValueError: is raised when the '
    'argument has the right type but a wrong value."}}]}',
    '{"id": "cmpl-2", "choices": [{"text": "Exception: the base class of all errors"}]}',
]


@settings(max_examples=120, deadline=None)
@given(st.integers(1, 5), st.integers(0, 3), st.lists(st.sampled_from(LOOK_ALIKES), min_size=1,
                                                      max_size=4))
def test_look_alikes_in_a_healthy_log_stay_healthy(requests: int, polls: int,
                                                   among: list[str]) -> None:
    report = explain_text("\n".join(_healthy(requests, polls, tuple(among))) + "\n",
                          signatures=default_signatures())
    assert report.verdict is Verdict.NO_FAILURE, among


@settings(max_examples=40, deadline=None)
@given(st.integers(1, 5), st.integers(0, 3))
def test_the_healthy_logs_alone_are_no_failure(requests: int, polls: int) -> None:
    report = explain_text("\n".join(_healthy(requests, polls)) + "\n",
                          signatures=default_signatures())
    assert report.verdict is Verdict.NO_FAILURE


def test_a_label_before_a_named_exception_is_not_the_name() -> None:
    """`Exception: ValueError: x` after a lead: `Exception` labels the ValueError it names."""
    lines = ["I get this: Exception: ValueError: unknown model type"]
    report = explain_text("\n".join(lines) + "\n", signatures=default_signatures())
    assert report.root_cause is not None and report.root_cause.exception == "ValueError"


PROSE = ["To fix a KeyError: set the tokenizer path", "see RuntimeError: docs"]


@settings(max_examples=30, deadline=None)
@given(st.integers(1, 5), st.sampled_from(PROSE))
def test_prose_that_names_a_class_during_start_up_stays_healthy(requests: int, prose: str) -> None:
    """Before the server comes up, the server's later work says the line was survived. (Prose
    naming a class such as KeyError after serving began is read as the paste's error: left.)"""
    server = Server()
    start = server.startup()
    lines = [*start[:3], prose, *start[3:], *server.requests(requests)]
    report = explain_text("\n".join(lines) + "\n", signatures=default_signatures())
    assert report.verdict is Verdict.NO_FAILURE, prose
