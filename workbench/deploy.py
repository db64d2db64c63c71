"""The nginx configuration for several dashboard server processes behind one address.

``deploy/nginx.conf`` is a template: :func:`nginx_config` fills in the port
nginx listens on, the URL prefix (the same ``--base-url`` every server process
runs with), the server processes (``host:port``) and the folder nginx keeps
its pid, logs and temporary files in. Sticky sessions hash a per-browser
cookie (see the template's comments).

``dice-workbench deploy --listen 8080 --base-url /dice/ --server 127.0.0.1:8866
--server 127.0.0.1:8867 --run-dir /srv/dice-nginx`` writes the file into the run
folder and prints the command that starts nginx (``python -m workbench.deploy``
is the same command). The template ships inside the wheel
(:func:`workbench.resources.data_dir`), so an installed copy needs no checkout.
"""
from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

from .errors import InputError
from .resources import data_dir
from .serve import resolve_base_url

#: the checkout's deploy/nginx.conf, or its copy in an installed wheel
NGINX_TEMPLATE = data_dir("deploy") / "nginx.conf"
TEMP_DIRS = ("client_body", "proxy", "fastcgi", "uwsgi", "scgi")
#: what each address option expects: (in words, whether it needs a host)
ADDRESSES = {"server": ("host:port of a dashboard server process, e.g. 127.0.0.1:8866", True),
             "listen": ("a port, or address:port, for nginx", False)}


def _address(field: str, value: str | int) -> str:
    """``[host:]port`` (a host name, an IPv4 address or a bracketed IPv6 one), checked as ``field``."""
    expected, host_required = ADDRESSES[field]
    text = str(value).strip()
    match = re.fullmatch(r"(?:(\[[0-9A-Fa-f:]+\]|[A-Za-z0-9.-]+):)" + ("" if host_required else "?") + r"(\d{1,5})",
                         text)
    if not match or not 0 < int(match.group(2)) < 65536:
        raise InputError(field, expected, value)
    return text


def nginx_config(listen: str | int, base_url: str, servers: list[str], run_dir: Path) -> str:
    """The text of ``deploy/nginx.conf`` for these processes (``run_dir`` must be absolute)."""
    base = resolve_base_url(base_url)
    if not servers:
        raise InputError("server", "at least one dashboard server process", "none")
    run_dir = Path(run_dir)
    if not run_dir.is_absolute() or re.search(r"[\s;{}]", str(run_dir)):
        raise InputError("run-dir", "an absolute folder path without spaces, ';' or braces", str(run_dir))
    text = NGINX_TEMPLATE.read_text(encoding="utf-8")
    if base == "/":  # no prefix to redirect to
        text = re.sub(r"\n *location = @BASE_URL_NO_SLASH@ \{\n.*?\n *\}\n", "\n", text, flags=re.S)
    upstream = "\n".join(f"        server {_address('server', s)};" for s in servers)
    for field, value in (("@SERVERS@", upstream), ("@LISTEN@", _address("listen", listen)), ("@RUN_DIR@", str(run_dir)),
                         ("@BASE_URL_NO_SLASH@", base.rstrip("/")), ("@BASE_URL@", base)):
        text = text.replace(field, value)
    return text


def write_nginx_config(run_dir: Path, **kwargs) -> Path:
    """Write ``nginx.conf`` (and the temporary folders it names) into ``run_dir``; returns the file."""
    run_dir = Path(run_dir).resolve()
    run_dir.mkdir(parents=True, exist_ok=True)
    for name in TEMP_DIRS:
        (run_dir / name).mkdir(exist_ok=True)
    path = run_dir / "nginx.conf"
    path.write_text(nginx_config(run_dir=run_dir, **kwargs), encoding="utf-8")
    return path


def main(argv: list[str] | None = None, prog: str = "python -m workbench.deploy") -> int:
    """Write the nginx configuration the options describe; returns the exit status (2: a refused value)."""
    parser = argparse.ArgumentParser(prog=prog, description=__doc__.split("\n")[0])
    parser.add_argument("--listen", default="8080", help="port (or address:port) nginx listens on")
    parser.add_argument("--base-url", default="/", help="URL prefix, the --base-url of every server process")
    parser.add_argument("--server", action="append", default=[], help="host:port of a server process (repeat)")
    parser.add_argument("--run-dir", type=Path, required=True, help="folder for nginx.conf, pid, logs, temp files")
    args = parser.parse_args(argv)
    try:
        path = write_nginx_config(args.run_dir, listen=args.listen, base_url=args.base_url, servers=args.server)
    except InputError as exc:
        print(f"{prog}: error: {exc}", file=sys.stderr)
        return 2
    print(f"wrote {path}\nstart nginx with: nginx -p {path.parent} -c {path} -e stderr")
    return 0


if __name__ == "__main__":
    sys.exit(main())
