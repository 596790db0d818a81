"""The keys of vLLM's JSON-valued settings (logsleuth/index/keys.py, mined by
tools/vllm_index/config_keys.py): a configuration error that names a field set inside a JSON flag
(`cudagraph_mode` in `--compilation-config`, `kv_role` in `--kv-transfer-config`) gets a family
fix that names the key with its flag and the JSON to write; a checkpoint's own value or an engine
argument of its own is no such key."""

from __future__ import annotations

import json

from hypothesis import given, settings
from hypothesis import strategies as st

from logsleuth.index.data import default_index
from logsleuth.index.keys import ConfigKey, default_config_keys, keys_named
from logsleuth.pipeline import explain_text
from logsleuth.signatures import default_signatures
from v1log import python_traceback

_SITE = "/usr/local/lib/python3.12/dist-packages/vllm/"
_PREFIX = st.sampled_from(["", "(EngineCore_DP0 pid=4100) ERROR 02-05 10:11:30 [core.py:1150] ",
                           "(APIServer pid=12) "])
_KEYS = sorted(default_config_keys())
_FORMS = st.sampled_from(["{key} must be set when {other} is enabled.",
                          "Invalid value for {key}: 7. Please check your configuration.",
                          "`{key}` is not supported with this model; got 3",
                          "{key}=FULL is not compatible with the selected backend"])


def test_every_key_is_set_through_a_flag_vllm_has_and_is_no_engine_argument() -> None:
    index = default_index()
    flags = {a.flag for a in index.arguments}
    fields = {a.field for a in index.arguments}
    keys = default_config_keys()
    assert len(keys) > 100
    for key in keys.values():
        assert key.flag in flags and key.key not in fields
        assert key.path.split(".")[-1] == key.key


def test_the_example_is_the_flag_with_its_json() -> None:
    nested = ConfigKey("fuse_attn_quant", "--compilation-config", "pass_config.fuse_attn_quant")
    flag, _, value = nested.example.partition(" ")
    assert flag == "--compilation-config"
    assert json.loads(value.strip("'").replace("...", "true")) == {
        "pass_config": {"fuse_attn_quant": True}}


def test_a_checkpoint_value_or_an_engine_argument_is_no_key() -> None:
    assert keys_named("hidden_size must match the target's; max_model_len too large") == ()
    assert [k.key for k in keys_named("Please specify kv_role when kv_connector is set")] == [
        "kv_role", "kv_connector"]


@settings(max_examples=60, deadline=None)
@given(key=st.sampled_from(_KEYS), form=_FORMS, prefix=_PREFIX,
       module=st.sampled_from(["config/vllm.py", "config/compilation.py", "config/parallel.py"]))
def test_a_configuration_error_naming_a_key_gets_its_flag_in_the_fix(
        key: str, form: str, prefix: str, module: str) -> None:
    message = form.format(key=key, other="enable_prefix_caching")
    log = python_traceback([(f"{_SITE}engine/arg_utils.py", "create_engine_config",
                             "config = VllmConfig("),
                            (f"{_SITE}{module}", "__post_init__", "raise ValueError(")],
                           f"ValueError: {message}", prefix)
    report = explain_text(log, signatures=default_signatures())
    assert report.signature is not None, log
    flag = default_config_keys()[key].flag
    fix = report.signature.fix
    assert key in fix, (report.signature.id, fix)
    if report.signature.kind.value == "family" and f"`{key}`" not in default_signatures().get(
            report.signature.id).fix:
        assert f"`{key}` in `{flag}`" in fix
