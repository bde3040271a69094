"""The studio's web app: Starlette routes, Jinja2 templates, htmx in the page and one
server-sent-event stream that redraws the figures as games arrive. Every asset is in
`static/` (htmx and its SSE extension), so it works offline."""

from __future__ import annotations

import asyncio
import json
import secrets
from collections.abc import AsyncIterator
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.middleware.base import BaseHTTPMiddleware
from starlette.requests import Request
from starlette.responses import (
    FileResponse,
    HTMLResponse,
    PlainTextResponse,
    Response,
    StreamingResponse,
)
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles
from starlette.templating import Jinja2Templates

from reports.page import CSS
from simkit.config import parse_value
from simkit.errors import SimkitError
from simkit.studio import actions
from simkit.studio.form import Field, fields, override, players_offered
from simkit.studio.live import Live
from simkit.studio.session import Setup

if TYPE_CHECKING:
    from reports.targets import Targets

HERE = Path(__file__).resolve().parent
TOKEN_COOKIE = "simkit_studio_token"
POLL_SECONDS = 0.05  # how often the event stream looks for a new view


def _pp(x: float) -> str:
    return f"{x * 100:+.1f}".replace("-0.0", "+0.0")


def _pct(x: float) -> str:
    return f"{x * 100:.1f}%"


class Studio:
    """The app's state: the session, the work in flight and the form's fields."""

    def __init__(self, live: Live) -> None:
        self.live = live
        self.session = live.session
        p = self.session.baseline
        self.fields: list[Field] = fields(p.game, p.config)
        self.by_key = {f.key: f for f in self.fields}

    def stamp(self) -> tuple[int, int, int]:
        return (self.live.version, self.session.at, len(self.session.states))

    def values(self) -> dict[str, str]:
        """Each key's value in the current state, as the form shows it."""
        out = {}
        for key, item in self.session.current.changes.items():
            value = parse_value(item.partition("=")[2].strip())
            out[key] = value if isinstance(value, str) else json.dumps(value)
        return out

    def context(self, request: Request, **extra: Any) -> dict[str, Any]:
        s = self.session
        view = self.live.latest if self.live.state is s.current else None
        setup = s.setup
        game = s.baseline.game
        return {"request": request, "studio": self, "report_css": CSS,
                "player_counts": game.players(s.baseline.compiled),
                "offered": players_offered(game), "targets": self.live.targets.settings,
                "session": s, "setup": setup,
                "title": s.baseline.game.title, "view": view, "values": self.values(),
                "error": self.live.error, "note": self.live.note, "pp": _pp, "pct": _pct,
                "command": actions.command(s, view.games if view else setup.budget),
                "message": None} | extra


def make_app(live: Live, token: str | None = None) -> Starlette:
    """The studio's app over `live`; with `token`, every request must carry it (once in
    the URL, then in a cookie)."""
    studio = Studio(live)
    templates = Jinja2Templates(directory=str(HERE / "templates"))

    def page(name: str, request: Request, **extra: Any) -> Response:
        return templates.TemplateResponse(request, name, studio.context(request, **extra))

    async def index(request: Request) -> Response:
        response = page("page.html", request)
        if token is not None:
            response.set_cookie(TOKEN_COOKIE, token, httponly=True, samesite="strict")
        return response

    async def edit(request: Request) -> Response:
        form = await request.form()
        key, text = str(form.get("key", "")), str(form.get("value", ""))
        field = studio.by_key.get(key)
        # a key the form does not list is left to --set's own check (and its message)
        item = f"{key}={text.strip()}" if field is None else override(field, text)
        try:
            await asyncio.to_thread(studio.session.edit, key, item, item)
        except SimkitError as exc:  # refused: the state shown, and the baseline, stay
            return page("_message.html", request, message=f"Error: {exc}", bad=True,
                        key=key)
        live.start()
        return page("_message.html", request, bad=False,
                    message=f"Accepted {item}: played on the baseline's deals (figures right)")

    async def move(request: Request) -> Response:
        what = request.url.path.strip("/").split("/")[0]  # undo, reset or go
        s = studio.session
        try:
            if what == "undo":
                s.undo()
            elif what == "reset":
                s.reset()
            else:
                s.go(int(request.path_params.get("index", -1)))
        except (SimkitError, ValueError) as exc:
            return page("_message.html", request, message=f"Error: {exc}", bad=True)
        live.start()
        return page("_config.html", request)

    async def baseline(request: Request) -> Response:
        """Start again from other players, seed or targets (the history starts anew)."""
        form = await request.form()
        try:
            setup = rebased(studio.session.setup, form, live.targets.settings)
            targets = await asyncio.to_thread(load_targets_of, setup)
            await asyncio.to_thread(studio.session.rebase, setup)
        except (SimkitError, ValueError) as exc:
            return page("_message.html", request, message=f"Error: {exc}", bad=True)
        live.rebase(targets)
        response = page("_message.html", request, message="New baseline", bad=False)
        response.headers["HX-Refresh"] = "true"
        return response

    async def save(request: Request) -> Response:
        try:
            written = await asyncio.to_thread(actions.save, studio.session)
        except SimkitError as exc:
            return page("_message.html", request, message=f"Error: {exc}", bad=True)
        return page("_message.html", request, bad=False,
                    message="Saved " + " and ".join(str(p) for p in written))

    async def report(request: Request) -> Response:
        view = live.latest
        games = view.games if view is not None else 20_000
        try:
            await asyncio.to_thread(actions.write_report, studio.session, games)
        except SimkitError as exc:
            return page("_message.html", request, message=f"Error: {exc}", bad=True)
        return page("_message.html", request, bad=False, report=True,
                    message=f"The full report of the current state ({games:,} games)")

    async def report_file(request: Request) -> Response:
        folder = studio.session.folder
        path = None if folder is None else folder / actions.RUN_FOLDER / "report.html"
        if path is None or not path.is_file():
            return PlainTextResponse("No report yet: press 'Full report'.", status_code=404)
        return FileResponse(path)

    async def play(request: Request) -> Response:
        try:
            game = int(request.path_params["game"])
            log = await asyncio.to_thread(actions.play_log, studio.session,
                                          studio.session.current, game)
        except (SimkitError, ValueError) as exc:
            return PlainTextResponse(f"Error: {exc}", status_code=400)
        return PlainTextResponse(log)

    async def events(request: Request) -> Response:
        async def stream() -> AsyncIterator[str]:
            seen = None
            while not await request.is_disconnected():
                stamp = studio.stamp()
                if stamp != seen:
                    seen = stamp
                    for name in ("figures", "history"):
                        html = templates.get_template(f"_{name}.html").render(
                            studio.context(request))
                        data = "".join(f"data: {line}\n" for line in html.splitlines())
                        yield f"event: {name}\n{data}\n"
                await asyncio.sleep(POLL_SECONDS)

        return StreamingResponse(stream(), media_type="text/event-stream",
                                 headers={"Cache-Control": "no-cache"})

    routes = [Route("/", index), Route("/edit", edit, methods=["POST"]),
              Route("/go/{index:int}", move, methods=["POST"]),
              Route("/undo", move, methods=["POST"]), Route("/reset", move, methods=["POST"]),
              Route("/save", save, methods=["POST"]),
              Route("/baseline", baseline, methods=["POST"]),
              Route("/report", report, methods=["POST"]),
              Route("/report", report_file, methods=["GET"]),
              Route("/play/{game}", play), Route("/events", events),
              Mount("/static", StaticFiles(directory=str(HERE / "static")), name="static")]
    middleware = [Middleware(PageOnly)]
    if token is not None:
        middleware.append(Middleware(TokenCheck, token=token))
    return Starlette(routes=routes, middleware=middleware)


class PageOnly(BaseHTTPMiddleware):
    """Refuses a POST that does not come from the page's htmx (which marks its requests
    with a header that another site's form cannot send): a web page elsewhere cannot
    make the studio write its files."""

    async def dispatch(self, request: Request, call_next: Any) -> Response:
        if request.method == "POST" and request.headers.get("HX-Request") != "true":
            return PlainTextResponse("Error: the studio takes changes from its own page "
                                     "only", status_code=403)
        return await call_next(request)


class TokenCheck(BaseHTTPMiddleware):
    """Refuses a request that carries neither the token in its URL nor its cookie."""

    def __init__(self, app: Any, token: str) -> None:
        super().__init__(app)
        self.token = token

    async def dispatch(self, request: Request, call_next: Any) -> Response:
        given = request.query_params.get("token") or request.cookies.get(TOKEN_COOKIE) or ""
        if not secrets.compare_digest(given, self.token):
            return HTMLResponse("Error: this studio needs the token printed when it started "
                                "(open the address it printed, with ?token=...)",
                                status_code=403)
        return await call_next(request)


def rebased(setup: Setup, form: Any, settings: dict[str, dict[str, float]]) -> Setup:
    """The baseline the Players form asks for: player count, lineup, seed and targets
    (a target typed as it stands is left to the targets file)."""
    changed = {f"{m}.{k}={form.get(f'target:{m}.{k}')}" for m, values in settings.items()
               for k, v in values.items()
               if str(form.get(f"target:{m}.{k}", "")).strip() not in ("", f"{v:g}")}
    kept = [t for t in setup.set_targets if t.partition("=")[0] not in
            {c.partition("=")[0] for c in changed}]
    try:
        players, seed = int(str(form.get("players"))), int(str(form.get("seed")))
    except ValueError:
        raise SimkitError("players and seed must be whole numbers") from None
    strategies = tuple(x.strip() for x in str(form.get("strategies", "")).split(",")
                       if x.strip())
    return replace(setup, players=players, seed=seed, strategies=strategies,
                   set_targets=tuple(kept) + tuple(sorted(changed)))


def load_targets_of(setup: Setup) -> Targets:
    from reports.targets import load_targets

    return load_targets(Path(setup.targets) if setup.targets else None, setup.game,
                        setup.set_targets)


def new_token() -> str:
    return secrets.token_urlsafe(16)
