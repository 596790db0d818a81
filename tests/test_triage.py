"""`logsleuth triage`: grouping, formats, broken files, the cache, exit codes, Ray == local."""

from __future__ import annotations

import csv
import io
import json
import os
import shutil
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from logsleuth.cli import main
from logsleuth.cli import triage as _triage_command  # noqa: F401  (registers `triage` on main)
from logsleuth.errors import LogsleuthError
from logsleuth.model import Verdict
from logsleuth.triage import Engine, GroupKind, Status, TriageResult, triage
from logsleuth.triage.cache import ReportCache, analyser_version
from logsleuth.triage.engines import WORKER_DIED, run_local
from logsleuth.triage.model import Explained
from logsleuth.triage.work import explain_path

CORPUS = Path(__file__).parent / "fixtures" / "corpus"
# case directory in the fixtures -> the fingerprint triage must give it
CASES = {
    "startup/sampler-warmup-oom-max-num-seqs": "signature:cuda-oom-sampler-warmup",
    "runtime/sampler-warmup-oom-1024-seqs-rank7": "signature:cuda-oom-sampler-warmup",
    "startup/tp-size-not-dividing-heads-32-by-3": "signature:tp-size-not-dividing-heads",
    # two start-ups whose cause is cut off: one group, the family that says so (matched on
    # the symptom), whatever the cut-off causes were
    "startup/gpt-oss-120b-h100-kv-cache-symptom-only": "signature:startup-cause-not-in-log",
    "seed/seed-kimi-k25-nvfp4-sm120-tail30": "signature:startup-cause-not-in-log",
    "long/healthy-dgx-spark-sigterm-shutdown": "no_failure",
}
HEALTHY = "long/healthy-dgx-spark-sigterm-shutdown"
# A failure no signature knows, in two wordings that differ only in numbers and paths: raised by a
# plugin outside vLLM (a plain error raised by vLLM's own code has a family, vllm-internal-error).
UNKNOWN = """\
INFO 05-01 10:00:00 [api_server.py:100] vLLM API server version 0.9.0
ERROR 05-01 10:00:01 [core.py:500] EngineCore failed to start.
ERROR 05-01 10:00:01 [core.py:500] Traceback (most recent call last):
ERROR 05-01 10:00:01 [core.py:500]   File "/usr/lib/python3/site-packages/widgetlib/widget.py", \
line 12, in frobnicate
ERROR 05-01 10:00:01 [core.py:500]     raise ZeroDivisionError(message)
ERROR 05-01 10:00:01 [core.py:500] ZeroDivisionError: frobnicator {n} lost {m} sprockets in {path}
"""
DAY = 86_400 * 10**9
EPOCH = 1_767_225_600 * 10**9  # 2026-01-01T00:00:00Z


def copy_cases(target: Path, names: list[str] | None = None) -> dict[str, Path]:
    """The fixture cases as `<case>/log.txt` (with their case.yaml) under `target`, each with
    its own day as mtime, in the order of CASES."""
    paths: dict[str, Path] = {}
    for day, name in enumerate(list(CASES) if names is None else names):
        shutil.copytree(CORPUS / name, target / name)
        log = target / name / "log.txt"
        os.utime(log, ns=(EPOCH + day * DAY, EPOCH + day * DAY))
        paths[name] = log
    return paths


def run(*args: str) -> Result:
    return CliRunner().invoke(main, ["triage", *args])


@pytest.fixture(scope="module")
def tree(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("logs")
    copy_cases(root)
    return root


@pytest.fixture(scope="module")
def local(tree: Path) -> TriageResult:
    return triage([tree], recursive=True, jobs=2)


# ---- grouping ------------------------------------------------------------------------------------

@pytest.mark.parametrize(("name", "fingerprint"), CASES.items())
def test_each_case_gets_its_fingerprint(local: TriageResult, tree: Path, name: str,
                                        fingerprint: str) -> None:
    case = next(c for c in local.cases if c.path == str(tree / name / "log.txt"))
    assert case.status is Status.REPORTED
    assert case.fingerprint == fingerprint


def test_groups_count_their_cases_and_span_their_logs_own_times(local: TriageResult) -> None:
    from logsleuth.triage.seen import parse_log_time

    groups = {g.fingerprint: g for g in local.groups}
    assert sorted(groups) == sorted(set(CASES.values()))
    sampler = groups["signature:cuda-oom-sampler-warmup"]
    assert sampler.count == 2 and sampler.seen_in_logs
    # the root causes' own timestamps (vLLM prints no year: the year is the file's), not mtimes
    times = [parse_log_time(c.cause.time, c.file.mtime_ns) for c in sampler.cases
             if c.cause is not None and c.cause.time and c.file is not None]
    assert len(times) == 2 and all(t is not None and t <= EPOCH + DAY for t in times)
    assert (sampler.first_seen_ns, sampler.last_seen_ns) == (min(times), max(times))  # type: ignore[type-var]
    assert times == sorted(times, reverse=True)  # newest first
    assert [g.kind for g in local.groups] == sorted((g.kind for g in local.groups),
                                                   key=list(GroupKind).index)


def test_only_log_files_are_taken_from_directories(local: TriageResult) -> None:
    assert len(local.cases) == len(CASES)  # case.yaml beside each log.txt is not a log
    assert all(c.path.endswith("log.txt") for c in local.cases)


@pytest.mark.parametrize(("args", "expected"), [
    ((), 0),  # a directory's own files only
    (("--recursive",), len(CASES)),
    (("--recursive", "--glob", "*.yaml"), len(CASES)),  # case.yaml, read as a (healthy) log
    (("--recursive", "--glob", "*.nothing"), 0),
])
def test_discovery_options(tree: Path, tmp_path: Path, args: tuple[str, ...],
                           expected: int) -> None:
    result = run(*args, "--no-cache", "--format", "json", str(tree))
    assert json.loads(result.stdout)["summary"]["logs"] == expected


def test_a_file_named_directly_is_taken_whatever_its_name_and_only_once(tmp_path: Path) -> None:
    log = copy_cases(tmp_path, [HEALTHY])[HEALTHY]
    odd = tmp_path / "vllm.stdout"
    odd.symlink_to(log)
    result = triage([odd, log, tmp_path], recursive=True)
    assert [c.path for c in result.cases] == [str(odd)]


def test_unmatched_failures_group_by_masked_message(tmp_path: Path) -> None:
    (tmp_path / "a.log").write_text(UNKNOWN.format(n=17, m=4096, path="/tmp/run-3/spool"))
    (tmp_path / "b.log").write_text(UNKNOWN.format(n=2, m=8, path="/var/spool/x"))
    (group,) = triage([tmp_path]).groups
    assert group.kind is GroupKind.UNMATCHED
    assert group.count == 2
    assert group.title == "ZeroDivisionError: frobnicator <num> lost <num> sprockets in <path>"


def test_failures_only_a_fallback_knows_are_not_one_group(tmp_path: Path) -> None:
    # both get the class's last resort (signatures/fallback/): it names no failure, so the
    # cases group by their messages, as failures no signature knows
    (tmp_path / "a.log").write_text(UNKNOWN.format(n=17, m=4096, path="/tmp/run-3/spool"))
    (tmp_path / "b.log").write_text(UNKNOWN.format(n=2, m=8, path="/x").replace(
        "ZeroDivisionError: frobnicator", "OverflowError: widget"))
    groups = triage([tmp_path]).groups
    assert [g.kind for g in groups] == [GroupKind.UNMATCHED] * 2


# ---- formats -------------------------------------------------------------------------------------

def test_json_lists_every_case_with_verdict_and_signature(tree: Path) -> None:
    result = run("--recursive", "--no-cache", "--format", "json", str(tree))
    data = json.loads(result.stdout)
    assert data["schema"] == "logsleuth.triage/1"
    by_path = {c["path"]: c for c in data["cases"]}
    assert len(by_path) == len(CASES)
    for name, fingerprint in CASES.items():
        case = by_path[str(tree / name / "log.txt")]
        assert case["verdict"] in {v.value for v in Verdict}
        assert case["fingerprint"] == fingerprint
        signature = case["signature"]["id"] if case["signature"] else None
        assert signature == (fingerprint.partition(":")[2] if fingerprint.startswith("sig")
                             else None)
    assert sum(g["count"] for g in data["groups"]) == len(CASES)
    assert data["summary"]["logs"] == len(CASES)


def test_jsonl_is_one_case_per_line(tree: Path) -> None:
    lines = run("--recursive", "--no-cache", "--format", "jsonl", str(tree)).stdout.splitlines()
    assert sorted(json.loads(line)["fingerprint"] for line in lines) == sorted(CASES.values())


def test_csv_is_one_row_per_group(tree: Path) -> None:
    text = run("--recursive", "--no-cache", "--format", "csv", "--examples", "1",
               str(tree)).stdout
    rows = list(csv.DictReader(io.StringIO(text)))
    assert len(rows) == len(set(CASES.values()))
    sampler = next(r for r in rows if r["fingerprint"] == "signature:cuda-oom-sampler-warmup")
    # seen times are the logs' own (2025; the files were written in 2026)
    assert sampler["count"] == "2" and sampler["first_seen"].startswith("2025-") \
        and sampler["first_seen"] <= sampler["last_seen"] < "2026-01-02T00:00:01Z"
    assert len(sampler["examples"].split()) == 1


@pytest.mark.parametrize(("fmt", "expected"), [
    ("table", ["logsleuth triage under", "Known failures, by signature",
               "cuda-oom-sampler-warmup", "No signature yet", "Nothing failed"]),
    ("markdown", ["# logsleuth triage: 7 logs", "## Known failures, by signature",
                  "| 2 | cuda-oom-sampler-warmup: ", "## No signature yet"]),
])
def test_human_formats_show_the_sections(tree: Path, tmp_path: Path, fmt: str,
                                         expected: list[str]) -> None:
    # the corpus cases and one failure no signature knows, so every section has a row
    logs = tmp_path / "logs"
    shutil.copytree(tree, logs)
    (logs / "unknown.log").write_text(UNKNOWN.format(n=17, m=4096, path="/tmp/run-3/spool"))
    result = run("--recursive", "--no-cache", "--format", fmt, str(logs))
    for text in expected:
        assert text in result.stdout


# ---- broken files --------------------------------------------------------------------------------

def test_a_broken_file_is_reported_and_the_run_goes_on(tmp_path: Path) -> None:
    copy_cases(tmp_path, [HEALTHY])
    (tmp_path / "gone.log").symlink_to(tmp_path / "nowhere")
    (tmp_path / "binary.log").write_bytes(bytes(range(256)) * 64)
    result = triage([tmp_path, tmp_path / "missing.log"], recursive=True, jobs=2)
    status = {Path(c.path).name: c.status for c in result.cases}
    assert status == {"log.txt": Status.REPORTED, "binary.log": Status.REPORTED,
                      "gone.log": Status.UNREADABLE, "missing.log": Status.UNREADABLE}
    unreadable = [g for g in result.groups if g.kind is GroupKind.UNREADABLE]
    assert [g.count for g in unreadable] == [2]  # one group: the path is masked out


def test_a_crash_in_logsleuth_is_a_case_not_an_abort(tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    import logsleuth.pipeline

    logs = copy_cases(tmp_path, [HEALTHY, "startup/tp-size-not-dividing-heads-32-by-3"])
    real = logsleuth.pipeline.explain

    def explain(path: Any, **kwargs: Any) -> Any:
        if path == str(logs[HEALTHY]):
            raise RecursionError("maximum recursion depth exceeded")
        return real(path, **kwargs)

    monkeypatch.setattr(logsleuth.pipeline, "explain", explain)
    result = triage([tmp_path], recursive=True, jobs=1)
    crashed = [c for c in result.cases if c.status is Status.CRASHED]
    assert [c.error for c in crashed] == ["RecursionError: maximum recursion depth exceeded"]
    assert result.count(Verdict.FAILURE) == 1


def _dies_on_poison(path: str, signature_dirs: tuple[str, ...]) -> Explained:
    if path.endswith("poison.log"):
        os._exit(9)  # what the kernel's OOM killer does to a worker
    return explain_path(path, signature_dirs)


def test_a_worker_that_dies_takes_only_its_file_down(tmp_path: Path) -> None:
    logs = [str(p) for p in copy_cases(tmp_path, list(CASES)[:3]).values()]
    (tmp_path / "poison.log").write_text("x\n")
    paths = [*logs[:2], str(tmp_path / "poison.log"), logs[2]]
    done = run_local(paths, jobs=2, work=_dies_on_poison)
    assert [e.path for e in done] == paths
    assert [e.status for e in done] == [Status.REPORTED, Status.REPORTED, Status.CRASHED,
                                        Status.REPORTED]
    assert done[2].error == WORKER_DIED


# ---- cache ---------------------------------------------------------------------------------------

def test_second_run_reads_nothing_and_a_changed_file_is_read_again(tmp_path: Path) -> None:
    logs = copy_cases(tmp_path / "logs", list(CASES)[:4])
    cache = tmp_path / "cache"
    first = triage([tmp_path / "logs"], recursive=True, cache=cache, jobs=1)
    assert (first.read, first.cached) == (4, 0)
    second = triage([tmp_path / "logs"], recursive=True, cache=cache, jobs=1)
    assert (second.read, second.cached) == (0, 4)
    assert second.cases == first.cases and second.groups == first.groups

    changed = logs["startup/tp-size-not-dividing-heads-32-by-3"]
    changed.write_text(UNKNOWN.format(n=1, m=2, path="/x/y"))
    os.utime(changed, ns=(EPOCH + 9 * DAY, EPOCH + 9 * DAY))
    (tmp_path / "logs" / "new.log").write_text(UNKNOWN.format(n=3, m=4, path="/x/z"))
    third = triage([tmp_path / "logs"], recursive=True, cache=cache, jobs=1)
    assert sorted(Path(c.path).name for c in third.cases if not c.from_cache) == \
        ["log.txt", "new.log"]
    assert third.cached == 3
    unknown = next(g for g in third.groups if g.kind is GroupKind.UNMATCHED
                   and g.title.startswith("ZeroDivisionError"))
    assert unknown.count == 2


def test_failures_are_not_cached(tmp_path: Path) -> None:
    (tmp_path / "logs").mkdir()
    (tmp_path / "logs" / "gone.log").symlink_to(tmp_path / "nowhere")
    for _ in range(2):
        result = triage([tmp_path / "logs"], cache=tmp_path / "cache")
        assert (result.read, result.cached) == (1, 0)


def test_the_cache_key_follows_the_signature_files(tmp_path: Path) -> None:
    signatures = tmp_path / "sigs"
    signatures.mkdir()
    before = analyser_version([signatures])
    (signatures / "mine.yaml").write_text("id: mine\n")
    assert analyser_version([signatures]) != before
    assert analyser_version([signatures]) == analyser_version([signatures])


def test_a_damaged_cache_is_left_aside_with_a_notice(tmp_path: Path) -> None:
    copy_cases(tmp_path / "logs", [HEALTHY])
    (tmp_path / "cache").mkdir()
    (tmp_path / "cache" / "reports.sqlite3").write_bytes(b"not a database" * 100)
    result = triage([tmp_path / "logs"], recursive=True, cache=tmp_path / "cache")
    assert result.read == 1
    assert any("not used" in n or "not read" in n for n in result.notices)


def test_cache_rows_hold_the_report_contract(tmp_path: Path) -> None:
    copy_cases(tmp_path / "logs", [HEALTHY])
    triage([tmp_path / "logs"], recursive=True, cache=tmp_path / "cache")
    with sqlite3.connect(tmp_path / "cache" / "reports.sqlite3") as db:
        (report,) = [json.loads(row[0]) for row in db.execute("SELECT report FROM reports")]
    assert report["schema"] == "logsleuth.report/1"
    assert isinstance(ReportCache, type)


# ---- exit codes ----------------------------------------------------------------------------------

@pytest.mark.parametrize(("setup", "code"), [
    ("healthy", 0),
    ("healthy+failing", 1),
    ("healthy+broken", 0),
    ("failing+broken", 1),
    ("broken", 2),
    ("empty", 2),
    ("prose", 3),
    ("prose+broken", 3),
    ("prose+healthy", 0),
    ("prose+failing", 1),
])
def test_exit_codes(tmp_path: Path, setup: str, code: int) -> None:
    names = {"healthy": HEALTHY, "failing": "startup/tp-size-not-dividing-heads-32-by-3"}
    copy_cases(tmp_path, [names[part] for part in setup.split("+") if part in names])
    if "broken" in setup:
        (tmp_path / "gone.log").symlink_to(tmp_path / "nowhere")
    if "prose" in setup:  # files named like logs that hold no log output
        (tmp_path / "notes.txt").write_text("remember to rerun the benchmark\n")
        (tmp_path / "blob.log").write_bytes(bytes(range(256)))
    result = run("--recursive", "--no-cache", "--format", "json", str(tmp_path))
    assert result.exit_code == code, result.output
    if setup == "empty":
        assert "no log file found" in result.stderr
    if code == 3:
        assert "looks like log output" in result.stderr


def test_a_missing_path_argument_exits_2_and_is_listed(tmp_path: Path) -> None:
    result = run("--no-cache", "--format", "jsonl", str(tmp_path / "nope.log"))
    assert result.exit_code == 2
    (case,) = [json.loads(line) for line in result.stdout.splitlines()]
    assert case["status"] == "unreadable"


def test_ray_missing_is_one_clear_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import sys

    copy_cases(tmp_path, [HEALTHY])
    monkeypatch.setitem(sys.modules, "ray", None)  # import ray -> ImportError
    with pytest.raises(LogsleuthError, match=r"pip install 'logsleuth\[ray\]'"):
        triage([tmp_path], recursive=True, engine=Engine.RAY)
    result = run("--recursive", "--no-cache", "--engine", "ray", str(tmp_path))
    assert result.exit_code == 2
    assert "logsleuth[ray]" in result.stderr


# ---- Ray -----------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def ray_local() -> Iterator[None]:
    """A local Ray instance for this module. Ray (2.60) cannot be held to loopback from
    ray.init: it rewrites `_node_ip_address="127.0.0.1"` to the host's address
    (services.resolve_ip_for_localhost) and its gRPC servers listen on every interface; it
    does require its generated auth token by default."""
    ray = pytest.importorskip("ray")
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False,
             configure_logging=False)
    try:
        yield
    finally:
        ray.shutdown()


def test_ray_engine_gives_the_same_cases_and_groups(ray_local: None, tree: Path,
                                                    local: TriageResult) -> None:
    on_ray = triage([tree], recursive=True, engine=Engine.RAY)
    assert on_ray.cases == local.cases
    assert on_ray.groups == local.groups


def test_ray_engine_from_the_command_line(ray_local: None, tree: Path) -> None:
    on_ray = run("--recursive", "--no-cache", "--engine", "ray", "--format", "json", str(tree))
    here = run("--recursive", "--no-cache", "--format", "json", str(tree))
    assert on_ray.exit_code == here.exit_code == 1
    assert json.loads(on_ray.stdout)["groups"] == json.loads(here.stdout)["groups"]


@pytest.mark.parametrize(("stamp", "written", "expected"), [
    ("2025-06-01T10:11:12.123Z", None, "2025-06-01T10:11:12Z"),
    ("2025-06-01 10:11:12,345", None, "2025-06-01T10:11:12Z"),
    ("06-01 10:11:12", "2026-02-01T00:00:00Z", "2025-06-01T10:11:12Z"),  # before the write
    ("01-15 10:11:12", "2026-02-01T00:00:00Z", "2026-01-15T10:11:12Z"),
    ("Jan 15 10:11:12", "2026-02-01T00:00:00Z", "2026-01-15T10:11:12Z"),
    ("not a time", "2026-02-01T00:00:00Z", None),
])
def test_log_times(stamp: str, written: str | None, expected: str | None) -> None:
    from datetime import datetime

    from logsleuth.triage.render import iso_time
    from logsleuth.triage.seen import parse_log_time

    written_ns = int(datetime.fromisoformat(written).timestamp()) * 10**9 if written else None
    assert iso_time(parse_log_time(stamp, written_ns)) == expected


def test_triage_markdown_escapes_and_junit_reports_each_log(local: TriageResult) -> None:
    from xml.etree import ElementTree

    from logsleuth.triage.render import _md_cell, to_junit

    assert _md_cell("<path>:<num> __init__") == "&lt;path&gt;:&lt;num&gt; \\_\\_init\\_\\_"
    suite = ElementTree.fromstring(to_junit(local, fix_of=lambda _: "lower the knob"))
    assert int(suite.get("tests", "0")) == len(local.cases)
    failures = suite.findall("testcase/failure")
    assert len(failures) == int(suite.get("failures", "-1")) > 0
    assert any("lower the knob" in (f.text or "") for f in failures)
