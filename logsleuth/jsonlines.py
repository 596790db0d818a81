"""A log stored or exported as JSON lines, read as the text of each event.

Docker's json-file driver keeps a container's output as one object a line
(`{"log":"ERROR 08-01 ...\\n","stream":"stderr","time":"2024-..."}`: the files under
/var/lib/docker/containers, and a Kubernetes node's container logs of that era); `journalctl -o
json` writes `MESSAGE`; a log service's export writes `message` or `textPayload`; a structured
logger writes its record's fields (Python's JSON formatters, Ray's and Ray Serve's JSON logs:
`{"levelname": "WARNING", "asctime": "2024-03-24 03:17:59,398", "component_name": "controller",
"message": "..."}`; Go's zap and logrus: `{"level":"error","ts":...,"msg":"..."}`; stern's
`--output json`, each line's pod and container beside its `message`). A file format
like gzip or a CSV export, not a line shape: each object becomes the text of its message field,
on the object's own line, so line numbers stay those of the file, behind the record's own level
when the object names it (in every other format the level a logger gave its record is part of
the record's text: issue 10, an ERROR record is an error whatever its format). A line that is
not such an object (a line pasted around the export) is handed on as it is. A launcher's wrapper
before each object (docker's or kubectl's `--timestamps`, compose's `svc-1  | `, `srun -l`'s task,
journald's unit: a container whose program logs JSON, read through its launcher) stays before the
object's text, where the grammar reads it as it reads it before any line.
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
              "__REALTIME_TIMESTAMP", "receiveTimestamp", "asctime",
              # or which pod and container wrote it: `stern --output json` (`{"message": ...,
              # "nodeName": ..., "namespace": ..., "podName": ..., "containerName": ...}`, no
              # time: `--timestamps` puts it in the message), a collector's Kubernetes metadata
              "podName", "containerName", "kubernetes")
# The fields that hold the level the logger gave the record (Python logging's `levelname`, a
# structured logger's `level`). Not `severity`: a log service sets it by stream (stderr: ERROR)
LEVEL_KEYS = ("levelname", "level")
# The level words a record header reads (grammars/vllm.lark LEVEL_WORD_HEADER), by the value
LEVELS = {word.lower(): word for word in
          ("TRACE", "DEBUG", "INFO", "NOTICE", "WARN", "WARNING", "ERROR", "CRITICAL", "FATAL")}
_SAMPLE_LINES = 5  # this many first lines (fewer in a short log) must be such objects
# A wrapper is short and quotes nothing (a line that quotes or braces before its object is a
# message that holds JSON, not an event)
_LEAD_CHARS = 120


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
    event = _event(line)[1]
    if event is None or not any(key in event for key in EVENT_KEYS):
        return None
    return next((key for key in MESSAGE_KEYS if isinstance(event.get(key), str)), None)


def _event(line: str) -> tuple[str, dict[str, object] | None]:
    """The wrapper before the line's object (empty when none) and the object, if the line is
    one object after at most a wrapper."""
    text = line.strip()
    start = text.find("{")
    if start < 0 or not text.endswith("}") or start > _LEAD_CHARS \
            or any(mark in text[:start] for mark in "\"'}"):
        return "", None
    try:
        event = json.loads(text[start:])
    except ValueError:  # not JSON after all (a Python dict printed with quotes of its own)
        return "", None
    return (text[:start], event) if isinstance(event, dict) else ("", None)


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
            lead, event = _event(line)
            message = event.get(self._key) if event is not None else None
            if isinstance(message, str):
                text = message.removesuffix("\n").removesuffix("\r").replace("\n", " ")
                level = _level(event) if event is not None else None
                out.append(lead + (f"{level} {text}" if level else text))
            else:
                out.append(line)
        return ("\n".join(out) + ("\n" if ended else "")).encode("utf-8", "surrogateescape")


def _level(event: dict[str, object]) -> str | None:
    """The level word of the record's own level field, when it names one."""
    for key in LEVEL_KEYS:
        value = event.get(key)
        if isinstance(value, str):
            return LEVELS.get(value.strip().lower())
    return None
