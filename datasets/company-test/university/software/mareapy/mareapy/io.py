"""Input/output helpers for mareapy: Sea-Bird .cnv reader, NetCDF writer, station table."""

from __future__ import annotations

import os
import re
from datetime import datetime

import pandas as pd

# Sea-Bird column names -> mareapy names
CNV_COLUMNS = {
    "prDM": "pressure",
    "t090C": "temperature",
    "sal00": "salinity",
    "sbeox0ML/L": "oxygen",
    "flECO-AFL": "fluorescence",
    "CStarTr0": "transmission",
}

# Environment variable with the stations database URL
STATIONS_DB_ENV = "MAREAPY_STATIONS_DB"


def read_cnv(path: str) -> pd.DataFrame:
    """Read a Sea-Bird ``.cnv`` file into a DataFrame.

    Header lines (starting with ``*`` or ``#``) are parsed for the start time
    and position, which are stored in ``df.attrs`` as ``start_time``,
    ``latitude`` and ``longitude``. Columns are renamed with ``CNV_COLUMNS``;
    unknown columns keep their Sea-Bird names.
    """
    names, attrs, data_start = [], {}, 0
    with open(path, encoding="latin-1") as fh:
        lines = fh.readlines()
    for i, line in enumerate(lines):
        if line.startswith("# name"):
            names.append(line.split("=")[1].split(":")[0].strip())
        elif line.startswith("# start_time"):
            stamp = line.split("=")[1].split("[")[0].strip()
            attrs["start_time"] = datetime.strptime(stamp, "%b %d %Y %H:%M:%S")
        elif line.startswith("* NMEA Latitude"):
            attrs["latitude"] = _parse_nmea(line.split("=")[1])
        elif line.startswith("* NMEA Longitude"):
            attrs["longitude"] = _parse_nmea(line.split("=")[1])
        elif line.startswith("*END*"):
            data_start = i + 1
            break
    df = pd.read_csv(path, skiprows=data_start, sep=r"\s+", names=names, encoding="latin-1")
    df = df.rename(columns=CNV_COLUMNS)
    df.attrs.update(attrs)
    return df


def _parse_nmea(text: str) -> float:
    """Convert '36 31.20 N' to decimal degrees."""
    deg, minutes, hemi = re.split(r"\s+", text.strip())[:3]
    value = float(deg) + float(minutes) / 60
    return -value if hemi in ("S", "W") else value


def to_netcdf(df: pd.DataFrame, path: str, station_id: str, cruise: str | None = None) -> None:
    """Write a profile to a CF-1.10 NetCDF file with global attributes."""
    ds = df.set_index("pressure").to_xarray()
    ds.attrs.update({
        "Conventions": "CF-1.10",
        "institution": "Department of Marine Sciences, UPAS",
        "station_id": station_id,
        "cruise": cruise or "",
        "source": "mareapy",
    })
    ds.to_netcdf(path)


def load_station_table(url: str | None = None) -> pd.DataFrame:
    """Load the station table (``estaciones``) from the stations database.

    The connection URL is taken from ``url`` or from the environment variable
    ``MAREAPY_STATIONS_DB``. See ``sql/schema_estaciones.sql`` for the schema.
    """
    url = url or os.environ.get(STATIONS_DB_ENV)
    if not url:
        raise RuntimeError(f"Set {STATIONS_DB_ENV} or pass url=")
    return pd.read_sql_table("estaciones", url)
