"""Sentences about an error's origin in vLLM's source and the message's own advice, shared by
the text and Markdown renderers."""

from __future__ import annotations

from logsleuth.model import ConfigName, MessageAdvice, Origin, Report, SignatureKind

_VERBS = {"raise": "raised", "log": "logged", "warn": "warned"}


def origin_sentence(origin: Origin) -> str:
    """`raised as ValueError by vllm.v1.worker.gpu_worker Worker.init_device in vLLM 0.9.2-0.13.0`."""
    site = origin.site
    verb = _VERBS.get(site.kind, site.kind)
    what = f"{verb} as {site.exception}" if site.kind == "raise" else f"{verb} at {site.exception}"
    sentence = f"{what} by {site.module} {site.function} in {origin.product} {site.span}"
    if len(origin.sites) > 1:
        sentence += f" (and {len(origin.sites) - 1} other place{'s' * (len(origin.sites) > 2)})"
    if origin.change:
        sentence += f"; {origin.change}"
    return sentence


def name_sentence(name: ConfigName) -> str:
    """`gpu_memory_utilization is --gpu-memory-utilization (default 0.9)`."""
    default = f" (default {name.default})" if name.default is not None else ""
    if name.flag is not None:
        return f"{name.flag}{default}" if name.name == name.flag \
            else f"{name.name} is {name.flag}{default}"
    return f"{name.name} is an environment variable{default}"


def advice_lines(advice: MessageAdvice) -> list[str]:
    """The advice and, one per line, the settings it names."""
    release = f" (vLLM {advice.release})" if advice.release else ""
    return [advice.text, *(name_sentence(n) + release for n in advice.names)]


def advice_to_show(report: Report) -> list[str]:
    """The message's own advice as its own section: none when the fix shown is that advice, and
    only what the fix does not already quote (a family's fix quotes the advice of its own error)
    so that nobody reads the same sentence twice."""
    match, advice = report.signature, report.advice
    if advice is None or (match is not None and match.kind is SignatureKind.MESSAGE):
        return []
    fix = match.fix if match is not None else ""
    text, *settings = advice_lines(advice)
    if text not in fix:
        return [text, *settings]
    left = [line for line, name in zip(settings, advice.names) if name.name not in fix]
    return ["", *left] if left else []
