"""Start the studio: the app on uvicorn, the address printed (with its token when it
listens beyond this machine), the browser opened."""

from __future__ import annotations

import socket
import threading
import webbrowser

import click

from reports.targets import Targets
from simkit.errors import SimkitError
from simkit.progress import say_if_compiling
from simkit.studio.app import make_app, new_token
from simkit.studio.live import Live
from simkit.studio.session import Session

LOOPBACK = ("127.0.0.1", "localhost", "::1")


def address(host: str, port: int, token: str | None) -> str:
    shown = f"[{host}]" if ":" in host else host
    return f"http://{shown}:{port}/" + (f"?token={token}" if token else "")


def serve(session: Session, targets: Targets, host: str, port: int,
          open_browser: bool = True) -> None:
    """Serve until Ctrl-C; the baseline starts playing at once."""
    import uvicorn

    _check_port(host, port)
    token = None if host in LOOPBACK else new_token()
    say_if_compiling(session.baseline.game, [session.baseline.lineup])
    live = Live(session, targets)
    live.start()
    url = address(host, port, token)
    where = f"; session kept in {session.folder}" if session.folder else \
        " (nothing is written: pass --out DIR to keep the session)"
    click.echo(f"simkit studio: {url}{where}. Ctrl-C stops it.")
    if open_browser:
        threading.Timer(0.5, webbrowser.open, args=(url,)).start()
    try:
        uvicorn.run(make_app(live, token), host=host, port=port, log_level="warning")
    finally:
        live.cancel()


def _check_port(host: str, port: int) -> None:
    """One clear line for a port in use, rather than uvicorn's traceback."""
    if not 0 < port < 65536:
        raise SimkitError(f"--port must be between 1 and 65535, not {port}")
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            s.bind((host, port))
        except OSError as exc:
            raise SimkitError(f"--port {port}: cannot listen on {host} ({exc.strerror}); "
                              "choose another --port") from None
