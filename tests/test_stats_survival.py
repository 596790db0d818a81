"""An engine's or worker's error record mid-serving is survived when the engine's own stats show
output in an interval wholly after it, however few lines follow (causal.py `_later_stats`,
anchors.lark STATS, causality.yaml `engine_stats`); the same record followed by its process's
death, or by answers alone, stays the failure.

The class comes from the verdict probe (tools/verdict_probe): every ERROR template of vLLM's
workers and engine core (KV-transfer connectors, offloading, weight transfer, model loaders),
rendered mid-serving and followed by four answered requests and four stats lines with output,
was called failing (125 of 403 templates), since the answers an API server logs within a few
lines of an error may be streams begun before it (causal.py IN_FLIGHT).
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from logsleuth.model import Verdict
from logsleuth.pipeline import explain_text
from tool_import import import_tool

MODEL = "Qwen/Qwen2.5-7B-Instruct"
# (era, the worker's and engine core's prefixes, the API server's, record head with `{site}`)
ERAS = {
    "v1": ("(Worker_TP0 pid=4201) ", "(EngineCore_DP0 pid=4100) ", "(APIServer pid=4000) ",
           "[{site}]"),
    "v1early": ("(VllmWorker rank=0 pid=4201) ", "", "", "[{site}]"),
    "v0-mp": ("(VllmWorkerProcess pid=4201) ", "", "", "{site}]"),
    "v0-ray": ("(RayWorkerWrapper pid=4201) ", "", "", "{site}]"),
}
# error records of the kinds the probe found: a connector, an offloader, a loader, a runner
MESSAGES = st.sampled_from([
    "Failed to shut down the KV connector cleanly: timeout",
    "Declining remote reads from engine 0: different P/D block sizes",
    "Error in processing offload job 17 for block 4096",
    "Failed to load LoRA adapter sql-lora: adapter not found",
    "NIXL transfer for request chatcmpl-3f2a failed",
    "An error occurred while receiving weights from the trainer",
])
SITES = st.sampled_from(["nixl_connector.py:1180", "worker.py:321", "lora_model.py:88",
                         "gpu_model_runner.py:2711", "multi_connector.py:204"])


class _Log:
    def __init__(self, era: str) -> None:
        self.worker, self.core, self.api, self.site = ERAS[era]
        self.v1 = era.startswith("v1")
        self.lines: list[str] = []
        self.clock = 0
        self.served = 0

    def record(self, prefix: str, level: str, site: str, text: str) -> None:
        self.clock += 1
        self.lines.append(f"{prefix}{level} 02-05 10:{12 + self.clock // 60:02d}:"
                          f"{self.clock % 60:02d} {self.site.format(site=site)} {text}")

    def start(self) -> None:
        self.record(self.api, "INFO", "api_server.py:1354", "vLLM API server version 0.11.0")
        self.record(self.worker, "INFO", "gpu_model_runner.py:2602",
                    f"Starting to load model {MODEL}...")
        self.record(self.worker, "INFO", "default_loader.py:267", "Loading weights took 3.2 seconds")
        self.record(self.core, "INFO", "kv_cache_utils.py:1087", "GPU KV cache size: 940,176 tokens")
        self.lines.append(f"{self.api}INFO:     Application startup complete.")

    def answer(self) -> None:
        self.served += 1
        self.lines.append(f'{self.api}INFO:     127.0.0.1:{50100 + self.served} - "POST /v1/chat/'
                          'completions HTTP/1.1" 200 OK')

    def stats(self, output: bool = True) -> None:
        rate = f"{300 + self.served}.2" if output else "0.0"
        head = "Engine 000: " if self.v1 else ""
        self.record(self.api, "INFO", "loggers.py:123" if self.v1 else "metrics.py:351",
                    f"{head}Avg prompt throughput: {rate} tokens/s, Avg generation throughput: "
                    f"{rate} tokens/s, Running: 2 reqs, Waiting: 0 reqs, GPU KV cache usage: 1.2%")

    def worker_death(self) -> None:
        self.record(self.core, "ERROR", "multiproc_executor.py:149",
                    "Worker proc VllmWorker-0 died unexpectedly, shutting down executor.")
        self.lines.append(f"{self.api}vllm.v1.engine.exceptions.EngineDeadError: EngineCore "
                          "encountered an issue. See stack trace (above) for the root cause.")

    def text(self) -> str:
        return "\n".join(self.lines) + "\n"


def _served_then(era: str, message: str, site: str, on_core: bool) -> _Log:
    log = _Log(era)
    log.start()
    for _ in range(2):
        log.answer()
        log.stats()
    log.record(log.core if on_core else log.worker, "ERROR", site, message)
    return log


@settings(max_examples=40, deadline=None)
@given(st.sampled_from(sorted(ERAS)), MESSAGES, SITES, st.booleans(), st.integers(2, 4),
       st.booleans())
def test_record_then_stats_with_output_is_survived(era: str, message: str, site: str,
                                                   on_core: bool, intervals: int,
                                                   answers: bool) -> None:
    """A few stats intervals with output after the record (the first may be older output):
    the engine went on working, and a short tail is enough."""
    log = _served_then(era, message, site, on_core)
    for _ in range(intervals):
        if answers:
            log.answer()
        log.stats()
    report = explain_text(log.text())
    assert report.verdict is Verdict.NO_FAILURE, log.text()


@settings(max_examples=30, deadline=None)
@given(st.sampled_from([e for e in ERAS if e.startswith("v1")]), MESSAGES, SITES,
       st.integers(0, 3))
def test_record_then_its_process_dies_stays_the_failure(era: str, message: str, site: str,
                                                        intervals: int) -> None:
    """Counter-evidence: the same worker record, then the worker's death: a failure whatever came
    between. With at most one stats interval between them the record is the root (the death's
    report points at the worker); with two or more the engine worked after the record, and the
    death's cause is not in the log (as with a long stretch of answers, IN_FLIGHT)."""
    log = _served_then(era, message, site, on_core=False)
    for _ in range(intervals):
        log.answer()
        log.stats()
    log.worker_death()
    report = explain_text(log.text())
    assert report.verdict is not Verdict.NO_FAILURE, log.text()
    if intervals < 2:
        assert report.verdict is Verdict.FAILURE, log.text()
        assert report.root_cause is not None and message in report.root_cause.text, log.text()


@settings(max_examples=30, deadline=None)
@given(st.sampled_from(sorted(ERAS)), MESSAGES, SITES, st.integers(1, 4))
def test_record_then_answers_or_one_stats_line_alone_is_not_survived(era: str, message: str,
                                                                     site: str, answers: int
                                                                     ) -> None:
    """Counter-evidence: answers within the lines in flight and at most one stats line (which may
    count output from before the record) do not show the engine worked after it."""
    log = _served_then(era, message, site, on_core=False)
    for _ in range(answers):
        log.answer()
    log.stats()
    for _ in range(2):
        log.stats(output=False)
    report = explain_text(log.text())
    assert report.verdict is not Verdict.NO_FAILURE, log.text()


def _offline(era: str, message: str, site: str, startup: bool) -> tuple[_Log, list[str]]:
    """An offline `LLM` (no API server) whose worker logs the record during start-up or during
    a batch; returns the log so far and the rest of the batch's bars."""
    log = _Log(era)
    log.api = ""  # the program's own process, unprefixed
    log.record(log.worker, "INFO", "default_loader.py:267", "Loading weights took 3.2 seconds")
    if startup:
        log.record(log.worker, "ERROR", site, message)
    log.record(log.core, "INFO", "kv_cache_utils.py:1087", "GPU KV cache size: 940,176 tokens")
    bars = _batch(64)
    log.lines += bars[:2]
    if not startup:
        log.record(log.worker, "ERROR", site, message)
    return log, bars[2:]


def _batch(size: int) -> list[str]:
    bar = ("Processed prompts: {:3d}%|{}| {}/{} [00:0{}<00:00, 15.2it/s, est. speed input: "
           "1500.00 toks/s, output: {} toks/s]")
    return [f"Adding requests: 100%|##########| {size}/{size} [00:00<00:00, 1500.2it/s]",
            bar.format(0, "          ", 0, size, 0, "0.00"),
            bar.format(50, "#####     ", size // 2, size, 2, "410.00"),
            bar.format(100, "##########", size, size, 4, "800.00")]


@settings(max_examples=30, deadline=None)
@given(st.sampled_from(sorted(ERAS)), MESSAGES, SITES, st.booleans(), st.integers(1, 3))
def test_offline_record_then_later_batches_finished_is_survived(era: str, message: str,
                                                                site: str, startup: bool,
                                                                batches: int) -> None:
    """An offline run's generate bar at 100% is the engine's account of a batch's output: the
    batch in flight at the record, then another one finished, show the engine went on."""
    log, rest = _offline(era, message, site, startup)
    log.lines += rest
    for _ in range(batches):
        log.lines += _batch(32)
    assert explain_text(log.text()).verdict is Verdict.NO_FAILURE, log.text()


@settings(max_examples=20, deadline=None)
@given(st.sampled_from(sorted(ERAS)), MESSAGES, SITES)
def test_offline_record_then_the_batch_stops_stays_the_failure(era: str, message: str,
                                                               site: str) -> None:
    """Counter-evidence: the record mid-batch, then the bar never finishes (the program stopped
    there), or only the batch in flight finishes: not survived."""
    log, rest = _offline(era, message, site, startup=False)
    assert explain_text(log.text()).verdict is not Verdict.NO_FAILURE, log.text()
    log.lines += rest[:1]
    log.lines.append("Killed")
    assert explain_text(log.text()).verdict is not Verdict.NO_FAILURE, log.text()


@pytest.mark.long
def test_verdict_probe_sample_answers_the_right_way() -> None:
    """The verdict probe (tools/verdict_probe) on a few of vLLM's ERROR templates drawn from the
    index: none of its healthy contexts is called failing and no record followed by its
    process's death is called healthy (the fatal_end and fatal_teardown contexts hold the
    parsers' records that `handled` declares survived whatever follows; not asserted here)."""
    probe = import_tool("verdict_probe", "probe")
    items = [item for item in probe.events(["ERROR"], 6, 30)
             if item[0].context in ("healthy", "healthy_short", "healthy_offline", "fatal_exit")]
    assert len(items) == 24
    wrong = [(r.event.context, r.event.text) for r in map(probe.measure_one, items) if r.wrong]
    assert not wrong
