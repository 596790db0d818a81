"""Classes behind session 28's nineteenth split's cold fix misses (and one moved in from the
held-out set), each generated over its wordings and the ways a log shows it, with a near miss:

- an ImportError of a name a vLLM module no longer (or never) offered, its message wrapped before
  `from` by a terminal or a reporter, and the importing file named in the log's own words
  (`at <file>.py:<line>`) rather than in a traceback: the API-drift lookup (signatures/drift.yaml,
  logsleuth/index/drift.py) answers, naming the importing package; chat-template-failure does not
  answer an import of a function whose name says "chat_template";
- a name Ray's own modules lack (`cannot import name 'X' from 'ray.<module>'`, a missing Ray
  submodule, a Ray module without the attribute): ray-release-lacks-imported-name, whose fix pins
  Ray to the vLLM build's release; a `ray` folder that is no installed Ray, and Ray itself missing,
  do not get it;
- a request outgrowing its fixed-width row (NumPy's one-dimensional "could not broadcast input
  array from shape (N,) into shape (M,)" in V1's block table or token buffer, 0.29's own "exceeds
  row capacity"): the family request-row-overflow-block-table, naming speculative blocks, prefix
  caching for hybrid models and V0's capture length; V0's CUDA-graph copy keeps its exact signature,
  and a broadcast of more dimensions (an image) gets neither;
- the draft-probability cache of probabilistic drafting lacking a drafted request (missing row,
  too few positions, token ids that do not match): spec-decode-draft-probabilities-not-cached,
  whose fix drafts greedily; a configuration check naming `draft_sample_method` does not get it;
- the free-memory check of a second instance on a GPU another holds: the family's fix names the
  KV-sharing layer whose patch was not active (kvcached's autopatch `.pth`)."""

from __future__ import annotations

from functools import cache

from hypothesis import given, settings
from hypothesis import strategies as st

from logsleuth.index.drift import default_wording, name_drift
from logsleuth.index.symbols import default_symbols
from logsleuth.pipeline import explain_text
from v1log import PYTHONS, SITE_PACKAGES, TRACEBACK_PREFIXES, python_traceback, signature_advice

# ---- an ImportError of a vLLM name, wrapped, its importer named in the log's words ---------------


@cache
def _drifted_names() -> tuple[tuple[str, str, str], ...]:
    """(name, module, finding): names a vLLM module offered in some indexed release and does not in
    the newest, spread over the index (every fifteenth), each read by a drift.yaml shape."""
    symbols = default_symbols()
    shapes = default_wording().shapes
    found = []
    for name, homes in sorted(symbols.names.items()):
        if name.endswith(("Error", "Exception")):
            # the root reader takes an import naming an engine-dead class (`AsyncEngineDeadError`)
            # for that error's report of a failure elsewhere: a root question, not this class's
            continue
        for home in homes:
            line = f"ImportError: cannot import name '{name}' from '{home.module}'"
            finding = name_drift(symbols, home.module, name, None)
            if finding is not None and any(shape.when.search(line) for shape in shapes):
                found.append((name, home.module, finding[0]))
                break
    return tuple(found[::15])


_BREAKS = st.sampled_from([" ", "\n", "\n  ", "  \n"])
_IMPORTERS = st.sampled_from(["lm_eval/models/vllm_causallms.py", "lighteval/models/vllm/vllm.py",
                              "opencompass/models/vllm.py", "evalscope/backend/vllm_model.py",
                              "my_harness/serve.py"])


@settings(max_examples=60, deadline=None)
@given(data=st.data(), wrap=_BREAKS, importer=_IMPORTERS, line=st.integers(1, 900),
       py=PYTHONS, site=SITE_PACKAGES, named=st.booleans())
def test_a_wrapped_import_of_a_drifted_vllm_name_names_its_importer(
        data: st.DataObject, wrap: str, importer: str, line: int, py: str, site: str,
        named: bool) -> None:
    name, module, _ = data.draw(st.sampled_from(_drifted_names()))
    where = site.format(py=py) + module.replace(".", "/") + ".py"
    log = f"ImportError: cannot import name '{name}'{wrap}from '{module}' ({where})\n"
    if named:
        log += f"  at {importer}:{line}\n"
    report = explain_text(log)
    assert report.signature is not None, log
    fix = report.signature.fix
    assert "**API drift**" in fix and f"`{name}`" in fix, fix
    package = importer.split("/", 1)[0]
    assert (f"`{package}` makes the call (`{importer}`)" in fix) == named, fix
    assert report.signature.id != "chat-template-failure"


@settings(max_examples=20, deadline=None)
@given(module=st.sampled_from(["vllm.entrypoints.chat_utils", "vllm.renderers.hf",
                               "vllm.transformers_utils.tokenizer"]),
       name=st.sampled_from(["resolve_hf_chat_template", "load_chat_template",
                             "apply_hf_chat_template", "validate_chat_template"]),
       wrap=_BREAKS)
def test_an_import_of_a_function_named_for_chat_templates_is_no_template_failure(
        module: str, name: str, wrap: str) -> None:
    signature, _ = signature_advice(f"ImportError: cannot import name '{name}'{wrap}from "
                                    f"'{module}'\n")
    assert signature != "chat-template-failure"


def test_a_template_that_fails_to_render_keeps_the_chat_template_family() -> None:
    signature, _ = signature_advice(
        "ValueError: The chat template of this model could not render the request: the 'tool' "
        "role is not accepted\n")
    assert signature == "chat-template-failure"


def test_an_importer_inside_vllm_is_not_named_as_the_caller() -> None:
    name, module, _ = _drifted_names()[0]
    log = (f"ImportError: cannot import name '{name}'\nfrom '{module}'\n"
           "  at vllm/entrypoints/openai/api_server.py:41\n")
    report = explain_text(log)
    assert report.signature is not None
    assert "**API drift**" in report.signature.fix
    assert "makes the call" not in report.signature.fix


# ---- a name Ray's own modules lack -----------------------------------------------------------------

_RAY_MODULES = st.sampled_from(["ray.train.constants", "ray.air.util.torch_dist",
                                "ray.util.scheduling_strategies", "ray.experimental.channel",
                                "ray.dag", "ray.util.placement_group", "ray.air"])
_RAY_NAMES = st.sampled_from(["DEFAULT_NCCL_SOCKET_IFNAME", "TorchDistributedWorker",
                              "init_torch_dist_process_group", "NodeAffinitySchedulingStrategy",
                              "MultiOutputNode", "ChannelOutputType", "get_current_placement_group"])


@st.composite
def _ray_error(draw: st.DrawFn) -> str:
    module, name = draw(_RAY_MODULES), draw(_RAY_NAMES)
    site = draw(SITE_PACKAGES).format(py=draw(PYTHONS))
    return draw(st.sampled_from([
        f"ImportError: cannot import name '{name}' from '{module}' "
        f"({site}{module.replace('.', '/')}.py)",
        f"ImportError: cannot import name '{name}' from '{module}'",
        f"ModuleNotFoundError: No module named '{module}'",
        f"AttributeError: module '{module}' has no attribute '{name}'"]))


@settings(max_examples=60, deadline=None)
@given(error=_ray_error(), how=st.sampled_from(["bare", "quoted", "traceback"]),
       prefix=TRACEBACK_PREFIXES, site=SITE_PACKAGES, py=PYTHONS)
def test_a_name_rays_modules_lack_pins_ray_to_the_builds_release(
        error: str, how: str, prefix: str, site: str, py: str) -> None:
    if how == "bare":
        log = error + "\n"
    elif how == "quoted":
        log = f"> {error}\n"
    else:
        vllm = site.format(py=py) + "vllm/"
        log = python_traceback([(f"{vllm}engine/llm_engine.py", "<module>",
                                 "from vllm.executor.ray_utils import initialize_ray_cluster"),
                                (f"{vllm}executor/ray_utils.py", "<module>",
                                 "from ray.util.scheduling_strategies import ("
                                 "PlacementGroupSchedulingStrategy)")], error, prefix)
    signature, fix = signature_advice(log)
    assert signature == "ray-release-lacks-imported-name", log
    assert "Pin Ray" in fix and "--distributed-executor-backend mp" in fix


@settings(max_examples=15, deadline=None)
@given(error=st.sampled_from(["ImportError: cannot import name 'serve' from 'ray' "
                              "(unknown location)",
                              "ImportError: cannot import name 'remote' from 'ray' "
                              "(unknown location)",
                              "ModuleNotFoundError: No module named 'ray'"]))
def test_a_ray_folder_that_is_no_install_and_ray_missing_are_other_failures(error: str) -> None:
    log = python_traceback([("/workspace/launch.py", "<module>", "from ray import serve")], error)
    signature, _ = signature_advice(log)
    assert signature != "ray-release-lacks-imported-name"


# ---- a request outgrowing its block-table or token row ---------------------------------------------

@st.composite
def _overflow(draw: st.DrawFn) -> tuple[int, int]:
    width = draw(st.integers(0, 4096))
    return width + draw(st.integers(1, 64)), width


@settings(max_examples=60, deadline=None)
@given(shapes=_overflow(), how=st.sampled_from(["bare", "wrapped", "cut", "v1"]),
       prefix=TRACEBACK_PREFIXES, site=SITE_PACKAGES, py=PYTHONS)
def test_a_request_outgrowing_its_row_gets_the_row_overflow_family(
        shapes: tuple[int, int], how: str, prefix: str, site: str, py: str) -> None:
    wanted, left = shapes
    message = f"ValueError: could not broadcast input array from shape ({wanted},) into shape"
    if how == "bare":
        log = f"{message} ({left},)\n"
    elif how == "wrapped":
        log = f"{message}\n({left},)\n"
    elif how == "cut":
        log = f"{message}\n"
    else:
        worker = site.format(py=py) + "vllm/v1/worker/"
        log = python_traceback(
            [(f"{worker}gpu_model_runner.py", "_update_states",
              "self.input_batch.block_table.append_row(new_block_ids, req_index)"),
             (f"{worker}block_table.py", "append_row",
              "block_table.append_row(block_ids[i], row_idx)"),
             (f"{worker}block_table.py", "append_row",
              "self.block_table.np[row_idx, start : start + num_blocks] = block_ids")],
            f"{message} ({left},)", prefix)
    signature, fix = signature_advice(log)
    assert signature == "request-row-overflow-block-table", log
    for knob in ("speculative blocks", "--enable-prefix-caching", "num_speculative_tokens",
                 "--max-seq-len-to-capture"):
        assert knob in fix, knob


@settings(max_examples=20, deadline=None)
@given(group=st.integers(0, 3), capacity=st.integers(1, 4096), over=st.integers(1, 8),
       request=st.from_regex(r"(?:cmpl|chatcmpl)-[0-9a-f]{8,16}(?:-0)?", fullmatch=True))
def test_the_block_tables_own_capacity_check_gets_the_same_family(
        group: int, capacity: int, over: int, request: str) -> None:
    signature, _ = signature_advice(
        f"(Worker_TP0 pid=311) ERROR 03-02 11:20:45 [multiproc_executor.py:852] RuntimeError: "
        f"Block table write for request {request}, group {group} exceeds row capacity "
        f"({capacity + over} > {capacity})\n")
    assert signature == "request-row-overflow-block-table"


@settings(max_examples=20, deadline=None)
@given(shapes=_overflow(), site=SITE_PACKAGES, py=PYTHONS)
def test_v0s_cuda_graph_copy_keeps_its_exact_signature(shapes: tuple[int, int], site: str,
                                                       py: str) -> None:
    wanted, left = shapes
    vllm = site.format(py=py) + "vllm/"
    log = python_traceback(
        [(f"{vllm}worker/model_runner.py", "build",
          "attn_metadata = self.attn_metadata_builder.build("),
         (f"{vllm}attention/backends/utils.py", "build",
          "input_block_tables[i, :len(block_table)] = block_table")],
        f"ValueError: could not broadcast input array from shape ({wanted},) into shape "
        f"({left},)")
    signature, _ = signature_advice(log)
    assert signature == "cuda-graph-block-table-exceeds-capture-length"


@settings(max_examples=20, deadline=None)
@given(side=st.integers(32, 1024), channels=st.integers(2, 4))
def test_a_broadcast_of_more_dimensions_is_no_row_overflow(side: int, channels: int) -> None:
    signature, _ = signature_advice(
        f"ValueError: could not broadcast input array from shape ({side},{side},{channels + 1}) "
        f"into shape ({side},{side},{channels})\n")
    assert signature not in ("request-row-overflow-block-table",
                             "cuda-graph-block-table-exceeds-capture-length")


# ---- the draft-probability cache lacking a drafted request ----------------------------------------

_DRAFT_PROB_ERRORS = st.sampled_from([
    "Missing cached draft probabilities for request {req}; cannot verify draft token/probability "
    "alignment.",
    "Missing cached draft probabilities for request {req}; cannot run exact probabilistic "
    "speculative rejection sampling without the draft distribution for every drafted request.",
    "Cached draft probabilities do not have enough draft positions for request {req}: "
    "available={n}, needed={m}.",
    "Cached draft probability token ids do not match verifier draft tokens for request {req}; "
    "refusing to use misaligned draft probabilities.",
    "Cached draft probability row count does not match request ids: rows={n}, req_ids={m}."])


@settings(max_examples=50, deadline=None)
@given(text=_DRAFT_PROB_ERRORS, req=st.from_regex(r"(?:cmpl|chatcmpl)-[0-9a-f]{16}", fullmatch=True),
       n=st.integers(0, 8), m=st.integers(1, 9), prefix=TRACEBACK_PREFIXES,
       traceback=st.booleans(), site=SITE_PACKAGES, py=PYTHONS)
def test_a_drafted_request_without_its_cached_probabilities_drafts_greedily(
        text: str, req: str, n: int, m: int, prefix: str, traceback: bool, site: str,
        py: str) -> None:
    error = "RuntimeError: " + text.format(req=req, n=n, m=m)
    if traceback:
        vllm = site.format(py=py) + "vllm/v1/"
        log = python_traceback(
            [(f"{vllm}worker/gpu_model_runner.py", "_get_spec_decode_draft_probs",
              "return get_aligned_draft_probs("),
             (f"{vllm}spec_decode/draft_prob_alignment.py", "get_aligned_draft_probs",
              "raise RuntimeError(")], error, prefix)
    else:
        log = prefix + error + "\n"
    signature, fix = signature_advice(log)
    assert signature == "spec-decode-draft-probabilities-not-cached", log
    assert '"draft_sample_method": "greedy"' in fix and "--speculative-config" in fix


def test_a_configuration_check_naming_the_draft_sampling_is_no_missing_cache() -> None:
    for text in ("ValueError: Speculative decoding with watermarking requires "
                 "draft_sample_method='probabilistic'.",
                 "ValueError: use_local_argmax_reduction is not compatible with "
                 "draft_sample_method='probabilistic'."):
        signature, _ = signature_advice(text + "\n")
        assert signature != "spec-decode-draft-probabilities-not-cached", text


# ---- a second instance's free-memory check: the sharing layer's patch -----------------------------

@settings(max_examples=25, deadline=None)
@given(total=st.sampled_from([23.55, 39.39, 79.25, 93.0, 139.8]), held=st.floats(0.05, 0.6),
       utilization=st.sampled_from([0.8, 0.85, 0.9, 0.95]), prefix=TRACEBACK_PREFIXES)
def test_a_second_instance_below_its_fraction_is_told_about_the_sharing_layers_patch(
        total: float, held: float, utilization: float, prefix: str) -> None:
    free = round(total * (1 - held), 2)
    log = (f"{prefix}ValueError: Free memory on device ({free}/{total} GiB) on startup is less "
           f"than desired GPU memory utilization ({utilization}, "
           f"{round(total * utilization, 2)} GiB). Decrease GPU memory utilization or reduce GPU "
           "memory used by other processes.\n")
    signature, fix = signature_advice(log)
    assert signature == "free-memory-below-gpu-memory-utilization"
    for knob in ("--gpu-memory-utilization", "ENABLE_KVCACHED=true", "tools/dev_copy_pth.py",
                 "--enable-sleep-mode"):
        assert knob in fix, knob
