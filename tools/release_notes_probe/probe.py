"""Do the known issues that vLLM's plugins and the frameworks embedding vLLM document get their
documented remedy? A probe over entries mined from release notes, FAQs and troubleshooting pages.

Each entry of `entries.yaml` names an error or symptom that a project's own release notes, FAQ or
known-issues page documents with its fix or workaround (`source`: that page, at the commit read),
the traceback as the project's code raises it (`frames`: innermost last, each
`path:line:function:code`, the path under site-packages; `error`: the `Type: message` line), the
process shape it is logged in (`shape`), and what the documented remedy says (`remedy`: regexes,
every one must be found in the report's fix). The entry's log is rendered from these and goes
through `logsleuth.explain_text`; each entry is counted by what the report's advice holds:

    remedy    the reported fix (signature, family or the message's own remedy) holds the remedy
    without   a signature matched, its fix lacks the documented remedy
    fallback  only a class's last-resort advice, lacking the remedy
    none      no advice, or no failure found

    PYTHONPATH=. .venv/bin/python tools/release_notes_probe/probe.py [--signatures DIR] [--show]

Not run-time code; the entries are constructed logs, each from the message text the page quotes
or the project's raise site at the release the page names.
"""

from __future__ import annotations

import argparse
import re
import sys
from collections import Counter
from pathlib import Path

import yaml

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[1]))  # the repository's logsleuth
from logsleuth.model import SignatureKind  # noqa: E402
from logsleuth.pipeline import explain_text  # noqa: E402
from logsleuth.signatures import SignatureSet, default_signatures, load_signatures  # noqa: E402

SITE = "/usr/local/lib/python3.11/site-packages/"
PREFIX = {
    "engine": "(EngineCore_DP0 pid=4100) ERROR 08-20 10:11:30 [core.py:866] ",
    "worker": "(Worker_TP0 pid=4200) ERROR 08-20 10:11:30 [multiproc_executor.py:703] ",
    "ray": "(WorkerDict pid=5300) ",
    "offline": "",
    "driver": "",
    "bare": "",
}
HEAD = {
    "engine": ["EngineCore failed to start."],
    "worker": ["WorkerProc hit an exception."],
}


def render(entry: dict) -> str:
    """The log the entry's error leaves in its process shape."""
    shape = entry.get("shape", "engine")
    prefix = PREFIX[shape]
    lines = list(entry.get("before", []))
    if shape == "bare":  # a record without a traceback: the lines are the log
        return "\n".join([*lines, *entry.get("after", [])]) + "\n"
    body = [*HEAD.get(shape, []), "Traceback (most recent call last):"]
    for frame in entry.get("frames", []):
        path, line, function, code = frame.split(":", 3)
        where = path if path.startswith("/") else SITE + path
        body += [f'  File "{where}", line {line}, in {function}', f"    {code}"]
    body += entry["error"].rstrip("\n").split("\n")
    lines += [prefix + b for b in body]
    if shape == "engine":
        lines += ["(APIServer pid=4000) RuntimeError: Engine core initialization failed. See "
                  "root cause above. Failed core proc(s): {}"]
    lines += list(entry.get("after", []))
    return "\n".join(lines) + "\n"


def outcome(entry: dict, signatures: SignatureSet) -> tuple[str, str]:
    report = explain_text(render(entry), signatures=signatures)
    match = report.signature
    # what the report advises: the signature's fix, else the message's own remedy, and the
    # upgrade the index of vLLM's releases gives evidence for
    fix = match.fix if match is not None else report.advice.text if report.advice else ""
    if report.upgrade is not None:
        fix += f"\n{report.upgrade.command} ({report.upgrade.evidence})"
    holds = all(re.search(r, fix or "", re.I | re.S) for r in entry["remedy"])
    if report.root_cause is None and match is None:
        return "none", "-"
    name = f"{match.id} [{match.kind.value}]" if match is not None else "message"
    if holds:
        return "remedy", name
    if match is None:
        return "none", name
    return ("fallback" if match.kind is SignatureKind.FALLBACK else "without"), name


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--signatures", type=Path, help="another signature tree")
    parser.add_argument("--entries", type=Path, default=HERE / "entries.yaml")
    parser.add_argument("--show", action="store_true", help="one line per entry")
    args = parser.parse_args(argv)
    signatures = load_signatures(args.signatures, shipped=False) if args.signatures else default_signatures()
    entries = yaml.safe_load(args.entries.read_text())["entries"]
    counts: Counter[tuple[str, str]] = Counter()
    for entry in entries:
        result, name = outcome(entry, signatures)
        counts[(entry["project"], result)] += 1
        if args.show:
            print(f"{result:9} {entry['id']:45} {name}")
    projects = sorted({e["project"] for e in entries})
    print("| project | entries | remedy | without | fallback | none |")
    print("|---|---|---|---|---|---|")
    for project in [*projects, "all"]:
        row = [sum(n for (p, r), n in counts.items() if (p == project or project == "all")
                   and r == o) for o in ("remedy", "without", "fallback", "none")]
        print(f"| {project} | {sum(row)} | " + " | ".join(map(str, row)) + " |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
