"""Errors of Python's own start-up hooks, which the interpreter reports and goes on from
(Lib/site.py): a `sitecustomize` or `usercustomize` module that raised (`Error in sitecustomize;
set PYTHONVERBOSE for traceback:`, then `Type: message` alone) and a `.pth` file's line that
raised (`Error processing line N of /x/y.pth:`, its traceback indented, `Remainder of file
ignored`). Every Python process of such an environment prints one before its own code runs
(the API server, the engine core, each worker), so a healthy log holds several. They are read
as Python says they are, exceptions it ignored (grammars/vllm.lark IGNORED_HEADER): no failure
by themselves, and not the cause of a later error of the run.

Also: an error record after which its process chose its attention backend (vLLM's selector
logs that FlashAttention 2 cannot run below compute capability 8, then picks another backend)
is one the process went on from; the backend chosen is a start-up step taken (causality.yaml
`milestones.progress`).

Generated over the hook's shape, the exception it raised, the wrappers before each line, how
many processes print it, and the run after it (healthy, or failing later).
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from logsleuth.model import Verdict
from logsleuth.pipeline import explain_text
from logsleuth.signatures import default_signatures

MISSING = ["ModuleNotFoundError: No module named 'wrapt'",
           "ImportError: cannot import name 'patch_all' from 'ddtrace'",
           "AttributeError: module 'torch' has no attribute 'compiler'",
           "OSError: [Errno 13] Permission denied: '/root/.cache/hook'"]


def _customize(module: str, exception: str) -> list[str]:
    return [f"Error in {module}; set PYTHONVERBOSE for traceback:", exception]


def _pth(exception: str) -> list[str]:
    return ["Error processing line 1 of /usr/lib/python3/dist-packages/distutils-precedence.pth:",
            "",
            "  Traceback (most recent call last):",
            '    File "/usr/lib/python3.10/site.py", line 186, in addpackage',
            "      exec(line)",
            '    File "<string>", line 1, in <module>',
            f"  {exception}",
            "",
            "Remainder of file ignored"]


HOOKS = [lambda e: _customize("sitecustomize", e), lambda e: _customize("usercustomize", e),
         _pth]
WRAPPERS = ["", "2025-10-01T22:40:55.123456789Z ", "vllm-1  | ",
            "Oct 01 22:40:55 gpu1 python[670]: "]

SERVER = "(APIServer pid=670) "
ENGINE = "(EngineCore_DP0 pid=691) "
HEALTHY = [SERVER + "INFO 10-01 22:40:55 [api_server.py:1896] vLLM API server version 0.11.0",
           SERVER + "INFO 10-01 22:40:55 [utils.py:233] non-default args: {'model': 'Qwen/Qwen2.5-1.5B-Instruct'}",
           ENGINE + "INFO 10-01 22:41:10 [core.py:77] Initializing a V1 LLM engine (v0.11.0) with "
                    "config: model='Qwen/Qwen2.5-1.5B-Instruct'",
           ENGINE + "INFO 10-01 22:41:13 [gpu_model_runner.py:2602] Starting to load model "
                    "Qwen/Qwen2.5-1.5B-Instruct...",
           ENGINE + "INFO 10-01 22:41:20 [gpu_model_runner.py:2653] Model loading took 2.8876 GiB "
                    "and 5.1 seconds",
           SERVER + "INFO:     Application startup complete."]
FAILING = [ENGINE + "ERROR 10-01 22:41:30 [core.py:708] EngineCore failed to start.",
           ENGINE + "ERROR 10-01 22:41:30 [core.py:708] Traceback (most recent call last):",
           ENGINE + 'ERROR 10-01 22:41:30 [core.py:708]   File "/usr/local/lib/python3.12/'
                    'site-packages/vllm/v1/engine/core.py", line 83, in __init__',
           ENGINE + "ERROR 10-01 22:41:30 [core.py:708]     self._initialize_kv_caches(vllm_config)",
           ENGINE + "ERROR 10-01 22:41:30 [core.py:708] ValueError: To serve at least one request "
                    "with the models's max seq len (32768), (1.75 GiB KV cache is needed, which is "
                    "larger than the available KV cache memory (0.88 GiB)."]


def _explain(lines: list[str]):  # noqa: ANN202 - a Report
    return explain_text("\n".join(lines) + "\n", signatures=default_signatures())


def _printed(hook, exception: str, wrapper: str, copies: int) -> list[str]:  # noqa: ANN001
    # each process of the environment runs the hook as it starts: the API server first, then the
    # engine core (and each worker) a few records later
    return [wrapper + line for line in hook(exception)] * copies


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(HOOKS), st.sampled_from(MISSING), st.sampled_from(WRAPPERS),
       st.integers(1, 3))
def test_a_start_up_hook_s_error_before_a_healthy_run_is_no_failure(
        hook, exception: str, wrapper: str, copies: int) -> None:  # noqa: ANN001
    lines = _printed(hook, exception, wrapper, 1)
    lines += HEALTHY[:2] + _printed(hook, exception, wrapper, copies - 1) + HEALTHY[2:]
    report = _explain(lines)
    assert report.verdict is Verdict.NO_FAILURE, report.root_cause


@settings(max_examples=40, deadline=None)
@given(st.sampled_from(HOOKS), st.sampled_from(MISSING), st.sampled_from(WRAPPERS))
def test_a_start_up_hook_s_error_alone_is_no_failure(hook, exception: str,  # noqa: ANN001
                                                     wrapper: str) -> None:
    """An excerpt that ends before the program printed anything of its own."""
    report = _explain(_printed(hook, exception, wrapper, 1))
    assert report.verdict is Verdict.NO_FAILURE, report.root_cause


@settings(max_examples=40, deadline=None)
@given(st.sampled_from(HOOKS), st.sampled_from(MISSING), st.sampled_from(WRAPPERS))
def test_a_later_failure_is_its_own_root_cause(hook, exception: str,  # noqa: ANN001
                                               wrapper: str) -> None:
    lines = [*_printed(hook, exception, wrapper, 1), *HEALTHY[:5], *FAILING]
    report = _explain(lines)
    assert report.verdict is Verdict.FAILURE
    assert report.root_cause is not None
    assert report.root_cause.exception == "ValueError"
    assert report.root_cause.line == len(lines)


def test_a_module_that_raised_outside_a_hook_is_still_an_error() -> None:
    """The same exception line with no hook's header above it: an error as ever."""
    report = _explain([*HEALTHY[:4], MISSING[0]])
    assert report.verdict is Verdict.FAILURE
    assert report.root_cause is not None and report.root_cause.exception == "ModuleNotFoundError"


BACKENDS = ["Using TRITON_ATTN attention backend out of potential backends: ['TRITON_ATTN', "
            "'FLEX_ATTENTION'].",
            "Using Flash Attention backend on V1 engine.", "Using XFormers backend.",
            "Using FLASHINFER attention backend out of potential backends: ('FLASHINFER',)"]
FA2 = ("ERROR 10-01 22:41:13 [fa_utils.py:212] Cannot use FA version 2 is not supported due to "
       "FA2 is only supported on devices with compute capability >= 8")


@settings(max_examples=30, deadline=None)
@given(st.sampled_from(BACKENDS), st.sampled_from([ENGINE, "(VllmWorker rank=0 pid=702) ", ""]),
       st.integers(0, 3))
def test_an_error_record_the_process_went_on_to_choose_a_backend_after_is_survived(
        backend: str, prefix: str, between: int) -> None:
    filler = prefix + "INFO 10-01 22:41:13 [parallel_state.py:1165] rank 0 in world size 1"
    lines = [*HEALTHY[:4], prefix + FA2, *[filler] * between,
             prefix + "INFO 10-01 22:41:14 [cuda.py:538] " + backend]
    report = _explain(lines)
    assert report.verdict is Verdict.NO_FAILURE, report.root_cause


def test_an_error_record_the_process_chose_no_backend_after_stays_an_error() -> None:
    report = _explain([*HEALTHY[:4], ENGINE + FA2])
    assert report.verdict is Verdict.FAILURE
