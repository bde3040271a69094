"""simkit studio in headless Chromium (Playwright driving Debian's chromium, never a
downloaded browser): load the page, edit a value, see the paired difference and a
flipped verdict arrive, save the patch, reload and find the edit in the history."""

from __future__ import annotations

import shutil
import socket
import threading
import time
import tomllib

import pytest
import uvicorn

from reports.targets import load_targets
from simkit.studio.app import make_app
from simkit.studio.live import Live
from simkit.studio.session import Session, Setup
from tests.test_report_browser import FLAGS

# Playwright starts headless itself; a virtual time budget would freeze the live page.
ARGS = [f for f in FLAGS if f != "--headless" and not f.startswith("--virtual-time")]


def _chromium() -> str:
    path = shutil.which("chromium") or shutil.which("chromium-browser")
    if path is None:
        pytest.fail("chromium is not installed: `apt-get install -y chromium` (.ci/run does)")
    return path


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def studio(tmp_path):
    session = Session.open(Setup("cauldron-master", 4, ("greedy",), 0, budget=40_000),
                           tmp_path / "studio")
    live = Live(session, load_targets(None, "cauldron-master"))
    live.start()
    port = _free_port()
    server = uvicorn.Server(uvicorn.Config(make_app(live), host="127.0.0.1", port=port,
                                           log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started and time.monotonic() < deadline:
        time.sleep(0.05)
    yield f"http://127.0.0.1:{port}/", tmp_path / "studio"
    server.should_exit = True
    thread.join(timeout=10)
    live.cancel()


def test_edit_see_the_paired_difference_and_a_flip_save_and_reload(studio):
    from playwright.sync_api import expect, sync_playwright

    url, folder = studio
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=_chromium(), headless=True, args=ARGS)
        page = browser.new_page(viewport={"width": 1400, "height": 900})
        page.goto(url)
        status = page.locator("#status[data-final='1']")
        expect(status).to_be_visible(timeout=120_000)  # the baseline, decided
        field = page.locator("input[data-key='supply.size.4']")
        field.fill("10")
        field.press("Enter")
        expect(page.locator("#said")).to_contain_text("Accepted supply.size.4=10")
        expect(page.locator("#seats td.diff").first).to_be_visible(timeout=60_000)
        expect(page.locator("#status[data-final='1']")).to_be_visible(timeout=120_000)
        expect(page.locator("#scorecard .flip")).to_have_count(1)
        expect(page.locator("#scorecard tr.flipped")).to_contain_text("Tie rate")
        # a refused edit says the CLI's line and leaves the figures
        bad = page.locator("input[data-key='supply.size.3']")
        bad.fill("many")
        bad.press("Enter")
        expect(page.locator("#said")).to_contain_text("Error: --set: supply.size.3 = 'many'")
        expect(page.locator("#scorecard .flip")).to_have_count(1)
        page.locator("#save").click()
        expect(page.locator("#said")).to_contain_text("patch.toml")
        assert tomllib.loads((folder / "patch.toml").read_text())["set"] == [
            "supply.size.4=10"]
        page.reload()
        expect(page.locator("#history-table")).to_contain_text("supply.size.4=10")
        expect(page.locator("input[data-key='supply.size.4']")).to_have_value("10")
        expect(page.locator("#scorecard .flip")).to_have_count(1)
        browser.close()
