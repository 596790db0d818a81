"""A deployment that waits for resources no node offers: Ray Serve's controller, every 30 s, says
its replicas "have taken more than 30s to be scheduled" and, on the same line, what each replica
asks for and what the cluster has left (RayLLM's JSON log, Ray Serve's text log); Ray core's
autoscaler says a resource request "cannot be scheduled right now"; Kubernetes reports a pod no
node can take (`FailedScheduling ... 0/3 nodes are available: 3 Insufficient nvidia.com/gpu`);
Slurm's srun a job queued for resources. Each is a wait (causality.yaml milestones `hang`): a log
that ends on it stalled. Where the line says why the wait cannot end (Ray Serve's resources, Ray
core's request), that warning is the cause of the stall (causality.yaml `latent`), on the same
line; the replica placed and the server started after it is work that ends the wait. A JSON
logger's record keeps its own level (`levelname`, `level`) in front of its message, so a
structured ERROR record is an error as its text form is; a log service's `severity`, set by
stream, is no record's level."""

from __future__ import annotations

import itertools
import json

import pytest

import logsleuth
from logsleuth.model import Verdict

REQUIRED = ('[{"CPU": 1.0, "accelerator_type_a10": 0.01}, {"CPU": 1.0, "accelerator_type_a10": '
            '0.01, "GPU": 0.1}]')


def _serve_message(replicas: int, available: str) -> str:
    return (f"deployment_state.py:2152 - Deployment 'VLLMDeployment:org--Model' in application "
            f"'llm' {replicas} replica{'s' if replicas > 1 else ''} that have taken more than 30s "
            f"to be scheduled. This may be due to waiting for the cluster to auto-scale or for a "
            f"runtime environment to be installed. Resources required for each replica: "
            f"{REQUIRED}, total resources available: {available}. Use `ray status` for more "
            f"details.")


def _json(message: str, second: int, order: int) -> str:
    fields = [("levelname", "WARNING"), ("asctime", f"2024-03-24 03:17:{second:02d},398"),
              ("component_name", "controller"), ("component_id", "1684"), ("message", message)]
    return json.dumps(dict(fields[order:] + fields[:order]))


def _text(message: str, second: int, prefixed: bool) -> str:
    line = f"WARNING 2024-03-24 03:17:{second:02d},398 controller 1684 {message}"
    return f"(ServeController pid=1684) {line}" if prefixed else line


AVAILABLE = ("{}", '{"CPU": 8.0}', '{"CPU": 8.0, "GPU": 0.0}')


def _waits(form: str, copies: int, available: str) -> list[str]:
    message = _serve_message(1, available)
    if form == "json":
        return [_json(message, 2 * i, i % 5) for i in range(copies)]
    return [_text(message, 2 * i, form == "prefixed") for i in range(copies)]


@pytest.mark.parametrize(("form", "copies", "available"), list(itertools.product(
    ("json", "text", "prefixed"), (1, 3), AVAILABLE)))
def test_replicas_that_cannot_be_scheduled_are_the_failure(form: str, copies: int,
                                                           available: str) -> None:
    report = logsleuth.explain_text("\n".join(_waits(form, copies, available)) + "\n")
    assert report.verdict is Verdict.FAILURE, report.reasons
    assert report.root_cause is not None
    assert f"total resources available: {available}" in report.root_cause.message
    assert report.signature is not None and report.signature.id == "ray-cluster-resources"


STARTED = [
    "(ServeReplica:llm:VLLMDeployment pid=2201) INFO 03-24 03:19:00 [default_loader.py:267] "
    "Loading weights took 7.50 seconds",
    "(ServeReplica:llm:VLLMDeployment pid=2201) INFO 03-24 03:19:30 [core.py:210] init engine "
    "(profile, create kv cache, warmup model) took 30.00 seconds",
    "(ServeReplica:llm:VLLMDeployment pid=2201) INFO:     Application startup complete.",
]


@pytest.mark.parametrize("form", ("json", "text", "prefixed"))
def test_a_replica_placed_after_the_wait_ends_it(form: str) -> None:
    # a node joined (the autoscaler, a late `ray start`): the replica loads and starts
    report = logsleuth.explain_text("\n".join([*_waits(form, 2, "{}"), *STARTED]) + "\n")
    assert report.verdict is Verdict.NO_FAILURE, report.root_cause


@pytest.mark.parametrize("line", [
    # Ray core's autoscaler (its own prefix, no level word)
    "(autoscaler +1m5s) Warning: The following resource request cannot be scheduled right now: "
    "{'GPU': 1.0, 'CPU': 1.0}. This is likely due to all cluster resources being claimed by "
    "actors. Consider creating fewer actors or adding more nodes to this Ray cluster.",
    # Kubernetes (`kubectl get events`): the pod stays Pending
    "2m1s        Warning   FailedScheduling   pod/vllm-0   0/3 nodes are available: 3 "
    "Insufficient nvidia.com/gpu. preemption: 0/3 nodes are available: 3 No preemption victims "
    "found for incoming pod.",
    # Slurm: the job never leaves the queue
    "srun: job 4242 queued and waiting for resources",
])
def test_a_log_that_ends_waiting_for_resources_is_no_healthy_log(line: str) -> None:
    start = ["INFO 03-24 03:10:00 api_server.py:585] vLLM API server version 0.6.3"]
    for log in ([line], [*start, line], [line, line]):
        report = logsleuth.explain_text("\n".join(log) + "\n")
        assert report.verdict is not Verdict.NO_FAILURE, log


def test_ray_core_s_request_it_cannot_schedule_is_its_own_cause_when_logged() -> None:
    line = ("WARNING 2024-03-24 03:17:59,398 controller 1684 -- The following resource request "
            "cannot be scheduled right now: {'GPU': 4.0}. This is likely due to all cluster "
            "resources being claimed by actors.")
    report = logsleuth.explain_text(line + "\n")
    assert report.verdict is Verdict.FAILURE
    assert report.root_cause is not None and "{'GPU': 4.0}" in report.root_cause.message


@pytest.mark.parametrize(("key", "value"), [("levelname", "ERROR"), ("level", "error"),
                                            ("level", "ERROR"), ("levelname", "CRITICAL")])
def test_a_json_logger_s_error_record_is_an_error(key: str, value: str) -> None:
    records = [{key: "INFO", "asctime": "2024-03-24 03:17:00,000", "message": "starting"},
               {key: value, "asctime": "2024-03-24 03:17:01,000",
                "message": "could not reach the model store at s3://bucket/model"}]
    report = logsleuth.explain_text("\n".join(json.dumps(r) for r in records) + "\n")
    assert report.verdict is Verdict.FAILURE
    assert report.root_cause is not None and report.root_cause.line == 2


def test_a_log_service_s_severity_is_no_record_level() -> None:
    # Cloud Logging marks every stderr line ERROR: the text decides
    lines = ["INFO 03-24 03:10:00 api_server.py:585] vLLM API server version 0.6.3",
             "Loading safetensors checkpoint shards: 100% Completed | 4/4 [00:07<00:00]",
             "INFO:     Application startup complete."]
    export = [json.dumps({"textPayload": line, "severity": "ERROR",
                          "timestamp": f"2024-03-24T03:10:0{i}Z"}) for i, line in enumerate(lines)]
    report = logsleuth.explain_text("\n".join(export) + "\n")
    assert report.verdict is Verdict.NO_FAILURE, report.root_cause
