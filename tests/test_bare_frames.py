"""Tracebacks whose paths the reporter cut to bare file names (`File "weight_utils.py", line 243,
in hf_model_weights_iterator`) still name vLLM's code: a file name with a function of that name
that vLLM's message index knows in a module of that name. And who raised an error the
interpreter words (`'NoneType' object is not iterable`): vLLM's code, a library's, the user's."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from logsleuth.index.data import default_index, module_functions
from logsleuth.index.origin import frame_module, raised_by_vllm
from logsleuth.model import ErrorEvent, EventKind, Frame, Process
from logsleuth.pipeline import explain_text
from logsleuth.signatures import default_signatures

# every (module, function) of the index with a function of its own (see the generic names below)
SITES = sorted({(m, f.rsplit(".", 1)[-1]) for m, f in module_functions(default_index())
                if m.startswith("vllm.") and f.rsplit(".", 1)[-1] not in {
                    "__init__", "__call__", "__post_init__", "forward", "main", "run", "<module>",
                    "wrapper", "inner", "_call_impl"}})


@settings(max_examples=60)
@given(site=st.sampled_from(SITES))
def test_a_bare_file_name_with_a_vllm_function_is_vllms(site: tuple[str, str]) -> None:
    module, function = site
    found = frame_module(module.rsplit(".", 1)[-1] + ".py", function)
    assert found is not None and found.startswith("vllm.")
    assert found.rsplit(".", 1)[-1] == module.rsplit(".", 1)[-1]


@pytest.mark.parametrize("file,function", [
    ("worker.py", "train_one_epoch"),  # a common file name, a function vLLM does not have
    ("utils.py", "my_helper"),
    ("utils.py", "__init__"),  # a file name many vLLM modules share, a function everyone has
    ("main.py", "main"),
    ("weight_utils.py", "hf_model_weights_iterator.extra"),  # a qualified name of another
    ("/home/u/project/weight_utils.py", "hf_model_weights_iterator"),  # a path outside vLLM
    ("<frozen runpy>", "_run_code"),
    ("weight_utils", "hf_model_weights_iterator"),  # not a Python file
])
def test_a_file_name_alone_or_a_path_elsewhere_is_not_vllms(file: str, function: str) -> None:
    assert frame_module(file, function) is None


def _event(*frames: tuple[str, str]) -> ErrorEvent:
    return ErrorEvent(1, EventKind.EXCEPTION, "TypeError", "'NoneType' object is not iterable",
                      Process("main"), 9, 1, 9,
                      tuple(Frame(file, 10, function) for file, function in frames))


VLLM = ("/usr/local/lib/python3.12/dist-packages/vllm/model_executor/model_loader/weight_utils.py",
        "safetensors_weights_iterator")
LIBRARY = ("/usr/local/lib/python3.12/dist-packages/transformers/processing_utils.py", "__call__")
USER = ("/home/u/eval/score.py", "collect")
STDLIB = ("/usr/lib/python3.12/json/encoder.py", "default")


@pytest.mark.parametrize("frames,expected", [
    ((USER, VLLM), True),
    ((USER, VLLM, STDLIB), True),  # Python's own code failed on what vLLM handed it
    ((USER, ("weight_utils.py", "hf_model_weights_iterator")), True),
    ((VLLM, LIBRARY), False),
    ((VLLM, USER), False),  # a callback of the user's, called by vLLM
    ((USER,), False),
    ((("run.py", "main"),), None),  # a bare name the index does not know
    ((), None),
])
def test_who_raised_an_error(frames: tuple[tuple[str, str], ...], expected: bool | None) -> None:
    assert raised_by_vllm(_event(*frames)) is expected


INTERPRETER = ["'NoneType' object is not iterable", "'builtins.safe_open' object is not iterable",
               "'NoneType' object is not subscriptable", "'int' object is not callable",
               "cannot unpack non-iterable NoneType object",
               "unsupported operand type(s) for +: 'int' and 'NoneType'",
               "forward() takes 2 positional arguments but 3 were given"]
RAISERS = {  # innermost frames -> whether vLLM's code raised it
    "vllm": ((VLLM,), True),
    "vllm-bare-paths": ((("llm_engine.py", "_init_workers"),
                         ("weight_utils.py", "hf_model_weights_iterator")), True),
    "library": ((VLLM, LIBRARY), False),
    "user": ((USER,), False),
}


@settings(max_examples=30)
@given(message=st.sampled_from(INTERPRETER), raiser=st.sampled_from(sorted(RAISERS)))
def test_the_interpreters_typeerror_is_vllms_bug_only_where_vllm_raised_it(
        message: str, raiser: str) -> None:
    frames, by_vllm = RAISERS[raiser]
    log = "Traceback (most recent call last):\n" + "".join(
        f'  File "{file}", line {n}, in {function}\n    x = call()\n'
        for n, (file, function) in enumerate(frames, start=40)) + f"TypeError: {message}\n"
    report = explain_text(log, signatures=default_signatures())
    chosen = report.signature.id if report.signature else None
    # where vLLM raised it: the family of vLLM's own bugs, or the one of the subsystem its frames
    # name (weight_utils.py is the loader's: frames weigh); never an exact signature for the same
    # words from another call path (the runner's M-RoPE positions)
    vllms = {"vllm-internal-type-error", "model-loader-rejected"}
    assert (chosen in vllms) is by_vllm, (chosen, log)
