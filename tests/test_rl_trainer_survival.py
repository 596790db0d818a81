"""An RL trainer's run that goes on after the errors it prints is no failure (issue 10).

verl and its kin (OpenRLHF, TRL, NeMo-RL, SkyRL) run vLLM as their rollout engine inside a long
log of their own: Ray's actors print through the driver (`(TaskRunner pid=N) ...`), and lines at
ERROR level or with exception text are often handled. What shows the run went on is the trainer's
own step (causality.yaml `milestones.serving`: verl's `step:N - key:value ...` console line, its
`Training Progress` bar past 0, the Hugging Face Trainer's `{'loss': ...}` dict): each step
generated its batch with the engine. Then:

- an error printed before a step was survived (its process's run went on);
- an agent loop's or reward worker's exception (a process that is none of vLLM's roles) that
  the run already went on from once is survived again when it recurs, in any replica of the same
  actor class, even after the last step the log holds (a log committed or copied while the run
  was still going): the same exception class whose message opens with the same words, or a
  traceback cut before its exception line in the function that raised it (causal.py
  `_task_error`, `_recurrence_keys`);
- a log that ends on a training bar past 0 is the run read while it worked, not a stall;
- Ray's raylet logs at level E, every 10 s, that its session directory is over 95% full: a
  condition that is the cause of Ray's later refusal to create or spill an object, and no error
  without one (causality.yaml `latent`, `any_level`);
- Ray's driver prints a line its workers logged alike once with `[repeated Nx across cluster]`
  after it: Ray's count, not the line's (tokenize/grammar.py `clean`);
- an exception's message ends at its process's next lifecycle line (a trainer's step line):
  Python prints a message in one piece, so the trainer's lines after the step (its final
  metrics) are not the message going on, and the step is the work after the error
  (assemble.py; tests/fixtures/tuning, healthy/c-verl-ray-vllm-rollout-debug-training-done-
  dataloader-killed-at-exit: the DataLoader's `killed by signal` at the job's end, then the last
  step's line, then the final validation metrics).

A failing run stays failing: an error no step follows that the run never went on from, another
class of exception after the last step, a training bar that never moved, the raylet's line with
the refusal it warned of.

Generated over actor names, pids, messages, step formats, positions and Ray's dedup suffix.
(tests/fixtures/tuning/healthy/bb-verl-agent-loop-..., bb-verl-grpo-v08x-..., bb-verl-reinforce-
pp-v06x-... are the real logs of the class.)
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from logsleuth.model import Report, Verdict
from logsleuth.pipeline import explain_text
from logsleuth.tokenize import parse_line
from logsleuth.tokenize.grammar import clean

SOME = settings(max_examples=25, deadline=None)
ACTORS = ["CursorLoopWorker", "AgentLoopWorker", "RewardManagerWorker", "ToolAgentLoop"]
WORDS = ["cursor", "button", "answer", "the", "screen", "move", "click", "share", "cart", "Wait,"]
START = [
    "(TaskRunner pid={t}) INFO:2026-03-26 21:58:01,001:Using model Qwen/Qwen2.5-3B-Instruct",
    "(vLLMHttpServer pid={v}) INFO 03-26 21:59:06 [core.py:77] Initializing a V1 LLM engine "
    "(v0.11.0) with config: model='Qwen/Qwen2.5-3B-Instruct', dtype=torch.bfloat16",
    "(vLLMHttpServer pid={v}) INFO 03-26 21:59:40 [gpu_worker.py:298] Available KV cache memory: "
    "20.15 GiB",
    "(TaskRunner pid={t}) Training from scratch",
    "(TaskRunner pid={t}) Training Progress:   0%|          | 0/{total} [00:00<?, ?it/s]",
]


def step_line(fmt: int, step: int, total: int, task: int) -> str:
    """A trainer's step done, in one of the formats its trainers print."""
    prefix = f"(TaskRunner pid={task}) "
    if fmt == 0:
        return (f"{prefix}step:{step} - rollout/total_num_samples:96 - actor/entropy:0.62 - "
                f"timing_s/step:{300 + step}.5")
    if fmt == 1:
        return (f"{prefix}Training Progress:   0%|          | {step}/{total} "
                f"[{step:02d}:00<9:00:00, 66.{step}s/it]")
    return (f"{prefix}{{'loss': 0.0{step}, 'grad_norm': 1.25, 'learning_rate': 1e-06, "
            f"'epoch': 0.0{step}}}")


def parse_error(actor: str, pid: int, kind: int, words: list[str], step: int,
                dedup: int) -> list[str]:
    """An agent loop's handled error: logged with its traceback, or printed alone."""
    prefix = f"({actor} pid={pid}) "
    suffix = f" [repeated {dedup}x across cluster]" if dedup > 1 else ""
    answer = " ".join(words)
    time = f"2026-03-26 2{step % 4}:{pid % 60:02d}:{(pid // 60) % 60:02d},{pid % 1000:03d}"
    if kind == 0:
        return [f"{prefix}ERROR:{time}:Traceback (most recent call last):{suffix}",
                f'{prefix}  File "/work/agent/env_and_state.py", line 470, in update_state',
                f"{prefix}    self._extract_action(text)",
                f'{prefix}  File "/work/agent/env_and_state.py", line 270, in _extract_action',
                f"{prefix}    action, x, y = extractor(text)",
                f"{prefix}TypeError: cannot unpack non-iterable NoneType object{suffix}",
                f"{prefix}ERROR:{time}:Error extracting action for item "
                f"{pid % 1000}{suffix}"]
    return [f"{prefix}ValueError: step {step} - extract action failed from: <think>{answer}"]


def run_log(task: int, vllm: int, total: int, blocks: list[list[str]]) -> str:
    lines = [line.format(t=task, v=vllm, total=total) for line in START]
    for block in blocks:
        lines += block
    return "".join(line + "\n" for line in lines)


def explain(text: str) -> Report:
    return explain_text(text)


ACTOR = st.sampled_from(ACTORS)
PIDS = st.lists(st.integers(50000, 59999), min_size=1, max_size=4, unique=True)
ANSWER = st.lists(st.sampled_from(WORDS), min_size=1, max_size=12)
FMT = st.integers(0, 2)
KIND = st.integers(0, 1)
DEDUP = st.sampled_from([1, 1, 2, 16])


@SOME
@given(ACTOR, PIDS, ANSWER, ANSWER, FMT, st.integers(1, 3), KIND, DEDUP, st.booleans())
def test_handled_task_errors_around_training_steps_are_survived(
        actor: str, pids: list[int], first: list[str], later: list[str], fmt: int, steps: int,
        kind: int, dedup: int, tail_errors: bool) -> None:
    blocks: list[list[str]] = []
    for step in range(1, steps + 1):
        for pid in pids:
            blocks.append(parse_error(actor, pid, kind, first, step - 1, 1))
            blocks.append(parse_error(actor, pid, 1 - kind, first, step - 1, dedup))
        blocks.append(["(TaskRunner pid=38606) batch update"] * 40)  # the step's own output
        blocks.append([step_line(fmt, step, 1000, 38606)])
    if tail_errors:  # the log ends mid-step, on the same errors (a log copied while it ran)
        for pid in reversed(pids):
            blocks.append(parse_error(actor, pid, 1 - kind, later, steps, dedup))
            blocks.append(parse_error(actor, pid, kind, later, steps, 1))
    report = explain(run_log(38606, 57000, 1000, blocks))
    assert report.verdict is Verdict.NO_FAILURE, report.root_cause


@SOME
@given(ACTOR, PIDS, ANSWER, FMT, KIND)
def test_task_errors_no_step_follows_stay_the_failure(
        actor: str, pids: list[int], answer: list[str], fmt: int, kind: int) -> None:
    # no step after them: nothing shows the run went on
    blocks = [parse_error(actor, pid, kind, answer, 0, 1) for pid in pids]
    report = explain(run_log(38606, 57000, 1000, blocks))
    assert report.verdict is Verdict.FAILURE
    # nor does a step line of a trainer before them
    report = explain(run_log(38606, 57000, 1000, [[step_line(fmt, 1, 1000, 38606)], *blocks]))
    assert report.verdict is Verdict.FAILURE


@SOME
@given(ACTOR, PIDS, ANSWER, FMT, KIND, st.sampled_from([
    ["(TaskRunner pid=38606) Traceback (most recent call last):",
     '(TaskRunner pid=38606)   File "/work/verl/trainer/main_ppo.py", line 64, in run',
     "(TaskRunner pid=38606)     trainer.fit()",
     "(TaskRunner pid=38606) RuntimeError: CUDA error: an illegal memory access was encountered"],
    ["({actor} pid={pid}) Traceback (most recent call last):",
     '({actor} pid={pid})   File "/work/agent/reward.py", line 12, in score',
     "({actor} pid={pid})     return table[key]",
     "({actor} pid={pid}) KeyError: 'ground_truth'"],
]))
def test_another_error_after_the_last_step_stays_the_failure(
        actor: str, pids: list[int], answer: list[str], fmt: int, kind: int,
        fatal: list[str]) -> None:
    blocks = [parse_error(actor, pid, kind, answer, 0, 1) for pid in pids]
    blocks += [["(TaskRunner pid=38606) batch update"] * 40, [step_line(fmt, 1, 1000, 38606)]]
    blocks += [[line.format(actor=actor, pid=pids[0]) for line in fatal]]
    report = explain(run_log(38606, 57000, 1000, blocks))
    assert report.verdict is Verdict.FAILURE
    assert report.root_cause is not None and report.root_cause.exception in (
        "RuntimeError", "KeyError")


@SOME
@given(st.integers(1, 500), st.integers(501, 20000), st.booleans())
def test_a_log_that_ends_on_a_training_bar_past_zero_is_no_stall(
        done: int, total: int, prefixed: bool) -> None:
    prefix = "(TaskRunner pid=1651349) " if prefixed else ""
    bars = [f"{prefix}Training Progress:   0%|          | {i}/{total} "
            f"[{i:02d}:18<339:58:54, 66.{i % 10}s/it]" for i in range(1, done + 1)]
    report = explain(run_log(1651349, 1656370, total, [bars]))
    assert report.verdict is Verdict.NO_FAILURE


@SOME
@given(st.integers(501, 20000), st.booleans())
def test_a_log_that_ends_on_a_training_bar_at_zero_is_a_stall(total: int, prefixed: bool) -> None:
    # the bar drawn as the loop began, and nothing done: the run stopped before its first step
    report = explain(run_log(1651349, 1656370, total, []))
    assert report.verdict is Verdict.ROOT_CAUSE_MISSING


def raylet(percent: int, free: int, seconds: int, units: bool = False) -> str:
    # bytes, or (later Ray) a number with its unit: `available space: 51.517 GB; capacity:
    # 7095.37 GB.` (tests/fixtures/tuning, healthy/c-verl-ray-vllm-rollout-debug-training-done-...)
    sizes = f"{free / 10**9:.3f} GB; capacity: 3721.78 GB" if units else \
        f"{free}; capacity: 3721784041472"
    return (f"(raylet) [2025-03-02 11:5{seconds // 60 % 10}:{seconds % 60:02d},730 E 451181 "
            f"451210] (raylet) file_system_monitor.cc:111: /tmp/ray/session_2025-03-02_11-55-38_"
            f"849146_450904 is over {percent}% full, available space: {sizes}. Object creation "
            "will fail if spilling is required.")


FULL = st.lists(st.tuples(st.integers(90, 99), st.integers(10**9, 10**12), st.integers(0, 599),
                          st.booleans()),
                min_size=1, max_size=8)


GIT_ROOT = ["(main_task pid=457932) ERROR:2025-03-02 11:56:34,332:git root error: Cmd('git') "
            "failed due to: exit code(128)",
            "(main_task pid=457932)   cmdline: git rev-parse --show-toplevel",
            "(main_task pid=457932)   stderr: 'fatal: detected dubious ownership in repository "
            "at '/mnt/data/rl'",
            "(main_task pid=457932) wandb: Tracking run with wandb version 0.19.7"]


@SOME
@given(FULL, st.booleans(), st.integers(0, 8))
def test_the_raylets_disk_record_alone_is_no_error(records: list[tuple[int, int, int, bool]],
                                                    last: bool, git_at: int) -> None:
    blocks = [[raylet(*r), "(WorkerDict pid=458471) Actor use_remove_padding=True"]
              for r in records]
    blocks.insert(min(git_at, len(blocks)), GIT_ROOT)  # wandb's probe of the repository
    if last:
        blocks.append([raylet(*records[0])])
    report = explain(run_log(457932, 458683, 560, blocks))
    assert report.verdict is Verdict.NO_FAILURE


@SOME
@given(FULL)
def test_the_raylets_disk_record_is_the_cause_of_the_refusal_it_warned_of(
        records: list[tuple[int, int, int, bool]]) -> None:
    blocks = [[raylet(*r)] for r in records]
    blocks.append([
        "(TaskRunner pid=457932) Traceback (most recent call last):",
        '(TaskRunner pid=457932)   File "/work/verl/trainer/ppo/ray_trainer.py", line 900, in fit',
        "(TaskRunner pid=457932)     batch = ray.get(refs)",
        "(TaskRunner pid=457932) ray.exceptions.ObjectStoreFullError: Failed to put object "
        "ffffffffffffffffffffffffffffffffffffffff0100000002e1f505 in object store because it is "
        "full. Object size is 2147483648 bytes."])
    report = explain(run_log(457932, 458683, 560, blocks))
    assert report.verdict is Verdict.FAILURE
    assert report.signature is not None and report.signature.id == "ray-object-store-full"


@SOME
@given(st.sampled_from(["TypeError: cannot unpack non-iterable NoneType object",
                        "ERROR:2026-03-26 21:59:46,388:Traceback (most recent call last):",
                        '  File "/work/agent/env_and_state.py", line 470, in update_state',
                        "Error: <answer> tag not found."]),
       st.integers(2, 999), st.sampled_from(["(CursorLoopWorker pid=57714) ", ""]))
def test_rays_dedup_count_is_not_the_lines(text: str, count: int, prefix: str) -> None:
    bare = parse_line(clean(prefix + text))
    counted = parse_line(clean(f"{prefix}{text} [repeated {count}x across cluster]"))
    assert (counted.kind, counted.exception, counted.message, counted.process) == \
        (bare.kind, bare.exception, bare.message, bare.process)


@SOME
@given(st.sampled_from(["DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL"]),
       st.integers(2020, 2030), st.integers(1, 12), st.integers(1, 28), st.integers(0, 23),
       st.integers(0, 59), st.integers(0, 999))
def test_a_python_record_headed_by_its_time_is_a_record(
        level: str, year: int, month: int, day: int, hour: int, minute: int, ms: int) -> None:
    # `%(levelname)s:%(asctime)s:%(message)s` (verl's actors): its level, its time, its text
    stamp = f"{year}-{month:02d}-{day:02d} {hour:02d}:{minute:02d}:{minute:02d},{ms:03d}"
    line = parse_line(f"(AgentLoopWorker pid=57714) {level}:{stamp}:Traceback (most recent call "
                      "last):")
    assert line.level is not None and line.level.value == level
    assert line.text == "Traceback (most recent call last):"
    assert line.time == stamp[5:19]
    assert parse_line(f"{level}:root:boom").text == "boom"  # basicConfig's logger name


DATALOADER = ["(TaskRunner pid={t}) Traceback (most recent call last):",
              '(TaskRunner pid={t})   File "/venv/lib/python3.13/site-packages/ray/_private/'
              'worker.py", line 1031, in main_loop',
              "(TaskRunner pid={t})     self.core_worker.run_task_loop()",
              '(TaskRunner pid={t})   File "/venv/lib/python3.13/site-packages/torch/utils/data/'
              '_utils/signal_handling.py", line 73, in handler',
              "(TaskRunner pid={t})     _error_if_any_worker_fails()",
              "(TaskRunner pid={t}) RuntimeError: DataLoader worker (pid 563735) is killed by "
              "signal: Killed. "]
METRICS = ["(TaskRunner pid={t}) (\"Final validation metrics: {{'val-core/acc/mean@1': \"",
           "(TaskRunner pid={t})  \"np.float64(10.96), 'val-aux/num_turns/min': np.int32(2), \"",
           "(TaskRunner pid={t})  'np.float64(2.0)}}')"]


@SOME
@given(FMT, st.integers(1, 3), st.integers(1, 3), st.integers(20000, 99999))
def test_an_exception_message_ends_at_its_process_next_lifecycle_line(
        fmt: int, steps: int, metrics: int, task: int) -> None:
    blocks = [[step_line(fmt, step, steps + 1, task)] for step in range(1, steps + 1)]
    blocks.append([line.format(t=task) for line in DATALOADER])
    blocks.append([step_line(fmt, steps + 1, steps + 1, task)])
    blocks.append([line.format(t=task) for line in METRICS[:metrics]])
    text = run_log(task, 57000, steps + 1, blocks)
    report = explain(text)
    assert report.verdict is Verdict.NO_FAILURE, report.root_cause
    killed = [e for e in report.survived if "DataLoader worker" in e.message]
    assert killed and "Final validation" not in killed[0].message
    exception_line = text.splitlines().index(DATALOADER[-1].format(t=task)) + 1
    assert killed[0].last_line == exception_line
