"""What vLLM's own messages say about causality, loaded from `signatures/causality.yaml`."""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, fields
from functools import cache
from pathlib import Path
from typing import TypeVar, cast

import regex

from logsleuth.compiledcopy import kept
from logsleuth.errors import SignatureError
from logsleuth.literal import SCREEN_CHARS, Needles, Screen, required_literals
from logsleuth.model import Frame, MilestoneKind, Phase, Role
from logsleuth.resources import data_dir
from logsleuth.tokenize.shape import MASK, ShapeCache, digit_blind, digit_classes, shape_key
from logsleuth.yamlload import load_yaml

# Patterns here are short and vetted by the test suite (none backtracks catastrophically on the
# probes of `signatures lint`), but run under a budget all the same on lines long enough for a
# search to take time. The budget itself costs ~10 us a search (the clock is read), five times a
# short search: milestone and phase patterns are asked about every line that reaches the assembler.
PATTERN_TIMEOUT = 0.05
UNTIMED_CHARS = 1024  # lines up to this long are searched without the budget
# long lines up to this long may be kept by a digest of their text (an engine config line that
# every start prints again); longer ones are logged prompts, which never repeat: not hashed
KEPT_LONG_CHARS = 8 << 10
_K = TypeVar("_K")
_V = TypeVar("_V")
_T = TypeVar("_T")


@dataclass(frozen=True, slots=True)
class Symptom:
    pattern: regex.Pattern[str]
    points_to: Role | None  # None: the cause can be in any process
    # only when raised at a place this matches (`raised_at`: the source line of the
    # exception's innermost frame); None: by its text alone
    raised_at: regex.Pattern[str] | None = None


@dataclass(frozen=True, slots=True)
class Latent:
    """A warning that reports an exception its process went on from, and the later errors that
    follow from it (`latent`)."""

    warning: regex.Pattern[str]
    explains: tuple[regex.Pattern[str], ...]
    # the warning says no engine can start after it (`dooms_startup`): a start-up step after
    # it, with no error and no completed start-up, makes it the failure
    dooms_startup: bool = False
    # the record says so whatever level its logger gave it (`any_level`: a monitor that logs a
    # condition at ERROR, Ray's raylet of its disk): an error record of its words is latent too
    any_level: bool = False


@dataclass(frozen=True, slots=True)
class Causality:
    """The causality knowledge, compiled."""

    roles: tuple[tuple[Role, regex.Pattern[str]], ...]
    symptoms: tuple[Symptom, ...]
    wrappers: tuple[regex.Pattern[str], ...]
    milestones: tuple[tuple[MilestoneKind, regex.Pattern[str]], ...]
    corrupting: tuple[regex.Pattern[str], ...] = ()
    singletons: regex.Pattern[str] | None = None
    phase_lines: tuple[tuple[Phase, regex.Pattern[str]], ...] = ()
    phase_frames: tuple[tuple[Phase, regex.Pattern[str]], ...] = ()  # in precedence order
    interrupts: regex.Pattern[str] | None = None
    handled_titles: tuple[regex.Pattern[str], ...] = ()
    handled_sites: tuple[regex.Pattern[str], ...] = ()
    handled_frames: tuple[regex.Pattern[str], ...] = ()
    engine_frames: tuple[regex.Pattern[str], ...] = ()  # `handled.unless_frames`
    native: regex.Pattern[str] | None = None  # records logged by native code (`native`)
    request_sites: tuple[regex.Pattern[str], ...] = ()  # `requests`
    request_frames: tuple[regex.Pattern[str], ...] = ()
    startup_frames: tuple[regex.Pattern[str], ...] = ()  # `requests.unless_frames`
    scheduler_stops: tuple[regex.Pattern[str], ...] = ()  # the job ended by its scheduler
    # the answers that show the HTTP server went on after a request error (`requests.saved_by`),
    # and the kind whose first after the error answers the failed request (`requests.answered_by`)
    request_savers: frozenset[MilestoneKind] = frozenset({MilestoneKind.SERVING})
    request_answer: MilestoneKind | None = None
    # set-up lines of a step that waits on its peers, by phase: a log ending on one stalled there;
    # the third item, when set, is what the log must show besides for the line to be one
    # (`waits`' `shown_with`)
    waits: tuple[tuple[Phase, regex.Pattern[str], regex.Pattern[str] | None], ...] = ()
    unstarted_bars: regex.Pattern[str] | None = None  # a progress bar at 0 (`unstarted_bars`)
    # an error record's own statement that it does not stop the program (`harmless`)
    harmless: tuple[regex.Pattern[str], ...] = ()
    latent: tuple[Latent, ...] = ()  # warnings that are the cause of a later error (`latent`)
    failed_answers: regex.Pattern[str] | None = None  # an access line's 5xx (`failed_answers`)
    # (cause, effect) exception types: the cause is how the effect raised from it came about
    mechanisms: tuple[tuple[regex.Pattern[str], regex.Pattern[str]], ...] = ()
    # symptoms by their text and where they were raised (`symptoms` items with `raised_at`)
    raised_symptoms: tuple[Symptom, ...] = ()
    # a traceback that reached the top of a vLLM program: it exited (`exits`)
    exit_outermost: tuple[regex.Pattern[str], ...] = ()
    exit_through: regex.Pattern[str] | None = None
    children: regex.Pattern[str] | None = None  # started by their deployment (`children`)
    engine_once: tuple[regex.Pattern[str], ...] = ()  # an engine's own once-only lines
    deaths: tuple[regex.Pattern[str], ...] = ()  # a process's native death (`deaths`)
    # how many lines "right before" a death an unraisable exception may be (`unraisable.within`)
    unraisable_within: int = 0
    # how many lines after its process's uncaught exception a level-only record is that
    # process's exit report (`exit_reports.within`; 0: none is)
    exit_report_within: int = 0
    # wrappers of a line that restates an error reported in full elsewhere (`restatements`)
    restatements: tuple[regex.Pattern[str], ...] = ()
    # a tool's own error line printed by vLLM's program or a Python script: it exited
    # (`exits.programs`)
    exit_programs: tuple[regex.Pattern[str], ...] = ()
    # warnings that say the engine dropped a request it could not run (`refusals`)
    refusals: tuple[regex.Pattern[str], ...] = ()
    # a request's error that says the request itself does not fit the deployment (`requests.clients`)
    client_faults: tuple[regex.Pattern[str], ...] = ()
    # the files of scripts run to describe an environment (`diagnostics.frames`), and the texts of
    # a latent warning whose exception such a script's later error leaves the failure
    # (`diagnostics.reported`)
    diagnostic_frames: tuple[regex.Pattern[str], ...] = ()
    diagnosed_warnings: tuple[regex.Pattern[str], ...] = ()
    # Ray's actors that run a deployment's workers (`ray_actors`), and the names of the worker
    # processes a deployment starts itself (`own_workers`): one engine runs one kind
    ray_actors: regex.Pattern[str] | None = None
    own_workers: regex.Pattern[str] | None = None
    # the errors that follow from a request's error vLLM answered by design, outside the server:
    # the client of that answer finding in it what the parser left out (`handled.explains`)
    handled_effects: tuple[regex.Pattern[str], ...] = ()
    # an error sentence with no exception class or level, pasted alone (`pasted`)
    pasted: tuple[regex.Pattern[str], ...] = ()
    # a record that heads a traceback and quotes its exception's str(e) (`quoting_titles`)
    quoting_titles: tuple[regex.Pattern[str], ...] = ()
    # a tool's error line that is whole on its line: nothing after it is its message
    # (`whole_lines`, searched in "label: text")
    whole_lines: tuple[regex.Pattern[str], ...] = ()
    # the outermost frame of a helper process's own teardown bookkeeping (`teardown.outermost`)
    teardown_outermost: tuple[regex.Pattern[str], ...] = ()
    # exceptions whose message goes on over indented lines under it (`indented_messages`)
    indented_messages: tuple[regex.Pattern[str], ...] = ()
    # a native crash handler's report whose stack follows it, innermost first (`native_stacks`,
    # searched in "label: message")
    native_stacks: tuple[regex.Pattern[str], ...] = ()
    # an access line's request a client makes of the server's API (`work_requests`)
    work_requests: tuple[regex.Pattern[str], ...] = ()
    # a kill that names no reason: after the run was up, while idle, a stop (`idle_kills`)
    idle_kills: tuple[regex.Pattern[str], ...] = ()
    # an offline client's report that its engine died, after its batch finished: the exit
    # (`offline_exits`)
    offline_exits: tuple[regex.Pattern[str], ...] = ()
    # where to look when every request in the log was refused and no line says why
    # (`refused_advice`, refused.py)
    refused_advice: tuple[str, ...] = ()
    # warnings logged only while an exception of a model step is being handled, quoting an error:
    # read as that error's record (`failing_warnings`)
    failing_warnings: tuple[regex.Pattern[str], ...] = ()
    # the engine's own account of an interval's output among `serving` lines (`engine_stats`):
    # the evidence of output an HTTP answer (a stream's `200`, logged as it starts) is not
    engine_stats: regex.Pattern[str] | None = None
    # Python's own wording of an error, which a vLLM template may copy: no evidence vLLM printed
    # it without a traceback through the site (`python_messages`, index/origin.py)
    python_messages: tuple[regex.Pattern[str], ...] = ()
    # asyncio's loop reports of what no code awaited, and the cancellations a closing loop
    # raises in them: at a program's exit after its work, no failure (`teardown.loop_reports`,
    # `teardown.cancellations`)
    loop_reports: tuple[regex.Pattern[str], ...] = ()
    cancellations: tuple[regex.Pattern[str], ...] = ()
    # hang lines a waiting loop prints once each interval, the time waited unsaid: one alone in
    # start-up is a slow step, not a stall (`periodic_waits`, causal.py `_standing_hangs`)
    periodic_waits: tuple[regex.Pattern[str], ...] = ()
    # exceptions whose text goes on with the remote traceback of the exception they carry,
    # printed right under their own line, the carried class in the `carried` group (`carriers`)
    carriers: tuple[regex.Pattern[str], ...] = ()
    # exception messages whose text goes on in bare ERROR records after them (`recorded_messages`)
    recorded_messages: tuple[regex.Pattern[str], ...] = ()
    # the interpreter's messages of its built-in exceptions, with the class of each
    # (`interpreter_messages`): a line that is wholly one is that exception's str(e)
    interpreter_messages: tuple[tuple[str, regex.Pattern[str]], ...] = ()
    # an UnboundLocalError's variable (`unbound.message`) and a source line's bound names
    # (`unbound.binds`)
    unbound_message: regex.Pattern[str] | None = None
    unbound_binds: regex.Pattern[str] | None = None
    # hang lines that summarise a start-up's waits out of the log's time order: once start-up
    # completed in the log, they are its past (`startup_waits`, causal.py `_standing_hangs`)
    startup_waits: tuple[regex.Pattern[str], ...] = ()
    # the words after its cause's headline with which an exception restates that cause as what
    # happened while it worked (`restated`)
    restated: regex.Pattern[str] | None = None
    # a test report's heading of one test's section (`test_headings`)
    test_headings: tuple[regex.Pattern[str], ...] = ()
    # an error record's statement of what the program goes on with (`goes_on`; also in `harmless`)
    goes_on: tuple[regex.Pattern[str], ...] = ()
    # what a program prints only as it exits without an error (`exit_noise`)
    exit_noise: tuple[regex.Pattern[str], ...] = ()
    # an unfinished generate bar that counts the engine's answers (`answered_bars`)
    answered_bars: tuple[regex.Pattern[str], ...] = ()
    # a destructor's unraisable exception that finds its own object without an attribute its
    # constructor sets: the constructor failed (`unraisable.half_built`, searched in "title\ntext")
    half_built: regex.Pattern[str] | None = None
    # optional kernel packages vLLM probes by a trial import and goes on without
    # (`optional_imports`): a message naming one (its `package` group), the failure's classes,
    # the probe's frames; and, by package, the spellings a later error that follows names
    optional_package: regex.Pattern[str] | None = None
    optional_classes: regex.Pattern[str] | None = None
    optional_frames: tuple[regex.Pattern[str], ...] = ()
    optional_names: tuple[tuple[str, regex.Pattern[str]], ...] = ()
    # records after which vLLM kills its own process tree (`self_kills.records`), and how many
    # lines after one a kill report naming no reason is that kill (`self_kills.within`)
    self_kills: tuple[regex.Pattern[str], ...] = ()
    self_kill_within: int = 0
    # an unfinished bar of a download under way (`transfer_bars`): no stall
    transfer_bars: tuple[regex.Pattern[str], ...] = ()
    # a driver's report of a failure it recorded as its caller saw it (`reported_titles`)
    reported_titles: tuple[regex.Pattern[str], ...] = ()
    # every line that reaches the assembler is asked for a milestone and a phase: each pattern
    # with the texts one of which its matches contain, and one RE2 pass for a long line
    _milestone_table: tuple[tuple[MilestoneKind, regex.Pattern[str], tuple[str, ...]], ...] = \
        field(init=False, repr=False, compare=False)
    _phase_table: tuple[tuple[Phase, regex.Pattern[str], tuple[str, ...]], ...] = \
        field(init=False, repr=False, compare=False)
    # a long line (a logged prompt) is read once for the texts of both tables and both screens:
    # the assembler asks milestone_of and phase_of_line about the same text one after the other
    _long: Needles = field(init=False, repr=False, compare=False)
    _last_long: list[object] = field(init=False, repr=False, compare=False)  # [text, present]
    _milestone_screen: Screen = field(init=False, repr=False, compare=False)
    _phase_screen: Screen = field(init=False, repr=False, compare=False)
    # error events are classified by these; a day of request errors repeats one failure
    # thousands of times, differing in digits (symptoms, by shape) or not at all (handled)
    _symptom_blind: tuple[bool, ...] = field(init=False, repr=False, compare=False)
    _symptom_memo: ShapeCache[int] = field(init=False, repr=False, compare=False)
    _handled_memo: dict[tuple[str | None, tuple[str, ...], str | None], bool] = \
        field(init=False, repr=False, compare=False)
    # the indices of the digit-blind patterns of each table, and of the others
    _milestone_split: tuple[tuple[int, ...], tuple[int, ...]] = \
        field(init=False, repr=False, compare=False)
    _phase_split: tuple[tuple[int, ...], tuple[int, ...]] = \
        field(init=False, repr=False, compare=False)
    # per shape: the first digit-blind milestone and phase patterns it matches, and the others
    # before them that a line of the shape may match (`_Sighted`)
    _marks_memo: ShapeCache[_Sighted] = field(init=False, repr=False, compare=False)
    # what those others answer, by the line's digit classes (`_Sighted.classes`); and an
    # access line's failed answer (where its code is), the same way (`_failed_classes`)
    _classed_marks: dict[bytes, tuple[int, int]] = field(init=False, repr=False, compare=False)
    # `digit_decisions` the same way: per shape, the reading patterns a text of it may match
    # (`_Candidates`), and what those whose classes are known answer, by the text's classes
    _reading_memo: ShapeCache[_Candidates] = field(init=False, repr=False, compare=False)
    _classed_reading: dict[bytes, tuple[int, ...]] = field(init=False, repr=False, compare=False)
    _failed_classes: bytes | None = field(init=False, repr=False, compare=False)
    _classed_failed: dict[bytes, tuple[int, int] | None] = \
        field(init=False, repr=False, compare=False)
    # the marks of long lines, by a digest of their text, when no search ran out of time: a
    # restart-heavy log prints the same 3 KB engine config line at every start (2.3 ms each)
    _long_marks: ShapeCache[tuple[MilestoneKind | None, Phase | None]] = \
        field(init=False, repr=False, compare=False)
    _request_memo: dict[tuple[str | None, tuple[str, ...]], bool] = \
        field(init=False, repr=False, compare=False)
    # what a question about a short text answered, by the question and the text: a
    # restart-heavy log prints the same start-up warnings, start lines and process names in
    # every run, and each was searched again (the answer of a text up to UNTIMED_CHARS long,
    # searched without the budget, is the same every time)
    _text_memo: dict[tuple[int, str | bytes], object] = \
        field(init=False, repr=False, compare=False)
    _starts: tuple[regex.Pattern[str], ...] = field(init=False, repr=False, compare=False)
    _needs: tuple[tuple[tuple[str, ...], ...], ...] = field(init=False, repr=False, compare=False)
    # the patterns that classify an error by its text and tell digits apart: two texts of one
    # shape (`shape_key`) are classified alike when these answer alike (recur.py folds copies)
    _reading: tuple[tuple[regex.Pattern[str], tuple[str, ...]], ...] = \
        field(init=False, repr=False, compare=False)  # (with the texts their matches contain)

    def __post_init__(self) -> None:
        object.__setattr__(self, "_milestone_table", tuple(
            (kind, p, required_literals(p.pattern)) for kind, p in self.milestones))
        object.__setattr__(self, "_phase_table", tuple(
            (phase, p, required_literals(p.pattern)) for phase, p in self.phase_lines))
        object.__setattr__(self, "_long", Needles(
            needle for table in (self._milestone_table, self._phase_table)
            for _, _, needles in table for needle in needles))
        object.__setattr__(self, "_last_long", [None, frozenset()])
        object.__setattr__(self, "_milestone_screen", Screen(p.pattern for _, p in self.milestones))
        object.__setattr__(self, "_phase_screen", Screen(p.pattern for _, p in self.phase_lines))
        object.__setattr__(self, "_symptom_blind", tuple(
            digit_blind(s.pattern.pattern) for s in self.symptoms))
        object.__setattr__(self, "_symptom_memo", ShapeCache[int]())
        object.__setattr__(self, "_handled_memo", {})
        object.__setattr__(self, "_milestone_split", _split_blind(self.milestones))
        object.__setattr__(self, "_phase_split", _split_blind(self.phase_lines))
        object.__setattr__(self, "_marks_memo", ShapeCache[_Sighted]())
        object.__setattr__(self, "_classed_marks", {})
        object.__setattr__(self, "_reading_memo", ShapeCache[_Candidates]())
        object.__setattr__(self, "_classed_reading", {})
        object.__setattr__(self, "_failed_classes", digit_classes(
            (self.failed_answers.pattern,)) if self.failed_answers is not None else None)
        object.__setattr__(self, "_classed_failed", {})
        object.__setattr__(self, "_long_marks", ShapeCache[
            tuple[MilestoneKind | None, Phase | None]](256))
        object.__setattr__(self, "_request_memo", {})
        object.__setattr__(self, "_text_memo", {})
        object.__setattr__(self, "_starts", tuple(
            pattern for kind, pattern in self.milestones if kind is MilestoneKind.START))
        # per question `_kept` keeps (in their order), the texts each of its patterns needs
        object.__setattr__(self, "_needs", tuple(
            tuple(required_literals(p.pattern) for p in patterns) for patterns in (
                [p for _, p in self.roles], self._starts,
                [self.singletons] if self.singletons is not None else [],
                [latent.warning for latent in self.latent], self.refusals, self.engine_once)))
        object.__setattr__(self, "_reading", tuple(
            (p, required_literals(p.pattern))
            for p in (*self.corrupting, *self.wrappers, *(s.pattern for s in self.symptoms),
                      *self.harmless, *self.client_faults)
            if not digit_blind(p.pattern)))

    def _kept(self, question: int, text: str, answer: Callable[[str], _T], none: _T) -> _T:
        """`answer(text)`, kept in `_text_memo`: by the text when it is searched without the
        budget; a longer one (the engine's ~3 KB config line, a start line printed at every
        start) by a digest of it, and only when no search ran out of time meanwhile. A text
        that holds none of the texts the question's patterns need gets `none`, what every
        search answers then (`_search`), and is not kept: a DEBUG flood's lines never recur."""
        memo = self._text_memo
        if len(text) <= UNTIMED_CHARS:
            key: tuple[int, str | bytes] = (question, text)
            known = memo.get(key, _UNKNOWN)
            if known is _UNKNOWN:
                if not any(_may_hold(text, needles) for needles in self._needs[question]):
                    return none
                known = answer(text)
                _remember(memo, key, known)
            return cast(_T, known)
        if len(text) > KEPT_LONG_CHARS:
            return answer(text)
        if not any(_may_hold(text, needles) for needles in self._needs[question]):
            return none
        key = (question, hashlib.blake2b(text.encode("utf-8", "surrogatepass"),
                                         digest_size=16).digest())
        known = memo.get(key, _UNKNOWN)
        if known is _UNKNOWN:
            cut = _TIMEOUTS[0]
            known = answer(text)
            if _TIMEOUTS[0] == cut:  # a search that ran out of time might not next time
                _remember(memo, key, known)
        return cast(_T, known)

    def role_of(self, process_name: str) -> Role:
        return self._kept(_ROLE, process_name, self._role_of, Role.OTHER)

    def _role_of(self, process_name: str) -> Role:
        for role, pattern in self.roles:
            if _search(pattern, process_name):
                return role
        return Role.OTHER

    def symptom_of(self, text: str) -> Symptom | None:
        """The first symptom pattern `text` matches. The digit-blind patterns' answer is kept
        per shape of text (`tokenize.shape`); the others are searched every time."""
        if len(text) > UNTIMED_CHARS:  # a long text is searched under the budget: never kept
            return next((s for s in self.symptoms if _search(s.pattern, text)), None)
        shape = shape_key(text)
        first = self._symptom_memo.get(shape)
        if first is None:
            first = next((i for i, (s, blind) in enumerate(zip(self.symptoms, self._symptom_blind))
                          if blind and _search(s.pattern, text)), len(self.symptoms))
            self._symptom_memo.put(shape, first)
        for symptom, blind in zip(self.symptoms[:first], self._symptom_blind):
            if not blind and _search(symptom.pattern, text):
                return symptom
        return self.symptoms[first] if first < len(self.symptoms) else None

    def symptom_raised(self, text: str, code: str | None) -> Symptom | None:
        """The first symptom that needs a place (`raised_at`) which `text`, raised at the source
        line `code`, matches."""
        if not code:
            return None
        return next((s for s in self.raised_symptoms if s.raised_at is not None
                     and _search(s.raised_at, code) and _search(s.pattern, text)), None)

    def reported_elsewhere(self, title: str | None) -> bool:
        """Whether a traceback's heading record is a driver's report of a failure it recorded
        (`reported_titles`): the traceback is what the driver caught, a symptom of a cause in
        another program's output."""
        return title is not None and any(_search(p, title) for p in self.reported_titles)

    def quoted_message(self, title: str) -> str | None:
        """The exception's message a traceback's heading record quotes (`quoting_titles`)."""
        for pattern in self.quoting_titles:
            found = _search(pattern, title)
            if found:
                return str(found.group("message")).strip() or None
        return None

    def interpreter_class(self, text: str) -> str | None:
        """The built-in exception whose message, in the interpreter's own words, is the whole of
        `text` (`interpreter_messages`); None when it is no such message."""
        text = text.strip()
        for name, pattern in self.interpreter_messages:
            if _search(pattern, text):
                return name
        return None

    def unbound_variable(self, text: str) -> str | None:
        """The variable an UnboundLocalError's "Type: message" `text` names (`unbound`)."""
        found = _search(self.unbound_message, text) if self.unbound_message else None
        return str(found.group("variable")) if found else None

    def raised_from_headline(self, message: str, headline: str) -> bool:
        """Whether an exception's `message` is the `headline` of another's (the first sentence
        of its message's first line, without its closing stop) followed by the words that say
        the other happened while this one's code worked (`restated`)."""
        if self.restated is None or len(headline) < _RESTATED_MIN or \
                not message.startswith(headline):
            return False
        return _search(self.restated, message[len(headline):]) is not None

    def binds(self, code: str | None, variable: str) -> bool:
        """Whether the source line `code` binds `variable` (an assignment to it, `with ... as
        it`, `for it in`: `unbound.binds`)."""
        found = _search(self.unbound_binds, code) if code and self.unbound_binds else None
        return found is not None and variable in (
            name.strip("()* ") for name in str(found.group("targets")).split(","))

    def wrapped_cause(self, text: str) -> str | None:
        """The cause's message quoted inside a wrapper's text, if `text` is a wrapper."""
        for pattern in self.wrappers:
            found = _search(pattern, text)
            if found:
                return str(found.group("cause"))
        return None

    def carried_class(self, text: str) -> tuple[str, int | None] | None:
        """For a carrier's text (`carriers`): the class of the exception it carries, printed
        right under it ("" when the carrier does not name it), and the pid of the process that
        raised it (None: not named); None for any other text."""
        for pattern in self.carriers:
            found = _search(pattern, text)
            if found:
                groups = found.groupdict()
                pid = groups.get("pid")
                return str(groups.get("carried") or ""), int(pid) if pid else None
        return None

    def milestone_of(self, text: str) -> MilestoneKind | None:
        present = self._present(text)
        if present is not None and self._milestone_screen.rules_out_given(present):
            return None
        for kind, pattern, needles in self._milestone_table:
            if _may_hold(text, needles, present) and _budgeted(pattern, text):
                return kind
        return None


    def marks_of(self, text: str) -> tuple[MilestoneKind | None, Phase | None]:
        """`(milestone_of(text), phase_of_line(text))`: asked of every line that reaches the
        assembler. What the digit-blind patterns decide is kept per shape of line (a day of
        serving logs metrics and access lines that differ in their numbers only); the others
        are searched every time."""
        if len(text) >= SCREEN_CHARS:  # a long line is screened first, searched under the
            if len(text) > KEPT_LONG_CHARS:  # budget, and kept by its text (a config line)
                return self.milestone_of(text), self.phase_of_line(text)
            return self._long_marks_of(text)
        data = text.encode("utf-8", "surrogatepass")
        shape = data.translate(MASK)  # (shape_key)
        sighted = self._marks_memo.get(shape)
        if sighted is None:
            sighted = self._sighted(text, shape)
            self._marks_memo.put(shape, sighted)
        milestone, phase = sighted.milestone, sighted.phase
        if sighted.classes is not None:  # the patterns that tell digits apart only by class
            key = data.translate(sighted.classes)
            known = self._classed_marks.get(key)
            if known is None:
                known = (_first(self._milestone_table, sighted.classed[0], text, milestone),
                         _first(self._phase_table, sighted.classed[1], text, phase))
                _remember(self._classed_marks, key, known)
            milestone, phase = known
        if sighted.others[0]:  # and those searched every time, before the first found
            milestone = _first(self._milestone_table, sighted.others[0], text, milestone)
        if sighted.others[1]:
            phase = _first(self._phase_table, sighted.others[1], text, phase)
        return (self._milestone_table[milestone][0] if milestone < len(self._milestone_table)
                else None,
                self._phase_table[phase][0] if phase < len(self._phase_table) else None)

    def _sighted(self, text: str, shape: bytes) -> _Sighted:
        """What `marks_of` keeps of a line's shape: the first digit-blind milestone and phase
        patterns the line matches (those of every line of its shape), and the others before
        them that a line of the shape may match (`_shape_may_hold`), split into those whose
        digit classes are known (`digit_classes`) and the others."""
        milestone = _first(self._milestone_table, self._milestone_split[0], text)
        phase = _first(self._phase_table, self._phase_split[0], text)
        candidates = (_shape_may_hold(self._milestone_table, self._milestone_split[1], milestone,
                                      shape),
                      _shape_may_hold(self._phase_table, self._phase_split[1], phase, shape))
        tables = (self._milestone_table, self._phase_table)
        classed = tuple(tuple(i for i in indices if _classes_of(table[i][1]) is not None)
                        for table, indices in zip(tables, candidates))
        others = tuple(tuple(i for i in indices if i not in kept)
                       for indices, kept in zip(candidates, classed))
        patterns = tuple(table[i][1].pattern for table, indices in zip(tables, classed)
                         for i in indices)
        return _Sighted(milestone, phase, (classed[0], classed[1]), (others[0], others[1]),
                        digit_classes(patterns) if patterns else None)

    def _long_marks_of(self, text: str) -> tuple[MilestoneKind | None, Phase | None]:
        key = hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=16).digest()
        kept = self._long_marks.get(key)
        if kept is not None:
            return kept
        cut = _TIMEOUTS[0]
        found = (self.milestone_of(text), self.phase_of_line(text))
        if _TIMEOUTS[0] == cut:  # a search that ran out of time might not next time
            self._long_marks.put(key, found)
        return found

    def start_marker(self, text: str) -> int | None:
        """Which start pattern a start line matched (a run holds each marker once a process)."""
        return self._kept(_START, text, self._start_marker, None)

    def _start_marker(self, text: str) -> int | None:
        return next((index for index, pattern in enumerate(self._starts)
                     if _search(pattern, text)), None)

    def is_singleton(self, process_name: str) -> bool:
        """A process that exists once in a run: another pid of it is another run."""
        return self.singletons is not None and self._kept(_SINGLETON, process_name,
                                                          self._is_singleton, False)

    def _is_singleton(self, process_name: str) -> bool:
        return self.singletons is not None and bool(_search(self.singletons, process_name))

    def is_mechanism(self, cause: str, effect: str) -> bool:
        """Exception type `cause`, which Python printed as the direct cause of `effect`, is only
        how `effect` came about (`mechanisms`: asyncio's timeout cancels, then raises)."""
        return any(_search(a, cause) and _search(b, effect) for a, b in self.mechanisms)

    def interrupts_process(self, exception: str) -> bool:
        """The exception is an operator's interrupt (Ctrl-C), not a failure."""
        return self.interrupts is not None and bool(_search(self.interrupts, exception))

    def handles(self, site: str | None, places: list[str], title: str | None = None) -> bool:
        """vLLM (or its HTTP server) catches and answers a request's error logged at `site`,
        under the record `title`, or raised below one of the frames `places` ("file:function"):
        it fails that request, not the server."""
        key = (site, tuple(places), title)
        known = self._handled_memo.get(key)
        if known is None:
            known = self._handles(site, places, title)
            _remember(self._handled_memo, key, known)
        return known

    def _handles(self, site: str | None, places: list[str], title: str | None) -> bool:
        if any(_search(p, place) for p in self.engine_frames for place in places):
            return False  # the engine's error, which the request's handler only saw
        return bool(site and any(_search(p, site) for p in self.handled_sites)) or bool(
            title and any(_search(p, title) for p in self.handled_titles)) or any(
            _search(p, place) for p in self.handled_frames for place in places)

    def in_request(self, site: str | None, places: list[str]) -> bool:
        """The error happened in the HTTP server while it handled one request: logged at a
        request handler's call site `site` or raised below one of its frames `places`
        ("file:function"), with no engine or start-up frame among them. Kept per (site,
        frames): a day of request errors asks it of one call path again and again."""
        key = (site, tuple(places))
        known = self._request_memo.get(key)
        if known is None:
            known = self._in_request(site, places)
            _remember(self._request_memo, key, known)
        return known

    def digit_decisions(self, text: str) -> tuple[bool, ...]:
        """What the text-classifying patterns that tell digits apart say of `text`: two texts
        of one shape whose answers here are equal are classified alike (the others are
        digit-blind). Asked of every copy of an error: per shape, only the patterns a text of
        the shape may match are asked (`_shape_may_hold`), and those whose digit classes are
        known answer by the text's classes (a token count new in every copy)."""
        reading = self._reading
        if len(text) > UNTIMED_CHARS:  # (_search, with each pattern's required texts found once)
            return tuple([_may_hold(text, needles) and _budgeted(pattern, text) is not None
                          for pattern, needles in reading])
        data = text.encode("utf-8", "surrogatepass")
        shape = data.translate(MASK)
        sighted = self._reading_memo.get(shape)
        if sighted is None:
            candidates = [i for i, (_, needles) in enumerate(reading)
                          if _may_hold_shape(needles, shape)]
            classed = tuple(i for i in candidates if _classes_of(reading[i][0]) is not None)
            sighted = _Candidates(classed, tuple(i for i in candidates if i not in classed),
                                  digit_classes(tuple(reading[i][0].pattern for i in classed))
                                  if classed else None)
            self._reading_memo.put(shape, sighted)
        answers = [False] * len(reading)
        if sighted.classes is not None:
            key = data.translate(sighted.classes)
            known = self._classed_reading.get(key)
            if known is None:
                known = tuple(i for i in sighted.classed
                              if _may_hold(text, reading[i][1])
                              and _budgeted(reading[i][0], text) is not None)
                _remember(self._classed_reading, key, known)
            for index in known:
                answers[index] = True
        for index in sighted.others:
            pattern, needles = reading[index]
            answers[index] = _may_hold(text, needles) and _budgeted(pattern, text) is not None
        return tuple(answers)

    def _in_request(self, site: str | None, places: list[str]) -> bool:
        if any(_search(p, place) for p in (*self.engine_frames, *self.startup_frames)
               for place in places):
            return False
        return bool(site and any(_search(p, site) for p in self.request_sites)) or any(
            _search(p, place) for p in self.request_frames for place in places)

    def ends_on_schedule(self, text: str) -> bool:
        """The error is the job's end as its scheduler or owner decided it (a wall-time limit,
        a preemption, a cancellation)."""
        return any(_search(pattern, text) for pattern in self.scheduler_stops)

    def logged_natively(self, site: str | None, label: str) -> bool:
        """Whether an error record was logged by native code (a C++ logger's call site, NCCL)."""
        return self.native is not None and any(
            _search(self.native, text) for text in (site or "", label) if text)

    def waiting_in(self, text: str, tail: str = "") -> Phase | None:
        """The phase whose set-up step this line says is under way, waiting on its peers
        (`waits`): a working start-up always prints more after it. A line that is one only
        where the log shows other output besides (`shown_with`, searched in `tail`, the log's
        last lines) is not one without it."""
        return next((phase for phase, pattern, shown_with in self.waits
                     if _search(pattern, text)
                     and (shown_with is None or _search(shown_with, tail) is not None)), None)

    def is_unstarted_bar(self, text: str) -> bool:
        """A progress bar that has not advanced: a step begun (or redrawn as it raised), not a
        step taken."""
        return self.unstarted_bars is not None and _search(self.unstarted_bars, text) is not None

    def periodic_wait(self, text: str) -> bool:
        """A hang line a waiting loop prints once each interval (`periodic_waits`)."""
        return any(_search(p, text) is not None for p in self.periodic_waits)

    def startup_wait(self, text: str) -> bool:
        """A hang line that summarises a start-up's waits out of time order (`startup_waits`)."""
        return any(_search(p, text) is not None for p in self.startup_waits)

    def wait_times(self, text: str) -> int:
        """The intervals a hang line stands for: its periodic wait's `times` group when the line
        folds repeats into one (kubectl's `(x20 over 10m)`), else one."""
        for pattern in self.periodic_waits:
            found = _search(pattern, text)
            if found is not None:
                times = found.groupdict().get("times")
                return max(1, int(times)) if times else 1
        return 1

    def latent_warning(self, text: str) -> bool:
        """The warning reports an exception that may be the cause of a later error."""
        return self._kept(_LATENT, text, self._latent_warning, False)

    def _latent_warning(self, text: str) -> bool:
        return any(_search(latent.warning, text) for latent in self.latent)

    def latent_record(self, text: str) -> bool:
        """The error record states a condition that may be the cause of a later error, at
        whatever level it was logged (`latent.any_level`)."""
        return any(latent.any_level and _search(latent.warning, text) for latent in self.latent)

    def client_fault(self, text: str) -> bool:
        """A request's error whose text says the client's request does not fit the deployment's
        limits (`requests.clients`): vLLM refuses that request, by design. Not when the message's
        own numbers say the completion the client asks for (`budget`) fills the context
        (`context`) alone: no prompt of that client fits, every request of its fails."""
        found = False
        for pattern in self.client_faults:
            match = _search(pattern, text)
            if match is None:
                continue
            found = True
            groups = match.groupdict()
            budget, context = groups.get("budget"), groups.get("context")
            if budget is not None and context is not None and int(budget) >= int(context):
                return False
        return found

    def failing_warning(self, text: str) -> bool:
        """The warning is logged only while a model step's exception is handled and quotes an
        error (`failing_warnings`): the step failed, whatever the record's level."""
        return any(_search(pattern, text) for pattern in self.failing_warnings)

    def refusal_warning(self, text: str) -> bool:
        """The warning says the engine dropped a request it could not run (`refusals`)."""
        return self._kept(_REFUSAL, text, self._refusal_warning, False)

    def _refusal_warning(self, text: str) -> bool:
        return any(_search(pattern, text) for pattern in self.refusals)

    def states_failure(self, text: str) -> bool:
        """The untyped, unlevelled line says in its own words that a binary does not fit where
        it runs (`pasted`): an error when pasted alone."""
        return any(_search(pattern, text) for pattern in self.pasted)

    def pythons_own(self, message: str) -> bool:
        """The message is worded as Python itself words an error (`python_messages`): whoever
        printed it, a vLLM template that reads the same does not say vLLM did."""
        return any(_search(pattern, message) for pattern in self.python_messages)

    def follows_handled(self, text: str) -> bool:
        """Knowledge says the error `text` is what a client makes of an answer a parser's
        handled error left short (`handled.explains`)."""
        return any(_search(pattern, text) for pattern in self.handled_effects)

    def explains(self, warning: str, text: str) -> bool:
        """Knowledge says the error `text` follows from the exception the `warning` reported."""
        return any(_search(latent.warning, warning) and
                   any(_search(pattern, text) for pattern in latent.explains)
                   for latent in self.latent)

    def probed_package(self, exception: str, message: str,
                       frames: tuple[Frame, ...]) -> str | None:
        """The optional package whose trial import by vLLM's probe this exception is the failure
        of (`optional_imports`): an import failure's class, a message that names the package,
        and no frames but the probe's. None for any other exception."""
        if self.optional_package is None or self.optional_classes is None \
                or _search(self.optional_classes, exception) is None:
            return None
        if frames and not any(_search(p, f"{frame.file}:{frame.function}")
                              for frame in frames for p in self.optional_frames):
            return None  # raised through code of its own: an import that was not the probe's
        found = _search(self.optional_package, message.split("\n", 1)[0])
        return found.group("package") if found is not None else None

    def names_package(self, package: str, text: str) -> bool:
        """The error `text` names the optional `package` in one of its spellings (DeepGEMM for
        deep_gemm): it follows from that package's failed import (`optional_imports`)."""
        return any(name == package and _search(pattern, text) is not None
                   for name, pattern in self.optional_names)

    def dooms_startup(self, warning: str) -> bool:
        """Knowledge says no engine can start after the `warning` (`latent.dooms_startup`)."""
        return any(latent.dooms_startup and _search(latent.warning, warning)
                   for latent in self.latent)

    def diagnostic(self, frames: tuple[Frame, ...]) -> bool:
        """The traceback runs through a script run to describe the environment for a report
        (`diagnostics.frames`): its error is that script's own."""
        return any(_search(p, frame.file) for frame in frames for p in self.diagnostic_frames)

    def diagnosed(self, warning: str) -> bool:
        """The latent warning reports a failure a diagnostic script's later error leaves
        standing (`diagnostics.reported`): the failure that script was run to report."""
        return any(_search(latent.warning, warning) for latent in self.latent) \
            and any(_search(p, warning) for p in self.diagnosed_warnings)

    def is_death(self, text: str) -> bool:
        """The fatal error `text` is its process's native death (`deaths`)."""
        return any(_search(pattern, text) for pattern in self.deaths)

    def failed_answer(self, text: str) -> str | None:
        """`HTTP <code>` when an access line answers a request with a server error. Where the
        code is, if anywhere, is kept by the line's digit classes (a port is new on every
        line; the pattern tells only a `5` from other digits)."""
        if self.failed_answers is None:
            return None
        classes = self._failed_classes
        if classes is None or len(text) > UNTIMED_CHARS:
            found = _search(self.failed_answers, text)
            return f"HTTP {found.group('code')}" if found else None
        key = text.encode("utf-8", "surrogatepass").translate(classes)
        memo = self._classed_failed
        where = memo.get(key, _UNKNOWN)
        if where is _UNKNOWN:
            found = _search(self.failed_answers, text)
            where = found.span("code") if found else None
            _remember(memo, key, where)
        return f"HTTP {text[where[0]:where[1]]}" if isinstance(where, tuple) else None

    def tears_down(self, places: list[str]) -> bool:
        """A traceback (its frames' "file:function", outermost first; an interpreter's `<string>`
        of `python -c` left out) raised in a helper process's teardown bookkeeping, which prints
        it and goes on (`teardown`)."""
        places = [p for p in places if not p.startswith("<string>:")]
        return bool(places) and any(_search(p, places[0]) for p in self.teardown_outermost)

    def reports_from_loop(self, text: str) -> bool:
        """The error record is asyncio's event loop reporting what no code awaited, which it
        goes on from (`teardown.loop_reports`)."""
        return any(_search(p, text) for p in self.loop_reports)

    def cancels(self, text: str) -> bool:
        """The exception ("Type: message") is a cancellation, or a closed loop's refusal, that a
        program's loop raises as it closes (`teardown.cancellations`)."""
        return any(_search(p, text) for p in self.cancellations)

    def asks_for_work(self, access: str) -> bool:
        """The access line's request is a client's of the server's API (`work_requests`), not a
        page outside it (`GET /favicon.ico`)."""
        return any(_search(p, access) for p in self.work_requests)

    def exits_offline(self, text: str) -> bool:
        """The error is an offline client's report that its engine died, which its program's
        exit prints after a finished batch (`offline_exits`)."""
        return any(_search(pattern, text) for pattern in self.offline_exits)

    def built_half(self, title: str | None, text: str) -> bool:
        """An unraisable exception (its `Exception ignored ...` title and "Type: message") of a
        destructor that found its own object half built (`unraisable.half_built`): a symptom of
        the constructor's failure."""
        return title is not None and self.half_built is not None \
            and _search(self.half_built, f"{title}\n{text}") is not None

    def kills_itself(self, text: str) -> bool:
        """The record says its process is about to kill its own process tree (`self_kills`)."""
        return any(_search(pattern, text) for pattern in self.self_kills)

    def transfers(self, bar: str) -> bool:
        """An unfinished progress bar of a download under way (`transfer_bars`)."""
        return any(_search(pattern, bar) for pattern in self.transfer_bars)

    def kills_idle(self, text: str) -> bool:
        """The error is a kill whose report names no reason (`idle_kills`): after the run was
        up and while it was not serving, the run's end as its owner decided it."""
        return any(_search(pattern, text) for pattern in self.idle_kills)

    def message_goes_on_indented(self, exception: str) -> bool:
        """The exception's message goes on over indented lines under it, one line each
        (`indented_messages`: pydantic's ValidationError, one line per failed check)."""
        return any(_search(p, exception.strip()) for p in self.indented_messages)

    def message_goes_on_in_records(self, message: str) -> bool:
        """The exception's message goes on in the bare ERROR records printed right after it
        (`recorded_messages`: torch_npu's text for a failed ACL call)."""
        return any(_search(p, message) for p in self.recorded_messages)

    def native_stack_follows(self, text: str) -> bool:
        """The fatal line `text` ("label: message") is a native crash handler's banner whose
        stack follows it, innermost first, a bare indented line a symbol (`native_stacks`)."""
        return any(_search(p, text) for p in self.native_stacks)

    def whole_line(self, text: str) -> bool:
        """The error line `text` ("label: text") is a report whole on its line: the lines after
        it are not its message (`whole_lines`)."""
        return any(_search(p, text) for p in self.whole_lines)

    def restates(self, wrapper: str | None) -> bool:
        """The wrapper a line was printed behind says the line restates an error reported in
        full elsewhere (pytest's short test summary, `FAILED tests/x.py::test - `)."""
        return wrapper is not None and any(_search(p, wrapper) for p in self.restatements)

    def heads_test(self, text: str) -> bool:
        """A test report's section line heads one test's section (pytest's `____ test_x ____`),
        not the session's (`=== FAILURES ===`)."""
        return any(_search(p, text) for p in self.test_headings)

    def program_exits(self, diagnostic: str) -> bool:
        """A tool's own error line (`prog: error: ...`) names a program that exits on it and
        may be the one that starts vLLM (`exits.programs`)."""
        return any(_search(p, diagnostic) for p in self.exit_programs)

    def declares_harmless(self, text: str) -> bool:
        """The record's text says, without a condition, that it does not stop the program, or
        it is a library's probe for metadata that it goes on without (`probes`), or it states
        what the program goes on with: a fallback, a setting ignored, a cost in speed alone
        (`goes_on`)."""
        return any(_search(pattern, text) for pattern in self.harmless)

    def says_goes_on(self, text: str) -> bool:
        """The record's text states what the program goes on with: a fallback, a setting
        ignored, a cost in speed alone (`goes_on`)."""
        return any(_search(pattern, text) for pattern in self.goes_on)

    def counts_answers(self, bar: str) -> bool:
        """An unfinished progress bar that counts answers the engine gave (`answered_bars`)."""
        return any(_search(pattern, bar) for pattern in self.answered_bars)

    def is_exit_noise(self, text: str) -> bool:
        """A line a program prints only as it exits, with no error of its own (`exit_noise`)."""
        return any(_search(pattern, text) for pattern in self.exit_noise)

    def exits(self, places: list[str]) -> bool:
        """A traceback (its frames' "file:function", outermost first) that reached the top of a
        vLLM program uncaught: the program exited (`exits`)."""
        return bool(places) and self.exit_through is not None \
            and any(_search(p, places[0]) for p in self.exit_outermost) \
            and any(_search(self.exit_through, place) for place in places)

    def is_engine_once(self, text: str) -> bool:
        """A line an engine prints once for itself (`engine_once`: its KV cache sized)."""
        return self._kept(_ENGINE_ONCE, text, self._is_engine_once, False)

    def _is_engine_once(self, text: str) -> bool:
        return any(_search(pattern, text) for pattern in self.engine_once)

    def is_child(self, process_name: str) -> bool:
        """A process a deployment starts itself, after its API server (`children`)."""
        return self.children is not None and bool(_search(self.children, process_name))

    def executors_differ(self, names: Iterable[str]) -> bool:
        """Both Ray's worker actors and workers a deployment starts itself print: an engine
        runs its workers one way, so two deployments write into the log (`ray_actors`)."""
        seen = set(names)
        return self.ray_actors is not None and self.own_workers is not None \
            and any(_search(self.ray_actors, name) for name in seen) \
            and any(_search(self.own_workers, name) for name in seen)

    def is_ray_actor(self, process_name: str) -> bool:
        """A Ray actor running a deployment's worker (`ray_actors`)."""
        return self.ray_actors is not None and bool(_search(self.ray_actors, process_name))

    def corrupts(self, text: str) -> bool:
        """The error leaves its process unable to work (a sticky CUDA error)."""
        return any(_search(pattern, text) for pattern in self.corrupting)

    def phase_of_line(self, text: str) -> Phase | None:
        """The lifecycle phase a line begins, if it is a phase line."""
        present = self._present(text)
        if present is not None and self._phase_screen.rules_out_given(present):
            return None
        for phase, pattern, needles in self._phase_table:
            if _may_hold(text, needles, present) and _budgeted(pattern, text):
                return phase
        return None

    def _present(self, text: str) -> frozenset[str] | None:
        """The texts of both tables a long line holds; None for a short one (tested one by
        one: cheaper there than a call into RE2)."""
        if len(text) < SCREEN_CHARS:
            return None
        last = self._last_long
        if last[0] is not text:
            last[0], last[1] = text, self._long.present(text)
        return last[1]  # type: ignore[return-value]

    def phase_of_frames(self, places: list[str]) -> tuple[Phase, str] | None:
        """The phase the frames (`file:function` texts) show, and the frame that shows it."""
        for phase, pattern in self.phase_frames:
            for place in places:
                if _search(pattern, place):
                    return phase, place
        return None



# characters a headline holds at least to be restated (`raised_from_headline`): a word or two
# (`Error`, `CUDA error`) begins too many messages to say which exception another names
_RESTATED_MIN = 12
_MEMO = 4096  # decisions kept per kind: the shapes that recur return
_UNKNOWN = object()  # a text not asked yet (None is an answer)
_ROLE, _START, _SINGLETON, _LATENT, _REFUSAL, _ENGINE_ONCE = range(6)  # `_kept`'s questions


@dataclass(frozen=True, slots=True)
class _Sighted:
    """What `marks_of` keeps of a shape of line (`Causality._sighted`)."""

    milestone: int  # the first digit-blind pattern of each table a line of the shape matches
    phase: int  # (the table's length: none)
    # the patterns before those that tell digits apart and that a line of the shape may match:
    # (milestones, phases) whose digit classes are known, and the others
    classed: tuple[tuple[int, ...], tuple[int, ...]]
    others: tuple[tuple[int, ...], tuple[int, ...]]
    classes: bytes | None  # the classed patterns' digit classes (None: there are none)


@dataclass(frozen=True, slots=True)
class _Candidates:
    """The patterns of a list that a shape of line may match: those whose digit classes are
    known, with the classes of them all, and the others (searched every time)."""

    classed: tuple[int, ...]
    others: tuple[int, ...]
    classes: bytes | None  # (None: no classed pattern)


def _classes_of(pattern: regex.Pattern[str]) -> bytes | None:
    return digit_classes((pattern.pattern,))


def _remember(memo: dict[_K, _V], key: _K, value: _V) -> None:
    if len(memo) >= _MEMO:
        memo.clear()
    memo[key] = value


def _split_blind(table: tuple[tuple[_K, regex.Pattern[str]], ...]
                 ) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """(indices of the digit-blind patterns of `table`, indices of the others)."""
    blind = [digit_blind(pattern.pattern) for _, pattern in table]
    return (tuple(i for i, b in enumerate(blind) if b),
            tuple(i for i, b in enumerate(blind) if not b))


def _first(table: tuple[tuple[_K, regex.Pattern[str], tuple[str, ...]], ...],
           indices: tuple[int, ...], text: str, limit: int | None = None) -> int:
    """The first of `indices` (ascending) before `limit` whose pattern matches `text`
    (`limit`, or the table's length: none)."""
    end = len(table) if limit is None else limit
    for index in indices:
        if index >= end:
            break
        _, pattern, needles = table[index]
        if _may_hold(text, needles) and _budgeted(pattern, text):
            return index
    return end


def _shape_may_hold(table: tuple[tuple[_K, regex.Pattern[str], tuple[str, ...]], ...],
                    indices: tuple[int, ...], limit: int, shape: bytes) -> tuple[int, ...]:
    """Those of `indices` before `limit` whose patterns a line of the shape `shape` (shape_key)
    may match: all but those none of whose required texts is in the shape, each masked as the
    shape is (a text in a line is, masked, in the line's shape: masking changes each digit
    alone, so a required text with digits rules a pattern out too: `[c10d] The client socket`
    is in no access line, whose shape holds no `[c00d]`)."""
    return tuple(index for index in indices if index < limit and _may_hold_shape(
        table[index][2], shape))


def _may_hold_shape(needles: tuple[str, ...], shape: bytes) -> bool:
    if not needles:
        return True
    return any(shape_key(needle) in shape for needle in needles)


def _search(pattern: regex.Pattern[str], text: str) -> regex.Match[str] | None:
    """A search under the budget; running out of it is no match, never a crash (a 1 MiB line
    of one repeated character made a symptom pattern time out and the run end in a traceback)."""
    if not _may_hold(text, required_literals(pattern.pattern)):
        return None
    return _budgeted(pattern, text)


def _may_hold(text: str, needles: tuple[str, ...],
              present: frozenset[str] | None = None) -> bool:
    """Whether `text` holds one of the texts a pattern's matches contain (none known: True);
    `present`, when given, is the set of such texts `text` holds (Needles)."""
    if present is not None:
        return not needles or not present.isdisjoint(needles)
    for needle in needles:
        if needle in text:
            return True
    return not needles


_TIMEOUTS = [0]  # searches that ran out of time so far: what was decided then is not kept


def _budgeted(pattern: regex.Pattern[str], text: str) -> regex.Match[str] | None:
    if len(text) <= UNTIMED_CHARS:  # no budget, and no keyword: parsing one costs ~1 us
        return pattern.search(text)
    try:
        return pattern.search(text, timeout=PATTERN_TIMEOUT)
    except TimeoutError:
        _TIMEOUTS[0] += 1
        return None


def load_causality(path: Path | None = None) -> Causality:
    """Compile a causality file (the shipped one by default)."""
    path = path or data_dir("signatures") / "causality.yaml"
    data, _ = load_yaml(path)
    if not isinstance(data, dict):
        raise SignatureError("expected a mapping", location=str(path))

    def compile_(text: object, where: str) -> regex.Pattern[str]:
        try:
            return regex.compile(str(text))
        except regex.error as exc:
            raise SignatureError(f"invalid pattern in {where}: {exc}", location=str(path)) from None

    roles = tuple((Role(item["role"]), compile_(item["name"], "roles"))
                  for item in data.get("roles", []))
    every = tuple(
        Symptom(compile_(item["pattern"], "symptoms"),
                None if item.get("points_to", "any") == "any" else Role(item["points_to"]),
                compile_(item["raised_at"], "symptoms") if "raised_at" in item else None)
        for item in data.get("symptoms", []))
    symptoms = tuple(s for s in every if s.raised_at is None)
    wrappers = tuple(compile_(item["pattern"], "wrappers") for item in data.get("wrappers", []))
    milestones = tuple((MilestoneKind(kind), compile_(p, "milestones"))
                       for kind, patterns in data.get("milestones", {}).items()
                       for p in patterns)
    corrupting = tuple(compile_(p, "corrupting") for p in data.get("corrupting", []))
    singletons = compile_(data["singletons"], "singletons") if "singletons" in data else None
    interrupts = compile_(data["interrupts"], "interrupts") if "interrupts" in data else None
    native = compile_(data["native"], "native") if "native" in data else None
    phases = data.get("phases", [])
    phase_lines = tuple((Phase(item["phase"]), compile_(p, "phases"))
                        for item in phases for p in item.get("lines", []))
    phase_frames = tuple((Phase(item["phase"]), compile_(p, "phases"))
                         for item in phases for p in item.get("frames", []))
    handled = data.get("handled", {})
    handled_titles = tuple(compile_(p, "handled") for p in handled.get("titles", []))
    handled_sites = tuple(compile_(p, "handled") for p in handled.get("sites", []))
    handled_frames = tuple(compile_(p, "handled") for p in handled.get("frames", []))
    engine_frames = tuple(compile_(p, "handled") for p in handled.get("unless_frames", []))
    requests = data.get("requests", {})
    request_sites = tuple(compile_(p, "requests") for p in requests.get("sites", []))
    request_frames = tuple(compile_(p, "requests") for p in requests.get("frames", []))
    startup_frames = tuple(compile_(p, "requests") for p in requests.get("unless_frames", []))
    try:
        request_savers = frozenset(MilestoneKind(k) for k in requests.get("saved_by", ["serving"]))
        request_answer = MilestoneKind(requests["answered_by"]) if "answered_by" in requests \
            else None
    except ValueError as exc:
        raise SignatureError(f"invalid milestone kind in requests: {exc}",
                             location=str(path)) from None
    exits = data.get("exits", {})
    diagnostics = data.get("diagnostics", {})
    unraisable = data.get("unraisable", {})
    unbound = data.get("unbound", {})
    scheduler_stops = tuple(compile_(p, "scheduler_stops")
                            for p in data.get("scheduler_stops", []))
    waits = tuple((Phase(item["phase"]), compile_(p, "waits"),
                   compile_(item["shown_with"], "waits") if "shown_with" in item else None)
                  for item in data.get("waits", []) for p in item.get("lines", []))
    return Causality(roles, symptoms, wrappers, milestones, corrupting, singletons, phase_lines,
                     phase_frames, interrupts, handled_titles, handled_sites, handled_frames,
                     engine_frames, native, request_sites, request_frames, startup_frames,
                     scheduler_stops, request_savers, request_answer, waits,
                     compile_(data["unstarted_bars"], "unstarted_bars")
                     if "unstarted_bars" in data else None,
                     tuple([*(compile_(p, "harmless") for p in data.get("harmless", [])),
                            *(compile_(p, "probes") for p in data.get("probes", [])),
                            *(compile_(p, "goes_on") for p in data.get("goes_on", []))]),
                     tuple(Latent(compile_(item["warning"], "latent"),
                                  tuple(compile_(p, "latent") for p in item.get("explains", [])),
                                  bool(item.get("dooms_startup", False)),
                                  bool(item.get("any_level", False)))
                           for item in data.get("latent", [])),
                     compile_(data["failed_answers"], "failed_answers")
                     if "failed_answers" in data else None,
                     tuple((compile_(item["cause"], "mechanisms"),
                            compile_(item["effect"], "mechanisms"))
                           for item in data.get("mechanisms", [])),
                     tuple(s for s in every if s.raised_at is not None),
                     tuple(compile_(p, "exits") for p in exits.get("outermost", [])),
                     compile_(exits["through"], "exits") if "through" in exits else None,
                     compile_(data["children"], "children") if "children" in data else None,
                     tuple(compile_(p, "engine_once") for p in data.get("engine_once", [])),
                     tuple(compile_(p, "deaths") for p in data.get("deaths", [])),
                     int(unraisable.get("within", 0)),
                     int(data.get("exit_reports", {}).get("within", 0)),
                     tuple(compile_(p, "restatements") for p in data.get("restatements", [])),
                     tuple(compile_(p, "exits") for p in exits.get("programs", [])),
                     tuple(compile_(p, "refusals") for p in data.get("refusals", [])),
                     tuple(compile_(p, "requests") for p in requests.get("clients", [])),
                     tuple(compile_(p, "diagnostics") for p in diagnostics.get("frames", [])),
                     tuple(compile_(p, "diagnostics") for p in diagnostics.get("reported", [])),
                     compile_(data["ray_actors"], "ray_actors") if "ray_actors" in data else None,
                     compile_(data["own_workers"], "own_workers") if "own_workers" in data
                     else None,
                     tuple(compile_(p, "handled") for p in handled.get("explains", [])),
                     tuple(compile_(p, "pasted") for p in data.get("pasted", [])),
                     tuple(compile_(p, "quoting_titles")
                           for p in data.get("quoting_titles", [])),
                     tuple(compile_(p, "whole_lines") for p in data.get("whole_lines", [])),
                     tuple(compile_(p, "teardown")
                           for p in data.get("teardown", {}).get("outermost", [])),
                     tuple(compile_(p, "indented_messages")
                           for p in data.get("indented_messages", [])),
                     tuple(compile_(p, "native_stacks") for p in data.get("native_stacks", [])),
                     tuple(compile_(p, "work_requests") for p in data.get("work_requests", [])),
                     tuple(compile_(p, "idle_kills") for p in data.get("idle_kills", [])),
                     tuple(compile_(p, "offline_exits") for p in data.get("offline_exits", [])),
                     tuple(str(line) for line in data.get("refused_advice", [])),
                     tuple(compile_(p, "failing_warnings")
                           for p in data.get("failing_warnings", [])),
                     compile_(data["engine_stats"], "engine_stats") if "engine_stats" in data
                     else None,
                     tuple(compile_(p, "python_messages")
                           for p in data.get("python_messages", [])),
                     tuple(compile_(p, "teardown")
                           for p in data.get("teardown", {}).get("loop_reports", [])),
                     tuple(compile_(p, "teardown")
                           for p in data.get("teardown", {}).get("cancellations", [])),
                     tuple(compile_(p, "periodic_waits")
                           for p in data.get("periodic_waits", [])),
                     tuple(compile_(p, "carriers") for p in data.get("carriers", [])),
                     tuple(compile_(p, "recorded_messages")
                           for p in data.get("recorded_messages", [])),
                     tuple((str(item["class"]), compile_(item["pattern"], "interpreter_messages"))
                           for item in data.get("interpreter_messages", [])),
                     compile_(unbound["message"], "unbound") if "message" in unbound else None,
                     compile_(unbound["binds"], "unbound") if "binds" in unbound else None,
                     tuple(compile_(p, "startup_waits")
                           for p in data.get("startup_waits", [])),
                     compile_(data["restated"], "restated") if "restated" in data else None,
                     tuple(compile_(p, "test_headings") for p in data.get("test_headings", [])),
                     tuple(compile_(p, "goes_on") for p in data.get("goes_on", [])),
                     tuple(compile_(p, "exit_noise") for p in data.get("exit_noise", [])),
                     tuple(compile_(p, "answered_bars") for p in data.get("answered_bars", [])),
                     compile_(unraisable["half_built"], "unraisable")
                     if "half_built" in unraisable else None,
                     *_optional_imports(data.get("optional_imports", {}), compile_),
                     tuple(compile_(p, "self_kills")
                           for p in data.get("self_kills", {}).get("records", [])),
                     int(data.get("self_kills", {}).get("within", 0)),
                     tuple(compile_(p, "transfer_bars") for p in data.get("transfer_bars", [])),
                     reported_titles=tuple(compile_(p, "reported_titles")
                                           for p in data.get("reported_titles", [])))


def _optional_imports(data: dict[str, object],
                      compile_: Callable[[object, str], regex.Pattern[str]]
                      ) -> tuple[regex.Pattern[str] | None, regex.Pattern[str] | None,
                                 tuple[regex.Pattern[str], ...],
                                 tuple[tuple[str, regex.Pattern[str]], ...]]:
    """`optional_imports` compiled: a message names a package by a path component
    (`.../deep_gemm/_C...so`) or as a module (`'deep_gemm.jit'`); a later error names it by any
    spelling of its words (deep_gemm, deep-gemm, DeepGEMM)."""
    packages = [str(p) for p in cast("list[object]", data.get("packages") or [])]
    if not packages:
        return None, None, (), ()
    named = "|".join(regex.escape(p) for p in packages)
    package = compile_(rf"(?:[/\\]|')(?P<package>{named})(?=[/\\.']|$)", "optional_imports")
    classes = compile_(data["classes"], "optional_imports") if "classes" in data else None
    frames = tuple(compile_(p, "optional_imports")
                   for p in cast("list[object]", data.get("frames") or []))
    names = tuple((p, compile_(r"(?i)(?<![a-z0-9])" + r"[_\- ]?".join(
        regex.escape(part) for part in p.split("_")) + r"(?![a-z0-9])", "optional_imports"))
        for p in packages)
    return package, classes, frames, names


@cache
def default_causality() -> Causality:
    """The shipped causality knowledge, loaded once: from its compiled copy when one was kept
    for these bytes of causality.yaml and this code (compiledcopy.py), else compiled and kept.
    The copy holds the fields read from the file; the tables derived from them are built as
    always (`__post_init__`)."""
    here = Path(__file__)
    return kept("causality", data_dir("signatures") / "causality.yaml",
                (here, here.with_name("model.py")), load_causality, Causality,
                lambda causality: {item.name: getattr(causality, item.name)
                                   for item in fields(causality) if item.init},
                lambda values: Causality(**values))
