"""The action a message's wording implies (issue 11; signatures/remedy.yaml `implies`).

Many messages state their cause in words that name what to change, but no remedy sentence:
"your version of Transformers is out of date", "requires flashinfer>=0.2.3", "xformers 0.0.27
is not supported", "numactl ... is not installed". The advice fills in the package, version and
operator the message itself names; a message whose words name none gets none. Messages are
generated: packages, versions and surrounding prose that no shipped log holds."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from logsleuth.errors import SignatureError
from logsleuth.model import SignatureKind
from logsleuth.pipeline import explain_text
from logsleuth.remedy import advice_of, default_phrasing, load_phrasing
from logsleuth.signatures import default_signatures

# pip-like names (letters first; `-`, `_` and digits inside) that are no English word a rule skips
PACKAGES = st.from_regex(r"[a-z]{2,6}(?:[-_][a-z0-9]{2,5}){0,2}", fullmatch=True).filter(
    lambda p: p not in {"but", "it", "this", "that", "which", "and", "or", "one", "vllm"})
VERSIONS = st.lists(st.integers(min_value=0, max_value=40).map(str), min_size=2, max_size=4) \
    .map(".".join)
OPERATORS = st.sampled_from([">=", "==", ">", "~="])
PROSE = st.sampled_from(["", "The layer could not be built. ", "Loading the model failed: ",
                         "While starting the engine, ", "[rank0]: "])
TAIL = st.sampled_from(["", ".", " for this model.", " (see the docs).", "; aborting."])

# (wording, what the advice must name): the rule families of remedy.yaml
WORDINGS = [
    ("because your version of {Pkg} is out of date", ["upgrade {pkg}", "pip install -U {pkg}"]),
    ("the version of {pkg} you have installed is too old", ["pip install -U {pkg}"]),
    ("{pkg} {ver} is too old", ["{pkg} {ver}", "pip install -U {pkg}"]),
    ("this feature requires {pkg}{op}{ver}", ["pip install '{pkg}{op}{ver}'"]),
    ("this model needs `{pkg}` {op} {ver}", ["pip install '{pkg}{op}{ver}'"]),
    ("{pkg}>={ver} is required", ["pip install '{pkg}>={ver}'"]),
    ("it requires {pkg} version {ver} or higher", ["pip install '{pkg}>={ver}'"]),
    ("minimum version of {pkg} required is {ver}", ["pip install '{pkg}>={ver}'"]),
    ("{pkg} {ver} is not supported", ["{pkg} {ver}", "pip show vllm"]),
    ("{pkg} is not installed", ["pip install {pkg}", "apt-get install {pkg}"]),
    ("{pkg} is required for this backend but is not installed", ["pip install {pkg}"]),
    ("{pkg} {ver} or later is required", ["pip install '{pkg}>={ver}'"]),
    ("the `{name}` argument was removed in v{ver}", ["removed in {ver}", "below {ver}"]),
    # a removal a named package made (NumPy 2's `newbyteorder`, vllm#16134): the call's package
    ("`{name}` was removed from the ndarray class in {Pkg} {ver}",
     ["{pkg}<{ver}", "upgrade the package whose code makes the call"]),
    ("{ENV} environment variable is not set", ["export {ENV}=", "-e {ENV}="]),
]
# prose whose words name no package to change: settings compared with numbers, shapes, states
NOT_IMPLYING = [
    "max_model_len ({num}) must be >= {num2}",
    "The model requires {name} > {num}",
    "the tensor {name} has shape ({num},) but ({num2},) was expected",
    "expected {name} to be on cuda:0 but found it on cpu",
    "{name} failed with status {num}",
    "The package is not installed correctly",
    "Use of {name} is deprecated and will be removed",
    "block {num} of {name} is out of range",
    "No module named 'vllm.{name}'",
    "The version {num}.{num2} is required",
    "at least {num}.{num2} is required for {name}",
    "CUDA error: {name} is not set",
]


@st.composite
def implying(draw: st.DrawFn, wordings: tuple[tuple[str, list[str]], ...] = tuple(WORDINGS)
             ) -> tuple[str, list[str]]:
    pkg, ver, op = draw(PACKAGES), draw(VERSIONS), draw(OPERATORS)
    wording, wanted = draw(st.sampled_from(wordings))
    fill = {"pkg": pkg, "Pkg": pkg.capitalize(), "ver": ver, "op": op,
            "name": draw(st.from_regex(r"[a-z]{3,8}(?:_[a-z]{2,6}){1,2}", fullmatch=True)),
            "ENV": draw(st.from_regex(r"[A-Z]{3,6}_[A-Z]{2,8}", fullmatch=True))}
    message = draw(PROSE) + wording.format(**fill) + draw(TAIL)
    return message, [w.format(**fill) for w in wanted]


@pytest.mark.parametrize("wording", WORDINGS, ids=[w for w, _ in WORDINGS])
@settings(max_examples=40, deadline=None)
@given(data=st.data())
def test_the_wording_implies_an_action_naming_what_the_message_names(
        wording: tuple[str, list[str]], data: st.DataObject) -> None:
    message, wanted = data.draw(implying((wording,)))
    advice = default_phrasing().implied_by(message)
    assert advice is not None, message
    for text in wanted:
        assert text in advice, (message, advice)
    assert "{" not in advice  # every place filled from the message


@pytest.mark.parametrize("template", NOT_IMPLYING)
@settings(max_examples=30, deadline=None)
@given(name=st.from_regex(r"[a-z]{3,8}(?:_[a-z]{2,6}){1,2}",
                           fullmatch=True),
       num=st.integers(min_value=2, max_value=99999), num2=st.integers(min_value=2, max_value=99999))
def test_words_that_name_nothing_to_change_imply_nothing(template: str, name: str, num: int,
                                                         num2: int) -> None:
    message = template.format(name=name, num=num, num2=num2)
    assert default_phrasing().implied_by(message) is None, message


@settings(max_examples=100, deadline=None)
@given(implying())
def test_a_stated_remedy_comes_first_and_the_implied_action_is_added(
        case: tuple[str, list[str]]) -> None:
    message, wanted = case
    advice = advice_of(f"{message}. Please check the model card")
    assert advice is not None and advice.startswith("Please check the model card")
    assert all(text in advice for text in wanted), advice


LIBRARIES = {"acme_kernels": "acme_kernels/ops.py", "transformers": "transformers/configuration_utils.py",
             "zeta_plugin": "zeta_plugin/loader.py"}


@settings(max_examples=25, deadline=None)
@given(implying(), st.sampled_from(sorted(LIBRARIES)),
       st.sampled_from(["ValueError", "RuntimeError", "ImportError"]))
def test_the_report_fix_carries_the_implied_action(case: tuple[str, list[str]], library: str,
                                                   cls: str) -> None:
    message, wanted = case
    log = ("Traceback (most recent call last):\n"
           '  File "/home/user/serve.py", line 12, in <module>\n'
           "    main()\n"
           f'  File "/opt/venv/lib/python3.12/site-packages/{LIBRARIES[library]}", line 88, in load\n'
           f"    raise {cls}(msg)\n"
           f"{cls}: {message}\n")
    report = explain_text(log, signatures=default_signatures())
    assert report.signature is not None
    if report.signature.kind is not SignatureKind.EXACT:
        # a fallback gives way to the message's action; a family's fix gains it
        assert report.signature.kind in (SignatureKind.MESSAGE, SignatureKind.FAMILY)
        assert any(text in report.signature.fix for text in wanted), \
            (message, report.signature.id, report.signature.fix[-400:])


def test_a_rule_must_capture_what_its_advice_names(tmp_path: Path) -> None:
    base = "opens: [please]\nanywhere: [please]\nnot_opening: [x]\nnot_remedy: [y]\n"
    bad = tmp_path / "remedy.yaml"
    bad.write_text(base + "implies:\n  - when: 'needs (?P<package>\\w+)'\n"
                   "    then: 'install {package} {version}'\n")
    with pytest.raises(SignatureError, match="version"):
        load_phrasing(bad)
    bad.write_text(base + "implies:\n  - when: 'needs ('\n    then: 'x'\n")
    with pytest.raises(SignatureError, match="implies"):
        load_phrasing(bad)
    bad.write_text(base + "implies:\n  - when: 'x'\n")
    with pytest.raises(SignatureError, match="implies"):
        load_phrasing(bad)
    bad.write_text(base + "crossing: ['(']\n")
    with pytest.raises(SignatureError, match="crossing"):
        load_phrasing(bad)


def test_a_package_whose_name_is_inside_a_word_of_the_fix_is_still_added() -> None:
    # `ba` is in "batch" and "base": a setting counts as named only as a whole name
    log = ("Traceback (most recent call last):\n"
           '  File "/opt/venv/lib/python3.12/site-packages/transformers/configuration_utils.py", '
           "line 88, in load\n"
           "    raise ValueError(msg)\n"
           "ValueError: because your version of Ba is out of date\n")
    report = explain_text(log, signatures=default_signatures())
    assert report.signature is not None and report.signature.kind is SignatureKind.FAMILY
    assert "pip install -U ba" in report.signature.fix


def _pip_names() -> dict[str, str]:
    from logsleuth.resources import data_dir
    from logsleuth.yamlload import load_yaml
    data, _ = load_yaml(data_dir("signatures") / "remedy.yaml")
    return dict(data["pip_names"])


@pytest.mark.parametrize(("module", "pip_name"), sorted(_pip_names().items()))
@pytest.mark.parametrize("form", ["No module named '{m}'", "No module named '{m}.{sub}'",
                                  "ModuleNotFoundError: No module named '{m}.{sub}.{sub}'"])
def test_a_missing_module_is_installed_by_its_pip_name(module: str, pip_name: str,
                                                       form: str) -> None:
    """`import flashinfer` comes from `flashinfer-python`, `import mooncake` from
    `mooncake-transfer-engine`: the advice spells the name pip installs, whichever module of the
    package was missing."""
    advice = advice_of(form.format(m=module, sub="core"))
    assert advice is not None and f"pip install {pip_name}" in advice.replace("-U ", ""), advice
