"""kv-connector-base-class-mismatch: a connector package's subclass of vLLM's connector base
classes (`KVConnectorBase_V1` and its metadata classes) calls them with another release's
arguments: Python's TypeError is raised in the package's own frame (LMCache's, Mooncake's,
Dynamo's adapter), so the module does not say KV transfer; the base class's name does. Members
are generated: base class, method, the three ways Python words an argument mismatch, connector
package and process prefix. Near miss: a constructor TypeError of another class under Ray's
unpickling frames stays Ray's."""

from __future__ import annotations

import string

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from logsleuth.pipeline import explain_text
from logsleuth.signatures import default_signatures

SITE = "/usr/local/lib/python3.12/dist-packages/"
_NAME = st.text(string.ascii_lowercase, min_size=3, max_size=8)
_ARG = st.lists(_NAME, min_size=1, max_size=3).map("_".join)
_BASE = st.sampled_from(("KVConnectorBase_V1", "KVConnectorBase", "KVConnectorMetadata",
                         "KVConnectorHandshakeMetadata"))
_METHOD = st.one_of(st.just("__init__"), _ARG)
_PACKAGE = st.sampled_from(("lmcache/integration/vllm/lmcache_connector_v1.py",
                            "lmcache/integration/vllm/vllm_v1_adapter.py",
                            "mooncake/vllm_v1_proxy_server.py",
                            "kvbm/vllm_integration/connector/dynamo_connector.py"))
_PREFIX = st.sampled_from(("", "(EngineCore_DP0 pid=4100) ", "(Worker_TP0 pid=4201) "))


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data(), base=_BASE, method=_METHOD, arg=_ARG, package=_PACKAGE, prefix=_PREFIX)
def test_a_connector_subclass_calling_the_base_class_wrongly_gets_the_family(
        data: st.DataObject, base: str, method: str, arg: str, package: str,
        prefix: str) -> None:
    words = data.draw(st.sampled_from((
        f"missing 1 required positional argument: '{arg}'",
        f"got an unexpected keyword argument '{arg}'",
        "takes 3 positional arguments but 4 were given")))
    lines = ["Traceback (most recent call last):",
             f'  File "{SITE}vllm/distributed/kv_transfer/kv_connector/factory.py", line 60, '
             "in create_connector", "    return connector_cls(config, role)",
             f'  File "{SITE}{package}", line 30, in {method}',
             f"    super().{method}(vllm_config=vllm_config, role=role)",
             f"TypeError: {base}.{method}() {words}"]
    report = explain_text("".join(f"{prefix}{line}\n" for line in lines),
                          signatures=default_signatures())
    assert report.signature is not None
    # "unexpected keyword argument" is also the installed-packages family's own words (its fix
    # names the two packages of the call): either answers, never Ray's or a fallback
    expected = {"kv-connector-base-class-mismatch"} | (
        {"python-package-version-mismatch"} if "unexpected keyword" in words else set())
    assert report.signature.id in expected, report.signature.id


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(arg=_ARG, cls=st.sampled_from(("BackendCompilerFailed", "InductorError",
                                      "TorchRuntimeError")))
def test_near_miss_another_class_under_rays_unpickling_stays_rays(arg: str, cls: str) -> None:
    lines = ["Traceback (most recent call last):",
             f'  File "{SITE}ray/_private/serialization.py", line 400, in _deserialize_object',
             "    return RayError.from_bytes(obj)",
             f'  File "{SITE}ray/exceptions.py", line 50, in from_ray_exception',
             "    raise RuntimeError(msg) from e",
             f"TypeError: {cls}.__init__() missing 1 required positional argument: '{arg}'"]
    report = explain_text("".join(f"{line}\n" for line in lines), signatures=default_signatures())
    assert report.signature is not None
    assert report.signature.id == "ray-exception-not-deserializable", report.signature.id
