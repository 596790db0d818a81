"""Release evidence: a later vLLM release whose source no longer raises the root cause's message.

The index holds every release's messages. When the log's release raised a message that every
release from some X on lacks, while the function that raised it lives on in X (it still prints
other messages), the check was dropped from that code: upgrading vLLM to >= X is advice with
evidence. Most disappearances are not that, and give nothing:
- moved: another module prints the same text later (then it is not gone at all), or the function
  that raised it is gone (its code moved or was rewritten: the check may live on elsewhere);
- reworded: a later template of the same function reads like it, or any later template reads much
  like it or opens with its words (the check is still there; the same failure, new words), or
  the function raises a new message from X on (the check may be rewritten past recognition);
- a version the index does not cover: a dev or fork build (its source lies between or beside the
  indexed releases), one newer than X, or a release whose indexed source does not hold the
  message (the log's build is not the source the index read); no version at all;
- a message of a few fixed words (`No module named {any}`), too generic to date.
"""

from __future__ import annotations

import re

from rapidfuzz import fuzz, process

from logsleuth.index.data import MessageKind, MessageTemplate, VllmIndex, site_records, sites_of
from logsleuth.index.lookup import literal_of
from logsleuth.index.origin import (MOVED_SIMILARITY, REWORDED_SIMILARITY, frame_sites,
                                    plugin_frames, raised_by_vllm, release_position)
from logsleuth.index.versions import release_of, version_key
from logsleuth.model import (ErrorEvent, Evidence, Match, Origin, ReleaseEvidence,
                             SignatureKind)

MIN_WORDS = 4  # fixed words a message needs before its disappearance dates anything
OPENING_WORDS = 5  # a later message opening with these words of it is the same check reworded
# the local part of an upstream build's version (`+cu128`, `+cpu`, `+rocm6.2`); any other local
# part (`+g1234abc`, `+gaudi`) is a build from a branch or a fork, whose source the index lacks
_UPSTREAM_LOCAL = re.compile(r"(?:cu\d+|cpu|rocm[\d.]*)")
_DEVELOPMENT = re.compile(r"(?i)\.?dev\d*|(?<=\d)(?:a|b)\d+")
# a logged message dates a failure only at these levels: a warning that disappears (a
# deprecation notice) says the old way is gone, not that the failure is
_ERROR_LEVELS = frozenset({"ERROR", "CRITICAL", "EXCEPTION", "FATAL"})
RELEASE_SCORE = 0.75  # the source's evidence for the message, not a diagnosis of the failure


def covered(version: str, index: VllmIndex) -> bool:
    """Whether the log's version is a release whose source the index stands for: a final, post
    or rc release, no newer than the newest indexed one, built from upstream's tags."""
    release = release_of(version)
    if release is None or _DEVELOPMENT.search(version):
        return False
    local = version.split("+", 1)[1] if "+" in version else None
    if local is not None and not all(_UPSTREAM_LOCAL.fullmatch(part)
                                     for part in local.split(".") if not part.isdigit()):
        return False
    return version_key(release) <= version_key(index.releases[-1])


def upgrade_for(event: ErrorEvent, origin: Origin | None, index: VllmIndex,
                version: str | None) -> ReleaseEvidence | None:
    """The release from which vLLM's source (or, for a plugin's origin, the plugin's: `index`
    and `version` are then the plugin's) no longer raises this error, when the log's release
    did and the function that raised it lives on; None unless the evidence is clean."""
    if origin is None or version is None or not covered(version, index):
        return None
    position = release_position(index, version)
    sites = sites_of(index, origin.template)
    present = {r for site in sites for r in site.releases}
    if position is None or position not in present:
        return None
    last = max(present)
    if last >= len(index.releases) - 1:
        return None  # the newest indexed release still prints it (wherever: moved is not gone)
    following = last + 1
    release = release_of(version)
    if release is None or version_key(release) >= version_key(index.releases[following]):
        return None
    site = _raising_site(origin, sites, position, last)
    if site is None or not _fails(site):
        return None
    fixed = literal_of(origin.template)
    if len(fixed.split()) < MIN_WORDS or not _raised_there(event, site, origin.package):
        return None
    if not _lives_on(site, index, following) or _rewritten(site, index, following) \
            or _still_written(fixed, site, index, following):
        return None
    return ReleaseEvidence(index.releases[following], index.releases[last], version,
                           f"{site.module}.{site.function}", event.line, origin.package)


def _raising_site(origin: Origin, sites: tuple[MessageTemplate, ...], position: int,
                  last: int) -> MessageTemplate | None:
    """The origin's best site, when it printed the message from the log's release to the last
    that does (another site carrying it longer means the message moved)."""
    best = origin.site
    for site in sites:
        if (site.module, site.function, site.cls) == (best.module, best.function, best.exception):
            return site if position in site.releases and last in site.releases else None
    return None


def _raised_there(event: ErrorEvent, site: MessageTemplate, package: str = "vllm") -> bool:
    """Whether the event's traceback, if it has one, passes through the site and was raised in
    vLLM's code (a library's error with vLLM's words is not vLLM's check); a plugin's site, in
    the plugin's frames."""
    if not event.frames:
        return True
    if package != "vllm":
        return (site.module, site.function.rsplit(".", 1)[-1]) in plugin_frames(event)
    return raised_by_vllm(event) is not False \
        and (site.module, site.function.rsplit(".", 1)[-1]) in frame_sites(event)


class _Table:
    """What the checks below ask of every site, read once per index: each function's sites
    (their releases, and whether printing them means a failure) and each site's fixed text."""

    def __init__(self, index: VllmIndex) -> None:
        self.functions: dict[tuple[str, str], list[tuple[tuple[int, ...], bool]]] = {}
        self.literals: list[tuple[str, str, int]] = []  # (fixed text, function, last release)
        fixed: dict[str, str] = {}
        for text, kind, cls, module, function, releases in site_records(index):
            self.functions.setdefault((module, function), []).append(
                (releases, _failing(kind, cls)))
            if text not in fixed:
                fixed[text] = literal_of(text)
            self.literals.append((fixed[text], function, releases[-1]))


_TABLES: dict[int, tuple[VllmIndex, _Table]] = {}


def _table(index: VllmIndex) -> _Table:
    """The index's table, made on first use (keyed by the index object itself: the shipped one
    lives for the process; a test's small ones come and go)."""
    found = _TABLES.get(id(index))
    if found is None or found[0] is not index:
        if len(_TABLES) > 8:
            _TABLES.clear()
        found = _TABLES[id(index)] = (index, _Table(index))
    return found[1]


def _lives_on(site: MessageTemplate, index: VllmIndex, release: int) -> bool:
    """Whether the site's function still prints some message in `release`."""
    return any(release in releases
               for releases, _ in _table(index).functions[(site.module, site.function)])


def _rewritten(site: MessageTemplate, index: VllmIndex, release: int) -> bool:
    """Whether the site's function raises (or logs as an error) a message new in `release`: the
    check may live on in other words ("encounter invalid h_bar" became "Invalid h_bar=..., w_bar=...:
    h_bar * w_bar must be >= min_pixels"). A new warning is no such thing: a check that became a
    warning ("async scheduling will be disabled") no longer fails."""
    return any(releases[0] == release and fails
               for releases, fails in _table(index).functions[(site.module, site.function)])


def _fails(site: MessageTemplate) -> bool:
    return _failing(site.kind, site.cls)


def _failing(kind: MessageKind, cls: str) -> bool:
    """Whether printing a message means vLLM failed: a raise or an error-level record."""
    return kind is MessageKind.RAISE or (kind is MessageKind.LOG and cls in _ERROR_LEVELS)


def _still_written(fixed: str, site: MessageTemplate, index: VllmIndex, release: int) -> bool:
    """Whether any release from `release` on still writes the message in other words: a
    template of the same function that reads like it, any template that reads much like it, or
    one that opens with its first words."""
    later = [(literal, function) for literal, function, last in _table(index).literals
             if last >= release]
    same_function = [literal for literal, function in later if function == site.function]
    anywhere = [literal for literal, _ in later]
    if process.extractOne(fixed, same_function, scorer=fuzz.ratio,
                          score_cutoff=REWORDED_SIMILARITY) is not None:
        return True
    if process.extractOne(fixed, anywhere, scorer=fuzz.ratio,
                          score_cutoff=MOVED_SIMILARITY) is not None:
        return True
    words = fixed.split()[:OPENING_WORDS]
    opening = " ".join(words)
    return any(words[0] in literal and opening in " ".join(literal.split())
               for literal in anywhere)


def upgrade_section(evidence: ReleaseEvidence) -> str:
    """The labelled part of a fix that the release evidence adds (Markdown)."""
    name = evidence.product
    return (f"**Release evidence** (logsleuth's index of {name}'s source): this message is gone "
            f"from {name} {evidence.release}'s source; `{evidence.site}` still exists there but "
            f"no longer raises it ({evidence.last_release} is the newest indexed release that "
            f"does; the log's {name} is {evidence.log_version}).\nUpgrade {name} to >= "
            f"{evidence.release}: `pip install -U {evidence.package}` (or `{evidence.command}`). "
            f"The check was dropped or rewritten there; its release notes say what replaced it.")


def with_upgrade(match: Match | None, evidence: ReleaseEvidence | None,
                 root: ErrorEvent | None) -> Match | None:
    """The report's fix with the release evidence: added to a fix matched on the root cause (or
    an error raised from it), or on its own (kind `release`) when nothing matched at all."""
    if evidence is None or root is None or root.line != evidence.event_line:
        return match
    if match is None:
        return release_match(root, evidence)
    if match.target == "symptom":
        return match
    return match.with_paragraph(upgrade_section(evidence))


def release_match(event: ErrorEvent, evidence: ReleaseEvidence) -> Match:
    """The release evidence as the report's fix, when no signature, message remedy or fallback
    knows the failure: `release:<module>.<function>` of the site that stopped raising it."""
    name = evidence.product
    title = f"{name} {evidence.release} no longer raises this error: upgrade {name}"
    detail = f"{evidence.site} raises it up to {name} {evidence.last_release}, not in " \
             f"{evidence.release}"
    return Match(f"release:{evidence.site}", title, RELEASE_SCORE,
                 upgrade_section(evidence) + "\n", (), (Evidence("origin", RELEASE_SCORE, detail),),
                 "root_cause", None, SignatureKind.RELEASE)
