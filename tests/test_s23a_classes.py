"""Classes from session 23's cold sweep of even-numbered vLLM threads about start-up and launch
failures (s23a-* tuning cases), each generated over its eras, wordings and the prefixes a
launcher gives it, with near misses that keep their own answers:

- a container run under a user ID with no /etc/passwd entry (OpenShift's arbitrary UIDs,
  Kubernetes `runAsUser`, `docker run --user`): getpass.getuser() falls through to
  pwd.getpwuid() and raises "KeyError: 'getpwuid(): uid not found: <uid>'" (Python 3.13 and
  later re-raise it as "OSError: No username set in the environment"); torch 2.11's inductor asks
  for the user name when it is imported, so vLLM 0.20+ images stop at start-up, in the
  model-inspection subprocess or at `import vllm` (vllm issue 44548):
  container-uid-without-passwd-entry;
- argparse stopping the start-up over what a launcher put on the command line: a sampling
  setting (--temperature) a wrapper's template adds, which `vllm serve` has never had, and a
  container command repeating the image's `vllm serve` entrypoint (vllm#22072's class):
  engine-config-invalid's family knowledge (points 11 and 12)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from v1log import TRACEBACK_PREFIXES, python_traceback, signature_advice

# Where a container's output reaches the report: bare, a V1 engine core's prefix, a compose
# service's, or `kubectl logs --timestamps`.
_LAUNCH_PREFIXES = st.one_of(TRACEBACK_PREFIXES, st.sampled_from([
    "(EngineCore_DP0 pid=88) ", "vllm-1  | ", "2026-07-14T09:08:03.948123456Z "]))
_UIDS = st.integers(min_value=1000, max_value=4_000_000_000)
_SITES = st.sampled_from(["/usr/local/lib/python{py}/dist-packages/",
                          "/opt/venv/lib/python{py}/site-packages/"])

# What asks for the user name: torch 2.11's inductor cache directory (imported by vLLM), or
# os.path.expanduser('~') with no HOME (huggingface_hub's default cache).
_LOOKUPS = st.sampled_from([
    ("torch/_inductor/runtime/cache_dir_utils.py", "default_cache_dir",
     "sanitized_username = re.sub(r'[\\\\/:*?\"<>|]', \"_\", getpass.getuser())",
     "getpass.py", "getuser", "return pwd.getpwuid(os.getuid())[0]"),
    ("huggingface_hub/constants.py", "<module>",
     "default_home = os.path.join(os.path.expanduser(\"~\"), \".cache\")",
     "posixpath.py", "expanduser", "userhome = pwd.getpwuid(os.getuid()).pw_dir"),
])

# How vLLM reached the import: the model-inspection subprocess, or `import vllm` itself.
_ENTRIES = st.sampled_from([
    [("vllm/model_executor/models/registry.py", "<module>", "from vllm.model_executor.models import *")],
    [("vllm/__init__.py", "<module>", "import vllm.env_override  # noqa: F401"),
     ("vllm/env_override.py", "<module>",
      "from torch._dynamo.convert_frame import GraphCaptureOutput")],
])


@settings(max_examples=40, deadline=None)
@given(uid=_UIDS, prefix=_LAUNCH_PREFIXES, py=st.sampled_from(["3.10", "3.11", "3.12", "3.13"]),
       site=_SITES, lookup=_LOOKUPS, entry=_ENTRIES)
def test_a_uid_without_a_passwd_entry_gets_a_user_name(
        uid: int, prefix: str, py: str, site: str,
        lookup: tuple[str, str, str, str, str, str], entry: list[tuple[str, str, str]]) -> None:
    root = site.format(py=py)
    path, function, code, std_module, std_function, std_code = lookup
    frames = [(root + p, f, c) for p, f, c in entry] + [
        (root + path, function, code), (f"/usr/lib/python{py}/{std_module}", std_function, std_code)]
    error = f"KeyError: 'getpwuid(): uid not found: {uid}'"
    if py == "3.13" and std_function == "getuser":
        # Python 3.13's getpass.getuser() re-raises the lookup's KeyError as an OSError
        error += ("\n\nThe above exception was the direct cause of the following exception:\n\n"
                  "OSError: No username set in the environment")
    signature, fix = signature_advice(python_traceback(frames, error, prefix))
    assert signature == "container-uid-without-passwd-entry"
    assert "USER" in fix and "/etc/passwd" in fix


@settings(max_examples=20, deadline=None)
@given(uid=_UIDS, prefix=_LAUNCH_PREFIXES)
def test_the_python_313_wording_alone_gets_the_same_answer(uid: int, prefix: str) -> None:
    frames = [("/usr/lib/python3.13/getpass.py", "getuser",
               "raise OSError('No username set in the environment') from e")]
    signature, fix = signature_advice(python_traceback(
        frames, "OSError: No username set in the environment", prefix))
    assert signature == "container-uid-without-passwd-entry"
    assert "USER" in fix


@settings(max_examples=20, deadline=None)
@given(prefix=_LAUNCH_PREFIXES, error=st.sampled_from([
    "KeyError: 'qwen3_5'",
    "KeyError: 'HOME'",
    "KeyError: 'model.layers.0.mlp.experts.w13_weight'",
    "OSError: [Errno 30] Read-only file system: '/.cache/huggingface'",
]))
def test_other_start_up_key_and_os_errors_keep_their_own_answers(prefix: str, error: str) -> None:
    frames = [("/usr/local/lib/python3.12/dist-packages/vllm/config/model.py", "__post_init__",
               "hf_config = get_config(self.model, trust_remote_code=self.trust_remote_code)"),
              ("/usr/local/lib/python3.12/dist-packages/transformers/models/auto/"
               "configuration_auto.py", "from_pretrained",
               "config_class = CONFIG_MAPPING[config_dict[\"model_type\"]]")]
    signature, _ = signature_advice(python_traceback(frames, error, prefix))
    assert signature != "container-uid-without-passwd-entry"


# Start-up stopped by vLLM's argument parser because of what a launcher put on the command line
# (engine-config-invalid's family knowledge, points 11 and 12): a sampling setting a wrapper's
# template adds (the server has no such flags), and a container command that repeats the image's
# `vllm serve` entrypoint. Generated over the usage line each era prints, the launcher's prefixes
# and the program name argparse reports.
_USAGE_LINES = st.sampled_from([
    ["usage: vllm [-h] [-v]",
     "            {chat,complete,serve,launch,bench,collect-env,run-batch} ..."],
    ["usage: vllm [-h] [-v] {chat,complete,serve,bench,collect-env,run-batch} ..."],
    ["usage: vllm <command> [options]"],
])
_CONTAINER_PREFIXES = st.sampled_from(["", "vllm-1  | ", "2026-07-09T17:02:11.123456789Z ",
                                       "[pod/vllm-tinyllama-7d9c/vllm] "])


def _argparse_log(usage: list[str], program: str, rest: str, prefix: str) -> str:
    lines = usage + [f"{program}: error: unrecognized arguments: {rest}"]
    return "".join(prefix + line + "\n" for line in lines)


@settings(max_examples=30, deadline=None)
@given(usage=_USAGE_LINES, prefix=_CONTAINER_PREFIXES, flag=st.sampled_from([
    ("--temperature 0.8", "--temperature"), ("--temp 0.7", "--temp"),
    ("--top-p 0.95", "--top-p"), ("--temperature 0.2 --top-k 40", "--temperature")]))
def test_a_sampling_flag_a_launcher_adds_gets_the_per_request_fix(
        usage: list[str], prefix: str, flag: tuple[str, str]) -> None:
    rest, name = flag
    signature, fix = signature_advice(_argparse_log(usage, "vllm", rest, prefix))
    assert signature == "engine-config-invalid"
    assert name in fix and "--override-generation-config" in fix and "template" in fix


@settings(max_examples=30, deadline=None)
@given(usage=_USAGE_LINES, prefix=_CONTAINER_PREFIXES,
       program=st.sampled_from(["vllm", "api_server.py"]),
       model=st.sampled_from(["/models/GLM-4.7-Flash-AWQ-4bit", "Qwen/Qwen3-8B",
                              "HuggingFaceTB/SmolLM3-3B"]))
def test_a_command_repeating_the_images_serve_entrypoint_gets_the_entrypoint_fix(
        usage: list[str], prefix: str, program: str, model: str) -> None:
    # `docker run vllm/vllm-openai vllm serve <model>`, or a compose `command:`
    # starting with `serve` on the older api_server entrypoint: the entrypoint takes the first
    # word as the model and argparse reports "serve <model>" as left over
    if program == "api_server.py":
        usage = ["usage: api_server.py [-h] [--host HOST] [--port PORT] [--model MODEL]",
                 "                     [--tokenizer TOKENIZER] [--dtype {auto,half,float16,bfloat16}]"]
    signature, fix = signature_advice(_argparse_log(usage, program, f"serve {model}", prefix))
    assert signature == "engine-config-invalid"
    assert "entrypoint" in fix and "vllm serve" in fix


@settings(max_examples=20, deadline=None)
@given(usage=_USAGE_LINES, prefix=_CONTAINER_PREFIXES)
def test_a_known_flag_glued_to_its_value_keeps_its_own_answer(
        usage: list[str], prefix: str) -> None:
    # the compose `command:` list item "--dtype auto" (vllm#22072): another signature answers
    signature, _ = signature_advice(_argparse_log(
        usage, "vllm", "--dtype auto --max-model-len 8192", prefix))
    assert signature == "cli-flag-and-value-in-one-argument"
