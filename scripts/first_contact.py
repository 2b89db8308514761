"""What a newcomer meets, checked before each release (``make first-contact``; minutes: its ``make demo``
installs a virtualenv from PyPI).

A fresh clone of this repository's committed HEAD in a temporary folder, then, as the README says: ``make
demo``; ``sabio serve``; the README's curl; one question per language (and one whose answer is written only
in the other language); ``/stats``; the web page, opened in headless Chromium when it is installed (else
fetched and checked). Then again without a translator (``SABIO_TRANSLATOR=none``): ``make demo``, ``sabio
serve`` and the page must each say so. Any traceback, any 5xx, a command that fails or a check that does not
hold fails the run; the clone is kept then (and with ``--keep``) for a look.

    python3 scripts/first_contact.py [--repository PATH_OR_URL] [--keep]

Standard library only: it runs before anything is installed. Not shipped in any Lambda.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
CHROMIUM = "/usr/bin/chromium"
QUESTIONS = {  # (language, question, what the answer must hold)
    "es": ("¿Cuánto cuesta Faro?", "19 €"),
    "en": ("How much does Marea cost?", "$15 / month"),
}
# a Spanish question whose answer is written only in English (examples/docs/ancla/restore.md)
ACROSS = ("¿Cuánto tarda en restaurarse una base de datos de 50 GB con Ancla?", "20 minutes")
NOTICE = "SABIO_TRANSLATOR"  # what every translation notice names, in Spanish and in English


class Check:
    """The run's findings: each check passed or failed, and every output read for tracebacks."""

    def __init__(self) -> None:
        self.failed: list[str] = []

    def that(self, ok: bool, what: str, detail: str = "") -> bool:
        print(
            f"  {'ok  ' if ok else 'FAIL'} {what}" + (f": {detail}" if detail and not ok else ""), flush=True
        )
        if not ok:
            self.failed.append(what + (f": {detail[:2000]}" if detail else ""))
        return ok

    def output(self, what: str, text: str) -> None:
        """No traceback and no 5xx status line in what a command printed."""
        self.that("Traceback (most recent call last)" not in text, f"{what}: no traceback", _tail(text))
        statuses = re.findall(r'HTTP/1\.[01]" (5\d\d)', text)
        self.that(not statuses, f"{what}: no 5xx", ", ".join(statuses))


def _tail(text: str, lines: int = 40) -> str:
    return "\n".join(text.splitlines()[-lines:])


def run(command: list[str], cwd: Path, env: dict[str, str], timeout: float) -> tuple[int, str]:
    """``command``'s exit status and its stdout and stderr together."""
    print(f"$ {' '.join(command)}", flush=True)
    done = subprocess.run(
        command,
        cwd=cwd,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        timeout=timeout,
    )
    return done.returncode, done.stdout


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def http(url: str, body: dict[str, Any] | None = None) -> tuple[int, Any]:
    """(status, JSON body or text) of a GET, or of a POST of ``body`` as JSON."""
    data = json.dumps(body).encode() if body is not None else None
    headers = {"Content-Type": "application/json"} if data is not None else {}
    request = urllib.request.Request(url, data=data, headers=headers)
    try:
        with urllib.request.urlopen(request, timeout=120) as reply:
            status, raw = reply.status, reply.read()
    except urllib.error.HTTPError as exc:
        status, raw = exc.code, exc.read()
    text = raw.decode("utf-8", "replace")
    try:
        return status, json.loads(text)
    except ValueError:
        return status, text


class Served:
    """``.venv/bin/sabio serve`` in the clone on a free port, its output collected until it stops."""

    def __init__(self, clone: Path, env: dict[str, str]) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        command = [str(clone / ".venv/bin/sabio"), "serve", "--port", str(self.port)]
        print(f"$ {' '.join(command)}", flush=True)
        self.process = subprocess.Popen(
            command, cwd=clone, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
        )
        self.lines: list[str] = []
        self.ready = threading.Event()
        self.reader = threading.Thread(target=self._drain, daemon=True)
        self.reader.start()
        self.ready.wait(180)
        time.sleep(1.0)  # the notice, if any, follows the line that says where it serves

    def _drain(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self.lines.append(line)
            if line.startswith("Sabio is serving "):
                self.ready.set()
        self.ready.set()  # it stopped

    @property
    def output(self) -> str:
        return "".join(self.lines)

    def stop(self) -> int:
        self.process.send_signal(signal.SIGINT)
        try:
            code = self.process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.process.kill()
            code = self.process.wait()
        self.reader.join(10)
        return code


def readme_curl(clone: Path, port: int) -> list[str]:
    """The README's first curl command, as a list of arguments, pointed at ``port``."""
    text = (clone / "README.md").read_text("utf-8")
    found = re.search(r"^curl .*?(?:\\\n.*?)*$", text, re.M)
    assert found, "the README shows no curl command"
    return shlex.split(found.group(0).replace("\\\n", " ").replace("localhost:8000", f"127.0.0.1:{port}"))


def page_dom(url: str) -> tuple[str, str] | None:
    """The page's DOM after its script ran, and Chromium's console output (None without Chromium)."""
    if not Path(CHROMIUM).exists():
        return None
    profile = tempfile.mkdtemp(prefix="sabio-first-contact-")
    try:
        done = subprocess.run(
            [CHROMIUM, "--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
             f"--user-data-dir={profile}", "--virtual-time-budget=15000", "--enable-logging=stderr", "--v=0",
             "--lang=en-US", "--dump-dom", url],
            capture_output=True, text=True, timeout=120,
        )  # fmt: skip
    finally:
        shutil.rmtree(profile, ignore_errors=True)
    return done.stdout, done.stderr


def check_demo(check: Check, clone: Path, env: dict[str, str], label: str) -> str:
    """``make demo`` succeeds and prints no traceback; its output."""
    code, out = run(["make", "demo"], clone, env, timeout=3600)
    check.that(code == 0, f"{label}: make demo exits 0", _tail(out))
    check.output(f"{label}: make demo", out)
    check.that("Serve the API on this store" in out, f"{label}: make demo says how to serve", _tail(out))
    return out


def check_answers(check: Check, server: Served, clone: Path, translated: bool) -> None:
    """The README's curl, a question per language, one across languages, /stats."""
    code, out = run(readme_curl(clone, server.port), clone, dict(os.environ), timeout=120)
    try:
        items = json.loads(out).get("items") if code == 0 else None
    except ValueError:
        items = None
    check.that(bool(items), "the README's curl gets results", out[:500])
    for lang, (question, expected) in QUESTIONS.items():
        status, body = http(server.url + "/answer", {"query": question})
        answer = body.get("answer", "") if isinstance(body, dict) else str(body)
        check.that(
            status == 200 and expected in answer, f"/answer in {lang}: {question}", f"{status} {answer}"
        )
    status, body = http(server.url + "/answer", {"query": ACROSS[0]})
    answer = body.get("answer", "") if isinstance(body, dict) else str(body)
    if translated:
        check.that(status == 200 and ACROSS[1] in answer, f"/answer across languages: {ACROSS[0]}", answer)
    else:
        check.that(status == 200, f"/answer across languages, untranslated, is answered: {ACROSS[0]}", answer)
    status, stats = http(server.url + "/stats")
    check.that(status == 200 and isinstance(stats, dict), "/stats answers", str(stats)[:300])
    if isinstance(stats, dict):
        name = stats.get("translator")
        check.that((name != "none") == translated, f"/stats names the translator ({name})", str(name))


def check_page(check: Check, url: str, translated: bool) -> None:
    """The page: served (200, its security policy); in Chromium, its script ran, no error in the console,
    and the translator notice shows exactly when no translator runs."""
    status, html = http(url + "/")
    check.that(status == 200 and "<title>Sabio</title>" in str(html), "GET / serves the page", str(status))
    dom = page_dom(url + "/")
    if dom is None:
        print("  (no Chromium at /usr/bin/chromium: the page was fetched, not run)", flush=True)
        check.that('id="translator-notice"' in str(html), "the page holds the translator notice")
        return
    page, console = dom
    check.that(
        '<option value="auto">' in page, "the page's script ran (its language menus are filled)", page[:300]
    )
    bad = ("Uncaught", "Failed to load resource", "Refused to")  # a script error, a 4xx/5xx, the policy
    errors = [line for line in console.splitlines() if any(b in line for b in bad)]
    check.that(not errors, "the page logs no script error", "\n".join(errors))
    notice = re.search(r'<div id="translator-notice"[^>]*>', page)
    shown = bool(notice) and "hidden" not in notice.group(0)
    check.that(
        shown != translated,
        f"the page's translator notice is {'hidden' if translated else 'shown'}",
        notice.group(0) if notice else "",
    )


def check_served(check: Check, clone: Path, env: dict[str, str], label: str, translated: bool) -> None:
    server = Served(clone, env)
    try:
        check.that(
            server.ready.is_set() and server.process.poll() is None,
            f"{label}: sabio serve starts",
            server.output,
        )
        said = NOTICE in server.output
        check.that(
            said != translated,
            f"{label}: sabio serve {'says nothing of' if translated else 'says'} translation",
            server.output,
        )
        if server.process.poll() is None:
            check_answers(check, server, clone, translated)
            check_page(check, server.url, translated)
    finally:
        code = server.stop()
    check.that(code == 0, f"{label}: sabio serve stops cleanly on Ctrl-C", f"exit {code}")
    check.output(f"{label}: sabio serve", server.output)


def first_contact(repository: str, workdir: Path) -> Check:
    check = Check()
    clone = workdir / "sabio"
    code, out = run(
        ["git", "clone", "--quiet", repository, str(clone)], workdir, dict(os.environ), timeout=600
    )
    if not check.that(code == 0, f"git clone {repository}", out):
        return check
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SABIO_", "VIRTUAL_ENV", "PYTHONPATH"))}
    print("\n== as the machine is", flush=True)
    out = check_demo(check, clone, env, "as is")
    translated = "translator: Apertium" in out
    print(f"  (translator: {'Apertium' if translated else 'none'})", flush=True)
    check.that((NOTICE in out) != translated, "make demo speaks of translation only without one", _tail(out))
    check_served(check, clone, env, "as is", translated)
    print("\n== without a translator (SABIO_TRANSLATOR=none)", flush=True)
    off = dict(env, SABIO_TRANSLATOR="none")
    out = check_demo(check, clone, off, "no translator")
    check.that("SABIO_TRANSLATOR=none" in out, "make demo says that no translator runs", _tail(out))
    check_served(check, clone, off, "no translator", translated=False)
    return check


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--repository", default=str(ROOT), help="what to clone (default: this repository)")
    parser.add_argument("--keep", action="store_true", help="keep the clone (it is kept anyway on failure)")
    args = parser.parse_args(argv)
    started = time.monotonic()
    workdir = Path(tempfile.mkdtemp(prefix="sabio-first-contact-"))
    check = first_contact(args.repository, workdir)
    minutes = (time.monotonic() - started) / 60
    if check.failed:
        print(f"\nFIRST CONTACT FAILED ({len(check.failed)} checks, {minutes:.1f} min); the clone: {workdir}")
        for what in check.failed:
            print(f"- {what}")
        return 1
    print(f"\nfirst contact: every check passed ({minutes:.1f} min)")
    if args.keep:
        print(f"the clone: {workdir}")
    else:
        shutil.rmtree(workdir, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
