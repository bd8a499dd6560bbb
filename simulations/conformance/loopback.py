"""The harness's own HTTP clients (raw requests, probes, streams): every request is plain HTTP
to 127.0.0.1, so they share one TLS context, built once per process. httpx builds one per
client by default (loading the CA bundle: about 60 ms each on a 2-core machine), and the
harness makes a client per probe, per raw client and per lockstep sequence. Nothing here
changes a request; the SDK clients the harness drives (`sdk_driver`, `ts/client.mjs`) build
their own as they always do."""
from __future__ import annotations

import ssl
from typing import Any, Optional

import httpx

_context: Optional[ssl.SSLContext] = None


def tls_context() -> ssl.SSLContext:
    """The one (never used: loopback is plain HTTP) TLS context of this process's clients."""
    global _context
    if _context is None:
        _context = ssl.create_default_context()
    return _context


def client(**options: Any) -> httpx.Client:
    return httpx.Client(verify=tls_context(), **options)


def async_client(**options: Any) -> httpx.AsyncClient:
    return httpx.AsyncClient(verify=tls_context(), **options)


def get(url: str, **options: Any) -> httpx.Response:
    """A one-off GET (as `httpx.get`)."""
    return httpx.get(url, verify=tls_context(), **options)
