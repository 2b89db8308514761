"""Who may read what: API keys and their scopes, an identity provider's users and groups, and each document's readers."""
