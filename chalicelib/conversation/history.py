"""A thread's earlier turns as a follow-up reads them: a kept conversation's turns re-checked against what the
caller may read now, or a caller's own history read turn by turn."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from chalicelib.access.keys import visible
from chalicelib.conversation.follow_up import Earlier
from chalicelib.models.conversation import HistoryTurn, Turn

if TYPE_CHECKING:
    from chalicelib.access.keys import KeyPolicy
    from chalicelib.conversation.resolve import Resolver
    from chalicelib.protocols import ChunkStore


def readable(
    turns: Sequence[Turn], access: KeyPolicy | None, chunks: ChunkStore
) -> tuple[list[Earlier], int]:
    """The turns, and how many lost something: an answer that quoted a chunk the caller may no longer read is
    forgotten, and a question that took a name from such an answer is read as it was typed."""
    wanted = sorted({c for t in turns for c in (*t.cited, *t.drew_on)})
    found = chunks.get_chunks(wanted) if wanted else []
    readable_ids = {c.chunk_id for c in found if visible(access, c)}
    out, forgotten = [], 0
    for t in turns:
        answer = t.answer if set(t.cited) <= readable_ids else None
        standalone = t.standalone if set(t.drew_on) <= readable_ids else t.question
        forgotten += answer != t.answer or standalone != t.standalone
        cited = tuple(t.cited) if answer else ()
        out.append(Earlier(t.question, standalone, t.lang or None, answer, cited))
    return out, forgotten


def told(history: Sequence[HistoryTurn], resolver: Resolver) -> list[Earlier]:
    """A caller's own thread, each question read in the context of those before it (offline: it is the
    caller's own text, nothing in it to re-check)."""
    out: list[Earlier] = []
    for turn in history:
        lang = resolver.language(turn.question, out)
        standalone = resolver.offline(turn.question, lang, out[-1]).standalone if out else turn.question
        out.append(Earlier(turn.question, standalone, lang, turn.answer))
    return out
