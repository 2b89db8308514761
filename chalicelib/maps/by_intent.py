"""Which retrieval serves a request: a specific question, or the bootstrap map of a domain."""

from __future__ import annotations

from typing import TYPE_CHECKING

from chalicelib.models.api import RetrieveRequest, RetrieveResponse
from chalicelib.retrieve.results import Retrieval, Retrieved

if TYPE_CHECKING:
    from chalicelib.access.keys import KeyPolicy


class ByIntent:
    """``intent: bootstrap`` goes to the map, everything else to specific retrieval."""

    def __init__(self, specific: Retrieval, bootstrap: Retrieval) -> None:
        self.specific = specific
        self.bootstrap = bootstrap

    def run(self, request: RetrieveRequest, access: KeyPolicy | None) -> Retrieved:
        chosen = self.bootstrap if request.intent == "bootstrap" else self.specific
        return chosen.run(request, access)

    def retrieve(self, request: RetrieveRequest, access: KeyPolicy | None) -> RetrieveResponse:
        return self.run(request, access).response
