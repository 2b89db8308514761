"""The web page served at ``/``: one HTML document with its stylesheet and script inlined (no build step, no
CDN, nothing fetched but the API), and a Content-Security-Policy that allows exactly those two inline blocks.

The page calls the API with paths relative to where it is served, so it works under ``sabio serve`` (``/``)
and behind API Gateway's stage path (``/api/``) alike.
"""

from __future__ import annotations

import base64
import functools
import hashlib
from importlib import resources

_STYLE = "/*STYLE*/"
_SCRIPT = "/*SCRIPT*/"


def _sha256(text: str) -> str:
    return "'sha256-" + base64.b64encode(hashlib.sha256(text.encode("utf-8")).digest()).decode() + "'"


def content_security_policy(style: str, script: str) -> str:
    """Only this page's own inline style and script run; it talks to its own origin only."""
    return "; ".join(
        (
            "default-src 'none'",
            f"script-src {_sha256(script)}",
            f"style-src {_sha256(style)}",
            "connect-src 'self'",
            "img-src 'self' data:",
            "base-uri 'none'",
            "form-action 'none'",
            "frame-ancestors 'none'",
        )
    )


@functools.lru_cache(maxsize=1)
def page_response() -> tuple[str, dict[str, str]]:
    """The page's HTML and its headers, built once per process."""
    folder = resources.files(__package__)
    html = (folder / "index.html").read_text("utf-8")
    style = (folder / "page.css").read_text("utf-8")
    script = (folder / "page.js").read_text("utf-8")
    assert html.count(_STYLE) == 1 and html.count(_SCRIPT) == 1, (
        "index.html has one style and one script slot"
    )
    body = html.replace(_STYLE, style).replace(_SCRIPT, script)
    headers = {
        "Content-Type": "text/html; charset=utf-8",
        "Content-Security-Policy": content_security_policy(style, script),
        "X-Content-Type-Options": "nosniff",
        "Referrer-Policy": "no-referrer",
        "Cache-Control": "no-cache",
    }
    return body, headers
