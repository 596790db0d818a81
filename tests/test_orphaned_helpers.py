"""A helper process that outlives the process that started it says so and stops: vLLM's worker
(`Parent process exited, terminating worker`), the Ascend tensor compiler's pool (`[ERROR] TBE
Subprocess[task_distribute] raise error[], main process disappeared!`, once per compile worker).
Such a line only reports that another process went away (causality.yaml `symptoms`), so it is
never the root cause: with a real error in the log, that error is; without one, the log shows a
failure but not its cause. The variations draw the helper's line with and without a process
prefix, once or many times, before, among and after the engine's own reports."""

from __future__ import annotations

import itertools

import pytest

import logsleuth
from logsleuth.model import Verdict
from v1log import ERAS, Era, worker_failure

ORPHANS = (
    "[ERROR] TBE Subprocess[task_distribute] raise error[], main process disappeared!",
    "ERROR 10-20 11:48:05 [compile.py:88] Compiler worker 3: parent process died, exiting",
    "[ERROR] helper pool: the main process has exited",
)
PREFIXES = ("", "(RayTrainWorker pid=82395) ", "(Worker_TP1 pid=207851) ")

ENGINE_SYMPTOMS = [
    "(EngineCore_DP0 pid=703) ERROR 10-20 11:48:05 [core.py:708] EngineCore failed to start.",
    "(EngineCore_DP0 pid=703) ERROR 10-20 11:48:05 [core.py:708] Traceback (most recent call "
    "last):",
    '(EngineCore_DP0 pid=703) ERROR 10-20 11:48:05 [core.py:708]   File "/vllm-workspace/vllm/'
    'vllm/v1/executor/multiproc_executor.py", line 509, in wait_for_ready',
    "(EngineCore_DP0 pid=703) ERROR 10-20 11:48:05 [core.py:708]     raise e from None",
    "(EngineCore_DP0 pid=703) ERROR 10-20 11:48:05 [core.py:708] Exception: WorkerProc "
    "initialization failed due to an exception in a background process. See stack trace for root "
    "cause.",
]
API_SYMPTOM = ("(APIServer pid=432) RuntimeError: Engine core initialization failed. See root "
               "cause above. Failed core proc(s): {'EngineCore_DP0': 1}")
HEAD = [
    "INFO 10-20 11:34:15 [parallel_state.py:1208] rank 0 in world size 4 is assigned as DP rank 0, "
    "PP rank 0, TP rank 0, EP rank 0",
    "INFO 10-20 11:48:01 [multiproc_executor.py:558] Parent process exited, terminating worker",
]


def _symptoms_only(orphan: str, copies: int, where: int) -> str:
    """The engine's reports with `copies` orphan lines at `where` (0 before, 1 among, 2 after)."""
    block = [orphan] * copies
    body = [*ENGINE_SYMPTOMS, API_SYMPTOM]
    at = (0, len(ENGINE_SYMPTOMS), len(body))[where]
    return "\n".join([*HEAD, *body[:at], *block, *body[at:]]) + "\n"


@pytest.mark.parametrize(("text", "prefix", "copies", "where"), list(itertools.product(
    ORPHANS, PREFIXES, (1, 8), (0, 1, 2))))
def test_an_orphaned_helper_is_no_root_cause(text: str, prefix: str, copies: int,
                                             where: int) -> None:
    report = logsleuth.explain_text(_symptoms_only(prefix + text, copies, where))
    assert report.verdict is Verdict.ROOT_CAUSE_MISSING, report.root_cause
    assert report.root_cause is None


@pytest.mark.parametrize(("text", "era"), list(itertools.product(ORPHANS, ERAS)),
                         ids=lambda value: getattr(value, "name", None))
def test_the_worker_error_stays_the_root_with_orphans_after_it(text: str, era: Era) -> None:
    log = worker_failure("ValueError: No valid attention backend found", era=era)
    report = logsleuth.explain_text((log + "\n".join([text] * 4) + "\n"))
    assert report.verdict is Verdict.FAILURE
    assert report.root_cause is not None
    assert report.root_cause.exception == "ValueError"


@pytest.mark.parametrize("text", [
    # a process that names its own exit, or a parent that outlived its child, reports no
    # orphan: these stay what they were
    "ERROR 10-20 11:48:05 [launcher.py:12] The main process hit an out-of-memory error",
    "[ERROR] child process disappeared while the main process waited",
])
def test_other_process_sentences_are_not_read_as_orphans(text: str) -> None:
    report = logsleuth.explain_text(("\n".join([*HEAD, text]) + "\n"))
    assert report.verdict is Verdict.FAILURE
    assert report.root_cause is not None
