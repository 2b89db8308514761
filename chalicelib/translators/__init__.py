"""Translators: a question put into another language before that language's documents are searched.

Apertium (rule-based, offline, Debian's ``apertium-eng-spa``) where it is installed; none otherwise. A
translator that fails returns None and retrieval searches that language by meaning alone. Each module
registers its factory under the name ``SABIO_TRANSLATOR`` gives (chalicelib/registry.py)."""
