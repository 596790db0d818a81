"""Classes whose advice must name the remedy that holds for the whole class, from session 21's
random development split (each generated over its members, eras and call paths, with a near miss
that keeps its own advice):

- a checkpoint tensor with no parameter in vLLM's model: the weight-name family names the output
  head of a model that ties it to its embeddings (`tie_word_embeddings`, vllm#6758) among its
  layouts, for the keys no exact signature reads (a retyped or cut name);"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from v1log import python_traceback, signature_advice

_PY = st.sampled_from(["3.9", "3.10", "3.11", "3.12"])
_SITE = st.sampled_from(["/usr/local/lib/python{py}/dist-packages/",
                         "/home/u/.venv/lib/python{py}/site-packages/",
                         "/opt/conda/lib/python{py}/site-packages/"])
# how a traceback reaches the log: bare, under an engine core's or a worker's ERROR record, or
# behind torchrun's rank prefix
_PREFIX = st.sampled_from(["", "ERROR 07-28 10:42:05 [core.py:387] ",
                           "(VllmWorker rank=0 pid=812) ERROR 07-28 10:42:05 "
                           "[multiproc_executor.py:470] ",
                           "[rank0]: "])


# ---- a checkpoint tensor vLLM's model has no parameter for --------------------------------------

_LOADERS = st.sampled_from([
    # V0 of 2024: the model loader calls the model class's load_weights
    [("vllm/model_executor/model_loader.py", "get_model",
      "model.load_weights(model_config.model, model_config.download_dir,")],
    # later: the default loader, then the model's load_weights through AutoWeightsLoader
    [("vllm/model_executor/model_loader/loader.py", "load_model",
      "loaded_weights = model.load_weights(self._get_all_weights(model_config, model))"),
     ("vllm/model_executor/models/utils.py", "load_weights",
      "autoloaded_weights = set(self._load_module(\"\", self.module, weights))")],
])


@settings(max_examples=30, deadline=None)
@given(model=st.sampled_from(["gemma", "llama", "qwen2", "minicpm", "phi3", "mistral"]),
       key=st.sampled_from(["model.layers.7.self_attn.rotary_emb.inv_freq",
                            "model.layers.0.self_attn.o_proj.input_scale",
                            "language_model.model.embed_tokens.weight",
                            "transformer.h.0.ln_1.bias",
                            "model.layers.2.mlp.down_proj.bias"]),
       loaders=_LOADERS, prefix=_PREFIX, py=_PY, site=_SITE)
def test_a_weight_name_the_model_lacks_names_the_tied_output_head(
        model: str, key: str, loaders: list[tuple[str, str, str]], prefix: str, py: str,
        site: str) -> None:
    root = site.format(py=py)
    frames = ([(root + path, function, code) for path, function, code in loaders]
              + [(root + f"vllm/model_executor/models/{model}.py", "load_weights",
                  "param = params_dict[name]")])
    signature, fix = signature_advice(python_traceback(frames, f"KeyError: '{key}'", prefix))
    assert signature == "weight-name-not-in-model"
    assert "tie_word_embeddings" in fix and "vllm#6758" in fix
    assert "--revision" in fix and "--quantization" in fix  # the family's other layouts stay


@settings(max_examples=10, deadline=None)
@given(model=st.sampled_from(["gemma", "llama", "minicpm"]), prefix=_PREFIX, py=_PY, site=_SITE)
def test_the_output_head_key_itself_keeps_its_exact_answer(
        model: str, prefix: str, py: str, site: str) -> None:
    root = site.format(py=py)
    frames = [(root + "vllm/model_executor/model_loader.py", "get_model",
               "model.load_weights(model_config.model, model_config.download_dir,"),
              (root + f"vllm/model_executor/models/{model}.py", "load_weights",
               "param = params_dict[name]")]
    signature, _ = signature_advice(python_traceback(frames, "KeyError: 'lm_head.weight'", prefix))
    assert signature in {"tied-lm-head-weight-in-checkpoint", "lm-head-weight-with-tied-embeddings"}
