"""The literal text every match of a pattern must contain, so a substring test can skip a search.

`needle in text` is a C-speed scan; most log lines miss it, and the pattern's search (Python's
`regex`, under a time budget) runs only on the few that hold it.
"""

from __future__ import annotations

from functools import lru_cache

import regex


@lru_cache(maxsize=4096)
def required_literal(pattern: str) -> str:
    """The longest run of plain characters that every match of `pattern` must contain.

    Conservative: only text outside every group and class, stopping before a character that a
    quantifier makes optional; a pattern with a top-level `|` has none. Empty when unsure.
    """
    if regex.search(r"\(\?[aiLmsux-]+[:)]", pattern):
        return ""  # inline flags (ignore case, verbose) change what a literal means
    runs: list[str] = []
    run, depth, index = "", 0, 0
    while index < len(pattern):
        char = pattern[index]
        if char == "\\":
            escaped = pattern[index + 1: index + 2]
            if escaped and not escaped.isalnum() and depth == 0:
                run += escaped
            else:  # a class such as \d or \s: the run ends here
                runs.append(run)
                run = ""
            index += 2
            continue
        if char == "|" and depth == 0:
            return ""
        if char in "([":
            depth += 1
            runs.append(run)
            run = ""
        elif char in ")]":
            depth = max(0, depth - 1)
            run = ""
        elif char in "*+?{":
            runs.append(run[:-1])  # the quantified character may be absent (or repeated)
            run = ""
        elif char in ".^$":  # any character, or an anchor: the run ends here
            runs.append(run)
            run = ""
        elif depth == 0:
            run += char
        index += 1
    runs.append(run)
    best = max(runs, key=len)
    return best if len(best) >= 3 else ""
