"""logsleuth: the earliest causal error in a vLLM log, its symptoms, and the documented fix.

    >>> import logsleuth
    >>> report = logsleuth.explain("vllm.log")          # a path, "-", or a file object
    >>> report.verdict, report.root_cause.line, report.signature.id

Importing the package is cheap: the pipeline (Lark, networkx, the signature database) loads on
first use. The orchestration lives in `logsleuth.pipeline` (not `logsleuth.explain`, which would
shadow the `explain` function as soon as the submodule is imported).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from logsleuth.errors import InputError, LogsleuthError, SignatureError
from logsleuth.model import (ErrorEvent, Event, Frame, Match, Milestone, Process, Report,
                             Verdict)

if TYPE_CHECKING:
    from logsleuth.pipeline import explain, explain_text, parse
    from logsleuth.render.json import report_to_dict, to_json
    from logsleuth.signatures import SignatureSet, load_signatures

__all__ = [
    "explain", "explain_text", "parse", "load_signatures", "report_to_dict", "to_json",
    "Report", "Verdict", "ErrorEvent", "Event", "Milestone", "Frame", "Match", "Process",
    "SignatureSet", "LogsleuthError", "InputError", "SignatureError", "__version__",
]
__version__ = "0.1.0"

_LAZY = {
    "explain": "logsleuth.pipeline", "explain_text": "logsleuth.pipeline",
    "parse": "logsleuth.pipeline", "load_signatures": "logsleuth.signatures",
    "SignatureSet": "logsleuth.signatures", "report_to_dict": "logsleuth.render.json",
    "to_json": "logsleuth.render.json",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'logsleuth' has no attribute {name!r}")
    import importlib

    return getattr(importlib.import_module(module), name)
