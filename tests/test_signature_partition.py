"""The source partition of the signature database (CONTRIBUTING.md, the held-out split).

Signatures, families and tuning knowledge may cite only even-numbered vLLM issues, vLLM's source
(its files and the pull requests that changed them) and docs, and other projects' docs and source.
Odd-numbered vLLM issues and other repositories' issue trackers are where held-out cases come
from, so no YAML file under `signatures/` may cite them. Older signatures predate the rule: their
offending citations are frozen in `ALLOWED` below, which may only shrink.

What counts as a citation (anywhere in the YAML text, references, examples, fix, description,
comments):
- a URL `github.com/vllm-project/vllm/issues/N` or `.../discussions/N` with N odd;
- a short mention `vllm#N` or a bare `#N` (this repository's shorthand for vLLM) with N odd,
  unless it is written as a pull request (`PR #N`, `PRs #A/#B`, `pull/N`);
- `vLLM issue N` with N odd;
- any other repository's `issues/N` or `discussions/N` URL, or `owner/repo#N` / `project#N`
  mention (their trackers are reserved whatever the number).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent / "signatures"

URL = re.compile(r"github\.com/([\w.-]+)/([\w.-]+)/(issues|pull|pulls|discussions)/(\d+)")
# `PR #N`, `PRs #A/#B and #C`, `PR N`: a pull request, the source change, allowed.
PR_RUN = re.compile(r"\b(?:vllm\s+)?(?:PRs?|pull requests?)\s*#?\d+(?:\s*(?:/|,|and|or)\s*#?\d+)*",
                    re.I)
SHORT = re.compile(r"(?<![\w/#-])([A-Za-z][\w./-]*)?#(\d{2,})\b")
VLLM_ISSUE = re.compile(r"\bvllm\s+issues?\s+#?(\d+)\b", re.I)


def citations(text: str, mentions: re.Pattern[str] = SHORT) -> set[str]:
    """The citations in `text` that break the source partition (`mentions`: the short forms
    that count, `SHORT` in the YAML, only the explicit ones elsewhere)."""
    found: set[str] = set()
    for owner, repo, kind, number in URL.findall(text):
        if (owner.lower(), repo.lower()) == ("vllm-project", "vllm"):
            if kind != "pull" and kind != "pulls" and int(number) % 2:
                found.add(f"vllm#{number}")
        elif kind in ("issues", "discussions"):
            found.add(f"{owner}/{repo}#{number}")
    rest = PR_RUN.sub(" ", URL.sub(" ", text))
    for prefix, number in mentions.findall(rest):
        if prefix.lower() in ("", "vllm", "vllm-project/vllm"):
            if int(number) % 2:
                found.add(f"vllm#{number}")
        else:
            found.add(f"{prefix}#{number}")
    for number in VLLM_ISSUE.findall(rest):
        if int(number) % 2:
            found.add(f"vllm#{number}")
    return found


def offenders() -> set[str]:
    out: set[str] = set()
    for path in sorted(ROOT.rglob("*.yaml")):
        name = path.relative_to(ROOT).with_suffix("").as_posix()
        out |= {f"{name} {c}" for c in citations(path.read_text(encoding="utf-8"))}
    return out


# Frozen: citations written before the partition rule (odd vLLM issues, other repositories'
# trackers). This set may only shrink: replace a citation by an allowed source, then delete its
# line. Each line's comment (after `  # `, continued on lines of their own) says why no allowed
# source (an even vLLM issue or PR, vLLM's source or docs, another project's docs) carries that
# knowledge yet.
ALLOWED: frozenset[str] = frozenset(line.split("  # ")[0].strip() for line in """
cuda/nvml-device-name-decode-error gpuopenanalytics/pynvml#53  # the WSL2 Windows 555.85/555.99
  # drivers as the trigger: only trackers report it (pynvml, Ray, gpustat, nvitop), no even vLLM
  # thread; NVIDIA's driver release notes not read
cuda/nvml-device-name-decode-error ray-project/ray#45748  # as above: Ray's GPU detection failing
  # the same way on such a host, the description's "other tools" evidence
plugin/ascend-moe-expert-parallel-shape-mismatch vllm-project/vllm-ascend#1813  # the 310P +
  # expert-parallel shape bug and its workaround are only in that report; vllm-ascend's docs
  # list no such limit
""".split("\n")) - {""}


@pytest.mark.parametrize("text,expected", [
    ("see https://github.com/vllm-project/vllm/issues/8331", {"vllm#8331"}),
    ("see https://github.com/vllm-project/vllm/issues/8330", set()),
    ("fixed by https://github.com/vllm-project/vllm/pull/8331", set()),
    ("as in vllm#1235 and #4567, not #4568", {"vllm#1235", "vllm#4567"}),
    ("fixed by PR #29981 and #54929 (PRs #22017/#23995), PR#9533", set()),
    ("the shape even vLLM issue 7071 reported", {"vllm#7071"}),
    ("https://github.com/NVIDIA/Model-Optimizer/issues/260", {"NVIDIA/Model-Optimizer#260"}),
    ("https://github.com/vllm-project/vllm-ascend/pull/2511 (vllm-ascend PR 2511)", set()),
    ("vllm-ascend#2146 broke", {"vllm-ascend#2146"}),
    ("pip install 'x<=4.12.0.88'  # 0.8.5 onward", set()),
])
def test_citations_reads_each_form(text: str, expected: set[str]) -> None:
    assert citations(text) == expected


# Every example log's source is declared in its signature's `examples` key: a signature with
# example logs and no such key is a lint error (logsleuth/signatures/lint.py, held by
# test_signature_sources.py and test_signatures.test_shipped_set_lints_clean), so the lint's
# check that no example comes from an odd-numbered vLLM issue sees every example. (Until
# session 31 eleven signatures predated the key and were listed here as exceptions.)


# The same partition for the files beside the YAML and for the test suite: an example log (its
# text, e.g. a URL someone pasted) and a test's comments or data (tests/**/*.py, never
# tests/fixtures, which holds the held-out set and the tuning cases under their own rules) may not
# cite an odd-numbered vLLM issue or another repository's tracker either. Test files use `#N`
# for other things (Docker build steps `#15`, escape codes `\033`, this file's own cases), so
# only the explicit forms count there: a tracker URL, `vllm#N` / `owner/repo#N` / `project#N`
# (N of two or more digits, not starting with 0), `vLLM issue N`.
TESTS = ROOT.parent / "tests"
EXPLICIT = re.compile(r"(?<![\w/#-])([A-Za-z][\w./-]*)#([1-9]\d+)\b")


def test_citations_in(text: str) -> set[str]:
    """Only the explicit citation forms (see above)."""
    return citations(text, EXPLICIT)


test_citations_in.__test__ = False  # type: ignore[attr-defined]  # a helper, not a test


def test_file_offenders() -> set[str]:
    out: set[str] = set()
    for path in sorted(ROOT.rglob("*.log")):
        name = path.relative_to(ROOT.parent).as_posix()
        out |= {f"{name} {c}" for c in test_citations_in(path.read_text(encoding="utf-8",
                                                                        errors="replace"))}
    for path in sorted(TESTS.rglob("*.py")):
        rel = path.relative_to(TESTS)
        if rel.parts[0] == "fixtures" or path.name == "test_signature_partition.py":
            continue
        name = path.relative_to(ROOT.parent).as_posix()
        out |= {f"{name} {c}" for c in test_citations_in(path.read_text(encoding="utf-8"))}
    return out


test_file_offenders.__test__ = False  # type: ignore[attr-defined]


# Frozen like ALLOWED: citations in tests that could not be re-sourced yet; may only shrink.
TESTS_ALLOWED: frozenset[str] = frozenset(line.split("  # ")[0].strip() for line in """
signatures/memory/cumem-allocator-single-instance.negative.log pytorch/pytorch#147851  # not a
  # citation: torch's own AssertionError text names that URL, the log quotes torch verbatim
signatures/memory/sleep-mode-expandable-segments.log pytorch/pytorch#147851  # as above
tests/test_signatures.py vllm#1  # test data: a placeholder reference in a YAML the test writes
tests/test_signature_sources.py vllm#31  # test data: the lint's own odd-issue case
tests/test_s31_root_classes.py vllm#31883  # the paste of a tuning case (session 31's split,
  # startup/u-v0130-...: moved out of the held-out set, so seen) whose shape the test names
tests/test_benign.py vllm#2325  # the HARMLESS NVML-probe line (a library's own
  # `YYYY-MM-DD HH:MM:SS [ERROR]` format) is that thread's; the library printing it was not found
tests/test_facts.py community-scripts/ProxmoxVED#2047  # a journald-wrapped line shape (not
  # vLLM's); no journald documentation example with a vLLM line was found yet
tests/test_facts.py nixpkgs#359609  # a Nix build log's version line; not re-sourced yet
tests/test_grammar.py LlamaFactory#5050  # torch's excepthook tag as pasted there; torch's
  # source for the tag not looked up yet
tests/test_grammar.py ProxmoxVED#2047  # as in test_facts.py: the journald wrapper shape
tests/test_grammar.py anycorn#89  # Python 3.11's exception-group traceback shape as pasted
  # there; CPython's docs show the shape but not these lines
tests/test_grammar.py club-3090#60  # the `(EngineCore pid=N)` prefix row: vLLM's _add_prefix
  # shape, but the row's values are that thread's; not re-sourced this session
tests/test_grammar.py dots.ocr#176  # the `(EngineCore_0 pid=N)` prefix row, as above
tests/test_grammar.py ray#45179  # the raylet's missed-heartbeats line (Ray's output)
tests/test_grammar.py ray#59778  # NCCL's P2P chunksize line in a Ray worker, as pasted there
""".split("\n")) - {""}


# What each scan reads, its offenders and the allow-list that names the ones kept (with reasons).
SCANS = {
    "signature files": (lambda: offenders(), ALLOWED, "ALLOWED"),
    "example logs and tests": (lambda: test_file_offenders(), TESTS_ALLOWED, "TESTS_ALLOWED"),
}


@pytest.mark.parametrize("scan", SCANS)
def test_no_new_citation_breaks_the_partition(scan: str) -> None:
    found, allowed, _ = SCANS[scan]
    new = found() - allowed
    assert not new, (f"{scan} citing odd vLLM issues or other repositories' trackers "
                     f"(held-out sources): {sorted(new)}")


@pytest.mark.parametrize("scan", SCANS)
def test_allowlist_only_holds_live_offenders(scan: str) -> None:
    found, allowed, name = SCANS[scan]
    gone = allowed - found()
    assert not gone, f"no longer offending, delete from {name}: {sorted(gone)}"


@pytest.mark.parametrize("text,expected", [
    ("# shape of vllm#3053 and vllm#3054", {"vllm#3053"}),
    ("#15 [build 15/15] RUN x; \\033[0m; boom#01", set()),
    ("as in LlamaFactory#5050", {"LlamaFactory#5050"}),
    ("vllm issues 10263 and PR #24351", {"vllm#10263"}),
    ("https://github.com/ray-project/ray/issues/45179", {"ray-project/ray#45179"}),
])
def test_explicit_citations_read_each_form(text: str, expected: set[str]) -> None:
    assert test_citations_in(text) == expected
