"""How much of vLLM's own error vocabulary gets advice: the signature database measured against the
message index.

Every error template of the index (a `raise`, an `assert`, a `logger.error/exception/critical`) is
rendered into the log event vLLM would print for it: an exception as the traceback tail of an
engine core that failed to start, with the raising module's file and function as the innermost
frame; a logged error as an ERROR record with its call site. Placeholders get the values a log
shows: a typed one by its type, an `{any}` by the name of what vLLM's source puts there
(`holes.json.gz`, mined by `holes.py`: `{self.model_config.dtype}` becomes `torch.bfloat16`,
`{len(x)}` a count, `{x.shape}` a tensor shape) or, without one, by the words before it.
Each rendered log goes through `logsleuth.explain_text` (the whole pipeline, in process) and is
counted by what the report offers: an exact signature, a family, only the message's own remedy,
or nothing. The uncovered templates are grouped by subsystem and exception class, largest first
(by templates, and by template-releases: a message printed by 30 releases is met more often than
one printed by one), which is where new families pay most.

    .venv/bin/python tools/index_coverage/coverage.py                  # every template, a table
    .venv/bin/python tools/index_coverage/coverage.py --sample 500     # a quick look
    .venv/bin/python tools/index_coverage/coverage.py --markdown signatures/COVERAGE.md \
        --results /tmp/coverage.jsonl
    # after only adding or broadening signatures: measure again what that run left uncovered
    .venv/bin/python tools/index_coverage/coverage.py --recheck /tmp/coverage.jsonl --markdown ...

Not run-time code: nothing in `logsleuth/` imports it. `tests/test_index_coverage.py` runs it on a
sample so that it keeps working.
"""

from __future__ import annotations

import argparse
import gzip
import json
import random
import re
import sys
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from enum import Enum
from functools import cache
from pathlib import Path

from logsleuth.index.data import MessageKind, MessageTemplate, VllmIndex, default_index
from logsleuth.pipeline import explain_text
from logsleuth.signatures import SignatureSet, default_signatures

ERROR_LEVELS = ("ERROR", "CRITICAL")  # logged at these levels a message is an error; WARNING not
SITE = "/usr/local/lib/python3.12/dist-packages/"
# Packages too broad to be one subsystem: their templates are grouped one level deeper.
BROAD = ("vllm.model_executor.layers", "vllm.model_executor.models", "vllm.v1.attention",
         "vllm.distributed.kv_transfer", "vllm.entrypoints.openai", "vllm.third_party",
         "vllm.models", "vllm.distributed.device_communicators")
PLACEHOLDER = re.compile(r"\{(int|float|num|hex|size|path|word|quoted|any)\}")
# What a typed placeholder holds in a realistic message.
VALUES = {"int": "4096", "float": "0.92", "num": "128", "hex": "0x7f3a2c1b9e40",
          "size": "2.00 GiB", "path": "/models/checkpoint/config.json", "word": "Qwen2ForCausalLM",
          "quoted": "'Qwen2ForCausalLM'"}
# What an `{any}` holds, by the name of what fills it: the f-string expression vLLM's source
# puts there (holes.json.gz, mined by holes.py) or, without one, the word the message puts
# before the hole ("dtype {any}"). Each rule is matched against one identifier, most specific
# first; the values are what vLLM's logs print for such names.
SHAPE_VALUE = "torch.Size([8, 4096])"
NAMED = tuple((re.compile(pattern), value) for pattern, value in (
    (r"(?:kv_)?cache_dtype|kv_dtype|\w*kv\w*_dtype", "fp8_e4m3"),
    (r"\w*dtype\w*", "torch.bfloat16"),
    (r"\w*shape\w*", SHAPE_VALUE),
    (r"quant\w*|\w*_quant\w*|quantization\w*", "fp8"),
    (r"\w*(?:attn|attention)\w*backend\w*|\w*backend\w*(?:attn|attention)\w*", "FLASH_ATTN"),
    (r"\w*backend\w*", "cutlass"),  # a kernel backend (MoE, GEMM, sampler): no subsystem's word
    (r"(?:device|gpu)_name|\w*_device_name", "NVIDIA H100 80GB HBM3"),
    (r"device\w*|\w*_device", "cuda:0"),
    (r"platform\w*", "cuda"),
    (r"\w*capability\w*", "9.0"),
    (r"\w*version\w*", "2.9.0"),
    (r"model_type|hf_model_type", "qwen2"),
    (r"arch\w*|model_cls|model_class|\w*class_name|cls|__name__|get_name|__class__",
     "Qwen2ForCausalLM"),
    (r"(?:served_)?model(?:_name|_id|_name_or_path|_path)?|tokenizer\w*|repo\w*|hf_\w*",
     "meta-llama/Llama-3.1-8B-Instruct"),
    (r"\w*(?:path|file|filename|dir|folder|ckpt|checkpoint)s?", "/models/Llama-3.1-8B-Instruct/"
     "config.json"),
    (r"\w*url|endpoint\w*", "http://10.0.0.2:8000/v1"),
    (r"\w*(?:addr|address|host)\w*|ip", "10.0.0.2:29500"),
    (r"e|err|error|exc|exception|ex|reason|msg|message|cause|details?", "invalid value"),
    (r"\w*req(?:uest)?_id\w*", "chatcmpl-8c1f0e2a"),
    (r"\w*lora\w*", "sql-lora"),
    (r"modalit(?:y|ies)\w*", "image"),
    (r"task|runner\w*|runner_type", "generate"),
    (r"activation|hidden_act|act\w*", "silu"),
    (r"key|keys|k|\w*layer_name|prefix|\w*module_name|\w*param_name|\w*weight_name|"
     r"tensor_name|names?", "model.layers.0.mlp.gate_up_proj.weight"),
    (r"field\w*|arg\w*|option|attr\w*|setting", "max_model_len"),
    (r"(?:supported|valid|allowed|available)\w*|choices", "['auto', 'fp8']"),
    (r"(?:enable|use|is|has)_\w+", "True"),
    (r"block_size|page_size|\w*kv_block\w*", "16"),
    (r"head_(?:dim|size)", "128"),
    (r"\w*num_kv_heads|\w*num_key_value_heads", "8"),
    (r"\w*num_(?:attention_)?heads", "32"),
    (r"\w*(?:tp|tensor_parallel|world)(?:_size)?|tp", "8"),
    (r"max_model_len|max_seq_len\w*", "32768"),
    (r"vocab_size", "151936"),
    (r"\w*(?:bits)", "4"),
    (r"port", "29500"),
    (r"pid", "4100"),
))
# Names too generic to say what a hole holds: the expression's other names are asked instead
# (`selected_backend.name` holds a backend).
GENERIC = frozenset({"name", "value", "val", "v", "item", "tolist", "str", "repr", "format",
                     "lower", "upper", "strip", "join", "keys", "values", "items", "list",
                     "sorted", "tuple", "set", "type", "self", "get", "__name__", "get_name",
                     "__class__", "x", "obj"})
# A name whose last word (or first: `num_`, `max_`) is one of these holds a number.
NUMBER_WORDS = frozenset({"num", "n", "size", "len", "length", "count", "dim", "dims", "heads",
                          "rank", "tp", "pp", "dp", "ep", "block", "blocks", "tokens", "stride",
                          "numel", "ndim", "idx", "index", "topk", "k", "width", "height",
                          "step", "steps", "batch", "bytes", "nbytes", "capacity", "timeout",
                          "layers", "experts", "seqs", "total", "max", "min", "i", "j", "m"})
SHAPE = re.compile(r"(?:\.shape|\.size\(\)|\.stride\(\))\)?$")
NUMBER_BEFORE = re.compile(r"(?i)(?:[=<>]|\b(?:size|len|length|num\w*|count|rank|than|of|got|"
                           r"dim|heads|tokens|blocks|bytes|batch|step|id|index)\b)[\s:(]*$")
ANY_NAME = "Qwen2ForCausalLM"
IDENTIFIER = re.compile(r"[A-Za-z_]\w*")
HOLES = Path(__file__).with_name("holes.json.gz")


@cache
def holes() -> dict[str, list[list[str]]]:
    """Per template text, per placeholder, the source expressions that fill it (holes.py)."""
    if not HOLES.exists():
        return {}
    with gzip.open(HOLES, "rt", encoding="utf-8") as data:
        found: dict[str, list[list[str]]] = json.load(data)["holes"]
    # a message whose literal text reads like a placeholder ("intermediate_{int}") cannot be
    # named hole by hole
    return {text: names for text, names in found.items()
            if len(names) == len(PLACEHOLDER.findall(text))}


def named_value(name: str) -> str | None:
    """The value a hole filled by the identifier `name` holds, when its name says."""
    lowered = name.lower()
    value = next((value for pattern, value in NAMED if pattern.fullmatch(lowered)), None)
    words = lowered.strip("_").split("_")
    if len(lowered) == 1 or words[-1] in NUMBER_WORDS or words[0] in ("num", "n", "max", "min",
                                                                      "total"):
        return value if value is not None and value.isdigit() else "64"  # max_lora_rank
    return value


def expression_value(expression: str) -> str | None:
    """The value of a source expression by its names, innermost name first (`len(x)` counts)."""
    if SHAPE.search(expression):
        return SHAPE_VALUE
    if expression.startswith("len(") or expression.endswith("]"):
        return "64"  # a count, or one dimension of a shape
    names = IDENTIFIER.findall(expression)
    specific = [n for n in reversed(names) if n not in GENERIC]
    for name in (*specific, *(n for n in reversed(names) if n in GENERIC)):
        value = named_value(name)
        if value is not None:
            return value
    return None


def context_value(before: str) -> str:
    """The value of an unnamed hole by the words before it in the message."""
    words = IDENTIFIER.findall(before[-40:])
    for word in reversed(words[-2:]):
        value = named_value(word)
        if value is not None:
            return value
    return VALUES["int"] if NUMBER_BEFORE.search(before) else ANY_NAME


class Coverage(Enum):
    """What the report offers for one rendered template, strongest first."""

    EXACT = "exact"
    FAMILY = "family"
    MESSAGE = "message"  # only the message's own remedy ("Try ...", "Consider ...")
    FALLBACK = "fallback"  # only the last resort for the exception's class (signatures/fallback/)
    NONE = "none"

    @property
    def advised(self) -> bool:
        """Whether a signature (exact or family) gives the fix."""
        return self in (Coverage.EXACT, Coverage.FAMILY)


@dataclass(frozen=True, slots=True)
class ErrorTemplate:
    """One distinct error text of the index, with the site that prints it in most releases."""

    text: str
    cls: str  # the exception class, or the log level
    kind: MessageKind
    module: str
    function: str
    releases: int  # how many indexed releases print it (at any of its sites)
    newest: bool  # printed by the newest indexed release

    @property
    def subsystem(self) -> str:
        parts = self.module.split(".")
        depth = 4 if any(self.module.startswith(p + ".") for p in BROAD) else 3
        return ".".join(parts[:depth])


@dataclass(frozen=True, slots=True)
class Result:
    """One template measured."""

    template: ErrorTemplate
    coverage: Coverage
    signature: str | None  # the signature id that matched


def error_templates(index: VllmIndex) -> list[ErrorTemplate]:
    """Every distinct error text of the index (raised, asserted, or logged at ERROR/CRITICAL)."""
    sites: dict[str, list[MessageTemplate]] = defaultdict(list)
    for site in index.templates:
        if site.kind is MessageKind.RAISE or (site.kind is MessageKind.LOG
                                               and site.cls in ERROR_LEVELS):
            sites[site.text].append(site)
    newest = len(index.releases) - 1
    out = []
    for text in sorted(sites):
        group = sites[text]
        main = max(group, key=lambda s: (len(s.releases), s.releases[-1:]))
        releases = {r for s in group for r in s.releases}
        out.append(ErrorTemplate(text, main.cls, main.kind, main.module, main.function,
                                 len(releases), newest in releases))
    return out


def fill(text: str, names: Sequence[Sequence[str]] | None = None) -> str:
    """The template with each placeholder replaced by a realistic value: a typed placeholder by
    its type, an `{any}` by the names of what fills it (`names`: per placeholder, the source
    expressions, from holes()) or else by the words before it."""
    count = iter(range(len(PLACEHOLDER.findall(text))))

    def value(found: re.Match[str]) -> str:
        position = next(count)
        kind = found.group(1)
        if kind != "any":
            return VALUES[kind]
        expressions = names[position] if names and position < len(names) else ()
        values = [expression_value(e) for e in expressions]
        if expressions and all(v is not None for v in values):
            return "".join(v for v in values if v is not None)
        return context_value(text[:found.start()])
    return PLACEHOLDER.sub(value, text)


def render(template: ErrorTemplate) -> str:
    """The log lines vLLM prints for this error (V1 engine core, 2025-2026 prefixes)."""
    message = fill(template.text, holes().get(template.text))
    file = SITE + template.module.replace(".", "/") + ".py"
    function = template.function.rsplit(".", 1)[-1]
    prefix = "(EngineCore_DP0 pid=4100) "
    if template.kind is MessageKind.LOG:
        first, *rest = message.split("\n")
        name = file.rsplit("/", 1)[-1]
        return "".join(f"{prefix}ERROR 02-05 10:11:30 [{name}:321] {line}\n"
                       for line in (first, *rest))
    header = f"{prefix}ERROR 02-05 10:11:30 [core.py:708] "
    first, *rest = message.split("\n")
    record = ["EngineCore failed to start.", "Traceback (most recent call last):",
              f'  File "{SITE}vllm/v1/engine/core.py", line 699, in run_engine_core',
              "    engine_core = EngineCoreProc(*args, **kwargs)",
              f'  File "{file}", line 321, in {function}',
              f"    raise {template.cls}(msg)",
              f"{template.cls}: {first}", *rest]
    return "".join(f"{header}{line}\n" for line in record) + (
        "(APIServer pid=4000) RuntimeError: Engine core initialization failed. See root cause "
        "above. Failed core proc(s): {}\n")


def measure_one(template: ErrorTemplate, signatures: SignatureSet) -> Result:
    """Render one template and classify the report's advice."""
    report = explain_text(render(template), signatures=signatures)
    if report.signature is not None:
        kind = Coverage(report.signature.kind.value)  # the report's kinds are the coverage's
        return Result(template, kind, report.signature.id)
    return Result(template, Coverage.MESSAGE if report.advice else Coverage.NONE, None)


_SIGNATURES: SignatureSet | None = None


def _measure_chunk(templates: list[ErrorTemplate]) -> list[Result]:
    global _SIGNATURES  # one database per worker process, loaded on its first chunk
    if _SIGNATURES is None:
        _SIGNATURES = default_signatures()
    return [measure_one(t, _SIGNATURES) for t in templates]


def measure(templates: Sequence[ErrorTemplate], jobs: int = 1) -> list[Result]:
    """Every template measured, in order; `jobs` processes share the work."""
    if jobs <= 1:
        return _measure_chunk(list(templates))
    size = max(1, len(templates) // (jobs * 8))
    chunks = [list(templates[i:i + size]) for i in range(0, len(templates), size)]
    with ProcessPoolExecutor(jobs) as pool:
        return [r for chunk in pool.map(_measure_chunk, chunks) for r in chunk]


@dataclass(frozen=True, slots=True)
class Group:
    """Templates of one subsystem and exception class that no signature advises on."""

    subsystem: str
    cls: str
    templates: int
    template_releases: int  # sum over its templates of the releases that print them
    newest: int  # how many the newest release still prints
    example: str


def gaps(results: Iterable[Result]) -> list[Group]:
    """The uncovered templates grouped by subsystem and class, largest first."""
    grouped: dict[tuple[str, str], list[ErrorTemplate]] = defaultdict(list)
    for result in results:
        if not result.coverage.advised:
            grouped[(result.template.subsystem, result.template.cls)].append(result.template)
    groups = [Group(subsystem, cls, len(ts), sum(t.releases for t in ts),
                    sum(t.newest for t in ts), max(ts, key=lambda t: t.releases).text)
              for (subsystem, cls), ts in grouped.items()]
    return sorted(groups, key=lambda g: (-g.templates, -g.template_releases, g.subsystem, g.cls))


def shares(results: Sequence[Result]) -> dict[Coverage, int]:
    counts = Counter(r.coverage for r in results)
    return {kind: counts.get(kind, 0) for kind in Coverage}


def summary(results: Sequence[Result], top: int = 25, markdown: bool = False) -> str:
    """The coverage figures and the largest uncovered groups as a table."""
    total = len(results) or 1
    counts = shares(results)
    advised = counts[Coverage.EXACT] + counts[Coverage.FAMILY]
    weight = sum(r.template.releases for r in results) or 1
    weighted = sum(r.template.releases for r in results if r.coverage.advised)
    lines = [f"{len(results)} error templates: advice (exact or family) for {advised} "
             f"({100 * advised / total:.1f}%; {100 * weighted / weight:.1f}% weighted by releases); "
             + ", ".join(f"{kind.value} {counts[kind]}" for kind in Coverage), ""]
    header = ("subsystem", "class", "uncovered", "template-releases", "in newest", "example")
    rows = [(g.subsystem, g.cls, str(g.templates), str(g.template_releases), str(g.newest),
             g.example[:70].replace("|", "/").replace("\n", " ")) for g in gaps(results)[:top]]
    if markdown:
        lines.append("| " + " | ".join(header) + " |")
        lines.append("|" + "---|" * len(header))
        lines += ["| " + " | ".join(f"`{c}`" if i in (0, 1) else c for i, c in enumerate(row))
                  + " |" for row in rows]
        return "\n".join(lines) + "\n"
    widths = [max(len(r[i]) for r in (header, *rows)) for i in range(len(header) - 1)]
    for row in (header, *rows):
        lines.append("  ".join(c.ljust(w) for c, w in zip(row, widths)) + "  " + row[-1])
    return "\n".join(lines) + "\n"


def by_signature(results: Iterable[Result]) -> Counter[str]:
    """How many templates each signature advises on."""
    return Counter(r.signature for r in results if r.signature)


def read_results(path: str, templates: Iterable[ErrorTemplate]) -> dict[str, Result]:
    """The results a `--results` file holds for these templates, by text."""
    by_text = {t.text: t for t in templates}
    found: dict[str, Result] = {}
    with open(path, encoding="utf-8") as lines:
        for line in lines:
            row = json.loads(line)
            if row["text"] in by_text:
                found[row["text"]] = Result(by_text[row["text"]], Coverage(row["coverage"]),
                                            row["signature"])
    return found


def merge(templates: Iterable[ErrorTemplate], earlier: dict[str, Result],
          again: Iterable[Result]) -> list[Result]:
    """Every template's result, in order: measured again where it was, else the earlier one."""
    fresh = {r.template.text: r for r in again}
    return [fresh.get(t.text) or earlier[t.text] for t in templates]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sample", type=int, default=0, help="measure N random templates only")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--top", type=int, default=25, help="uncovered groups to list")
    parser.add_argument("--markdown", metavar="FILE", help="also write the summary as Markdown")
    parser.add_argument("--results", metavar="FILE",
                        help="also write each template's result as JSON lines (to compare runs)")
    parser.add_argument("--recheck", metavar="FILE",
                        help="a --results file of an earlier run: measure again only the "
                             "templates it left without advice (valid when signatures were only "
                             "added or broadened since: advice then only grows)")
    parser.add_argument("--signatures", action="store_true",
                        help="also list how many templates each signature covers")
    args = parser.parse_args(argv)
    templates = error_templates(default_index())
    if args.sample:
        templates = random.Random(args.seed).sample(templates, min(args.sample, len(templates)))
    earlier = read_results(args.recheck, templates) if args.recheck else {}
    again = measure([t for t in templates if t.text not in earlier or
                     not earlier[t.text].coverage.advised], args.jobs)
    results = merge(templates, earlier, again)
    sys.stdout.write(summary(results, args.top))
    if args.signatures:
        for name, count in by_signature(results).most_common():
            sys.stdout.write(f"{count:6d}  {name}\n")
    if args.results:
        with open(args.results, "w", encoding="utf-8") as out:
            out.writelines(json.dumps({"text": r.template.text, "coverage": r.coverage.value,
                                       "signature": r.signature}) + "\n" for r in results)
    if args.markdown:
        with open(args.markdown, "w", encoding="utf-8") as out:
            out.write(REPORT_HEAD + summary(results, args.top, markdown=True))
    return 0


REPORT_HEAD = """# Coverage of vLLM's error messages by the signature database

Generated by `tools/index_coverage/coverage.py --markdown signatures/COVERAGE.md` (do not edit by
hand; rerun it after adding signatures). Every error template of the message index (`raise`,
`assert`, `logger.error/exception/critical` in any indexed vLLM release) is rendered as the log
event vLLM prints for it and explained; a template has advice when an exact signature or a family
matches it. The table lists the largest groups (subsystem, exception class) of templates that get
none: where a new family pays most. Template-releases weighs each template by the number of
releases that print it.

"""


if __name__ == "__main__":
    raise SystemExit(main())
