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


def citations(text: str) -> set[str]:
    """The citations in `text` that break the source partition."""
    found: set[str] = set()
    for owner, repo, kind, number in URL.findall(text):
        if (owner.lower(), repo.lower()) == ("vllm-project", "vllm"):
            if kind != "pull" and kind != "pulls" and int(number) % 2:
                found.add(f"vllm#{number}")
        elif kind in ("issues", "discussions"):
            found.add(f"{owner}/{repo}#{number}")
    rest = PR_RUN.sub(" ", URL.sub(" ", text))
    for prefix, number in SHORT.findall(rest):
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


def test_no_new_citation_breaks_the_partition() -> None:
    new = offenders() - ALLOWED
    assert not new, ("citations of odd vLLM issues or other repositories' trackers "
                     f"(held-out sources): {sorted(new)}")


def test_allowlist_only_holds_live_offenders() -> None:
    gone = ALLOWED - offenders()
    assert not gone, f"no longer offending, delete from ALLOWED: {sorted(gone)}"


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


# Signatures whose example logs have no `examples` key: their sources are not declared, so the
# lint's check that no example comes from an odd-numbered vLLM issue cannot see them (one such
# example, attention-head-size-unsupported's, was built around a held-out issue's text until
# session 24). Written before the key existed; this set may only shrink: give the file an
# `examples` key (replacing any example whose source is held out by one from an even issue or
# vLLM's source), then delete its line.
UNDECLARED: frozenset[str] = frozenset(line.split("  # ")[0].strip() for line in """
attention/attention-backend-fp8-kv-unsupported
attention/attention-backend-none-valid
attention/attention-backend-sparse-mla-unsupported
attention/multi-step-attention-backend-unsupported
build/flash-attn-undefined-symbol
build/flashinfer-import-abi-mismatch
build/missing-python-headers
build/triton-kernel-image-invalid
build/triton-ptxas-arch-unsupported
config/tp-size-not-dividing-heads
distributed/gloo-connect-full-mesh-failed
distributed/nccl-p2p-iommu-hang
memory/kv-cache-too-small-for-max-model-len
memory/memory-profiling-assert
plugin/ascend-moe-expert-parallel-shape-mismatch
plugin/plugin-patched-function-signature-mismatch
quantization/quantization-method-unknown
request/logit-bias-out-of-vocab
""".split("\n")) - {""}


def undeclared() -> set[str]:
    from logsleuth.signatures import load_signatures

    out = set()
    for signature in load_signatures(ROOT, shipped=False):
        if any(True for _ in signature.examples()) and not signature.example_sources:
            out.add(signature.path.relative_to(ROOT).with_suffix("").as_posix())
    return out


def test_every_example_log_declares_its_source() -> None:
    new = undeclared() - UNDECLARED
    assert not new, f"example logs without an `examples` key giving their sources: {sorted(new)}"


def test_undeclared_list_only_holds_live_entries() -> None:
    gone = UNDECLARED - undeclared()
    assert not gone, f"these declare their examples now, delete from UNDECLARED: {sorted(gone)}"
