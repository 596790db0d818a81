"""grammars/vllm.lark, rule by rule: through its extra start symbols (`tree_of`) and through
`parse_line`, with tables of real lines.

Lines come from the corpus (tests/fixtures/corpus, named by case) or from
shared/research/vllm-log-format.md (named by the issue it quotes). Where a prefix era has no
whole line on record, the prefix as the research documents it (section 2.2) is put before a real
record of that era; the row says so.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from lark.exceptions import LarkError

from logsleuth.model import MAIN, ChainReason, Frame, Level, LineKind
from logsleuth.tokenize import START_SYMBOLS, clean, parse_line, tree_of

ESC = "\x1b"


def accepts(text: str, start: str) -> bool:
    """The rule `start` parses the whole of `text` (terminal names are the grammar's own business:
    values are checked through parse_line, which every stage uses)."""
    return tree_of(text, start).data == start


def parsed(raw: str):  # noqa: ANN201 - a LogLine
    return parse_line(clean(raw))


def test_every_start_symbol_the_tests_use_is_declared() -> None:
    assert set(START_SYMBOLS) >= {"line", "proc_prefix", "record", "glog", "frame", "exc_line",
                                  "fatal", "nccl", "process_header", "body"}


# ---- proc_prefix ---------------------------------------------------------------------------------

PROC_PREFIX_VALID = [
    # (text, process name, pid, ip); name None: the prefix names no process
    ("(APIServer pid=207603) ", "APIServer", 207603, None),  # seed
    ("(EngineCore_DP0 pid=207811) ", "EngineCore_DP0", 207811, None),  # seed
    ("(EngineCore pid=77) ", "EngineCore", 77, None),  # club-3090#60
    ("(EngineCore_0 pid=8117) ", "EngineCore_0", 8117, None),  # dots.ocr#176
    ("(VllmWorker rank=2 pid=51207) ", "VllmWorker rank=2", 51207, None),  # vLLM 0.8.5 _add_prefix
    ("(VllmWorkerProcess pid=3740967) ", "VllmWorkerProcess", 3740967, None),  # vllm#8422
    ("(Worker_TP4_EP4 pid=2532) ", "Worker_TP4_EP4", 2532, None),  # vllm#31480
    ("(RayWorkerWrapper pid=581, ip=10.225.128.18) ", "RayWorkerWrapper", 581, "10.225.128.18"),
    ("(pid=1621476) ", None, 1621476, None),  # vllm PR#15324
    ("(Worker_TP0 pid=3682509)", "Worker_TP0", 3682509, None),  # a prefix alone on its line
]


@pytest.mark.parametrize(("text", "name", "pid", "ip"), PROC_PREFIX_VALID)
def test_proc_prefix_start_symbol(text: str, name: str | None, pid: int, ip: str | None) -> None:
    assert accepts(text, "proc_prefix")
    process = parse_line(text).process
    if name is not None:
        assert process.name == name
    else:
        assert process != MAIN
    assert (process.pid, process.ip) == (pid, ip)


@pytest.mark.parametrize("text", [
    "(raylet) ",  # a Ray daemon, not a process prefix
    "(not a prefix) ",
    "APIServer pid=207603) ",
    "(APIServer pid=) ",
    "(APIServer) ",
])
def test_proc_prefix_rejects(text: str) -> None:
    with pytest.raises(LarkError):
        tree_of(text, "proc_prefix")


# ---- record (the vLLM logger header) --------------------------------------------------------------

RECORD_VALID = [
    # (text, LEVEL, DATE, CLOCK, SITE): both eras (section 1.1) and DEBUG relative paths
    ("INFO 07-03 11:58:36 llm_engine.py:161] ", "INFO", "07-03", "11:58:36", "llm_engine.py:161"),
    ("WARNING 03-12 15:02:37 config.py:676] ", "WARNING", "03-12", "15:02:37", "config.py:676"),
    ("INFO 07-23 19:34:27 [api_server.py:1395] ", "INFO", "07-23", "19:34:27",
     "api_server.py:1395"),
    ("ERROR 11-18 14:16:34 [core.py:708] ", "ERROR", "11-18", "14:16:34", "core.py:708"),
    ("DEBUG 03-13 09:00:31 [__init__.py:28] ", "DEBUG", "03-13", "09:00:31", "__init__.py:28"),
    ("ERROR 01-20 13:03:50 [v1/executor/multiproc_executor.py:749] ", "ERROR", "01-20",
     "13:03:50", "v1/executor/multiproc_executor.py:749"),
    ("DEBUG 01-20 13:03:50 [model_executor/.../quantization/utils/fp8_utils.py:612] ", "DEBUG",
     "01-20", "13:03:50", "model_executor/.../quantization/utils/fp8_utils.py:612"),
    ("CRITICAL 09-10 09:37:41 [core.py:1] ", "CRITICAL", "09-10", "09:37:41", "core.py:1"),
]


@pytest.mark.parametrize(("text", "level", "date", "clock", "site"), RECORD_VALID)
def test_record_start_symbol(text: str, level: str, date: str, clock: str, site: str) -> None:
    assert accepts(text, "record")
    record = parse_line(text)
    assert (record.level, record.time, record.site) == (Level(level), f"{date} {clock}", site)


@pytest.mark.parametrize("text", [
    "WARN 03-12 15:02:37 config.py:676] ",  # vLLM never prints WARN
    "INFO 2024-07-03 11:58:36 llm_engine.py:161] ",  # a year: not vLLM's date format
    "INFO 07-03 11:58:36 llm_engine.py] ",  # no line number
    "INFO:     Application startup complete.",  # uvicorn, not the vLLM logger
])
def test_record_rejects(text: str) -> None:
    with pytest.raises(LarkError):
        tree_of(text, "record")


# ---- glog (torch C++ c10 and torch._logging) ------------------------------------------------------

GLOG_VALID = [
    # (text, level, time, site)
    ("[W301 17:37:32.701608294 ProcessGroupNCCL.cpp:1524] ", Level.WARNING, "03-01 17:37:32",
     "ProcessGroupNCCL.cpp:1524"),  # rocm-rx9070-inductor-hip-oom (month not padded)
    ("[W214 15:20:56.973624780 CUDAAllocatorConfig.h:28] ", Level.WARNING, "02-14 15:20:56",
     "CUDAAllocatorConfig.h:28"),  # vllm#13836
    ("[W1009 10:48:42.365618213 ProcessGroupNCCL.cpp:1250] ", Level.WARNING, "10-09 10:48:42",
     "ProcessGroupNCCL.cpp:1250"),  # a two-digit month
    ("W1107 08:12:40.118000 5120 torch/utils/cpp_extension.py:2425] ", Level.WARNING,
     "11-07 08:12:40", "torch/utils/cpp_extension.py:2425"),  # torch's glog-style logging prefix
    ("E0731 16:03:52.115000 116603 site-packages/torch/_inductor/runtime/triton_heuristics.py:539]"
     " [1/0] ", Level.ERROR, "07-31 16:03:52",
     "site-packages/torch/_inductor/runtime/triton_heuristics.py:539"),  # with a compile id
    # glog 0.7+ puts the year in (log_year_in_prefix): Mooncake's transfer engine
    ("E20260106 06:43:02.966156  5793 ascend_direct_transport.cpp:820] ", Level.ERROR,
     "01-06 06:43:02", "ascend_direct_transport.cpp:820"),
    ("I20251231 23:59:59.000001 12 transfer_engine.cpp:77] ", Level.INFO, "12-31 23:59:59",
     "transfer_engine.cpp:77"),
    ("[F20250301 01:02:03.5 rdma_context.cpp:9] ", Level.CRITICAL, "03-01 01:02:03",
     "rdma_context.cpp:9"),
]


@pytest.mark.parametrize(("text", "level", "time", "site"), GLOG_VALID)
def test_glog_start_symbol(text: str, level: Level, time: str, site: str) -> None:
    assert accepts(text, "glog")
    record = parse_line(text)
    assert (record.level, record.time, record.site) == (level, time, site)


def test_glog_compile_id_is_not_part_of_the_text() -> None:
    record = parse_line("E0731 16:03:52.115000 116603 site-packages/torch/_inductor/runtime/"
                        "triton_heuristics.py:539] [1/0] Triton compilation failed: "
                        "triton_tem_fused_0")
    assert record.text == "Triton compilation failed: triton_tem_fused_0"


@pytest.mark.parametrize("text", [
    "[Gloo] Rank 0 is connected to 0 peer ranks. Expected number of connected peer ranks is : 0",
    "W0801 21:19:49 torch/_inductor/utils.py:1731] ",  # no fraction of a second
    "E202601 06:43:02.966156 5793 x.cpp:820] ",  # six digits: neither MMDD nor YYYYMMDD
    "E2026010612 06:43:02.966156 5793 x.cpp:820] ",  # ten digits
    "INFO 07-23 19:34:27 [api_server.py:1395] ",
])
def test_glog_rejects(text: str) -> None:
    with pytest.raises(LarkError):
        tree_of(text, "glog")


# ---- frame ----------------------------------------------------------------------------------------

FRAME_VALID = [
    # (text, file, line, function)
    ('  File "/usr/lib/python3.12/multiprocessing/process.py", line 314, in _bootstrap',
     "/usr/lib/python3.12/multiprocessing/process.py", 314, "_bootstrap"),  # seed
    ('  File "uvloop/loop.pyx", line 1518, in uvloop.loop.Loop.run_until_complete',
     "uvloop/loop.pyx", 1518, "uvloop.loop.Loop.run_until_complete"),  # seed, a frozen frame
    ('  File "<string>", line 11, in __init__', "<string>", 11, "__init__"),  # tp-size case
    ('  File "/root/ml-env/bin/vllm", line 10, in <module>', "/root/ml-env/bin/vllm", 10,
     "<module>"),  # seed
    ('  File "/vllm-workspace/vllm/vllm/model_executor/models/utils.py", line 288, in <genexpr>',
     "/vllm-workspace/vllm/vllm/model_executor/models/utils.py", 288, "<genexpr>"),
    # faulthandler: no comma before `in` (gemma2-flashinfer-segfault)
    ('  File "/usr/local/lib/python3.10/dist-packages/flashinfer/decode.py", line 514 in '
     'begin_forward', "/usr/local/lib/python3.10/dist-packages/flashinfer/decode.py", 514,
     "begin_forward"),
    # xpu-memory-profiling-assert: a paste that lost the indentation
    ('File "/usr/local/lib/python3.12/dist-packages/vllm/v1/worker/gpu_worker.py", line 333, in '
     'determine_available_memory', "/usr/local/lib/python3.12/dist-packages/vllm/v1/worker/"
     "gpu_worker.py", 333, "determine_available_memory"),
    # inside an exception group's margin
    ('  |   File "/usr/lib/python3.12/multiprocessing/process.py", line 314, in _bootstrap',
     "/usr/lib/python3.12/multiprocessing/process.py", 314, "_bootstrap"),
    # IPython/Jupyter (vllm#20716): path unquoted, `~` for home, the call's arguments after it
    ("File ~/llmenv/lib/python3.12/site-packages/vllm/compilation/cuda_piecewise_backend.py:112, "
     "in CUDAPiecewiseBackend.__call__(self, *args)",
     "~/llmenv/lib/python3.12/site-packages/vllm/compilation/cuda_piecewise_backend.py", 112,
     "CUDAPiecewiseBackend.__call__"),
    ("File /opt/conda/lib/python3.10/site-packages/vllm/utils.py:1063, in "
     "deprecate_kwargs.<locals>.wrapper.<locals>.inner(*args, **kwargs)",
     "/opt/conda/lib/python3.10/site-packages/vllm/utils.py", 1063,
     "deprecate_kwargs.<locals>.wrapper.<locals>.inner"),
    ("File ~/env/lib/python3.11/site-packages/vllm/entrypoints/llm.py:177, in LLM.__init__()",
     "~/env/lib/python3.11/site-packages/vllm/entrypoints/llm.py", 177, "LLM.__init__"),
]


@pytest.mark.parametrize(("text", "file", "line", "function"), FRAME_VALID)
def test_frame_start_symbol(text: str, file: str, line: int, function: str) -> None:
    assert accepts(text, "frame")


@pytest.mark.parametrize(("text", "file", "line", "function"), FRAME_VALID)
def test_frame_through_parse_line(text: str, file: str, line: int, function: str) -> None:
    record = parsed(text)
    assert record.kind is LineKind.FRAME
    assert record.frame == Frame(file, line, function)


@pytest.mark.parametrize("text", [
    '  File "/x',  # a frame line cut by a paste
    '  File "/root/ml-env/bin/vllm", line 10',  # no function
    "    self.run()",
    "File: /etc/hosts",
    "File ~/notes.txt:3, in chapter(1)",  # IPython's shape, but not a Python source
    "Cell In[3], line 4",  # a notebook cell: no file
])
def test_frame_rejects(text: str) -> None:
    with pytest.raises(LarkError):
        tree_of(text, "frame")


@pytest.mark.parametrize("cut", ["", " ", "1", "12,", "12, ", "12, in"])
@pytest.mark.parametrize("second", ["/b/y.py", "/vllm-workspace/vllm/vllm/entrypoints/openai/api_server.py"])
def test_two_frames_joined_with_the_last_cut_is_read_without_error(second: str, cut: str) -> None:
    # a wrap's sniff joins rows: a whole frame, then the next frame cut at or after `line`; the
    # line number of the frame the text ends on may be missing (a fuzz draw crashed here on `''`)
    text = f'  File "/a/x.py", line 12, in f   File "{second}", line {cut}'
    record = parsed(text)  # raised ValueError on `line ` before
    assert record.kind is LineKind.FRAME and record.frame is not None
    assert record.frame.file.startswith("/a/x.py")


# ---- exc_line ---------------------------------------------------------------------------------------

EXC_VALID = [
    # (text, exception, message)
    ("ValueError: Total number of attention heads (32) must be divisible by tensor parallel size "
     "(3).", "ValueError", "Total number of attention heads (32) must be divisible by tensor "
     "parallel size (3)."),
    ("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 270.00 MiB.",
     "torch.OutOfMemoryError", "CUDA out of memory. Tried to allocate 270.00 MiB."),
    ("torch._inductor.exc.InductorError: RuntimeError: Failed to run autotuning code block: No "
     "valid triton configs.", "torch._inductor.exc.InductorError",
     "RuntimeError: Failed to run autotuning code block: No valid triton configs."),
    ("vllm.v1.engine.exceptions.EngineDeadError: EngineCore encountered an issue. See stack trace "
     "(above) for the root cause.", "vllm.v1.engine.exceptions.EngineDeadError",
     "EngineCore encountered an issue. See stack trace (above) for the root cause."),
    ("ray.exceptions.RayTaskError(TypeError): ray::RayWorkerWrapper.execute_method() (pid=13215, "
     "ip=7.242.101.23)", "ray.exceptions.RayTaskError(TypeError)",
     "ray::RayWorkerWrapper.execute_method() (pid=13215, ip=7.242.101.23)"),
    ("Exception: WorkerProc initialization failed due to an exception in a background process. "
     "See stack trace for root cause.", "Exception", "WorkerProc initialization failed due to an "
     "exception in a background process. See stack trace for root cause."),
    ("KeyError: 'model.layers.0.mlp.gate.g_idx'", "KeyError", "'model.layers.0.mlp.gate.g_idx'"),
    ("torch.AcceleratorError: HIP error: invalid device ordinal", "torch.AcceleratorError",
     "HIP error: invalid device ordinal"),
    ("KeyboardInterrupt", "KeyboardInterrupt", ""),
    ("asyncio.exceptions.CancelledError", "asyncio.exceptions.CancelledError", ""),
    ("StopIteration", "StopIteration", ""),
    # exception groups: Python 3.11+ and the `exceptiongroup` backport (research section 3.2)
    ("ExceptionGroup: unhandled errors in a TaskGroup (1 sub-exception)", "ExceptionGroup",
     "unhandled errors in a TaskGroup (1 sub-exception)"),
    ("exceptiongroup.ExceptionGroup: unhandled errors in a TaskGroup (1 sub-exception)",
     "exceptiongroup.ExceptionGroup", "unhandled errors in a TaskGroup (1 sub-exception)"),
]


@pytest.mark.parametrize(("text", "exception", "message"), EXC_VALID)
def test_exc_line_start_symbol(text: str, exception: str, message: str) -> None:
    assert accepts(text, "exc_line")


@pytest.mark.parametrize(("text", "exception", "message"), EXC_VALID)
def test_exc_line_through_parse_line(text: str, exception: str, message: str) -> None:
    record = parsed(text)
    assert record.kind is LineKind.EXCEPTION
    assert (record.exception, record.message) == (exception, message)


@pytest.mark.parametrize("text", [
    # healthy-minimax-tp4-rocm-benign-error: an ERROR record's text, not an exception line
    "Error retrieving safetensors: Repo id must be in the form 'repo_name' or "
    "'namespace/repo_name': '/data0/huggingface/MiniMax-M2.5'. Use `repo_type` argument if needed.",
    "Error executing method initialize_cache. This might cause deadlock in distributed execution.",
    "Exception in worker VllmWorkerProcess while processing method init_device: Cannot "
    "re-initialize CUDA in forked subprocess.",
    "Set the environment variable HYDRA_FULL_ERROR=1 for a complete stack trace.",
    "Cannot use FA version 2 is not supported due to FA2 is only supported on devices with compute "
    "capability >= 8",
    "WorkerProc hit an exception: %s",
])
def test_exc_line_rejects(text: str) -> None:
    with pytest.raises(LarkError):
        tree_of(text, "exc_line")
    assert parsed(text).kind is not LineKind.EXCEPTION


# ---- fatal ----------------------------------------------------------------------------------------

FATAL_VALID = [
    # (text, label as parse_line reports it, message)
    ("Fatal Python error: Segmentation fault", "Fatal Python error", "Segmentation fault"),
    ("Fatal Python error: Aborted", "Fatal Python error", "Aborted"),
    ("Failed: Cuda error /workspace/csrc/custom_all_reduce.cuh:164 'invalid argument'", "Failed",
     "Cuda error /workspace/csrc/custom_all_reduce.cuh:164 'invalid argument'"),
    ("terminate called after throwing an instance of 'c10::Error'", "terminate",
     "after throwing an instance of 'c10::Error'"),
    ("*** SIGSEGV received at time=1715675462 on cpu 12 ***", "SIGSEGV",
     "received at time=1715675462 on cpu 12 ***"),
    # a label that runs on without a colon keeps the whole sentence as its message
    ("Segmentation fault (core dumped)", "Segmentation fault", "Segmentation fault (core dumped)"),
    ("Killed", "Killed", ""),
]


@pytest.mark.parametrize(("text", "label", "message"), FATAL_VALID)
def test_fatal_start_symbol(text: str, label: str, message: str) -> None:
    assert accepts(text, "fatal")
    record = parsed(text)
    assert record.kind is LineKind.FATAL
    assert (record.exception, record.message) == (label, message)


def test_fatal_signal_line_of_ray_core() -> None:
    # research section 5, "Ray core (glog)": Ray's C++ logger (its src/ray/util/logging.cc fatal
    # signal handler) reports the signal
    record = parsed("[2024-05-14 08:31:02,447 E 6120 6120] logging.cc:361: *** SIGSEGV received at "
                    "time=1715675462 on cpu 12 ***")
    assert record.kind is LineKind.FATAL
    assert record.exception == "SIGSEGV"


@pytest.mark.parametrize("prefix", ["(raylet) ", "\x1b[2m\x1b[33m(raylet)\x1b[0m ", ""])
@pytest.mark.parametrize("tag", ["(raylet) ", "(gcs_server) ", ""])
def test_ray_core_record_relayed_with_its_daemons_name(prefix: str, tag: str) -> None:
    # Ray's log monitor relays a daemon's C++ record to the driver; the record names the daemon
    # again after its bracket (vllm#1160: the memory monitor's report of the workers it killed)
    record = parsed(f"{prefix}[2025-04-02 15:02:00,117 E 135782 135782] {tag}node_manager.cc:3069: "
                    "1 Workers (tasks / actors) killed due to memory pressure (OOM), 0 Workers "
                    "crashed due to other reasons at node (ID: 351e, IP: 10.95.143.76)")
    assert record.level is Level.ERROR
    assert record.text.startswith("1 Workers (tasks / actors) killed due to memory pressure")


def test_a_bracketed_word_after_a_ray_core_header_is_no_daemon_tag() -> None:
    # only a `(name) ` right before `file.cc:N: ` is the daemon's tag; other text stays the message
    record = parsed("[2025-04-02 15:02:00,117 W 1 1] (raylet) idle node: nothing to do")
    assert record.level is not Level.ERROR


@pytest.mark.parametrize("text", [
    "Failed to infer device type",
    "Killing local vLLM worker processes",  # V0 INFO text (research section 4.4)
    "RuntimeError: Engine core initialization failed. See root cause above. Failed core proc(s): {}",
    "Aborted!",  # click's words for a Ctrl-C: the stop an operator asked for
    "Aborted request chatcmpl-1f2e.",  # vLLM's record of a request the client dropped
])
def test_fatal_rejects(text: str) -> None:
    with pytest.raises(LarkError):
        tree_of(text, "fatal")
    assert parsed(text).kind is not LineKind.FATAL


# A native crash handler's banner (grammars/vllm.lark CRASH_BANNER: apache-tvm-ffi's SIGSEGV
# handler) is a segmentation fault whose message is the banner's words, and the stack it prints
# after it is read as the crash's (causality.yaml `native_stacks`); any number of `!`, a space or
# none before the words, trailing blanks.
@settings(max_examples=30, deadline=None)
@given(st.integers(3, 12), st.integers(3, 12), st.sampled_from(["", " "]),
       st.sampled_from(["", " ", "  \t"]))
def test_a_crash_handlers_banner_is_a_segmentation_fault(left: int, right: int, space: str,
                                                         tail: str) -> None:
    from logsleuth.knowledge import default_causality

    text = f"{'!' * left}{space}Segfault encountered{space}{'!' * right}{tail}"
    record = parsed(text)
    assert record.kind is LineKind.FATAL
    assert (record.exception, record.message) == ("Segmentation fault", "Segfault encountered")
    assert default_causality().native_stack_follows(f"{record.exception}: {record.message}")


@pytest.mark.parametrize("text", ["!! Segfault encountered !!", "Segfault encountered",
                                  "!!!!!!! Segfault encountered !!!!!!! in thread 3"])
def test_a_banner_without_its_frame_of_bangs_is_no_crash_banner(text: str) -> None:
    record = parsed(text)
    assert record.exception != "Segmentation fault" or record.message != "Segfault encountered"


# pydantic's line for a failed check (grammars/vllm.lark PYDANTIC_VALUE_ERROR and
# PYDANTIC_ASSERTION): its label says which exception the validator raised; indented it goes on a
# ValidationError's message, alone it is the error; pydantic's bracketed tail is not the message.
@pytest.mark.parametrize(("label", "name"), [("Value error", "ValueError"),
                                             ("Assertion failed", "AssertionError")])
@pytest.mark.parametrize("indent", ["", "  ", "    "])
@pytest.mark.parametrize("tail", ["", " [type=value_error, input_value=ArgsKwargs((), {}), "
                                      "input_type=ArgsKwargs]"])
def test_a_validators_line_is_the_exception_its_label_names(label: str, name: str, indent: str,
                                                            tail: str) -> None:
    message = "max_num_batched_tokens (2048) is smaller than max_model_len (8192)."
    record = parsed(f"{indent}{label}, {message}{tail}")
    assert (record.exception, record.message) == (name, message)
    assert record.kind is (LineKind.INDENTED if indent else LineKind.EXCEPTION_REPR)


def test_the_banner_and_the_validator_labels_live_in_the_grammar() -> None:
    """Line shapes live in grammars/*.lark and failure knowledge in YAML: the grammar's
    transformer, the assembler and the signature matcher name neither the crash banner nor
    pydantic's labels (the matcher asks the grammar what a label stands for)."""
    import ast

    import logsleuth

    root = Path(logsleuth.__file__).parent
    for module in [*sorted((root / "tokenize").glob("*.py")), root / "assemble.py",
                   root / "model.py", *sorted((root / "signatures").glob("*.py"))]:
        tree = ast.parse(module.read_text(encoding="utf-8"))
        docstrings = {id(node.value) for node in ast.walk(tree) if isinstance(node, ast.Expr)}
        strings = [node.value for node in ast.walk(tree) if isinstance(node, ast.Constant)
                   and isinstance(node.value, str) and id(node) not in docstrings]
        for literal in ("Segfault encountered", "Value error", "Assertion failed"):
            assert not [text for text in strings if literal in text], (module.name, literal)


@pytest.mark.parametrize("text", ["Aborted", "Bus error", "Aborted (core dumped)"])
def test_the_shell_report_of_a_crash_is_fatal_with_or_without_its_core(text: str) -> None:
    # bash prints `(core dumped)` only where a core was written (`ulimit -c 0` leaves it out:
    # tests/fixtures/tuning/runtime/offline-v05-traceback-cut-illegal-access-watchdog-abort)
    record = parsed(text)
    assert record.kind is LineKind.FATAL
    assert record.exception == text.partition(" (")[0]


# ---- nccl -----------------------------------------------------------------------------------------

NCCL_VALID = [
    # (raw line, process name, NCCL level, message)
    ("7f2c9a1b3e40:6120:6120 [1] NCCL INFO P2P Chunksize set to 524288", "main", "INFO",
     "P2P Chunksize set to 524288"),  # NCCL's p2p transport INFO line (NCCL's source)
    ("HP-Z8-Fury-G5-Workstation-Desktop-PC:23458:23665 [0] NCCL INFO comm 0x23ba7ea0 rank 0 "
     "nranks 2 cudaDev 0 nvmlDev 0 busId 47000 commId 0x47dc53f08cbcda96 - Init COMPLETE", "main",
     "INFO", "comm 0x23ba7ea0 rank 0 nranks 2 cudaDev 0 nvmlDev 0 busId 47000 commId "
     "0x47dc53f08cbcda96 - Init COMPLETE"),  # tp2-hang-acs-iommu-p2p
    ("(Worker_TP2 pid=207852) gpu-node-7:207852:207852 [2] NCCL INFO NCCL version 2.28.3+cuda13.0",
     "Worker_TP2", "INFO", "NCCL version 2.28.3+cuda13.0"),  # seed
    ("(RayWorkerWrapper pid=581, ip=10.225.128.18) k8s17:581:581 [0] NCCL INFO P2P Chunksize set "
     "to 131072", "RayWorkerWrapper", "INFO", "P2P Chunksize set to 131072"),  # ray#59778
    # WARN lines name their source file between the device and the label
    ("node-12:3791:3791 [1] misc/shmutils.cc:72 NCCL WARN Error: failed to extend "
     "/dev/shm/nccl-JYcYTs to 9637892 bytes", "main", "WARN",
     "Error: failed to extend /dev/shm/nccl-JYcYTs to 9637892 bytes"),
]


@pytest.mark.parametrize(("raw", "process", "level", "message"), NCCL_VALID)
def test_nccl_lines(raw: str, process: str, level: str, message: str) -> None:
    record = parsed(raw)
    assert record.kind is LineKind.NCCL
    assert record.process.name == process
    assert (record.exception, record.message) == (f"NCCL {level}", message)


@pytest.mark.parametrize("text", [
    "3837134f4773:4527:4527 [1] NCCL INFO P2P Chunksize set to 524288",
    "node-12:3791:3791 [1] misc/shmutils.cc:72 NCCL WARN Error: failed to extend "
    "/dev/shm/nccl-JYcYTs to 9637892 bytes",
])
def test_nccl_start_symbol(text: str) -> None:
    assert accepts(text, "nccl")


@pytest.mark.parametrize("text", [
    "RuntimeError: NCCL error: unhandled system error (run with NCCL_DEBUG=INFO for details)",
    "NCCL version 2.28.3+cuda13.0",
    "[Gloo] Rank 0 is connected to 0 peer ranks. Expected number of connected peer ranks is : 0",
])
def test_nccl_rejects(text: str) -> None:
    with pytest.raises(LarkError):
        tree_of(text, "nccl")
    assert parsed(text).kind is not LineKind.NCCL


# ---- process_header -------------------------------------------------------------------------------

@pytest.mark.parametrize(("text", "label"), [
    ("Process EngineCore_DP0:", "EngineCore_DP0"),  # seed
    ("Process EngineCore_0:", "EngineCore_0"),  # no-kernel-image-sm120-torch-zeros
    ("Process EngineCore:", "EngineCore"),  # nim-tp2-free-memory-below-utilization
])
def test_process_header_start_symbol(text: str, label: str) -> None:
    assert accepts(text, "process_header")
    record = parsed(text)
    assert record.kind is LineKind.PROCESS_HEADER
    assert record.message == label


@pytest.mark.parametrize("text", [
    "Processed prompts:   0%|          | 0/16 [00:00<?, ?it/s, est. speed input: 0.00 toks/s, "
    "output: 0.00 toks/s]",  # tp2-hang-acs-iommu-p2p
    "Process manager: force killing remaining processes count=1",
])
def test_process_header_rejects(text: str) -> None:
    with pytest.raises(LarkError):
        tree_of(text, "process_header")
    assert parsed(text).kind is not LineKind.PROCESS_HEADER


# ---- body -----------------------------------------------------------------------------------------

BODY_SHAPES = [
    # (text, tree name of the body)
    ("Traceback (most recent call last):", "traceback_header"),
    ("  + Exception Group Traceback (most recent call last):", "group_header"),
    ("  +-+---------------- 1 ----------------", "group_box"),
    ("    +------------------------------------", "group_box"),
    ("    | Traceback (most recent call last):", "traceback_header"),
    ("    ...<5 lines>...", "elided"),  # gpt-oss-120b-h100-kv-cache-symptom-only
    ("  [Previous line repeated 996 more times]", "repeat"),
    ("    ~~~~^^^^^^^^^^", "caret"),
    ("           ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^", "caret"),
    ("The above exception was the direct cause of the following exception:", "chain_cause"),
    ("During handling of the above exception, another exception occurred:", "chain_context"),
    ("Current thread 0x00007fcf597eb640 (most recent call first):", "fault_thread"),
    ("Thread 0x00007fcf597eb640 (most recent call first):", "fault_thread"),
    ("Stack (most recent call first):", "fault_thread"),
    ("Extension modules: msgpack._cmsgpack, google._upb._message, psutil._psutil_linux, "
     "(total: 50)", "extension_modules"),
    ("INFO:     Application startup complete.", "uvicorn"),
    ('INFO:     127.0.0.1:35594 - "GET /v1/models HTTP/1.1" 200 OK', "access"),
    ("/home/stefano/.local/share/uv/python/cpython-3.12.13-linux-aarch64-gnu/lib/python3.12/"
     "multiprocessing/resource_tracker.py:279: UserWarning: resource_tracker: There appear to be 1 "
     "leaked semaphore objects to clean up at shutdown", "py_warning"),
    ("Loading safetensors checkpoint shards:  53% Completed | 46/86 [1:31:04<1:26:49, 130.23s/it]",
     "progress"),
    ("    self.run()", "indented"),
    ("Exception ignored in: <function BaseEventLoop.__del__ at 0x7f2b3c0d1ea0>", "ignored"),
    ("/usr/local/lib/python3.10/dist-packages/ray/_raylet.so(+0x10a2e14) [0x7f31c44e2e14] "
     "ray::TerminateHandler()", "terminate_frame"),  # Ray's C++ terminate handler (Ray's source)
    (" /usr/lib/x86_64-linux-gnu/libstdc++.so.6(+0xae20c) [0x7f5b9c8ae20c] __cxxabiv1::__terminate()",
     "terminate_frame"),
    ("Exception ignored while finalizing file <_io.TextIOWrapper name='<stdout>'>", "ignored"),
    # the site module's start-up hooks: Python reports their error and starts the program
    ("Error in sitecustomize; set PYTHONVERBOSE for traceback:", "ignored"),
    ("Error in usercustomize; set PYTHONVERBOSE for traceback:", "ignored"),
    ("Error processing line 1 of /usr/lib/python3/dist-packages/distutils-precedence.pth:",
     "ignored"),
    ("Error in the sitecustomize of the image: see above", "plain"),
    ("<vllm.entrypoints.llm.LLM object at 0x72c46e351a50>", "plain"),
    # a request logged with its prompt (--enable-log-requests), V1 and before v0.6
    ("Received request chatcmpl-b25ba002116249a2: prompt: '<|im_start|>user\\nThe backend is "
     "dead: Traceback (most recent call last)<|im_end|>', params: SamplingParams(n=1)",
     "request_logged"),
    ("Received request cmpl-bd26ae24cc03420994e9cf497e3b4530: prompt: 'Tell me a story', sampling "
     "params: SamplingParams(n=1, best_of=1), prompt_token_ids: [1, 2]", "request_logged"),
    ("Received request cmpl-1 after 3 retries", "plain"),
]


@pytest.mark.parametrize(("text", "name"), BODY_SHAPES)
def test_body_start_symbol(text: str, name: str) -> None:
    assert tree_of(text, "body").data == name


def test_line_start_symbol_holds_prefix_header_and_body() -> None:
    tree = tree_of("(APIServer pid=1) INFO 05-09 10:37:24 [launcher.py:46] Route: "
                   "/v1/chat/completions, Methods: POST", "line")
    assert {sub.data for sub in tree.iter_subtrees()} >= {"proc_prefix", "record", "plain"}


# ---- parse_line: process prefixes of every era ------------------------------------------------------

PREFIX_ERAS = [
    # (raw line, process name, pid, ip); name None: the prefix names no process
    ("(APIServer pid=207603) INFO 02-05 10:11:04 [api_server.py:1272] vLLM API server version "
     "0.16.0rc2.dev313+g6b3e0f2a1", "APIServer", 207603, None),  # seed
    ("(EngineCore_DP0 pid=207811) ERROR 02-05 10:12:41 [core.py:1108] EngineCore failed to start.",
     "EngineCore_DP0", 207811, None),  # seed
    ("(EngineCore pid=77) INFO 05-05 07:35:18 [default_loader.py:384] Loading weights took 64.57 "
     "seconds", "EngineCore", 77, None),  # club-3090#60
    ("(EngineCore_0 pid=8117) INFO 09-04 10:00:26 [core.py:636] Waiting for init message from "
     "front-end.", "EngineCore_0", 8117, None),  # dots.ocr#176
    # prefix per research 2.2 (2025-08 .. 2025-09), record from vllm#20226 of that era
    ("(VllmWorker TP0 pid=3856547) INFO 08-11 10:45:20 [parallel_state.py:1102] rank 0 in world "
     "size 2 is assigned as DP rank 0, PP rank 0, TP rank 0, EP rank 0", "VllmWorker TP0", 3856547,
     None),
    ("(VllmWorker rank=2 pid=51207) ERROR 05-06 09:14:44 [multiproc_executor.py:435] WorkerProc "
     "failed to start.", "VllmWorker rank=2", 51207, None),  # vLLM 0.8.5 multiproc_executor.py:435
    ("(VllmWorkerProcess pid=3740967) WARNING 09-13 00:35:49 logger.py:147] VLLM_TRACE_FUNCTION is "
     "enabled. It will record every function executed by Python.", "VllmWorkerProcess", 3740967,
     None),  # vllm#8422
    ("(Worker_TP1 pid=207851) INFO 02-05 10:11:07 [parallel_state.py:1203] world_size=8 rank=1 "
     "local_rank=1 distributed_init_method=tcp://127.0.0.1:41623 backend=nccl", "Worker_TP1",
     207851, None),  # seed
    # prefix per research 2.2 (2025-09+), record from the seed log
    ("(Worker_PP1_TP0 pid=207854) INFO 02-05 10:11:10 [gpu_model_runner.py:3861] Starting to load "
     "model /models/Kimi-K2.5-NVFP4...", "Worker_PP1_TP0", 207854, None),
    ("(Worker_TP4_EP4 pid=2532) INFO 12-29 15:21:11 [multiproc_executor.py:709] Parent process "
     "exited, terminating worker", "Worker_TP4_EP4", 2532, None),  # vllm#31480
    ("(Worker pid=428) ERROR 09-01 07:40:16 [multiproc_executor.py:901] WorkerProc failed to start.",
     "Worker", 428, None),  # nim-tp2-free-memory-below-utilization
    ("(RayWorkerWrapper pid=2202490) ERROR 04-24 16:06:40 worker_base.py:157] Error executing "
     "method load_model. This might cause deadlock in distributed execution.", "RayWorkerWrapper",
     2202490, None),  # fp8-quant-unsupported-capability-86-ray
    ("(RayWorkerWrapper pid=376235, ip=10.10.10.61)   File \"/usr/local/lib/python3.10/"
     "dist-packages/vllm/model_executor/models/deepseek_v2.py\", line 641 in forward",
     "RayWorkerWrapper", 376235, "10.10.10.61"),  # vllm#17242
    ("(raylet) The node with node id: 0f219779261fab027e79667e6451e061ded81c76f07d05584652d818 and "
     "address: 10.0.0.51 and node name: 10.0.0.51 has been marked dead because the detector has "
     "missed too many heartbeats from it. ...", "raylet", None, None),  # ray#45179
    ("(pid=13210) INFO 07-31 19:35:13 [__init__.py:39] Available plugins for group "
     "vllm.platform_plugins:", None, 13210, None),  # ray-tp16-mindie-turbo-weights-iterator
    ("(LLMRayActor pid=20770) INFO 06-28 06:11:45 distributed_gpu_executor.py:45] # GPU blocks: "
     "378, # CPU blocks: 1638", "LLMRayActor", 20770, None),
    # nested prefixes: the innermost names the process
    ("(AsyncVLLMInferenceEngine pid=891624) (EngineCore_0 pid=892803)     func_return = "
     "func(*args, **kwargs)", "EngineCore_0", 892803, None),  # eaddrinuse-distributed-init-ray
    ("(AsyncVLLMInferenceEngine pid=891625) (EngineCore_0 pid=892764) INFO 09-10 23:09:10 "
     "[parallel_state.py:1134] rank 0 in world size 1 is assigned as DP rank 0, PP rank 0, TP rank "
     "0, EP rank 0 [repeated 6x across cluster]", "EngineCore_0", 892764, None),
    # 2026-02-28 .. 2026-03-11 double decoration (research 2.2)
    ("(Worker pid=428) (Worker_TP0 pid=428) ERROR 09-01 07:40:16 [multiproc_executor.py:901] "
     "WorkerProc failed to start.", "Worker_TP0", 428, None),
    ("(Worker_TP0 pid=3682509)", "Worker_TP0", 3682509, None),  # custom-allreduce: prefix alone
    # a prefix whose start a paste cut off: what is left of the name (up to two words), the pid
    ("ker_TP5 pid=207855) ERROR 02-05 10:12:18 [multiproc_executor.py:870] ValueError: x",
     "ker_TP5", 207855, None),
    ("er rank=2 pid=51207) ERROR 05-06 09:14:44 [multiproc_executor.py:435] WorkerProc failed",
     "er rank=2", 51207, None),
    ("pid=207855) INFO 02-05 10:11:06 [parallel_state.py:1203] world_size=8", "pid", 207855, None),
]


@pytest.mark.parametrize(("raw", "name", "pid", "ip"), PREFIX_ERAS)
def test_process_prefix_eras(raw: str, name: str | None, pid: int | None, ip: str | None) -> None:
    process = parsed(raw).process
    if name is not None:
        assert process.name == name
    else:
        assert process != MAIN
    assert (process.pid, process.ip) == (pid, ip)


# ---- parse_line: outer wrappers ---------------------------------------------------------------------

OUTER_WRAPPERS = [
    # (raw line, outer wrapper, process name, kind, text)
    ("2024-06-28T06:11:52.685302801Z (LLMRayActor pid=20770) ERROR 06-28 06:11:45 worker_base.py:145]"
     " Error executing method initialize_cache. This might cause deadlock in distributed execution.",
     "2024-06-28T06:11:52.685302801Z", "LLMRayActor", LineKind.PLAIN,
     "Error executing method initialize_cache. This might cause deadlock in distributed "
     "execution."),  # ray-actor-kv-cache-too-small-symptom-only (docker --timestamps)
    ("2024-06-22T20:16:34.700+00:00 ERROR 06-22 20:16:34 async_llm_engine.py:52]   File "
     "\"/usr/local/lib/python3.10/dist-packages/vllm/engine/async_llm_engine.py\", line 532, in "
     "run_engine_loop", "2024-06-22T20:16:34.700+00:00", "main", LineKind.FRAME,
     "File \"/usr/local/lib/python3.10/dist-packages/vllm/engine/async_llm_engine.py\", line 532, "
     "in run_engine_loop"),  # vllm#5060 (a k8s/CRI timestamp with an offset)
    ("Aug 17 18:42:18 vllm vllm[8052]: INFO 07-23 19:34:27 [api_server.py:1395] vLLM API server "
     "version 0.9.2", "Aug 17 18:42:18 vllm vllm[8052]:", "main", LineKind.PLAIN,
     "vLLM API server version 0.9.2"),  # journald (ProxmoxVED#2047) around vllm#17756
    ("vllm03  | (APIServer pid=1) INFO 05-09 10:37:24 [launcher.py:46] Route: /v1/chat/completions, "
     "Methods: POST", "vllm03  |", "APIServer", LineKind.PLAIN,
     "Route: /v1/chat/completions, Methods: POST"),  # docker compose
    ("single-1   | INFO 07-23 19:34:27 [api_server.py:1395] vLLM API server version 0.9.2",
     "single-1   |", "main", LineKind.PLAIN, "vLLM API server version 0.9.2"),
    ("> DEBUG 05-02 14:11:09 [__init__.py:28] No plugins for", ">", "main", LineKind.PLAIN,
     "No plugins for"),  # a markdown-quoted paste of vLLM 0.8.5's plugins/__init__.py:28 line
    # a log viewer's gutter (vllm#6042): before a record header, a rank tag and a process prefix
    ("  | ERROR 07-01 13:54:43 multiproc_worker_utils.py:120] Worker VllmWorkerProcess pid 1159 "
     "died, exit code: -6", "|", "main", LineKind.PLAIN,
     "Worker VllmWorkerProcess pid 1159 died, exit code: -6"),
    ("  | [rank0]:[E ProcessGroupNCCL.cpp:563] [Rank 0] Watchdog caught collective operation "
     "timeout", "|", "main", LineKind.PLAIN, "[Rank 0] Watchdog caught collective operation timeout"),
    ("| (VllmWorkerProcess pid=7) INFO 07-01 13:54:43 worker.py:1] x", "|", "VllmWorkerProcess",
     LineKind.PLAIN, "x"),
]


@pytest.mark.parametrize(("raw", "outer", "process", "kind", "text"), OUTER_WRAPPERS)
def test_outer_wrappers(raw: str, outer: str, process: str, kind: LineKind, text: str) -> None:
    record = parsed(raw)
    assert record.outer == outer
    assert record.process.name == process
    assert record.kind is kind
    assert record.text == text


@pytest.mark.parametrize(("raw", "kind", "text"), [
    # torch's excepthook tag (kind D, LlamaFactory#5050) and its pasted cut-off form
    ("[rank0]:     self.model = AsyncLLMEngine.from_engine_args(AsyncEngineArgs(**engine_args))",
     LineKind.INDENTED,
     "    self.model = AsyncLLMEngine.from_engine_args(AsyncEngineArgs(**engine_args))"),
    ("[rank0]:                  ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^",
     LineKind.CARET, "                 ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^"),
    ("0] IndexError: index 55434 is out of bounds for dimension 0 with size 32064",
     LineKind.EXCEPTION, "IndexError: index 55434 is out of bounds for dimension 0 with size 32064"),
    ("0] The above exception was the direct cause of the following exception:", LineKind.CHAIN,
     "The above exception was the direct cause of the following exception:"),
])
def test_rank_tag(raw: str, kind: LineKind, text: str) -> None:
    record = parsed(raw)
    assert record.process == MAIN
    assert record.kind is kind
    assert record.text == text


# ---- parse_line: ANSI colour, through clean() --------------------------------------------------------

ANSI_LINES = [
    # (raw line, process name, level, kind, text)
    (f"{ESC}[0;36m(APIServer pid=523647){ESC}[0;0m ERROR 04-27 18:09:47 [core_client.py:600] Engine "
     "core proc EngineCore_DP0 died unexpectedly, shutting down client.", "APIServer", Level.ERROR,
     LineKind.PLAIN, "Engine core proc EngineCore_DP0 died unexpectedly, shutting down client."),
    (f"{ESC}[0;36m(EngineCore_DP0 pid=367){ESC}[0;0m Traceback (most recent call last):",
     "EngineCore_DP0", None, LineKind.TRACEBACK_HEADER, "Traceback (most recent call last):"),
    (f"{ESC}[1;36m(EngineCore_DP0 pid=116603){ESC}[0;0m [rank0]:E0731 16:03:52.115000 116603 "
     "site-packages/torch/_inductor/runtime/triton_heuristics.py:539] [1/0] Triton compilation "
     "failed: triton_tem_fused_0", "EngineCore_DP0", Level.ERROR, LineKind.PLAIN,
     "Triton compilation failed: triton_tem_fused_0"),  # t4-flexattention-inductor-passmanager
    ("^[[1;36m(VllmWorkerProcess pid=21877)^[[0;0m WARNING 10-21 06:40:12 shm_broadcast.py:396] No "
     "available block found in 60 second.", "VllmWorkerProcess", Level.WARNING, LineKind.PLAIN,
     "No available block found in 60 second."),  # vLLM 0.6.3 shm_broadcast, escapes pasted as `^[`
    ("ESC[36m(RayWorkerVllm pid=7310)ESC[0m llm-serve-5d9c7b6f48-x2kqp:7310:7310 [1] NCCL "
     "INFO cudaDriverVersion 12020", "RayWorkerVllm", None, LineKind.NCCL,
     "NCCL INFO cudaDriverVersion 12020"),  # NCCL's init INFO line in a Ray worker (NCCL's source)
    # the ESC byte lost in a copy, the rest of the colour code kept (vllm#5484)
    ("[36m(RayWorkerWrapper pid=4009) [rank1]:[E ProcessGroupNCCL.cpp:563] [Rank 1] Watchdog "
     "caught collective operation timeout", "RayWorkerWrapper", Level.ERROR, LineKind.PLAIN,
     "[Rank 1] Watchdog caught collective operation timeout"),
    ("[1;36m(EngineCore_DP0 pid=367)[0;0m ValueError: x", "EngineCore_DP0", None,
     LineKind.EXCEPTION, "ValueError: x"),
    ("[0;36mINFO 05-09 10:37:24 [launcher.py:46] Route: /v1/models, Methods: GET[0m", "main",
     Level.INFO, LineKind.PLAIN, "Route: /v1/models, Methods: GET"),
    # ColoredFormatter (research 1.3): level, time and site coloured too
    (f"{ESC}[0;36m(APIServer pid=1){ESC}[0;0m {ESC}[32mINFO{ESC}[0m {ESC}[90m05-09 10:37:24{ESC}[0m "
     f"{ESC}[90m[launcher.py:46]{ESC}[0m Route: /v1/chat/completions, Methods: POST", "APIServer",
     Level.INFO, LineKind.PLAIN, "Route: /v1/chat/completions, Methods: POST"),
]


@pytest.mark.parametrize(("raw", "process", "level", "kind", "text"), ANSI_LINES)
def test_ansi_coloured_lines(raw: str, process: str, level: Level | None, kind: LineKind,
                             text: str) -> None:
    cleaned = clean(raw)
    assert ESC not in cleaned and "^[[" not in cleaned and "ESC[" not in cleaned
    record = parse_line(cleaned)
    assert record.process.name == process
    assert record.level is level
    assert record.kind is kind
    assert record.text == text


# ---- parse_line: vLLM records of both eras -------------------------------------------------------------

RECORDS = [
    # (raw line, level, time, site, kind, text)
    ("INFO 07-03 11:58:36 llm_engine.py:161] Initializing an LLM engine (v0.5.0.post1) with config: "
     "model='/localssd/swlu/Qwen1.5-MoE-A2.7B-Chat/', speculative_config=None, ...", Level.INFO,
     "07-03 11:58:36", "llm_engine.py:161", LineKind.PLAIN,
     "Initializing an LLM engine (v0.5.0.post1) with config: "
     "model='/localssd/swlu/Qwen1.5-MoE-A2.7B-Chat/', speculative_config=None, ..."),  # vllm#6090
    ("WARNING 10-21 06:12:51 config.py:372] Async output processing can not be enabled with "
     "pipeline parallel", Level.WARNING, "10-21 06:12:51", "config.py:372", LineKind.PLAIN,
     "Async output processing can not be enabled with pipeline parallel"),  # vLLM 0.6.3 config.py
    ("INFO 07-23 19:34:27 [api_server.py:1395] vLLM API server version 0.9.2", Level.INFO,
     "07-23 19:34:27", "api_server.py:1395", LineKind.PLAIN, "vLLM API server version 0.9.2"),
    ("(Worker_TP0 pid=215) ERROR 01-20 13:03:50 [v1/executor/multiproc_executor.py:749]     "
     "self.self_attn = attn_cls(", Level.ERROR, "01-20 13:03:50",
     "v1/executor/multiproc_executor.py:749", LineKind.INDENTED,
     "    self.self_attn = attn_cls("),  # vllm#32732, DEBUG relative path
    ("ERROR 10-13 09:06:25 [v1/executor/multiproc_executor.py:597] RuntimeError: NCCL error: "
     "unhandled system error (run with NCCL_DEBUG=INFO for details)", Level.ERROR,
     "10-13 09:06:25", "v1/executor/multiproc_executor.py:597", LineKind.EXCEPTION,
     "RuntimeError: NCCL error: unhandled system error (run with NCCL_DEBUG=INFO for details)"),
    ("(EngineCore_DP0 pid=1127182) ERROR 10-27 20:12:32 [core.py:708] ", Level.ERROR,
     "10-27 20:12:32", "core.py:708", LineKind.BLANK, ""),  # vllm#27604: an empty continuation
    ("(APIServer pid=23283) INFO 08-01 20:59:09 [api_utils.py:339] \r", Level.INFO,
     "08-01 20:59:09", "api_utils.py:339", LineKind.BLANK, ""),  # the logo's first line, \r\n
    ("(VllmWorker rank=1 pid=40522) ERROR 04-02 11:07:30 multiproc_executor.py:374] WorkerProc hit "
     "an exception: %s", Level.ERROR, "04-02 11:07:30", "multiproc_executor.py:374",
     LineKind.PLAIN, "WorkerProc hit an exception: %s"),  # a logging call's unfilled literal %s
    ("(EngineCore pid=23397) [rank0]:W0801 21:19:49.463000 23397 torch/_inductor/utils.py:1731] Not "
     "enough SMs to use max_autotune_gemm mode", Level.WARNING, "08-01 21:19:49",
     "torch/_inductor/utils.py:1731", LineKind.PLAIN,
     "Not enough SMs to use max_autotune_gemm mode"),  # healthy-dgx-spark, torch._logging
]


@pytest.mark.parametrize(("raw", "level", "time", "site", "kind", "text"), RECORDS)
def test_records(raw: str, level: Level, time: str, site: str, kind: LineKind, text: str) -> None:
    record = parsed(raw)
    assert (record.level, record.time, record.site) == (level, time, site)
    assert record.kind is kind
    assert record.text == text


# ---- parse_line: traceback parts --------------------------------------------------------------------

TRACEBACK_PARTS = [
    # (raw line, process name, kind, text)
    ("(EngineCore_DP0 pid=207811) ERROR 02-05 10:12:41 [core.py:1108] Traceback (most recent call "
     "last):", "EngineCore_DP0", LineKind.TRACEBACK_HEADER, "Traceback (most recent call last):"),
    ("(EngineCore_DP0 pid=207811) Traceback (most recent call last):", "EngineCore_DP0",
     LineKind.TRACEBACK_HEADER, "Traceback (most recent call last):"),
    ("(EngineCore_DP0 pid=207811)     self.run()", "EngineCore_DP0", LineKind.INDENTED,
     "    self.run()"),
    ("ERROR 06-13 11:37:08 [core.py:515]            ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^", "main",
     LineKind.CARET, "           ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^"),  # vllm#19596
    ("(APIServer pid=223598)     ~~~~^^^^^^^^^^", "APIServer", LineKind.CARET,
     "    ~~~~^^^^^^^^^^"),  # gpt-oss-120b-h100-kv-cache-symptom-only
    ("(APIServer pid=223598)     ...<5 lines>...", "APIServer", LineKind.ELIDED,
     "    ...<5 lines>..."),
    ("  [Previous line repeated 996 more times]", "main", LineKind.REPEAT,
     "  [Previous line repeated 996 more times]"),
    ("(EngineCore_DP0 pid=207811) ERROR 02-05 10:12:46 [core.py:1108] Exception: WorkerProc "
     "initialization failed due to an exception in a background process. See stack trace for root "
     "cause.", "EngineCore_DP0", LineKind.EXCEPTION, "Exception: WorkerProc initialization failed "
     "due to an exception in a background process. See stack trace for root cause."),
    ("(EngineCore_DP0 pid=73) torch._inductor.exc.InductorError: RuntimeError: Failed to run "
     "autotuning code block: No valid triton configs. PTXASError: PTXAS error: Internal Triton PTX "
     "codegen error", "EngineCore_DP0", LineKind.EXCEPTION,
     "torch._inductor.exc.InductorError: RuntimeError: Failed to run autotuning code block: No "
     "valid triton configs. PTXASError: PTXAS error: Internal Triton PTX codegen error"),
    ("ERROR 07-31 19:35:35 [core.py:586] ray.exceptions.RayTaskError(TypeError): "
     "ray::RayWorkerWrapper.execute_method() (pid=13215, ip=7.242.101.23, "
     "actor_id=02a815d7708e6d7233293c3f01000000)", "main", LineKind.EXCEPTION,
     "ray.exceptions.RayTaskError(TypeError): ray::RayWorkerWrapper.execute_method() (pid=13215, "
     "ip=7.242.101.23, actor_id=02a815d7708e6d7233293c3f01000000)"),
    ("(EngineCore_DP0 pid=207811) Process EngineCore_DP0:", "EngineCore_DP0",
     LineKind.PROCESS_HEADER, "Process EngineCore_DP0:"),
    ("Process EngineCore_0:", "main", LineKind.PROCESS_HEADER, "Process EngineCore_0:"),
]


@pytest.mark.parametrize(("raw", "process", "kind", "text"), TRACEBACK_PARTS)
def test_traceback_parts(raw: str, process: str, kind: LineKind, text: str) -> None:
    record = parsed(raw)
    assert record.process.name == process
    assert record.kind is kind
    assert record.text == text


@pytest.mark.parametrize(("raw", "reason"), [
    ("The above exception was the direct cause of the following exception:",
     ChainReason.DIRECT_CAUSE),
    ("During handling of the above exception, another exception occurred:",
     ChainReason.DURING_HANDLING),
    ("ERROR 10-13 09:06:25 [v1/executor/multiproc_executor.py:597] The above exception was the "
     "direct cause of the following exception:", ChainReason.DIRECT_CAUSE),
    ("(APIServer pid=23283) During handling of the above exception, another exception occurred:",
     ChainReason.DURING_HANDLING),
    ("    | During handling of the above exception, another exception occurred:",
     ChainReason.DURING_HANDLING),
])
def test_chain_separators(raw: str, reason: ChainReason) -> None:
    record = parsed(raw)
    assert record.kind is LineKind.CHAIN
    assert record.chain is reason


EXCEPTION_GROUP_BOX = [
    # Python 3.11+ exception-group traceback (research section 3.2, anycorn#89 and starlette)
    ("  + Exception Group Traceback (most recent call last):", LineKind.GROUP_HEADER, None),
    ('  |   File "/usr/lib/python3.12/multiprocessing/process.py", line 314, in _bootstrap',
     LineKind.FRAME, None),
    ("  | ExceptionGroup: unhandled errors in a TaskGroup (1 sub-exception)", LineKind.EXCEPTION,
     "ExceptionGroup"),
    ("        | ExceptionGroup: unhandled errors in a TaskGroup (1 sub-exception)",
     LineKind.EXCEPTION, "ExceptionGroup"),
    ("  +-+---------------- 1 ----------------", LineKind.GROUP_BOX, None),
    ("        +-+---------------- 1 ----------------", LineKind.GROUP_BOX, None),
    ("    | Traceback (most recent call last):", LineKind.TRACEBACK_HEADER, None),
    ("    | ValueError: Cannot use chat template functions because tokenizer.chat_template is not "
     "set", LineKind.EXCEPTION, "ValueError"),
    ("    +------------------------------------", LineKind.GROUP_BOX, None),
    ("  +---------------- ... ----------------", LineKind.GROUP_BOX, None),
    ("    | [Previous line repeated 3 more times]", LineKind.REPEAT, None),
]


@pytest.mark.parametrize(("raw", "kind", "exception"), EXCEPTION_GROUP_BOX)
def test_exception_group_box(raw: str, kind: LineKind, exception: str | None) -> None:
    record = parsed(raw)
    assert record.kind is kind
    assert record.exception == exception


# ---- parse_line: other sources interleaved in a vLLM log ------------------------------------------------

OTHER_SOURCES = [
    # (raw line, process name, kind)
    ("/environments/venv/lib64/python3.11/site-packages/transformers/models/gemma3/"
     "configuration_gemma3.py:242: FutureWarning: The `sliding_window_pattern` attribute is "
     "deprecated", "main", LineKind.PY_WARNING),  # vllm#20226
    ("/home2/ycj/miniconda3/lib/python3.13/multiprocessing/resource_tracker.py:400: UserWarning: "
     "resource_tracker: There appear to be 1 leaked semaphore objects to clean up at shutdown: "
     "{'/loky-526615-krvhe7ln'}", "main", LineKind.PY_WARNING),  # qwen3-30b-enginecore
    ("  warnings.warn('resource_tracker: There appear to be %d '", "main", LineKind.INDENTED),
    ("Fatal Python error: Segmentation fault", "main", LineKind.FATAL),
    ("Current thread 0x00007fcf597eb640 (most recent call first):", "main", LineKind.FAULT_THREAD),
    ("(RayWorkerWrapper pid=36946) Extension modules: msgpack._cmsgpack, google._upb._message, "
     "psutil._psutil_linux, ...", "RayWorkerWrapper", LineKind.EXTENSION_MODULES),  # vllm#7960
    ("(APIServer pid=23283) INFO:     Started server process [23283]", "APIServer",
     LineKind.UVICORN),
    ("(APIServer pid=23283) INFO:     Application startup complete.", "APIServer",
     LineKind.UVICORN),
    ("ERROR:    Exception in ASGI application", "main", LineKind.UVICORN),
    (f"{ESC}[32mINFO{ESC}[0m:     Application startup complete.", "main", LineKind.UVICORN),
    ('(APIServer pid=23283) INFO:     127.0.0.1:35594 - "GET /v1/models HTTP/1.1" 200 OK',
     "APIServer", LineKind.ACCESS),
    ('(APIServer pid=23283) INFO:     127.0.0.1:45084 - "POST /v1/chat/completions HTTP/1.1" 400 Bad '
     "Request", "APIServer", LineKind.ACCESS),
    ("(EngineCore pid=23397) Loading safetensors checkpoint shards:   2% Completed | 1/49 "
     "[00:02<01:48,  2.26s/it]", "EngineCore", LineKind.PROGRESS),
    ("Processed prompts:   0%|          | 0/16 [00:00<?, ?it/s, est. speed input: 0.00 toks/s, "
     "output: 0.00 toks/s]", "main", LineKind.PROGRESS),
    ("(EngineCore pid=23397) [AutoTuner]: Tuning trtllm::fused_moe::gemm1:   0%|          | 0/21 "
     "[00:00<?, ?profile/s]2026-08-01 21:21:53,817 - INFO - autotuner.py:1351 - flashinfer.jit: "
     "[Autotuner]: Skipped 4 unsupported tactic(s) for trtllm::fused_moe", "EngineCore",
     LineKind.PROGRESS),  # healthy-dgx-spark: a bar glued to a flashinfer record
]


@pytest.mark.parametrize(("raw", "process", "kind"), OTHER_SOURCES)
def test_other_sources(raw: str, process: str, kind: LineKind) -> None:
    record = parsed(raw)
    assert record.process.name == process
    assert record.kind is kind


_LOGGED_PROMPT = ("(APIServer pid=41) INFO 01-05 09:00:10 [logger.py:43] Received request "
                  "chatcmpl-9a: prompt: '<|begin_of_text|>{words}', params: SamplingParams(n=1, "
                  "temperature=0.6), prompt_token_ids: None, lora_request: None.")


@pytest.mark.parametrize("words", [
    "Starting vLLM API server 0 on http://0.0.0.0:8000 Application startup complete.",
    "Using FLASH_ATTN attention backend vLLM API server version 0.16.0 Shutting down",
    "Model loading took 16.43 GiB memory and 23.1 seconds " * 200,  # a long prompt (screened)
])
def test_a_logged_prompt_is_user_text_not_a_message(words: str) -> None:
    # what a prompt says is no fact, milestone or phase of the server that logs it
    from logsleuth.assemble import Assembler
    from logsleuth.facts import FactCollector

    record = parsed(_LOGGED_PROMPT.format(words=words))
    assert record.kind is LineKind.REQUEST and record.level is Level.INFO
    assert record.process.name == "APIServer"
    facts = FactCollector()
    facts.look(record)
    assert not facts.result()
    assert not Assembler().feed(record)


SEVERITY_OUTSIDE_VLLM_RECORDS = [
    # Level is the severity of a record from vLLM's logger, uvicorn or glog (model.Level)
    ("[rank0]:[W301 17:37:32.701608294 ProcessGroupNCCL.cpp:1524] Warning: WARNING: "
     "destroy_process_group() was not called before program exit, which can leak resources.",
     Level.WARNING),  # rocm-rx9070-inductor-hip-oom
    ("[W214 15:20:56.973624780 CUDAAllocatorConfig.h:28] Warning: expandable_segments not supported "
     "on this platform (function operator())", Level.WARNING),  # vllm#13836
    ("(EngineCore_DP0 pid=5120) W1107 08:12:40.118000 5120 torch/utils/cpp_extension.py:2425] "
     "If this is not desired, please set os.environ['TORCH_CUDA_ARCH_LIST'] to specific "
     "architectures.", Level.WARNING),  # torch's cpp_extension TORCH_CUDA_ARCH_LIST warning
    ("(APIServer pid=23283) INFO:     Started server process [23283]", Level.INFO),
    ("(APIServer pid=23283) INFO:     Application startup complete.", Level.INFO),
    (f"{ESC}[32mINFO{ESC}[0m:     Application startup complete.", Level.INFO),
    ("ERROR:    Exception in ASGI application", Level.ERROR),
    ('(APIServer pid=23283) INFO:     127.0.0.1:35594 - "GET /v1/models HTTP/1.1" 200 OK',
     Level.INFO),
    ("Fatal Python error: Segmentation fault", None),
    ("3837134f4773:4527:4527 [1] NCCL INFO P2P Chunksize set to 524288", None),
]


@pytest.mark.parametrize(("raw", "level"), SEVERITY_OUTSIDE_VLLM_RECORDS)
def test_severity_of_uvicorn_and_glog_lines(raw: str, level: Level | None) -> None:
    assert parsed(raw).level is level


@pytest.mark.parametrize(("raw", "process", "shown"), [
    # tqdm on a prefixed process: the prefix starts the physical line, the `\r` refreshes follow it
    # without one (research 2.1). healthy-dgx-spark-sigterm-shutdown line 40.
    ("(EngineCore pid=23397) \rLoading safetensors checkpoint shards:   0% Completed | 0/49 "
     "[00:00<?, ?it/s]", "EngineCore",
     "Loading safetensors checkpoint shards:   0% Completed | 0/49 [00:00<?, ?it/s]"),
    (f"{ESC}[0;36m(EngineCore_DP0 pid=367){ESC}[0;0m \rLoading safetensors checkpoint shards:   0% "
     "Completed | 0/4 [00:00<?, ?it/s]", "EngineCore_DP0",
     "Loading safetensors checkpoint shards:   0% Completed | 0/4 [00:00<?, ?it/s]"),
    ("(Worker_TP0 pid=1700) Loading safetensors checkpoint shards:  26% Completed | 22/85 "
     "[09:23<29:54, 28.49s/it]\rLoading safetensors checkpoint shards:  27% Completed | 23/85 "
     "[09:50<29:25, 28.47s/it]", "Worker_TP0",
     "Loading safetensors checkpoint shards:  27% Completed | 23/85 [09:50<29:25, 28.47s/it]"),
    ("Capturing CUDA graphs (FULL): 0%| | 0/2 [00:00<?, ?it/s]\rCapturing CUDA graphs (FULL): "
     "100%|##########| 2/2 [00:00<00:00, 6.11it/s]", "main",
     "Capturing CUDA graphs (FULL): 100%|##########| 2/2 [00:00<00:00, 6.11it/s]"),
])
def test_progress_refreshes_keep_the_last_segment_and_the_process(raw: str, process: str,
                                                                  shown: str) -> None:
    record = parsed(raw)
    assert record.kind is LineKind.PROGRESS
    assert record.text.strip() == shown
    assert record.process.name == process


@pytest.mark.parametrize(("raw", "cleaned"), [
    ("(APIServer pid=23283) INFO 08-01 20:59:09 [api_utils.py:339] \r",
     "(APIServer pid=23283) INFO 08-01 20:59:09 [api_utils.py:339] "),  # a `\r\n` ending
    ("ValueError: boom\r", "ValueError: boom"),
    ("a 10%\rb 20%\rc 100%", "c 100%"),
    ("c 100%\r\r", "c 100%"),
    ("\r", ""),
    ("plain", "plain"),
])
def test_clean_handles_carriage_returns(raw: str, cleaned: str) -> None:
    assert clean(raw) == cleaned


# ---- client_answer: the parts of a client's print of an error answer (index/bare.py) ----------------

# (part, text, the terminal that takes it whole); each part is read off a line's text by
# index/bare.py with the grammar's own terminal (tokenize.terminal_regex)
CLIENT_ANSWER_VALID = [
    ("400 ", "CLIENT_ANSWER_LEAD"), ("[422] ", "CLIENT_ANSWER_LEAD"),
    ("Error 500: ", "CLIENT_ANSWER_LEAD"), ("error 404 - ", "CLIENT_ANSWER_LEAD"),
    ("HTTP 422 | ", "CLIENT_ANSWER_LEAD"), ("status 503, ", "CLIENT_ANSWER_LEAD"),
    ("400 Bad Request: ", "CLIENT_STATUS_REASON"),
    ("422 Unprocessable Entity - ", "CLIENT_STATUS_REASON"),
    ("503 Service Unavailable | ", "CLIENT_STATUS_REASON"), ("404]: ", "CLIENT_STATUS_REASON"),
]
ANSWER_FIELDS = [" None", " None None", ", null, 400", " | BadRequestError | invalid_request_error"]
ANSWER_MESSAGE = "The model does not support this thing"


@pytest.mark.parametrize(("lead", "terminal"), CLIENT_ANSWER_VALID)
@pytest.mark.parametrize("fields", ["", *ANSWER_FIELDS])
def test_client_answer_leads(lead: str, terminal: str, fields: str) -> None:
    from logsleuth.tokenize import terminal_regex

    text = lead + ANSWER_MESSAGE + fields
    assert accepts(text, "client_answer")
    found = terminal_regex(terminal).match(text)
    assert found is not None and found.end() == len(lead), (lead, terminal)
    if fields:
        assert terminal_regex("CLIENT_ANSWER_FIELDS").search(text).group() == fields


@pytest.mark.parametrize("fields", ANSWER_FIELDS)
def test_client_answer_fields(fields: str) -> None:
    assert accepts(fields, "client_answer")


@pytest.mark.parametrize("code", ["400", "404", "422", "500", "503"])
def test_client_status_code(code: str) -> None:
    from logsleuth.tokenize import terminal_regex

    assert accepts(code, "client_status_code")
    assert terminal_regex("CLIENT_STATUS_CODE").search(f"HTTP {code}: Bad").group() == code


@pytest.mark.parametrize(("terminal", "text"), [
    # a status needs a message after it, and is no part of a larger number or a version
    ("CLIENT_ANSWER_LEAD", "400"), ("CLIENT_ANSWER_LEAD", "4000 tokens"),
    ("CLIENT_ANSWER_LEAD", "200 OK"), ("CLIENT_ANSWER_LEAD", "Loaded 400 files"),
    ("CLIENT_STATUS_REASON", "processed 4000 prompts"), ("CLIENT_STATUS_REASON", "v0.4.500"),
    ("CLIENT_STATUS_REASON", "status 200"), ("CLIENT_STATUS_CODE", "took 1.404 s"),
    # fields are what ends the line, after a separator
    ("CLIENT_ANSWER_FIELDS", "None of the GPUs"), ("CLIENT_ANSWER_FIELDS", "Nonesuch"),
])
def test_client_answer_parts_are_not(terminal: str, text: str) -> None:
    from logsleuth.tokenize import terminal_regex

    pattern = terminal_regex(terminal)
    found = pattern.match(text) if terminal == "CLIENT_ANSWER_LEAD" else pattern.search(text)
    assert found is None, (terminal, text)


# ---- pasted_line: what stands around vLLM's message in a line pasted alone (index/bare.py) --------

@pytest.mark.parametrize(("text", "terminal", "rest"), [
    ("AttributeError: 'NoneType' object has no attribute 'x'", "NAMED_LEAD",
     "'NoneType' object has no attribute 'x'"),
    ("torch.cuda: out of memory", "NAMED_LEAD", "out of memory"),
    ("Misc error: the model is too big", "PROGRAM_LABEL", "the model is too big"),
    ("[rank 0] Request failed: the model is too big", "PROGRAM_LABEL", "the model is too big"),
    ("Got an error: x", "PROGRAM_LABEL", "x"),
])
def test_pasted_line_leads(text: str, terminal: str, rest: str) -> None:
    from logsleuth.tokenize import terminal_regex

    assert accepts(text, "pasted_line")
    found = terminal_regex(terminal).match(text)
    assert found is not None and text[found.end():] == rest


@pytest.mark.parametrize(("text", "inside"), [
    ("`Ray does not allocate any GPUs`", "Ray does not allocate any GPUs"),
    ("`` the model is too big ``", "the model is too big"),
    ("```x `y` z```", "x `y` z"),
])
def test_pasted_line_inline_code(text: str, inside: str) -> None:
    from logsleuth.tokenize import terminal_regex

    assert accepts(text, "pasted_line")
    found = terminal_regex("INLINE_CODE").fullmatch(text)
    assert found is not None and found.group("code_text") == inside


@pytest.mark.parametrize(("terminal", "text"), [
    ("NAMED_LEAD", "the model: x"), ("NAMED_LEAD", "3x: y"), ("NAMED_LEAD", "Error:x"),
    ("PROGRAM_LABEL", "Error: x"), ("PROGRAM_LABEL", "one two three four five: x"),
    ("PROGRAM_LABEL", "Misc error:  x"), ("PROGRAM_LABEL", "torch.cuda error: x"),
    ("INLINE_CODE", "``x`"), ("INLINE_CODE", "`x` and more"), ("INLINE_CODE", "``"),
])
def test_pasted_line_parts_are_not(terminal: str, text: str) -> None:
    from logsleuth.tokenize import terminal_regex

    pattern = terminal_regex(terminal)
    found = pattern.fullmatch(text) if terminal == "INLINE_CODE" else pattern.match(text)
    assert found is None, (terminal, text)


# ---- what a line is NOT ---------------------------------------------------------------------------

def test_error_record_text_is_not_an_exception_line() -> None:
    record = parsed("(APIServer pid=103793) ERROR 03-08 20:37:09 [repo_utils.py:47] Error retrieving "
                    "safetensors: Repo id must be in the form 'repo_name' or 'namespace/repo_name': "
                    "'/data0/huggingface/MiniMax-M2.5'. Use `repo_type` argument if needed., "
                    "retrying 1 of 2")
    assert record.kind is LineKind.PLAIN
    assert record.exception is None
    assert record.level is Level.ERROR
    assert record.process.name == "APIServer"


NOT_A_PROCESS_PREFIX = [
    "(not a prefix) text",
    "<vllm.entrypoints.llm.LLM object at 0x72c46e351a50>",
    "Set the environment variable HYDRA_FULL_ERROR=1 for a complete stack trace.",
    # Ray's own logger, with a `(pid=..., ip=...)` inside the message
    "2025-07-31 19:35:35,770\tERROR worker.py:423 -- Unhandled error (suppress with "
    "'RAY_IGNORE_UNHANDLED_ERRORS=1'): ray::RayWorkerWrapper.execute_method() (pid=13214, "
    "ip=7.242.101.23, actor_id=11573371cb1364127fd3f12c01000000)",
    "RuntimeError: Engine core initialization failed. See root cause above. Failed core proc(s): {}",
]


@pytest.mark.parametrize("raw", NOT_A_PROCESS_PREFIX)
def test_text_in_parentheses_keeps_main_process(raw: str) -> None:
    assert parsed(raw).process == MAIN


NOT_AN_ERROR = [
    # (raw line, kinds it must not be)
    ("(APIServer pid=23283) Warning: You are sending unauthenticated requests to the HF Hub. Please "
     "set a HF_TOKEN to enable higher rate limits and faster downloads.", {LineKind.FATAL}),
    ("+ python app.py --host 0.0.0.0 --port 5085 --model wasertech/assistant-llama2-7b-chat-awq",
     {LineKind.GROUP_BOX, LineKind.GROUP_HEADER}),  # awq-turing: a shell trace line
    ("(Worker_TP0 pid=215) ERROR 01-20 13:03:50 [multiproc_executor.py:898]     + "
     "get_offloader().wrap_modules(", {LineKind.GROUP_BOX, LineKind.GROUP_HEADER}),  # vllm#42426
    ("(VllmWorkerProcess pid=13360) ERROR 08-02 18:15:15 multiproc_worker_utils.py:226] Exception in "
     "worker VllmWorkerProcess while processing method init_device: Cannot re-initialize CUDA in "
     "forked subprocess. To use CUDA with multiprocessing, you must use the 'spawn' start method, "
     "Traceback (most recent call last):", {LineKind.TRACEBACK_HEADER, LineKind.EXCEPTION}),
    ("INFO 07-31 19:35:35 [ray_distributed_executor.py:128] Shutting down Ray distributed executor. "
     "If you see error log from logging.cc regarding SIGTERM received, please ignore because this is "
     "the expected termination process in Ray.", {LineKind.FATAL, LineKind.EXCEPTION}),
    ("(EngineCore_DP0 pid=207811) WARNING 02-05 10:11:06 [multiproc_executor.py:882] Reducing Torch "
     "parallelism from 96 threads to 1 to avoid unnecessary CPU contention.",
     {LineKind.EXCEPTION, LineKind.FATAL}),
    ("(EngineCore_DP0 pid=73) `ptxas` stderr:", {LineKind.PROCESS_HEADER, LineKind.EXCEPTION}),
]


@pytest.mark.parametrize(("raw", "not_kinds"), NOT_AN_ERROR)
def test_lines_that_only_look_like_errors(raw: str, not_kinds: set[LineKind]) -> None:
    record = parsed(raw)
    assert record.kind not in not_kinds
    assert record.exception is None or record.exception.endswith("Warning")


# ---- parse_line never raises --------------------------------------------------------------------------

NEVER_RAISES = [
    "",
    "random text here",
    '  File "/x',
    '(APIServer pid=207603)   File "/x',
    "(APIServer pid=1",
    "ERROR 01-01",
    "ERROR 01-01 00:00:00 [",
    ")",
    '"',
    "((pid=1) x",
    "(pid=1)(pid=2)(pid=3)",
    "Traceback (most recent call last): and more",
    "\x00\x01\x02",
    "█▄   ▄█ version 0.25.1",
    "x" * 20000,
    "INFO:",
    "[rank0]:",
    "0]",
]


@pytest.mark.parametrize("raw", NEVER_RAISES)
def test_parse_line_never_raises(raw: str) -> None:
    record = parsed(raw)
    assert record.kind in LineKind


def test_cut_frame_keeps_its_prefix() -> None:
    record = parsed('(APIServer pid=207603)   File "/x')
    assert record.process.name == "APIServer"
    assert record.kind in (LineKind.PLAIN, LineKind.INDENTED)
    assert record.frame is None


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=200))
def test_parse_line_never_raises_on_any_text(text: str) -> None:
    record = parse_line(clean(text))
    assert record.kind in LineKind


@settings(max_examples=150, deadline=None)
@given(st.lists(st.sampled_from(["(", ")", "pid=", "1", " ", "ERROR", " 01-01 00:00:00 ", "[",
                                 "]", "x.py:1", "File \"", "\", line ", ", in ", ":", "Error",
                                 "|", "+", "-", "^", "\t", "NCCL WARN", "[1] "]), max_size=20))
def test_parse_line_never_raises_on_near_misses(parts: list[str]) -> None:
    record = parse_line(clean("".join(parts)))
    assert record.kind in LineKind


@pytest.mark.parametrize("raw,process,kind", [
    # a k9s pane copied with its borders (tuning: k9s-box-engine-dead-background-loop)
    ("│ ERROR 08-30 19:19:10 client.py:412] vllm.engine.async_llm_engine.AsyncEngineDeadError: "
     "Background loop is stopped.                 │", "main", LineKind.EXCEPTION),
    # journald with a non-English month (tuning: journald-v100-startup-warnings)
    ("авг 18 10:21:07 gpu-node vllm[1234]: (APIServer pid=1234) ERROR 08-18 10:21:07 "
     "[core.py:1] ValueError: x", "APIServer", LineKind.EXCEPTION),
])
def test_pasted_wrappers(raw: str, process: str, kind: LineKind) -> None:
    line = parse_line(clean(raw))
    assert (line.process.name, line.kind) == (process, kind)
    assert not line.text.endswith("│")


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.sampled_from(["a", " ", "\r", "█", "▏", "\u00a0", "\u2009", "\u3000",
                                         "é", "|", "1"]), max_size=60))
def test_clean_reads_wide_spaces_as_spaces_only_where_there_are_some(raw: str) -> None:
    """A non-ASCII line is scanned for the wide spaces before it is translated: the same line
    as translating every non-ASCII line (a tqdm bar's block characters stay as they are)."""
    from logsleuth.tokenize.grammar import _WIDE_SPACES

    assert clean(raw) == clean(raw.translate(_WIDE_SPACES))
    assert not any(chr(code) in clean(raw) for code in _WIDE_SPACES)
