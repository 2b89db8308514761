"""Sabio's developer tools: the ``sabio`` CLI, ``sabio serve``, the local SQS worker and the evaluation
harness. Nothing here ships in the API Lambda package, and ``chalicelib`` never imports it (import contracts
in pyproject.toml, checked by ``make lint``)."""
