"""Amazon Translate (``TranslateText``): the deployed API's translator, where no Apertium runs. A question
costs about 100 characters ($15 per million characters, 2026 list price) and one short call, bounded by
``TIMEOUT_S`` and never retried: a question must not wait on it. Names and identifiers go inside
``<span translate="no">``, the service's do-not-translate markup, so the text is sent as HTML."""

from __future__ import annotations

import html
import logging
import re
from collections.abc import Collection, Sequence
from typing import TYPE_CHECKING, Any

from chalicelib.registry import TRANSLATORS
from chalicelib.translators.names import pieces

if TYPE_CHECKING:
    from chalicelib.registry import Wiring

log = logging.getLogger(__name__)

TIMEOUT_S = 2.0
_SPAN = re.compile(r"</?span\b[^>]*>")


def marked(text: str, keep: Collection[str] = (), names: bool = True) -> str:
    """``text`` as the HTML TranslateText reads (one line: ``names.pieces``): escaped, names and identifiers
    marked not to translate."""
    return "".join(
        f'<span translate="no">{html.escape(p)}</span>' if kept else html.escape(p)
        for p, kept in pieces(text, keep, names)
    )


def unmarked(text: str) -> str:
    return html.unescape(_SPAN.sub("", text)).strip()


class AmazonTranslator:
    """Translator (chalicelib.protocols) over a boto3 ``translate`` client, between ``languages``."""

    def __init__(self, client: Any, languages: Sequence[str]) -> None:
        self.client = client
        self._pairs = [(a, b) for a in languages for b in languages if a != b]

    def pairs(self) -> list[tuple[str, str]]:
        return list(self._pairs)

    def translate(
        self, text: str, source: str, target: str, keep: Collection[str] = (), *, names: bool = True
    ) -> str | None:
        if (source, target) not in self._pairs or not text.strip():
            return None
        from botocore.exceptions import BotoCoreError, ClientError

        try:
            found = self.client.translate_text(
                Text=marked(text, keep, names), SourceLanguageCode=source, TargetLanguageCode=target
            )
        except (BotoCoreError, ClientError) as e:
            log.warning(
                "Amazon Translate %s->%s failed (%s): searched without a translation", source, target, e
            )
            return None
        return unmarked(str(found.get("TranslatedText", ""))) or None


def client(region: str | None, endpoint_url: str | None = None) -> Any:
    """A translate client that gives up fast: one attempt, short timeouts."""
    import boto3
    from botocore.config import Config

    config = Config(
        connect_timeout=TIMEOUT_S,
        read_timeout=TIMEOUT_S,
        retries={"total_max_attempts": 1, "mode": "standard"},
    )
    return boto3.client("translate", region_name=region, endpoint_url=endpoint_url, config=config)


@TRANSLATORS.register("amazon")
def build(wiring: Wiring) -> AmazonTranslator:
    """SABIO_TRANSLATOR=amazon: Amazon Translate between the deployment's languages."""
    return AmazonTranslator(client(wiring.aws_region, wiring.aws_endpoint_url), wiring.languages)
