"""Classes of failure that plugins' and frameworks' release notes document (session 25, sigs-c).

Each test generates the members of one class (paths, Python versions, the way the traceback
reaches the log, the varying parts of the message) and checks that the signature written for the
class answers with the documented remedy: the compiler's own crash during a JIT build, a plugin
platform missing from one of vLLM's platform-keyed kernel tables, and vLLM before 0.7.3 refusing
a world larger than TP x PP under a trainer. tools/release_notes_probe measures the pages'
entries themselves.
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from v1log import PYTHONS, SITE_PACKAGES, TRACEBACK_PREFIXES, signature_advice


def _traceback(prefix: str, site: str, frames: list[tuple[str, int, str, str]],
               last: str) -> list[str]:
    lines = ["Traceback (most recent call last):"]
    for path, line, function, code in frames:
        where = path if path.startswith("/") else site + path
        lines += [f'  File "{where}", line {line}, in {function}', f"    {code}"]
    return [prefix + line for line in (*lines, last)]


@settings(max_examples=12, deadline=None)
@given(py=PYTHONS, site=SITE_PACKAGES, prefix=TRACEBACK_PREFIXES,
       source=st.sampled_from(["/root/.triton/cache/Zq3k/launcher_cxx11abi1.cxx",
                               "/tmp/tmpab12/main.c", "/home/u/.triton/cache/x/npu_utils.cpp"]),
       crash=st.sampled_from(["Segmentation fault", "Killed (program cc1plus)",
                              "in expand_expr_real_1, at expr.cc:10839"]),
       compiler=st.sampled_from(["g++", "gcc", "/usr/bin/g++"]))
def test_a_compilers_crash_during_a_jit_build_is_the_cause(
        py: str, site: str, prefix: str, source: str, crash: str, compiler: str) -> None:
    site = site.format(py=py)
    log = [f"{source}:41:1: internal compiler error: {crash}",
           "Please submit a full bug report, with preprocessed source if appropriate.",
           *_traceback(prefix, site, [
               ("triton/runtime/jit.py", 591, "run",
                "kernel = self.compile(src, target=target, options=options.__dict__)"),
               (f"/usr/lib/python{py}/subprocess.py", 413, "check_call",
                "raise CalledProcessError(retcode, cmd)")],
               f"subprocess.CalledProcessError: Command '['{compiler}', '{source}', '-shared', "
               "'-fPIC']' returned non-zero exit status 1.")]
    signature, fix = signature_advice("\n".join(log) + "\n")
    assert signature == "jit-compiler-internal-error"
    assert "~/.triton/cache" in fix and "triton-ascend" in fix


@settings(max_examples=12, deadline=None)
@given(py=PYTHONS, site=SITE_PACKAGES, prefix=TRACEBACK_PREFIXES,
       value=st.integers(5, 12),
       frames=st.sampled_from([
           [("vllm/model_executor/layers/quantization/kernels/scaled_mm/__init__.py", 164,
             "choose_scaled_mm_linear_kernel",
             "for kernel in possible_kernels[current_platform._enum]:")],
           [("vllm_gaudi/v1/worker/hpu_model_runner.py", 3902, "load_model",
             "self.model = get_model(vllm_config=self.vllm_config)"),
            ("vllm/model_executor/kernels/linear/__init__.py", 210, "choose_linear_kernel",
             "for kernel in _POSSIBLE_KERNELS[current_platform._enum]:")]]))
def test_a_plugin_platform_missing_from_a_kernel_table_names_the_matching_plugin_release(
        py: str, site: str, prefix: str, value: int,
        frames: list[tuple[str, int, str, str]]) -> None:
    log = _traceback(prefix, site.format(py=py), frames, f"KeyError: <PlatformEnum.OOT: {value}>")
    signature, fix = signature_advice("\n".join(log) + "\n")
    assert signature == "plugin-platform-missing-from-kernel-registry"
    assert "0.15.1" in fix and "matching pair" in fix


@settings(max_examples=12, deadline=None)
@given(py=PYTHONS, site=SITE_PACKAGES, prefix=TRACEBACK_PREFIXES,
       tp=st.sampled_from([1, 2, 4]), pp=st.sampled_from([1, 2]), replicas=st.integers(2, 8),
       trainer=st.sampled_from([
           ("/workspace/verl/verl/workers/rollout/vllm_rollout/vllm_rollout_spmd.py", 110,
            "__init__", "self.inference_engine = LLM("),
           ("openrlhf/trainer/ray/vllm_engine.py", 60, "__init__",
            "self.llm = vllm.LLM(*args, **kwargs)")]))
def test_vllm_before_0_7_3_refusing_a_larger_world_says_upgrade(
        py: str, site: str, prefix: str, tp: int, pp: int, replicas: int,
        trainer: tuple[str, int, str, str]) -> None:
    frames = [trainer, ("vllm/distributed/parallel_state.py", 1053, "initialize_model_parallel",
                        "raise RuntimeError(")]
    log = _traceback(prefix, site.format(py=py), frames,
                     f"RuntimeError: world_size ({tp * pp * replicas}) is not equal to "
                     f"tensor_model_parallel_size ({tp}) x pipeline_model_parallel_size ({pp})")
    signature, fix = signature_advice("\n".join(log) + "\n")
    assert signature == "world-size-not-tp-times-pp"
    assert "0.7.3" in fix
