"""The one error root of logsleuth and the few subclasses a caller catches separately."""

from __future__ import annotations


class LogsleuthError(Exception):
    """Base of every error logsleuth raises on purpose.

    `location` is `path:line` (or just `path`) when the problem sits in a file; the message
    then ends with it, so a terminal or editor can jump there.
    """

    def __init__(self, message: str, *, location: str | None = None, hint: str | None = None):
        self.location = location
        self.hint = hint
        self.detail = message
        text = f"{location}: {message}" if location else message
        super().__init__(text)


class InputError(LogsleuthError):
    """The log could not be used at all: missing, a directory, unreadable."""


class SignatureError(LogsleuthError):
    """A signature file is broken: bad YAML, a schema violation, an invalid pattern."""

    def __init__(self, message: str, *, location: str | None = None, hint: str | None = None,
                 problems: tuple[SignatureError, ...] = ()):
        super().__init__(message, location=location, hint=hint)
        self.problems = problems


class OutputError(LogsleuthError):
    """A report could not be written (a full disk, a missing directory, no permission)."""
