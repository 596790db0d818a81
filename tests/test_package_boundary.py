"""The two packages a call failed between (issue 11): a TypeError raised where one installed
package calls another (a framework built for another vLLM, vLLM against another transformers)
says their releases do not fit; a family's or fallback's fix names both, read from the frames.
Tracebacks are generated: package names, layouts (site-/dist-packages, venv, conda), Python's
own frames in between, and callers that are the user's code."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from logsleuth.errors import SignatureError
from logsleuth.index.origin import package_boundary
from logsleuth.model import SignatureKind
from logsleuth.pipeline import explain_text
from logsleuth.remedy import default_phrasing, load_phrasing
from logsleuth.resources import data_dir
from logsleuth.signatures import default_signatures

NAMES = st.from_regex(r"[a-z]{3,7}(?:_[a-z]{2,4})?", fullmatch=True).filter(lambda n: n != "vllm")
ROOTS = st.sampled_from(["/usr/local/lib/python3.11/dist-packages",
                         "/opt/conda/envs/rl/lib/python3.10/site-packages",
                         "/home/u/.venv/lib/python3.12/site-packages"])
STDLIB = st.sampled_from(['  File "/usr/lib/python3.12/functools.py", line 888, in wrapper\n'
                          "    return dispatch(args[0].__class__)(*args, **kw)\n",
                          '  File "<frozen runpy>", line 88, in _run_code\n', ""])
# a call passed on by another package's forwarding function (torch's module call, a decorator)
FORWARDING = st.sampled_from([
    "", '  File "/usr/local/lib/python3.11/dist-packages/torch/nn/modules/module.py", line 1751, '
        "in _wrapped_call_impl\n    return self._call_impl(*args, **kwargs)\n",
    '  File "/usr/local/lib/python3.11/dist-packages/torch/utils/_contextlib.py", line 116, '
    "in decorate_context\n    return func(*args, **kwargs)\n"])
CALL_MISFITS = ["Builder.__init__() got an unexpected keyword argument '{kw}'",
                "build() missing 1 required positional argument: '{kw}'",
                "Runner.step() takes 2 positional arguments but 3 were given",
                "make() got multiple values for argument '{kw}'"]


def _frame(root: str, package: str, function: str) -> str:
    return (f'  File "{root}/{package}/core/{function}.py", line 42, in {function}\n'
            f"    return {function}(**kwargs)\n")


def _traceback(frames: list[str], cls: str, message: str) -> str:
    return "Traceback (most recent call last):\n" + "".join(frames) + f"{cls}: {message}\n"


@settings(max_examples=60, deadline=None)
@given(caller=NAMES, callee=st.one_of(NAMES, st.just("vllm")), root=ROOTS, between=STDLIB,
       forwarding=FORWARDING, misfit=st.sampled_from(CALL_MISFITS),
       keyword=st.from_regex(r"[a-z]{3,8}_[a-z]{2,6}", fullmatch=True))
def test_a_call_misfit_between_two_packages_names_both(caller: str, callee: str, root: str,
                                                       between: str, forwarding: str,
                                                       misfit: str, keyword: str) -> None:
    if caller == callee or "torch" in (caller, callee):
        return
    frames = ['  File "/home/u/train.py", line 3, in <module>\n    main()\n',
              _frame(root, caller, "load"), between, forwarding, _frame(root, callee, "build")]
    log = _traceback(frames, "TypeError", misfit.format(kw=keyword))
    report = explain_text(log, signatures=default_signatures())
    assert report.root_cause is not None and report.signature is not None
    assert package_boundary(report.root_cause, default_phrasing().forwarding) == (caller, callee)
    if report.signature.kind in (SignatureKind.FAMILY, SignatureKind.FALLBACK):
        fix = report.signature.fix
        assert f"`{caller}`" in fix and f"`{callee}`" in fix, fix[-400:]
        assert f"pip install -U {caller}" in fix


@settings(max_examples=40, deadline=None)
@given(callee=st.one_of(NAMES, st.just("vllm")), root=ROOTS, between=STDLIB)
def test_a_call_from_the_users_code_names_no_pair(callee: str, root: str, between: str) -> None:
    frames = ['  File "/home/u/app/serve.py", line 9, in start\n    build(x=1)\n', between,
              _frame(root, callee, "build"), _frame(root, callee, "inner")]
    log = _traceback(frames, "TypeError", "build() got an unexpected keyword argument 'x'")
    report = explain_text(log, signatures=default_signatures())
    assert report.root_cause is not None and package_boundary(report.root_cause, default_phrasing().forwarding) is None
    assert report.signature is None or "The failing call runs from" not in report.signature.fix


@settings(max_examples=30, deadline=None)
@given(caller=NAMES, callee=NAMES, root=ROOTS,
       error=st.sampled_from([("AttributeError", "'Engine' object has no attribute 'step_x'"),
                              ("ValueError", "got an unexpected keyword argument 'x'"),
                              ("TypeError", "only integer tensors of a single element can be "
                                            "converted to an index"),
                              ("TypeError", "'NoneType' object is not subscriptable")]))
def test_other_errors_name_no_pair(caller: str, callee: str, root: str,
                                   error: tuple[str, str]) -> None:
    # an AttributeError is raised in the code that reaches for the name: whose name it is, the
    # frames do not show; a TypeError about a value, not a call, is no sign of two releases
    if caller == callee:
        return
    frames = [_frame(root, caller, "load"), _frame(root, callee, "build")]
    report = explain_text(_traceback(frames, *error), signatures=default_signatures())
    assert report.signature is None or "The failing call runs from" not in report.signature.fix


def test_forwarding_names_are_checked_when_the_phrasing_loads(tmp_path: Path) -> None:
    shipped = data_dir("signatures") / "remedy.yaml"
    text = shipped.read_text(encoding="utf-8")
    assert "\nforwarding:" in text and "_call_impl" in default_phrasing().forwarding
    bad = tmp_path / "remedy.yaml"
    bad.write_text(text.replace("\nforwarding: [", "\nforwarding: [torch.nn.Module, "),
                   encoding="utf-8")
    with pytest.raises(SignatureError, match="forwarding"):
        load_phrasing(bad)
