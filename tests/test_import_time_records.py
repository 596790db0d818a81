"""An import-time ERROR record that the program went past to start vLLM (issue 10).

A platform plugin or an optional kernel package logs that it could not import something while
vLLM's modules load, before the process names itself: `ERROR ... [config.py:29] Failed to import
Triton kernels. ... No module named 'triton.language.target_info'`, vllm-ascend's `Failed to
import vllm_ascend_C`, vLLM's own `Failed to import from vllm._C`. vLLM prefixes its lines
(`(APIServer pid=N)`, `(EngineCore pid=N)`) only once its entry point runs, so the record is
unnamed; the process first heard after it that prints vLLM's start line (its arguments, the
engine's `Initializing`) is the one that went on past it (causal.py `_Work.went_past`), in a run
a later start followed. Where the log itself stops during start-up, the record stays the
likeliest reason it stopped there (tests/test_benign.py).

tests/fixtures/tuning, healthy/v-ascend-v0172dev-qwen25-14b-backfill-bench-triton-kernels-import-
error-line-shutdown: a harness starts the server, the first start prints the record, its
arguments and config and nothing more; a second start prints the same record, serves a
benchmark and is stopped. The first run's record was read as its failure. Went past, it is
survived: the first run did not fail, the log is healthy.

The same record still answers a start-up that then fails without its own cause in the log (the
API server's `Engine core initialization failed. See root cause above`): a start line shows the
import was over, not that nothing came of it, so it never cuts the link from the record to the
failure that follows (`healthy_between` does not ask). Nor is a record went past when it stands
alone, or when the process that prints the start was heard before it (not its own import).
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from logsleuth.model import Verdict
from logsleuth.pipeline import explain_text
from scenario_logs import Server

RECORDS = [
    ("[config.py:29]", "Failed to import Triton kernels. Please make sure your triton version is "
     "compatible. Error: No module named 'triton.language.target_info'"),
    ("[camem.py:69]", "Failed to import vllm_ascend_C:No module named 'vllm_ascend.vllm_ascend_C'"),
    ("[_custom_ops.py:21]", "Failed to import from vllm._C with ModuleNotFoundError(\"No module "
     "named 'vllm._C'\")"),
    ("[__init__.py:36]", "Failed to import from vllm._moe_C with ImportError('libcudart.so.12: "
     "cannot open shared object file: No such file or directory')"),
]
PLUGINS = ["ascend", "neuron", "my_platform"]


def _preamble(second: int, site: str, message: str, plugin: str, old: bool) -> list[str]:
    stamp = f"08-14 10:05:{second:02d}"
    head = (lambda level, where: f"{level} {stamp} {where.strip('[]')}] ") if old else \
        (lambda level, where: f"{level} {stamp} {where} ")
    return [head("INFO", "[__init__.py:44]") + "Available plugins for group vllm.platform_plugins:",
            head("INFO", "[__init__.py:58]") + f"Loading plugin {plugin}",
            head("INFO", "[__init__.py:246]") + f"Platform plugin {plugin} is activated",
            head("ERROR", site) + message]


RECORD = st.sampled_from(RECORDS)
OLD = st.booleans()


@settings(max_examples=40, deadline=None)
@given(RECORD, st.sampled_from(PLUGINS), OLD, st.integers(1, 3), st.integers(5, 40))
def test_a_start_superseded_after_an_import_time_record_is_no_failure(
        record: tuple[str, str], plugin: str, old: bool, started: int, requests: int) -> None:
    first, second = Server(api=369937, engine=369990), Server(api=370151, engine=370375)
    lines = [*_preamble(10, *record, plugin, old), *first.startup()[:started],
             *_preamble(30, *record, plugin, old), *second.startup(), *second.requests(requests),
             *second.sigterm()]
    report = explain_text("\n".join(lines) + "\n")
    assert report.verdict is Verdict.NO_FAILURE, (report.root_cause, lines[3])
    assert len(report.runs) == 2 and all(r.verdict is Verdict.NO_FAILURE for r in report.runs)


@settings(max_examples=25, deadline=None)
@given(RECORD, st.sampled_from(PLUGINS), OLD)
def test_an_import_time_record_before_a_start_up_that_fails_without_its_cause_stays_the_root(
        record: tuple[str, str], plugin: str, old: bool) -> None:
    server = Server()
    lines = [*_preamble(10, *record, plugin, old), *server.startup()[:3],
             *server.free_memory_startup_failure()[-4:]]
    report = explain_text("\n".join(lines) + "\n")
    assert report.verdict is Verdict.FAILURE
    assert report.root_cause is not None and report.root_cause.line == 4
    assert report.root_cause.message in record[1]  # or the exception it names


@settings(max_examples=25, deadline=None)
@given(RECORD, st.sampled_from(PLUGINS), OLD, st.booleans())
def test_an_import_time_record_no_start_went_past_stays_the_failure(
        record: tuple[str, str], plugin: str, old: bool, heard_before: bool) -> None:
    server = Server()
    # alone, or after the process that prints the start had already named itself
    lines = [*(server.startup()[:1] if heard_before else []), *_preamble(10, *record, plugin, old),
             *(server.startup()[1:2] if heard_before else [])]
    report = explain_text("\n".join(lines) + "\n")
    assert report.verdict is Verdict.FAILURE, lines
    assert report.root_cause is not None and report.root_cause.message in record[1]
