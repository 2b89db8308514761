"""Specific retrieval: the plan, the ranked lists gathered (dense, keyword, other languages), their fusion, the priors, the second stage, and the chosen items."""
