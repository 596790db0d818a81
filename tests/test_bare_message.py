"""A vLLM error message pasted alone, without `Type: ` or a logger header (index/bare.py).

Generated from the shipped message index: any message vLLM raises, rendered with sample values
and pasted on its own (or after a few lines of ordinary output), is a failure of the class vLLM
raises it with, at its line; a message vLLM only logs or warns, or a long healthy log, is not.
"""

from __future__ import annotations

import random
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from logsleuth.index.data import MessageKind, default_index
from logsleuth.index.lookup import Fit
from logsleuth.index.origin import default_matcher
from logsleuth.pipeline import PASTE_LINES, explain_text
from logsleuth.tokenize import anchor_patterns

SAMPLE = {"int": "7", "float": "0.5", "num": "3", "size": "2.00 GiB", "path": "/models/m",
          "hex": "0x1f", "word": "alpha", "quoted": "'beta'", "any": "gamma delta"}
PLACEHOLDER = re.compile(r"\{(" + "|".join(SAMPLE) + r")\}")
HEALTHY_LINES = [
    "INFO 05-01 10:00:00 [api_server.py:1090] Starting vLLM API server 0 on http://0.0.0.0:8000",
    "INFO:     Started server process [4242]",
    "INFO:     Application startup complete.",
]


def render(text: str) -> str:
    return PLACEHOLDER.sub(lambda found: SAMPLE[found.group(1)], text)


def pasted_messages(kind: MessageKind, count: int) -> list[tuple[str, str]]:
    """(rendered message, class) for `count` index messages of `kind` that the matcher finds
    whole as themselves, drawn with a fixed seed."""
    index = default_index()
    matcher = default_matcher()
    sites = [site for site in index.templates if site.kind is kind]
    chosen: list[tuple[str, str]] = []
    for site in random.Random(11).sample(sites, len(sites)):
        message = render(site.text)
        if "\n" in message or len(message) < 40:
            continue
        found = matcher.find(message)
        if found is None or found.fit is not Fit.WHOLE or found.text != site.text:
            continue
        if {s.kind for s in found.sites} != {kind}:
            continue  # the same text raised in one place and logged in another
        chosen.append((message, site.cls))
        if len(chosen) == count:
            break
    assert len(chosen) == count, f"only {len(chosen)} {kind.value} messages to paste"
    return chosen


@pytest.mark.parametrize("message,cls", pasted_messages(MessageKind.RAISE, 12))
def test_a_raised_message_pasted_alone_is_the_root_cause(message: str, cls: str) -> None:
    report = explain_text(message + "\n")
    assert report.verdict == "failure"
    assert report.root_cause is not None
    assert (report.root_cause.exception, report.root_cause.line) == (cls, 1)


@pytest.mark.parametrize("message,cls", pasted_messages(MessageKind.RAISE, 4))
def test_a_raised_message_after_ordinary_lines_is_found_at_its_line(message: str,
                                                                     cls: str) -> None:
    report = explain_text("\n".join([*HEALTHY_LINES, message]) + "\n")
    assert report.root_cause is not None
    assert (report.root_cause.exception, report.root_cause.line) == (cls, 4)


@pytest.mark.parametrize("message,level", pasted_messages(MessageKind.LOG, 6))
def test_a_message_vllm_only_logs_is_no_failure_alone(message: str, level: str) -> None:
    assert explain_text(message + "\n").verdict == "no_failure"


def test_a_long_log_is_not_searched_line_by_line() -> None:
    message, _ = pasted_messages(MessageKind.RAISE, 1)[0]
    ordinary = [HEALTHY_LINES[i % 3] for i in range(PASTE_LINES)]
    assert explain_text("\n".join([*ordinary, message]) + "\n").verdict == "no_failure"


def test_a_prefix_of_a_raised_message_is_not_enough() -> None:
    message, _ = pasted_messages(MessageKind.RAISE, 1)[0]
    assert explain_text(message[: len(message) // 2] + "\n").verdict == "no_failure"


@pytest.mark.parametrize("message,cls", pasted_messages(MessageKind.RAISE, 3))
def test_a_typed_line_is_left_to_the_assembler(message: str, cls: str) -> None:
    # `Type: message` lines are the assembler's (it may have judged them handled, as Python's
    # `Exception ignored in:` noise at exit): never looked up again as a bare paste
    report = explain_text(f"Exception ignored in: <function LLM.__del__ at 0x7f>\n{cls}: {message}\n")
    assert report.verdict == "no_failure"


@pytest.mark.parametrize("prefix", ["vllm-1  | ", "2025-01-01T10:00:00.123456789Z stderr F ",
                                    "(EngineCore_DP0 pid=4242) "])
def test_a_raised_message_in_a_wrapper_is_found(prefix: str) -> None:
    message, cls = pasted_messages(MessageKind.RAISE, 1)[0]
    report = explain_text(f"{prefix}{message}\n")
    assert report.root_cause is not None
    assert (report.root_cause.exception, report.root_cause.line) == (cls, 1)


@pytest.mark.parametrize("label", ["Misc error: ", "Batch inference failed: ", "Got an error: ",
                                   "[rank 0] Request failed: ", "Error during generate: "])
@pytest.mark.parametrize("message,cls", pasted_messages(MessageKind.RAISE, 3))
def test_a_raised_message_behind_a_programs_own_label_is_found(label: str, message: str,
                                                                cls: str) -> None:
    # `print(f"Misc error: {e}")` around a batch: the label is the program's, the message vLLM's
    lines = ["Total Inference Time for 480 - 164.6", "Batch Size is : 299", label + message]
    report = explain_text("\n".join(lines) + "\n")
    assert report.root_cause is not None
    assert (report.root_cause.exception, report.root_cause.line) == (cls, 3)


@pytest.mark.parametrize("message,level", pasted_messages(MessageKind.LOG, 3))
def test_a_logged_message_behind_a_label_is_still_no_failure(message: str, level: str) -> None:
    assert explain_text(f"Progress note: {message}\n").verdict == "no_failure"


@pytest.mark.parametrize("quote", ["`", "``", "` "])
@pytest.mark.parametrize("message,cls", pasted_messages(MessageKind.RAISE, 3))
def test_a_raised_message_in_inline_code_is_found(quote: str, message: str, cls: str) -> None:
    # an issue or a chat pastes the message as markdown's inline code (vllm issue 2406)
    closing = quote[::-1]
    report = explain_text(f"{quote}{message}{closing}\n")
    assert report.root_cause is not None
    assert (report.root_cause.exception, report.root_cause.line) == (cls, 1)
    assert report.root_cause.message.strip() == message.strip()


@pytest.mark.parametrize("message,level", pasted_messages(MessageKind.LOG, 3))
def test_a_logged_message_in_inline_code_is_still_no_failure(message: str, level: str) -> None:
    assert explain_text(f"`{message}`\n").verdict == "no_failure"


def test_unbalanced_backticks_are_no_inline_code() -> None:
    message, _ = pasted_messages(MessageKind.RAISE, 1)[0]
    assert explain_text(f"``{message}`\n").verdict == "no_failure"


# A client's print of the error answer it got: the status, vLLM's message, the answer's other
# fields (tuning: u-v092-seed-x-ppo-7b-chat-api-400-no-chat-template-client-oneline, `400
# <message> None`). Generated over leads, codes, separators and printed fields. Plain leads are
# looked up as a bare paste (index/bare.py); a lead the grammar reads as a client's status line
# (CLIENT_STATUS: `HTTP 400: ...`, `status 400: ...`, `400 Bad Request: ...`) is an event of its
# own, that error when the rest is vLLM's raised message (assemble.py `_answered`), and stays a
# client's report of a refused request otherwise. (The OpenAI client's `Error code: 400 - ...` is
# its exception's text, and `400: ...` srun's task prefix.)
PLAIN_LEADS = ["{code} ", "{code} - ", "[{code}] ", "Error {code}: ", "error {code} ",
               "Request failed: {code} "]
STATUS_LINE_LEADS = ["HTTP {code}: ", "HTTP Error {code}: ", "status {code}: ",
                     "Response status: {code} - ", "{code} Bad Request: ",
                     "{code} Unprocessable Entity - "]
FIELDS = st.lists(st.sampled_from(["None", "null", "400", "BadRequestError",
                                   "invalid_request_error"]), max_size=3)
CODES = st.sampled_from(["400", "404", "422", "500", "503"])
SOME = settings(max_examples=40, deadline=None)


@SOME
@given(lead=st.sampled_from(PLAIN_LEADS + STATUS_LINE_LEADS), code=CODES, fields=FIELDS,
       around=st.integers(0, 3), pick=st.integers(0, 2))
def test_a_raised_message_a_client_printed_with_its_status_is_found(
        lead: str, code: str, fields: list[str], around: int, pick: int) -> None:
    message, cls = pasted_messages(MessageKind.RAISE, 3)[pick]
    line = lead.format(code=code) + " ".join([message, *fields])
    report = explain_text("\n".join([*HEALTHY_LINES[:around], line]) + "\n")
    assert report.verdict == "failure"
    assert report.root_cause is not None
    assert (report.root_cause.exception, report.root_cause.line) == (cls, around + 1)


@SOME
@given(lead=st.sampled_from(PLAIN_LEADS), code=CODES, fields=FIELDS, pick=st.integers(0, 2))
def test_a_logged_message_a_client_printed_with_a_status_is_still_no_failure(
        lead: str, code: str, fields: list[str], pick: int) -> None:
    message, _ = pasted_messages(MessageKind.LOG, 3)[pick]
    line = lead.format(code=code) + " ".join([message, *fields])
    assert explain_text(line + "\n").verdict == "no_failure"


@SOME
@given(lead=st.sampled_from(STATUS_LINE_LEADS), code=CODES, pick=st.integers(0, 2))
def test_a_status_line_without_a_raised_message_stays_a_report(lead: str, code: str,
                                                               pick: int) -> None:
    # a logged message or the status's phrase alone says no reason: the client's report that
    # the server refused or failed the request, whose cause is not in the paste
    message, _ = pasted_messages(MessageKind.LOG, 3)[pick]
    for line in (lead.format(code=code) + message, lead.format(code=code).rstrip(" :-")):
        assert explain_text(line + "\n").verdict == "root_cause_missing", line


@SOME
@given(code=CODES, fields=st.lists(st.sampled_from(["None", "null", "400"]), min_size=1,
                                   max_size=2), pick=st.integers(0, 2))
def test_printed_fields_after_a_message_without_a_status_are_no_message(
        code: str, fields: list[str], pick: int) -> None:
    # only a client's status says the words after the message are the answer's fields
    message, _ = pasted_messages(MessageKind.RAISE, 3)[pick]
    assert explain_text(" ".join([message, *fields]) + "\n").verdict == "no_failure"


# Where a client's printed answer stands in a log (grammars/vllm.lark `client_answer`, read off
# the line's body by the grammar's own terminals): behind a collector's or launcher's wrapper
# (CRI, docker's and a viewer's times, kubectl's and compose's prefixes, journald), a process
# prefix, with or without colour. The grammar takes each off before the client's parts are read:
# the same error at the same line.
OUTER_WRAPPERS = ["", "2025-06-01T10:00:01.123456789Z stderr F ", "2025-06-01T10:00:01.123456Z ",
                  "[pod/vllm-0/vllm] ", "vllm-1  | ", "2025-06-01 10:00:01 ",
                  "Jun 01 10:00:01 gpu-3 python[4242]: "]
PROCESS_PREFIXES = ["", "(APIServer pid=4242) ", "\x1b[36m(APIServer pid=4242)\x1b[0m "]
COLOURS = [("", ""), ("\x1b[1;31m", "\x1b[0m")]


@SOME
@given(outer=st.sampled_from(OUTER_WRAPPERS), prefix=st.sampled_from(PROCESS_PREFIXES),
       colour=st.sampled_from(COLOURS), lead=st.sampled_from(PLAIN_LEADS + STATUS_LINE_LEADS),
       code=CODES, fields=FIELDS, pick=st.integers(0, 2))
def test_a_clients_printed_answer_is_read_the_same_behind_any_wrapper(
        outer: str, prefix: str, colour: tuple[str, str], lead: str, code: str,
        fields: list[str], pick: int) -> None:
    message, cls = pasted_messages(MessageKind.RAISE, 3)[pick]
    answer = lead.format(code=code) + " ".join([message, *fields])
    line = f"{outer}{prefix}{colour[0]}{answer}{colour[1]}"
    if lead in STATUS_LINE_LEADS:
        # a status line is read wherever it stands, in a log of any length: anchored (a plain
        # lead is looked up only among a short paste's lines, every one of them parsed)
        assert anchor_patterns()[0].search(line.encode()), line
    report = explain_text(line + "\n")
    assert report.root_cause is not None, (outer, prefix, answer)
    assert (report.root_cause.exception, report.root_cause.line) == (cls, 1)


@SOME
@given(outer=st.sampled_from(OUTER_WRAPPERS), prefix=st.sampled_from(PROCESS_PREFIXES),
       lead=st.sampled_from(PLAIN_LEADS + STATUS_LINE_LEADS), code=CODES,
       cut=st.floats(0.2, 0.8), pick=st.integers(0, 2))
def test_a_clients_printed_answer_cut_short_is_not_that_error(
        outer: str, prefix: str, lead: str, code: str, cut: float, pick: int) -> None:
    # a line cut inside vLLM's message (a terminal's width, a log service's line limit) no
    # longer holds the whole message: not that error, whatever wraps it
    message, cls = pasted_messages(MessageKind.RAISE, 3)[pick]
    answer = lead.format(code=code) + message[:int(len(message) * cut)]
    report = explain_text(f"{outer}{prefix}{answer}\n")
    assert report.verdict != "failure", (outer, prefix, answer)
    assert report.root_cause is None or report.root_cause.exception != cls


# A message pasted alone with what may stand around it (grammars/vllm.lark `pasted_line`: a
# program's own label, markdown's inline code), wherever the line stands: read the same.
LABELS = ["", "Misc error: ", "[rank 0] Request failed: ", "Got an error: "]
QUOTES = ["", "`", "``", "` "]


@SOME
@given(outer=st.sampled_from(OUTER_WRAPPERS), prefix=st.sampled_from(PROCESS_PREFIXES),
       colour=st.sampled_from(COLOURS), label=st.sampled_from(LABELS),
       quote=st.sampled_from(QUOTES), pick=st.integers(0, 2))
def test_a_pasted_message_is_read_the_same_behind_any_wrapper(
        outer: str, prefix: str, colour: tuple[str, str], label: str, quote: str,
        pick: int) -> None:
    message, cls = pasted_messages(MessageKind.RAISE, 3)[pick]
    line = f"{outer}{prefix}{colour[0]}{quote}{label}{message}{quote[::-1]}{colour[1]}"
    report = explain_text(f"{HEALTHY_LINES[1]}\n{line}\n")
    assert report.root_cause is not None, line
    assert (report.root_cause.exception, report.root_cause.line) == (cls, 2)


@SOME
@given(outer=st.sampled_from(OUTER_WRAPPERS), prefix=st.sampled_from(PROCESS_PREFIXES),
       label=st.sampled_from(LABELS), quote=st.sampled_from(QUOTES), cut=st.floats(0.2, 0.8),
       pick=st.integers(0, 2))
def test_a_pasted_message_cut_short_is_not_that_error(outer: str, prefix: str, label: str,
                                                      quote: str, cut: float, pick: int) -> None:
    message, cls = pasted_messages(MessageKind.RAISE, 3)[pick]
    line = f"{outer}{prefix}{quote}{label}{message[:int(len(message) * cut)]}{quote[::-1]}"
    report = explain_text(line + "\n")
    assert report.root_cause is None or report.root_cause.exception != cls, line
