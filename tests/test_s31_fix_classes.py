"""Classes behind session 31's twenty-second split's cold fix misses (dev-fix's five), each generated
over its wordings and the ways a log shows it, with a near miss:

- a platform's graph-mode sizing reading a text-model field (`num_hidden_layers`, ...) from the top
  level of a composite config (Omni, VL wrappers, Gemma 3, Llama 4), or a newer plugin finding no
  layer count in any nested config: graph-sizing-reads-composite-config-top-level, whose fix names
  `--enforce-eager`; the same AttributeError in a model implementation's constructor stays
  hf-config-attribute-missing's;
- an accelerator kernel's own status check refusing a call (`Check 0 == ret failed, left
  operand=0, <kernel> failed`, with or without `, ret=N`), raised from a plugin's attention or op
  during a dummy run, graph capture or a cut excerpt: device-kernel-status-check-failed, whose fix
  names `--max-num-seqs`; a kernel named for the decode path (`speculative_attention`) is no
  speculative-decoding config; a Python assertion in the same backend does not get it;
- setup.py's platform probe meeting an OSError it does not read as "tool absent" (`[Errno 20] Not
  a directory`, `[Errno 8] Exec format error` for neuron-ls or hl-smi), inside pip's captured
  build output, cut to its tail, or one line: source-build-platform-probe-failed, whose fix names
  `_is_neuron` and the PATH entry; nvcc not found under CUDA_HOME does not get it;
- a rotary embedding sized for another token count than its queries (torch's view and broadcast
  errors under a rope or rotary frame: vllm-ascend's Triton rope, vLLM's RotaryEmbedding, a model's
  rotary call): rotary-embedding-token-count-mismatch, whose fix names the padded batch
  (`num_tokens_padded`) and `--enforce-eager`; the same view error in an MLP gets the shape family,
  whose fix now names padded batches too;
- a video without its metadata reaching a processor that needs it (the parser's ValueError from
  0.11.2, a processor's `metadata.get` on None before it, under the processor's frames):
  video-input-without-metadata, whose fix names the (frames, metadata) pairs; another attribute of
  None in the same function does not get it.

Not covered (KNOWN_FIX_MISSES says why): the same `metadata.get` AttributeError when the paste holds
only the failing source line above Python's carets, with no `File` line.
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from v1log import PYTHONS, SITE_PACKAGES, TRACEBACK_PREFIXES, python_traceback, signature_advice

_PLUGIN_ROOTS = st.sampled_from(["/vllm-workspace/vllm-ascend/", "{site}",
                                 "/home/user/src/vllm-ascend/"])


# ---- a platform's graph-mode sizing on a composite config -----------------------------------------

_SIZING_FRAMES = [
    ("{site}vllm/engine/arg_utils.py", "create_engine_config", "config = VllmConfig("),
    ("{site}vllm/config.py", "__post_init__", "current_platform.check_and_update_config(self)"),
    ("{plugin}vllm_ascend/platform.py", "check_and_update_config",
     "update_aclgraph_sizes(vllm_config)"),
]


@settings(max_examples=40, deadline=None)
@given(config=st.sampled_from(["Qwen2_5OmniConfig", "Qwen3OmniMoeConfig", "Gemma3Config",
                               "Llama4Config", "Mistral3Config", "LlavaConfig"]),
       field=st.sampled_from(["num_hidden_layers", "hidden_size", "num_attention_heads"]),
       newer=st.booleans(), py=PYTHONS, site=SITE_PACKAGES, plugin=_PLUGIN_ROOTS,
       prefix=TRACEBACK_PREFIXES)
def test_graph_sizing_on_a_composite_config_gets_eager_mode(
        config: str, field: str, newer: bool, py: str, site: str, plugin: str,
        prefix: str) -> None:
    root = site.format(py=py)
    frames = [(path.format(site=root, plugin=plugin.format(site=root)), function, code)
              for path, function, code in _SIZING_FRAMES]
    if newer:  # 0.10.0rc1 on: the nested configs are searched, none names a layer count
        frames.append((f"{plugin.format(site=root)}vllm_ascend/utils.py", "get_max_hidden_layers",
                       'raise ValueError("Not found num_hidden_layers in model config.")'))
        error = "ValueError: Not found num_hidden_layers in model config."
    else:
        frames += [(f"{plugin.format(site=root)}vllm_ascend/utils.py", "update_aclgraph_sizes",
                    f"num_hidden_layers = vllm_config.model_config.hf_config.{field}"),
                   (f"{root}transformers/configuration_utils.py", "__getattribute__",
                    "return super().__getattribute__(key)")]
        error = f"AttributeError: '{config}' object has no attribute '{field}'"
    sid, fix = signature_advice(python_traceback(frames, error, prefix))
    assert sid == "graph-sizing-reads-composite-config-top-level"
    assert "--enforce-eager" in fix and "0.10.0rc1" in fix, fix


@settings(max_examples=20, deadline=None)
@given(config=st.sampled_from(["PhiConfig", "Gemma3Config", "LlamaConfig"]),
       field=st.sampled_from(["layer_norm_epsilon", "num_hidden_layers", "rotary_dim"]),
       py=PYTHONS, site=SITE_PACKAGES, prefix=TRACEBACK_PREFIXES)
def test_a_model_implementation_reading_its_config_is_not_graph_sizing(
        config: str, field: str, py: str, site: str, prefix: str) -> None:
    root = site.format(py=py)
    frames = [(f"{root}vllm/model_executor/model_loader/loader.py", "load_model",
               "model = _initialize_model(vllm_config=vllm_config)"),
              (f"{root}vllm/model_executor/models/phi.py", "__init__",
               f"self.value = config.{field}"),
              (f"{root}transformers/configuration_utils.py", "__getattribute__",
               "return super().__getattribute__(key)")]
    log = python_traceback(frames, f"AttributeError: '{config}' object has no attribute '{field}'",
                           prefix)
    sid, _ = signature_advice(log)
    assert sid == "hf-config-attribute-missing", log


# ---- an accelerator kernel's status check at start-up ----------------------------------------------

_KERNEL_CALLS = [
    ("vllm_kunlun/v1/attention/backends/kunlun_attn.py", "forward", "speculative_attention"),
    ("vllm_kunlun/v1/attention/backends/kunlun_attn.py", "forward", "paged_attention"),
    ("vllm_kunlun/ops/mamba/causal_conv1d.py", "causal_conv1d_update",
     "xpudnn::causal_conv1d_update"),
    ("vllm_kunlun/ops/attention/flashmla.py", "flash_mla_with_kvcache", "flash_mla_decode"),
]
_STARTUP_RUNS = [
    ("{site}vllm/v1/worker/gpu_worker.py", "compile_or_warm_up_model",
     "self.model_runner.capture_model()"),
    ("{site}vllm/v1/worker/gpu_model_runner.py", "_dummy_run", "outputs = self.model("),
]


@settings(max_examples=50, deadline=None)
@given(call=st.sampled_from(_KERNEL_CALLS), ret=st.sampled_from(["", ", ret=1", ", ret=-2"]),
       operand=st.sampled_from(["0", "-1", "3"]), shape=st.sampled_from(["traceback", "excerpt"]),
       py=PYTHONS, site=SITE_PACKAGES, prefix=TRACEBACK_PREFIXES)
def test_a_kernel_refusing_a_startup_batch_gets_the_batch_limits(
        call: tuple[str, str, str], ret: str, operand: str, shape: str, py: str, site: str,
        prefix: str) -> None:
    path, function, kernel = call
    root = site.format(py=py)
    error = f"ValueError: Check 0 == ret failed, left operand={operand}, {kernel} failed{ret}"
    code = f"kunlun_ops.{kernel.split('::')[-1]}("
    if shape == "traceback":
        frames = [(p.format(site=root), f, c) for p, f, c in _STARTUP_RUNS]
        log = python_traceback([*frames, (root + path, function, code)], error, prefix)
    else:  # a reporter's abridgement: the kernel's frame, the error, the start-up failure
        log = (f'{prefix}File "{path}", line 928, in {function}\n{prefix}  {code}\n'
               f"{prefix}{error}\n{prefix}RuntimeError: Engine core initialization failed.\n")
    sid, fix = signature_advice(log)
    assert sid == "device-kernel-status-check-failed", log
    assert "--max-num-seqs" in fix and "--max-num-batched-tokens" in fix, fix


@settings(max_examples=15, deadline=None)
@given(py=PYTHONS, site=SITE_PACKAGES, prefix=TRACEBACK_PREFIXES)
def test_an_assertion_in_the_same_backend_is_not_a_kernel_status(
        py: str, site: str, prefix: str) -> None:
    root = site.format(py=py)
    frames = [(p.format(site=root), f, c) for p, f, c in _STARTUP_RUNS]
    frames.append((root + "vllm_kunlun/v1/attention/backends/kunlun_attn.py", "forward",
                   "assert query_seq_len % batch_size == 0"))
    log = python_traceback(frames, "AssertionError", prefix)
    sid, _ = signature_advice(log)
    assert sid != "device-kernel-status-check-failed", log


# ---- setup.py's platform probe ---------------------------------------------------------------------

_PIP_HEAD = ("  Getting requirements to build {what} ... error\n  error: subprocess-exited-with-error\n\n"
             "  × Getting requirements to build {what} did not run successfully.\n"
             "  │ exit code: 1\n  ╰─> [18 lines of output]\n")


@settings(max_examples=50, deadline=None)
@given(tool=st.sampled_from(["neuron-ls", "hl-smi"]),
       error=st.sampled_from(["NotADirectoryError: [Errno 20] Not a directory: '{tool}'",
                              "OSError: [Errno 8] Exec format error: '{tool}'"]),
       shape=st.sampled_from(["pip", "tail", "line"]), what=st.sampled_from(["wheel", "editable"]),
       py=PYTHONS)
def test_a_probe_that_cannot_start_its_tool_gets_the_probe_advice(
        tool: str, error: str, shape: str, what: str, py: str) -> None:
    probe = "_is_neuron" if tool == "neuron-ls" else "_is_hpu"
    message = error.format(tool=tool)
    tail = [f'        File "/usr/lib/python{py}/subprocess.py", line 1863, in _execute_child',
            "          raise child_exception_type(errno_num, err_msg, err_filename)",
            f"      {message}", "      [end of output]"]
    if shape == "pip":
        head = ["      Traceback (most recent call last):",
                '        File "<string>", line 384, in <module>',
                '        File "<string>", line 300, in get_vllm_version',
                f'        File "<string>", line 222, in {probe}',
                f'        File "/usr/lib/python{py}/subprocess.py", line 503, in run',
                "          with Popen(*popenargs, **kwargs) as process:"]
        log = _PIP_HEAD.format(what=what) + "\n".join(head + tail) + "\n"
    elif shape == "tail":
        log = "\n".join(tail[1:]) + "\n"
    else:
        log = message + "\n"
    sid, fix = signature_advice(log)
    assert sid == "source-build-platform-probe-failed", log
    assert "_is_neuron" in fix and "PATH" in fix and "VLLM_TARGET_DEVICE" in fix, fix


def test_nvcc_missing_under_cuda_home_is_not_the_probe() -> None:
    log = ('      Traceback (most recent call last):\n'
           '        File "<string>", line 262, in get_nvcc_cuda_version\n'
           "      FileNotFoundError: [Errno 2] No such file or directory: '/usr/local/cuda/bin/nvcc'\n"
           "      [end of output]\n")
    sid, _ = signature_advice(log)
    assert sid != "source-build-platform-probe-failed", log


# ---- a rotary embedding sized for another token count ----------------------------------------------

_ROTARY_CALLS = [
    ("{plugin}vllm_ascend/ops/triton/rope.py", "rope_forward_triton", "cos = cos.view(num_tokens, -1)"),
    ("{site}vllm/model_executor/layers/rotary_embedding.py", "forward_native",
     "query = query.view(num_tokens, -1, self.head_size)"),
    ("{site}vllm/model_executor/layers/rotary_embedding/base.py", "forward_static",
     "cos_sin = cos_sin_cache.index_select(0, positions)"),
    ("{plugin}vllm_ascend/ops/rotary_embedding.py", "_rope_forward_oot",
     "query = query.contiguous().view(1, query.shape[0], -1, self.head_size)"),
]


@settings(max_examples=50, deadline=None)
@given(call=st.sampled_from(_ROTARY_CALLS), tokens=st.integers(2, 8192),
       size=st.integers(64, 10 ** 7), broadcast=st.booleans(), py=PYTHONS, site=SITE_PACKAGES,
       plugin=_PLUGIN_ROOTS, prefix=TRACEBACK_PREFIXES)
def test_a_rotary_embedding_sized_for_another_count_gets_the_padding_advice(
        call: tuple[str, str, str], tokens: int, size: int, broadcast: bool, py: str, site: str,
        plugin: str, prefix: str) -> None:
    root = site.format(py=py)
    path, function, code = call
    frames = [(f"{root}vllm/v1/worker/gpu_model_runner.py", "execute_model",
               "model_output = self.model("),
              (f"{root}vllm/model_executor/models/deepseek_v2.py", "forward",
               "q, k = self.rotary_emb(positions, q, k)"),
              (path.format(site=root, plugin=plugin.format(site=root)), function, code)]
    error = (f"RuntimeError: The size of tensor a ({tokens}) must match the size of tensor b "
             f"({tokens + 8}) at non-singleton dimension 0" if broadcast else
             f"RuntimeError: shape '[{tokens}, -1]' is invalid for input of size {size}")
    sid, fix = signature_advice(python_traceback(frames, error, prefix))
    assert sid == "rotary-embedding-token-count-mismatch"
    assert "num_tokens_padded" in fix and "--enforce-eager" in fix, fix


@settings(max_examples=15, deadline=None)
@given(tokens=st.integers(2, 8192), py=PYTHONS, site=SITE_PACKAGES, prefix=TRACEBACK_PREFIXES)
def test_the_same_view_error_in_an_mlp_gets_the_shape_family_with_padding(
        tokens: int, py: str, site: str, prefix: str) -> None:
    root = site.format(py=py)
    frames = [(f"{root}vllm/v1/worker/gpu_model_runner.py", "execute_model",
               "model_output = self.model("),
              (f"{root}vllm/model_executor/models/llama.py", "forward",
               "x = x.view(-1, self.intermediate_size)")]
    log = python_traceback(frames, f"RuntimeError: shape '[-1, 14336]' is invalid for input of "
                                   f"size {tokens * 7}", prefix)
    sid, fix = signature_advice(log)
    assert sid == "tensor-shape-mismatch-in-forward", log
    assert "num_tokens_padded" in fix, fix


# ---- a video without its metadata ------------------------------------------------------------------

_PROCESSORS = ["qwen3_vl", "glm4_1v", "keye", "hunyuan_vision", "qwen3_omni_moe_thinker"]


@settings(max_examples=50, deadline=None)
@given(model=st.sampled_from(_PROCESSORS),
       form=st.sampled_from(["parser", "get", "keys"]), py=PYTHONS, site=SITE_PACKAGES,
       prefix=TRACEBACK_PREFIXES)
def test_a_video_without_metadata_gets_the_pairs(
        model: str, form: str, py: str, site: str, prefix: str) -> None:
    root = site.format(py=py)
    frames = [(f"{root}vllm/multimodal/processing.py", "_apply_hf_processor_text_mm",
               "processed_data = self._call_hf_processor(")]
    if form == "parser":
        frames = [(f"{root}vllm/multimodal/parse.py", "_parse_video_data", "raise ValueError(")]
        error = ("ValueError: Video metadata is required but not found in mm input. Please check "
                 "your video input in `multi_modal_data`")
    else:
        frames.append((f"{root}vllm/model_executor/models/{model}.py", "_call_hf_processor",
                       'video_mm_kwargs["do_sample_frames"] = metadata.get(' if form == "get"
                       else "for k in metadata.keys()"))
        error = f"AttributeError: 'NoneType' object has no attribute '{form}'"
    sid, fix = signature_advice(python_traceback(frames, error, prefix))
    assert sid == "video-input-without-metadata"
    assert "(frames, metadata)" in fix and "video_url" in fix, fix


@settings(max_examples=15, deadline=None)
@given(model=st.sampled_from(_PROCESSORS), attribute=st.sampled_from(["shape", "size", "ndim"]),
       py=PYTHONS, site=SITE_PACKAGES, prefix=TRACEBACK_PREFIXES)
def test_another_none_in_the_processor_is_not_missing_metadata(
        model: str, attribute: str, py: str, site: str, prefix: str) -> None:
    root = site.format(py=py)
    frames = [(f"{root}vllm/model_executor/models/{model}.py", "_call_hf_processor",
               f'grid = processed_outputs["pixel_values"].{attribute}')]
    log = python_traceback(frames, f"AttributeError: 'NoneType' object has no attribute "
                                   f"'{attribute}'", prefix)
    report_id, _ = signature_advice(log)
    assert report_id != "video-input-without-metadata", log


# ---- the interpreter's words about None name no place -----------------------------------------------

@settings(max_examples=30, deadline=None)
@given(attribute=st.sampled_from(["get", "keys"]), prefix=TRACEBACK_PREFIXES,
       ray=st.sampled_from(["", "(TaskRunner pid=210367) ", "(WorkerDict pid=9912) "]))
def test_none_words_alone_do_not_claim_the_video_metadata_signature(
        attribute: str, prefix: str, ray: str) -> None:
    """`'NoneType' object has no attribute 'get'` with no frame: any line that meets a None
    prints it (NoneType is the interpreter's type name, not a program entity; vLLM's index holds
    the words only as a weak template), so the exact signature needs its frames."""
    log = f"{ray}{prefix}AttributeError: 'NoneType' object has no attribute '{attribute}'\n"
    sid, _ = signature_advice(log)
    assert sid != "video-input-without-metadata", log


def test_interpreter_type_names_and_weak_templates_are_generic() -> None:
    from logsleuth.model import ErrorEvent, EventKind, Process
    from logsleuth.signatures.generic import names_nothing, vllm_spread

    assert names_nothing("^AttributeError: 'NoneType' object has no attribute '(?:get|keys)'",
                         regex=True)
    assert names_nothing("'NoneType' object is not iterable", regex=True)
    assert not names_nothing("'NoneType' object has no attribute 'fused_experts'", regex=True)
    event = ErrorEvent(id=1, kind=EventKind.EXCEPTION, exception="AttributeError",
                       message="'NoneType' object has no attribute 'get'", process=Process("main"),
                       line=1, first_line=1, last_line=1)
    assert vllm_spread(event) is None
