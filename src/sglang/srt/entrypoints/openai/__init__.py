"""The OpenAI-compatible API of the SRT HTTP server.

* :mod:`~sglang.srt.entrypoints.openai.protocol`: the request bodies (pydantic);
* :mod:`~sglang.srt.entrypoints.openai.context`: :class:`ServingContext`,
  what every endpoint works with (sending requests, collecting or
  streaming their outputs, aborting them when the client goes away);
* :mod:`~sglang.srt.entrypoints.openai.serving`: ``/v1/completions`` and
  ``/v1/chat/completions``.

The app itself is built by :func:`sglang.srt.entrypoints.http_server.create_app`.
"""
