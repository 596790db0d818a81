"""Ascend failures whose remedies CANN's, torch_npu's and vllm-ascend's own documentation state
(issue 11, session 29), each generated over its wordings and the ways a log shows it, with a near
miss:

- HCCL refusing the rank table it was given (CANN's EI0004 and EI0014 in the wordings CANN's
  releases gave them), under torch_npu's HCCL function error for the communicator's creation:
  hccl-ranktable-invalid, whose fix names the rank-table knobs (`gen_ranktable.sh`,
  `DISAGGREGATED_PREFILL_RANK_TABLE_PATH`, `RANK_TABLE_FILE`); the same creation failing on a
  socket time-out or a notify wait does not get it."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from v1log import signature_advice

_PREFIXES = st.sampled_from(["", "(Worker_TP0 pid=7301) ERROR 11-04 09:12:58 [multiproc_executor.py:597] ",
                             "(Worker_TP3_EP3 pid=412) ERROR 02-10 18:00:01 [multiproc_executor.py:703] ",
                             "[rank0]: ", "(EngineCore_DP0 pid=90) ERROR 11-04 09:12:58 [core.py:708] "])
_CALLS = st.sampled_from(["HcclCommInitClusterInfoConfig(rankTableFile, rank, &config, &comm)",
                          "HcclCommInitClusterInfo(rankTableFile, rank, &comm)",
                          "HcclCommInitRootInfoConfig(numRanks, &rootInfo, rank, config, &(comm->hcclComm_))"])
_REASONS = st.sampled_from(["The ranktable config devId is inconsistent with the local devId.",
                            "rank_id 9 is out of range of rank_size 8",
                            "device_ip 29.6.42.11 does not match the local device",
                            "server_list is empty"])
# CANN's EI0004 and EI0014 sentences, as its HCCL error reference gave them over releases
_RANKTABLE = st.one_of(
    st.builds(lambda r: f"EI0004: The ranktable or rank is invalid,Reason:[{r}]. Please check the "
                        "configured ranktable. [{\"server_count\":\"2\"}]", _REASONS),
    # CANN 8.2+ under torch_npu 2.6+: the process, the time and the code's name before the code
    st.builds(lambda r: f"[PID: 412] 2026-11-04-09:12:58.344.120 Config_Error_Ranktable_Configuration"
                        f"(EI0004): The ranktable or rank is invalid,Reason:[{r}].", _REASONS),
    st.builds(lambda r: f"EI0014: The ranktable information check failed, Reason:[{r}].", _REASONS),
    st.just("EI0014: Value 3 for ranktable variable super_device_id is invalid. Expected value: unique."),
)
_OTHER_HCCL = st.sampled_from([
    "EI0006: Getting socket times out. Reason: 1. The remote does not initiate a connect request.",
    "EI0002: An timeout occurs when the Notify register waits for execution. Waiting peer rank: 5",
])


def _log(prefix: str, call: str, cann: str, pid: int) -> str:
    frames = [
        'Traceback (most recent call last):',
        '  File "/vllm-workspace/vllm-ascend/vllm_ascend/worker/worker_v1.py", line 221, in init_device',
        '    self._init_worker_distributed_environment()',
        '  File "/usr/local/python3.11.13/lib/python3.11/site-packages/torch/distributed/distributed_c10d.py", line 4635, in barrier',
        '    work = group.barrier(opts=opts)',
        f'RuntimeError: createHCCLComm:torch_npu/csrc/distributed/ProcessGroupHCCL.cpp:2372 HCCL function error: {call}, error code is 3',
        f'[ERROR] 2026-11-04-09:12:58 (PID:{pid}, Device:0, RankID:-1) ERR02200 DIST call hccl api failed.',
        f'{cann.split(": ", 1)[0]}: [PID: {pid}] 2026-11-04-09:12:58.344.120 {cann.split(": ", 1)[1]}'
        if cann.startswith("EI") else cann,
    ]
    return "\n".join(prefix + line for line in frames) + "\n"


@settings(max_examples=40, deadline=None)
@given(prefix=_PREFIXES, call=_CALLS, cann=_RANKTABLE, pid=st.integers(2, 999999))
def test_a_rejected_rank_table_gets_the_rank_table_knobs(prefix: str, call: str, cann: str, pid: int) -> None:
    sid, fix = signature_advice(_log(prefix, call, cann, pid))
    assert sid == "hccl-ranktable-invalid"
    for knob in ("gen_ranktable.sh", "DISAGGREGATED_PREFILL_RANK_TABLE_PATH", "RANK_TABLE_FILE",
                 "hccn_tool"):
        assert knob in fix


@settings(max_examples=15, deadline=None)
@given(prefix=_PREFIXES, call=_CALLS, cann=_OTHER_HCCL, pid=st.integers(2, 999999))
def test_another_hccl_failure_at_communicator_creation_is_not_a_rank_table(
        prefix: str, call: str, cann: str, pid: int) -> None:
    sid, _ = signature_advice(_log(prefix, call, cann, pid))
    assert sid != "hccl-ranktable-invalid"


# ---- the documented remedies three families lacked (signatures/documented-remedies.yaml) ----------

@settings(max_examples=20, deadline=None)
@given(prefix=_PREFIXES, local=st.sampled_from(["8.2.RC1", "8.3.RC1", "8.5.0"]),
       remote=st.sampled_from(["8.1.RC1", "8.0.0", "7.0.0"]), peer=st.integers(1, 63))
def test_cann_versions_inconsistent_between_ranks_names_the_plog_check(
        prefix: str, local: str, remote: str, peer: int) -> None:
    cann = (f"EI0008: The CANN versions are inconsistent: localCannVersion={local}, "
            f"remoteCannVersion={remote}, remoteRank={peer}.")
    sid, fix = signature_advice(_log(prefix, "HcclCommInitRootInfoConfig(numRanks, &rootInfo, rank, "
                                     "config, &(comm->hcclComm_))", cann, 880))
    assert sid == "hccl-collective-arguments-inconsistent"
    assert "CannVersion" in fix and "ASCEND_GLOBAL_LOG_LEVEL" in fix


def _worker_error(prefix: str, frames: list[tuple[str, str, str]], error: str) -> str:
    lines = ["Traceback (most recent call last):"]
    for path, func, code in frames:
        lines += [f'  File "{path}", line 212, in {func}', f"    {code}"]
    lines.append(error)
    return "\n".join(prefix + line for line in lines) + "\n"


@settings(max_examples=20, deadline=None)
@given(prefix=_PREFIXES, npus=st.sampled_from([4, 8, 16]), cpus=st.integers(4, 30),
       minimum=st.sampled_from([3, 5]))
def test_too_few_cpus_for_the_ascend_cpu_binding_names_the_cpuset(
        prefix: str, npus: int, cpus: int, minimum: int) -> None:
    error = ("RuntimeError: Insufficient CPUs for binding with CPU role reservations: "
             f"total_allowed={cpus}, total_npus={npus}, min_per_npu={cpus // npus} (<{minimum}). "
             f"Need at least {npus * minimum} CPUs in cpuset.")
    log = _worker_error(prefix, [("/vllm-workspace/vllm-ascend/vllm_ascend/worker/worker.py", "init_device",
                                  "self._bind_cpus()"),
                                 ("/vllm-workspace/vllm-ascend/vllm_ascend/cpu_binding.py", "bind_cpus",
                                  "raise RuntimeError(")], error)
    sid, fix = signature_advice(log)
    assert sid == "ascend-cpu-binding-failed"
    assert "cpuset" in fix and "enable_cpu_binding" in fix


@settings(max_examples=15, deadline=None)
@given(prefix=_PREFIXES, kind=st.sampled_from(["audio", "video"]),
       where=st.sampled_from(["/usr/local/python3.11.13/lib/python3.11/site-packages/",
                              "/usr/local/lib/python3.10/dist-packages/"]))
def test_missing_media_extras_name_the_plugin_faqs_package(prefix: str, kind: str, where: str) -> None:
    log = _worker_error(prefix, [(f"{where}vllm/multimodal/{kind}.py", "load_bytes",
                                  f"PlaceholderModule(...)")],
                        f"ImportError: Please install vllm[{kind}] for {kind} support")
    sid, fix = signature_advice(log)
    assert sid == "multimodal-extras-not-installed"
    assert "qwen-omni-utils" in fix and f"vllm[{kind}]" in fix


@settings(max_examples=15, deadline=None)
@given(prefix=_PREFIXES, labelled=st.booleans(), rank=st.integers(0, 63), dev=st.integers(0, 15))
def test_a_roce_cqe_error_names_hccls_collective_retry(prefix: str, labelled: bool, rank: int, dev: int) -> None:
    text = (f"An error CQE occurred during operator execution. Local information: server 10.0.2.15, "
            f"device ID {dev}, device IP 29.6.12.5. Peer information: server 10.0.2.16.")
    cann = (f"[PID: 412] 2026-08-02-03:11:47.228.019 Execution_Error_ROCE_CQE(EI0013): {text}"
            if labelled else f"EI0013: {text}")
    sid, fix = signature_advice(_log(prefix, "HcclAllReduce(...)", cann, 412))
    assert sid == "hccl-roce-error-cqe"
    assert "HCCL_OP_RETRY_ENABLE" in fix and "hccn_tool" in fix


# ---- the fused MC2 operators VLLM_ASCEND_ENABLE_FUSED_MC2 selects (vllm-ascend's env-var page) ----

_FUSED_OPS = st.sampled_from(["aclnnDispatchFFNCombine", "aclnnDispatchFFNCombineV2", "aclnnMegaMoe"])
_OTHER_OPS = st.sampled_from(["aclnnGroupedMatmulV4", "aclnnFusedInferAttentionScoreV3", "aclnnMoeInitRouting"])


def _operator_log(prefix: str, op: str, pid: int) -> str:
    return _worker_error(prefix, [
        ("/vllm-workspace/vllm-ascend/vllm_ascend/worker/model_runner_v1.py", "execute_model",
         "hidden_states = self.model(input_ids, positions)"),
        ("/vllm-workspace/vllm-ascend/vllm_ascend/ops/fused_moe/moe_comm_method.py", "fused_experts",
         "out = torch.ops._C_ascend.dispatch_ffn_combine(**kwargs)"),
    ], f"RuntimeError: call {op} failed, detail:EZ9999: Inner Error!\n"
       f"EZ9999: [PID: {pid}] 2026-09-30-12:00:41.310.007 tiling check failed.")


@settings(max_examples=20, deadline=None)
@given(prefix=_PREFIXES, op=_FUSED_OPS, pid=st.integers(2, 999999))
def test_a_fused_mc2_operator_failure_names_its_switch(prefix: str, op: str, pid: int) -> None:
    sid, fix = signature_advice(_operator_log(prefix, op, pid))
    assert sid == "ascend-moe-distribute-dispatch-failed"
    assert "VLLM_ASCEND_ENABLE_FUSED_MC2" in fix


@settings(max_examples=10, deadline=None)
@given(prefix=_PREFIXES, op=_OTHER_OPS, pid=st.integers(2, 999999))
def test_another_operator_in_the_moe_layer_is_not_the_fused_mc2(prefix: str, op: str, pid: int) -> None:
    sid, _ = signature_advice(_operator_log(prefix, op, pid).replace("dispatch_ffn_combine", "npu_grouped_matmul"))
    assert sid != "ascend-moe-distribute-dispatch-failed"


# ---- vllm-ascend's graph compiler (AscendCompiler: npugraph_ex, the fusion passes) --------------

_ASCEND_COMPILER_PATHS = st.sampled_from([
    [("/vllm-workspace/vllm-ascend/vllm_ascend/compilation/compiler_interface.py", "npugraph_ex_compile",
      "return nfx.compile_fx(graph, example_inputs, options)"),
     ("{site}npugraph_ex/npu_fx_compiler.py", "compile_fx", "gm = self._optimize(gm)")],
    [("/vllm-workspace/vllm-ascend/vllm_ascend/compilation/compiler_interface.py", "fusion_pass_compile",
      "graph = pass_manager(graph)"),
     ("/vllm-workspace/vllm-ascend/vllm_ascend/compilation/passes/qknorm_rope_fusion_pass.py", "__call__",
      "self.patterns.apply(graph)")],
    [("{site}vllm_ascend/compilation/graph_fusion_pass_manager.py", "__call__", "pass_(graph)"),
     ("{site}vllm_ascend/compilation/passes/norm_quant_fusion_pass.py", "__call__", "matched = self.apply(graph)")],
])
_INNER = st.sampled_from(["RuntimeError: npu_add_rms_norm: expected a tensor of dtype float16 or bfloat16, got float32",
                          "AssertionError: pattern replacement produced 3 outputs, expected 2",
                          "KeyError: 'val'",
                          "ModuleNotFoundError: No module named 'triton'"])
_SITES = st.sampled_from(["/usr/local/python3.11.13/lib/python3.11/site-packages/",
                          "/usr/local/lib/python3.10/dist-packages/"])


def _compile_failure(prefix: str, inner_frames: list[tuple[str, str, str]], inner: str, site: str) -> str:
    frames = [(f"{site}torch/_dynamo/output_graph.py", "_call_user_compiler",
               "compiled_fn = compiler_fn(gm, self.example_inputs())"),
              (f"{site}vllm/compilation/backends.py", "compile",
               "compiled_graph, handle = self.compiler.compile(")]
    frames += [(p.format(site=site), f, c) for p, f, c in inner_frames]
    error = ("torch._dynamo.exc.BackendCompilerFailed: backend='<vllm.compilation.backends.VllmBackend "
             f"object at 0xfffd2c1e8d10>' raised:\n{inner}\n\n"
             'Set TORCH_LOGS="+dynamo" and TORCHDYNAMO_VERBOSE=1 for more information')
    return _worker_error(prefix, frames, error)


@settings(max_examples=25, deadline=None)
@given(prefix=_PREFIXES, path=_ASCEND_COMPILER_PATHS, inner=_INNER, site=_SITES)
def test_the_ascend_graph_compiler_failing_names_its_switches(
        prefix: str, path: list[tuple[str, str, str]], inner: str, site: str) -> None:
    sid, fix = signature_advice(_compile_failure(prefix, path, inner, site))
    assert sid == "ascend-graph-compiler-failed"
    for knob in ("enable_npugraph_ex", "npugraph_ex_config", "fuse_qknorm_rope", "fuse_norm_quant",
                 "PIECEWISE", "--enforce-eager"):
        assert knob in fix


@settings(max_examples=10, deadline=None)
@given(prefix=_PREFIXES, inner=_INNER, site=_SITES)
def test_inductor_failing_on_a_gpu_is_not_the_ascend_compiler(prefix: str, inner: str, site: str) -> None:
    path = [(f"{site}torch/_inductor/compile_fx.py", "compile_fx", "return aot_autograd(...)(model_, inputs)"),
            (f"{site}torch/_inductor/codecache.py", "load_by_key_path", "mod = _reload_python_module(key, path)")]
    sid, _ = signature_advice(_compile_failure(prefix, path, inner, site))
    assert sid != "ascend-graph-compiler-failed"


@settings(max_examples=15, deadline=None)
@given(prefix=_PREFIXES, npu=st.integers(0, 15), gib=st.sampled_from(["512.00 MiB", "2.00 GiB", "1.25 GiB"]),
       where=st.sampled_from([("vllm_ascend/worker/model_runner_v1.py", "profile_run"),
                              ("vllm_ascend/ops/fused_moe/token_dispatcher.py", "token_dispatch")]))
def test_an_npu_out_of_memory_names_hccls_buffers(prefix: str, npu: int, gib: str, where: tuple[str, str]) -> None:
    error = (f"RuntimeError: NPU out of memory. Tried to allocate {gib} (NPU {npu}; 60.97 GiB total capacity; "
             "49.80 GiB already allocated; 49.80 GiB current active; 1.12 GiB free; 51.06 GiB reserved in "
             "total by PyTorch)")
    log = _worker_error(prefix, [(f"/vllm-workspace/vllm-ascend/{where[0]}", where[1], "out = self.forward(x)")],
                        error)
    sid, fix = signature_advice(log)
    assert sid == "accelerator-oom-npu-xpu"
    assert "HCCL_BUFFSIZE" in fix and "PYTORCH_NPU_ALLOC_CONF" in fix
