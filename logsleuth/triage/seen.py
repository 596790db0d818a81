"""When a log failed, by its own clock: the root cause's timestamp, else the file's mtime.

A file's mtime says when it was last written (copied, rotated, touched), not when vLLM failed.
vLLM's records carry no year (`02-05 10:11:15`), so the year is taken from the file: the latest
moment not after the file was last written.
"""

from __future__ import annotations

from datetime import datetime, timezone

from logsleuth.triage.model import Case

# Timestamps as the tokenizer hands them on (record headers, docker, journald, Python logging).
_WITH_YEAR = ("%Y-%m-%dT%H:%M:%S", "%Y-%m-%d %H:%M:%S", "%Y/%m/%d %H:%M:%S")
_WITHOUT_YEAR = ("%m-%d %H:%M:%S", "%b %d %H:%M:%S")
_DAY_NS = 86_400 * 10**9


def seen_ns(case: Case) -> tuple[int | None, bool]:
    """(nanoseconds since the epoch, True when from the log itself) for one case."""
    mtime = case.file.mtime_ns if case.file is not None else None
    stamp = case.cause.time if case.cause is not None else None
    logged = parse_log_time(stamp, mtime) if stamp else None
    return (logged, True) if logged is not None else (mtime, False)


def parse_log_time(text: str, written_ns: int | None) -> int | None:
    """A log timestamp in UTC nanoseconds, or None when it has no form we know."""
    text = text.strip().replace(",", ".")
    head = text[:19]
    for form in _WITH_YEAR:
        try:
            return _ns(datetime.strptime(head, form))
        except ValueError:
            continue
    if written_ns is None:
        return None
    written = datetime.fromtimestamp(written_ns / 1e9, tz=timezone.utc)
    for form in _WITHOUT_YEAR:
        try:
            moment = datetime.strptime(f"{written.year} {text[:15]}", f"%Y {form}")
        except ValueError:
            continue
        if _ns(moment) > written_ns + _DAY_NS:  # after the file was written: last year
            moment = moment.replace(year=written.year - 1)
        return _ns(moment)
    return None


def _ns(moment: datetime) -> int:
    return int(moment.replace(tzinfo=moment.tzinfo or timezone.utc).timestamp()) * 10**9
