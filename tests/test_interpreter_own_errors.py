"""The Python interpreter's own one-line error for a module `python -m` cannot run (CPython's
runpy): `<interpreter>: No module named vllm`, `<interpreter>: No module named
vllm.entrypoints.openai.api_server`, `<interpreter>: Error while finding module specification for
'vllm.x' (ModuleNotFoundError: No module named 'vllm')`. Each is an error event labelled with the
exception Python met, bare or behind a launcher's prefix; the top-level `vllm` is vLLM not
installed where it runs (vllm#9624), any other module goes to its own family; and the line is the
interpreter's, not vLLM's source (no vLLM origin is credited for it)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from logsleuth.model import Verdict
from logsleuth.pipeline import explain_text
from logsleuth.signatures import default_signatures

_INTERPRETERS = st.sampled_from([
    "python", "python3", "python3.10", "python3.12t", "pypy3", "/usr/bin/python3",
    "/home/u/app/.venv/bin/python", "/opt/conda/envs/serve/bin/python3.11",
    "/root/miniconda3/envs/x-1/bin/python3", "C:\\Users\\me\\.venv\\Scripts\\python.exe"])
# how the line reaches the log: bare, behind a time, a relaying logger, a stream tag, a
# Ray or vLLM process prefix, torchrun's rank tag, a docker-compose service
_PREFIXES = st.sampled_from([
    "", "[14:41:59] ", "2025-08-03 10:11:12,345 - backend - ERROR - ", "stderr: ",
    "(pid=4242) ", "[rank0]: ", "vllm-1  | ", "2025-08-03T10:11:12.123456789Z "])
_COMMANDS = st.sampled_from(["", "$ python3 -m vllm.entrypoints.openai.api_server --model m\n",
                             "+ exec python -m vllm.entrypoints.cli.main serve m\n"])
_ENTRYPOINTS = st.sampled_from(["vllm.entrypoints.openai.api_server", "vllm.entrypoints.cli.main",
                                "vllm.entrypoints.api_server"])


def _explain(log: str):  # type: ignore[no-untyped-def]
    return explain_text(log, signatures=default_signatures())


def _check_interpreter_error(log: str, exception: str, message: str) -> str:
    report = _explain(log)
    assert report.verdict is Verdict.FAILURE, log
    root = report.root_cause
    assert root is not None and root.exception == exception, (log, root)
    assert root.message == message, (log, root.message)
    # the interpreter printed it: no place in vLLM's source is credited with it
    assert root.id not in report.origins, (log, report.origins.get(root.id))
    assert report.signature is not None, log
    return report.signature.id


@settings(max_examples=40, deadline=None)
@given(python=_INTERPRETERS, prefix=_PREFIXES, command=_COMMANDS)
def test_no_module_named_vllm_is_vllm_not_installed(python: str, prefix: str,
                                                    command: str) -> None:
    log = f"{command}{prefix}{python}: No module named vllm\n"
    signature = _check_interpreter_error(log, "ModuleNotFoundError", "No module named vllm")
    assert signature == "vllm-not-installed-in-environment"


@settings(max_examples=40, deadline=None)
@given(python=_INTERPRETERS, prefix=_PREFIXES, entry=_ENTRYPOINTS)
def test_module_spec_of_a_missing_vllm_is_vllm_not_installed(python: str, prefix: str,
                                                             entry: str) -> None:
    log = (f"{prefix}{python}: Error while finding module specification for '{entry}' "
           "(ModuleNotFoundError: No module named 'vllm')\n")
    signature = _check_interpreter_error(log, "ModuleNotFoundError", "No module named 'vllm'")
    assert signature == "vllm-not-installed-in-environment"


@settings(max_examples=30, deadline=None)
@given(python=_INTERPRETERS, prefix=_PREFIXES,
       module=st.sampled_from(["vllm.entrypoints.openai.api_server", "vllm.entrypoints",
                               "vllm_ascend", "vllm_flash_attn", "sglang.launch_server",
                               "vllm.scripts"]),
       quoted=st.booleans())
def test_another_module_is_not_vllm_not_installed(python: str, prefix: str, module: str,
                                                  quoted: bool) -> None:
    if quoted:  # the package on the way is what Python met
        log = (f"{prefix}{python}: Error while finding module specification for '{module}.x' "
               f"(ModuleNotFoundError: No module named '{module}')\n")
        message = f"No module named '{module}'"
    else:
        log = f"{prefix}{python}: No module named {module}\n"
        message = f"No module named {module}"
    signature = _check_interpreter_error(log, "ModuleNotFoundError", message)
    assert signature != "vllm-not-installed-in-environment"


@settings(max_examples=20, deadline=None)
@given(python=_INTERPRETERS, prefix=_PREFIXES)
def test_a_package_without_main_is_an_import_error(python: str, prefix: str) -> None:
    log = (f"{prefix}{python}: No module named vllm.__main__; 'vllm' is a package and cannot "
           "be directly executed\n")
    report = _explain(log)
    assert report.root_cause is not None and report.root_cause.exception == "ImportError"
    assert report.root_cause.id not in report.origins


@settings(max_examples=20, deadline=None)
@given(word=st.sampled_from(["note", "tip", "hint", "see", "python3 says"]))
def test_a_sentence_quoting_the_words_is_no_interpreter_line(word: str) -> None:
    # not an interpreter's name before the colon: no interpreter error
    report = _explain(f"INFO 01-02 03:04:05 [api_server.py:1] {word}: No module named vllm is "
                      "printed when vLLM is missing\n")
    root = report.root_cause
    assert root is None or root.exception != "ModuleNotFoundError" or word == "python3 says"


@settings(max_examples=30, deadline=None)
@given(python=_INTERPRETERS, prefix=_PREFIXES,
       module=st.sampled_from(["vllm_ascend", "sglang", "lmdeploy", "my_server"]),
       quoted=st.booleans(), submodule=st.booleans())
def test_another_packages_module_gets_install_advice_quoted_or_bare(
        python: str, prefix: str, module: str, quoted: bool, submodule: bool) -> None:
    # the interpreter prints the module bare, the import system quoted: one advice for both
    name = f"{module}.launch.server" if submodule else module
    if quoted:
        log = (f"{prefix}{python}: Error while finding module specification for '{name}.x' "
               f"(ModuleNotFoundError: No module named '{name}')\n")
    else:
        log = f"{prefix}{python}: No module named {name}\n"
    report = _explain(log)
    assert report.signature is not None
    assert f"`{module}`" in report.signature.fix and "is not importable" in report.signature.fix


@settings(max_examples=15, deadline=None)
@given(python=_INTERPRETERS, quoted=st.booleans())
def test_a_vllm_module_gone_from_later_releases_is_drift_quoted_or_bare(python: str,
                                                                         quoted: bool) -> None:
    # `vllm.scripts` is in vLLM's older releases only (the message index): API drift either way
    said = "'vllm.scripts'" if quoted else "vllm.scripts"
    report = _explain(f"{python}: No module named {said}\n")
    assert report.signature is not None and "API drift" in report.signature.fix
