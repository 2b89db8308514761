#!/usr/bin/env python3
"""run_pipeline.py - batch-process a cruise's CTD casts with mareapy on Nereida.

Reads every .cnv file of a cruise, cleans and bin-averages each cast, computes
density and mixed layer depth, writes one NetCDF per cast and a CSV summary.

Usage (inside a Slurm job, see the example at the bottom of this docstring):

    python run_pipeline.py pipeline_config.yaml

Example job script:

    #!/bin/bash
    #SBATCH --partition=short
    #SBATCH --cpus-per-task=8
    #SBATCH --mem-per-cpu=2000M
    #SBATCH --time=02:00:00
    module load nereida-stack/2024.3 python/3.11 mareapy/2.4
    python run_pipeline.py pipeline_config.yaml

Requires mareapy >= 2.4 (density criterion for mixed_layer_depth()).
"""

from __future__ import annotations

import csv
import logging
import sys
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import yaml

from mareapy.ctd import bin_average, clean_profile, compute_density, mixed_layer_depth
from mareapy.io import read_cnv, to_netcdf

log = logging.getLogger("run_pipeline")


def load_config(path: str) -> dict:
    """Load the YAML configuration and check the mandatory keys."""
    with open(path, encoding="utf-8") as fh:
        cfg = yaml.safe_load(fh)
    for key in ("cruise", "input_dir", "output_dir"):
        if key not in cfg:
            raise KeyError(f"missing '{key}' in {path}")
    return cfg


def station_from_filename(path: Path) -> str:
    """Return the station code from a file name such as 'AE2024_st07.cnv' -> 'ST07'."""
    return path.stem.split("_")[-1].upper()


def process_cast(path: Path, cfg: dict) -> dict:
    """Process one cast and return a row for the summary table."""
    out_dir = Path(cfg["output_dir"])
    out_file = out_dir / (path.stem + ".nc")
    if out_file.exists() and not cfg["output"].get("overwrite", False):
        log.info("skipping %s (already processed)", path.name)
        return {"file": path.name, "status": "skipped"}

    cast = read_cnv(str(path))
    cast = clean_profile(cast, **{k: v for k, v in cfg["cleaning"].items()
                                  if k != "variables"},
                         variables=tuple(cfg["cleaning"]["variables"]))
    binned = bin_average(cast, bin_size=cfg["binning"]["bin_size"])

    if cfg["derived"].get("density"):
        binned["density"] = compute_density(binned["salinity"], binned["temperature"],
                                            binned["pressure"],
                                            lat=cast.attrs.get("latitude", 36.5))
    mld_cfg = cfg["derived"]["mixed_layer_depth"]
    mld = mixed_layer_depth(binned, criterion=mld_cfg["criterion"],
                            threshold=mld_cfg["threshold"],
                            ref_pressure=mld_cfg["ref_pressure"])

    station = station_from_filename(path)
    to_netcdf(binned, str(out_file), station_id=station, cruise=cfg["cruise"])
    return {"file": path.name, "station": station, "status": "ok",
            "max_pressure_dbar": float(binned["pressure"].max()), "mld_dbar": mld}


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print(__doc__)
        return 2
    cfg = load_config(argv[1])
    logging.basicConfig(level=cfg["logging"]["level"], filename=cfg["logging"]["file"],
                        format="%(asctime)s %(levelname)s %(message)s")
    Path(cfg["output_dir"]).mkdir(parents=True, exist_ok=True)
    files = sorted(Path(cfg["input_dir"]).glob(cfg.get("file_pattern", "*.cnv")))
    log.info("cruise %s: %d casts found", cfg["cruise"], len(files))

    with ProcessPoolExecutor(max_workers=cfg["parallel"]["workers"]) as pool:
        rows = list(pool.map(process_cast, files, [cfg] * len(files)))

    summary = Path(cfg["output_dir"]) / cfg["output"]["summary_csv"]
    with open(summary, "w", newline="", encoding="utf-8") as fh:
        writer = csv.DictWriter(fh, fieldnames=["file", "station", "status",
                                                "max_pressure_dbar", "mld_dbar"])
        writer.writeheader()
        writer.writerows(rows)
    failed = [r for r in rows if r["status"] not in ("ok", "skipped")]
    log.info("done: %d processed, %d failed", len(rows) - len(failed), len(failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
