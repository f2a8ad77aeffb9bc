"""A provider double: a real HTTP server on loopback that speaks OpenAI's and Anthropic's documented streaming
formats, so the real LangChain clients (`langchain-openai`, `langchain-anthropic`) and the real agent server
can be tested with a chat model other than the scripted one, without a network or a key.

Written by hand because no maintained library serves these formats for a test (the providers publish their
formats, not a test server). What the model says is a script keyed by the conversation it is sent
(`script.plan`), so its turns are deterministic; every request is recorded, so a test can check what the
model was offered and told (`ProviderStandin.requests`).

    with ProviderStandin() as standin:
        env = standin.env("openai")   # SITEWALK_MODEL, OPENAI_BASE_URL, OPENAI_API_KEY for an agent server
"""

from provider_standin.server import PROVIDERS, ProviderStandin, Recorded

__all__ = ["PROVIDERS", "ProviderStandin", "Recorded"]
