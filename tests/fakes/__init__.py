"""Loopback fakes that speak the providers' wire formats byte for byte, for what no real engine
here can do. One module per wire format, as in ``crates/core/src/providers/``: ``openai`` (Chat
Completions, Files and Batch), ``llama`` (llama.cpp's ``llama-server``), ``gemini``
(``generateContent``) and ``anthropic`` (Messages), each built on ``base.FakeProvider``
(recording, CORS, keys, behaviours per criterion, start/stop). Self-tests:
``tests/fakes_selftest/``. Import them as ``from fakes.openai import FakeOpenAI`` with ``tests/``
on ``sys.path`` (``tests/e2e/conftest.py`` puts it there)."""
