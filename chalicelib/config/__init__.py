"""The settings' sections, one module each: what one component reads, given to it whole (``Settings`` in
chalicelib/settings.py gathers them; section.py says how a section's fields become ``SABIO_*`` settings)."""
