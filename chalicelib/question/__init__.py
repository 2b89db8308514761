"""A question read once: its language, intent, the kind of answer it asks for, its names and ranges; and the rewrites of it (HyDE, LLM rewriting) that are searched beside it."""
