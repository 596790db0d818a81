"""A whole record run on from the line before it, whose line end was lost: a paste, or a line a
kill cut short, with the next record glued on without even a space (`... Prefix cache hit rate:
0.0%(Worker_TP0 pid=4201) HIP error: invalid device function`, `... CPU KV cache usage:
0.0%../serve.sh: line 12:  66591 Killed  vllm serve ...`, `... 2.51s/it]F0601 10:12:40.123456
87173 x.cc:2809] Check failed: ...`). The line is read from the glued record on, as a terminal
shows a `\\r` overwrite (grammars/vllm.lark GLUED_RECORD, tokenize/grammar.py clean()).

The class comes from the failure probe (tools/failure_probe): 16 of its 19 failing logs left
called healthy at the end of session 31 were a death glued behind a serving record, most of them
behind the engine's stats record with the dying process's own prefix mid-line. The tuning set's
pastes hold the same glue behind progress bars (`... 9.93it/s](Worker_TP3 pid=8456) ERROR ...`).
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from logsleuth.model import Verdict
from logsleuth.pipeline import explain_text

MODEL = "Qwen/Qwen2.5-7B-Instruct"
# (the API server's prefix, a worker's prefix, a record header's site form) per era
ERAS = {
    "v1": ("(APIServer pid=4000) ", "(Worker_TP0 pid=4201) ", "[{}] "),
    "v1early": ("", "(VllmWorker rank=0 pid=4201) ", "[{}] "),
    "v0": ("", "(VllmWorkerProcess pid=4201) ", "{}] "),
}
STATS = {
    "v1": "Engine 000: Avg prompt throughput: 120.4 tokens/s, Avg generation throughput: 300.2 "
          "tokens/s, Running: 2 reqs, Waiting: 0 reqs, GPU KV cache usage: 1.2%, Prefix cache "
          "hit rate: 0.0%",
    "v1early": "Engine 000: Avg prompt throughput: 120.4 tokens/s, Avg generation throughput: "
               "300.2 tokens/s, Running: 2 reqs, Waiting: 0 reqs, GPU KV cache usage: 1.2%, "
               "Prefix cache hit rate: 0.0%",
    "v0": "Avg prompt throughput: 120.4 tokens/s, Avg generation throughput: 300.2 tokens/s, "
          "Running: 2 reqs, Swapped: 0 reqs, Pending: 0 reqs, GPU KV cache usage: 1.2%, CPU KV "
          "cache usage: 0.0%.",
}
WRAPPERS = st.sampled_from(["", "2025-06-01T10:11:35.123456789Z ", "vllm-1  | ",
                            "Jun 01 10:11:35 gpu-node-3 vllm[4000]: "])
# a failing run's last words, glued on: `{w}` is the worker's prefix, `{h}` a record header
DEATHS = st.sampled_from([
    "{w}HIP error: invalid device function",
    "{w}Cuda failure 'an illegal memory access was encountered'",
    "{w}terminate called after throwing an instance of 'c10::Error'",
    "{w}gpu-node-3:68539:68539 [1] transport/net_socket.cc:540 NCCL WARN NET/Socket : socket "
    "progress error",
    "{w}ERROR {h}Failed to synchronize transfer end event; skipping 3 remaining transfers",
    "{w}[rank1]:[E601 10:12:40.123456000 ProcessGroupNCCL.cpp:1895] [PG ID 0 PG GUID 0(default_pg) "
    "Rank 1] Process group watchdog thread terminated with exception: CUDA error: an illegal "
    "memory access was encountered",
    "./serve.sh: line 12:  66591 Killed                  vllm serve " + MODEL,
    "./serve.sh: line 12:  54902 Segmentation fault      (core dumped) vllm serve " + MODEL,
    "F0601 10:12:40.123456    87173 pjrt_stream_executor_client.cc:2809] Check failed: "
    "status.ok() RESOURCE_EXHAUSTED: Error allocating device buffer",
    "RuntimeError: Engine core initialization failed. See root cause above. Failed core proc(s): {{}}",
    "Error: engine process exited before the server became ready (exit code 1)",
])


def _serving(era: str, wrapper: str, requests: int) -> list[str]:
    api, _, site = ERAS[era]
    lines = []
    for i in range(requests):
        lines += [f"{wrapper}{api}INFO:     127.0.0.1:{50100 + i} - \"POST /v1/chat/completions "
                  "HTTP/1.1\" 200 OK",
                  f"{wrapper}{api}INFO 02-05 10:11:{40 + i} {site.format('loggers.py:100')}"
                  + STATS[era]]
    return lines


def _log(era: str, wrapper: str, glued: str, after: int = 0) -> str:
    api, worker, site = ERAS[era]
    lines = [
        f"{wrapper}{api}INFO 02-05 10:11:31 {site.format('api_server.py:100')}vLLM API server "
        "version 0.9.2",
        f"{wrapper}{worker}INFO 02-05 10:11:34 {site.format('gpu_model_runner.py:100')}Starting "
        f"to load model {MODEL}...",
        f"{wrapper}{worker}INFO 02-05 10:11:36 {site.format('gpu_model_runner.py:100')}Model "
        "loading took 14.25 GiB and 4.02 seconds",
        f"{wrapper}{api}INFO 02-05 10:11:39 {site.format('api_server.py:100')}Starting vLLM API "
        "server on http://0.0.0.0:8000",
        f"{wrapper}{api}INFO:     Application startup complete.",
        *_serving(era, wrapper, 3),
    ]
    lines[-1] += glued.format(w=worker, h=f"02-05 10:11:43 {site.format('gpu_worker.py:321')}")
    return "\n".join(lines + _serving(era, wrapper, after)) + "\n"


@settings(max_examples=60, deadline=None, derandomize=True)
@given(st.sampled_from(sorted(ERAS)), WRAPPERS, DEATHS)
def test_a_death_glued_behind_a_serving_record_is_no_healthy_run(era: str, wrapper: str,
                                                                 death: str) -> None:
    text = _log(era, wrapper, death)
    report = explain_text(text)
    assert report.verdict is not Verdict.NO_FAILURE, text
    if report.root_cause is not None:
        assert report.root_cause.line == len(text.splitlines())


@settings(max_examples=20, deadline=None, derandomize=True)
@given(st.sampled_from(sorted(ERAS)), WRAPPERS)
def test_the_glued_record_is_its_own_process(era: str, wrapper: str) -> None:
    report = explain_text(_log(era, wrapper, "{w}HIP error: invalid device function"))
    assert report.root_cause is not None
    assert report.root_cause.process.name == ERAS[era][1][1:].split(" pid=")[0]


@settings(max_examples=30, deadline=None, derandomize=True)
@given(st.sampled_from(sorted(ERAS)), WRAPPERS, st.sampled_from([
    "{w}INFO {h}Graph capturing finished in 15 secs.",
    "{w}WARNING {h}Failed to synchronize transfer end event; retrying",
    "INFO 02-05 10:11:44 [loggers.py:100] Engine 000: Avg prompt throughput: 0.0 tokens/s",
]))
def test_a_glued_record_of_normal_work_leaves_the_run_healthy(era: str, wrapper: str,
                                                              glued: str) -> None:
    # counter-evidence: what runs on is the run's own work, and the run goes on serving
    report = explain_text(_log(era, wrapper, glued, after=3))
    assert report.verdict is Verdict.NO_FAILURE


@settings(max_examples=20, deadline=None, derandomize=True)
@given(st.sampled_from(sorted(ERAS)), WRAPPERS, st.sampled_from([
    ", External prefix cache hit rate: 0.0%",  # a later release's next field: no line end lost
    "\", \"next\": 1}}",  # the stats text quoted in a JSON value
    " (Worker_TP0 pid=4201) is still loading",  # after a space: a word of the line
]))
def test_what_follows_a_stats_field_on_its_own_line_is_no_glued_record(
        era: str, wrapper: str, tail: str) -> None:
    report = explain_text(_log(era, wrapper, tail, after=1))
    assert report.verdict is Verdict.NO_FAILURE
