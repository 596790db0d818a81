"""Session 29: the fallback probe's plugin and framework sources (tools/fallback_probe, the
plugins' and connector packages' own raise sites, the vLLM glue of RL frameworks).

- A folder named `vllm` inside another installed package (a plugin's or a framework's vLLM glue:
  `tpu_inference/layers/vllm/`, `lmcache/integration/vllm/`, `verl/utils/vllm/`) is that
  package's code, not vLLM's: before, its frames were read as vLLM modules and the library's
  family never answered.
- `library-rl-framework-vllm-glue-error`: an error raised in a framework's vLLM layer (any file
  and function under it) gets the family; the same trainer traceback ending in vLLM's own code,
  or in the framework's code outside its vLLM layer, does not (near misses).
"""

from __future__ import annotations

import string

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from logsleuth.index.origin import vllm_module
from logsleuth.pipeline import explain_text
from logsleuth.signatures import default_signatures

_NAME = st.text(string.ascii_lowercase + "_", min_size=3, max_size=10).filter(
    lambda s: s.strip("_") and s != "vllm")
_SITES = st.sampled_from(("/usr/local/lib/python3.12/dist-packages/",
                          "/opt/conda/envs/rl/lib/python3.11/site-packages/",
                          "C:\\Python311\\Lib\\site-packages\\"))
_WORDS = st.lists(st.text(string.ascii_lowercase, min_size=3, max_size=9), min_size=3,
                  max_size=8).map(" ".join)
_CLASSES = st.sampled_from(("ValueError", "RuntimeError", "NotImplementedError", "TypeError",
                            "AssertionError"))


def _join(site: str, *parts: str) -> str:
    sep = "\\" if "\\" in site else "/"
    return site + sep.join(parts)


@settings(max_examples=60, deadline=None)
@given(site=_SITES, package=_NAME, inner=st.lists(_NAME, max_size=3), file=_NAME)
def test_a_vllm_folder_inside_another_installed_package_is_not_vllms(
        site: str, package: str, inner: list[str], file: str) -> None:
    assert vllm_module(_join(site, package, *inner, "vllm", f"{file}.py")) is None
    # vLLM's own package, even with a `vllm` folder further in, or installed as an egg
    assert vllm_module(_join(site, "vllm", *inner, f"{file}.py")) == \
        ".".join(("vllm", *inner, file))
    assert vllm_module(_join(site, "vllm", *inner, "vllm", f"{file}.py")) is not None
    assert vllm_module(_join(site, f"vllm-0.6.6+gaudi-py3.10.egg", "vllm", f"{file}.py")) == \
        f"vllm.{file}"


_GLUE = ("verl/workers/rollout/vllm_rollout", "verl/utils/vllm", "verl/third_party/vllm",
         "trl/generation", "trl/scripts", "swift/infer_engine", "swift/rlhf_trainers",
         "openrlhf/trainer/ray")
_GLUE_FILES = {"verl/workers/rollout/vllm_rollout": None, "verl/utils/vllm": None,
               "verl/third_party/vllm": None, "trl/generation": "vllm_client",
               "trl/scripts": "vllm_serve", "swift/infer_engine": "vllm_engine",
               "swift/rlhf_trainers": "vllm_client", "openrlhf/trainer/ray": "vllm_engine"}
_TRAINER = ("(TaskRunner pid=2210) Traceback (most recent call last):\n"
            '(TaskRunner pid=2210)   File "/opt/train/main.py", line 42, in main\n'
            "(TaskRunner pid=2210)     run(config)\n")


def _frame(path: str, function: str) -> str:
    return (f'(TaskRunner pid=2210)   File "{path}", line 120, in {function}\n'
            "(TaskRunner pid=2210)     step()\n")


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(glue=st.sampled_from(_GLUE), file=_NAME, function=_NAME, words=_WORDS, cls=_CLASSES)
def test_an_error_in_a_frameworks_vllm_glue_gets_the_family(
        glue: str, file: str, function: str, words: str, cls: str) -> None:
    site = "/usr/local/lib/python3.11/site-packages/"
    name = _GLUE_FILES[glue] or file
    log = _TRAINER + _frame(f"{site}{glue}/{name}.py", function) + \
        f"(TaskRunner pid=2210) {cls}: {words}\n"
    report = explain_text(log, signatures=default_signatures())
    assert report.signature is not None, log
    assert report.signature.kind.value != "fallback", (log, report.signature.id)
    if report.signature.kind.value == "family" and report.signature.id.startswith("library-"):
        assert report.signature.id == "library-rl-framework-vllm-glue-error", log


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(glue=st.sampled_from(_GLUE), file=_NAME, function=_NAME, words=_WORDS, cls=_CLASSES,
       inner=st.sampled_from(("vllm/engine/arg_utils.py", "vllm/config/model.py",
                              "verl/trainer/ppo/core_algos.py", "trl/trainer/grpo_trainer.py",
                              "swift/trainers/trainer.py")))
def test_near_miss_the_same_traceback_ending_outside_the_glue_is_not_the_family(
        glue: str, file: str, function: str, words: str, cls: str, inner: str) -> None:
    site = "/usr/local/lib/python3.11/site-packages/"
    name = _GLUE_FILES[glue] or file
    log = _TRAINER + _frame(f"{site}{glue}/{name}.py", function) + \
        _frame(f"{site}{inner}", "check") + f"(TaskRunner pid=2210) {cls}: {words}\n"
    report = explain_text(log, signatures=default_signatures())
    assert report.signature is None or \
        report.signature.id != "library-rl-framework-vllm-glue-error", log


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(folder=st.sampled_from((("tpu_inference/layers/vllm", "library-platform-plugin-error"),
                               ("tpu_inference/models/vllm", "library-platform-plugin-error"),
                               ("lmcache/integration/vllm", "library-kv-connector-error"))),
       file=_NAME, function=_NAME, words=_WORDS, cls=_CLASSES)
def test_an_error_in_a_plugins_vllm_folder_gets_the_plugins_family(
        folder: tuple[str, str], file: str, function: str, words: str, cls: str) -> None:
    path, family = folder
    site = "/usr/local/lib/python3.12/dist-packages/"
    log = ("(Worker_TP0 pid=4201) ERROR 02-05 10:11:30 [multiproc_executor.py:671] "
           "WorkerProc hit an exception.\n" + "".join(
               f"(Worker_TP0 pid=4201) ERROR 02-05 10:11:30 [multiproc_executor.py:671] {line}\n"
               for line in ("Traceback (most recent call last):",
                            f'  File "{site}vllm/v1/worker/gpu_worker.py", line 40, in '
                            "execute_model", "    execute_model()",
                            f'  File "{site}{path}/{file}.py", line 9, in {function}',
                            "    raise Error(msg)", f"{cls}: {words}")))
    report = explain_text(log, signatures=default_signatures())
    assert report.signature is not None, log
    assert report.signature.kind.value != "fallback", (log, report.signature.id)
    if report.signature.kind.value == "family" and report.signature.id.startswith("library-"):
        assert report.signature.id == family, log


# verl-delta-weight-transfer-rejected: verl 0.9.1's vLLM-side checks of delta weight transfer
# (the words its messages share), as a bare last line, under a Ray actor's RayTaskError or at
# the end of a traceback through verl's rollout
_DELTA = ("delta_sharded with vLLM requires {w}", "delta_sharded with vLLM MoE does not support {w}",
          "VERL delta weight transfer requires {w}", "VERL delta IPC updates require {w}",
          "DeltaFlush is missing {w}", "Unsupported DeltaFlush encoding: {w}",
          "Delta checksum mismatch in vLLM consumer: got {w}",
          "weight_transfer_config must be a mapping when using delta_sharded")
_RAY = ("(TaskRunner pid=2210) ray.exceptions.RayTaskError({cls}): ray::vLLMHttpServer."
        "launch_server() (pid=3012, ip=10.0.0.5)\n")


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(template=st.sampled_from(_DELTA), words=_WORDS, cls=_CLASSES,
       shape=st.sampled_from(("bare", "ray", "frames")))
def test_verls_delta_transfer_checks_get_the_family(template: str, words: str, cls: str,
                                                    shape: str) -> None:
    line = f"(TaskRunner pid=2210) {cls}: {template.format(w=words)}\n"
    log = {"bare": line, "ray": _RAY.format(cls=cls) + line,
           "frames": _TRAINER + _frame("/usr/local/lib/python3.11/site-packages/verl/workers/"
                                       "rollout/vllm_rollout/delta_weight_transfer.py",
                                       "require_vllm_delta_support") + line}[shape]
    report = explain_text(log, signatures=default_signatures())
    assert report.signature is not None, log
    assert report.signature.id == "verl-delta-weight-transfer-rejected", (log,
                                                                        report.signature.id)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(words=_WORDS, cls=_CLASSES,
       near=st.sampled_from(("delta_sharded ships only the indices position encoding; got {w}",
                             "Weight delta for {w} exceeds the update budget",
                             "sharded delta of {w} requires a flush",
                             "DeltaFlushing is disabled for {w}")))
def test_near_miss_other_delta_words_are_not_the_family(words: str, cls: str, near: str) -> None:
    log = f"(TaskRunner pid=2210) {cls}: {near.format(w=words)}\n"
    report = explain_text(log, signatures=default_signatures())
    assert report.signature is None or \
        report.signature.id != "verl-delta-weight-transfer-rejected", log


# framework-vllm-ascend-patch-target-mismatch: a framework's opt-in patch variable refusing the
# target it found, or a vLLM-Ascend call whose signature the patch cannot bind
_UPPER = st.text(string.ascii_uppercase + "_", min_size=2, max_size=12).filter(
    lambda s: s[0].isalpha())
_CAMEL = st.text(string.ascii_letters, min_size=3, max_size=12).filter(lambda s: s[0].isalpha())


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(env=_UPPER, target=_CAMEL, member=_NAME, kind=st.sampled_from(("implementation",
                                                                      "signature")),
       form=st.integers(0, 3), words=_WORDS, ray=st.booleans())
def test_a_frameworks_patch_refusing_its_target_gets_the_family(
        env: str, target: str, member: str, kind: str, form: int, words: str,
        ray: bool) -> None:
    message = (f"{env}_PATCH found an unsupported {target}.{member} {kind}.",
               f"{env}_PATCH could not load the required vllm-ascend 0.2.x patch targets.",
               f"Unsupported vLLM-Ascend {member} signature: signature=({words})",
               f"Failed to bind vLLM-Ascend {member} arguments: {words}")[form]
    log = (_RAY.format(cls="RuntimeError") if ray else "") + \
        f"(TaskRunner pid=2210) RuntimeError: {message}\n"
    report = explain_text(log, signatures=default_signatures())
    assert report.signature is not None, log
    assert report.signature.id == "framework-vllm-ascend-patch-target-mismatch", (
        log, report.signature.id)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(target=_CAMEL, member=_NAME, words=_WORDS,
       near=st.sampled_from(("The scheduler found an unsupported {t}.{m} implementation.",
                             "Unsupported {t} signature for {m}: {w}",
                             "Failed to bind {t} arguments: {w}")))
def test_near_miss_unsupported_implementations_without_a_patch_are_not_the_family(
        target: str, member: str, words: str, near: str) -> None:
    log = f"(TaskRunner pid=2210) RuntimeError: {near.format(t=target, m=member, w=words)}\n"
    report = explain_text(log, signatures=default_signatures())
    assert report.signature is None or \
        report.signature.id != "framework-vllm-ascend-patch-target-mismatch", log
