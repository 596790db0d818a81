"""A request's error that the API server answered with a refusal (4xx) is reported as that
request's, not the server's: with the server serving after it, nothing failed and the report says
the clients' requests were refused; with the log ending on the refusal, the root cause's reasons
say it failed one request. An answer that is no refusal (500) or no answer at all says neither."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from logsleuth.model import Verdict
from logsleuth.pipeline import explain_text
from logsleuth.signatures import default_signatures

SITE = "/usr/local/lib/python3.12/dist-packages/"
P = "(APIServer pid=4000) "
_MESSAGES = st.sampled_from([
    "Image dimensions 4000x4000 (16000000 pixels) exceed the maximum of 8000000 pixels. Set "
    "VLLM_MAX_IMAGE_PIXELS to increase this limit.",
    "You must set `--enable-mm-embeds` to input `image_embeds`",
    "Requested sample logprobs of 50, which is greater than max allowed: 20",
    "The `logits_processors` argument is not supported by this server. See "
    "--logits-processor-pattern engine argument for more information.",
])
_FRAMES = st.sampled_from([
    ("vllm/entrypoints/openai/serving_chat.py", "create_chat_completion"),
    ("vllm/entrypoints/openai/chat_completion/serving.py", "_create_chat_completion"),
    ("vllm/v1/engine/async_llm.py", "add_request"),  # V1's input processing, in the API server
])


def _log(message: str, frame: tuple[str, str], answer: str | None, served_after: bool) -> str:
    path, function = frame
    lines = [f"{P}INFO 02-05 10:11:20 [api_server.py:1912] vLLM API server version 0.11.2",
             f'{P}INFO:     127.0.0.1:50110 - "POST /v1/chat/completions HTTP/1.1" 200 OK',
             f"{P}ERROR 02-05 12:30:01 [serving_chat.py:264] Error in preprocessing prompt inputs",
             f"{P}Traceback (most recent call last):",
             f'{P}  File "{SITE}vllm/entrypoints/openai/api_server.py", line 650, in '
             "create_chat_completion",
             f"{P}    generator = await handler.create_chat_completion(request, raw_request)",
             f'{P}  File "{SITE}{path}", line 120, in {function}',
             f"{P}    raise ValueError(",
             f"{P}ValueError: {message}"]
    if answer is not None:
        lines.append(f'{P}INFO:     127.0.0.1:50112 - "POST /v1/chat/completions HTTP/1.1" {answer}')
    if served_after:
        lines.append(f'{P}INFO:     127.0.0.1:50114 - "POST /v1/chat/completions HTTP/1.1" 200 OK')
    return "\n".join(lines) + "\n"


@settings(max_examples=30, deadline=None)
@given(message=_MESSAGES, frame=_FRAMES,
       answer=st.sampled_from(["400 Bad Request", "422 Unprocessable Entity",
                               "500 Internal Server Error", None]),
       served_after=st.booleans())
def test_a_refused_request_is_reported_as_the_clients(message: str, frame: tuple[str, str],
                                                      answer: str | None,
                                                      served_after: bool) -> None:
    report = explain_text(_log(message, frame, answer, served_after),
                          signatures=default_signatures())
    refused = answer is not None and answer.startswith("4")
    says = [r for r in report.reasons if "not the server" in r or "not a failure of the server"
            in r]
    assert bool(says) == refused, report.reasons
    if refused and report.verdict is Verdict.NO_FAILURE:
        assert message[:60] in says[0]
    if refused and report.verdict is not Verdict.NO_FAILURE:
        assert report.root_cause is not None and report.root_cause.process.name == "APIServer"
