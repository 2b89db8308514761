"""The API's Lambda package and cold start: `chalice package` zipped / unzipped size against Lambda's 250 MB,
heavy packages absent, and `import app` and a first /retrieve in fresh processes (part of ``make bench``) on
the FastAPI docs store bench/scale.py keeps (3,477 chunks, es + en), read through a copy."""

from __future__ import annotations

import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from infra.slim import slim  # noqa: E402

CACHE = ROOT / "bench" / "cache"
HEAVY = {"torch", "sentence_transformers", "transformers"}
IMPORT_APP = "import time; t = time.perf_counter(); import app; print(time.perf_counter() - t)"
FIRST_RETRIEVE = (
    "import json, time; t = time.perf_counter(); import app; from chalice.test import Client\n"
    "with Client(app.app) as c:\n"
    "    c.http.post('/retrieve', headers={'Content-Type': 'application/json'},"
    " body=json.dumps({'query': 'precio'}))\n"
    "print(time.perf_counter() - t)"
)


def measure() -> dict[str, object]:
    env = {**os.environ, "AWS_DEFAULT_REGION": os.environ.get("AWS_DEFAULT_REGION", "eu-west-1")}
    sizes = package_sizes(env)
    imports, firsts = cold_starts(env)
    return {
        **sizes,
        "import_app_s": {"median": round(statistics.median(imports), 3), "max": round(max(imports), 3)},
        "first_retrieve_in_fresh_process_s": {"median": round(statistics.median(firsts), 3)},
    }


def package_sizes(env: dict[str, str]) -> dict[str, object]:
    """The package as chalice writes it and as the stack ships it (slimmed), by top-level folder."""
    chalice = Path(sys.executable).with_name("chalice")
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run(
            [str(chalice), "package", "--stage", "dev", f"{tmp}/out"],
            cwd=ROOT,
            env=env,
            check=True,
            capture_output=True,
        )
        archive = Path(tmp) / "out" / "deployment.zip"
        slimmed = slim(archive)  # as the stack ships it
        with zipfile.ZipFile(archive) as z:
            infos = z.infolist()
        zipped = archive.stat().st_size
    unzipped = sum(i.file_size for i in infos)
    tops: dict[str, int] = {}
    for i in infos:
        tops[i.filename.split("/")[0]] = tops.get(i.filename.split("/")[0], 0) + i.file_size
    biggest = sorted(tops.items(), key=lambda kv: -kv[1])[:6]
    return {
        "zipped_mb": round(zipped / 2**20, 1),
        "unzipped_mb": round(unzipped / 2**20, 1),
        "unzipped_mb_before_slimming": round(slimmed["before"] / 2**20, 1),
        "lambda_limit_unzipped_mb": 250,
        "fits": unzipped < 250 * 2**20,
        "heavy_packages": sorted({i.filename.split("/")[0] for i in infos} & HEAVY),
        "largest_mb": {k: round(v / 2**20, 1) for k, v in biggest},
    }


def cold_starts(env: dict[str, str]) -> tuple[list[float], list[float]]:
    """Seconds to `import app` (5 fresh processes) and to answer a first /retrieve on the FastAPI docs store
    (3)."""
    imports = [
        float(
            subprocess.run(
                [sys.executable, "-c", IMPORT_APP], cwd=ROOT, capture_output=True, text=True, check=True
            ).stdout.strip()
        )
        for _ in range(5)
    ]
    with tempfile.TemporaryDirectory() as tmp:
        store_env = {**env, "SABIO_STORE_PATH": str(_copied_store(Path(tmp)))}
        firsts = _first_retrieves(store_env)
    return imports, firsts


def _copied_store(into: Path) -> Path:
    """The FastAPI docs store (built once by bench/scale.py, cached) copied with the files kept beside it:
    a first /retrieve on a store that holds something, as `sabio index` leaves it."""
    import scale

    base = scale.base_store()
    for path in base.parent.glob(f"{base.name}*"):
        target = into / path.name
        shutil.copytree(path, target) if path.is_dir() else shutil.copy2(path, target)
    from chalicelib.composition import Container
    from chalicelib.settings import Settings

    store = Container(Settings(store_path=str(into / base.name))).store
    store.warm()  # its search files saved beside it, as `sabio index` ends
    store.close()
    return into / base.name


def _first_retrieves(store_env: dict[str, str]) -> list[float]:
    return [
        float(
            subprocess.run(
                [sys.executable, "-c", FIRST_RETRIEVE],
                cwd=ROOT,
                capture_output=True,
                text=True,
                env=store_env,
                check=True,
            )
            .stdout.strip()
            .splitlines()[-1]
        )
        for _ in range(3)
    ]
