"""Sources kept in step: a Git repository and a docs site read through the one indexing path, and where their documents land."""
