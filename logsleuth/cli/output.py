"""Where command output goes: a terminal gets rich's layout, a pipe or file gets whole lines.

A pipe or a file (a CI log, `> report.txt`, `| grep`) is read by programs and copied from: it
gets no hard wrap and no padding, so a path, an id or a message is never split. `--width`
asks for a wrap at that width anyway.
"""

from __future__ import annotations

import io
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from logsleuth.errors import OutputError

if TYPE_CHECKING:  # rich loads only for the formats it draws (not for JSON: 20-40 ms a run)
    from rich.console import Console

UNWRAPPED = 1 << 16  # "wide enough for anything" when the caller did not say


def is_terminal() -> bool:
    return sys.stdout.isatty()


def render_rich(draw: Callable[[Console], None], *, width: int | None,
                natural_width: int = UNWRAPPED, terminal: bool | None = None) -> str:
    """What `draw` prints, as text. On a terminal, styled and laid out to the terminal's width
    (or `width`); elsewhere plain, unwrapped unless `width` is given, trailing spaces stripped."""
    from rich.console import Console

    terminal = is_terminal() if terminal is None else terminal
    buffer = io.StringIO()
    if terminal:
        console = Console(file=buffer, highlight=False, force_terminal=True,
                          width=width or Console().width)
    else:
        console = Console(file=buffer, highlight=False, color_system=None, force_terminal=False,
                          width=width or natural_width)
    draw(console)
    text = buffer.getvalue()
    if terminal:
        return text
    return "".join(line.rstrip() + "\n" for line in text.splitlines())


def stdin_is_terminal() -> bool:
    return sys.stdin is not None and sys.stdin.isatty()


STDIN_HINT = ("logsleuth: reading a log from the terminal: paste it and end with Ctrl-D, or give "
              "a file (logsleuth explain vllm.log) or a pipe (cat vllm.log | logsleuth explain -)")


def hint_if_typing(path: str) -> None:
    """`-` with nobody piping in waits for the terminal: say so, rather than seem to hang."""
    if path == "-" and stdin_is_terminal():
        sys.stderr.write(STDIN_HINT + "\n")
        sys.stderr.flush()


def emit(text: str, output: Path | None = None) -> None:
    """Write to stdout or to `output`; a file-system error becomes an OutputError, never a
    traceback. A reader that went away (`| head`) is not an error."""
    try:
        if output is None:
            sys.stdout.write(text)
            sys.stdout.flush()
        else:
            output.write_text(text, encoding="utf-8")
    except BrokenPipeError:
        _silence_stdout()
    except OSError as exc:
        where = "standard output" if output is None else str(output)
        raise OutputError(f"cannot write {where}: {exc.strerror or exc}") from None


def _silence_stdout() -> None:
    """After a closed pipe, Python would complain again at exit while flushing stdout."""
    import os

    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
