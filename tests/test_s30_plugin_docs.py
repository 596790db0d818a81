"""Session 30 (second round): the platform plugins' own docs and source (issue 11).

Each new plugin family answers its plugin's message with generated values (methods, option
strings, connectors, models, settings) wherever the plugin's frame sits, and a near miss (the same
words raised by vLLM's own code for another cause, or another plugin check) gets another answer.
"""

from __future__ import annotations

import string

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from logsleuth.pipeline import explain_text

_SITE = st.sampled_from(("/usr/local/lib/python3.12/site-packages/",
                         "/opt/venv/lib/python3.11/site-packages/"))
_WORD = st.text(string.ascii_lowercase + "_", min_size=3, max_size=12).filter(
    lambda s: s.strip("_") != "")


def _engine_core(site: str, frame: str, line: str) -> str:
    p = "(EngineCore_DP0 pid=77) ERROR 11-20 09:14:02 [core.py:866] "
    return "\n".join([
        p + "EngineCore failed to start.",
        p + "Traceback (most recent call last):",
        p + f'  File "{site}vllm/v1/engine/core.py", line 857, in run_engine_core',
        p + "    engine_core = EngineCoreProc(*args, **kwargs)",
        p + f'  File "{site}{frame}", line 120, in check',
        p + "    raise ValueError(",
        p + line,
    ]) + "\n"


def _family(log: str) -> str:
    report = explain_text(log)
    assert report.signature is not None, log
    return report.signature.id


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(site=_SITE, method=st.sampled_from(("gptq", "bitsandbytes", "gguf", "gptq_marlin", "squeezellm")),
       supported=st.lists(st.sampled_from(("'fp8'", "'awq'", "'compressed-tensors'", "None",
                                           "'mxfp4'")), min_size=1, max_size=5, unique=True))
def test_tpu_quantization_method_family_answers_any_method(site: str, method: str,
                                                           supported: list[str]) -> None:
    line = (f"NotImplementedError: {method} quantization method not supported. Supported methods "
            f"are dict_keys([{', '.join(supported)}])")
    log = _engine_core(site, "tpu_inference/layers/vllm/quantization/__init__.py", line)
    assert _family(log) == "tpu-quantization-method-unsupported"


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(site=_SITE, key=_WORD, value=st.text(string.ascii_lowercase + string.digits, min_size=1,
                                             max_size=6))
def test_tpu_profiler_family_answers_any_option_written_with_equals(site: str, key: str,
                                                                    value: str) -> None:
    line = (f"ValueError: Invalid profile option format in '{key}={value}'. "
            "Expected 'key:value' format.")
    log = _engine_core(site, "tpu_inference/worker/tpu_worker.py", line)
    assert _family(log) == "tpu-profiler-options-invalid"


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(site=_SITE, connector=st.sampled_from(("NixlConnector", "LMCacheConnectorV1",
                                              "P2pNcclConnector", "MooncakeConnector")))
def test_tpu_platform_family_answers_any_foreign_connector(site: str, connector: str) -> None:
    line = (f"ValueError: Unsupported kv_connector '{connector}' for the TPU platform. Expected one "
            "of ('TPUConnector', 'TPUConnectorHMA', 'TPUOffloadConnector').")
    log = _engine_core(site, "tpu_inference/platforms/tpu_platform.py", line)
    assert _family(log) == "tpu-platform-config-rejected"


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(site=_SITE, name=_WORD, default=st.integers(1, 99999), mine=st.integers(1, 99999))
def test_spyre_registry_clash_is_the_spyre_setup_family(site: str, name: str, default: int,
                                                        mine: int) -> None:
    line = (f"RuntimeError: Model 'ibm-granite/{name}' configures num_gpu_blocks_override={default}, "
            f"but user set --num-gpu-blocks-override={mine}. VLLM_SPYRE_REQUIRE_KNOWN_CONFIG is "
            "enabled.")
    log = _engine_core(site, "vllm_spyre/config/configurators/model_configurator.py", line)
    assert _family(log) == "spyre-runtime-setup-rejected"


def test_metal_frame_capture_family_and_its_near_miss() -> None:
    site = "/Users/dev/.venv/lib/python3.12/site-packages/"
    line = ("RuntimeError: Metal frame capture requires MTL_CAPTURE_ENABLED=1 in the process "
            "environment. Restart the engine with that variable set, then retry.")
    assert _family(_engine_core(site, "vllm_metal/profiler/wrapper.py", line)) == \
        "metal-frame-capture-setup-rejected"
    # the same profiler wrapper's other refusal, the trace directory, is not this family's
    near = ("ValueError: MetalProfilerWrapper requires profiler_config.torch_profiler_dir to be set "
            "(e.g. --profiler-config.torch_profiler_dir=/tmp/trace).")
    assert _family(_engine_core(site, "vllm_metal/profiler/wrapper.py", near)) != \
        "metal-frame-capture-setup-rejected"


def test_near_misses_of_the_tpu_families() -> None:
    site = "/usr/local/lib/python3.12/site-packages/"
    # vLLM's own GPTQ check on a GPU names no TPU method table
    gptq = "ValueError: Currently, only 2/3/4/8-bit weight quantization is supported for GPTQ, but got 5 bits."
    assert _family(_engine_core(site, "vllm/model_executor/layers/quantization/gptq.py", gptq)) != \
        "tpu-quantization-method-unsupported"
    # the profiler parser's other refusal is non-ASCII, a different regex of the same family;
    # a profile directory error is not the family's
    other = "ValueError: profiler_config.torch_profiler_dir must be set when profiler is 'torch'."
    assert _family(_engine_core(site, "vllm/config/profiler.py", other)) != \
        "tpu-profiler-options-invalid"
