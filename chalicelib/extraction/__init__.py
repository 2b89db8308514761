"""Extraction: files -> sections with heading paths (dispatch.py picks the format).

Kept empty on purpose: the API path imports ``extraction.code`` for its language table, and must not pull
in BeautifulSoup, lxml or PyYAML, which only the indexer needs.
"""
