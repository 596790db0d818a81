"""Session 33's failing logs called healthy, as classes (issue 10: no failing log called healthy).

1. A destructor that finds its own object half built. Python runs `__del__` on an object whose
   constructor raised; the destructor then reads an attribute the constructor never set and
   Python reports it as unraisable (`Exception ignored in: <function MnnvlMemory.__del__ at
   0x..>` ... `AttributeError: 'MnnvlMemory' object has no attribute 'ptr'`; Python 3.14 titles
   it `Exception ignored while calling deallocator <function ...>:`). That is a symptom of the
   constructor's failure, printed or not (causality.yaml `unraisable.half_built`; tests/fixtures/
   tuning/startup/ss-flashinfer-mnnvl-open-failed-del-no-attribute-ptr-dp-ep-worker-symptom),
   not a teardown's noise. Near misses stay noise: another class's attribute (`'NoneType'`, a
   module global the interpreter's exit cleared; Ray's `'Worker' object has no attribute
   'core_worker'` in the executor's destructor), another exception, an unraisable exception that
   is no destructor's; and the process working on after it saves it.
2. A reporter's headline that nothing below restates: the error alone on the input's first line
   (no frames, time or process prefix), then a few of the run's records that led to it, and no
   sign the run came up (restatements.py `lone_headline`; tests/fixtures/tuning/launchers/
   u-xinference-vllm-qwen15-14b-gptq-cuda-graph-oom-error-first-three-lines: Xinference's CUDA
   OOM above the two records of the CUDA-graph capture it broke). Those records are the error's
   lead-up, not work the run did after it. Near misses: a run that came up or served after the
   line, lines of a library's noise (several, not one headline), a headline a copy below
   restates (restatements.py `fold_headlines`).
3. `grep -rn` over the system's logs: the files without an extension (`syslog:12:`,
   `/var/log/messages:12:`, a rotated `syslog.1-11-`, zgrep's `syslog.2.gz:12:`) before each line
   (grammars/vllm.lark GREP_FILE). A Python logger's `ERROR:root:` record and the shell's
   `Aborted (core dumped)` behind one were plain text: a failing log called healthy. Near misses:
   NCCL's `host:pid:tid` and a warning's `x.py:63:` are no file's name.
4. A shell's job report behind a head that ends in a colon (`ERROR:root:./run.sh: line 3: 99
   Aborted (core dumped) python x.py`, grep's `vllm.log:12:` before it): the whole-line parse took
   the head into the script's name, the head-then-body reading did not (grammars/vllm.lark
   SHELL_SIGNAL, KILL_REPORT: a script's name has no colon). Both now read the head as the line's.
5. torchrun's `--tee` labels (`[default0]:`, `[trainer1]:`: torch.distributed.elastic's TailLog
   puts `[{role}{local_rank}]:` before each line a rank wrote, glued; vLLM's external_launcher
   runs under it): a traceback's frames, `Fatal Python error: Aborted` and an offline run's
   finished batch behind one were read as text (grammars/vllm.lark TORCHRUN_TAG). Near misses:
   torch's own `[rank0]:` stays a process prefix; `[2]:` and `[Errno 2]:` are no label.
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from logsleuth.model import LineKind, Verdict
from logsleuth.pipeline import explain_text
from logsleuth.tokenize import clean, parse_line, parse_line_whole

# ---- 1. a destructor that finds its object half built ---------------------------------------------

CLASSES = st.sampled_from([("MnnvlMemory", "ptr", "flashinfer/comm/mnnvl.py"),
                           ("LLM", "llm_engine", "vllm/entrypoints/llm.py"),
                           ("CustomAllreduce", "_ptr", "vllm/distributed/device_communicators/"
                                                       "custom_all_reduce.py"),
                           ("PyNcclCommunicator", "comm", "vllm/distributed/device_communicators/"
                                                          "pynccl.py")])
# how the title names the destructor: module-level class, a nested one, one made in a function
QUALIFIERS = st.sampled_from(["", "Outer.", "make_buffer.<locals>."])
TITLES = st.sampled_from(["Exception ignored in: <function {q}{cls}.__del__ at 0x{addr}>",
                          "Exception ignored while calling deallocator <function {q}{cls}.__del__ "
                          "at 0x{addr}>:"])
PREFIXES = st.sampled_from(["", "(Worker_DP1_EP1 pid=94008) ", "(VllmWorker rank=2 pid=4411) ",
                            "(EngineCore_DP0 pid=941609) ", "2026-04-02T10:11:12.123456789Z "])
CARETS = st.booleans()  # Python 3.11+ marks the failing expression under the source line


def _destructor(cls: str, attr: str, path: str, title: str, qualifier: str, prefix: str,
                carets: bool, *, message: str | None = None) -> list[str]:
    lines = [title.format(q=qualifier, cls=cls, addr="fffc1b855e40"),
             "Traceback (most recent call last):",
             f'  File "/usr/lib/python3.12/site-packages/{path}", line 356, in __del__',
             f"    self.close(self.{attr})",
             *(["               " + "^" * (len(attr) + 5)] if carets else []),
             message or f"AttributeError: '{cls}' object has no attribute '{attr}'"]
    return [prefix + line for line in lines]


@settings(max_examples=40, deadline=None, derandomize=True)
@given(CLASSES, TITLES, QUALIFIERS, PREFIXES, CARETS)
def test_a_half_built_object_s_destructor_is_a_symptom(cls_attr_path, title: str, qualifier: str,
                                                         prefix: str, carets: bool) -> None:
    cls, attr, path = cls_attr_path
    report = explain_text("\n".join(_destructor(cls, attr, path, title, qualifier, prefix,
                                                carets)) + "\n")
    assert report.verdict is Verdict.ROOT_CAUSE_MISSING
    assert [s.message for s in report.symptoms] == [f"'{cls}' object has no attribute '{attr}'"]


CONSTRUCTOR = ["Traceback (most recent call last):",
               '  File "/usr/lib/python3.12/site-packages/flashinfer/comm/mnnvl.py", line 290, '
               "in __init__",
               "    self.ptr = self.open_mnnvl_memory(size)",
               "RuntimeError: CUDA driver error: operation not supported"]


@settings(max_examples=20, deadline=None, derandomize=True)
@given(CLASSES, TITLES, PREFIXES)
def test_the_constructor_s_error_before_it_is_the_root(cls_attr_path, title: str,
                                                       prefix: str) -> None:
    cls, attr, path = cls_attr_path
    lines = [prefix + line for line in CONSTRUCTOR] + _destructor(cls, attr, path, title, "",
                                                                  prefix, False)
    report = explain_text("\n".join(lines) + "\n")
    assert report.verdict is Verdict.FAILURE
    assert report.root_cause is not None and report.root_cause.exception == "RuntimeError"


@settings(max_examples=30, deadline=None, derandomize=True)
@given(CLASSES, TITLES, PREFIXES, st.sampled_from([
    # the interpreter's exit cleared a module global the destructor reads
    "AttributeError: 'NoneType' object has no attribute 'close'",
    # another object's attribute (Ray's worker torn down first: tests/test_unraisable.py)
    "AttributeError: 'Worker' object has no attribute 'core_worker'",
    "ImportError: sys.meta_path is None, Python is likely shutting down",
    "TypeError: 'NoneType' object is not callable",
]))
def test_other_destructor_errors_stay_noise(cls_attr_path, title: str, prefix: str,
                                            message: str) -> None:
    cls, attr, path = cls_attr_path
    lines = _destructor(cls, attr, path, title, "", prefix, False, message=message)
    assert explain_text("\n".join(lines) + "\n").verdict is Verdict.NO_FAILURE


def test_an_unraisable_exception_of_no_destructor_stays_noise() -> None:
    lines = ["Exception ignored in: <function _after_fork at 0x7f3d1a2b9ea0>",
             "AttributeError: '_after_fork' object has no attribute 'lock'",
             "Exception ignored in: <MnnvlMemory object at 0x7f3d1a2b9ea0>",
             "AttributeError: 'MnnvlMemory' object has no attribute 'ptr'"]
    assert explain_text("\n".join(lines) + "\n").verdict is Verdict.NO_FAILURE


SERVING = ["INFO 05-01 10:00:10 [api_server.py:1] Starting vLLM API server on http://0.0.0.0:8000",
           "INFO:     Application startup complete.",
           'INFO:     127.0.0.1:5000 - "POST /v1/chat/completions HTTP/1.1" 200 OK',
           "INFO 05-01 10:00:20 [loggers.py:100] Engine 000: Avg prompt throughput: 120.4 "
           "tokens/s, Avg generation throughput: 300.2 tokens/s, Running: 2 reqs, Waiting: 0 reqs"]


@settings(max_examples=20, deadline=None, derandomize=True)
@given(CLASSES, TITLES)
def test_a_half_built_object_the_process_went_on_from_is_survived(cls_attr_path,
                                                                   title: str) -> None:
    # a fallback caught the constructor's error: the server came up and served after it
    cls, attr, path = cls_attr_path
    lines = [*_destructor(cls, attr, path, title, "", "", False), *SERVING]
    assert explain_text("\n".join(lines) + "\n").verdict is Verdict.NO_FAILURE


# ---- 2. a reporter's headline above the records that led to it --------------------------------------

HEADLINES = st.sampled_from([
    "torch.cuda.OutOfMemoryError: [address=0.0.0.0:43411, pid=101] CUDA out of memory. Tried to "
    "allocate 70.00 MiB. GPU",
    "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.02 GiB. GPU 0 has a total "
    "capacity of 23.65 GiB of which 512.00 MiB is free.",
    "ValueError: [address=0.0.0.0:35197, pid=418773] The model's max seq len (32768) is larger "
    "than the maximum number of tokens that can be stored in KV cache (21744).",
    "RuntimeError: CUDA error: an illegal memory access was encountered",
])
# the run's records that led to the error, in the eras' shapes and a launcher's re-timestamping
V0_LEADUPS = [
    ["INFO 07-11 13:46:49 model_runner.py:854] Capturing the model for CUDA graphs. This may lead "
     "to unexpected consequences if the model is not static.",
     "INFO 07-11 13:46:49 model_runner.py:858] CUDA graphs can take additional 1~3 GiB memory "
     "per GPU."],
    ["INFO 07-11 13:46:20 model_runner.py:160] Loading model weights took 9.2848 GB",
     "INFO 07-11 13:46:31 gpu_executor.py:83] # GPU blocks: 1318, # CPU blocks: 2048"]]
LEADUPS = st.sampled_from([
    *V0_LEADUPS,
    ["(EngineCore_DP0 pid=71) INFO 05-01 10:00:00 [gpu_model_runner.py:2000] Model loading took "
     "14.99 GiB and 6.1 seconds",
     "(EngineCore_DP0 pid=71) INFO 05-01 10:00:09 [gpu_worker.py:276] Available KV cache memory: "
     "3.21 GiB"],
])
LAUNCHER_TIMES = st.sampled_from(["", "2024-07-11 21:46:49 ", "2024-07-11 21:46:49,123 xinference."
                                  "model.llm.vllm.core 101 INFO     "])


@settings(max_examples=40, deadline=None, derandomize=True)
@given(HEADLINES, LEADUPS, LAUNCHER_TIMES)
def test_a_headline_above_its_lead_up_is_the_failure(headline: str, leadup: list[str],
                                                      stamp: str) -> None:
    lines = [headline, *(stamp + line for line in leadup)]
    report = explain_text("\n".join(lines) + "\n")
    assert report.verdict is Verdict.FAILURE
    assert report.root_cause is not None and report.root_cause.line == 1


UP = ["INFO 07-11 13:47:10 model_runner.py:954] Graph capturing finished in 21 secs.",
      "INFO:     Started server process [1]", "INFO:     Application startup complete.",
      'INFO:     127.0.0.1:5000 - "POST /v1/chat/completions HTTP/1.1" 200 OK']


@settings(max_examples=20, deadline=None, derandomize=True)
@given(HEADLINES, LEADUPS)
def test_a_line_above_a_run_that_came_up_is_survived(headline: str, leadup: list[str]) -> None:
    # a launcher's check printed it before vLLM started; the run then came up and served
    lines = [headline, *leadup, *UP]
    assert explain_text("\n".join(lines) + "\n").verdict is Verdict.NO_FAILURE


@settings(max_examples=20, deadline=None, derandomize=True)
@given(st.sampled_from(V0_LEADUPS), st.integers(2, 5))
def test_lines_of_a_library_s_noise_are_no_headline(leadup: list[str], copies: int) -> None:
    # protobuf's import-time noise, once per module that imports it, in the process whose
    # records follow (an engine core's records would not save the main process's error anyway)
    noise = ["AttributeError: 'MessageFactory' object has no attribute 'GetPrototype'"] * copies
    report = explain_text("\n".join([*noise, *leadup]) + "\n")
    assert report.verdict is Verdict.NO_FAILURE


@settings(max_examples=20, deadline=None, derandomize=True)
@given(HEADLINES, LEADUPS)
def test_a_headline_not_on_the_first_line_is_no_headline(headline: str, leadup: list[str]) -> None:
    # a record above it: the line is the run's own, printed between its records
    lines = [leadup[0], headline, *leadup[1:], *UP]
    assert explain_text("\n".join(lines) + "\n").verdict is Verdict.NO_FAILURE


def test_a_headline_a_copy_below_restates_leaves_the_copy_the_root() -> None:
    message = "ValueError: Bfloat16 is only supported on GPUs with compute capability of at least 8.0."
    lines = [message,
             "INFO 07-11 13:46:20 llm_engine.py:100] Initializing an LLM engine (v0.5.3) with "
             "config: model='m'",
             "Traceback (most recent call last):",
             '  File "/opt/vllm/vllm/worker/worker.py", line 400, in _check_if_gpu_supports_dtype',
             "    raise ValueError(",
             message]
    report = explain_text("\n".join(lines) + "\n")
    assert report.verdict is Verdict.FAILURE
    assert report.root_cause is not None and report.root_cause.line == 6


# ---- 3. grep -rn over the system's logs ---------------------------------------------------------

GREP_FILES = st.sampled_from(["syslog:{n}:", "/var/log/syslog:{n}:", "messages:{n}:",
                              "/var/log/messages:{n}:", "syslog.1:{n}:", "/var/log/syslog.2.gz:{n}:",
                              "syslog-{n}-", "kern:{n}:", "daemon:{n}: "])
DEATHS = st.sampled_from([
    ["ERROR:root:Engine core failed to start: see the log above", "Aborted (core dumped)"],
    ["ERROR:root:Engine core failed to start: see the log above"],
    ["2025-01-01 10:00:00,123 - root - ERROR - Worker 3 failed", "Aborted (core dumped)"],
    ["Segmentation fault (core dumped)"],
])


@settings(max_examples=40, deadline=None, derandomize=True)
@given(GREP_FILES, DEATHS, st.integers(1, 99_999))
def test_an_error_behind_a_system_log_s_name_is_the_failure(grep: str, death: list[str],
                                                            first: int) -> None:
    lines = [grep.format(n=first + i) + line for i, line in enumerate(death)]
    report = explain_text("\n".join(lines) + "\n")
    assert report.verdict is Verdict.FAILURE


@settings(max_examples=20, deadline=None, derandomize=True)
@given(GREP_FILES)
def test_a_healthy_run_behind_a_system_log_s_name_stays_healthy(grep: str) -> None:
    lines = [grep.format(n=20 + i) + line for i, line in enumerate(SERVING)]
    assert explain_text("\n".join(lines) + "\n").verdict is Verdict.NO_FAILURE


def test_names_that_are_no_log_file_are_not_taken() -> None:
    nccl = parse_line(clean("node-3:1234:1234 [0] NCCL INFO Bootstrap : Using eth0"))
    assert nccl.kind is LineKind.NCCL and nccl.outer is None
    warning = parse_line(clean("/usr/lib/python3/site-packages/x.py:63: UserWarning: old"))
    assert warning.outer is None
    for word in ("syslogd:12:boom", "mysyslog:12:boom", "messagesX:12:boom"):
        assert parse_line(clean(word)).outer in (None, "12:"), word


# ---- 4. a shell's job report behind a head that ends in a colon -----------------------------------

COLON_HEADS = st.sampled_from(["ERROR:root:", "WARNING:root:", "ERROR:__main__:", "vllm.log:12:",
                               "syslog:12:", "12:", "0: ", "vllm-1  | ERROR:root:",
                               "(VllmWorker rank=0 pid=1) ERROR:root:"])
JOB_REPORTS = st.sampled_from([
    "./run.sh: line 12: 4242 Aborted                 (core dumped) vllm serve m",
    "run.sh: line 3: 99 Aborted (core dumped) python x.py",
    "bash: line 1: 77 Segmentation fault      (core dumped) python -m vllm.entrypoints.api_server",
    "/bin/sh: line 1: 4242 Killed python x.py",
    "/opt/serve/start.sh: line 40:   812 Bus error               (core dumped) vllm serve m",
])


@settings(max_examples=40, deadline=None, derandomize=True)
@given(COLON_HEADS, JOB_REPORTS)
def test_a_job_report_behind_a_colon_head_reads_alike_both_ways(head: str, report: str) -> None:
    text = clean(head + report)
    line = parse_line(text)
    assert line == parse_line_whole(text)
    assert line.kind is LineKind.FATAL and line.text == report


@settings(max_examples=20, deadline=None, derandomize=True)
@given(COLON_HEADS.filter(lambda head: "WARNING" not in head), JOB_REPORTS)
def test_a_job_report_behind_a_colon_head_is_the_failure(head: str, report: str) -> None:
    # (behind a warning's head it is that warning's text, which its level keeps an error from)
    assert explain_text(head + report + "\n").verdict is Verdict.FAILURE


# ---- 5. torchrun's --tee labels -----------------------------------------------------------------

TEE_LABELS = st.sampled_from(["[default{n}]:", "[trainer{n}]:", "[my-role{n}]:"])
TEE_RUNS = st.sampled_from([
    (["Traceback (most recent call last):",
      '  File "/opt/vllm/vllm/entrypoints/llm.py", line 10, in __init__',
      "    self.llm_engine = LLMEngine.from_engine_args(args)",
      "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB."], 4, 1),
    (["INFO 05-01 10:00:00 [llm_engine.py:1] Initializing a V1 LLM engine (v0.9.2) with config: "
      "model='m'", "Fatal Python error: Aborted", "",
      "Thread 0x00007f (most recent call first):",
      '  File "/opt/vllm/vllm/worker.py", line 3 in run'], 2, None),
    (["[rank0]: Traceback (most recent call last):",
      '[rank0]:   File "/opt/vllm/vllm/distributed/parallel_state.py", line 9, in init',
      "[rank0]:     torch.distributed.barrier()",
      "[rank0]: torch.distributed.DistBackendError: NCCL error in: ProcessGroupNCCL.cpp:1970, "
      "unhandled cuda error"], 4, 1),
])


@settings(max_examples=30, deadline=None, derandomize=True)
@given(TEE_LABELS, TEE_RUNS, st.integers(0, 15))
def test_a_failure_behind_torchrun_s_tee_labels_is_the_failure(label: str, run, rank: int) -> None:
    lines, root_line, frames = run
    text = "\n".join(label.format(n=rank) + line for line in lines) + "\n"
    report = explain_text(text)
    assert report.verdict is Verdict.FAILURE
    assert report.root_cause is not None and report.root_cause.line == root_line
    if frames is not None:
        assert len(report.root_cause.frames) == frames


@settings(max_examples=20, deadline=None, derandomize=True)
@given(TEE_LABELS, st.integers(0, 15))
def test_a_finished_batch_behind_torchrun_s_tee_labels_is_healthy(label: str, rank: int) -> None:
    lines = ["INFO 05-01 10:00:00 [llm_engine.py:1] Initializing a V1 LLM engine (v0.9.2) with "
             "config: model='m'",
             "Processed prompts: 100%|##########| 100/100 [00:12<00:00, 8.01it/s, est. speed "
             "input: 100 toks/s, output: 200 toks/s]"]
    text = "\n".join(label.format(n=rank) + line for line in lines) + "\n"
    assert explain_text(text).verdict is Verdict.NO_FAILURE


def test_what_is_no_tee_label_stays_as_it_was() -> None:
    assert parse_line(clean("[rank0]: ValueError: x")).outer is None  # torch's process prefix
    for text in ("[2]: x", "[Errno 2]: No such file or directory"):
        assert parse_line(clean(text)).outer is None, text
    framed = parse_line(clean('[default0]:  File "/x/y.py", line 3, in f'))
    assert framed.kind is LineKind.FRAME and framed.outer == "[default0]:"
