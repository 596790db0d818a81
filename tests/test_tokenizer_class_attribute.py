"""An attribute missing on a tokenizer class reaches the tokenizer family that names the
transformers pin (tokenizer-class-attribute-missing), by the class name in the message, whatever
frame raised it: Python raises an AttributeError in the frame that reads the attribute, so vLLM's
tokenizer code, the renderers, transformers' `__getattr__` or nothing at all may come last.
An attribute missing on a config, a processor or a feature extractor in the same shapes stays
model-config-attribute-missing's; an attribute missing on `None` is neither's.

Generated: the class (a model's `...Tokenizer` / `...TokenizerFast`, vLLM's cached wrapper's
`Cached...`, transformers' `PreTrainedTokenizer*` and transformers 5's `TokenizersBackend`), the
attribute, Python's two wordings (with or without transformers' "Did you mean"), the frames and
the process prefix (bare, the engine core's ERROR records, the API server's)."""

from __future__ import annotations

from functools import cache

from hypothesis import given, settings
from hypothesis import strategies as st

from logsleuth.pipeline import explain_text
from logsleuth.signatures import SignatureSet, default_signatures
from tool_import import import_tool
from v1log import python_traceback

SITE = "/usr/local/lib/python3.12/dist-packages/"
VLLM = SITE + "vllm/"
TOKENIZER = "tokenizer-class-attribute-missing"
CONFIG = "model-config-attribute-missing"

# the call paths that read a tokenizer's (or a config's) attributes
VLLM_TOKENIZER = [(VLLM + "v1/engine/async_llm.py", "__init__"),
                  (VLLM + "transformers_utils/tokenizer.py", "get_tokenizer"),
                  (VLLM + "transformers_utils/tokenizer.py", "get_cached_tokenizer")]
VLLM_TOKENIZERS = [(VLLM + "tokenizers/registry.py", "get_tokenizer"),
                   (VLLM + "tokenizers/hf.py", "get_cached_tokenizer")]
RENDERER = [(VLLM + "entrypoints/openai/serving_chat.py", "create_chat_completion"),
            (VLLM + "renderers/hf.py", "render_messages")]
TRANSFORMERS = [(SITE + "transformers/tokenization_utils_base.py", "__getattr__")]
MODEL = [(VLLM + "v1/engine/core.py", "__init__"),
         (VLLM + "model_executor/models/qwen2.py", "__init__")]
PATHS = [[], VLLM_TOKENIZER, VLLM_TOKENIZER + TRANSFORMERS, VLLM_TOKENIZERS,
         VLLM_TOKENIZERS + TRANSFORMERS, RENDERER, TRANSFORMERS]

PREFIXES = st.sampled_from([
    "", "(EngineCore_DP0 pid=4100) ERROR 11-03 14:02:16 [core.py:708] ", "(APIServer pid=77) ",
    "(APIServer pid=77) ERROR 11-03 14:02:16 [api_server.py:1912] "])
MODELS = st.sampled_from(["Qwen2", "Llama", "Gemma", "GPT2", "Bert", "T5", "DeepseekV3",
                          "Cohere", "Phi3", "InternLM2", "ChatGLM", "Baichuan"])
ATTRIBUTES = st.from_regex(r"[a-z][a-z0-9]{1,9}(?:_[a-z0-9]{1,9}){0,3}", fullmatch=True)

TOKENIZER_CLASSES = st.one_of(
    st.builds(lambda cached, model, suffix: cached + model + suffix,
              st.sampled_from(["", "Cached"]), MODELS,
              st.sampled_from(["Tokenizer", "TokenizerFast"])),
    st.sampled_from(["TokenizersBackend", "PreTrainedTokenizer", "PreTrainedTokenizerFast",
                     "PreTrainedTokenizerBase"]))
# same words, another object: a config, a processor, a feature extractor
OTHER_CLASSES = st.builds(lambda model, suffix: model + suffix, MODELS,
                          st.sampled_from(["Config", "TextConfig", "Processor", "VLProcessor",
                                           "ImageProcessor", "ImageProcessorFast",
                                           "FeatureExtractor"]))


@cache
def families() -> SignatureSet:
    return import_tool("family_loo", "loo").families_only(default_signatures())


def _error(cls: str, attribute: str, quoted: bool, hint: str | None) -> str:
    if quoted:  # Python's own wording
        return f"AttributeError: '{cls}' object has no attribute '{attribute}'"
    # transformers' `__getattr__` (tokenization_utils_base.py) names the class bare
    return (f"AttributeError: {cls} has no attribute {attribute}"
            + (f". Did you mean: '{hint}'?" if hint else ""))


def _log(error: str, frames: list[tuple[str, str]], prefix: str) -> str:
    if not frames:
        return prefix + error + "\n"
    return python_traceback([(path, function, "call(...)") for path, function in frames], error,
                            prefix)


@st.composite
def attribute_logs(draw: st.DrawFn, classes: st.SearchStrategy[str], bare: bool = True) -> str:
    # the bare wording is transformers' tokenizer `__getattr__`'s; configs and processors get
    # Python's own
    quoted = draw(st.booleans()) if bare else True
    error = _error(draw(classes), draw(ATTRIBUTES), quoted,
                   draw(st.none() | st.just("num_special_tokens_to_add")))
    return _log(error, draw(st.sampled_from(PATHS + [MODEL])), draw(PREFIXES))


@settings(max_examples=80, deadline=None)
@given(attribute_logs(TOKENIZER_CLASSES))
def test_a_tokenizer_class_attribute_reaches_the_tokenizer_family(log: str) -> None:
    report = explain_text(log, signatures=families())
    assert report.signature is not None, log
    assert report.signature.id == TOKENIZER, (log, report.signature.id)
    assert 'transformers<5' in report.signature.fix, log


@settings(max_examples=40, deadline=None)
@given(attribute_logs(TOKENIZER_CLASSES.filter(lambda c: "Mistral" not in c)))
def test_with_every_signature_the_advice_names_the_transformers_pin(log: str) -> None:
    # an exact signature may answer (transformers 5's removed attributes, a tokenizer object
    # passed as a path): whichever does, a tokenizer class's missing attribute is answered
    # with the pin among its remedies, not by the config family's
    report = explain_text(log, signatures=default_signatures())
    assert report.signature is not None, log
    assert report.signature.id != CONFIG, log
    if report.signature.id != "tokenizer-object-passed-as-path":
        assert 'transformers<5' in report.signature.fix, (log, report.signature.id)


@settings(max_examples=60, deadline=None)
@given(attribute_logs(OTHER_CLASSES, bare=False))
def test_a_config_or_processor_attribute_stays_with_the_config_family(log: str) -> None:
    report = explain_text(log, signatures=families())
    assert report.signature is not None, log
    assert report.signature.id == CONFIG, (log, report.signature.id)


@settings(max_examples=20, deadline=None)
@given(st.sampled_from(PATHS[1:]), PREFIXES, ATTRIBUTES)
def test_an_attribute_of_none_on_the_tokenizer_path_is_not_a_tokenizer_class(
        frames: list[tuple[str, str]], prefix: str, attribute: str) -> None:
    log = _log(f"AttributeError: 'NoneType' object has no attribute '{attribute}'", frames,
               prefix)
    report = explain_text(log, signatures=families())
    assert report.signature is None or report.signature.id != TOKENIZER, log
