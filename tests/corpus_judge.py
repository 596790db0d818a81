"""The corpus scorer's rules (shared/tools/score.py), for the test suite.

A case is `root` right when the report's root cause has the labelled exception type (short
name), its `exception: message` text (whitespace-normalised) holds `message_contains`, and its
`line` is the labelled line or its `first_line`..`last_line` span holds it. It is `fix` right when
the matched signature's id, title or fix mentions one of `fix_keywords` (case-insensitive). A
case is right when every check that applies to it is right (process is reported apart).
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

CORPUS = Path(__file__).parent / "fixtures" / "corpus"
_IDENT = re.compile(r"^[A-Za-z_][\w.]*$")


@dataclass(frozen=True)
class Case:
    """One labelled log of the corpus."""

    group: str
    name: str
    log: Path
    label: Mapping[str, Any]

    @property
    def id(self) -> str:
        return f"{self.group}/{self.name}"


@dataclass(frozen=True)
class Judgement:
    """Each check of one case: True, False, or None where it does not apply."""

    verdict: bool
    root: bool | None
    process: bool | None
    fix: bool | None

    @property
    def case(self) -> bool:
        return all(ok for ok in (self.verdict, self.root, self.fix) if ok is not None)


# libyaml's safe loader when present, as logsleuth's own (yamlload.py): the same labels, a tenth
# of the time (854 corpus and tuning labels: 1.12 -> 0.11 CPU-s, in each xdist worker)
_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def load_cases(root: Path = CORPUS) -> list[Case]:
    """Every `group/case/{log.txt,case.yaml}` under root, sorted."""
    cases = []
    for case_file in sorted(root.rglob("case.yaml")):
        log = case_file.with_name("log.txt")
        if log.exists():
            folder = case_file.parent
            cases.append(Case(folder.parent.name, folder.name, log,
                              yaml.load(case_file.read_text(encoding="utf-8"), Loader=_LOADER)))
    return cases


def norm(text: object) -> str:
    return " ".join(str(text or "").split())


def short_type(name: object) -> str:
    return str(name or "").rsplit(".", 1)[-1]


def expected_verdict(label: Mapping[str, Any]) -> str:
    if label.get("healthy"):
        return "no_failure"
    return "failure" if label.get("root_cause_in_log", True) else "root_cause_missing"


def _root_ok(label: Mapping[str, Any], root: Mapping[str, Any] | None) -> bool:
    if not root:
        return False
    text = norm(f"{root.get('exception', '')}: {root.get('message', '')}")
    type_ok = True
    if _IDENT.match(str(label.get("exception", ""))):
        type_ok = short_type(root.get("exception")) == short_type(label["exception"])
    message_ok = norm(label.get("message_contains")) in text
    line = label.get("line")
    if line is None:
        line_ok = True
    else:
        first = root.get("first_line") or root.get("line")
        last = root.get("last_line") or root.get("line")
        line_ok = root.get("line") == line or (
            isinstance(first, int) and isinstance(last, int) and first <= line <= last)
    return type_ok and message_ok and line_ok


def _squash(name: object) -> str:
    return re.sub(r"[\s_]", "", str(name)).lower()


def judge(label: Mapping[str, Any], report: Mapping[str, Any]) -> Judgement:
    """Judge one JSON report (a `report_to_dict` result) against its case label."""
    want = expected_verdict(label)
    verdict_ok = report.get("verdict") == want
    root_ok: bool | None = None
    process_ok: bool | None = None
    fix_ok: bool | None = None
    wanted_root = label.get("root_cause") or {}
    if want == "failure":
        root = report.get("root_cause")
        root_ok = _root_ok(wanted_root, root)
        process = ((root or {}).get("process") or {}).get("name")
        process_ok = _squash(process) == _squash(wanted_root.get("process", ""))
    keywords = label.get("fix_keywords") or []
    if keywords and want != "no_failure":
        signature = report.get("signature") or {}
        blob = " ".join(str(signature.get(k, "")) for k in ("id", "title", "fix")).lower()
        fix_ok = any(str(k).lower() in blob for k in keywords)
    return Judgement(verdict_ok, root_ok, process_ok, fix_ok)


def describe(report: Mapping[str, Any]) -> str:
    """One line saying what a report concluded, for assertion messages."""
    root = report.get("root_cause") or {}
    signature = (report.get("signature") or {}).get("id")
    return (f"verdict={report.get('verdict')} line={root.get('line')} "
            f"{root.get('exception')}: {norm(root.get('message'))[:90]} signature={signature}")


def iter_logs(root: Path = CORPUS) -> Iterator[Path]:
    """Every corpus log, sorted."""
    yield from (case.log for case in load_cases(root))


TUNING_DIR = Path(__file__).parent / "fixtures" / "tuning"


def corpus_and_tuning_logs() -> list[Path]:
    """Every corpus log, then every tuning log: the real logs a replay of the pipeline checks."""
    return [*iter_logs(), *sorted(TUNING_DIR.glob("*/*/log.txt"))]


def log_id(path: Path) -> str:
    """A test id for a case's log: its group and case names."""
    return f"{path.parent.parent.name}/{path.parent.name}"
