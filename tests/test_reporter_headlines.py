"""A reporter's headline above the log: the error typed (or pasted) alone, then the run's whole log
ending in its own copy of that error (logsleuth/restatements.py `fold_headlines`; tests/fixtures/
tuning, runtime/w-ascend-v071rc1-v0-mqllmengine-embedding-request-ascend-metadata-builder-build-
typeerror). The headline precedes every record of the run, which started and worked after it: it
restates the run's copy, which is the root. A paste whose only line is the error keeps it.
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from logsleuth.model import Verdict
from logsleuth.pipeline import explain_text
from scenario_logs import Server

ERRORS = ["TypeError: AscendMetadataBuilder.build() takes 3 positional arguments but 5 were given",
          "ValueError: Model architectures ['Qwen3NextForCausalLM'] failed to be inspected.",
          "RuntimeError: CUDA error: an illegal memory access was encountered",
          "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB."]
GAPS = [[], [""], ["", ""], ["", "```"], ["Here is the full log:", ""]]


def _copy(server: Server, where: str, error: str) -> list[str]:
    if where == "worker":
        return [*server.worker_runtime_error(1, [error]),
                *server.engine_wrapper([error.split(": ", 1)[1]])]
    return server.engine_error([error])


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(ERRORS), st.sampled_from(GAPS), st.sampled_from(["worker", "engine"]),
       st.integers(0, 3), st.booleans())
def test_a_headline_above_the_log_restates_the_runs_own_copy(
        error: str, gap: list[str], where: str, served: int, shortened: bool) -> None:
    server = Server()
    headline = error[:60] + "..." if shortened and len(error) > 70 else error
    lines = [headline, *gap, *server.startup(), *server.requests(served)]
    at = len(lines)
    lines += _copy(server, where, error)
    report = explain_text("\n".join(lines) + "\n")
    assert report.verdict is Verdict.FAILURE
    root = report.root_cause
    assert root is not None and root.line > at, (root, headline)
    assert root.exception.rsplit(".", 1)[-1] == error.split(":", 1)[0].rsplit(".", 1)[-1]


@settings(max_examples=20, deadline=None)
@given(st.sampled_from(ERRORS), st.sampled_from(GAPS))
def test_the_error_pasted_alone_or_with_no_copy_of_its_own_is_the_root(error: str,
                                                                      gap: list[str]) -> None:
    alone = explain_text(error + "\n")
    assert alone.root_cause is not None and alone.root_cause.line == 1
    # the same line above records of a run that shows no copy of it: nothing restates it
    server = Server()
    lines = [error, *gap, *server.startup()[:3]]
    report = explain_text("\n".join(lines) + "\n")
    assert report.root_cause is not None and report.root_cause.line == 1
