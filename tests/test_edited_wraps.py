"""A report pasted in public, hard-wrapped by the terminal it was copied from, then edited by its
reporter (issue 10): the date and pids of Ray's C++ core record replaced (`[DATE]`,
`[REDACTED]`, `[...]`), which leaves the record's first row narrower than the wrap. The row's
line still goes on over the next rows (the first begins with the space a cut before a space
leaves: hardwrap.py `_edited`), and the record's C++ call site after the redacted bracket still
says whose record it is (grammars/vllm.lark RAY_CORE_HEADER). Ray's memory monitor's report (the
raylet's `N Workers (tasks / actors) killed due to memory pressure (OOM)`) is then read whole,
as the failure it is; with its colour codes escaped by rsyslog (`#033[`) or kept, behind the
raylet's prefix or without it.
"""

from __future__ import annotations

from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from logsleuth.hardwrap import wrap_width
from logsleuth.model import LineKind, Verdict
from logsleuth.pipeline import explain_text
from logsleuth.signatures import default_signatures
from logsleuth.tokenize import clean, parse_line

PREFIXES = ["#033[2m#033[33m(raylet)#033[0m ", "\x1b[2m\x1b[33m(raylet)\x1b[0m ", "(raylet) ", ""]
BRACKETS = ["[DATE]", "[REDACTED]", "[...]", "[<timestamp>]", "[xxxx-xx-xx xx:xx:xx,xxx E xxx]"]
SITES = ["(raylet) node_manager.cc:3007: ", "(raylet) node_manager.cc:3069: ",
         "node_manager.cc:2993: "]
KILLED = ("{n} Workers (tasks / actors) killed due to memory pressure (OOM), 0 Workers crashed due "
          "to other reasons at node (ID: abd406d415bd2b74a5e281968fd76aa200d56e4529fd1c1cd4373840, "
          "IP: 10.0.167.26) over the last time period. To see more information about the Workers "
          "killed on this node, use `ray logs raylet.out -ip 10.0.167.26`")
ADVICE = ("Refer to the documentation on how to address the out of memory issue: https://docs.ray."
          "io/en/latest/ray-core/scheduling/ray-oom-prevention.html. Consider provisioning more "
          "memory on this node or reducing task parallelism by requesting more CPUs per task. To "
          "adjust the kill threshold, set the environment variable `RAY_memory_usage_threshold` "
          "when starting Ray. To disable worker killing, set the environment variable "
          "`RAY_memory_monitor_refresh_ms` to zero.")
ORIGINAL = "[2023-09-22 10:31:07,492 E 1284 1284] "


@settings(max_examples=80, deadline=None)
@given(st.sampled_from(["", *PREFIXES[2:]]), st.sampled_from(BRACKETS), st.sampled_from(SITES),
       st.integers(1, 64))
def test_a_redacted_ray_core_bracket_still_heads_its_record(
        prefix: str, bracket: str, site: str, workers: int) -> None:
    line = parse_line(clean(f"{prefix}{bracket} {site}{KILLED.format(n=workers)}"))
    assert line.kind is LineKind.FATAL
    assert line.site == site.strip().rstrip(":")
    assert line.text.startswith(f"{workers} Workers")
    assert line.level is None and line.time is None  # the redaction took them


def test_a_bracket_without_a_cpp_call_site_is_no_ray_core_header() -> None:
    line = parse_line(clean("[DATE] (raylet) main.py:30: 2 Workers (tasks / actors) killed"))
    assert line.site != "(raylet) main.py:30"


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.filter_too_much])
@given(st.sampled_from(PREFIXES), st.sampled_from(BRACKETS), st.sampled_from(SITES),
       st.integers(1, 9), st.data())
def test_a_wrapped_raylet_report_whose_first_row_was_redacted_reads_as_the_failure(
        prefix: str, bracket: str, site: str, workers: int, data: st.DataObject) -> None:
    record = f"{prefix}{ORIGINAL}{site}{KILLED.format(n=workers)}"
    # the terminal's width put the first row's cut just before a space
    width = data.draw(st.sampled_from([i for i in range(80, 141)
                                       if record[i] == " " and record[i + 1] != " "]))
    rows = [record[i:i + width] for i in range(0, len(record), width)]
    advice = f"{prefix}{ADVICE}"
    rows += [prefix.rstrip(), *(advice[i:i + width] for i in range(0, len(advice), width))]
    assume(wrap_width(("\n".join(rows) + "\n").encode()) == width)
    rows[0] = rows[0].replace(ORIGINAL, bracket + " ")  # the reporter's redaction
    report = explain_text("\n".join(rows) + "\n", signatures=default_signatures())
    assert report.verdict is Verdict.FAILURE
    assert report.root_cause is not None and report.root_cause.line == 1
    assert "killed due to memory pressure (OOM)" in report.root_cause.message
