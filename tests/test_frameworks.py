"""vLLM inside another framework: the framework's option names follow a fix that names the
engine settings (logsleuth/frameworks.py, signatures/framework-knobs.yaml)."""

from __future__ import annotations

import random

import pytest

from logsleuth.frameworks import default_frameworks, framework_lines, with_framework_knobs
from logsleuth.model import ErrorEvent, EventKind, Frame, Match, Process

FRAMEWORKS = default_frameworks()
SITE = ("/usr/local/lib/python3.11/site-packages", "/opt/conda/lib/python3.10/dist-packages",
        "/home/u/.venv/lib/python3.12/site-packages")


def _event(files: list[str], process: str = "main") -> ErrorEvent:
    return ErrorEvent(id=1, kind=EventKind.EXCEPTION, exception="ValueError", message="m",
                      process=Process(process), line=9, first_line=1, last_line=9,
                      frames=tuple(Frame(f, 3, "f") for f in files))


def _match(fix: str) -> Match:
    return Match("x", "t", 0.9, fix, (), (), "root_cause")


def _package(framework_name: str) -> str:
    return {"skyrl": "skyrl_train", "ms-swift": "swift",
            "kserve": "huggingfaceserver"}.get(framework_name, framework_name)


@pytest.mark.parametrize("framework", FRAMEWORKS, ids=lambda f: f.name)
def test_every_knob_is_translated_in_both_spellings(framework):
    rng = random.Random(framework.name)
    for argument, option in framework.knobs.items():
        for named in ("--" + argument.replace("_", "-") + " 0.5", f"`{argument}=...`"):
            fix = f"1. Lower the budget: {named}, then restart."
            frames = [f"{rng.choice(SITE)}/vllm/entrypoints/llm.py",
                      f"{rng.choice(SITE)}/{_package(framework.name)}/workers/x.py"]
            rng.shuffle(frames)
            out = with_framework_knobs(_match(fix), [_event(frames)], FRAMEWORKS)
            assert out is not None and out.fix.startswith(fix)
            assert f"`{option.split(' ', 1)[0]}`" in out.fix, (framework.name, argument)


@pytest.mark.parametrize("framework", FRAMEWORKS, ids=lambda f: f.name)
def test_no_framework_no_line_and_named_option_not_repeated(framework):
    argument, option = next(iter(framework.knobs.items()))
    fix = f"Set --{argument.replace('_', '-')} lower."
    plain = _event([f"{SITE[0]}/vllm/v1/worker/gpu_worker.py", "/workspace/serve.py"])
    assert with_framework_knobs(_match(fix), [plain], FRAMEWORKS).fix == fix
    already = f"{fix} In {framework.title} that is {option.split(' ', 1)[0]}."
    assert not framework_lines(already, framework)


def test_actor_process_names_the_framework():
    fix = "Raise `gpu_memory_utilization`."
    for actor, expect in (("WorkerDict", "actor_rollout_ref.rollout.gpu_memory_utilization"),
                          ("LLMRayActor", "--vllm.gpu_memory_utilization")):
        out = with_framework_knobs(_match(fix), [_event([], actor)], FRAMEWORKS)
        assert out is not None and expect in out.fix


def test_a_plain_word_is_not_a_setting():
    trl = next(f for f in FRAMEWORKS if f.name == "trl")
    assert not any(line.startswith("`port`") for line in
                   framework_lines("Open the port on the firewall.", trl))
    assert any(line.startswith("`port`") for line in framework_lines("Change `port`.", trl))
