"""The harness's HTTP clients share one TLS context per process (building one per client costs
tens of milliseconds and the harness makes hundreds), and still talk plain HTTP."""
import http.server
import threading

import httpx

from simulations.conformance import loopback


def test_every_client_shares_the_one_context(monkeypatch):
    """Three clients and a GET build one context between them (httpx alone builds one each)."""
    import ssl
    built = []
    real = ssl.create_default_context

    def counting(*args, **kwargs):
        built.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(ssl, "create_default_context", counting)
    monkeypatch.setattr(loopback, "_context", None)
    httpx.Client().close()
    assert len(built) == 1            # the check itself sees httpx build one per client
    made = [loopback.client(), loopback.client(), loopback.async_client()]
    made[0].close()
    made[1].close()
    assert len(built) == 2 and loopback.tls_context() is loopback.tls_context()


class _Answer(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        self.send_response(204)
        self.end_headers()

    def log_message(self, *args):
        pass


def test_a_get_reaches_a_plain_http_server_with_its_options():
    server = http.server.HTTPServer(("127.0.0.1", 0), _Answer)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        answer = loopback.get(f"http://127.0.0.1:{server.server_port}/x", timeout=2.0)
        assert isinstance(answer, httpx.Response) and answer.status_code == 204
    finally:
        server.shutdown()
        server.server_close()
