"""The evaluation report: Markdown pages (the evaluation and its details), a PNG chart, and the JSON they
come from."""

from sabio.evaluation.report.files import merge, publish, write
from sabio.evaluation.report.page import details, markdown

__all__ = ["details", "markdown", "merge", "publish", "write"]
