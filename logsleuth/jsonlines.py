"""A log stored or exported as JSON lines, read as the text of each event.

Docker's json-file driver keeps a container's output as one object a line
(`{"log":"ERROR 08-01 ...\\n","stream":"stderr","time":"2024-..."}`: the files under
/var/lib/docker/containers, and a Kubernetes node's container logs of that era); `journalctl -o
json` writes `MESSAGE`; a log service's export writes `message` or `textPayload`. A file format
like gzip or a CSV export, not a line shape: each object becomes the text of its message field,
on the object's own line, so line numbers stay those of the file. A line that is not such an
object (a line pasted around the export) is handed on as it is.
"""

from __future__ import annotations

import io
import json

from logsleuth.wholelines import WholeLines

# The fields that hold an event's text, in the order they are looked for
MESSAGE_KEYS = ("log", "message", "msg", "MESSAGE", "textPayload", "line", "content")
# An event says when (or on which stream) it was written; an object without any of these is not
# a log event (an OpenAI-style error body a client printed has a `message` too)
EVENT_KEYS = ("time", "timestamp", "@timestamp", "ts", "date", "stream",
              "__REALTIME_TIMESTAMP", "receiveTimestamp")
_SAMPLE_LINES = 5  # this many first lines (fewer in a short log) must be such objects


def message_key(head: bytes, *, cut: bool) -> str | None:
    """The field that holds each event's text, when `head` (the first bytes of the input) starts
    a JSON-lines log whose objects all hold it as a string; `cut`: the head may end mid-line."""
    lines = head.decode("utf-8", "replace").lstrip("\ufeff").split("\n")
    if cut:
        lines = lines[:-1]
    sample = [line for line in lines if line.strip()][:_SAMPLE_LINES]
    keys = {_key_of(line) for line in sample}
    if len(keys) != 1:
        return None
    return keys.pop()


def _key_of(line: str) -> str | None:
    event = _event(line)
    if event is None or not any(key in event for key in EVENT_KEYS):
        return None
    return next((key for key in MESSAGE_KEYS if isinstance(event.get(key), str)), None)


def _event(line: str) -> dict[str, object] | None:
    text = line.strip()
    if not (text.startswith("{") and text.endswith("}")):
        return None
    try:
        event = json.loads(text)
    except ValueError:  # not JSON after all (a Python dict printed with quotes of its own)
        return None
    return event if isinstance(event, dict) else None


class JsonMessages(WholeLines):
    """The message field of each JSON line, one object a line, as UTF-8 bytes. Its own trailing
    newline (Docker's) is dropped; a newline inside it becomes a space, as in a CSV export."""

    def __init__(self, stream: io.RawIOBase, key: str):
        super().__init__(stream)
        self._key = key

    def convert(self, data: bytes) -> bytes:
        text = data.decode("utf-8", "surrogateescape")
        ended = text.endswith("\n")
        out = []
        for line in text.split("\n")[:-1] if ended else text.split("\n"):
            event = _event(line)
            message = event.get(self._key) if event is not None else None
            if isinstance(message, str):
                out.append(message.removesuffix("\n").removesuffix("\r").replace("\n", " "))
            else:
                out.append(line)
        return ("\n".join(out) + ("\n" if ended else "")).encode("utf-8", "surrogateescape")
