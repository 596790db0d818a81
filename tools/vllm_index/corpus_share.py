"""How many corpus failures whose root cause vLLM raises show their origin in the report.

Usage: python tools/vllm_index/corpus_share.py ../shared/corpus [-v]

"Raised by vLLM" is decided from the label, independently of the matcher: the labelled root
cause's line in log.txt (or its `message_contains` when the line is not in the log) is compared
by fuzzy similarity of fixed text with every template of the index (the lint's comparison, not
the regex lookup the pipeline uses). The share is then: reports whose root cause carries an
`origin`, among those cases.
"""

from __future__ import annotations

import argparse
import re
import sys
import time
from pathlib import Path

import yaml

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from logsleuth.index import default_index  # noqa: E402
from logsleuth.index.lint import IndexLinter  # noqa: E402
from logsleuth.index.lookup import literal_of  # noqa: E402
from logsleuth.pipeline import explain  # noqa: E402
from logsleuth.render.json import report_to_dict  # noqa: E402

MIN_FIXED = 20  # a template with less fixed text says too little to call the message vLLM's
SIMILAR = 80  # numbers blanked in the message: its values no longer count against it
HEAD_CHARS = 120
_NUMBER = re.compile(r"\d+(?:\.\d+)?")


def labelled_message(case: Path, label: dict) -> str | None:  # type: ignore[type-arg]
    root = label.get("root_cause") or {}
    line = root.get("line")
    if line:
        lines = (case / "log.txt").read_text(errors="replace").splitlines()
        text = lines[line - 1] if line <= len(lines) else ""
        exception = root.get("exception") or ""
        if exception and f"{exception}: " in text:
            return text.split(f"{exception}: ", 1)[1]
        return root.get("message_contains")
    return root.get("message_contains")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("corpus", type=Path)
    parser.add_argument("-v", action="store_true")
    args = parser.parse_args()
    linter = IndexLinter(default_index())
    vllm_cases = shown = origins_elsewhere = symptom_only = 0
    started = time.perf_counter()
    for label_path in sorted(args.corpus.glob("*/*/case.yaml")):
        case = label_path.parent
        label = yaml.safe_load(label_path.read_text())
        if label.get("healthy"):
            continue
        message = labelled_message(case, label)
        # the head of the message: a long tail of values (a config repr) says nothing of its origin
        near = linter.nearest(_NUMBER.sub(" ", message)[:HEAD_CHARS]) if message else []
        fixed = sum(c.isalnum() for c in literal_of(near[0].text)) if near else 0
        by_vllm = bool(near) and near[0].similarity >= SIMILAR and fixed >= MIN_FIXED
        if label.get("root_cause_in_log") is False:  # no report can show what the log lacks
            symptom_only += by_vllm
            continue
        report = report_to_dict(explain(case / "log.txt"))
        root = report["root_cause"] or {}
        origin = root.get("origin")
        vllm_cases += by_vllm
        shown += by_vllm and origin is not None
        origins_elsewhere += (not by_vllm) and origin is not None
        if args.v:
            mark = "ok " if by_vllm and origin else "MISS" if by_vllm else "   "
            print(f"{mark} {case.parent.name}/{case.name}: vllm={by_vllm} "
                  f"origin={origin and origin['module'] + ' ' + origin['function']} "
                  f"({near[0].similarity if near else 0:.0f}: {near[0].text[:60] if near else ''})")
    print(f"root causes raised by vLLM: {vllm_cases}; with origin shown: {shown} "
          f"({shown / max(vllm_cases, 1):.0%}); origins on other cases: {origins_elsewhere}; "
          f"vLLM's root causes not in their log (symptom-only excerpts): {symptom_only}; "
          f"{time.perf_counter() - started:.1f} s")


if __name__ == "__main__":
    main()
