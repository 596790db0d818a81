"""The reader of a big file's second half, run as a process of its own (tokenize/halves.py).

It only locates lines (logsleuth/locate.py: RE2, no Lark, no parsing) and writes them to a spool
file, one pickled list per block, so it starts as a small interpreter instead of a copy of the
process that parses: a forked copy held every module and cache of its parent (50-60 MB).

    python -c 'from logsleuth.halfread import main; main()' REQUEST_JSON

REQUEST_JSON: path, start, end, name, max_line_bytes, spool, patterns (ANCHOR, SERVING, ALIVE).
It prints one JSON line: lines counted, the half's last bytes (hex) and the notices.
"""

from __future__ import annotations

import json
import pickle
import sys
from dataclasses import dataclass
from pathlib import Path

from logsleuth.locate import Anchors, locate
from logsleuth.read import open_range

TAIL_BYTES = 4096


@dataclass(frozen=True, slots=True)
class Half:
    """What the second half held (its lines are in the spool file)."""

    count: int  # lines in the half
    tail: bytes  # its last bytes, for the log's last line
    notices: list[str]


def locate_half(path: str, start: int, end: int, name: str, max_line_bytes: int, spool: str,
                patterns: tuple[str, str, str]) -> Half:
    """Locate the anchored lines of [start, end) into `spool`, one pickled list per block."""
    anchors = Anchors.compile(*patterns)
    part = open_range(Path(path), start, end, name=name, max_line_bytes=max_line_bytes)
    tail = b""
    count = 0
    with open(spool, "wb") as out:
        for block in part.blocks():
            found, count = locate(block, count, anchors)
            if found:
                pickle.dump(found, out, protocol=pickle.HIGHEST_PROTOCOL)
            tail = (tail + block[-TAIL_BYTES:])[-TAIL_BYTES:]
    return Half(count, tail, part.notices)


def main() -> None:
    """Run one request from argv; the answer goes to stdout."""
    request = json.loads(sys.argv[1])
    half = locate_half(request["path"], request["start"], request["end"], request["name"],
                       request["max_line_bytes"], request["spool"], tuple(request["patterns"]))
    sys.stdout.write(json.dumps({"count": half.count, "tail": half.tail.hex(),
                                 "notices": half.notices}) + "\n")
