"""Does the advice hold the remedy vLLM's own message names? A probe over one release's raise sites.

Walks one vLLM release's extracted source (the same `ast` walk as tools/vllm_index/mine.py, with
each hole's source expression from tools/index_coverage/holes.py), keeps the `raise` and `assert`
sites of a scope (start-up and configuration modules, by era) whose message names a remedy: a
CLI flag (`--max-model-len`), an environment variable (`VLLM_USE_V1`), a package to install or
upgrade (`pip install flashinfer`, `transformers>=4.56`), or an engine setting by its field name
(`gpu_memory_utilization`). Each site becomes the traceback its era logs at start-up (V1: the engine
core's "EngineCore failed to start." record and the API server's "Engine core initialization
failed" tail; V0: the engine process's bare traceback), its placeholders filled with the values a
log shows (tools/index_coverage/coverage.py's `fill`), and goes through `logsleuth.explain_text`.
It is counted by what the report's advice holds:

    remedy     an exact signature or a family whose own fix text names one of the message's knobs
    named      one whose fix names it only in the lines the pipeline adds to a family's fix from
               the message itself ("The error's own message names these settings: ...")
    without    an exact signature or a family whose fix names none of them
    message    no signature; only the message's own remedy (kind `message`)
    fallback   only the class's last-resort advice (signatures/fallback/)
    none       no advice, or no failure found at all

    .venv/bin/python tools/remedy_probe/probe.py --src DIR/0.34.0 --era v1 [--show without]
    .venv/bin/python tools/remedy_probe/probe.py --src DIR/0.6.3 --era v0 --sites /tmp/s.jsonl
    .venv/bin/python tools/remedy_probe/probe.py --src DIR/0.8.5 --scope runtime --shape api

With `--scope runtime` the sites are V1's run-time ones (`RUNTIME`: engine core, workers, the API
server handling a request, a script's `LLM.generate`), each logged in its process's shape
(`render_runtime`); a request site is also checked for a report that says the request is the
client's, not the server's (`Outcome.client`), and counts `survived` when the log shows the
server serving after it.

DIR/<version>/vllm/... is a release's `.py` files (`pip download --no-deps vllm==X`, unzip
`vllm/*.py`, delete the wheel). `--sites FILE` writes the sites found (JSON lines), `--read FILE`
measures such a file again without a source tree; sample.jsonl beside this script is a small
committed sample that tests/test_remedy_probe.py measures. Not run-time code.
"""

from __future__ import annotations

import argparse
import ast
import json
import re
import sys
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import asdict, dataclass
from functools import cache
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[1]))  # the repository's logsleuth
sys.path.insert(0, str(HERE.parent / "vllm_index"))
sys.path.insert(0, str(HERE.parent / "index_coverage"))
import config_keys  # noqa: E402  (the keys of JSON-valued flags)
import coverage  # noqa: E402  (the index coverage tool's fill: realistic hole values)
import holes  # noqa: E402  (the miner's walk with each hole's expression)
import mine  # noqa: E402

from logsleuth.index.data import default_index  # noqa: E402
from logsleuth.index.versions import version_key  # noqa: E402
from logsleuth.model import SignatureKind, Verdict  # noqa: E402
from logsleuth.pipeline import explain_text  # noqa: E402
from logsleuth.signatures import SignatureSet, default_signatures, load_signatures  # noqa: E402

CLASSES = frozenset({"ValueError", "RuntimeError", "NotImplementedError", "TypeError",
                     "AssertionError"})
SITE = "/usr/local/lib/python3.12/dist-packages/"

# Start-up and configuration code by era: (module path glob under vllm/, function name pattern
# or None for every function). The model runner and worker also run requests; only their set-up
# functions (init, load, profile, KV cache, graph capture, compile, warm-up) are start-up.
_SETUP = r"(?i).*(init|load|profile|kv_cache|memory|capture|compile|warm|allocate|reshape|" \
         r"determine|available|dummy|setup|backend|attn|check|validate|_get_|may_).*"
SCOPES: dict[str, tuple[tuple[str, str | None], ...]] = {
    "v1": (("config/*.py", None), ("engine/arg_utils.py", None),
           ("model_executor/model_loader/*.py", None),
           ("model_executor/model_loader/*/*.py", None), ("platforms/*.py", None),
           ("v1/worker/gpu_worker.py", _SETUP), ("v1/worker/gpu_model_runner.py", _SETUP),
           ("v1/core/kv_cache_utils.py", None), ("entrypoints/openai/cli_args.py", None),
           ("entrypoints/openai/api_server.py", None), ("transformers_utils/*.py", None),
           ("transformers_utils/*/*.py", None)),
    "v0": (("config.py", None), ("engine/arg_utils.py", None), ("engine/llm_engine.py", _SETUP),
           ("engine/async_llm_engine.py", _SETUP), ("executor/*.py", _SETUP),
           ("model_executor/model_loader/*.py", None), ("platforms/*.py", None),
           ("attention/selector.py", None), ("worker/utils.py", None),
           ("worker/*worker.py", _SETUP), ("worker/*model_runner.py", _SETUP),
           ("worker/cache_engine.py", None), ("entrypoints/openai/cli_args.py", None),
           ("entrypoints/openai/api_server.py", None), ("transformers_utils/*.py", None),
           ("transformers_utils/*/*.py", None)),
}

# Run-time code of V1 (0.8 on), each module with the process it raises in ("where"): the engine
# core (scheduler, KV cache manager, structured output's grammar, executor), a worker (model
# runner outside its set-up functions, sampler, speculative decoding, attention backends, LoRA,
# KV connectors and disaggregated prefill, communication), or the API server while it handles
# one request ("request": the serving classes, input processing, sampling and pooling
# parameters, chat templates, multimodal inputs, tool and reasoning parsers). The first pattern
# a path matches decides; a function pattern starting with "!" keeps the functions it does not
# match.
_OFFLINE = r"!(?i).*(init|load).*"  # `LLM.generate`, `LLM.score`: a script's call, not LLM(...)
# a serving module's start-up (its construction, the server's own argument checks, a template
# or cache built from the configuration), not one request's handling
_SERVING = r"!(?i)(__init__|_?init_\w*|validate_\w*args?|validate_\w*_map|_?build_\w+|" \
           r"\w*_from_config|reserve_\w+|_?load_chat_template|resolve_\w*chat_template)"
RUNTIME: tuple[tuple[str, str | None, str], ...] = (
    ("entrypoints/cli/*.py", "!.*", "request"), ("entrypoints/cli/*/*.py", "!.*", "request"),
    ("entrypoints/launchers/*.py", "!.*", "request"), ("entrypoints/*/cli_args.py", "!.*", "request"),
    ("entrypoints/openai/api_server.py", r"(?i)create_.*|.*request.*", "request"),
    ("entrypoints/llm.py", _OFFLINE, "offline"), ("entrypoints/*/offline.py", _OFFLINE, "offline"),
    ("entrypoints/*/*/offline.py", _OFFLINE, "offline"),
    ("entrypoints/*.py", _SERVING, "request"), ("entrypoints/*/*.py", _SERVING, "request"),
    ("entrypoints/*/*/*.py", _SERVING, "request"), ("entrypoints/*/*/*/*.py", _SERVING, "request"),
    ("sampling_params.py", None, "request"), ("pooling_params.py", None, "request"),
    ("inputs/*.py", None, "request"), ("renderers/*.py", None, "request"),
    ("renderers/*/*.py", None, "request"), ("v1/engine/processor.py", None, "request"),
    ("v1/engine/input_processor.py", None, "request"), ("multimodal/*.py", _SERVING, "request"),
    ("multimodal/*/*.py", _SERVING, "request"), ("tool_parsers/*.py", None, "request"),
    ("reasoning/*.py", None, "request"), ("v1/structured_output/backend_*.py",
                                          r"(?i).*validate.*", "request"),
    ("v1/structured_output/*.py", None, "engine"), ("v1/core/kv_cache_utils.py", "!.*", "engine"),
    ("v1/core/*.py", None, "engine"), ("v1/core/sched/*.py", None, "engine"),
    ("v1/engine/core.py", "!(?i).*(init|startup|handshake).*", "engine"),
    ("v1/executor/*.py", "!(?i).*(init|startup|handshake|make_|_get_|check).*", "engine"),
    ("v1/worker/*.py", "!" + _SETUP, "worker"), ("v1/sample/*.py", None, "worker"),
    ("v1/sample/*/*.py", None, "worker"), ("v1/spec_decode/*.py", None, "worker"),
    ("v1/attention/backends/*.py", None, "worker"),
    ("v1/attention/backends/*/*.py", None, "worker"), ("attention/backends/*.py", None, "worker"),
    ("lora/*.py", None, "worker"), ("lora/*/*.py", None, "worker"),
    ("distributed/kv_transfer/*.py", None, "worker"),
    ("distributed/kv_transfer/*/*.py", None, "worker"),
    ("distributed/kv_transfer/*/*/*.py", None, "worker"),
    ("distributed/kv_transfer/*/*/*/*.py", None, "worker"),
    ("distributed/device_communicators/*.py", "!" + _SETUP, "worker"),
    ("distributed/*.py", "!" + _SETUP, "worker"),
)
WHERE = ("engine", "worker", "request", "offline")


# --- the remedy a message names ----------------------------------------------------------------
FLAG = re.compile(r"(?<![\w-])--[a-z][a-z0-9]*(?:[-_][a-z0-9]+)*(?:-\*)?")  # --data-parallel-*
ENV = re.compile(r"\b(?:VLLM|CUDA|HF|NCCL|TORCH|PYTORCH|TRANSFORMERS|HIP|ROCM|RAY|OMP|XLA|PJRT|"
                 r"TPU|HUGGING_FACE|NVIDIA|LD|UCX|NIXL)_[A-Z0-9_]*[A-Z0-9]\b")
INSTALL = re.compile(r"(?i)\b(?:pip install(?: -U| --upgrade)?|uv pip install|install(?:ed)?|"
                     r"upgrade|update)\s+(?:the\s+)?[`'\"]?([A-Za-z][\w.\-]*[A-Za-z0-9])")
PACKAGE_VERSION = re.compile(r"\b([A-Za-z][\w\-]*[A-Za-z0-9])\s*(?:version\s*)?(?:>=|==|<=|~=)\s*v?"
                             r"\d+\.\d")
ASSIGNED_ENV = re.compile(r"\b([A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+)=")  # INKLING_MULTIMEM_AR=0
NOT_INSTALLED = re.compile(r"[`'\"]?([A-Za-z][\w.\-]*[A-Za-z0-9])[`'\"]? (?:is|are) not "
                           r"(?:installed|available)")
QUOTED_PACKAGE = re.compile(r"[`'\"]([A-Za-z][\w.\-]*[A-Za-z0-9])[`'\"] (?:package|library)\b")
SNAKE = re.compile(r"\b[a-z][a-z0-9]*(?:_[a-z0-9]+)+\b")
# words after "install"/"upgrade" that are not packages
NOT_PACKAGES = frozenset({"it", "the", "a", "an", "vllm", "from", "with", "via", "your", "one",
                          "them", "this", "that", "of", "to", "and", "or", "for", "version",
                          "latest", "newer", "package", "packages", "instructions", "by",
                          "requested", "failed", "is", "was", "can", "will", "must"})
# ("weight update requested", "so that the update can borrow its memory")


@cache
def engine_fields() -> frozenset[str]:
    """Every engine argument's field name (`max_model_len`) of any indexed release."""
    return frozenset(a.field for a in default_index().arguments if not a.field.startswith("_"))


@cache
def environment_names() -> frozenset[str]:
    """Every environment variable vLLM reads (envs.py) in any indexed release."""
    return frozenset(e.name for e in default_index().environment)


def config_fields(root: Path) -> frozenset[str]:
    """The keys of the release's JSON-valued flags (`kv_role` in `--kv-transfer-config`,
    `cudagraph_mode` in `--compilation-config`), as tools/vllm_index/config_keys.py mines them:
    fields of configuration classes a user sets, not derived ones (`hf_config`) nor the
    checkpoint's own values (`hidden_size`)."""
    flags = {a.flag for a in default_index().arguments}
    return frozenset(config_keys.keys_of(root, flags))


def enum_members(root: Path) -> frozenset[str]:
    """The upper-case member names of the release's Enum classes (`AttentionBackendEnum`'s
    `ROCM_AITER_MLA`, `CompilationMode`'s members): names a message may quote that are no
    environment variable."""
    found: set[str] = set()
    for path in (root / "vllm").rglob("*.py"):
        text = path.read_text(encoding="utf-8", errors="replace")
        if "Enum" not in text:
            continue
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, ast.ClassDef) and any(
                    "Enum" in ast.unparse(base) for base in node.bases):
                found.update(t.id for stmt in node.body if isinstance(stmt, ast.Assign)
                             for t in stmt.targets if isinstance(t, ast.Name) and t.id.isupper())
    return frozenset(found - environment_names())


def knobs(message: str, fields: frozenset[str] = frozenset(),
          members: frozenset[str] = frozenset()) -> tuple[str, ...]:
    """The remedies a message names, normalised (see `normal`): flags, environment variables,
    packages to install or upgrade, engine settings by their field names (and `fields`, the
    release's configuration keys). `members` are the release's enum member names, which look
    like variables and are none (the attention backend `ROCM_AITER_MLA`)."""
    text = coverage.PLACEHOLDER.sub(" ", message)
    found: list[str] = []
    found += FLAG.findall(text)
    # a variable vLLM reads, not an enum member that looks like one (CompilationMode.VLLM_COMPILE)
    found += [m.group(0) for m in ENV.finditer(text) if text[m.start() - 1:m.start()] != "."
              and (not m.group(0).startswith("VLLM_") or m.group(0) in environment_names())
              and m.group(0) not in members
              # a backend's name a message quotes (ROCM_AITER_FA_BACKEND), no variable
              and (m.group(0).startswith("VLLM_") or not m.group(0).endswith("_BACKEND"))]
    found += [w for w in ASSIGNED_ENV.findall(text) if w in environment_names() or "_" in w]
    for pattern in (INSTALL, NOT_INSTALLED, PACKAGE_VERSION, QUOTED_PACKAGE):
        # a dotted name of the standard library is no package (os.sched_setaffinity)
        found += [m for m in pattern.findall(text) if m.lower() not in NOT_PACKAGES
                  and m.split(".")[0] not in sys.stdlib_module_names]
    known = engine_fields() | fields
    found += [w for w in SNAKE.findall(text) if w in known]
    return tuple(dict.fromkeys(normal(k) for k in found))


def normal(knob: str) -> str:
    """A knob's spelling-free form: `--max-model-len`, `max_model_len` and `max-model-len` are one."""
    return knob.lower().lstrip("-").replace("-", "_").split("[")[0]


def holds(fix: str, wanted: Sequence[str]) -> bool:
    """Whether a fix text names one of the knobs."""
    text = re.sub(r"(?<![\w-])--?(?=[A-Za-z])", " ", fix).lower().replace("-", "_")
    return any(re.search(rf"(?<![a-z0-9_]){re.escape(k.rstrip('*'))}" +
                         ("" if k.endswith("*") else "(?![a-z0-9_])"), text) for k in wanted)


# --- the sites ---------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class Site:
    """One raise or assert of a release whose message names a remedy."""

    release: str
    path: str  # vllm/config/model.py
    line: int
    function: str  # Class.method
    cls: str
    template: str  # mine.py's template text
    names: list[list[str]]  # per placeholder, the source expressions that fill it
    knobs: tuple[str, ...]
    where: str = "startup"  # or, for a run-time site, the process it raises in: WHERE


class _SiteWalker(holes.NamedWalker):
    def __init__(self, module: str) -> None:
        super().__init__(module)
        self.sites: list[tuple[int, str, str, str, list[list[str]]]] = []

    def _add(self, message: ast.expr, line: int, kind: str, cls: str,
             percent_args: bool = False) -> None:
        if kind != "raise" or cls not in CLASSES:
            return
        parts = self.renderers[-1].render(message, line)
        template = mine.join_parts(parts)
        if mine.useful(template):
            self.sites.append((line, ".".join(self.scope) or "<module>", cls, template,
                               holes.groups(parts)))


def _glob(pattern: str) -> re.Pattern[str]:
    """A path glob whose `*` stays within one folder."""
    return re.compile("[^/]*".join(re.escape(part) for part in pattern.split("*")))


def _keeps(functions: str | None, function: str) -> bool:
    name = function.rsplit(".", 1)[-1]
    if functions is None:
        return True
    if functions.startswith("!"):
        return re.fullmatch(functions[1:], name) is None
    return re.fullmatch(functions, name) is not None


def in_scope(relative: str, function: str, era: str) -> bool:
    """Whether a site of `relative` (a path under vllm/) in `function` is start-up code."""
    for pattern, functions in SCOPES[era]:
        if _glob(pattern).fullmatch(relative):
            return _keeps(functions, function)
    return False


def runtime_where(relative: str, function: str) -> str | None:
    """The process a run-time site of `relative` in `function` raises in (`WHERE`), or None."""
    for pattern, functions, where in RUNTIME:
        if _glob(pattern).fullmatch(relative):
            return where if _keeps(functions, function) else None
    return None


def sites_of(root: Path, era: str, scope: str = "startup") -> Iterator[Site]:
    """Every in-scope site of the release extracted at root (root/vllm/...) that names a remedy:
    start-up sites (`SCOPES[era]`) or, with scope "runtime", V1's run-time ones (`RUNTIME`)."""
    release = root.name
    fields = config_fields(root)
    members = enum_members(root)
    for path in sorted((root / "vllm").rglob("*.py")):
        relative = path.relative_to(root / "vllm").as_posix()
        if scope == "startup" and not any(_glob(p).fullmatch(relative) for p, _ in SCOPES[era]):
            continue
        if scope == "runtime" and not any(_glob(p).fullmatch(relative) for p, _, _ in RUNTIME):
            continue
        module = ".".join(path.relative_to(root).with_suffix("").parts).removesuffix(".__init__")
        walker = _SiteWalker(module)
        walker.visit(ast.parse(path.read_bytes(), filename=relative))
        for line, function, cls, template, names in walker.sites:
            where = "startup" if scope == "startup" else runtime_where(relative, function)
            if where is None or scope == "startup" and not in_scope(relative, function, era):
                continue
            wanted = knobs(template, fields, members)
            if wanted:
                yield Site(release, f"vllm/{relative}", line, function, cls, template, names,
                           wanted, where)


# --- the log ------------------------------------------------------------------------------------
def era_of(release: str) -> str:
    """The start-up shape a release logs: V1's engine core from 0.8 (its default engine) on."""
    return "v0" if version_key(release) < version_key("0.8.0") else "v1"


def message_of(site: Site) -> str:
    if len(site.names) != len(coverage.PLACEHOLDER.findall(site.template)):
        return coverage.fill(site.template)
    return coverage.fill(site.template, site.names)


SHAPES = ("engine", "api", "offline")


def render(site: Site, era: str, shape: str = "engine") -> str:
    """The start-up log this raise leaves, as its era prints it: raised in the engine process
    ("engine": V1's engine core record and the API server's tail, V0's engine process), in the
    API server while it builds its configuration ("api"), or under `LLM(...)` in a script
    ("offline": a bare traceback)."""
    if site.where != "startup":
        return render_runtime(site, shape)
    message = message_of(site)
    function = site.function.rsplit(".", 1)[-1]
    raising = (site.path, site.line, function, f"raise {site.cls}(")
    outer = {
        ("engine", "v1"): ("vllm/v1/engine/core.py", 1140, "run_engine_core",
                           "engine_core = EngineCoreProc(*args, engine_index=dp_rank, **kwargs)"),
        ("engine", "v0"): ("vllm/engine/multiprocessing/engine.py", 388, "run_mp_engine",
                           "engine = MQLLMEngine.from_engine_args(engine_args=engine_args,"),
        ("api", "v1"): ("vllm/entrypoints/openai/api_server.py", 212,
                        "build_async_engine_client_from_engine_args",
                        "vllm_config = engine_args.create_engine_config(usage_context=usage_context)"),
        ("api", "v0"): ("vllm/entrypoints/openai/api_server.py", 166, "build_async_engine_client",
                        "engine_config = engine_args.create_engine_config()"),
        ("offline", "v1"): ("vllm/entrypoints/llm.py", 351, "__init__",
                            "self.llm_engine = LLMEngine.from_engine_args("),
        ("offline", "v0"): ("vllm/entrypoints/llm.py", 214, "__init__",
                            "self.llm_engine = LLMEngine.from_engine_args("),
    }[(shape, era)]
    body = ["Traceback (most recent call last):"]
    if shape == "offline":
        body += ['  File "/home/user/run.py", line 12, in <module>',
                 '    llm = LLM(model="meta-llama/Llama-3.1-8B-Instruct")']
    for path, line, name, code in (outer, raising):
        body += [f'  File "{SITE}{path}", line {line}, in {name}', f"    {code}"]
    body += f"{site.cls}: {message}".split("\n")
    if shape == "offline":
        return "\n".join(body) + "\n"
    if shape == "api":
        if era == "v0":
            return "\n".join(["INFO 10-17 08:40:11 api_server.py:528] vLLM API server version "
                              "0.6.3", *body]) + "\n"
        return "\n".join(["(APIServer pid=4000) INFO 02-05 10:11:20 [api_server.py:1912] vLLM "
                          "API server version 0.34.0", *(f"(APIServer pid=4000) {b}" for b in body)]
                         ) + "\n"
    if era == "v0":
        head = ["INFO 10-17 08:40:11 api_server.py:528] vLLM API server version 0.6.3",
                "Process SpawnProcess-1:"]
        return "\n".join([*head, *body]) + "\n"
    record = "(EngineCore_DP0 pid=4100) ERROR 02-05 10:11:30 [core.py:1150] "
    tail = ["(APIServer pid=4000) Traceback (most recent call last):",
            f'(APIServer pid=4000)   File "{SITE}vllm/v1/engine/utils.py", line 1024, in '
            "wait_for_engine_startup",
            '(APIServer pid=4000)     raise RuntimeError(',
            "(APIServer pid=4000) RuntimeError: Engine core initialization failed. See root "
            "cause above. Failed core proc(s): {}"]
    return "\n".join([record + "EngineCore failed to start.", *(record + b for b in body),
                      *tail]) + "\n"


# V1's frames above a run-time raise, by the process it raises in (0.34.0's line numbers)
_ENGINE_STEP = (("vllm/v1/engine/core.py", 1750, "run_engine_core", "engine_core.run_busy_loop()"),
                ("vllm/v1/engine/core.py", 1801, "run_busy_loop", "self._process_engine_step()"),
                ("vllm/v1/engine/core.py", 1862, "_process_engine_step",
                 "outputs, model_executed = self.step_fn()"),
                ("vllm/v1/engine/core.py", 735, "step",
                 "model_output = self.model_executor.execute_model(scheduler_output)"))
_WORKER_LOOP = (("vllm/v1/executor/multiproc_executor.py", 1210, "worker_busy_loop",
                 "output = func(*args, **kwargs)"),
                ("vllm/v1/worker/gpu_worker.py", 702, "execute_model",
                 "output = self.model_runner.execute_model(scheduler_output)"))
_REQUEST = (("vllm/entrypoints/openai/chat_completion/api_router.py", 61,
             "create_chat_completion", "generator = await handler.create_chat_completion(request, "
             "raw_request)"),
            ("vllm/entrypoints/openai/chat_completion/serving.py", 259,
             "_create_chat_completion", "result = await self.render_chat_request(request)"))
_ENGINE_DEAD = ["(APIServer pid=4000) ERROR 02-05 12:30:01 [async_llm.py:957] AsyncLLM "
                "output_handler failed.",
                "(APIServer pid=4000) Traceback (most recent call last):",
                f'(APIServer pid=4000)   File "{SITE}vllm/v1/engine/async_llm.py", line 913, in '
                "output_handler",
                "(APIServer pid=4000)     outputs = await engine_core.get_output_async()",
                f'(APIServer pid=4000)   File "{SITE}vllm/v1/engine/core_client.py", line 1024, '
                "in get_output_async",
                "(APIServer pid=4000)     raise self._format_exception(outputs) from None",
                "(APIServer pid=4000) vllm.v1.engine.exceptions.EngineDeadError: EngineCore "
                "encountered an issue. See stack trace (above) for the root cause."]
_SERVING = ["(APIServer pid=4000) INFO 02-05 10:11:20 [api_server.py:1912] vLLM API server "
            "version 0.34.0",
            "(APIServer pid=4000) INFO:     Application startup complete.",
            '(APIServer pid=4000) INFO:     127.0.0.1:50110 - "POST /v1/chat/completions '
            'HTTP/1.1" 200 OK']


def _traceback(frames: Sequence[tuple[str, int, str, str]], site: Site | None,
               last: str = "") -> list[str]:
    """A traceback through `frames` to the site's raise and its message (or to `last`)."""
    if site is not None:
        frames = (*frames, (site.path, site.line, site.function.rsplit(".", 1)[-1],
                            f"raise {site.cls}("))
        last = f"{site.cls}: {message_of(site)}"
    body = ["Traceback (most recent call last):"]
    for path, line, name, code in frames:
        body += [f'  File "{SITE}{path}", line {line}, in {name}', f"    {code}"]
    return body + last.split("\n")


def render_runtime(site: Site, shape: str = "engine") -> str:
    """The log a run-time raise leaves in a V1 server that was serving.

    An engine or worker site: "engine", one GPU (the model runner runs inside the engine core:
    its "EngineCore encountered a fatal error." record, then the API server's EngineDeadError);
    "api", a worker process of a tensor-parallel deployment ("WorkerProc hit an exception.", then
    the engine core's "Worker failed with error" and the API server's tail; an engine-core site
    as "engine"); "offline", `LLM.generate` in a script (a bare traceback).
    A request site: "engine", the API server's traceback of one request, its 400 and the next
    request served (survived); "api", the log ending on that refused request; "offline", the
    script's own traceback under `LLM.generate`. An offline site (`LLM.score` on a model that
    does not score) is that script's traceback in every shape."""
    if shape == "offline" or site.where == "offline":
        head = ["Traceback (most recent call last):",
                '  File "/home/user/run.py", line 14, in <module>',
                "    outputs = llm.generate(prompts, sampling_params)"]
        frames = _ENGINE_STEP[3:] + (_WORKER_LOOP[1:] if site.where == "worker" else ()) \
            if site.where in ("engine", "worker") else ()
        return "\n".join(head + _traceback(frames, site)[1:]) + "\n"
    serving = [_SERVING[0].replace("0.34.0", site.release), *_SERVING[1:]]
    if site.where == "request":
        lines = [*serving, "(APIServer pid=4000) ERROR 02-05 12:30:01 [serving.py:264] Error in "
                 "preprocessing prompt inputs",
                 *(f"(APIServer pid=4000) {b}" for b in _traceback(_REQUEST, site)),
                 '(APIServer pid=4000) INFO:     127.0.0.1:50112 - "POST /v1/chat/completions '
                 'HTTP/1.1" 400 Bad Request']
        if shape == "engine":
            lines += ['(APIServer pid=4000) INFO:     127.0.0.1:50114 - "POST /v1/chat/'
                      'completions HTTP/1.1" 200 OK',
                      "(APIServer pid=4000) INFO 02-05 12:30:10 [loggers.py:259] Engine 000: Avg "
                      "prompt throughput: 120.4 tokens/s, Avg generation throughput: 35.2 "
                      "tokens/s, Running: 1 reqs, Waiting: 0 reqs, GPU KV cache usage: 2.1%, "
                      "Prefix cache hit rate: 0.0%"]
        return "\n".join(lines) + "\n"
    core = "(EngineCore_DP0 pid=4100) ERROR 02-05 12:30:01 [core.py:1759] "
    if site.where == "worker" and shape == "api":
        worker = "(Worker_TP0 pid=4200) ERROR 02-05 12:30:01 [multiproc_executor.py:1223] "
        first = message_of(site).split("\n")[0]
        engine = _traceback((*_ENGINE_STEP, ("vllm/v1/executor/multiproc_executor.py", 550,
                                             "collective_rpc", "raise RuntimeError(")), None,
                            f"RuntimeError: Worker failed with error '{first}', please check "
                            "the stack trace above for the root cause")
        lines = [*serving, worker + "WorkerProc hit an exception.",
                 *(worker + b for b in _traceback(_WORKER_LOOP, site)),
                 core + "EngineCore encountered a fatal error.", *(core + b for b in engine)]
    else:
        frames = _ENGINE_STEP + (_WORKER_LOOP[1:] if site.where == "worker" else ())
        lines = [*serving, core + "EngineCore encountered a fatal error.",
                 *(core + b for b in _traceback(frames, site))]
    return "\n".join([*lines, *_ENGINE_DEAD]) + "\n"


# --- the count ----------------------------------------------------------------------------------
OUTCOMES = ("remedy", "named", "without", "message", "fallback", "none", "survived")
# what the report says of an error that failed one request the server refused (causal.py
# `_refused_reason`, `_refused_reasons`): the client's request, not the server
CLIENT = re.compile(r"\bnot the server\b|\bnot a failure of the server\b")


@dataclass(frozen=True, slots=True)
class Outcome:
    site: Site
    outcome: str
    signature: str | None
    kind: str | None
    # a request site: whether the report says the request is the client's, not the server
    client: bool | None = None


def measure_one(site: Site, era: str, signatures: SignatureSet,
                shape: str = "engine") -> Outcome:
    """What the report of the site's log advises: `OUTCOMES` ("survived": a request's error in
    a log that shows the server going on, no failure), and for a request site whether it says
    the request is the client's to change."""
    report = explain_text(render(site, era, shape), signatures=signatures)
    match = report.signature
    client = any(CLIENT.search(r) for r in report.reasons) \
        if site.where == "request" and shape != "offline" else None
    if report.root_cause is None:
        survived = report.verdict is Verdict.NO_FAILURE and site.where == "request" \
            and shape == "engine"
        return Outcome(site, "survived" if survived else "none", None, None, client)
    if match is None:
        return Outcome(site, "message" if report.advice else "none", None, None, client)
    if match.kind is SignatureKind.FALLBACK:
        return Outcome(site, "fallback", match.id, match.kind.value, client)
    signature = signatures.get(match.id)
    own = signature.fix if signature is not None else match.fix
    outcome = "remedy" if holds(own, site.knobs) else "named" if holds(match.fix, site.knobs) \
        else "without"
    return Outcome(site, outcome, match.id, match.kind.value, client)


def measure(sites: Iterable[Site], era: str, signatures: SignatureSet | None = None,
            shape: str = "engine") -> list[Outcome]:
    database = signatures or default_signatures()
    return [measure_one(s, era, database, shape) for s in sites]


def distinct(sites: Iterable[Site]) -> list[Site]:
    """One site per message text (the same check written twice is one failure)."""
    seen: dict[str, Site] = {}
    for site in sites:
        seen.setdefault(site.template, site)
    return list(seen.values())


def counts(outcomes: Sequence[Outcome]) -> dict[str, int]:
    found = Counter(o.outcome for o in outcomes)
    return {name: found.get(name, 0) for name in OUTCOMES}


def read_sites(path: Path) -> list[Site]:
    with path.open(encoding="utf-8") as lines:
        return [Site(**{**row, "knobs": tuple(row["knobs"])}) for row in map(json.loads, lines)]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument("--src", type=Path, help="one release's extracted source: DIR/vllm/...")
    source.add_argument("--read", type=Path, help="a --sites file to measure again")
    parser.add_argument("--era", choices=sorted(SCOPES), default="v1")
    parser.add_argument("--scope", choices=("startup", "runtime"), default="startup",
                        help="start-up sites (SCOPES, by era) or V1's run-time ones (RUNTIME)")
    parser.add_argument("--shape", choices=SHAPES, default="engine",
                        help="where the raise is logged from (see render)")
    parser.add_argument("--sites", type=Path, help="write the sites found as JSON lines")
    parser.add_argument("--signatures", type=Path,
                        help="measure with this signature tree instead of the shipped one (an "
                             "earlier commit's `signatures/`, for a before/after figure)")
    parser.add_argument("--show", nargs="*", default=(), choices=OUTCOMES,
                        help="list the sites with these outcomes")
    args = parser.parse_args(argv)
    sites = distinct(read_sites(args.read) if args.read else sites_of(args.src, args.era, args.scope))
    if args.sites:
        with args.sites.open("w", encoding="utf-8") as out:
            out.writelines(json.dumps(asdict(s), ensure_ascii=False) + "\n" for s in sites)
    database = load_signatures(args.signatures, shipped=False) if args.signatures else None
    outcomes = measure(sites, args.era, database, args.shape)
    total = counts(outcomes)
    print(f"{len(sites)} sites naming a remedy: " + ", ".join(f"{k} {v}" for k, v in
                                                                total.items()))
    requests = [o for o in outcomes if o.client is not None]
    if requests:
        print(f"{len(requests)} request sites: the report says the client's request, not the "
              f"server: {sum(bool(o.client) for o in requests)}")
    for outcome in outcomes:
        if outcome.outcome in args.show:
            s = outcome.site
            print(f"{outcome.outcome:8} {s.where:8} {s.path}:{s.line} {s.function} [{s.cls}] "
                  f"knobs={','.join(s.knobs)} sig={outcome.signature}"
                  f"{'' if outcome.client is None else f' client={outcome.client}'}\n         "
                  f"{message_of(s)[:220]}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
