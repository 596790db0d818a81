"""Cases with the same root-cause fingerprint, grouped: the triage table's rows."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable

from logsleuth.triage.model import Case, Group, GroupKind
from logsleuth.triage.seen import seen_ns
from logsleuth.triage.work import masked_text

_KIND_ORDER = {kind: order for order, kind in enumerate(GroupKind)}


def group_cases(cases: Iterable[Case]) -> tuple[Group, ...]:
    """One group per fingerprint: by kind (signatures first), then most cases, then key."""
    by_key: dict[str, list[Case]] = defaultdict(list)
    for case in cases:
        by_key[case.fingerprint].append(case)
    groups = [_group(members) for members in by_key.values()]
    groups.sort(key=lambda g: (_KIND_ORDER[g.kind], -g.count, g.fingerprint))
    return tuple(groups)


def _group(members: list[Case]) -> Group:
    first = members[0]
    seen = {c.path: seen_ns(c) for c in members}
    members.sort(key=lambda c: (-(seen[c.path][0] or -1), c.path))  # newest first
    times = [when for when, _ in seen.values() if when is not None]
    return Group(first.kind, first.fingerprint, _title(first), tuple(members),
                 min(times) if times else None, max(times) if times else None,
                 seen_in_logs=all(logged for _, logged in seen.values()))


def _title(case: Case) -> str:
    if case.kind is GroupKind.SIGNATURE and case.signature is not None:
        return case.signature.title
    if case.kind is GroupKind.UNMATCHED:  # the template or masked message it is grouped by
        return case.fingerprint.partition(":")[2] or masked_text(case.cause)
    if case.kind is GroupKind.NO_FAILURE:
        return case.fingerprint.partition(":")[2] or "no failure"
    return case.fingerprint.partition(":")[2]
