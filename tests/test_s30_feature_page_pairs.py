"""Session 30's feature pages of vLLM 0.11 and later (signatures/documented-remedies.yaml), the
classes their pairs exposed, each generated over the ways a log shows it, with a near miss:

- NixlConnector's handshake listener cannot bind its side channel (the listener thread of 0.11's
  nixl_connector.py or the nixl/ package of later releases, any host and port, printed by the
  threading hook or under an engine core's record): nixl-side-channel-port-in-use, whose fix names
  `VLLM_NIXL_SIDE_CHANNEL_PORT`; vLLM's own sockets refused the same way, and the bare error line
  with no frames, do not get it;
- torch's out-of-memory inside a weight-update RPC (vLLM's reload_weights, a worker extension's
  update_weight(s)...): cuda-oom-updating-weights, whose fix names waking the weights alone
  (`tags=["weights"]`); the same OOM in the forward pass does not get it;
- aiohttp's connect and read timeouts under the media fetch of each modality (3.10's split
  classes and the older ServerTimeoutError): media-fetch-timeout, whose fix names the three
  `VLLM_*_FETCH_TIMEOUT` variables."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from v1log import PYTHONS, SITE_PACKAGES, TRACEBACK_PREFIXES, python_traceback, signature_advice

_HOSTS = st.sampled_from(["localhost", "0.0.0.0", "10.0.3.17", "node-a.cluster.local", "[::1]"])
# (file of the listener, file of its zmq_ctx helper) in 0.11's single module and the later package
_NIXL_LAYOUTS = st.sampled_from([
    ("nixl_connector.py", "nixl_connector.py"),
    ("nixl/base_scheduler.py", "nixl/utils.py"),
])


@settings(max_examples=40, deadline=None)
@given(py=PYTHONS, site=SITE_PACKAGES, host=_HOSTS, port=st.integers(1024, 65535),
       layout=_NIXL_LAYOUTS, how=st.sampled_from(["thread", "record"]), started=st.booleans())
def test_a_taken_nixl_side_channel_gets_the_side_channel_port(
        py: str, site: str, host: str, port: int, layout: tuple[str, str], how: str,
        started: bool) -> None:
    root = site.format(py=py) + "vllm/distributed/kv_transfer/kv_connector/v1/"
    frames = [(f"/usr/lib/python{py}/threading.py", "run",
               "self._target(*self._args, **self._kwargs)"),
              (root + layout[0], "_nixl_handshake_listener",
               "with zmq_ctx(zmq.ROUTER, path) as sock:"),
              (root + layout[1], "zmq_ctx", "yield make_zmq_socket("),
              (site.format(py=py) + "vllm/utils/network_utils.py", "make_zmq_socket",
               "socket.bind(path)"),
              (site.format(py=py) + "zmq/sugar/socket.py", "bind", "super().bind(addr)")]
    error = f"zmq.error.ZMQError: Address already in use (addr='tcp://{host}:{port}')"
    prefix = "(EngineCore_DP0 pid=4127) " if how == "thread" else \
        "(EngineCore_DP0 pid=4127) ERROR 11-03 14:02:33 [core.py:842] "
    head = f"{prefix}Exception in thread nixl_handshake_listener:\n" if how == "thread" else ""
    # the start-up lines before it (the KV cache sized: the phase the listener starts in), or none
    # (an excerpt of the traceback alone: the port-in-use signature, whose fix names it too)
    lines = ("(EngineCore_DP0 pid=4127) INFO 11-03 14:02:33 [kv_cache_utils.py:1087] GPU KV cache "
             "size: 301,232 tokens\n") if started else ""
    sid, fix = signature_advice(lines + head + python_traceback(frames, error, prefix))
    assert sid == ("nixl-side-channel-port-in-use" if started else sid)
    assert sid in ("nixl-side-channel-port-in-use", "port-in-use")
    assert "VLLM_NIXL_SIDE_CHANNEL_PORT" in fix, fix


@settings(max_examples=20, deadline=None)
@given(py=PYTHONS, site=SITE_PACKAGES, host=_HOSTS, port=st.integers(1024, 65535),
       prefix=TRACEBACK_PREFIXES)
def test_vllm_own_socket_taken_is_not_the_nixl_listener(
        py: str, site: str, host: str, port: int, prefix: str) -> None:
    root = site.format(py=py)
    frames = [(root + "vllm/v1/engine/utils.py", "launch_core_engines", "with zmq_socket_ctx("),
              (root + "vllm/utils/network_utils.py", "zmq_socket_ctx",
               "yield make_zmq_socket(ctx, path, socket_type, bind=bind, identity=identity)"),
              (root + "vllm/utils/network_utils.py", "make_zmq_socket", "socket.bind(path)")]
    error = f"zmq.error.ZMQError: Address already in use (addr='tcp://{host}:{port}')"
    sid, _ = signature_advice(python_traceback(frames, error, prefix))
    assert sid != "nixl-side-channel-port-in-use"
    # the error line alone (no frames): the family, as before the signature
    sid, _ = signature_advice(error + "\nRuntimeError: KV Cache sending/receiving thread failed "
                              "to start.\n")
    assert sid != "nixl-side-channel-port-in-use"


_UPDATES = st.sampled_from([
    ("vllm/v1/worker/gpu_model_runner.py", "reload_weights"),
    ("/workspace/rlhf_utils.py", "update_weight"),
    ("/workspace/rl/vllm_ext.py", "update_weights_from_ipc"),
    ("/opt/trainer/worker_ext.py", "update_weights"),
])


@settings(max_examples=40, deadline=None)
@given(py=PYTHONS, site=SITE_PACKAGES, update=_UPDATES, asked=st.integers(1, 40),
       free=st.integers(0, 900), gpu=st.integers(0, 7), prefix=TRACEBACK_PREFIXES)
def test_an_oom_inside_a_weight_update_gets_the_weights_only_wake_up(
        py: str, site: str, update: tuple[str, str], asked: int, free: int, gpu: int,
        prefix: str) -> None:
    root = site.format(py=py)
    path = update[0] if update[0].startswith("/") else root + update[0]
    frames = [(root + "vllm/entrypoints/llm.py", "collective_rpc",
               "return self.llm_engine.collective_rpc(method, timeout, args, kwargs)"),
              (root + "vllm/v1/executor/uniproc_executor.py", "collective_rpc",
               "result = run_method(self.driver_worker, method, args, kwargs)"),
              (root + "vllm/v1/serial_utils.py", "run_method", "return func(*args, **kwargs)"),
              (path, update[1], "weight = torch.empty(shape, dtype=dtype, device=\"cuda\")")]
    error = (f"torch.OutOfMemoryError: CUDA out of memory. Tried to allocate {asked}.00 GiB. "
             f"GPU {gpu} has a total capacity of 79.19 GiB of which {free}.00 MiB is free. "
             "Including non-PyTorch memory, this process has 78.02 GiB memory in use.")
    sid, fix = signature_advice(python_traceback(frames, error, prefix))
    assert sid == "cuda-oom-updating-weights"
    assert 'tags=["weights"]' in fix, fix


@settings(max_examples=20, deadline=None)
@given(py=PYTHONS, site=SITE_PACKAGES, asked=st.integers(1, 40), prefix=TRACEBACK_PREFIXES)
def test_an_oom_in_the_forward_pass_is_not_a_weight_update(
        py: str, site: str, asked: int, prefix: str) -> None:
    root = site.format(py=py)
    frames = [(root + "vllm/v1/worker/gpu_worker.py", "execute_model",
               "output = self.model_runner.execute_model("),
              (root + "vllm/v1/worker/gpu_model_runner.py", "execute_model",
               "model_output = self._model_forward("),
              (root + "vllm/model_executor/layers/logits_processor.py", "forward",
               "logits = self._get_logits(hidden_states, lm_head, embedding_bias)")]
    error = (f"torch.OutOfMemoryError: CUDA out of memory. Tried to allocate {asked}.00 GiB. "
             "GPU 0 has a total capacity of 79.19 GiB of which 1.02 GiB is free.")
    sid, _ = signature_advice(python_traceback(frames, error, prefix))
    assert sid != "cuda-oom-updating-weights"


_FETCHES = st.sampled_from([
    ("vllm/multimodal/utils.py", "fetch_image_async"),
    ("vllm/multimodal/utils.py", "fetch_video_async"),
    ("vllm/multimodal/utils.py", "fetch_audio_async"),
    ("vllm/multimodal/media/connector.py", "fetch_image_async"),
])
_TIMEOUTS = st.sampled_from([
    "aiohttp.client_exceptions.ConnectionTimeoutError: Connection timeout to host "
    "https://media.example.com/a.bin",
    "aiohttp.client_exceptions.SocketTimeoutError: Timeout on reading data from socket",
    "aiohttp.client_exceptions.ServerTimeoutError: Timeout on reading data from socket",
])


@settings(max_examples=30, deadline=None)
@given(py=PYTHONS, site=SITE_PACKAGES, fetch=_FETCHES, error=_TIMEOUTS, prefix=TRACEBACK_PREFIXES)
def test_a_media_fetch_timeout_gets_the_fetch_timeouts(
        py: str, site: str, fetch: tuple[str, str], error: str, prefix: str) -> None:
    root = site.format(py=py)
    frames = [(root + "vllm/entrypoints/chat_utils.py", "parse_chat_messages_futures",
               "conversation, mm_data_future = parse_chat_messages_futures("),
              (root + fetch[0], fetch[1], "data = await connection.async_get_bytes(url, timeout)"),
              (root + "vllm/connections.py", "async_get_bytes",
               "async with await self.get_async_response(url, timeout=timeout) as r:"),
              (root + "aiohttp/client.py", "_request", "await resp.start(conn)")]
    sid, fix = signature_advice(python_traceback(frames, error, prefix))
    assert sid == "media-fetch-timeout"
    for knob in ("VLLM_IMAGE_FETCH_TIMEOUT", "VLLM_VIDEO_FETCH_TIMEOUT", "VLLM_AUDIO_FETCH_TIMEOUT"):
        assert knob in fix, fix
