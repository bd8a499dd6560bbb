"""nginx in front of two server instances, started by the harness with a generated config on
loopback. Two modes: "round_robin", and "sticky" (a consistent hash of the Mcp-Session-Id header,
the only session affinity open-source nginx can derive from MCP's headers).

Every response carries `X-Upstream` (nginx's `$upstream_addr`: every upstream tried, the one
that answered last) so the harness sees where each request went; the access log records the
same per request.
"""
from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import List

from .probe import STORED_PREFIX, HarnessError
from .processes import Processes, free_port

MODES = ("round_robin", "sticky")
START_ATTEMPTS = 3

_CONFIG = """\
{user}worker_processes 1;
daemon off;
pid {dir}/nginx.pid;
error_log {dir}/nginx-error.log warn;
events {{ worker_connections 256; }}
http {{
    log_format upstreams '$request_method $request_uri $status '
                         'session=$http_mcp_session_id upstream=$upstream_addr';
    access_log {dir}/nginx-access.log upstreams;
    client_body_temp_path {dir}/body;
    proxy_temp_path {dir}/proxy;
    fastcgi_temp_path {dir}/fastcgi;
    uwsgi_temp_path {dir}/uwsgi;
    scgi_temp_path {dir}/scgi;
    upstream mcp {{
{balance}{servers}
    }}
    server {{
        listen 127.0.0.1:{port};
        location / {{
            proxy_pass http://mcp;
            proxy_http_version 1.1;
            proxy_set_header Connection "";
            proxy_set_header Host $http_host;
            proxy_buffering off;
            proxy_cache off;
            proxy_read_timeout 30s;
            proxy_connect_timeout 2s;
            proxy_next_upstream error timeout;
            add_header X-Upstream $upstream_addr always;
        }}
    }}
}}
"""


def nginx_binary() -> str:
    found = shutil.which("nginx") or next(
        (p for p in ("/usr/sbin/nginx", "/usr/local/sbin/nginx") if os.path.exists(p)), None)
    if found is None:
        raise HarnessError("nginx is not installed (Debian: apt-get install nginx-light)")
    return found


def render_config(mode: str, upstream_ports: List[int], port: int, workdir: Path,
                  max_fails: int = 1) -> str:
    """The nginx.conf text for `mode` in front of `upstream_ports`; an upstream that refuses
    `max_fails` connections is left out for 30 s (0: never left out, each request tries it)."""
    if mode not in MODES:
        raise ValueError(f"unknown nginx mode {mode!r}; valid: {', '.join(MODES)}")
    balance = "        hash $http_mcp_session_id consistent;\n" if mode == "sticky" else ""
    servers = "\n".join(f"        server 127.0.0.1:{p} max_fails={max_fails} fail_timeout=30s;"
                        for p in upstream_ports)
    user = "user root;\n" if hasattr(os, "geteuid") and os.geteuid() == 0 else ""
    return _CONFIG.format(user=user, dir=workdir, balance=balance, servers=servers, port=port)


class Nginx:
    def __init__(self, procs: Processes, mode: str, upstream_ports: List[int],
                 max_fails: int = 1) -> None:
        binary = nginx_binary()
        self.mode = mode
        workdir = procs.workdir / f"nginx-{mode}"
        for sub in ("body", "proxy", "fastcgi", "uwsgi", "scgi"):
            (workdir / sub).mkdir(parents=True, exist_ok=True)
        conf = workdir / "nginx.conf"
        for attempt in range(1, START_ATTEMPTS + 1):
            # The port is free when picked; another process may take it before nginx binds it.
            self.port = free_port()
            conf.write_text(render_config(mode, upstream_ports, self.port, workdir,
                                          max_fails))
            self.process = procs.spawn(f"nginx-{mode}", [binary, "-c", str(conf), "-p",
                                                         str(workdir)])
            try:
                procs.wait_ready(self.process, self.url + STORED_PREFIX + "-")
                break
            except HarnessError:
                if attempt == START_ATTEMPTS:
                    raise

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def stop(self) -> None:
        self.process.stop()
