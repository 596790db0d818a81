"""The remedy a vLLM message states itself, with its settings named as flags and variables.

Many of vLLM's messages end in their own fix: "... Try increasing `gpu_memory_utilization` or
decreasing `max_model_len` when initializing the engine." That clause (read by the phrasing
of `signatures/remedy.yaml`, logsleuth/remedy.py) is offered as advice of kind `message` when no
signature knows the failure; the config names in it are translated into
the CLI flags and environment variables of the release the log came from.
"""

from __future__ import annotations

import re

from logsleuth.index.data import VllmIndex
from logsleuth.index.origin import release_position
from logsleuth.model import ConfigName, ErrorEvent, MessageAdvice, Origin
from logsleuth.remedy import advice_of, default_phrasing, remedy_of

__all__ = ["remedy_of", "config_names", "advice_for", "settings_named"]

_SNAKE = re.compile(r"\b[a-z][a-z0-9]*(?:_[a-z0-9]+)+\b")
_FLAG = re.compile(r"--[a-z][a-z0-9-]+")
_ENV = re.compile(r"\b[A-Z][A-Z0-9]*_[A-Z0-9_]+\b")


def config_names(text: str, index: VllmIndex, release: int) -> tuple[ConfigName, ...]:
    """The settings a remedy names, as flags and variables of `release`."""
    arguments = {a.field: a for a in index.arguments if release in a.releases}
    flags = {a.flag: a for a in arguments.values()}
    variables = {e.name: e for e in index.environment if release in e.releases}
    names: list[ConfigName] = []
    seen: set[str] = set()
    text = default_phrasing().without_call_arguments(text)  # parameters are not settings
    for token in [*_FLAG.findall(text), *_SNAKE.findall(text), *_ENV.findall(text)]:
        if token in seen:
            continue
        seen.add(token)
        argument = flags.get(token) or arguments.get(token)
        if argument is not None:
            names.append(ConfigName(token, flag=argument.flag, default=argument.default))
        elif token in variables:
            names.append(ConfigName(token, env=token, default=variables[token].default))
    return tuple(names)


def advice_for(event: ErrorEvent, origin: Origin, index: VllmIndex,
               version: str | None) -> MessageAdvice | None:
    """Advice of kind `message` from an event whose message vLLM prints, if it states a fix."""
    remedy = advice_of(event.message)
    if remedy is None:
        return None
    position = release_position(index, version)
    site_releases = origin.site.releases
    if position is None or index.releases[position] not in site_releases:
        # the log's release is not known or not indexed: the newest release printing it
        position = index.releases.index(site_releases[-1])
    release = index.releases[position]
    # a remedy that names no setting refers back to one the message named before it
    names = config_names(remedy, index, position) or config_names(event.message, index, position)
    return MessageAdvice(remedy, event.line, release, names)


def settings_named(text: str, index: VllmIndex) -> tuple[ConfigName, ...]:
    """The engine arguments and environment variables a message names, in any indexed release
    (a flag removed since, such as `--num-scheduler-steps`, is still the setting to change)."""
    arguments = {a.field: a for a in index.arguments}
    flags = {a.flag: a for a in index.arguments}  # every release's spelling
    variables = {e.name for e in index.environment}
    names: dict[str, ConfigName] = {}
    # a call's parameters quoted in Python's words for a call that did not fit are not settings
    text = default_phrasing().without_call_arguments(text)
    for token in [*_FLAG.findall(text), *_SNAKE.findall(text), *_ENV.findall(text)]:
        argument = flags.get(token) or arguments.get(token)
        if argument is not None and not argument.flag.startswith("---"):
            names.setdefault(argument.flag, ConfigName(argument.field, flag=argument.flag))
        elif token in variables:
            names.setdefault(token, ConfigName(token, env=token))
    return tuple(names.values())
