"""Errors that are not vLLM's own (torch, NCCL, transformers, Python and the OS) get family advice
that names the knobs the documented fixes use. Each message is drawn with its variable parts
(sizes, devices, dtypes, paths, names) generated, in several eras of prefixes and from each phase
it can happen in, so a family claims the message by its stable parts only."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from logsleuth.model import Phase, Verdict
from logsleuth.pipeline import explain_text
from logsleuth.signatures import default_signatures
from v1log import ERAS, worker_failure

RUNNING = [Phase.PROFILE, Phase.GRAPH_CAPTURE, Phase.SERVING]
STARTING = [Phase.INIT, Phase.LOAD]
NAMES = st.from_regex(r"[a-z][a-z0-9_]{2,12}", fullmatch=True)
SIZES = st.integers(1, 262144)
DTYPES = st.sampled_from(["BFloat16", "Half", "Float", "Double"])
DEVICES = st.sampled_from(["cuda:0", "cuda:3", "cpu"])
CACHES = st.sampled_from(["/.cache", "/root/.cache/huggingface/hub", "/home/vllm/.cache/vllm",
                          "/.triton/cache", "/.config/vllm"])

# (name, a strategy of `Type: message`, phases, knobs the advice must name)
FAILURES = [
    ("tensor-size-mismatch",
     st.builds("RuntimeError: The size of tensor a ({}) must match the size of tensor b ({}) at "
               "non-singleton dimension {}".format, SIZES, SIZES, st.integers(0, 3)),
     RUNNING, ["--tensor-parallel-size", "--hf-overrides", "--enforce-eager"]),
    ("mat-shapes",
     st.builds("RuntimeError: mat1 and mat2 shapes cannot be multiplied ({}x{} and {}x{})".format,
               SIZES, SIZES, SIZES, SIZES), RUNNING, ["--tensor-parallel-size", "--quantization"]),
    ("same-device",
     st.builds("RuntimeError: Expected all tensors to be on the same device, but found at least "
               "two devices, {} and {}!".format, DEVICES, DEVICES), RUNNING,
     ["--cpu-offload-gb", "--dtype"]),
    ("scalar-type",
     st.builds("RuntimeError: expected scalar type {} but found {}".format, DTYPES, DTYPES),
     RUNNING, ["--dtype", "--trust-remote-code"]),
    ("not-serializable",
     st.builds("TypeError: Object of type <class '{}.{}'> is not serializableSet "
               "VLLM_ALLOW_INSECURE_SERIALIZATION=1 to allow fallback to pickle-based "
               "serialization.".format, NAMES, NAMES), [Phase.SERVING],
     ["VLLM_ALLOW_INSECURE_SERIALIZATION=1"]),
    ("pickle-local-object",
     st.builds("AttributeError: Can't pickle local object '{}.<locals>.{}'".format, NAMES, NAMES),
     [Phase.INIT, Phase.SERVING], ["VLLM_ALLOW_INSECURE_SERIALIZATION=1",
                                   "VLLM_WORKER_MULTIPROC_METHOD"]),
    ("permission-denied-cache",
     st.builds("PermissionError: [Errno 13] Permission denied: '{}'".format, CACHES), STARTING,
     ["HF_HOME", "VLLM_CACHE_ROOT", "TRITON_CACHE_DIR"]),
    ("read-only-cache",
     st.builds("OSError: [Errno 30] Read-only file system: '{}'".format, CACHES),
     [Phase.INIT, Phase.PROFILE], ["HOME=", "VLLM_CACHE_ROOT", "HF_HOME"]),
    ("too-many-open-files", st.just("OSError: [Errno 24] Too many open files"),
     [Phase.LOAD, Phase.SERVING], ["ulimit -n", "--ulimit nofile"]),
    ("auto-class-unrecognized",
     st.builds("ValueError: Unrecognized configuration class <class 'transformers.models.{0}."
               "configuration_{0}.{1}Config'> for this kind of AutoModel: AutoModelForCausalLM."
               .format, NAMES, NAMES), STARTING,
     ["pip install -U transformers", "--trust-remote-code", "--runner pooling"]),
    ("module-has-no-attribute",
     st.builds("AttributeError: module '{}' has no attribute '{}'".format,
               st.sampled_from(["torch", "transformers", "numpy", "torch.library"]), NAMES),
     STARTING, ["pip check", "uv pip install vllm --torch-backend=auto"]),
    ("unexpected-keyword",
     st.builds("TypeError: {}.__init__() got an unexpected keyword argument '{}'".format,
               st.sampled_from(["Qwen2VLImageProcessor", "PreTrainedTokenizerFast",
                                "SiglipVisionModel"]), NAMES),
     STARTING, ["pip check", "transformers"]),
    ("numpy-abi",
     st.just("ValueError: numpy.dtype size changed, may indicate binary incompatibility. "
             "Expected 96 from C header, got 88 from PyObject"), [Phase.INIT],
     ['pip install "numpy<2"']),
    ("hub-connection",
     st.builds("requests.exceptions.ConnectionError: (MaxRetryError(\"HTTPSConnectionPool(host="
               "'{}', port=443): Max retries exceeded with url: /api/models/{}/{} (Caused by "
               "NewConnectionError('<urllib3.connection.HTTPSConnection object at 0x7f3a2c1d0e50>"
               ": Failed to establish a new connection: [Errno 101] Network is unreachable'))\"), "
               "'(Request ID: 1b2c)')".format,
               st.sampled_from(["huggingface.co", "hf-mirror.com", "cdn-lfs.huggingface.co"]),
               NAMES, NAMES), STARTING, ["HF_HUB_OFFLINE=1", "HTTPS_PROXY", "HF_ENDPOINT"]),
    ("host-memory",
     st.one_of(st.just("OSError: [Errno 12] Cannot allocate memory"), st.just("MemoryError"),
               st.builds("numpy.core._exceptions._ArrayMemoryError: Unable to allocate {}.{} GiB "
                         "for an array with shape ({}, {}) and data type float32".format,
                         SIZES, st.integers(0, 99), SIZES, SIZES)),
     [Phase.LOAD], ["--cpu-offload-gb", "--safetensors-load-strategy", "--shm-size"]),
    ("triton-compilation",
     st.builds("triton.compiler.errors.CompilationError: at {}:{}:\n    x = tl.load(ptr)".format,
               st.integers(1, 400), st.integers(0, 80)), RUNNING,
     ["pip install triton==", "TRITON_CACHE_DIR", "--attention-backend"]),
    # families that existed before: the knobs their documented fixes use
    ("fork-reinit",
     st.just("RuntimeError: Cannot re-initialize CUDA in forked subprocess. To use CUDA with "
             "multiprocessing, you must use the 'spawn' start method"), [Phase.INIT],
     ["VLLM_WORKER_MULTIPROC_METHOD"]),
    ("nccl-invalid-argument",
     st.just("RuntimeError: NCCL error: invalid argument (run with NCCL_DEBUG=WARN for details)"),
     [Phase.INIT], ["NCCL_DEBUG=INFO", "NCCL_P2P_DISABLE=1", "CUDA_VISIBLE_DEVICES"]),
    ("extension-undefined-symbol",
     st.builds("ImportError: /usr/local/lib/python3.12/dist-packages/{}: undefined symbol: "
               "_ZN3c10{}".format, st.sampled_from(["flash_attn_2_cuda.cpython-312-x86_64-linux"
                                                    "-gnu.so", "xformers/_C.so"]), NAMES),
     [Phase.INIT], ["pip install --force-reinstall vllm", "VLLM_USE_PRECOMPILED=1"]),
    ("nccl-system-error",
     st.builds("torch.distributed.DistBackendError: NCCL error in: /pytorch/torch/csrc/distributed/"
               "c10d/ProcessGroupNCCL.cpp:{}, unhandled system error (run with NCCL_DEBUG=INFO "
               "for details), NCCL version 2.{}.{}".format, SIZES, st.integers(18, 27),
               st.integers(1, 9)), [Phase.INIT], ["NCCL_SHM_DISABLE", "--shm-size"]),
]


@pytest.mark.parametrize("name,messages,phases,knobs", FAILURES, ids=[f[0] for f in FAILURES])
@settings(max_examples=6, deadline=None)
@given(data=st.data())
def test_each_library_error_gets_advice_naming_its_knobs(name: str, messages: st.SearchStrategy[str],
                                                         phases: list[Phase], knobs: list[str],
                                                         data: st.DataObject) -> None:
    error = data.draw(messages, label="error")
    era = data.draw(st.sampled_from(ERAS), label="era")
    phase = data.draw(st.sampled_from(phases), label="phase")
    report = explain_text(worker_failure(error, phase=phase, era=era),
                          signatures=default_signatures())
    assert report.verdict is Verdict.FAILURE
    assert report.signature is not None, f"{name}: no advice ({era.name}, {phase.value})"
    missing = [knob for knob in knobs if knob not in report.signature.fix]
    assert not missing, f"{name}: {report.signature.id} does not name {missing}"
