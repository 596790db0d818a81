"""Platform plugins' documented remedies (session 28, issue 11), generated over their wordings:

- a platform plugin (any `vllm_<name>` package: vllm_ascend, vllm_gaudi, vllm_kunlun, ...) that
  imports a vLLM name, or reads a vLLM module's attribute, its vLLM release no longer has: the
  plugins' FAQs say plugin and vLLM go at the same version, and plugin-built-for-other-vllm says
  so; the same AttributeError raised in vLLM's own code (no plugin frame) is not a plugin's;
- Triton finding no backend for the device ("0 active drivers") on Intel XPU: vLLM's XPU
  installation page replaces NVIDIA's `triton` with `triton-xpu`.
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from v1log import PYTHONS, SITE_PACKAGES, python_traceback, signature_advice

_PLUGINS = st.sampled_from(["vllm_ascend", "vllm_gaudi", "vllm_kunlun", "vllm_spyre", "vllm_rbln",
                            "vllm_metax"])
_IDENT = st.from_regex(r"[A-Z][A-Za-z]{3,12}(?:_[A-Z]{2,6})?", fullmatch=True)
_VLLM_MODULE = st.sampled_from(["vllm.envs", "vllm.utils", "vllm.config", "vllm.v1.core.sched.output",
                                "vllm.model_executor.models.interfaces"])


def _plugin_log(site: str, plugin: str, module: str, name: str, attribute: bool) -> str:
    error = (f"AttributeError: module '{module}' has no attribute '{name}'" if attribute else
             f"ImportError: cannot import name '{name}' from '{module}' "
             f"({site}{module.replace('.', '/')}.py)")
    frames = [(f"{site}vllm/plugins/__init__.py", "load_general_plugins", "func()"),
              (f"{site}{plugin}/__init__.py", "register", f"from {plugin}.platform import *"),
              (f"{site}{plugin}/platform.py", "<module>", f"from {module} import {name}")]
    return ("INFO 03-11 09:14:02 [__init__.py:38] Available plugins for group vllm.general_plugins:\n"
            + python_traceback(frames, error))


@settings(max_examples=30, deadline=None)
@given(py=PYTHONS, site=SITE_PACKAGES, plugin=_PLUGINS, module=_VLLM_MODULE, name=_IDENT,
       attribute=st.booleans())
def test_a_plugin_reading_a_name_its_vllm_lacks_is_told_the_same_version(
        py: str, site: str, plugin: str, module: str, name: str, attribute: bool) -> None:
    signature, fix = signature_advice(_plugin_log(site.format(py=py), plugin, module, name, attribute))
    assert signature == "plugin-built-for-other-vllm"
    assert "same version" in fix and "VLLM_PLUGINS" in fix


@settings(max_examples=15, deadline=None)
@given(py=PYTHONS, site=st.sampled_from(["/home/u/vllm_env/lib/python{py}/site-packages/",
                                         "/opt/vllm_venv/lib/python{py}/site-packages/"]) | SITE_PACKAGES,
       name=_IDENT)
def test_vllms_own_missing_attribute_is_not_a_plugins(py: str, site: str, name: str) -> None:
    """Also where the virtualenv's own directory is named vllm_<something>."""
    site = site.format(py=py)
    frames = [(f"{site}vllm/entrypoints/cli/main.py", "main", "args.dispatch_function(args)"),
              (f"{site}vllm/engine/arg_utils.py", "create_engine_config", "envs.VLLM_X")]
    signature, _ = signature_advice(python_traceback(
        frames, f"AttributeError: module 'vllm.envs' has no attribute '{name}'"))
    assert signature != "plugin-built-for-other-vllm"


@settings(max_examples=15, deadline=None)
@given(py=PYTHONS, site=SITE_PACKAGES, runner=st.sampled_from(["xpu_model_runner", "gpu_model_runner"]))
def test_triton_without_a_driver_names_triton_xpu(py: str, site: str, runner: str) -> None:
    site = site.format(py=py)
    frames = [(f"{site}vllm/v1/worker/{runner}.py", "execute_model", "self.model(...)"),
              (f"{site}triton/runtime/driver.py", "_create_driver",
               'raise RuntimeError(f"{len(active_drivers)} active drivers ({active_drivers}). '
               'There should only be one.")')]
    _, fix = signature_advice(python_traceback(
        frames, "RuntimeError: 0 active drivers ([]). There should only be one."))
    assert "triton-xpu" in fix
