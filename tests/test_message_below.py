"""An exception whose message starts on the line below it (`ImportError: ` then transformers'
`LlamaTokenizer requires the SentencePiece library ...`): the located read (locate.py) must hand
those unindented lines to the assembler, which keeps them as the message, as the whole-file read
does."""

from __future__ import annotations

from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

import logsleuth

words = st.text(st.characters(min_codepoint=97, max_codepoint=122), min_size=2, max_size=9)
prose = st.lists(words, min_size=3, max_size=12).map(lambda items: " ".join(items).capitalize())
TRACEBACK = ('Traceback (most recent call last):\n'
             '  File "/usr/lib/python3.10/site-packages/vllm/transformers_utils/tokenizer.py", '
             'line 50, in get_tokenizer\n'
             '    tokenizer = AutoTokenizer.from_pretrained(name)\n')


@settings(max_examples=30, deadline=None)
@given(st.sampled_from(["ImportError", "ValueError", "RuntimeError", "OSError"]),
       st.lists(prose, min_size=1, max_size=4), st.sampled_from(["", " ", "  "]),
       st.sampled_from(["", "\n", "\nINFO 05-01 10:00:05 api_server.py:1] shutting down\n"]))
def test_a_message_printed_under_its_exception_is_its_message(
        tmp_path_factory: object, name: str, lines: list[str], space: str, after: str) -> None:
    path = Path(tmp_path_factory.mktemp("below")) / "vllm.log"  # type: ignore[attr-defined]
    path.write_text("INFO 05-01 10:00:00 llm_engine.py:1] Initializing an LLM engine\n"
                    + TRACEBACK + f"{name}:{space}\n" + "\n".join(lines) + "\n" + after)
    root = logsleuth.explain(path).root_cause
    assert root is not None and root.exception == name
    assert root.message.startswith(lines[0])


WRAPPERS = ["", "2025-01-05T09:00:21.123456789Z ", "(EngineCore_DP0 pid=1) ", "[rank0]: "]


@settings(max_examples=40, deadline=None)
@given(st.sampled_from(["RuntimeError", "ValueError", "torch.OutOfMemoryError", "AssertionError"]),
       st.lists(prose, min_size=1, max_size=4), st.booleans(), st.sampled_from(WRAPPERS),
       st.sampled_from(["", "\n", "INFO 05-01 10:00:05 [core.py:1] shutting down\n", "$ ls\n"]),
       st.booleans())
def test_a_message_that_goes_on_below_its_exception_line_is_all_its_message(
        tmp_path_factory: object, name: str, lines: list[str], header: bool, wrapper: str,
        after: str, alone: bool) -> None:
    """Python prints a multi-line message verbatim, its lines after the first at column 0
    (behind the launcher's or container's wrapper): they are the message and the span, up to
    a blank line, the next record or a shell's prompt, which are not."""
    path = Path(tmp_path_factory.mktemp("below")) / "vllm.log"  # type: ignore[attr-defined]
    # (alone: the name and its colon on their line, the message below: str(e) began with "\n")
    first = [f"{name}: ", *lines] if alone else [f"{name}: {lines[0]}", *lines[1:]]
    printed = (TRACEBACK.splitlines() if header else []) + first
    ends = (after if after.startswith("$") or not after.strip() else wrapper + after)
    path.write_text("INFO 05-01 10:00:00 llm_engine.py:1] Initializing an LLM engine\n"
                    + "".join(f"{wrapper}{line}\n" for line in printed) + ends)
    root = logsleuth.explain(path).root_cause
    assert root is not None and root.exception == name
    assert root.message == "\n".join(lines)
    assert root.last_line == 1 + len(printed)
