"""`logsleuth signatures new --from LOG`: a skeleton signature from a log's root cause.

The message becomes a template with its variable parts (numbers, sizes, paths, hex, quoted
names) replaced by placeholders, and the lines of the error are saved as the positive example.
"""

from __future__ import annotations

import re
from pathlib import Path

import yaml

from logsleuth.errors import LogsleuthError
from logsleuth.model import ErrorEvent, Origin
from logsleuth.signatures.template import PLACEHOLDERS, mask

_TOKENS = {"<num>": "{num}", "<size>": "{size}", "<path>": "{path}", "<hex>": "{hex}",
           "<quoted>": "{quoted}"}
_BRACED_WORD = re.compile(r"\{([a-z_]+)\}")
CONTEXT_LINES = 3  # lines kept before the error's block in the example


def _template_of(event: ErrorEvent) -> str:
    first = event.message.split("\n", 1)[0]
    masked = mask(first)
    for token, placeholder in _TOKENS.items():
        masked = masked.replace(token, placeholder)
    # a literal `{word}` in a message would read as a placeholder
    return _BRACED_WORD.sub(lambda m: m.group(0) if m.group(1) in PLACEHOLDERS else "{any}",
                            masked)


def _index_template(origin: Origin, message: str) -> str:
    """The index's template of the message, its placeholders typed by this message's values,
    ready for match.message."""
    from logsleuth.index.lookup import typed_template

    return _BRACED_WORD.sub(lambda m: m.group(0) if m.group(1) in PLACEHOLDERS else "{any}",
                            typed_template(origin.template, message))


def _version_range(origin: Origin) -> str:
    """A soft vllm_version condition spanning the releases that print the message."""
    from logsleuth.index import release_after

    releases = origin.site.releases
    after = release_after(releases[-1])
    return f"?>={releases[0]}" + (f",<{after}" if after else "")


def _slug(event: ErrorEvent) -> str:
    words = re.findall(r"[a-z]+", event.message.lower())
    stop = {"the", "a", "an", "of", "to", "in", "on", "for", "is", "be", "and", "or", "with", "not"}
    picked = [w for w in words if w not in stop and len(w) > 2][:5]
    return "-".join(picked) or re.sub(r"[^a-z0-9]+", "-", event.exception.lower()).strip("-")


def _excerpt(log: Path, first: int, last: int) -> str:
    start = max(1, first - CONTEXT_LINES)
    kept: list[str] = []
    with open(log, "rb") as handle:
        for number, raw in enumerate(handle, start=1):
            if number > last:
                break
            if number >= start:
                kept.append(raw.decode("utf-8", "replace").rstrip("\r\n"))
    return "\n".join(kept) + "\n"


def scaffold(log: Path, directory: Path, *, category: str = "misc",
             signature_id: str | None = None) -> list[Path]:
    """Write `<directory>/<category>/<id>.yaml` and `<id>.log`; return the paths written."""
    from logsleuth.pipeline import explain

    report = explain(log)
    event = report.root_cause or (report.symptoms[0] if report.symptoms else None)
    if event is None:
        raise LogsleuthError("the log shows no error to build a signature from",
                             location=str(log))
    ident = signature_id or _slug(event)
    target = directory / category
    yaml_path, log_path = target / f"{ident}.yaml", target / f"{ident}.log"
    for path in (yaml_path, log_path):
        if path.exists():
            raise LogsleuthError("already exists; pass --id to choose another name",
                                 location=str(path))
    short_type = event.exception.rsplit(".", 1)[-1]
    origin = report.origins.get(event.id)
    match: dict[str, object] = {"exception": [event.exception],
                                "message": [_template_of(event) if origin is None
                                            else _index_template(origin, event.message)]}
    description = "TODO: what happens and why, in a short paragraph."
    if origin is not None:  # vLLM's own source knows which parts vary and which releases print it
        match["facts"] = {"vllm_version": _version_range(origin)}
        description += (f" vLLM prints this message in {origin.site.module} "
                        f"{origin.site.function}, releases {origin.site.span}.")
    document = {
        "id": ident,
        "title": f"{short_type}: {event.message.splitlines()[0][:100] if event.message else ''}",
        "category": category,
        "description": description,
        "severity": "error",
        "status": "experimental",
        "match": match,
        "fix": "TODO: the concrete steps that fix it (flags, env vars, files, versions), "
               "in your own words.",
        "references": ["https://github.com/vllm-project/vllm/issues/TODO"],
        "kind": "exact",
        "examples": {f"{ident}.log": "TODO: the public source of this log (an even-numbered "
                                     "vLLM issue's URL), or 'constructed: <from which texts>'"},
    }
    target.mkdir(parents=True, exist_ok=True)
    yaml_path.write_text(yaml.safe_dump(document, sort_keys=False, allow_unicode=True, width=100),
                         encoding="utf-8")
    log_path.write_text(_excerpt(log, event.first_line, event.last_line), encoding="utf-8")
    return [yaml_path, log_path]
