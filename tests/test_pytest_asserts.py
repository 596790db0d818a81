"""pytest's report of a plain `assert` that failed (a CI job running vLLM's or a plugin's tests):
no `Type: message` line is printed. The `E` lines explain the assertion (`E       assert 80 !=
80`, then `E        +  where ...`), the short summary repeats the first (`FAILED x.py::t - assert
80 != 80`), and only the place-and-type line (`x.py:22: AssertionError`) names the exception.
The explanation behind pytest's margin is the AssertionError's message (grammars/vllm.lark
PYTEST_ASSERT): the root is the `E` line with it, the place-and-type line and the summary its
restatements (restatements.py), and the CI runner's exit line a symptom.

Generated over the assertion's explanation, the lines pytest adds under it, the wrappers a CI
log puts before every line, whether the short summary and the runner's exit line follow, and
where a paste puts the summary.
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from logsleuth.model import LineKind, Report, Verdict
from logsleuth.pipeline import explain_text
from logsleuth.signatures import default_signatures
from logsleuth.tokenize.grammar import clean, parse_line

ASSERTIONS = ["assert 80 != 80", "assert 'a' == 'b'", "assert False", "assert None is not None",
              "assert 3 == 4", "assert [1, 2] == [1, 2, 3]"]
WHERE = [[], ["E        +  where 3 = len([1, 2, 3])"],
         ["E         ", "E         - [1, 2, 3]", "E         + [1, 2]"]]
WRAPPERS = ["", "[2025-02-11T09:14:07Z] ", "2025-02-11T09:14:07.1234567Z ", "> "]
EXIT = "Error: Process completed with exit code 1."


def _report(assertion: str, where: list[str], indent: str) -> list[str]:
    return ["=================================== FAILURES ===================================",
            "______________________________ test_seed_behavior ______________________________",
            "",
            f"{indent}def test_seed_behavior():",
            f"{indent}    first = random.randint(0, 100)",
            f"{indent}    second = random.randint(0, 100)",
            ">" + " " * (len(indent) + 3) + "assert first != second",
            f"E   {indent}{assertion}",
            *where,
            "",
            "tests/test_seed_behavior.py:22: AssertionError"]


def _summary(assertion: str) -> list[str]:
    return ["=========================== short test summary info ============================",
            f"FAILED tests/test_seed_behavior.py::test_seed_behavior - {assertion}",
            "========================= 1 failed, 13 passed in 7.28s ========================="]


def _explain(lines: list[str]) -> Report:
    return explain_text("\n".join(lines) + "\n", signatures=default_signatures())


@settings(max_examples=80, deadline=None)
@given(st.sampled_from(ASSERTIONS), st.sampled_from(WHERE), st.sampled_from(WRAPPERS),
       st.sampled_from(["    ", "        "]), st.booleans(), st.booleans(), st.booleans())
def test_the_explained_assertion_is_the_root(assertion: str, where: list[str], wrapper: str,
                                             indent: str, summary: bool, summary_first: bool,
                                             exit: bool) -> None:
    report_lines = _report(assertion, where, indent)
    said = _summary(assertion) if summary else []
    lines = [*said, *report_lines] if summary_first else [*report_lines, *said]
    lines += [EXIT] if exit else []
    report = _explain([wrapper + line for line in lines])
    assert report.verdict is Verdict.FAILURE
    root = report.root_cause
    assert root is not None
    assert (root.exception, root.message) == ("AssertionError", assertion)
    assert lines[root.line - 1].startswith("E   ") and assertion in lines[root.line - 1]


@settings(max_examples=30, deadline=None)
@given(st.sampled_from(ASSERTIONS), st.sampled_from(WRAPPERS))
def test_a_summary_alone_names_the_assertion(assertion: str, wrapper: str) -> None:
    lines = [wrapper + line for line in [*_summary(assertion), EXIT]]
    report = _explain(lines)
    root = report.root_cause
    assert root is not None
    assert (root.exception, root.message, root.line) == ("AssertionError", assertion, 2)


NOT_ASSERTIONS = ["E   assertion failed in the harness", "assert 80 != 80",
                  "Error: assert that the model loads", "E   asserting the seed",
                  "FAILED tests/x.py::t - assertions disabled"]


def test_an_assert_elsewhere_is_not_an_assertion_error() -> None:
    for text in NOT_ASSERTIONS:
        line = parse_line(clean(text))
        assert line.exception != "AssertionError", text


@settings(max_examples=20, deadline=None)
@given(st.sampled_from(ASSERTIONS), st.sampled_from(WRAPPERS))
def test_a_pytest_assert_line_is_an_assertion_error(assertion: str, wrapper: str) -> None:
    line = parse_line(clean(f"{wrapper}E       {assertion}"))
    assert (line.kind, line.exception, line.message) == (LineKind.EXCEPTION, "AssertionError",
                                                         assertion)
