"""Where in its lifecycle vLLM was when it failed: load, profile, KV cache, graph capture, ...

The phase is evidence for the signatures (an out-of-memory error while profiling wants other
knobs than one while serving), read from two places, both described as data in the `phases`
section of signatures/causality.yaml:

- the failing traceback's frames (`profile_run`, `capture_model`, `load_weights`): the
  strongest evidence, since they name the code that was running;
- the lifecycle lines before the error (`Loading weights took`, `# GPU blocks`,
  `Capturing CUDA graphs`): the most advanced phase the engine had begun.
"""

from __future__ import annotations

from collections.abc import Iterable

from logsleuth.knowledge import Causality, default_causality
from logsleuth.model import ErrorEvent, Event, Inference, Milestone, MilestoneKind, Phase, PhaseEvidence

# The lifecycle milestones that causality.yaml keeps for other reasons also mark a phase.
_MILESTONE_PHASES = {MilestoneKind.READY: Phase.SERVING, MilestoneKind.SERVING: Phase.SERVING,
                     MilestoneKind.ALIVE: Phase.SERVING, MilestoneKind.REJECTED: Phase.SERVING,
                     MilestoneKind.SHUTDOWN_REQUESTED: Phase.SHUTDOWN}
_ORDER = {phase: index for index, phase in enumerate(Phase)}  # Phase lists the lifecycle in order


def failure_phase(inference: Inference, events: Iterable[Event],
                  causality: Causality | None = None) -> PhaseEvidence | None:
    """The phase of the failure an inference found (its root cause, else its first symptom)."""
    know = causality or default_causality()
    first = inference.root_cause or (inference.symptoms[0] if inference.symptoms else None)
    if first is None:
        return None
    for event in (first, *inference.copies, *inference.chain):
        found = frames_phase(event, know)
        if found is not None:
            return found
    return lines_phase(first.line, events)


def frames_phase(event: ErrorEvent, causality: Causality | None = None) -> PhaseEvidence | None:
    """The phase an error's frames show (its worker title counts: `while processing method
    determine_num_available_blocks`)."""
    know = causality or default_causality()
    places = [f"{frame.file}:{frame.function}" for frame in event.frames]
    if event.title:
        places.append(event.title)
    found = know.phase_of_frames(places)
    if found is None:
        return None
    phase, place = found
    return PhaseEvidence(phase, "frames", place)


def lines_phase(line: int, events: Iterable[Event]) -> PhaseEvidence | None:
    """The most advanced phase begun before `line`; a start-up line after serving is a restart
    and starts over."""
    current = phase_mark(e for e in events if isinstance(e, Milestone) and e.line < line)
    if current is None:
        return None
    current_phase = current.phase or _MILESTONE_PHASES[current.kind]
    return PhaseEvidence(current_phase, "log", f"line {current.line}: {current.text.strip()[:100]}",
                         current.line)


def phase_mark(events: Iterable[Event]) -> Milestone | None:
    """The milestone that marks the most advanced phase begun in `events` (lines_phase's scan;
    None: none marks one). Scanning the mark of some earlier events, then later ones, gives the
    mark of all of them (runfold.py carries it over runs folded as they ended)."""
    current: Milestone | None = None
    current_phase: Phase | None = None
    for event in sorted((e for e in events if isinstance(e, Milestone)), key=lambda m: m.line):
        phase = event.phase or _MILESTONE_PHASES.get(event.kind)  # a milestone may begin one
        if phase is None:
            continue
        restart = current_phase is not None and _ORDER[current_phase] >= _ORDER[Phase.SERVING] \
            and _ORDER[phase] < _ORDER[Phase.SERVING]
        if current_phase is None or restart or _ORDER[phase] >= _ORDER[current_phase]:
            current, current_phase = event, phase
    return current
