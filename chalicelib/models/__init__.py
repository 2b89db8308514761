"""Sabio's data shapes, by who depends on them: ``api`` (the HTTP contract, what OpenAPI shows), ``records``
(what the stores keep and search), ``extraction`` (documents as extracted and cut, before they are stored)."""
