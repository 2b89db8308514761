"""What an LLM's tokens cost (prices per million tokens, from settings), for the indexing report."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Pricing:
    input_per_mtok: float = 0.0
    output_per_mtok: float = 0.0

    def cost_usd(self, tokens_in: int, tokens_out: int) -> float:
        return tokens_in / 1e6 * self.input_per_mtok + tokens_out / 1e6 * self.output_per_mtok
