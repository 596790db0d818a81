"""Whether the text a signature matched says where the error comes from, or could come from anywhere.

An exact signature knows one failure. When the text it matched is generic (a division by zero, an
index out of bounds, a view of the wrong size), the words alone do not say it is that failure:
the same text comes from every call path that divides, indexes or reshapes. Such a signature
must be corroborated by the parts that do say where (a frame, the raising module, the phase, a
fact of the deployment) before its fix is offered (match.py, GENERIC_UNCORROBORATED).

Genericness is read from data, not from a list of messages:
- a message vLLM prints itself is found in vLLM's message index (logsleuth/index/): it is generic
  when one release prints it from GENERIC_PACKAGES or more vLLM packages, specific when fewer (the
  message then names the code that printed it);
- any other message comes from the interpreter or a library (torch, CUDA, transformers). It is
  generic when the text the signature demands of it names no program entity (no identifier
  such as `lm_head.weight`, `use_beam_search`, `ncclGetVersion`; no acronym such as CUDA, NCCL,
  HIP; no file or library such as `libcuda.so`: only plain words) and the class says it is a
  general check: one of Python's own exceptions of evaluating an expression (OPERATION_ERRORS,
  read from Python's exception hierarchy: "integer division or modulo by zero", "index {int} is
  out of bounds for dimension {int}"), or a RuntimeError or ValueError (or an unnamed type) that
  a family declaring the interpreter's or torch's own messages (`match.origin: python | torch`)
  matches by its words: the database's statement that the text is a class, not a place
  ("shape '[..]' is invalid for input of size {int}", numpy's "operands could not be broadcast
  together with shapes ..."). Plain words of a RuntimeError no such family holds
  ("This flash attention build does not support headdim ...") name their subsystem.
"""

from __future__ import annotations

import builtins
import re
from functools import cache
from typing import TYPE_CHECKING

from logsleuth.model import ErrorEvent

if TYPE_CHECKING:  # the index package imports the pipeline's modules: not at import time
    from logsleuth.index.data import MessageTemplate, VllmIndex
    from logsleuth.index.lint import IndexLinter

# Python's exceptions of evaluating an expression: arithmetic, a lookup, a call or attribute of
# the wrong type, an assertion, a name, a decode. Any line of any module raises them.
OPERATION_ERRORS: tuple[type[BaseException], ...] = (
    ArithmeticError, LookupError, TypeError, AttributeError, AssertionError, NameError,
    UnicodeError)
# the classes a library's general checks of shapes and sizes raise besides a thousand specific
# failures: torch's (RuntimeError) and numpy's (ValueError: `operands could not be broadcast
# together with shapes ...`); the class does not decide, a family holding the words does
_SHAPE_CHECKS: tuple[type[BaseException], ...] = (RuntimeError, ValueError)
# raise sites in this many vLLM packages (`vllm.v1.worker`, `vllm.model_executor.layers`) in one
# release make a vLLM message generic: the text is printed for several unrelated reasons
GENERIC_PACKAGES = 3
# a program entity in fixed text: a dotted or snake_case identifier, a CamelCase or camelCase
# name, a word with digits (fp8, sm90, cuda12), an acronym (CUDA, NCCL, HIP), a file name, a path
NAMED = re.compile(r"\w+(?:[._]\w+)+|--\w|\b[A-Za-z]*[a-z][A-Z]\w*|\b[A-Z]{2,}\w*"
                   r"|\b(?=\w*\d)(?=\w*[A-Za-z])\w+|/\w")
# an exception class in the text (`^AssertionError: `, `(?:\w+\.)*KeyError`): the type, which
# the exception part judges, not what the message names
_CLASS = re.compile(r"(?:\w+\.)*\w*(?:Error|Exception|Warning|Interrupt)\b:?")
# the interpreter's own type names (`'NoneType' object has no attribute 'get'`, `'NotImplementedType'
# object is not callable`): every line that meets a None prints them, so they name no program
# entity, whatever their CamelCase says
_INTERPRETER_TYPES = re.compile(r"\b(?:%s)\b" % "|".join(sorted(
    {type(None).__name__, type(NotImplemented).__name__, type(...).__name__}
    | {name for name, value in vars(builtins).items() if isinstance(value, type)})))
# regex syntax that is not fixed text: negative look-arounds (what the text must not say),
# classes, escapes of classes, group openers, quantifiers, anchors
_NEGATIVE = re.compile(r"\(\?<?!(?:[^()\\]|\\.|\((?:[^()\\]|\\.)*\))*\)")
_REGEX_SYNTAX = re.compile(r"\[(?:\\.|[^\]\\])*\]|\\[dDwWsSbBAzZ]|\(\?(?:[:=!]|<[=!]|[aiLmsux-]+\)|[aiLmsux-]+:)?"
                           r"|\{\d*,?\d*\}|[()|^$*+?]")
_CLASS_NAME = re.compile(r"[A-Za-z_][\w]*(?:\.[A-Za-z_]\w*)*")
_ESCAPE = re.compile(r"\\(.)")
_PLACEHOLDER = re.compile(r"\{\w+\}")


def fixed_text(part: str, *, regex: bool) -> str:
    """The text a template or regex demands as it is: placeholders, classes and syntax removed."""
    if not regex:
        return _PLACEHOLDER.sub(" ", part)
    text = _REGEX_SYNTAX.sub(" ", _NEGATIVE.sub(" ", part))
    return _ESCAPE.sub(r"\1", text)


@cache
def names_nothing(part: str, *, regex: bool) -> bool:
    """Whether a message part's fixed text names no program entity (NAMED), its exception
    class and the interpreter's type names left aside."""
    text = _INTERPRETER_TYPES.sub(" ", _CLASS.sub(" ", fixed_text(part, regex=regex)))
    return NAMED.search(text) is None


def packages(modules: list[str]) -> set[str]:
    """The packages of modules: `vllm.v1.worker.gpu_worker` -> `vllm.v1.worker`."""
    return {m.rsplit(".", 1)[0] if m.count(".") > 1 else m for m in modules}


def max_packages(sites: tuple[MessageTemplate, ...]) -> int:
    """The most packages that print a message in one release: a message that moved with its code
    (`vllm/config.py` to `vllm/config/model.py`) is still printed in one place."""
    releases = {r for site in sites for r in site.releases}
    return max((len(packages([s.module for s in sites if r in s.releases])) for r in releases),
               default=0)


def vllm_spread(event: ErrorEvent) -> int | None:
    """How many vLLM packages print the event's message in one release; None when vLLM's index
    does not hold the message (another program printed it) or holds it only as a weak template."""
    from logsleuth.index.origin import default_matcher

    found = default_matcher().find(event.message) if event.message else None
    # a weak template (the interpreter's own words around placeholders: `{any} object has no
    # attribute {any}`, which one of vLLM's __getattr__ re-raises) does not make the message
    # vLLM's: any line of any package prints those words
    return None if found is None or found.weak else max_packages(found.sites)


@cache
def part_spread(part: str, *, regex: bool) -> int | None:
    """vllm_spread for a signature's own template or regex: the index templates holding its
    fixed text (the index linter's nearest, at SAME_MESSAGE), None when none does. A message
    vLLM prints is known by the part even where the lookup misses the printed text (a tail that
    differs from every release's)."""
    from logsleuth.index.data import sites_of
    from logsleuth.index.lint import SAME_MESSAGE
    from logsleuth.index.origin import default_matcher

    index = default_matcher().index
    near = [n for n in _linter(index).nearest(fixed_text(part, regex=regex))
            if n.similarity >= SAME_MESSAGE]
    if not near:
        return None
    return max(max_packages(sites_of(index, n.text)) for n in near)


_LINTERS: dict[int, IndexLinter] = {}  # by the index's id: an index is not cheap to hash


def _linter(index: VllmIndex) -> IndexLinter:
    from logsleuth.index.lint import IndexLinter

    found = _LINTERS.get(id(index))
    if found is None:
        found = _LINTERS[id(index)] = IndexLinter(index)
    return found


def operation_error(exception: str) -> bool | None:
    """True for an exception of evaluating an expression (OPERATION_ERRORS; a wrapper of one:
    `RayTaskError(KeyError)`); None for RuntimeError and ValueError, which torch's and numpy's
    general checks of shapes, sizes and indexes raise and so do a thousand specific failures,
    and for an exception the log does not name (an ERROR record): the class does not decide;
    False otherwise."""
    name = exception.rsplit("(", 1)[-1].rstrip(")") if exception.endswith(")") else exception
    short = name.rsplit(".", 1)[-1].strip()
    found = getattr(builtins, short, None)
    if not (isinstance(found, type) and issubclass(found, BaseException)):
        # a library's class (`NVMLError_Unknown`) says what failed; a record's level or a
        # description (`ERROR`, `Fatal Python error`) names no type
        return None if not _CLASS_NAME.fullmatch(name.strip()) or short.isupper() else False
    if issubclass(found, OPERATION_ERRORS):
        return True
    return None if found in _SHAPE_CHECKS else False


def generic_reason(spread: int | None, part: str, exception: str, *, regex: bool,
                   class_family: str | None = None) -> str | None:
    """Why the text a signature matched could come from anywhere, or None when it names its
    place. `spread` is vllm_spread of the event, `part` the template or regex that matched,
    `exception` the event's type, `class_family` a family declaring the message the
    interpreter's or torch's (`match.origin: python | torch`) that matches it by its words."""
    if spread is not None:
        return f"vLLM prints this message in {spread} packages" \
            if spread >= GENERIC_PACKAGES else None
    operation = operation_error(exception)
    if operation is False or not names_nothing(part, regex=regex) \
            or (operation is None and class_family is None):
        return None
    # the lookup of the printed message can miss a vLLM message (a tail no release prints): the
    # signature's own text, when an index template holds it, says it is vLLM's after all
    spread = part_spread(part, regex=regex)
    if spread is not None:
        return f"vLLM prints this message in {spread} packages" \
            if spread >= GENERIC_PACKAGES else None
    if operation:
        return f"a built-in {exception} vLLM does not print, whose words name no program entity"
    if operation is None and class_family is not None:
        return f"not a vLLM message, its words name no program entity, and the family " \
               f"{class_family} holds it for a general check"
    return None
