"""Does logsleuth give the remedy vLLM's documentation states for a documented failure?

The catalogue (`signatures/documented-remedies.yaml`) holds one record per pair that a vLLM
documentation page states: an error text or symptom, as vLLM prints it, and the remedy the page
gives for it (flags, environment variables, packages, settings). The probe writes each record's
error as a minimal log in the shape of the process that raises it (`render`), explains it in
process and sorts the record by what the report answered:

- `named`: a signature matched and its fix (the report's, as a user reads it) names every remedy;
- `lacking`: a signature matched and its fix lacks one of the remedies;
- `fallback`: only a fallback, the message's own remedy, a release hint or nothing answered;
- `no_failure`: the log did not read as a failure.

    PYTHONPATH=. .venv/bin/python tools/docs_remedy_probe/probe.py            # lacking records
    PYTHONPATH=. .venv/bin/python tools/docs_remedy_probe/probe.py --show all
    # the catalogue against an earlier commit's signatures
    git archive <commit> signatures | tar -x -C /tmp/base
    PYTHONPATH=. .venv/bin/python tools/docs_remedy_probe/probe.py --signatures /tmp/base/signatures

A remedy entry "a | b" is satisfied by either name; a name is found as `tools/remedy_probe`'s
`holds` finds it (flags and settings by their words, so `--enforce-eager` holds `enforce_eager`).
Not run-time code: tests/test_docs_remedy_probe.py runs it over the whole catalogue.
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from enum import Enum
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path.insert(0, str(ROOT))  # the repository's logsleuth
sys.path.insert(0, str(HERE.parent / "remedy_probe"))
import probe as remedy_probe  # noqa: E402  (whether a fix names a knob)

from logsleuth.model import SignatureKind, Verdict  # noqa: E402
from logsleuth.pipeline import explain_text  # noqa: E402
from logsleuth.signatures import SignatureSet, default_signatures, load_signatures  # noqa: E402
from logsleuth.yamlload import load_yaml  # noqa: E402

CATALOGUE = ROOT / "signatures" / "documented-remedies.yaml"
SITE = "/usr/local/lib/python3.12/dist-packages/"
ANSWERING = frozenset({SignatureKind.EXACT, SignatureKind.FAMILY})
PROCESSES = ("engine_core", "worker", "offline", "line", "api_server", "client")


class Status(Enum):
    NAMED = "named"
    LACKING = "lacking"
    FALLBACK = "fallback"
    NO_FAILURE = "no_failure"


@dataclass(frozen=True, slots=True)
class Record:
    """One documented (error -> remedy) pair."""

    doc: str
    error: str  # "Class: message" (or, with process `line`, the logged message)
    remedies: tuple[tuple[str, ...], ...]  # every entry named; an entry's alternatives
    process: str = "engine_core"
    frames: tuple[str, ...] = ()  # "vllm/path.py:function", outermost first
    signature: str | None = None  # what matched when the record was written

    @classmethod
    def from_dict(cls, data: dict[str, object]) -> Record:
        remedies = data["remedies"]
        frames = data.get("frames") or ()
        assert isinstance(remedies, list) and remedies, data
        assert isinstance(frames, (list, tuple)), data
        process = str(data.get("process", "engine_core"))
        assert process in PROCESSES, process
        signature = data.get("signature")
        return cls(str(data["doc"]), str(data["error"]).rstrip("\n"),
                   tuple(tuple(a.strip() for a in str(r).split(" | ")) for r in remedies),
                   process, tuple(str(f) for f in frames),
                   None if signature is None else str(signature))


def catalogue(path: Path = CATALOGUE) -> list[Record]:
    """The catalogue's records, in file order."""
    data, _ = load_yaml(path)
    assert isinstance(data, list), path
    return [Record.from_dict(d) for d in data]


def _frames(record: Record) -> list[str]:
    lines = []
    for frame in record.frames or ("vllm/v1/engine/core.py:__init__",):
        file, function = frame.rsplit(":", 1)
        lines += [f'  File "{SITE}{file}", line 321, in {function}', "    return fn(*args)"]
    return lines


def render(record: Record) -> str:
    """The record's error as the lines the process that raises it prints (V1, 2025 prefixes)."""
    first, *rest = record.error.split("\n")
    if record.process == "line":
        return "".join(f"(EngineCore_DP0 pid=4100) ERROR 02-05 10:11:30 [core.py:321] {line}\n"
                       for line in (first, *rest))
    traceback = ["Traceback (most recent call last):", *_frames(record), first, *rest]
    if record.process == "offline":
        return ("INFO 02-05 10:11:02 [__init__.py:244] Automatically detected platform cuda.\n"
                + "".join(line + "\n" for line in traceback))
    if record.process == "client":  # an OpenAI client's script: the server refused a request
        return ("Traceback (most recent call last):\n"
                '  File "/app/client.py", line 41, in <module>\n'
                "    response = client.chat.completions.create(**request)\n"
                f'  File "{SITE}openai/_base_client.py", line 1059, in _request\n'
                "    raise self._make_status_error_from_response(err.response) from None\n"
                "openai.BadRequestError: Error code: 400 - {'object': 'error', 'message': "
                f"{first!r}, 'type': 'BadRequestError', 'param': None, 'code': 400}}\n")
    if record.process == "api_server":
        head = "(APIServer pid=4000) ERROR 02-05 10:11:30 [serving_chat.py:321] "
        return "".join(f"{head}{line}\n" for line in ("Error in chat completion.", *traceback))
    if record.process == "worker":
        head = "(Worker_TP0 pid=4200) ERROR 02-05 10:11:30 [multiproc_executor.py:671] "
        return "".join(f"{head}{line}\n" for line in ("WorkerProc hit an exception.", *traceback)) + (
            "(EngineCore_DP0 pid=4100) ERROR 02-05 10:11:31 [core.py:710] EngineCore encountered a "
            "fatal error.\n(EngineCore_DP0 pid=4100) vllm.v1.engine.exceptions.EngineDeadError: "
            "EngineCore encountered an issue. See stack trace (above) for the root cause.\n")
    head = "(EngineCore_DP0 pid=4100) ERROR 02-05 10:11:30 [core.py:708] "
    return "".join(f"{head}{line}\n" for line in ("EngineCore failed to start.", *traceback)) + (
        "(APIServer pid=4000) RuntimeError: Engine core initialization failed. See root cause "
        "above. Failed core proc(s): {}\n")


@dataclass(frozen=True, slots=True)
class Result:
    record: Record
    status: Status
    signature: str | None
    missing: tuple[str, ...]  # the remedies (their first alternative) the fix does not name


def measure_one(record: Record, signatures: SignatureSet) -> Result:
    """Explain one record's log and sort it by what its advice names."""
    report = explain_text(render(record), signatures=signatures)
    if report.verdict is Verdict.NO_FAILURE:
        return Result(record, Status.NO_FAILURE, None, ())
    signature = report.signature
    if signature is None or signature.kind not in ANSWERING:
        return Result(record, Status.FALLBACK, signature.id if signature else None,
                      tuple(r[0] for r in record.remedies))
    missing = tuple(r[0] for r in record.remedies
                    if not remedy_probe.holds(signature.fix, [remedy_probe.normal(k) for k in r]))
    return Result(record, Status.LACKING if missing else Status.NAMED, signature.id, missing)


def measure(records: Sequence[Record], signatures: SignatureSet) -> list[Result]:
    return [measure_one(r, signatures) for r in records]


def summary(results: Sequence[Result]) -> str:
    counts = Counter(r.status for r in results)
    return (f"records {len(results)}: " +
            ", ".join(f"{s.value} {counts[s]}" for s in Status))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--catalogue", type=Path, default=CATALOGUE)
    parser.add_argument("--signatures", type=Path, help="another signature tree to measure")
    parser.add_argument("--show", choices=("lacking", "all", "none"), default="lacking")
    args = parser.parse_args(argv)
    signatures = (load_signatures(args.signatures, shipped=False) if args.signatures
                  else default_signatures())
    results = measure(catalogue(args.catalogue), signatures)
    for r in results:
        if args.show == "all" or (args.show == "lacking" and r.status is not Status.NAMED):
            print(f"{r.status.value:10} {r.signature or '-':45} missing {list(r.missing)} "
                  f"| {r.record.error.splitlines()[0][:90]} | {r.record.doc}")
    print(summary(results))
    return 0


if __name__ == "__main__":
    sys.exit(main())
