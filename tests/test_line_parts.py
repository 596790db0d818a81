"""Parts of a line read by the grammar's own terminals outside its parse (grammars/vllm.lark,
compiled by `terminal_regex`; the parts only they read are start symbols of
tokenize.grammar.PART_SYMBOLS): Ray's repeat count (signatures/match.py), the annotated
assignment that a frame's source line can be (assemble.py), containerd's line prefix whose
partial lines the reader joins (crilines.py, CRI_TIME), the colour codes and closing HTML that
clean() takes off before the parse; the client's answer and the pasted line are
tests/test_bare_message.py's. Each is read the same wherever its line stands: behind a
collector's or launcher's wrapper, a process prefix, colour, and a line cut short.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

import logsleuth
from logsleuth.model import Report, Verdict
from logsleuth.pipeline import explain_text
from logsleuth.tokenize import anchor_patterns, line_parser
from logsleuth.tokenize.grammar import PART_SYMBOLS

SOME = settings(max_examples=40, deadline=None)
OUTER_WRAPPERS = ["", "2025-06-01T10:00:01.123456789Z stderr F ", "2025-06-01T10:00:01.123456Z ",
                  "[pod/vllm-0/vllm] ", "vllm-1  | ", "2025-06-01 10:00:01 ",
                  "Jun 01 10:00:01 gpu-3 python[4242]: "]
COLOURS = [("", ""), ("\x1b[36m", "\x1b[0m")]


def explain(lines: list[str]) -> Report:
    return explain_text("\n".join(lines) + "\n")


def _terminal_names() -> set[tuple[str, str]]:
    """(module, terminal) for every `terminal_regex("NAME")` call in the package."""
    root = Path(logsleuth.__file__).parent
    found = set()
    for module in root.rglob("*.py"):
        for node in ast.walk(ast.parse(module.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "terminal_regex" \
                    and node.args and isinstance(node.args[0], ast.Constant):
                found.add((module.name, str(node.args[0].value)))
    return found


def test_every_terminal_a_stage_reads_is_a_part_of_the_grammar() -> None:
    """Each terminal a module compiles from the grammar is one of its rules' (a part's start
    symbol, or `line`'s own), and no part is a piece of `line`: the grammar's reading of a line
    does not change by them."""
    parser = line_parser()
    names = _terminal_names()
    assert {name for _, name in names} >= {"CLIENT_ANSWER_LEAD", "RAY_REPEATED",
                                           "SOURCE_ANNOTATION", "INLINE_CODE", "CRI_TIME"}
    in_parts = {symbol.name for rule in parser.rules if rule.origin.name in PART_SYMBOLS
                for symbol in rule.expansion}
    in_line = {symbol.name for rule in parser.rules if rule.origin.name not in PART_SYMBOLS
               for symbol in rule.expansion}
    for module, name in names:
        assert name in in_parts | in_line, (module, name)
    assert not in_line & set(PART_SYMBOLS)


# ---- Ray's repeat count --------------------------------------------------------------------------

RAY_PREFIXES = ["(RayWorkerWrapper pid=581, ip=10.0.0.1) ",
                "\x1b[36m(RayWorkerWrapper pid=581, ip=10.0.0.1)\x1b[0m "]
# a weight the checkpoint has that the model does not (signatures: weight-name-not-in-model);
# the family's pattern ends with the quoted name, so Ray's count after it hides it
KEYS = st.builds(lambda part, layer, proj: f"'{part}.{layer}.{proj}'",
                 st.sampled_from(["layers", "model.layers", "language_model.model.layers"]),
                 st.integers(0, 95),
                 st.sampled_from(["mlp.experts.w2_weight", "self_attn.q_proj.weight",
                                  "mlp.gate_up_proj.weight_scale"]))


@SOME
@given(outer=st.sampled_from(OUTER_WRAPPERS), prefix=st.sampled_from(RAY_PREFIXES), key=KEYS,
       count=st.integers(1, 64), spaces=st.sampled_from([" ", "  ", " \t"]))
def test_rays_repeat_count_leaves_the_message_as_it_was(outer: str, prefix: str, key: str,
                                                        count: int, spaces: str) -> None:
    line = f"{outer}{prefix}KeyError: {key}"
    counted = f"{line}{spaces}[repeated {count}x across cluster]"
    assert anchor_patterns()[0].search(counted.encode())
    alone, repeated = explain([line]), explain([counted])
    assert alone.signature is not None and repeated.signature is not None
    assert repeated.signature.id == alone.signature.id == "weight-name-not-in-model"
    assert (repeated.root_cause and repeated.root_cause.exception) == "KeyError"


@SOME
@given(key=KEYS, cut=st.integers(1, 20))
def test_a_repeat_count_cut_short_is_no_count(key: str, cut: int) -> None:
    # a line cut inside Ray's count keeps what is left of it in the message: only the whole
    # count is Ray's (the suffix ends the line)
    from logsleuth.tokenize import terminal_regex

    counted = f"KeyError: {key} [repeated 7x across cluster]"
    assert terminal_regex("RAY_REPEATED").search(counted[:-cut]) is None


# ---- an annotated assignment where a frame's source line goes ----------------------------------

ANNOTATED = ["ValueError: int = 3", "KeyError: dict[str, int] = {}", "RuntimeError: torch.Tensor = x",
             "OSError: Optional[str] = None"]
EXCEPTIONS = [("ValueError", "max_model_len must be positive"),
              ("RuntimeError", "CUDA error: an illegal memory access was encountered")]


@SOME
@given(outer=st.sampled_from(OUTER_WRAPPERS),
       prefix=st.sampled_from(["", "(EngineCore_DP0 pid=4242) "]), colour=st.sampled_from(COLOURS),
       source=st.sampled_from(ANNOTATED), exception=st.sampled_from(EXCEPTIONS))
def test_an_annotated_source_line_stays_code_wherever_the_traceback_stands(
        outer: str, prefix: str, colour: tuple[str, str], source: str,
        exception: tuple[str, str]) -> None:
    head = f"{outer}{colour[0]}{prefix}{colour[1]}"
    lines = [f"{head}Traceback (most recent call last):",
             f'{head}  File "/app/vllm/engine.py", line 12, in run',
             f"{head}    {source}",
             f"{head}{exception[0]}: {exception[1]}"]
    report = explain(lines)
    assert report.verdict is Verdict.FAILURE, lines
    assert report.root_cause is not None
    assert (report.root_cause.exception, report.root_cause.line) == (exception[0], 4), lines
    assert not report.symptoms, lines


@pytest.mark.parametrize(("message", "annotation"), [
    ("int = 3", True), ("dict[str, int] = {}", True), ("torch.Tensor = x", True),
    ("bad value = 3", False), ("int == 3", False), ("int=3", False), ("max_model_len", False)])
def test_source_annotation(message: str, annotation: bool) -> None:
    from logsleuth.tokenize import terminal_regex

    assert (terminal_regex("SOURCE_ANNOTATION").match(message) is not None) is annotation


@pytest.mark.parametrize(("text", "start"), [
    (" [repeated 7x across cluster]", "ray_repeated"), ("\t[repeated 12x across cluster] ", "ray_repeated"),
    ("int = 3", "annotated_source"), ("Optional[str] = None", "annotated_source")])
def test_parts_through_their_start_symbols(text: str, start: str) -> None:
    from logsleuth.tokenize import tree_of

    assert tree_of(text, start).data == start


# ---- containerd's partial lines ------------------------------------------------------------------

CRI_TIMES = ["2024-07-22T10:38:57.2Z", "2024-07-22T10:38:57Z", "2024-07-22T10:38:57.123456789Z",
             "2024-07-22T10:38:57.123456+02:00", "2024-07-22T10:38:57-05:00"]
CRI_LINES = [
    ("(EngineCore_DP0 pid=4242) ERROR 07-22 10:38:57 [core.py:1] ValueError: max_model_len "
     "(32768) is larger than the model's max_position_embeddings (8192)", "ValueError"),
    ("\x1b[36m(APIServer pid=77)\x1b[0m RuntimeError: CUDA error: an illegal memory access was "
     "encountered", "RuntimeError"),
    ("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total "
     "capacity of 79.10 GiB", "torch.OutOfMemoryError")]


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.filter_too_much])
@given(time=st.sampled_from(CRI_TIMES), stream=st.sampled_from(["stdout", "stderr"]),
       line=st.sampled_from(CRI_LINES), cuts=st.lists(st.integers(1, 120), max_size=3, unique=True),
       ended=st.booleans(), end=st.sampled_from(["\n", "\r\n"]),
       quote=st.sampled_from(["", "> ", "> > ", ">"]))
def test_a_cri_line_cut_into_pieces_is_read_as_the_whole_line(
        time: str, stream: str, line: tuple[str, str], cuts: list[int], ended: bool,
        end: str, quote: str) -> None:
    """An error line containerd wrote in `P` pieces, at any time form, with or without the `F`
    piece that ends it (a log cut short: what came is read), the file's lines ended by LF or
    by CRLF (copied through Windows: a `\r` at each piece's end is no terminal's redraw), the
    file pasted as a markdown quote or not: the same error at the same line as the line
    written whole."""
    text, exception = line
    bounds = [0, *sorted(cuts), len(text)]
    pieces = [text[a:b] for a, b in zip(bounds, bounds[1:])]
    written = [f"{time} {stream} {'P' if i < len(pieces) - 1 else 'F'} {piece}"
               for i, piece in enumerate(pieces)]
    if not ended and len(written) > 1:
        # cut before its end, past the exception's name and a word of its message
        assume(f"{exception.rsplit('.', 1)[-1]}: " in "".join(pieces[:-1])[:-5])
        written = written[:-1]
    before = f"{time} stdout F INFO 07-22 10:38:50 [api_server.py:1] vLLM API server version 0.9.1"
    whole = explain_text(end.join(quote + x for x in [before, f"{time} {stream} F {text}"]) + end)
    report = explain_text(end.join(quote + x for x in [before, *written]) + end)
    assert whole.root_cause is not None and report.root_cause is not None, written
    assert (report.root_cause.exception, report.root_cause.line) == (exception, 2), written
    if ended:
        assert report.root_cause.message == whole.root_cause.message


# a Python warning's record, its message on the lines below it (as `warnings` prints one whose
# text holds a newline), printed by a Ray worker or not, then an error later in the log
WARNED = ["/opt/venv/lib/python3.10/site-packages/vllm/connections.py:8: RuntimeWarning: Failed "
          "to read commit hash:", "No module named 'vllm._version'",
          "  from vllm.version import __version__ as VLLM_VERSION",
          "INFO 07-22 10:38:51 [api_server.py:1] vLLM API server version 0.6.3"]


@settings(max_examples=30, deadline=None)
@given(time=st.sampled_from(CRI_TIMES), cuts=st.lists(st.integers(1, 120), min_size=1,
                                                      max_size=3, unique=True),
       error=st.booleans(), end=st.sampled_from(["\n", "\r\n"]),
       worker=st.sampled_from(["", "(pid=880853) ", "(RolloutWorker pid=4242, ip=10.0.0.7) "]))
def test_a_cri_line_cut_into_pieces_stays_one_with_the_lines_below_it(
        time: str, cuts: list[int], error: bool, end: str, worker: str) -> None:
    """A record's first line containerd wrote in `P` pieces keeps its next lines: the pieces
    join into one line with no blank after it (a blank ends the record, and the warning's
    message line, alone, read as an error), and a later line is reported at its file row."""
    head = worker + WARNED[0]
    bounds = [0, *sorted(c for c in cuts if c < len(head)), len(head)]
    pieces = [head[a:b] for a, b in zip(bounds, bounds[1:])]
    written = [f"{time} stderr {'P' if i < len(pieces) - 1 else 'F'} {piece}"
               for i, piece in enumerate(pieces)]
    tail = [*(worker + x for x in WARNED[1:3]), WARNED[3], *([CRI_LINES[0][0]] if error else [])]
    text = end.join([*written, *(f"{time} stderr F {x}" for x in tail)]) + end
    report = explain_text(text)
    if not error:
        assert report.verdict is Verdict.NO_FAILURE, (written, report.root_cause)
        return
    assert report.root_cause is not None and report.root_cause.exception == "ValueError"
    assert report.root_cause.line == len(written) + len(tail)  # the file's own row


# ---- colour codes and closing HTML, taken off before a line is parsed ----------------------------

COLOUR_FORMS = ["\x1b[{}m", "^[[{}m", "ESC[{}m", "#033[{}m"]
RECORDS = ["ERROR 07-22 10:38:57 [core.py:1] ValueError: max_model_len (32768) is too large",
           "RuntimeError: CUDA error: an illegal memory access was encountered",
           "INFO 07-22 10:38:57 [loader.py:9] Loading weights took 12.3 seconds",
           "  File \"/app/vllm/engine.py\", line 12, in run"]


def _reading(raw: str) -> tuple[object, ...]:
    from logsleuth.tokenize import clean, parse_line

    line = parse_line(clean(raw))
    return (line.kind, line.process, line.level, line.exception, line.message, line.text.strip())


@SOME
@given(outer=st.sampled_from(OUTER_WRAPPERS), record=st.sampled_from(RECORDS),
       form=st.sampled_from(COLOUR_FORMS), codes=st.sampled_from(["36", "0;36", "1;31", "0"]),
       where=st.sets(st.sampled_from(["start", "prefix", "end"]), min_size=1),
       tags=st.sampled_from(["", "</code></pre>", "</pre>", "</code></pre> "]))
def test_colour_and_closing_html_leave_the_line_as_it_reads_plain(
        outer: str, record: str, form: str, codes: str, where: set[str], tags: str) -> None:
    colour, reset = form.format(codes), form.format("0")
    prefix = "(EngineCore_DP0 pid=4242)"
    plain = f"{outer}{prefix} {record}"
    coloured = (f"{outer}{colour if 'start' in where else ''}"
                f"{colour + prefix + reset if 'prefix' in where else prefix} {record}"
                f"{reset if 'end' in where else ''}{tags}")
    assert _reading(coloured) == _reading(plain), coloured


@pytest.mark.parametrize("text", [
    # a colour code's bare form inside a message is the message's (`[36m` of a list, a regex)
    "ValueError: expected [1m] got [2m]", "ValueError: pattern [0-9]m matched",
    # HTML inside the words is the message's
    "ValueError: bad tag </code> in template"])
def test_bare_codes_and_tags_inside_a_message_stay(text: str) -> None:
    assert _reading(text)[4] == text.partition(": ")[2]
