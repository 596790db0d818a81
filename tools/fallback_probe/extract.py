"""Mine the error messages of the libraries vLLM runs on from their source.

Usage: python tools/fallback_probe/extract.py --cache DIR [--out PATH]

`DIR/src/<dist>-<version>/` holds each library's extracted source: a wheel's `*.py` (`pip download
--no-deps <dist>`, then `unzip -q WHEEL '*.py' -d DIR/src/<dist>-<version>` and delete the wheel),
or for a library whose messages are written in Rust (tokenizers, safetensors) its repository's
source tree as `DIR/src/<dist>-rs/`. Python files are walked with the vLLM miner's own walker
(`tools/vllm_index/mine.py`: f-strings, `%`, `.format()` and local variables rebuilt into
`{int}`/`{any}` templates); Rust files by the `PyErr` constructors they call
(`PyValueError::new_err("...")`, `SafetensorError::new_err(format!("..."))`) and the `Display`
strings of their error enums (`#[error("...")]`). Only raise sites count (a library's warnings
and log lines are not the root cause of a failed vLLM run), and only in the modules vLLM reaches
(`LIBRARIES`: transformers' per-model folders, ray's training and serving libraries and the like
are left out). Nothing is imported or run.

The output (`library_messages.jsonl.gz` beside this script) is one JSON object a line,
sorted, gzipped without a timestamp: the same sources give the same bytes.
"""

from __future__ import annotations

import argparse
import gzip
import io
import json
import re
import sys
from collections.abc import Iterator
from dataclasses import asdict, dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "vllm_index"))
from mine import messages_of, useful  # noqa: E402  (the vLLM miner's walker and its floor)

OUT = HERE / "library_messages.jsonl.gz"


@dataclass(frozen=True, slots=True)
class Library:
    """One library: its distribution's folder prefix, the modules vLLM reaches, the ones it
    does not."""

    name: str  # the name the probe groups by
    dists: tuple[str, ...]  # folder-name prefixes under DIR/src
    include: str  # regex on the dotted module name
    exclude: str = r"(?!)"
    skip: str = r"(?!)"  # regex on the class: raised and caught inside the library, never printed


# torch's classes raised to leave a cache or a fast path and caught where they are raised
_TORCH_INTERNAL = r"^_|^(?:Bypass\w*|Skip\w*|CannotStaticallyLaunchKernel|MissingOpProfile)$"

LIBRARIES = (
    # per-model folders raise checks of models vLLM implements itself; auto, the processors'
    # and tokenizers' common code and the hub helpers are what vLLM calls
    Library("transformers", ("transformers-",),
            r"^transformers\.(?!models\.(?!auto\b))",
            r"^transformers\.(?:commands|data|pipelines|trainer|training_args|sagemaker|"
            r"onnx|benchmark|kernels|agents|quantizers|integrations\.(?!hub_kernels))"),
    Library("tokenizers", ("tokenizers-rs",), r"^bindings\.python\.(?:src|py_src)"),
    Library("huggingface_hub", ("huggingface_hub-",), r"^huggingface_hub\.",
            r"^huggingface_hub\.(?:commands|cli|inference|_space|_webhooks|_inference|"
            r"serialization\._tensorflow|keras|fastai|repocard|_commit_scheduler|hf_api_?s?$)"),
    Library("safetensors", ("safetensors-",), r"^safetensors\.",
            r"^safetensors\.(?:tensorflow|flax|mlx|paddle)"),
    Library("safetensors", ("safetensors-rs",), r"^(?:safetensors\.src|bindings\.python\.src)"),
    Library("xgrammar", ("xgrammar-",), r"^xgrammar\.", r"^xgrammar\.(?:testing|contrib)"),
    Library("outlines", ("outlines-", "outlines_core-"), r"^outlines(?:_core)?\.",
            r"^outlines\.(?:models|inputs|applications|templates|processors\.tensor_adapters)"),
    Library("ray", ("ray-",),
            r"^ray\.(?:_private\.(?:worker|services|node|utils|accelerators|ray_constants|"
            r"runtime_env|state)|actor|exceptions|remote_function|util\.(?:placement_group|"
            r"scheduling_strategies|collective\.collective\b|state)|_common|runtime_context|"
            r"worker)"),
    Library("pydantic", ("pydantic-",), r"^pydantic\.", r"^pydantic\.(?:v1|mypy|_hypothesis)"),
    Library("fastapi", ("fastapi-", "starlette-", "uvicorn-"),
            r"^(?:fastapi|starlette|uvicorn)\.", r"^(?:fastapi|uvicorn)\.(?:cli|testclient)"),
    Library("openai", ("openai-",), r"^openai\.(?!types\b|cli\b|lib\.streaming\._deltas)"),
    Library("aiohttp", ("aiohttp-",), r"^aiohttp\.", r"^aiohttp\.(?:pytest_plugin|test_utils|"
                                                    r"web_|worker)"),
    # the kernels' own shape asserts (experimental, DSL kernels, generated sources) are
    # thousands of one-kernel checks; what vLLM's calls meet is the JIT, the wrappers and the
    # common utilities
    Library("flashinfer", ("flashinfer_python-",),
            r"^flashinfer\.(?:jit\.(?:core|cpp_ext|env|utils|cubin_loader)|utils|decode|prefill|"
            r"sampling|page|cascade|norm|activation|quantization|fp4_quantization|comm\.\w+$|"
            r"autotuner|mla$|gemm$|gemm\.gemm_base|fused_moe\.core|__init__|aot|cuda_utils|"
            r"rope|topk|logits_processor)"),
    # torch, split by where vLLM meets it (each part is grouped and rendered apart): the
    # process groups (c10d, not FSDP, DTensor, pipelining, checkpointing or elastic), the
    # device runtimes, torch.compile's front end and the code generator's compile/cache/autotune
    # steps (not its thousands of lowering and code generation asserts), the custom-op
    # registry vLLM's kernels are declared through, and the loaders and extension builder
    Library("torch.distributed", ("torch-",), skip=_TORCH_INTERNAL, include=
            r"^torch\.distributed(?:$|\.(?:distributed_c10d|rendezvous|utils|device_mesh|"
            r"_symmetric_memory|c10d_logger|constants|_functional_collectives)\b)"),
    Library("torch.cuda", ("torch-",), skip=_TORCH_INTERNAL,
            include=r"^torch\.(?:cuda|xpu|mtia|accelerator|_utils)\b"),
    Library("torch.compile", ("torch-",), skip=_TORCH_INTERNAL, include=
            r"^torch\.(?:_dynamo\.(?:eval_frame|exc|convert_frame|output_graph|backends|config|"
            r"utils|guards|aot_compile|package|precompile_context|callback)|"
            r"_inductor\.(?:codecache|compile_fx|cpp_builder|runtime|select_algorithm|"
            r"autotune_process|graph|exc|async_compile|standalone_compile|compile_worker|"
            r"cudagraph_trees|config)|_subclasses\.fake_tensor|compiler)\b"),
    Library("torch.library", ("torch-",), skip=_TORCH_INTERNAL, include=
            r"^torch\.(?:library|_library|_custom_op|_ops|_higher_order_ops\.auto_functionalize)"
            r"\b"),
    Library("torch", ("torch-",), skip=_TORCH_INTERNAL, include=
            r"^torch\.(?:serialization|_weights_only_unpickler|utils\.cpp_extension|storage|"
            r"hub|backends\.cuda|_tensor)\b"),
    # triton's compiler, runtime and backends (the language's semantic checks fire on a kernel's
    # source: vLLM's kernels meet them only with a triton their code was not written for)
    Library("triton", ("triton-",), skip=r"^_",
            include=r"^triton\.(?:compiler|runtime|backends|knobs|language|_compile_warmup|"
                    r"tools\.compile)",
            exclude=r"^triton\.(?:experimental|testing|profiler|_internal_testing|"
                    r"language\.extra)"),
    # FlashAttention's Python interfaces (FA2, FA3 under hopper/, FA4's cute interface), not its
    # training models and modules (source: the repository, no wheel on the index)
    Library("flash_attn", ("flash_attn-",),
            r"^(?:flash_attn\.(?:flash_attn_interface|bert_padding|cute\.(?:interface|"
            r"utils|cache_utils))|hopper\.flash_attn_interface)\b"),
    Library("xformers", ("xformers-",), r"^xformers\.(?:ops|_cpp_lib|info|checkpoint|utils)\b"),
    Library("bitsandbytes", ("bitsandbytes-",), r"^bitsandbytes\.",
            r"^bitsandbytes\.(?:optim|research)"),
    Library("compressed_tensors", ("compressed_tensors-",), r"^compressed_tensors\."),
    Library("mistral_common", ("mistral_common-",), r"^mistral_common\.",
            r"^mistral_common\.experimental"),
    # what multimodal processors call: PIL's decoders and numpy's array code
    Library("PIL", ("pillow-",), r"^PIL\.(?:Image|ImageFile|ImageOps|ImageSequence|PngImagePlugin|"
                                 r"JpegImagePlugin|GifImagePlugin|WebPImagePlugin|TiffImagePlugin|"
                                 r"BmpImagePlugin|_util)$",
            # a format plugin's "not a PNG file": Image.open tries the next plugin, then raises
            # UnidentifiedImageError
            skip=r"^SyntaxError$"),
    Library("numpy", ("numpy-",), r"^numpy\.(?:_core|core|lib|linalg)\b"),
    # the engine's IPC (ZeroMQ sockets, msgspec's encoding) and the server's metrics
    Library("zmq", ("pyzmq-",), r"^zmq\.", r"^zmq\.(?:tests|green|eventloop|ssh)"),
    Library("msgspec", ("msgspec-",), r"^msgspec\."),
    Library("prometheus_client", ("prometheus_client-",), r"^prometheus_client\."),
    Library("llguidance", ("llguidance-",), r"^llguidance\."),
    Library("lm_format_enforcer", ("lm_format_enforcer-",), r"^lmformatenforcer\."),
    # since session 29: vLLM's platform plugins and KV-connector packages from their own source
    # (PyPI wheels; vllm-ascend's and vllm-gaudi's repositories, the first an sdist whose build
    # needs the CANN toolkit, the second not on the index), their tests, examples and benchmarks
    # left out; each is rendered the way vLLM prints its own errors (probe.py `PLUGIN_SOURCES`)
    Library("vllm-ascend", ("vllm_ascend-",), r"^vllm_ascend\."),
    Library("vllm-gaudi", ("vllm_gaudi-",), r"^vllm_gaudi\."),
    Library("vllm-spyre", ("vllm_spyre-",), r"^vllm_spyre\."),
    Library("vllm-kunlun", ("vllm_kunlun-",), r"^vllm_kunlun\."),
    Library("vllm-rbln", ("vllm_rbln-",), r"^vllm_rbln\."),
    Library("tpu-inference", ("tpu_inference-",), r"^tpu_inference\."),
    # LMCache's SGLang integration and CLI, and Mooncake's object stores for training data and
    # weight resharding (reshard, structured_object_store, dataproto_catalog: what RL frameworks
    # call, not vLLM's connector) are left out
    Library("lmcache", ("lmcache-",), r"^lmcache\.",
            r"^lmcache\.(?:(?:.*\.)?(?:tests?|benchmarks?)\b|cli\b|integration\.sglang\b)"),
    Library("nixl", ("nixl-", "nixl_cu12-"), r"^nixl(?:_ep)?(?:_cu12)?\."),
    Library("mooncake", ("mooncake_transfer_engine-",), r"^mooncake\.",
            r"^mooncake\.(?:cli\w*|transfer_engine_topology_dump|reshard|structured_object_store|"
            r"dataproto_catalog)\b"),
    # projects that run vLLM inside them: their vLLM glue only (TRL's client and server, verl's
    # rollout workers and patches, ms-swift's engines and NPU patches)
    Library("trl", ("trl-",), r"^trl\.(?:generation\.vllm|scripts\.vllm_serve|"
                              r"experimental\.\w+\.vllm_client|cli\.commands\.vllm_serve)"),
    Library("verl", ("verl-",), r"^verl\.(?:workers\.rollout\.vllm_rollout|utils\.vllm|"
                                r"third_party\.vllm|utils\.(?:qat|modelopt)\.vllm)"),
    Library("ms-swift", ("ms_swift-",), r"^swift\.(?:infer_engine\.(?:grpo_)?vllm|"
                                       r"rlhf_trainers\.vllm|ray\.megatron\.rollout\.\w*vllm|"
                                       r"model\.npu_patch\.vllm)"),
)

_NOT_ERRORS = re.compile(r"Warning$|^[a-z]|^(?:StopIteration|StopAsyncIteration|SystemExit|"
                         r"KeyboardInterrupt|GeneratorExit)$")


@dataclass(frozen=True, slots=True, order=True)
class LibraryMessage:
    """One raise site of a library: what it prints and where it is."""

    library: str
    module: str
    function: str
    cls: str
    template: str


# --- Rust ------------------------------------------------------------------------------------

# `PyValueError::new_err("...")`, `exceptions::PyException::new_err(format!("...", x))`,
# `SafetensorError::new_err(...)`; and the Display texts of an error enum (`#[error("...")]`)
_NEW_ERR = re.compile(r'\b(?:exceptions::)?(Py\w*(?:Error|Exception)|SafetensorError)::new_err'
                      r'\(\s*(?:format!\(\s*)?"((?:[^"\\]|\\.)*)"')
_DISPLAY = re.compile(r'#\[error\(\s*"((?:[^"\\]|\\.)*)"')
_RUST_HOLE = re.compile(r"\{[^{}]*\}")


def rust_template(literal: str) -> str:
    """A Rust format string as a template: each `{...}` a hole, escapes undone."""
    text = literal.replace('\\"', '"').replace("\\n", "\n").replace("\\\\", "\\")
    text = text.replace("{{", "\x00").replace("}}", "\x01")
    text = _RUST_HOLE.sub("{any}", text)
    return text.replace("\x00", "{").replace("\x01", "}")


def rust_messages(root: Path, library: str) -> Iterator[LibraryMessage]:
    """Every `new_err` and `#[error]` text under root's `src` folders (tests left out)."""
    for path in sorted(root.rglob("*.rs")):
        relative = path.relative_to(root)
        if "tests" in relative.parts or "benches" in relative.parts:
            continue
        module = ".".join(relative.with_suffix("").parts)
        text = path.read_text(encoding="utf-8", errors="replace")
        for found in _NEW_ERR.finditer(text):
            cls = found.group(1)
            cls = {"PyException": "Exception", "SafetensorError": "SafetensorError"}.get(
                cls, cls.removeprefix("Py"))
            yield LibraryMessage(library, module, "", cls, rust_template(found.group(2)))
        for found in _DISPLAY.finditer(text):
            # the enum's texts reach Python through the binding's own exception class
            cls = "SafetensorError" if library == "safetensors" else "Exception"
            yield LibraryMessage(library, module, "", cls, rust_template(found.group(1)))


# --- the walk --------------------------------------------------------------------------------

def library_messages(cache: Path) -> list[LibraryMessage]:
    """Every raise site of every library in `LIBRARIES` found under cache/src, deduplicated by
    (library, class, template), sorted."""
    found: dict[tuple[str, str, str], LibraryMessage] = {}
    for library in LIBRARIES:
        include, exclude = re.compile(library.include), re.compile(library.exclude)
        roots = sorted(p for p in (cache / "src").iterdir()
                       if p.is_dir() and p.name.startswith(library.dists))
        for root in roots:
            if root.name.endswith("-rs"):
                rows: Iterator[LibraryMessage] = rust_messages(root, library.name)
            else:
                rows = (LibraryMessage(library.name, m.module, m.function, m.cls, m.template)
                        for m in messages_of(root) if m.kind == "raise")
            for row in rows:
                if not include.search(row.module) or exclude.search(row.module) \
                        or _NOT_ERRORS.search(row.cls) or re.search(library.skip, row.cls) \
                        or not useful(row.template):
                    continue
                found.setdefault((row.library, row.cls, row.template), row)
    return sorted(found.values())


def write(rows: list[LibraryMessage], out: Path) -> None:
    """Gzipped JSON lines with a zero timestamp: the same rows give the same bytes."""
    body = "".join(json.dumps(asdict(r), sort_keys=True) + "\n" for r in rows).encode()
    buffer = io.BytesIO()
    with gzip.GzipFile(fileobj=buffer, mode="wb", mtime=0, filename="") as packed:
        packed.write(body)
    out.write_bytes(buffer.getvalue())


def read(path: Path = OUT) -> list[LibraryMessage]:
    """The messages a `write` stored."""
    with gzip.open(path, "rt", encoding="utf-8") as lines:
        return [LibraryMessage(**json.loads(line)) for line in lines]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cache", type=Path, required=True)
    parser.add_argument("--out", type=Path, default=OUT)
    parser.add_argument("--keep", action="store_true",
                        help="keep the stored rows of every library whose source the cache "
                             "lacks (mine only the libraries it has)")
    args = parser.parse_args(argv)
    rows = library_messages(args.cache)
    if args.keep and args.out.exists():
        mined = {row.library for row in rows}
        rows = sorted({*rows, *(row for row in read(args.out) if row.library not in mined)})
    write(rows, args.out)
    counts: dict[str, int] = {}
    for row in rows:
        counts[row.library] = counts.get(row.library, 0) + 1
    sys.stdout.write("".join(f"{n:6d}  {name}\n" for name, n in sorted(counts.items())))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
