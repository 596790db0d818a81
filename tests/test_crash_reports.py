"""A harness's or an orchestrator's line saying a container or a pod crashed (a benchmark
harness's `❌ Crashed container in pod: x`, `Container vllm in pod x crashed`, `kubectl
describe`'s `Reason: CrashLoopBackOff`, the kubelet's `back-off 5m0s restarting failed
container=...`), when the log holds nothing else of the run: the run failed for a reason the log
does not show, never `no_failure` (the worst answer: a failing log called healthy). The harness's
own line shapes are generated: its clock before each line (`16:53:24 - `, `[16:53:24] `, a date),
a status mark (`❌ `, `✗ `, `⚠️ `, `✅ `), the lines it printed before, vLLM's own records
interleaved, the log cut anywhere after the crash line. When the container's own error is in the
log too (a harness that prints `kubectl logs --previous` after its report), that error is the
root. And what stays healthy: the same harness reporting pods that came up, and sentences that
say no container crashed.
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from logsleuth.model import LineKind, Report, Verdict
from logsleuth.pipeline import explain_text
from logsleuth.tokenize import anchor_patterns, clean, parse_line


def explain(lines: list[str]) -> Report:
    return explain_text("\n".join(lines) + "\n")


pods = st.builds(lambda name, suffix: f"{name}-{suffix}",
                 st.sampled_from(["vllm", "vllm-standalone-llama-3-1b", "llm-d-decode",
                                  "qwen3-server", "vllm-0"]),
                 st.sampled_from(["0", "845945945-dljsw", "7d9f8c6b5-x2k4q", "abc12"]))
containers = st.sampled_from(["vllm", "inference-server", "server", "vllm-openai"])


def _crash(kind: int, pod: str, container: str) -> str:
    return [f"Crashed container in pod: {pod}",
            f"Crashed containers in pods {pod}",
            f"Container {container} in pod {pod} crashed",
            f'container "{container}" in pod "{pod}" has crashed',
            f"Pod {pod} crashed",
            f"pod/{pod} crashed (restart 3)",
            f"The container {container} crashed during start-up",
            "    Reason:       CrashLoopBackOff",
            f"      Message:      back-off 5m0s restarting failed container={container} "
            f"pod={pod}_default(0a1b2c3d)"][kind]


CRASH_KINDS = 9
crashes = st.builds(_crash, st.integers(0, CRASH_KINDS - 1), pods, containers)
# a harness's clock before each of its lines, and the status marks it prints
stamps = st.sampled_from(["16:53:24 - ", "16:53:24 ", "[16:53:24] ", "2025-06-01 16:53:24 ",
                          "2025-06-01T16:53:24Z ", ""])
marks = st.sampled_from(["", "❌ ", "✗ ", "⚠️ ", "🔴 ", "💥 "])
# what the harness printed before (`{}` is the pod's name)
_HARNESS = ['Deploying model "meta-llama/Llama-3.2-1B" (from files at /tmp/cicd/)',
            "Model deployed",
            "Waiting for pods to be Running (timeout=900s)",
            '"{}" pod created',
            '"{}" pod running',
            "✅ Namespace llmdbench ready",
            "Waiting for pods to be Ready (timeout=900s)"]
leads = st.lists(st.sampled_from(_HARNESS), max_size=7)
# vLLM's own records, relayed before the report (a start-up that had not failed yet)
_VLLM = ["(APIServer pid=1) INFO 02-05 10:11:15 [api_server.py:1896] vLLM API server version 0.15.1",
         "(APIServer pid=1) INFO 02-05 10:11:15 [utils.py:233] non-default args: {'model': "
         "'meta-llama/Llama-3.2-1B'}",
         "(EngineCore_DP0 pid=3) INFO 02-05 10:11:31 [gpu_model_runner.py:2602] Starting to load "
         "model meta-llama/Llama-3.2-1B..."]
relayed = st.lists(st.sampled_from(_VLLM), max_size=3)
# what the harness prints after its report, before it gives up
_AFTER = ["Collecting logs to /tmp/cicd/logs", "Cleaning up namespace llmdbench",
          "Waiting for pods to be Ready (timeout=900s)"]
afters = st.lists(st.sampled_from(_AFTER), max_size=3)


def _harness(stamp: str, lead: list[str], pod: str) -> list[str]:
    return [stamp + line.format(pod) for line in lead]


@settings(max_examples=120, deadline=None)
@given(stamps, marks, leads, relayed, crashes, afters, pods, st.booleans())
def test_a_crash_report_alone_is_a_failure_whose_cause_is_not_shown(
        stamp: str, mark: str, lead: list[str], vllm: list[str], crash: str, after: list[str],
        pod: str, vllm_first: bool) -> None:
    before = _harness(stamp, lead, pod)
    lines = [*vllm, *before] if vllm_first else [*before, *vllm]
    if stamp.endswith(("] ", "Z ", "4 ")):  # a bare clock takes no indentation after it
        crash = crash.lstrip()
    report_line = stamp + mark + crash
    assert anchor_patterns()[0].search(report_line.encode()), report_line
    assert parse_line(clean(report_line)).kind is LineKind.DIAGNOSTIC, report_line
    lines.append(report_line)
    at = len(lines)
    for cut in range(len(after) + 1):  # the log cut anywhere after the report
        report = explain([*lines, *_harness(stamp, after[:cut], pod)])
        assert report.verdict is Verdict.ROOT_CAUSE_MISSING, (lines, report.reasons)
        assert at in {s.line for s in report.symptoms}, report.symptoms


@settings(max_examples=40, deadline=None)
@given(stamps, marks, leads, crashes, pods)
def test_the_containers_own_error_printed_after_the_report_is_the_root(
        stamp: str, mark: str, lead: list[str], crash: str, pod: str) -> None:
    lines = [*_harness(stamp, lead, pod), stamp + mark + crash,
             "(APIServer pid=1) INFO 02-05 10:11:15 [api_server.py:1896] vLLM API server "
             "version 0.15.1",
             "Traceback (most recent call last):",
             '  File "/usr/local/bin/vllm", line 8, in <module>',
             "    sys.exit(main())",
             "ValueError: No available memory for the cache blocks. Try increasing "
             "`gpu_memory_utilization` when initializing the engine."]
    report = explain(lines)
    assert report.verdict is Verdict.FAILURE
    assert report.root_cause is not None and report.root_cause.exception == "ValueError"
    assert report.root_cause.line == len(lines)


# the same harness reporting a start that went well, and sentences that deny a crash
_HEALTHY = ['✅ "{}" pod ready', "All pods are Ready", '"{}" pod running',
            "Container vllm started", "No container crashed", "Pod {} has not crashed",
            "container vllm never crashed during the run", "    Reason:       Completed",
            "Crash-loop detection: enabled"]


@settings(max_examples=80, deadline=None)
@given(stamps, marks, leads, st.lists(st.sampled_from(_HEALTHY), min_size=1, max_size=3), pods)
def test_the_harness_reporting_a_start_that_went_well_stays_healthy(
        stamp: str, mark: str, lead: list[str], ends: list[str], pod: str) -> None:
    lines = [*_harness(stamp, lead, pod), *(stamp + mark + line.format(pod) for line in ends)]
    report = explain(lines)
    assert report.verdict is Verdict.NO_FAILURE, (lines, report.root_cause, report.symptoms)


@settings(max_examples=60, deadline=None)
@given(stamps, marks, st.sampled_from(_VLLM))
def test_a_harness_clock_and_mark_leave_vllms_record_as_it_was(stamp: str, mark: str,
                                                              record: str) -> None:
    bare = parse_line(clean(record))
    wrapped = parse_line(clean(stamp + mark + record))
    assert (wrapped.kind, wrapped.text, wrapped.level) == (bare.kind, bare.text, bare.level)
    # (a clock before a process prefix is read with it as a record cut at its start, which
    # loses the process: the mark alone keeps it)
    if not stamp:
        assert wrapped.process == bare.process
