"""mareapy - oceanographic profile processing tools of the Department of Marine Sciences."""

__version__ = "2.4.0"

from . import ctd, io  # noqa: F401
