"""The metamorphic sweep, cheap enough for CI (issue 10): real logs under generated transforms.

tests/metamorphic.py rewrites a whole log as a launcher, console or paste would (docker, compose,
kubectl, journald, CRI with partial lines, Ray's relay, srun, a markdown quote, colours, CRLF,
tabs, lost indentation or blank lines, another server's lines interleaved, a head or tail cut).
Here a fixed-seed sample of the corpus and tuning cases meets every transform (a budget of
SAMPLE cases each, a different sample per transform); a case whose report is wrong today is no
subject. The full sweep is tools/metamorphic/sweep.py. test_run_properties.py holds the line
wrappers over the copied corpus with hypothesis; this adds the real tuning logs and the
transforms that move, split, drop or add lines.

Then the mechanisms the sweep exposed, each with generated inputs: CRI's partial lines joined,
and a caret-form line end saved again with CRLF.
"""

from __future__ import annotations

import io
import random
import zlib
from functools import cache

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from corpus_judge import CORPUS, TUNING_DIR, Case, judge, load_cases
from logsleuth.crilines import CriPieces, is_cri
from logsleuth.knowledge import default_causality
from logsleuth.model import Role
from logsleuth.pipeline import explain_text
from logsleuth.render.json import report_to_dict
from logsleuth.signatures import default_signatures
from logsleuth.tokenize import clean
from scenario_logs import ILLEGAL_ACCESS, Server
from metamorphic import (LINE_WRAPPERS, TRANSFORMS, anchor_of, answer_of, blank_lines,
                        differences, interleave, then)

SAMPLE = 4  # cases per transform
# Known breaks the sample meets, strict: each must still break (else it leaves this list), and each
# must be met (a break the sample no longer reaches leaves it too). (The tail cut of the lost-indent
# execute_model RPC timeout, whose signature's evidence lies after the cut, is a known break of the
# full sweep, tools/metamorphic/README.md, that this sample no longer draws.)
# (Session 13: the Ray PP3 CUTLASS case under interleave-failing left it once the merged code no
# longer moved its root; with it a subject, the sample no longer draws the unprefixed pipe-margin
# excerpt, a known break of the full sweep listed in tools/metamorphic/README.md.)
# (Session 15: the Ray PP3 CUTLASS case under interleave-failing left it again: the sample's
# healthy partner changed when the fifth development split and the wild sweeps added tuning
# cases, and the new partner's server does not save the worker's first error. The mechanism
# gap (a RayWorkerWrapper is no child of a server whose workers are Worker_TP*) is not fixed.)
# (Session 17: the eighth split's cases brought it back into the sample, failing again; the gap
# is now closed: one engine runs its workers as its own processes or as Ray's actors, so Ray's
# actors beside a server's own workers are another deployment's, causality.yaml `ray_actors`,
# tests/test_deployments.py.)
# (Session 28: the docker-timestamped Ascend structured-output log left it: behind a launcher's
# prefix on every line, torch_npu's `[ERROR] ... ERR99999` record after the chained ValueError was
# read as the chain's message, with xgrammar's leak report after it, whose `xgrammar` gave the
# backend family words on the chain; a record is told from the exception's message by its relay
# now (LogLine.relayed), not by the outermost wrapper. Every wrapper broke it, not docker's alone.)
KNOWN_BREAKS: dict[tuple[str, str], str] = {
    # (Session 21: a subject since a paste of access lines whose every request was refused, polls
    # between them or not, reads as refusals, refused.py.) Refusals alone are read only when they
    # are the whole log: another server's healthy lines interleaved make it a log with requests
    # served, and which server refused which request is not told apart (no deployment per line).
    ("interleave-healthy",
     "runtime/u-hass-integration-vllm-assist-tools-chat-400-bad-request-access-lines-only-symptom"):
        "refusals are read only as the whole log; another server's served requests interleaved",
    # (Session 22, the hard-wrap rejoin, logsleuth/hardwrap.py.) Three access lines that differ
    # only in their ports, each cut one character before its end: rows alike but for digits are
    # no evidence of a width (a stats line repeated is not), so the rows are read as they are.
    ("hard-wrap-80", "runtime/m-ascend-910b-qwen25-function-call-three-400-bad-request-lines"):
        "rows alike but for their digits are no evidence of a width",
    # A log collected terminal-wrapped is read joined; the transform appends unwrapped lines
    # longer than its width, so no width is read and its root message stays cut, as before the
    # rejoin: the reference moved, not the transformed answer.
    ("shutdown-tail", "startup/d-v09-llama4-maverick-fp8-tp8-illegal-memory-access"):
        "a log collected wrapped, with unwrapped lines longer than its width appended",
    # (Session 30, a case of the session's split collected wrapped at 145 columns.) The
    # transform puts kubectl's prefix before every row of the terminal's copy, which no launcher
    # does (it prefixes the lines a process wrote, before any terminal wraps them): a row that
    # begins as its line's first row did is a line of its own, so the root message stays cut at
    # its first row, as the file reads without the rejoin. The reference moved, not the answer.
    ("kubectl-prefix", "launchers/ee-ascend-ray-two-node-v0102-pp2-tp8-ray-start-num-gpus-no-npu-"
                       "in-placement-group-wrapped"):
        "a log collected wrapped, each of its rows prefixed as no launcher prefixes rows",
}
SOME = settings(max_examples=40, deadline=None)


def report(lines: list[str]) -> dict[str, object]:
    return report_to_dict(explain_text("\n".join(lines) + "\n", signatures=default_signatures()))


@cache
def cases() -> tuple[Case, ...]:
    return tuple(load_cases(CORPUS) + load_cases(TUNING_DIR))


@cache
def reference(index: int) -> tuple[list[str], dict[str, object]] | None:
    case = cases()[index]
    lines = case.log.read_text(encoding="utf-8", errors="replace").splitlines()
    original = report(lines)
    return (lines, original) if judge(case.label, original).case else None


@pytest.mark.parametrize("name", sorted(TRANSFORMS))
def test_a_sample_of_real_logs_keeps_its_answer_under_the_transform(name: str) -> None:
    rng = random.Random(zlib.crc32(name.encode()))
    # Each case's place is a hash of its own id: a case added or moved elsewhere leaves the others'
    # order, so the sample changes only by the cases that come in, not by a reshuffle.
    order = sorted(range(len(cases())), key=lambda index: zlib.crc32(f"{name}/{cases()[index].id}".encode()))
    tried = 0
    met = set()
    for index in order:
        subject = reference(index)
        if subject is None:
            continue
        lines, original = subject
        moved = TRANSFORMS[name](lines, random.Random(rng.random()), anchor_of(original))
        if moved is None:
            continue  # nothing to transform in this log (no worker prefix, no blank line)
        got = answer_of(report(moved.lines))
        unnamed = name.endswith("unnamed")
        broken = differences(answer_of(original), got, moved, unnamed)
        if (name, cases()[index].id) in KNOWN_BREAKS:
            assert broken, (name, cases()[index].id, "fixed: take it out of KNOWN_BREAKS")
            met.add((name, cases()[index].id))
            continue
        assert not broken, (name, cases()[index].id, got)
        tried += 1
        if tried == SAMPLE:
            break
    assert tried, name
    # A known break the sample no longer draws (cases came in ahead of it) is still tried, so an
    # entry can neither go stale nor hide a fix because the sample moved.
    ids = {case.id: index for index, case in enumerate(cases())}
    for known in sorted(known for known in KNOWN_BREAKS if known[0] == name and known not in met):
        assert known[1] in ids, (known, "no such case: take it out of KNOWN_BREAKS")
        subject = reference(ids[known[1]])
        assert subject is not None, (known, "no longer answered right untransformed")
        lines, original = subject
        moved = TRANSFORMS[name](lines, random.Random(zlib.crc32("/".join(known).encode())), anchor_of(original))
        assert moved is not None, (known, "nothing to transform")
        assert differences(answer_of(original), answer_of(report(moved.lines)), moved, name.endswith("unnamed")), \
            (known, "fixed: take it out of KNOWN_BREAKS")


# ---- blank lines between records, behind any wrapper ------------------------------------------
# A blank line (empty or of whitespace; behind a launcher's wrapper, a quote, or the prefix of the
# process that printed it) between two records says nothing: it ends no record's message that the
# next record would not end, and no wrapper makes it more than blank (issue 10; the transforms
# `blank-lines` and `blank-lines-wrapped` put real logs through the same).

def _failing_server(kind: int) -> list[str]:
    server = Server(workers=2)
    lines = server.startup() + server.requests(3)
    if kind == 0:  # a worker's error at run time, reported by the engine and the API server
        return lines + server.worker_runtime_error(1, ILLEGAL_ACCESS) + server.engine_wrapper(
            ILLEGAL_ACCESS) + server.engine_dead()
    if kind == 1:  # the engine core fails at start-up
        return server.startup()[:4] + server.free_memory_startup_failure()
    if kind == 2:  # a request refused with a logged traceback: survived
        return lines + server.request_error() + server.requests(3)
    if kind == 3:
        return lines + server.engine_error(["IndexError: list index out of range"]) + \
            server.engine_dead()
    # an offline script's request refused by the structured-output validation (vLLM's
    # v1/structured_output/utils.py texts), raised from the grammar conversion, then torch_npu's
    # exit record and a binding's leak report that names the backend (session 27's break)
    site = "/opt/venv/lib/python3.10/site-packages/vllm"
    return [
        "INFO 04-03 06:53:10 [__init__.py:30] Available plugins for group vllm.platform_plugins:",
        "INFO 04-03 06:53:11 [core.py:61] Initializing a V1 LLM engine (v0.8.3) with config: "
        "model='Qwen/Qwen2.5-3B-Instruct'",
        "INFO 04-03 06:53:15 [backends.py:132] Compiling a graph for general shape takes 9.1 s",
        "Traceback (most recent call last):",
        f'  File "{site}/v1/structured_output/utils.py", line 285, in '
        "validate_structured_output_request_xgrammar",
        "    gd_params.grammar = convert_lark_to_ebnf(gd_params.grammar)",
        f'  File "{site}/v1/structured_output/utils.py", line 220, in convert_lark_to_ebnf',
        '    raise ValueError("Referenced rules are not defined: "',
        "ValueError: Referenced rules are not defined: Z0, Z_, a, zA",
        "",
        "The above exception was the direct cause of the following exception:",
        "",
        "Traceback (most recent call last):",
        '  File "/home/user/structured_outputs.py", line 78, in <module>',
        "    outputs = llm.generate(",
        f'  File "{site}/v1/structured_output/utils.py", line 287, in '
        "validate_structured_output_request_xgrammar",
        "    raise ValueError(",
        "ValueError: Failed to convert the grammar from Lark to EBNF. ",
        "[ERROR] 2025-04-03-06:53:18 (PID:74050, Device:-1, RankID:-1) ERR99999 UNKNOWN "
        "applicaiton exception",
        "nanobind: leaked 1 instances!",
        ' - leaked instance 0xfffd00288708 of type "xgrammar.xgrammar_bindings.GrammarCompiler"',
    ]


@pytest.mark.long
@settings(max_examples=20, deadline=None)
@given(st.integers(0, 4), st.sampled_from(["", *sorted(LINE_WRAPPERS)]),
       st.randoms(use_true_random=False))
def test_blank_lines_between_records_behind_any_wrapper_change_nothing(
        kind: int, wrapper: str, rng: random.Random) -> None:
    lines = _failing_server(kind)
    reference = report(lines)
    transform = then(blank_lines, LINE_WRAPPERS[wrapper]) if wrapper else blank_lines
    moved = transform(lines, rng, anchor_of(reference))
    assert moved is not None
    got = answer_of(report(moved.lines))
    assert not differences(answer_of(reference), got, moved), (wrapper, got, moved.lines)


# ---- CRI's partial lines ------------------------------------------------------------------------

texts = st.text(st.characters(min_codepoint=32, max_codepoint=126), max_size=60)


@SOME
@given(st.lists(st.tuples(texts, st.sampled_from(["stdout", "stderr"]), st.integers(1, 4)),
                min_size=1, max_size=12), st.randoms(use_true_random=False),
       st.integers(1, 64))
def test_cri_pieces_are_joined_on_the_first_line_of_each(
        lines: list[tuple[str, str, int]], rng: random.Random, block: int) -> None:
    """Lines of two streams, each cut into 1..4 pieces, the streams' pieces interleaved: every
    line comes back whole where its first piece was; a later piece right after its line's rows
    so far is a row of that line (`rows` maps each line read to the file's row it begins on), one
    after another stream's line leaves a blank where it was."""
    queues: dict[str, list[list[str]]] = {"stdout": [], "stderr": []}
    for text, stream, parts in lines:
        cuts = sorted(rng.sample(range(len(text) + 1), min(parts - 1, len(text) + 1)))
        bounds = [0, *cuts, len(text)]
        pieces = [text[a:b] for a, b in zip(bounds, bounds[1:])]
        queues[stream].append([f"2024-07-22T10:38:57.2Z {stream} "
                               f"{'P' if i < len(pieces) - 1 else 'F'} {piece}"
                               for i, piece in enumerate(pieces)])
    out: list[str] = []
    expected: list[str] = []
    first_rows: list[int] = []  # the file's row each expected line begins on
    pending = {s: [p for line in q for p in line] for s, q in queues.items()}
    whole = {s: [t for t, st_, _ in lines if st_ == s] for s in queues}
    open_at: dict[str, int] = {}  # stream -> index in expected of its open line
    while any(pending.values()):
        stream = rng.choice([s for s in pending if pending[s]])
        piece = pending[stream].pop(0)
        out.append(piece)
        at = open_at.get(stream)
        if at is None:
            expected.append(f"{piece[:piece.index(stream) + len(stream) + 3]}"
                            f"{whole[stream].pop(0)}")
            first_rows.append(len(out))
            at = len(expected) - 1
        elif at != len(expected) - 1:
            expected.append("")
            first_rows.append(len(out))
        if piece.split(" ")[2] == "F":
            open_at.pop(stream, None)
        else:
            open_at[stream] = at
    data = ("\n".join(out) + "\n").encode()
    assert is_cri(data)
    reader = CriPieces(io.BytesIO(data))  # type: ignore[arg-type]
    got = b""
    while chunk := reader.read(block):
        got += chunk
    assert got.decode().split("\n")[:-1] == expected
    assert [reader.rows.first(n) for n in range(1, len(expected) + 1)] == first_rows
    assert reader.rows.count(len(expected)) == len(out)


@SOME
@given(st.sampled_from(["^M", "#015"]), texts)
def test_a_caret_line_end_saved_again_with_crlf_is_one_line_end(caret: str, text: str) -> None:
    assert clean(f"INFO 01-01 00:00:00 [x.py:1] {text}{caret}\r") == \
        clean(f"INFO 01-01 00:00:00 [x.py:1] {text}")


# ---- indentation written with tabs --------------------------------------------------------------

names = st.from_regex(r"[a-z_]{1,12}", fullmatch=True)


@SOME
@given(st.integers(0, 12), st.lists(st.tuples(names, names), min_size=1, max_size=5),
       st.sampled_from(["ValueError", "RuntimeError", "torch.OutOfMemoryError"]), texts)
def test_a_traceback_tabified_gives_the_same_root(indent: int, frames: list[tuple[str, str]],
                                                  exception: str, message: str) -> None:
    """A traceback (indented as a paste may indent it) with its indentation turned into tabs at
    stops of 8, as `unexpand` writes it: the same root at the same line."""
    lines = ["INFO 01-01 00:00:00 [api_server.py:1] vLLM API server version 0.6.3",
             "Traceback (most recent call last):"]
    for module, function in frames:
        lines += [f'  File "/opt/venv/lib/python3.11/site-packages/{module}.py", line 7, in '
                  f"{function}", f"    {function}()"]
    lines = [lines[0]] + [" " * indent + line for line in lines[1:]]
    lines.append(" " * indent + f"{exception}: {message.strip() or 'x'}")

    def tabify(line: str) -> str:
        body = line.lstrip(" ")
        depth = len(line) - len(body)
        return "\t" * (depth // 8) + " " * (depth % 8) + body

    plain = answer_of(report(lines))
    tabbed = answer_of(report([tabify(line) for line in lines]))
    assert plain.exception and plain == tabbed


# ---- Ray's relay of an unnamed worker -----------------------------------------------------------

@SOME
@given(st.integers(1, 4_000_000), st.ip_addresses(v=4).map(str), st.integers(0, 1))
def test_a_worker_relayed_by_ray_without_its_name_is_a_worker(pid: int, ip: str,
                                                              rank: int) -> None:
    """Ray prints a task's or unnamed actor's lines behind `(pid=N, ip=A)` (its driver's own
    lines have no prefix; vLLM names every process it starts): such a process is a worker, and
    a worker's error relayed so is read as the worker's, as with its name."""
    server = Server(workers=2)
    lines = server.startup() + server.requests(20) + server.worker_runtime_error(
        rank, ILLEGAL_ACCESS) + server.engine_dead()
    prefix = f"(Worker_TP{rank} pid={server.workers[rank]})"
    relayed = [f"(pid={pid}, ip={ip})" + line[len(prefix):] if line.startswith(prefix) else line
               for line in lines]
    named, unnamed = (explain_text("\n".join(x) + "\n", signatures=default_signatures())
                      for x in (lines, relayed))
    assert named.root_cause is not None and unnamed.root_cause is not None
    assert default_causality().role_of(unnamed.root_cause.process.name) is Role.WORKER
    assert (unnamed.verdict, unnamed.root_cause.exception, unnamed.root_cause.line) == \
        (named.verdict, named.root_cause.exception, named.root_cause.line)
    assert (unnamed.signature and unnamed.signature.id) == (named.signature and named.signature.id)


# ---- a failing process beside another, healthy deployment (session 14's interleave breaks) ----
# A process that died natively (causality.yaml `deaths`) is saved by no other process's work when
# pids do not tell whose deployment it was (a Ray actor started before any server), and the
# records native code logged right before it are settled with it; an unprefixed record native
# code logged next to a named process's error is that process's (causal.py _speakers).

WATCHDOG = ("[rank{rank}]:[E219 08:58:32.606233339 ProcessGroupNCCL.cpp:616] [Rank {rank}] "
            "Watchdog caught collective operation timeout: WorkNCCL(SeqNum=31, OpType=ALLREDUCE, "
            "NumelIn=117440512, NumelOut=117440512, Timeout(ms)=600000) ran for 600031 "
            "milliseconds before timing out.")
TAKEN_DOWN = ("[rank{rank}]:[E219 08:58:32.606733115 ProcessGroupNCCL.cpp:636] [Rank {rank}] To "
              "avoid data inconsistency, we are taking the entire process down.")
DEATHS = ["[2025-02-19 08:58:32,022 E {pid} {pid}] logging.cc:108: Unhandled exception: "
          "N3c1016DistBackendErrorE. what(): [Rank {rank}] Watchdog caught collective operation "
          "timeout",
          "terminate called after throwing an instance of 'c10::DistBackendError'",
          "Fatal Python error: Aborted", "*** SIGABRT received at time=1739955512 on cpu 7 ***"]
ACTORS = ["(RayWorkerWrapper pid={pid}, ip=10.175.94.190) ", "(RayWorkerWrapper pid={pid}) ",
          "(pid={pid}, ip=10.0.0.3) "]


def _healthy_beside(lines: list[str], rng: random.Random, start: int,
                    up_first: bool = False) -> list[str]:
    """Another deployment's start-up and answers dealt in among `lines` from `start` on (with
    `up_first`, its start-up comes first and only its answers are dealt in)."""
    server = Server(api=990_001, engine=990_101, workers=2)
    host = server.startup() + server.requests(max(40, len(lines)))
    head = server.startup() if up_first else []
    return head + interleave(lines, start, host[len(head):], rng).lines


@SOME
@given(st.sampled_from(DEATHS), st.sampled_from(ACTORS), st.integers(1, 7),
       st.integers(1000, 400_000), st.booleans(), st.randoms(use_true_random=False))
def test_a_worker_that_died_natively_beside_a_healthy_server_is_the_failure(
        death: str, actor: str, rank: int, pid: int, failing: bool, rng: random.Random) -> None:
    prefix = actor.format(pid=pid)
    own = [prefix + WATCHDOG.format(rank=rank), prefix + TAKEN_DOWN.format(rank=rank),
           prefix + death.format(pid=pid, rank=rank)]
    lines = _healthy_beside(own, rng, 0, up_first=not failing)
    got = report(lines)
    assert got["verdict"] == "failure", got
    root = got["root_cause"]
    assert isinstance(root, dict)
    assert "Watchdog caught collective operation timeout" in str(root["message"])


QUOTED_WORKER = ["(VllmWorkerProcess pid={pid}) ERROR 03-23 21:33:26 [multiproc_worker_utils.py:238]"
                 " Exception in worker VllmWorkerProcess while processing method "
                 "determine_num_available_blocks.",
                 "(VllmWorkerProcess pid={pid}) ERROR 03-23 21:33:26 [multiproc_worker_utils.py:238]"
                 " Traceback (most recent call last):"]
NATIVE_AFTER = ["[rank2]:[E323 21:33:26.170490902 ProcessGroupNCCL.cpp:1896] [PG ID 2 PG GUID 3 "
                "Rank 2] Process group watchdog thread terminated with exception: CUDA error: an "
                "illegal memory access was encountered",
                "[rank2]:[E323 21:33:26.170490902 ProcessGroupNCCL.cpp:1896] [PG ID 2 PG GUID 3 "
                "Rank 2] Process group watchdog thread terminated with exception: NCCL error: "
                "unhandled system error"]
WRAPPERS = ["", "> ", "vllm-1  | "]


@SOME
@given(st.sampled_from(NATIVE_AFTER), st.sampled_from(WRAPPERS), st.integers(1000, 90_000),
       st.integers(0, 3), st.randoms(use_true_random=False))
def test_an_unprefixed_native_record_next_to_a_worker_s_error_is_that_worker_s(
        native: str, wrapper: str, pid: int, gap: int, rng: random.Random) -> None:
    """A worker's report cut after its header, then the record native code wrote for it without
    the prefix; another deployment starts and serves meanwhile: the record is no error that
    deployment lived through."""
    own = [wrapper + line.format(pid=pid) for line in QUOTED_WORKER]
    own += [wrapper + "CUDA kernel errors might be asynchronously reported"] * gap
    own.append(wrapper + native)
    lines = _healthy_beside(own, rng, len(QUOTED_WORKER) - 1)
    got = report(lines)
    assert got["verdict"] == "failure", got
    root = got["root_cause"]
    assert isinstance(root, dict)
    assert root["line"] == lines.index(wrapper + native) + 1
