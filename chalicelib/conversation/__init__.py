"""Conversations: a follow-up question read in its thread. ``threads`` is the use case around the logged
retrieve / context / answer (the thread's question resolved first, then the pipelines as they always run);
``resolve`` picks the user's language and the LLM's rewrite or the offline merge (``follow_up``, over the
``phrases`` of the earlier question and each language's ``cues``); ``condense`` is the LLM's prompt; ``history``
re-reads the earlier turns against what the caller may read now."""
