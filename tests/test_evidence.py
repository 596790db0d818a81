"""Error evidence in every form (issue 10): each shape a failing log may hold gives the right
verdict and root cause, whatever wraps it; and the anchor prefilter keeps every line the grammar
calls an error, over generated lines of every shape the grammar knows.

Lines are real shapes: vLLM's and Ray's loggers (shared/research/vllm-log-format.md sections 1,
2, 5), torch's glog, NCCL, the compilers and linkers of a JIT build, the kernel's OOM killer,
Kubernetes, systemd, a shell.
"""

from __future__ import annotations

from dataclasses import dataclass

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from logsleuth.model import Level, LineKind, Verdict
from logsleuth.pipeline import explain_text
from logsleuth.signatures import default_signatures
from logsleuth.tokenize import anchor_patterns, clean, parse_line

V0_START = ["INFO 10-17 12:40:01 api_server.py:212] vLLM API server version 0.4.2",
            "INFO 10-17 12:40:02 llm_engine.py:98] Initializing an LLM engine (v0.4.2) with "
            "config: model='meta-llama/Llama-2-7b-hf', tensor_parallel_size=1"]
V1_START = ["(APIServer pid=2800) INFO 08-01 20:59:09 [utils.py:254] non-default args: "
            "{'model_tag': 'Qwen/Qwen3-8B'}",
            "(EngineCore_DP0 pid=2900) INFO 08-01 20:59:16 [core.py:77] Initializing a V1 LLM "
            "engine (v0.11.0) with config: model='Qwen/Qwen3-8B'"]


@dataclass(frozen=True)
class Shape:
    name: str
    lines: tuple[str, ...]
    exception: str  # the root cause's type or label
    root: str  # a piece of the root cause's line


SHAPES = [
    Shape("repr-in-error-record", (*V0_START,
          "ERROR 10-17 12:43:16 engine.py:160] RuntimeError('CUDA error: an illegal memory "
          "access was encountered')"), "RuntimeError", "RuntimeError('CUDA"),
    Shape("record-cut-before-its-call-site", (
          "[multiproc_executor.py:492] ValueError: The model's max seq len (32768) is larger "
          "than the maximum number of tokens that can be stored in KV cache (10720).",),
          "ValueError", "max seq len"),
    Shape("record-cut-inside-its-time", (*V1_START,
          "8:42 [multiproc_executor.py:492] ValueError: The model's max seq len (32768) is "
          "larger than the maximum number of tokens that can be stored in KV cache (10720).",),
          "ValueError", "max seq len"),
    Shape("dateless-glog-behind-ray", (
          "(RayWorkerVllm pid=31) INFO 03-11 09:12:01 worker.py:100] Loading model weights",
          "(RayWorkerVllm pid=31) [E ProcessGroupNCCL.cpp:474] [Rank 1] Watchdog caught "
          "collective operation timeout: WorkNCCL(SeqNum=81, OpType=ALLREDUCE, NumelIn=4096, "
          "NumelOut=4096, Timeout(ms)=600000) ran for 600571 milliseconds before timing out."),
          "ERROR", "Watchdog caught"),
    Shape("compiler-error-of-a-triton-jit-build", (
          *V1_START,
          "(EngineCore_DP0 pid=2900) /tmp/tmpq1x2/main.c:5:10: fatal error: Python.h: No such "
          "file or directory",
          "(EngineCore_DP0 pid=2900)     5 | #include <Python.h>",
          "(EngineCore_DP0 pid=2900) compilation terminated.",
          "(EngineCore_DP0 pid=2900) Traceback (most recent call last):",
          '(EngineCore_DP0 pid=2900)   File "/usr/lib/python3.12/subprocess.py", line 413, in '
          "check_call",
          "(EngineCore_DP0 pid=2900)     raise CalledProcessError(retcode, cmd)",
          "(EngineCore_DP0 pid=2900) subprocess.CalledProcessError: Command '['/usr/bin/gcc', "
          "'/tmp/tmpq1x2/main.c', '-O3', '-shared', '-fPIC']' returned non-zero exit status 1."),
          "compiler error", "fatal error: Python.h"),
    # the compiler's own crash (vllm-ascend's release notes: triton-ascend's g++ segfault)
    Shape("internal-compiler-error-of-a-triton-jit-build", (
          *V1_START,
          "/root/.triton/cache/Zq3k/launcher.cxx:41:1: internal compiler error: Segmentation fault",
          "Please submit a full bug report, with preprocessed source (by using -freport-bug).",
          "(EngineCore_DP0 pid=2900) Traceback (most recent call last):",
          '(EngineCore_DP0 pid=2900)   File "/usr/lib/python3.11/subprocess.py", line 413, in '
          "check_call",
          "(EngineCore_DP0 pid=2900)     raise CalledProcessError(retcode, cmd)",
          "(EngineCore_DP0 pid=2900) subprocess.CalledProcessError: Command '['g++', "
          "'/root/.triton/cache/Zq3k/launcher.cxx', '-shared', '-fPIC']' returned non-zero exit "
          "status 1."),
          "compiler error", "internal compiler error: Segmentation fault"),
    Shape("internal-compiler-error-without-a-file", (
          "g++: internal compiler error: Killed (program cc1plus)",
          "Please submit a full bug report, with preprocessed source if appropriate.",
          "Traceback (most recent call last):",
          '  File "/usr/lib/python3.11/subprocess.py", line 413, in check_call',
          "    raise CalledProcessError(retcode, cmd)",
          "subprocess.CalledProcessError: Command '['g++', 'main.cpp', '-shared']' returned "
          "non-zero exit status 1."),
          "compiler error", "internal compiler error: Killed"),
    Shape("linker-error", (
          "/usr/bin/ld: cannot find -lcuda: No such file or directory",
          "collect2: error: ld returned 1 exit status"), "linker error", "cannot find -lcuda"),
    Shape("raylet-oom-kill", (
          "INFO 05-02 11:00:01 ray_utils.py:200] Connecting to existing Ray cluster",
          "(raylet) [2024-05-02 11:03:19,106 E 6120 6120] node_manager.cc:3007: 2 Workers "
          "(tasks / actors) killed due to memory pressure (OOM), 0 Workers crashed due to other "
          "reasons at node (ID: 2d1f, IP: 10.0.0.3) over the last time period."),
          "Killed", "killed due to memory pressure"),  # a kill report (grammar KILL_REPORT)
    Shape("cpu-build-on-a-cpu-without-its-instructions", (
          *V1_START,
          "(EngineCore_DP0 pid=2900) INFO 08-01 20:59:17 [cpu_worker.py:98] OMP threads binding of "
          "Process 2900: OMP tid: 2900, core 0",
          "Illegal instruction (core dumped)"), "Illegal instruction", "Illegal instruction"),
    Shape("integer-division-by-zero-in-native-code", (
          *V1_START, "Floating point exception (core dumped)"),
          "Floating point exception", "Floating point exception"),
    Shape("kubernetes-oomkilled", (
          "    State:          Waiting", "      Reason:       CrashLoopBackOff",
          "    Last State:     Terminated", "      Reason:       OOMKilled",
          "      Exit Code:    137"), "Killed", "OOMKilled"),
    Shape("cpp-terminate-and-what", (
          *V1_START,
          "terminate called after throwing an instance of 'c10::Error'",
          "  what():  CUDA error: an illegal memory access was encountered"),
          "terminate", "terminate called"),
    Shape("what-without-its-terminate-line", (
          "what():  CUDA error: an illegal memory access was encountered",),
          "terminate", "what():"),
    Shape("argparse-invalid-choice", (
          "usage: vllm serve [-h] [--dtype {auto,half,float16,bfloat16,float,float32}] model_tag",
          "vllm serve: error: argument --dtype: invalid choice: 'fp9' (choose from 'auto', "
          "'half', 'float16', 'bfloat16', 'float', 'float32')"), "usage error", "invalid choice"),
    Shape("python-default-logging", (
          "2025-01-01 10:00:00,000 - INFO - Launching vLLM with 4 GPUs",
          "2025-01-01 10:00:01,000 - ERROR - vLLM exited with status 1 while loading "
          "/models/llama"), "ERROR", "vLLM exited"),
    Shape("python-logging-with-logger-name", (
          "2025-01-01 10:00:01,000 - flashinfer.jit - ERROR - autotuner.py:256 - Failed to "
          "compile the fused MoE kernel",), "ERROR", "fused MoE"),
    # (a record whose text states a cause: `ERROR:root:Engine process exited with code 1` only
    # reports a failure elsewhere, an exit line, and is a symptom: tests/test_level_records.py)
    Shape("basicconfig-logging", ("ERROR:root:Could not load the model weights from "
                                  "/models/llama-3-8b: no such directory",),
          "ERROR", "Could not load the model weights"),
    Shape("ray-python-logger", (
          "2024-05-08 14:22:55,484\tINFO worker.py:1740 -- Connected to Ray cluster.",
          "2024-05-08 14:30:02,101\tERROR worker.py:405 -- The node with node id 2d1f has been "
          "marked dead because the detector has missed too many heartbeats."),
          "ERROR", "marked dead"),
    Shape("cri-traceback", (
          "2024-05-01T10:00:00.123456789Z stdout F INFO 05-01 10:00:00 [utils.py:254] "
          "non-default args: {'model_tag': 'x'}",
          "2024-05-01T10:00:01.123456789Z stderr F Traceback (most recent call last):",
          '2024-05-01T10:00:01.123456789Z stderr F   File "/usr/local/lib/python3.12/dist-'
          'packages/vllm/config.py", line 1012, in verify',
          "2024-05-01T10:00:01.123456789Z stderr F     raise ValueError(",
          "2024-05-01T10:00:01.123456789Z stderr F ValueError: Total number of attention heads "
          "(32) must be divisible by tensor parallel size (3)."), "ValueError", "attention heads"),
    Shape("dotted-name-without-suffix", (
          "Traceback (most recent call last):",
          '  File "/usr/local/lib/python3.12/dist-packages/triton/runtime/jit.py", line 662, in '
          "run",
          "    kernel = self.compile(",
          "triton.runtime.errors.OutOfResources: out of resource: shared memory, Required: "
          "98304, Hardware limit: 65536. Reducing block sizes or `num_stages` may help."),
          "triton.runtime.errors.OutOfResources", "OutOfResources"),
    Shape("suffix-followed-by-more", (
          "Traceback (most recent call last):",
          '  File "/usr/local/lib/python3.12/dist-packages/pynvml.py", line 2248, in '
          "_LoadNvmlLibrary",
          "    _nvmlCheckReturn(NVML_ERROR_LIBRARY_NOT_FOUND)",
          "pynvml.NVMLError_LibraryNotFound: NVML Shared Library Not Found"),
          "pynvml.NVMLError_LibraryNotFound", "NVML Shared Library"),
    Shape("dynamo-backend-compiler-failed", (
          *V1_START,
          "(EngineCore_DP0 pid=2900) ERROR 08-01 21:00:00 [core.py:718] EngineCore failed to "
          "start.",
          "(EngineCore_DP0 pid=2900) ERROR 08-01 21:00:00 [core.py:718] Traceback (most recent "
          "call last):",
          '(EngineCore_DP0 pid=2900) ERROR 08-01 21:00:00 [core.py:718]   File "/usr/local/lib/'
          'python3.12/dist-packages/torch/_dynamo/output_graph.py", line 1446, in '
          "_call_user_compiler",
          "(EngineCore_DP0 pid=2900) ERROR 08-01 21:00:00 [core.py:718]     raise "
          "BackendCompilerFailed(self.compiler_fn, e) from e",
          "(EngineCore_DP0 pid=2900) ERROR 08-01 21:00:00 [core.py:718] torch._dynamo.exc."
          "BackendCompilerFailed: backend='<vllm.compilation.backends.VllmBackend object at "
          "0x7f>' raised:",
          "(EngineCore_DP0 pid=2900) ERROR 08-01 21:00:00 [core.py:718] RuntimeError: ptxas "
          "fatal   : Value 'sm_121a' is not defined for option 'gpu-name'"),
          "torch._dynamo.exc.BackendCompilerFailed", "exc.BackendCompilerFailed:"),
    Shape("nccl-warn", (
          "node-12:3791:3791 [1] misc/shmutils.cc:72 NCCL WARN Error: failed to extend "
          "/dev/shm/nccl-JYcYTs to 9637892 bytes",), "NCCL WARN", "failed to extend"),
    Shape("nccl-error", ("a1b2:4527:4600 [0] NCCL ERROR unhandled cuda error (run with "
                         "NCCL_DEBUG=INFO for details)",), "NCCL ERROR", "unhandled cuda"),
    Shape("cuda-error-from-cpp", (*V1_START, "CUDA error: an illegal memory access was "
                                  "encountered"), "CUDA error", "illegal memory access"),
    Shape("kernel-oom-killer", (
          "[183422.123456] Out of memory: Killed process 42117 (python3) total-vm:94371840kB, "
          "anon-rss:81264512kB, file-rss:0kB, shmem-rss:0kB, UID:0 pgtables:160712kB "
          "oom_score_adj:0",), "Killed", "Killed process"),
    Shape("shell-killed", (*V0_START, "Killed"), "Killed", "Killed"),
    Shape("shell-killed-with-job", (
          *V0_START, "/entrypoint.sh: line 5:    42 Killed                  python3 -m "
          "vllm.entrypoints.openai.api_server --model x"), "Killed", "42 Killed"),
    Shape("exit-137", (*V1_START, "command terminated with exit code 137"), "Killed",
          "exit code 137"),
    Shape("compose-exit-137", ("vllm-1  | INFO 08-01 20:59:09 [utils.py:254] non-default args: "
                               "{'model_tag': 'x'}", "vllm-1 exited with code 137"),
          "Killed", "exited with code 137"),
    # an IDE's or a launcher's report of the child it ran, SIGKILLed (128 + 9)
    Shape("ide-exit-137", (*V1_START, "Process finished with exit code 137 (interrupted by signal "
                                      "9:SIGKILL)"), "Killed", "exit code 137"),
    Shape("child-exit-137", (*V0_START, "Worker process exited with code 137"), "Killed",
          "exited with code 137"),
    Shape("systemd-sigkill", (
          "Aug 17 18:42:18 gpu1 vllm[8052]: INFO 08-17 18:42:18 [utils.py:254] non-default "
          "args: {'model_tag': 'x'}",
          "Aug 17 18:49:02 gpu1 systemd[1]: vllm.service: Main process exited, code=killed, "
          "status=9/KILL"), "Killed", "status=9/KILL"),
    Shape("error-record-without-exception", (
          *V1_START,
          "(EngineCore_DP0 pid=2900) ERROR 08-01 21:00:00 [gpu_worker.py:301] CUDA driver "
          "initialisation failed on device 3"), "ERROR", "CUDA driver initialisation"),
    Shape("critical-python-logging", ("2025-01-01 10:00:01,000 - vllm - CRITICAL - engine died",),
          "CRITICAL", "engine died"),
    # ---- accelerators other than CUDA ----
    Shape("rocm-memory-access-fault", (
          *V1_START,
          "Memory access fault by GPU node-2 (Agent handle: 0x55d0c0a1b2c0) on address "
          "0x7f1e2c000000. Reason: Page not present or supervisor privilege.",
          "Aborted (core dumped)"), "Memory access fault by GPU", "Memory access fault"),
    Shape("rocm-fault-in-an-unprefixed-worker-then-its-symptoms", (
          *V1_START,
          "(Worker_TP2 pid=3100) INFO 08-01 21:00:00 [gpu_model_runner.py:2370] Loading model "
          "from scratch...",
          "Memory access fault by GPU node-5 (Agent handle: 0x460e3a50) on address 0x7ec4dfe0e000. "
          "Reason: Write access to a read-only page.",
          "HW Exception by GPU node-1 (Agent handle: 0x5b522e50) reason :GPU Hang",
          "(EngineCore_DP0 pid=2900) ERROR 08-01 21:00:05 [multiproc_executor.py:150] Worker proc "
          "Worker_TP2 died unexpectedly, shutting down executor.",
          "(APIServer pid=2800) ERROR 08-01 21:00:05 [async_llm.py:480] vllm.v1.engine.exceptions."
          "EngineDeadError: EngineCore encountered an issue. See stack trace (above) for the root "
          "cause."), "Memory access fault by GPU", "Write access to a read-only page"),
    Shape("hip-error-from-cpp", (*V1_START, "HIP error: invalid device function"), "HIP error",
          "invalid device function"),
    Shape("hip-no-binary-for-gpu", (
          *V0_START, "hipErrorNoBinaryForGpu: Unable to find code object for all current "
          "devices!", "Aborted (core dumped)"), "hipErrorNoBinaryForGpu", "Unable to find code"),
    Shape("glog-fatal-check-failed", (
          "INFO 01-02 03:04:00 [utils.py:254] non-default args: {'model_tag': 'x', 'device': 'tpu'}",
          "F0102 03:04:05.123456    1234 tpu_compile.cc:123] Check failed: shape.rank() == 2 "
          "(3 vs. 2)", "*** Check failure stack trace: ***"), "CRITICAL", "Check failed"),
    Shape("xla-resource-exhausted", (
          "Traceback (most recent call last):",
          '  File "/usr/local/lib/python3.11/site-packages/vllm/worker/tpu_model_runner.py", line '
          "240, in _dummy_run",
          "    self.model(token_ids, position_ids)",
          "jaxlib.xla_extension.XlaRuntimeError: RESOURCE_EXHAUSTED: Error allocating device "
          "buffer: Attempting to allocate 2.00G. That was not possible."),
          "jaxlib.xla_extension.XlaRuntimeError", "RESOURCE_EXHAUSTED"),
    Shape("glog-with-thread-id-and-no-year", (
          *V1_START,
          "[E329 12:00:00.123456 1234 socket.cpp:456] [c10d] The client socket has failed to "
          "connect to [node-0]:29500 (errno: 110 - Connection timed out)."),
          "ERROR", "client socket has failed"),
    # ---- builds: the earliest compiler or CMake error, not pip's or ninja's report of it ----
    Shape("pip-build-with-compiler-error", (
          "Building wheels for collected packages: vllm",
          "  error: subprocess-exited-with-error",
          "  × Building wheel for vllm (pyproject.toml) did not run successfully.",
          "  │ exit code: 1",
          "  ╰─> [300 lines of output]",
          "      FAILED: CMakeFiles/_C.dir/csrc/cpu/activation.cpp.o",
          "      /usr/bin/c++ -DTORCH_EXTENSION_NAME=_C -O3 -c csrc/cpu/activation.cpp",
          "      csrc/cpu/cpu_types_x86.hpp:12:10: fatal error: immintrin.h: No such file or "
          "directory",
          "         12 | #include <immintrin.h>",
          "      compilation terminated.",
          "      ninja: build stopped: subcommand failed.",
          "      error: command '/usr/bin/cmake' failed with exit code 1",
          "      [end of output]",
          "  ERROR: Failed building wheel for vllm",
          "ERROR: Could not build wheels for vllm, which is required to install "
          "pyproject.toml-based projects"), "compiler error", "fatal error: immintrin.h"),
    Shape("nvcc-error-in-a-build", (
          "[12/40] Building CUDA object CMakeFiles/_C.dir/csrc/attention/attention_kernels.cu.o",
          "FAILED: CMakeFiles/_C.dir/csrc/attention/attention_kernels.cu.o",
          "/tmp/vllm/csrc/attention/dtype_float16.cuh(65): error: identifier \"__hfma2\" is "
          "undefined",
          "1 error detected in the compilation of \"csrc/attention/attention_kernels.cu\".",
          "ninja: build stopped: subcommand failed."), "compiler error", "__hfma2"),
    Shape("cmake-configure-error", (
          "-- The CUDA compiler identification is NVIDIA 11.8.89",
          "CMake Error at CMakeLists.txt:45 (message):",
          "  Unsupported CUDA version 11.8.  Please use CUDA 12.1 or newer.",
          "-- Configuring incomplete, errors occurred!",
          "error: subprocess-exited-with-error"), "build error", "CMake Error"),
    Shape("make-error-after-compiler-error", (
          "gcc -O2 -c kernel.c -o kernel.o",
          "kernel.c:3:5: error: unknown type name 'bf16'",
          "make: *** [Makefile:12: kernel.o] Error 1"), "compiler error", "unknown type name"),
    # ---- CI runners, loggers and servers around vLLM ----
    Shape("github-actions-annotation-after-the-error", (
          "2025-01-02T03:04:05.1234567Z INFO 01-02 03:04:05 [utils.py:254] non-default args: "
          "{'model_tag': 'x'}",
          "2025-01-02T03:04:06.1234567Z ValueError: max_model_len (65536) is greater than the "
          "derived max_model_len (32768).",
          "2025-01-02T03:04:07.1234567Z ##[error]Process completed with exit code 1."),
          "ValueError", "max_model_len"),
    Shape("loguru-error-record", (
          "2024-01-02 03:04:05.123 | INFO     | app.server:startup:40 - starting vLLM",
          "2024-01-02 03:04:09.456 | ERROR    | app.server:generate:88 - generation failed for "
          "request 12: engine unavailable"), "ERROR", "generation failed"),
    Shape("fastchat-relayed-stderr", (
          "2024-01-02 03:04:05 | INFO | model_worker | Loading the model ['llama'] on worker 1a2b",
          "2024-01-02 03:04:09 | ERROR | stderr | Traceback (most recent call last):",
          '2024-01-02 03:04:09 | ERROR | stderr |   File "/usr/lib/python3/dist-packages/vllm/'
          'worker/worker.py", line 123, in determine_num_available_blocks',
          "2024-01-02 03:04:09 | ERROR | stderr |     self.model_runner.profile_run()",
          "2024-01-02 03:04:09 | ERROR | stderr | torch.OutOfMemoryError: CUDA out of memory. "
          "Tried to allocate 2.00 GiB."), "torch.OutOfMemoryError", "CUDA out of memory"),
    Shape("request-failed-body", (
          '{"error":{"message":"CUDA error: an illegal memory access was encountered","type":'
          '"InternalServerError","param":null,"code":500}}',), "InternalServerError",
          "illegal memory access"),
    Shape("lower-case-dotted-exception-class", (
          "WARNING 03-27 08:29:21 tokenizer.py:64] Using a slow tokenizer.",
          "Traceback (most recent call last):",
          '  File "/usr/local/lib/python3.8/dist-packages/vllm/utils.py", line 176, in get_ip',
          '    s.connect(("dns.google", 80))',
          "socket.gaierror: [Errno -3] Temporary failure in name resolution"),
          "socket.gaierror", "Temporary failure"),
    Shape("exception-whose-message-is-a-traceback", (
          "(ServeController pid=7620) ERROR 2025-06-09 16:23:50,123 controller 7620 -- "
          "Exception in Replica(id='q1w2', deployment='VLLMDeployment', app='default'), the "
          "replica will be stopped.",
          "(ServeController pid=7620) Traceback (most recent call last):",
          '(ServeController pid=7620)   File "/ray/serve/_private/replica.py", line 713, in '
          "initialize",
          "(ServeController pid=7620)     raise RuntimeError(traceback.format_exc()) from None",
          "(ServeController pid=7620) RuntimeError: Traceback (most recent call last):",
          '(ServeController pid=7620)   File "/vllm/worker/worker.py", line 233, in '
          "determine_num_available_blocks",
          "(ServeController pid=7620) ValueError: No available memory for the cache blocks. "
          "Try increasing `gpu_memory_utilization` when initializing the engine."),
          "ValueError", "No available memory"),
    Shape("ray-serve-controller-record", (
          "INFO 2024-11-18 01:46:34,210 default_VLLMDeployment ujj4diu5 replica.py:893 - Started "
          "initializing replica.",
          "(ServeController pid=2922) ERROR 2025-04-02 17:25:34,553 controller 2922 -- Exception "
          "in Replica(id='m37qpvvp', deployment='vLLM:qwen-1_5b', app='default'), the replica "
          "will be stopped."), "ERROR", "Exception in Replica"),
    Shape("kserve-model-server-record", (
          "2024-08-08 14:28:29.602 uvicorn.access INFO:     10.21.192.22:0 1 - \"GET /v1/models "
          "HTTP/1.1\" 200 OK",
          "2024-06-13 12:52:58.123 1 kserve ERROR [__main__.py:<module>():254] Failed to start "
          "model server: the model's max seq len is larger than the KV cache can hold"),
          "ERROR", "Failed to start model server"),
    Shape("docker-daemon-refuses-the-gpu", (
          "$ docker run --gpus all vllm/vllm-openai:v0.10.0 --model Qwen/Qwen3-8B",
          'docker: Error response from daemon: could not select device driver "" with '
          "capabilities: [[gpu]]."), "launcher error", "could not select device driver"),
    Shape("kubelet-kills-on-failed-liveness-probe", (
          "  Normal   Started    26m   kubelet   Started container vllm",
          "  Normal   Killing    25m   kubelet   Container vllm failed liveness probe, will be "
          "restarted"), "launcher error", "failed liveness probe"),
    # (the startup probe's kill: vLLM's Kubernetes guide, a start-up longer than the probe allows)
    Shape("kubelet-kills-on-failed-startup-probe", (
          "  Normal   Started    26m   kubelet   Started container vllm",
          "  Normal   Killing    16m   kubelet   Container vllm failed startup probe, will be "
          "restarted"), "launcher error", "failed startup probe"),
    Shape("modal-runner-gave-up-on-start-up", (
          "May 01  14:38:19.519 | INFO 05-01 12:38:19 gpu_model_runner.py:872] Loading model "
          "weights took 5.3800 GB",
          "Runner failed with exception: Runner has been initializing for too long: 300 seconds"),
          "launcher error", "Runner failed"),
    Shape("systemd-exit-after-the-traceback", (
          "Jan 28 10:40:07 localhost bash[367371]: ValueError: Unknown quantization method: fp9",
          "Jan 28 10:40:08 localhost systemd[1]: vllm3.service: Main process exited, "
          "code=exited, status=1/FAILURE",
          "Jan 28 10:40:08 localhost systemd[1]: vllm3.service: Failed with result 'exit-code'.",
          "Jan 28 10:40:13 localhost systemd[1]: vllm3.service: Scheduled restart job, restart "
          "counter is at 4."), "ValueError", "Unknown quantization"),
    Shape("windows-paths-in-frames", (
          "Traceback (most recent call last):",
          '  File "C:\\Users\\me\\venv\\Lib\\site-packages\\vllm\\engine\\arg_utils.py", '
          "line 1012, in create_engine_config",
          "    raise ValueError(",
          "ValueError: Bfloat16 is only supported on GPUs with compute capability of at least "
          "8.0."), "ValueError", "Bfloat16"),
]


@pytest.mark.parametrize("shape", SHAPES, ids=[s.name for s in SHAPES])
def test_every_error_form_is_found(shape: Shape) -> None:
    report = explain_text("\n".join(shape.lines) + "\n", signatures=default_signatures())
    assert report.verdict is Verdict.FAILURE, report.reasons
    assert report.root_cause is not None
    assert report.root_cause.exception == shape.exception
    expected = next(n for n, line in enumerate(shape.lines, 1) if shape.root in line)
    assert report.root_cause.line == expected


def test_an_exception_outweighs_an_earlier_error_record() -> None:
    lines = [*V1_START,
             "(EngineCore_DP0 pid=2900) ERROR 08-01 21:00:00 [utils.py:88] Failed to read "
             "the model's generation config",
             "(EngineCore_DP0 pid=2900) ERROR 08-01 21:00:01 [core.py:718] ValueError: Free memory "
             "on device (3.2/4.0 GiB) on startup is less than desired GPU memory utilization"]
    report = explain_text("\n".join(lines) + "\n", signatures=default_signatures())
    assert report.root_cause is not None and report.root_cause.exception == "ValueError"


def test_killed_as_the_text_of_an_info_record_is_no_error() -> None:
    lines = [*V1_START, "(APIServer pid=2800) INFO 08-01 21:00:00 [launcher.py:80] Killed"]
    assert explain_text("\n".join(lines) + "\n").verdict is Verdict.NO_FAILURE


REFUSED = ['{"object":"error","message":"This model\'s maximum context length is 4096 tokens. '
           'However, you requested 5000 tokens.","type":"BadRequestError","param":null,"code":400}',
           '{"error":{"message":"The model `x` does not exist.","type":"NotFoundError","param":'
           '"model","code":404}}']


@pytest.mark.parametrize("body", REFUSED)
def test_a_refused_request_is_survived(body: str) -> None:
    """A 4xx error body is the server's answer to one request: it was alive to give it."""
    report = explain_text("\n".join([*V1_START, body, body]) + "\n",
                          signatures=default_signatures())
    assert report.verdict is Verdict.NO_FAILURE, report.reasons


def test_a_refused_request_before_a_crash_is_not_its_root() -> None:
    lines = [*V1_START, REFUSED[0],
             "(EngineCore_DP0 pid=2900) Fatal Python error: Segmentation fault"]
    report = explain_text("\n".join(lines) + "\n", signatures=default_signatures())
    assert report.root_cause is not None and report.root_cause.line == len(lines)


STUB = [
    "I0820 06:19:20.698021 2568 python_be.cc:1912] \"TRITONBACKEND_ModelInstanceInitialize: "
    "vllm_0_0 (MODEL device 0)\"",
    "E0820 06:19:25.111111 2568 pb_stub.cc:366] \"Failed to initialize Python stub: ValueError: "
    "signal only works in main thread of the main interpreter",
    "",
    "At:",
    "  /usr/lib/python3.12/signal.py(58): signal",
    "  /app/lib/python3.12/site-packages/vllm/v1/engine/core_client.py(160): __init__",
    "  /app/lib/python3.12/site-packages/vllm/v1/engine/async_llm.py(79): __init__\"",
    "E0820 06:19:25.211111 2568 model_lifecycle.cc:641] \"failed to load 'vllm' version 1: "
    "Internal: ValueError: signal only works in main thread of the main interpreter\""]


def test_a_triton_stub_error_keeps_its_at_frames() -> None:
    """Triton's Python backend lists the frames after the exception, innermost first."""
    report = explain_text("\n".join(STUB) + "\n", signatures=default_signatures())
    root = report.root_cause
    assert root is not None and (root.exception, root.line) == ("ValueError", 2)
    assert [f.function for f in root.frames] == ["__init__", "__init__", "signal"]
    assert root.frames[-1].file == "/usr/lib/python3.12/signal.py"


@pytest.mark.parametrize("report_line", [
    "Jan 28 10:40:08 host systemd[1]: vllm.service: Main process exited, code=exited, "
    "status=1/FAILURE",
    "Jan 28 10:40:08 host systemd[1]: vllm.service: Failed with result 'exit-code'.",
    "vllm-openai-1 exited with code 1",
    "command terminated with exit code 1",
    "Process finished with exit code 1",
    "Jan 28 10:40:08 host systemd[1]: vllm.service: Main process exited, code=dumped, "
    "status=6/ABRT",
    "  Warning  BackOff    2m (x25 over 7m)   kubelet  Back-off restarting failed container vllm "
    "in pod vllm-0_default(3f1c)",
    "(raylet) A worker died or was killed while executing a task by an unexpected system error. "
    "To troubleshoot the problem, check the logs for the dead worker. RayTask ID: ffff Worker "
    "exit type: SYSTEM_ERROR Worker exit detail: Worker unexpectedly exits with a connection "
    "error code 2. End of file."])
def test_a_launcher_report_of_a_failed_process_alone_is_a_missing_root(report_line: str) -> None:
    lines = [*V1_START, report_line]
    report = explain_text("\n".join(lines) + "\n", signatures=default_signatures())
    assert report.verdict is Verdict.ROOT_CAUSE_MISSING, (report.verdict, report.reasons)


def test_a_service_that_exits_cleanly_is_no_failure() -> None:
    lines = [*V1_START, "Jan 28 10:40:08 host systemd[1]: vllm.service: Main process exited, "
             "code=exited, status=0/SUCCESS", "Jan 28 10:40:08 host systemd[1]: vllm.service: "
             "Deactivated successfully."]
    report = explain_text("\n".join(lines) + "\n", signatures=default_signatures())
    assert report.verdict is Verdict.NO_FAILURE


@pytest.mark.parametrize("stop", ["vllm-openai-1 exited with code 0",
                                  "vllm-openai-1 exited with code 143",
                                  "command terminated with exit code 130"])
def test_a_container_stopped_or_ended_cleanly_is_no_failure(stop: str) -> None:
    # 143 and 130 are the exit codes of SIGTERM and Ctrl-C: a stop somebody asked for
    report = explain_text("\n".join([*V1_START, stop]) + "\n", signatures=default_signatures())
    assert report.verdict is Verdict.NO_FAILURE, report.reasons


def test_a_ci_annotation_alone_only_reports_a_failure() -> None:
    lines = ["2025-01-02T03:04:05.1234567Z ##[group]Run vllm serve x",
             "2025-01-02T03:04:07.1234567Z ##[error]Process completed with exit code 1."]
    report = explain_text("\n".join(lines) + "\n", signatures=default_signatures())
    assert report.verdict is Verdict.ROOT_CAUSE_MISSING


# ---- the anchors keep every line the grammar calls an error, over every generated shape ------

OUTERS = ["", "2024-05-01T10:00:01.123456789Z ", "2024-05-01T10:00:01.123Z stderr F ",
          "Aug 17 18:42:18 gpu1 vllm[8052]: ", "6月 10 16:45:05 gpu1 bash[107468]: ",
          "May 01  14:38:18.434 | ", "vllm-1  | ", "> ", "│ ", "[2025-01-02T03:04:05Z] ",
          "2025-01-02T03:04:05.1234567Z ", "[pod/vllm-0/vllm] ", "0: ", " 7: ", "12: ",
          "[1,0]<stderr>:", "gpu-node-3: ", "2024-01-02 03:04:05 | ERROR | stderr | ",
          "2024-01-02 03:04:05,123 - INFO - vLLM: ", "2024-01-02 03:04:05,123 - INFO - [vllm] ",
          "[2024-01-02 03:04:05] INFO: ", "... ", "…", "#033[0;31m", "zx8k2m4q9w1e3r[error]",
          "2024-05-01 10:00:00.123 [zx8k2m4q9w1e3r] [info] ",
          # Docker Desktop's log view (vllm#1824), docker build's BuildKit steps (vllm#552) and
          # the summary of a failed step, seconds alone (vllm#11616)
          "2023-11-29 11:34:19 ", "#4 3570.9 ", "136.0 ",
          # journalctl -o short-iso and short-iso-precise
          "2024-01-02T03:04:05+0000 gpu1 vllm[8052]: ",
          "2024-01-02T03:04:05.123456+00:00 gpu1 vllm[8052]: ",
          # a line's number from a tool that numbers lines: grep -n's `N:` and a context line's
          # `N-` (one file or several), cat -n's and nl's number and tab, grep -n over a journal
          "285:", "7:", "284-", "vllm.log:285:", "vllm.log-284-", "serve.log.1:12:", "   285\t",
          "     7\t", "285:Aug 24 01:02:49 dgx qwen.sh[959801]: ",
          # grep -rn over /var/log: the system logs without an extension, rotated, compressed
          "syslog:12:", "/var/log/messages:12:", "syslog.1-11-", "/var/log/syslog.2.gz:12:",
          # torchrun --tee: each local rank's line behind its role and rank, glued
          "[default0]:", "[trainer3]:",
          "284-2024-05-01T10:00:01.123456789Z "]
# pytest's report of a failed test: the exception's margin and the short summary. Only before a
# line as Python prints an exception (its margin takes the indentation), so only in the
# generated lines below, not before every body
PYTEST_OUTERS = ["E       ", "E   ", "FAILED tests/test_x.py::test_y[a-1] - "]
PREFIXES = ["", "(Worker_TP1 pid=3001) ", "(RayWorkerVllm pid=31, ip=10.0.0.2) ", "(raylet) ",
            "[rank0]: ", "(pid=7) ", "(EngineCore_DP0 pid=2900) (VllmWorker rank=2 pid=8) "]
HEADERS = ["", "ERROR 08-01 21:00:00 [core.py:718] ", "CRITICAL 08-01 21:00:00 [core.py:1] ",
           "INFO 08-01 21:00:00 [core.py:718] ", "ERROR 10-17 12:43:16 engine.py:160] ",
           "WARNING 10-17 12:43:16 engine.py:160] ", "[multiproc_executor.py:492] ",
           "1:14 [multiproc_executor.py:492] ", "E0731 16:03:52.115000 116603 torch/x.py:539] ",
           "[W1009 10:48:42.365618213 ProcessGroupNCCL.cpp:1250] ", "[E ProcessGroupNCCL.cpp:474] ",
           "[2024-05-14 08:31:02,447 E 6120 6120] node_manager.cc:3007: ",
           "[2024-05-14 08:31:02,447 I 6120 6120] core_worker.cc:1: ",
           "2025-01-01 10:00:01,000 - ERROR - ", "2025-01-01 10:00:01,000 - vllm - INFO - ",
           "ERROR:root:", "2024-05-08 14:30:02,101\tERROR worker.py:405 -- ",
           "2024-01-29 09:41:54,676 ERROR worker.py:405 -- ",  # the TAB pasted as a space
           "2024-01-02 03:04:05.123 | ERROR    | app.server:generate:88 - ",
           "2024-01-02 03:04:05 | ERROR | model_worker | ", "##[error]",
           "[E329 12:00:00.123456 1234 socket.cpp:456] ",
           "F0102 03:04:05.123456 1234 tpu_compile.cc:123] ",
           "ERROR 2025-02-27 23:48:16,631 controller 770463 -- ",
           "2024-06-13 12:52:58.123 1 kserve ERROR [model_server.py:start():200] ",
           "INFO 2024-11-18 01:46:34,210 default_VLLMDeployment ujj4diu5 replica.py:893 - "]
EXCEPTION_NAMES = ["ValueError", "torch.OutOfMemoryError", "triton.runtime.errors.OutOfResources",
                   "pynvml.NVMLError_LibraryNotFound", "torch._dynamo.exc.BackendCompilerFailed",
                   "ray.exceptions.RayTaskError(TypeError)", "KeyboardInterrupt", "SystemExit",
                   "socket.gaierror", "struct.error", "_socket.gaierror"]
BODIES = [
    "Traceback (most recent call last):",
    "RuntimeError: Traceback (most recent call last):",
    "../vllm/model_executor/models/utils.py:363: RuntimeError",
    '  File "/usr/local/lib/python3.12/dist-packages/vllm/v1/engine/core.py", line 701, in run',
    "The above exception was the direct cause of the following exception:",
    "Process EngineCore_DP0:",
    "Fatal Python error: Segmentation fault",
    "terminate called after throwing an instance of 'c10::Error'",
    "what():  CUDA error: out of memory",
    "CUDA error: an illegal memory access was encountered",
    "*** SIGSEGV received at time=1715675462 on cpu 12 ***",
    "Killed",
    "Illegal instruction (core dumped)",
    "Floating point exception (core dumped)",
    "      Reason:       OOMKilled",
    "command terminated with exit code 137",
    "Process finished with exit code 137 (interrupted by signal 9:SIGKILL)",
    "vllm.service: Main process exited, code=killed, status=9/KILL",
    "Memory cgroup out of memory: Killed process 42117 (python3)",
    "main.c:5:10: fatal error: Python.h: No such file or directory",
    "ptxas fatal   : Value 'sm_121a' is not defined for option 'gpu-name'",
    "/usr/bin/ld: cannot find -lcuda: No such file or directory",
    "vllm serve: error: argument --dtype: invalid choice: 'fp9'",
    "RuntimeError('CUDA error: an illegal memory access was encountered')",
    "h1:3791:3791 [1] misc/shmutils.cc:72 NCCL WARN Error: failed to extend /dev/shm",
    "Memory access fault by GPU node-2 (Agent handle: 0x55d0c0) on address 0x7f1e2c000000. "
    "Reason: Page not present or supervisor privilege.",
    "HIP error: invalid device function",
    "HW Exception by GPU node-1 (Agent handle: 0x5b522e50) reason :GPU Hang",
    "hipErrorNoBinaryForGpu: Unable to find code object for all current devices!",
    "error: subprocess-exited-with-error",
    "      FAILED: CMakeFiles/_C.dir/csrc/cpu/activation.cpp.o",
    "ninja: build stopped: subcommand failed.",
    "error: command '/usr/bin/gcc' failed with exit code 1",
    "CMake Error at CMakeLists.txt:45 (message):",
    "make: *** [Makefile:12: kernel.o] Error 1",
    "      csrc/x.hpp:12:10: fatal error: immintrin.h: No such file or directory",
    "/tmp/vllm/csrc/attention/dtype_float16.cuh(65): error: identifier is undefined",
    "C:\\vllm\\csrc\\ops.cpp(3): error C2065: 'ssize_t': undeclared identifier",
    '{"object":"error","message":"boom","type":"InternalServerError","param":null,"code":500}',
    "At:",
    "  /usr/lib/python3.12/signal.py(58): signal",
    "ERROR:    Exception in ASGI application",
    "vllm.service: Main process exited, code=exited, status=1/FAILURE",
    "vllm.service: Failed with result 'exit-code'.",
    "vllm-openai-1 exited with code 1",
    "command terminated with exit code 2",
    "  Warning  BackOff    2m (x25 over 7m)   kubelet  Back-off restarting failed container vllm",
    'docker: Error response from daemon: could not select device driver "" with capabilities',
    "  Normal   Killing    25m   kubelet   Container vllm failed liveness probe, will be restarted",
    "A worker died or was killed while executing a task by an unexpected system error. To "
    "troubleshoot the problem, check the logs for the dead worker.",
    "srun: error: gpu-node-3: tasks 0-7: Exited with exit code 1",
    "slurmstepd: error: *** STEP 4412.0 ON gpu-node-3 CANCELLED AT 2024-05-01T10:00:00 ***",
    "slurmstepd: error: Detected 1 oom_kill event in StepId=4412.0. Some of your processes may "
    "have been killed by the cgroup out-of-memory handler.",
    # Triton's compiler naming the kernel's Python source (vllm#20712), LLVM's back end (#5696),
    # a compiler killed in a build pip relays, indented (#552)
    "/x/vllm/model_executor/layers/fused_moe/fused_moe.py:262:0: error: Failures have been "
    "detected while processing an MLIR pass pipeline",
    "error: triton_flash_attention.py:211:0: stack frame size (556488) exceeds limit (262112) "
    "in function 'attn_fwd'",
    "      /bin/bash: line 1:   367 Killed                  cicc --c++17 --gnu_version=90400",
    # the linker as rustc relays it, and the driver's report; setuptools-rust's failed cargo
    # (vllm#11616)
    "    = note: /opt/conda/bin/ld: cannot find -lssl: No such file or directory",
    "            collect2: error: ld returned 1 exit status",
    "  error: `cargo rustc --lib --release --crate-type cdylib` failed with code 101",
    # a shell's job-control report of a child a signal ended, and a native library's last words
    # before abort() (OpenSSL on a FIPS host: vllm PR#33756; glibc)
    "zsh: illegal hardware instruction  vllm serve Qwen/Qwen3-8B",
    "zsh: killed     python -m vllm.entrypoints.openai.api_server --model m",
    "[1]+  Segmentation fault      (core dumped) python offline.py",
    "./serve.sh: line 3: 12345 Aborted                 (core dumped) vllm serve m",
    "fish: Job 1, 'vllm serve m' terminated by signal SIGSEGV (Address boundary error)",
    "crypto/fips/fips.c:154: OpenSSL internal error: FATAL FIPS SELFTEST FAILURE",
    "FATAL FIPS SELFTEST FAILURE",
    "free(): invalid pointer",
    "double free or corruption (out)",
    "Engine core proc EngineCore_DP0 died unexpectedly, shutting down client.",
    "some text that only an ERROR level makes an error",
]


def _matters(raw: str) -> bool:
    line = parse_line(clean(raw))
    if line.kind is LineKind.EXCEPTION and (line.exception or "").endswith("Warning"):
        return False
    return (line.kind in {LineKind.TRACEBACK_HEADER, LineKind.FRAME, LineKind.EXCEPTION,
                          LineKind.EXCEPTION_REPR, LineKind.CHAIN, LineKind.PROCESS_HEADER,
                          LineKind.FATAL, LineKind.DIAGNOSTIC, LineKind.FRAME_LIST}
            or line.level in (Level.ERROR, Level.CRITICAL)
            or (line.kind is LineKind.NCCL and line.exception in ("NCCL WARN", "NCCL ERROR")))


generated_line = st.builds(
    lambda outer, prefix, header, body: outer + prefix + header + body,
    st.sampled_from(OUTERS + PYTEST_OUTERS), st.sampled_from(PREFIXES), st.sampled_from(HEADERS),
    st.one_of(st.sampled_from(BODIES),
              st.builds(lambda name, message: f"{name}: {message}" if message else name,
                        st.sampled_from(EXCEPTION_NAMES),
                        st.sampled_from(["", "bad value 3", "CUDA out of memory."]))))


@settings(max_examples=400, deadline=None)
@given(generated_line)
def test_every_generated_line_that_matters_is_anchored(raw: str) -> None:
    if _matters(raw):
        assert anchor_patterns()[0].search(raw.encode("utf-8")), raw


@pytest.mark.parametrize("body", BODIES[:-2], ids=range(len(BODIES) - 2))
def test_every_error_body_matters_behind_any_wrapper(body: str) -> None:
    """Each error shape is read as one under every wrapper and prefix (no header: raw output)."""
    for outer in OUTERS:
        for prefix in PREFIXES:
            assert _matters(outer + prefix + body), outer + prefix + body
