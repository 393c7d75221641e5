"""A real headless Chromium for tests, driven over the DevTools protocol through a pipe.

``chromium --remote-debugging-pipe`` reads protocol messages (JSON, each ended by a NUL byte) on file
descriptor 3 and writes its answers and events on descriptor 4: no port, no WebSocket library, no
Playwright-managed browser; Debian's ``chromium`` package is enough (``make test`` installs it). A page is a
target attached in flat mode, so each command carries its ``sessionId``.

Every event is kept, so a test asks afterwards what the page logged: :meth:`Page.errors` lists console errors
(``Runtime.consoleAPICalled`` of type error/assert), uncaught exceptions (``Runtime.exceptionThrown``) and
browser log errors (``Log.entryAdded``). Reads wait at most :data:`HANG_GUARD` seconds: a hang guard that
only stops a wedged browser, never a timing assertion.
"""

from __future__ import annotations

import base64
import contextlib
import json
import os
import select
import shutil
import subprocess
import tempfile
from pathlib import Path
from types import TracebackType
from typing import Any

HANG_GUARD = 600.0
CANDIDATES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")
FLAGS = (
    "--headless=new",
    "--remote-debugging-pipe",
    "--no-sandbox",  # CI runs as root, where Chromium's sandbox refuses to start
    "--disable-gpu",
    "--disable-dev-shm-usage",  # containers often give /dev/shm only 64 MB
    "--no-first-run",
    "--no-default-browser-check",
    "--disable-extensions",
    "--disable-background-networking",
    "--disable-sync",
    "--disable-component-update",
    "--mute-audio",
)


def find_chromium() -> str | None:
    """The path of an installed Chromium (or Chrome), ``None`` when there is none."""
    for name in CANDIDATES:
        found = shutil.which(name)
        if found:
            return found
    return None


class Browser:
    """One headless Chromium process; use it as a context manager so the process always ends."""

    def __init__(self, executable: str) -> None:
        self._profile = tempfile.mkdtemp(prefix="officegym-chromium-")
        to_browser, self._to_browser = os.pipe()
        self._from_browser, from_browser = os.pipe()

        def as_fds_3_and_4() -> None:  # in the child: the pipe ends become the descriptors Chromium reads
            read, write = os.dup(to_browser), os.dup(from_browser)
            os.dup2(read, 3)
            os.dup2(write, 4)

        self._process = subprocess.Popen(
            [executable, *FLAGS, f"--user-data-dir={self._profile}", "about:blank"],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            preexec_fn=as_fds_3_and_4,
            close_fds=False,
        )
        os.close(to_browser)
        os.close(from_browser)
        self._buffer = b""
        self._next_id = 0
        self.events: list[dict[str, Any]] = []

    def __enter__(self) -> Browser:
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None, tb: TracebackType | None) -> None:
        self.close()

    def send(self, method: str, params: dict[str, Any] | None = None, session: str | None = None) -> dict[str, Any]:
        """Send one command and return its result (events that arrive meanwhile are kept in ``events``)."""
        self._next_id += 1
        message: dict[str, Any] = {"id": self._next_id, "method": method, "params": params or {}}
        if session is not None:
            message["sessionId"] = session
        os.write(self._to_browser, json.dumps(message).encode() + b"\0")
        while True:
            reply = self._read()
            if reply.get("id") == self._next_id:
                if "error" in reply:
                    raise RuntimeError(f"{method} failed: {reply['error']}")
                result: dict[str, Any] = reply.get("result", {})
                return result
            self.events.append(reply)

    def wait_for(self, method: str, session: str) -> dict[str, Any]:
        """The first event ``method`` of ``session`` not yet waited for (kept ones first, then new ones)."""
        for event in self.events:
            if event.get("method") == method and event.get("sessionId") == session and not event.get("_seen"):
                event["_seen"] = True
                return event
        while True:
            event = self._read()
            self.events.append(event)
            if event.get("method") == method and event.get("sessionId") == session:
                event["_seen"] = True
                return event

    def _read(self) -> dict[str, Any]:
        while b"\0" not in self._buffer:
            ready, _, _ = select.select([self._from_browser], [], [], HANG_GUARD)
            if not ready:
                raise TimeoutError(f"Chromium sent nothing for {HANG_GUARD:.0f} s")
            chunk = os.read(self._from_browser, 1 << 20)
            if not chunk:
                raise EOFError("Chromium closed the DevTools pipe (it exited)")
            self._buffer += chunk
        line, self._buffer = self._buffer.split(b"\0", 1)
        message: dict[str, Any] = json.loads(line)
        return message

    def open(self, url: str, width: int = 1280, height: int = 900) -> Page:
        """A new tab showing ``url``, loaded, with console and log reporting on from before the load."""
        target = self.send("Target.createTarget", {"url": "about:blank"})["targetId"]
        session = self.send("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        for domain in ("Runtime", "Log", "Page"):
            self.send(f"{domain}.enable", session=session)
        metrics = {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False}
        self.send("Emulation.setDeviceMetricsOverride", metrics, session)
        self.send("Page.navigate", {"url": url}, session)
        self.wait_for("Page.loadEventFired", session)
        return Page(self, session)

    def close(self) -> None:
        if self._process.poll() is None:
            with contextlib.suppress(OSError, EOFError, RuntimeError, TimeoutError):
                self.send("Browser.close")
            try:
                self._process.wait(timeout=HANG_GUARD)
            except subprocess.TimeoutExpired:
                self._process.kill()
                self._process.wait()
        for fd in (self._to_browser, self._from_browser):
            with contextlib.suppress(OSError):
                os.close(fd)
        shutil.rmtree(self._profile, ignore_errors=True)


class Page:
    """One attached tab: run script in it, read what it logged, take its picture."""

    def __init__(self, browser: Browser, session: str) -> None:
        self.browser = browser
        self.session = session

    def evaluate(self, expression: str) -> Any:
        """The value of a JavaScript expression in the page (promises awaited); an exception raises."""
        params = {"expression": expression, "returnByValue": True, "awaitPromise": True}
        reply = self.browser.send("Runtime.evaluate", params, self.session)
        if "exceptionDetails" in reply:
            raise RuntimeError(f"the page raised: {reply['exceptionDetails']}")
        return reply["result"].get("value")

    def errors(self) -> list[str]:
        """Every console error, uncaught exception and browser log error of this page so far."""
        self.evaluate("0")  # a round trip, so events sent before now have arrived
        found = []
        for event in self.browser.events:
            if event.get("sessionId") != self.session:
                continue
            method, params = event.get("method"), event.get("params", {})
            if method == "Runtime.exceptionThrown":
                found.append(f"exception: {params.get('exceptionDetails')}")
            elif method == "Runtime.consoleAPICalled" and params.get("type") in ("error", "assert"):
                found.append(f"console.{params.get('type')}: {params.get('args')}")
            elif method == "Log.entryAdded" and params.get("entry", {}).get("level") == "error":
                found.append(f"log: {params['entry'].get('text')} ({params['entry'].get('url', '')})")
        return found

    def screenshot(self, path: Path, width: int = 1280, height: int = 900, top: int = 0) -> Path:
        """A PNG of ``width`` x ``height`` pixels of the page from ``top`` down (beyond the viewport if need be)."""
        clip = {"x": 0, "y": top, "width": width, "height": height, "scale": 1}
        params = {"format": "png", "clip": clip, "captureBeyondViewport": True}
        data = self.browser.send("Page.captureScreenshot", params, self.session)["data"]
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(base64.b64decode(data))
        return path
