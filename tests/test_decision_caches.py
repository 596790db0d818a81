"""Shortcuts that decide once for many inputs give the answer deciding each input would.

Every shortcut here is checked against the slow path it replaces, over the shipped knowledge
and generated inputs: a template's needle test against its compiled pattern alone.
"""

from __future__ import annotations

import dataclasses
from functools import cache

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from logsleuth.signatures import default_signatures
from logsleuth.signatures.template import PLACEHOLDERS, Template, mask

# One value per placeholder, as a message would print it.
_FILLING = {"int": "4096", "float": "1.5", "num": "12", "size": "2.00 GiB", "path": "/a/b.py",
            "hex": "0x1f", "word": "abc", "quoted": "'x'", "any": "some text"}


@cache
def _templates() -> tuple[Template, ...]:
    return tuple(template for signature in default_signatures()
                 for template in signature.templates)


def _filled(template: Template) -> str:
    text = template.text
    for name in PLACEHOLDERS:
        text = text.replace("{" + name + "}", _FILLING[name])
    return text


def _without_needle(template: Template, message: str) -> float:
    return dataclasses.replace(template, needle="").score(message, mask(message))


def test_templates_have_needles() -> None:
    """The shortcut is in use: most templates hold fixed words."""
    templates = _templates()
    assert sum(1 for t in templates if t.needle) > len(templates) // 2


@pytest.mark.parametrize("index", range(0, 400, 7))
def test_needle_keeps_every_exact_match(index: int) -> None:
    """A template's own message, and every other template's, score the same with and without
    the needle test (its own scores 1.0: the test can fail)."""
    templates = _templates()
    template = templates[index % len(templates)]
    own = _filled(template)
    assert template.score(own, mask(own)) == _without_needle(template, own)
    for other in templates[::5]:
        message = _filled(other)
        assert template.score(message, mask(message)) == _without_needle(template, message)


@settings(max_examples=200, deadline=None)
@given(st.data())
def test_needle_on_edited_messages(data: st.DataObject) -> None:
    """Messages edited around a template's fixed words (words dropped, case or spacing
    changed, text added) score the same with and without the needle test."""
    templates = _templates()
    template = data.draw(st.sampled_from(templates))
    words = _filled(template).split()
    kept = [w for w in words if data.draw(st.booleans())]
    if data.draw(st.booleans()):
        kept = [w.upper() if data.draw(st.booleans()) else w for w in kept]
    message = data.draw(st.text(max_size=8)) + "  ".join(kept) + data.draw(st.text(max_size=8))
    assert template.score(message, mask(message)) == _without_needle(template, message)
