"""Classes whose advice must name the remedy that holds for the whole class, from session 21's
random development split (each generated over its members, eras and call paths, with a near miss
that keeps its own advice):

- a checkpoint tensor with no parameter in vLLM's model: the weight-name family names the output
  head of a model that ties it to its embeddings (`tie_word_embeddings`, vllm#6758) among its
  layouts, for the keys no exact signature reads (a retyped or cut name);
- a Ray worker that cannot register with the raylet: on one machine, where the Ray instance is
  only the local one started for tensor parallelism, vLLM's multiprocessing executor
  (`--distributed-executor-backend mp`) needs no Ray at all;
- a start-up or an engine death whose cause is not in the log: under Ray (an engine built inside
  an actor, as RL trainers and Ray Serve do) the engine core's own traceback is in the Ray
  worker's log files (`/tmp/ray/session_latest/logs/worker-*.err`), so every such family says
  where to look there;
- CANN's fused-infer-attention kernel refusing the model's head size for its input layout
  (`queryD(N), keyD(N) and valueD(N) must be ...`): the model's `head_dim` against what the
  installed vllm-ascend and CANN take, upgraded together;
- a bare KeyError on a request id where the log shows KV transfer between instances (the
  connector vLLM created, its kv_transfer_config, a disaggregation proxy's prefill or decode
  instance): the handover's addresses, `VLLM_NIXL_SIDE_CHANNEL_HOST` first (facts.yaml
  `kv_transfer`);
- a client's report of the server's 500: the reason is in the server's log, and for chat requests
  the messages' shape against the chat template (`--chat-template-content-format string`, or the
  client's text-only switch, smolagents' `flatten_messages_as_text`)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from logsleuth.model import SignatureKind
from logsleuth.signatures import default_signatures
from v1log import python_traceback, signature_advice

from v1log import PYTHONS as _PY, SITE_PACKAGES as _SITE, TRACEBACK_PREFIXES as _PREFIX


# ---- a checkpoint tensor vLLM's model has no parameter for --------------------------------------

_LOADERS = st.sampled_from([
    # V0 of 2024: the model loader calls the model class's load_weights
    [("vllm/model_executor/model_loader.py", "get_model",
      "model.load_weights(model_config.model, model_config.download_dir,")],
    # later: the default loader, then the model's load_weights through AutoWeightsLoader
    [("vllm/model_executor/model_loader/loader.py", "load_model",
      "loaded_weights = model.load_weights(self._get_all_weights(model_config, model))"),
     ("vllm/model_executor/models/utils.py", "load_weights",
      "autoloaded_weights = set(self._load_module(\"\", self.module, weights))")],
])


@settings(max_examples=30, deadline=None)
@given(model=st.sampled_from(["gemma", "llama", "qwen2", "minicpm", "phi3", "mistral"]),
       key=st.sampled_from(["model.layers.7.self_attn.rotary_emb.inv_freq",
                            "model.layers.0.self_attn.o_proj.input_scale",
                            "language_model.model.embed_tokens.weight",
                            "transformer.h.0.ln_1.bias",
                            "model.layers.2.mlp.down_proj.bias"]),
       loaders=_LOADERS, prefix=_PREFIX, py=_PY, site=_SITE)
def test_a_weight_name_the_model_lacks_names_the_tied_output_head(
        model: str, key: str, loaders: list[tuple[str, str, str]], prefix: str, py: str,
        site: str) -> None:
    root = site.format(py=py)
    frames = ([(root + path, function, code) for path, function, code in loaders]
              + [(root + f"vllm/model_executor/models/{model}.py", "load_weights",
                  "param = params_dict[name]")])
    signature, fix = signature_advice(python_traceback(frames, f"KeyError: '{key}'", prefix))
    assert signature == "weight-name-not-in-model"
    assert "tie_word_embeddings" in fix and "vllm#6758" in fix
    assert "--revision" in fix and "--quantization" in fix  # the family's other layouts stay


@settings(max_examples=10, deadline=None)
@given(model=st.sampled_from(["gemma", "llama", "minicpm"]), prefix=_PREFIX, py=_PY, site=_SITE)
def test_the_output_head_key_itself_keeps_its_exact_answer(
        model: str, prefix: str, py: str, site: str) -> None:
    root = site.format(py=py)
    frames = [(root + "vllm/model_executor/model_loader.py", "get_model",
               "model.load_weights(model_config.model, model_config.download_dir,"),
              (root + f"vllm/model_executor/models/{model}.py", "load_weights",
               "param = params_dict[name]")]
    signature, _ = signature_advice(python_traceback(frames, "KeyError: 'lm_head.weight'", prefix))
    assert signature in {"tied-lm-head-weight-in-checkpoint", "lm-head-weight-with-tied-embeddings"}


# ---- a Ray worker that cannot register with its raylet ------------------------------------------

@settings(max_examples=30, deadline=None)
@given(stamp=st.sampled_from(["[2024-06-13 16:11:51,588 E 13261 13261] core_worker.cc:228: ",
                              "[2025-06-01 10:00:40,000 E 81200 81200] core_worker.cc:496: ",
                              "(raylet) [2025-02-11 08:01:02,003 E 912 912] core_worker.cc:513: "]),
       shape=st.sampled_from(["Failed to register worker {wid} to Raylet. IOError: ",
                              "Failed to register worker to Raylet: IOError: ",
                              "Failed to register worker with raylet: IOError: "]),
       reason=st.sampled_from(["No such file or directory",
                               "Failed to read data from the socket: End of file",
                               "Connection refused"]),
       started=st.sampled_from([
           "", "2024-06-13 16:11:50,396 INFO worker.py:1752 -- Started a local Ray instance.\n",
           "2025-06-01 10:00:00,001\tINFO worker.py:1888 -- Started a local Ray instance. View "
           "the dashboard at 127.0.0.1:8265\n"]))
def test_a_worker_the_raylet_never_registered_names_the_multiprocessing_executor(
        stamp: str, shape: str, reason: str, started: str) -> None:
    wid = "01000000" + "f" * 48
    log = (started + stamp + shape.format(wid=wid)
           + f"[RayletClient] Unable to register worker with raylet. {reason}\n")
    signature, fix = signature_advice(log)
    assert signature == "ray-worker-register-raylet-failed"
    assert "--distributed-executor-backend mp" in fix
    assert 'distributed_executor_backend="mp"' in fix
    assert "num_cpus" in fix  # the scheduler's CPU allowance stays its first remedy


def test_the_gcs_out_of_reach_keeps_its_own_advice() -> None:
    log = ("[2025-06-13 01:49:41,730 E 1 1] gcs_rpc_client.h:179: Failed to connect to GCS at "
           "address 10.0.0.4:6379 within 5 seconds.\n"
           "[2025-06-13 01:50:41,733 W 1 1] gcs_client.cc:178: Failed to connect to GCS within 60 "
           "seconds. GCS may have been killed. The program will terminate.\n")
    signature, _ = signature_advice(log)
    assert signature != "ray-worker-register-raylet-failed"


# ---- a cause the driver never printed: the engine core ran under Ray ---------------------------

@settings(max_examples=30, deadline=None)
@given(procs=st.sampled_from(["{}", "{'EngineCore_DP0': 1}", "{'EngineCore_0': -9}"]),
       where=st.sampled_from(["vllm/v1/engine/utils.py", "{site}vllm/v1/engine/utils.py"]),
       prefix=st.sampled_from(["", "(LLMRayActor pid=4412) ", "(AsyncVLLMInferenceEngine pid=98) ",
                               "(ServeReplica:default:VLLMDeployment pid=311) "]),
       py=_PY, site=_SITE)
def test_a_start_up_failure_reported_to_a_ray_driver_names_the_ray_worker_log(
        procs: str, where: str, prefix: str, py: str, site: str) -> None:
    path = where.format(site=site.format(py=py))
    log = (f'{prefix}File "{path}", line 1178, in wait_for_engine_startup\n'
           f"{prefix}    raise RuntimeError(\n"
           f"{prefix}RuntimeError: Engine core initialization failed. See root cause above. "
           f"Failed core proc(s): {procs}\n")
    signature, fix = signature_advice(log)
    assert signature.startswith("startup-cause-not-in-log")
    assert "/tmp/ray/session_latest/logs/worker-*.err" in fix


def test_every_family_of_a_cause_not_in_the_log_names_the_ray_worker_log() -> None:
    families = [signature for signature in default_signatures()
                if signature.kind is SignatureKind.FAMILY and "-cause-not-in-log" in signature.id]
    assert len(families) >= 6
    for signature in families:
        assert "/tmp/ray/session_latest/logs/worker-*.err" in signature.fix, signature.id


# ---- an Ascend attention kernel that refuses the model's head size -----------------------------

# under a logger's record, as vLLM's workers and engine core log an exception: there CANN's report
# goes on the RuntimeError's message. Pasted bare, CANN's records are records of their own
# (causality.yaml: `E89999: Inner Error!` restates the failure) and the operator family answers.
_ASCEND_PREFIX = st.sampled_from(["(Worker_TP0 pid=4812) ERROR 11-06 11:21:05 "
                                  "[multiproc_executor.py:699] ",
                                  "(VllmWorker rank=2 pid=7731) ERROR 08-19 02:40:11 "
                                  "[multiproc_executor.py:527] ",
                                  "ERROR 05-02 13:00:09 [core.py:396] "])


def _fia_failure(prefix: str, version: str, code: str, detail: str) -> str:
    site = "/usr/local/python3.11.13/lib/python3.11/site-packages/"
    frames = [("/vllm-workspace/vllm-ascend/vllm_ascend/attention/attention_v1.py", "forward",
               "output, _ = torch_npu.npu_fused_infer_attention_score("),
              (site + "torch/_ops.py", "__call__", "return self._op(*args, **kwargs)")]
    error = (f"RuntimeError: npu_fused_infer_attention_score_symint:build/CMakeFiles/torch_npu.dir/"
             f"compiler_depend.ts:208 NPU function error: call aclnnFusedInferAttentionScore"
             f"{version} failed, error code is {code}\n"
             "[ERROR] 2025-11-06-11:21:05 (PID:4812, Device:0, RankID:-1) ERR00100 PTA call acl "
             "api failed.\n"
             "E89999: Inner Error!\n"
             f"E89999[PID: 4812] 2025-11-06-11:21:05.612.749 (E89999):  {detail}")
    return python_traceback(frames, error, prefix)


@settings(max_examples=30, deadline=None)
@given(layout=st.sampled_from(["TND", "BSND", "BNSD"]), dim=st.sampled_from([80, 96, 256, 512]),
       version=st.sampled_from(["V3", "V4", ""]), code=st.sampled_from(["561002", "561103"]),
       prefix=_ASCEND_PREFIX)
def test_a_head_size_the_fused_attention_kernel_refuses_names_the_model_head_dim(
        layout: str, dim: int, version: str, code: str, prefix: str) -> None:
    detail = (f"When layout is {layout}, queryD({dim}), keyD({dim}) and valueD({dim}) must be "
              "same equal 192/128/64, or queryD and keyD equal 192 and valueD equal 128."
              "[FUNC:CheckInputShapeWhenLayoutIsTND][FILE:prompt_flash_attention_tiling.cpp]"
              "[LINE:3701]")
    signature, fix = signature_advice(_fia_failure(prefix, version, code, detail))
    assert signature == "ascend-fused-attention-head-dim-unsupported"
    assert "`head_dim`" in fix and "Upgrade vllm-ascend" in fix and "CANN" in fix


@settings(max_examples=10, deadline=None)
@given(prefix=_ASCEND_PREFIX)
def test_the_same_kernel_out_of_device_memory_keeps_the_operator_family(prefix: str) -> None:
    detail = ("rtMalloc execute failed, reason=[device memory not enough]"
              "[FUNC:FuncErrorReason][FILE:error_message_manage.cc][LINE:53]")
    signature, _ = signature_advice(_fia_failure(prefix, "V3", "507899", detail))
    assert signature != "ascend-fused-attention-head-dim-unsupported"


# ---- a request id one side of a prefill/decode deployment does not know ------------------------

_TRANSFER_SHOWN = st.sampled_from([
    "(EngineCore_DP0 pid=271) INFO 02-03 09:13:02 [factory.py:51] Creating v1 connector with "
    "name: {connector} and engine_id: 3f7c1d2e-5b8a-4c61-9d0e-2a7b6c8e1f90\n",
    "(APIServer pid=1) INFO 02-03 09:12:40 [utils.py:233] non-default args: {{'model_tag': "
    "'org/m', 'kv_transfer_config': KVTransferConfig(kv_connector='{connector}', "
    "kv_role='kv_both')}}\n",
    "{{decoderURL: http://localhost:8200, error: dial tcp 127.0.0.1:8200: connect: connection "
    "refused, level: error, logger: proxy server on port 8000, msg: failed to connect to vLLM "
    "decoder}}\n",
])
_REQUEST_ID = st.sampled_from(["604f3f68-909c-43e0-bb3a-e96850fca226",
                               "cmpl-9b2e4f6a1c3d4e5f8a7b6c5d4e3f2a1b-0c1d2e3f",
                               "chatcmpl-0a1b2c3d4e5f60718293a4b5c6d7e8f9"])


def _output_handler_failure(request_id: str, prefix: str) -> str:
    site = "/usr/local/lib/python3.12/dist-packages/"
    frames = [(site + "vllm/v1/engine/async_llm.py", "output_handler",
               "outputs = await engine_core.get_output_async()"),
              (site + "vllm/v1/engine/core_client.py", "get_output_async",
               "raise self._format_exception(outputs) from None")]
    return (prefix + "AsyncLLM output_handler failed.\n"
            + python_traceback(frames, f"KeyError: '{request_id}'", prefix))


@settings(max_examples=30, deadline=None)
@given(shown=_TRANSFER_SHOWN, connector=st.sampled_from(["NixlConnector", "P2pNcclConnector",
                                                         "MooncakeConnector", "MultiConnector"]),
       request_id=_REQUEST_ID, after=st.booleans(),
       prefix=st.sampled_from(["(APIServer pid=1) ERROR 02-03 09:20:11 [async_llm.py:480] ",
                               "ERROR 02-03 09:20:11 [async_llm.py:480] "]))
def test_a_request_id_unknown_with_kv_transfer_names_the_handover_addresses(
        shown: str, connector: str, request_id: str, after: bool, prefix: str) -> None:
    seen = shown.format(connector=connector)
    failure = _output_handler_failure(request_id, prefix)
    signature, fix = signature_advice(failure + seen if after else seen + failure)
    assert signature == "disaggregated-request-id-unknown"
    assert "VLLM_NIXL_SIDE_CHANNEL_HOST" in fix and "kv_transfer_params" in fix


@settings(max_examples=15, deadline=None)
@given(request_id=_REQUEST_ID,
       before=st.sampled_from(["", "(EngineCore_DP0 pid=271) INFO 02-03 09:13:02 [factory.py:51] "
                                   "Creating v1 connector with name: OffloadingConnector and "
                                   "engine_id: 3f7c1d2e\n"]))
def test_a_request_id_unknown_without_a_handover_is_not_blamed_on_one(
        request_id: str, before: str) -> None:
    log = before + _output_handler_failure(request_id, "ERROR 02-03 09:20:11 [async_llm.py:480] ")
    signature, _ = signature_advice(log)
    assert signature != "disaggregated-request-id-unknown"


# ---- the server's 500, as its client reports it ------------------------------------------------

_ERROR_OBJECT = ("{'object': 'error', 'message': 'Internal server error', 'type': "
                 "'InternalServerError', 'param': None, 'code': 500}")


@settings(max_examples=25, deadline=None)
@given(shape=st.sampled_from(["openai", "framework", "bare"]),
       body=st.sampled_from([_ERROR_OBJECT, "{'message': 'Internal server error'}"]),
       py=_PY, site=_SITE)
def test_a_servers_500_seen_by_its_client_names_the_server_log_and_the_message_shape(
        shape: str, body: str, py: str, site: str) -> None:
    line = f"Error code: 500 - {body}"
    if shape == "openai":
        root = site.format(py=py)
        frames = [("/app/agent.py", "step", "resp = client.chat.completions.create(**kwargs)"),
                  (root + "openai/_base_client.py", "_request",
                   "raise self._make_status_error_from_response(err.response) from None")]
        log = python_traceback(frames, f"openai.InternalServerError: {line}")
    elif shape == "framework":  # an agent framework's own heading, then the client's words
        log = f"Error in generating model output:\n{line}\n"
    else:
        log = line + "\n"
    signature, fix = signature_advice(log)
    assert signature == "openai-server-internal-error"
    assert "server's log" in fix
    assert "--chat-template-content-format" in fix and "flatten_messages_as_text" in fix


def test_a_refused_request_keeps_the_refusal_advice() -> None:
    log = ("openai.BadRequestError: Error code: 400 - {'object': 'error', 'message': \"This "
           "model's maximum context length is 4096 tokens.\", 'type': 'BadRequestError', "
           "'param': None, 'code': 400}\n")
    signature, _ = signature_advice(log)
    assert signature != "openai-server-internal-error"
