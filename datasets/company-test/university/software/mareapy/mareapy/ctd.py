"""CTD profile processing: cleaning, bin averaging and derived variables.

All functions take and return :class:`pandas.DataFrame` objects with one row per
scan and at least the columns ``pressure`` (dbar), ``temperature`` (degC, ITS-90)
and ``salinity`` (PSU), as produced by :func:`mareapy.io.read_cnv`.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd

# Quality-control flags (IOC/UNESCO scheme) written to the ``*_qc`` columns.
QC_GOOD = 1
QC_PROBABLY_BAD = 3
QC_BAD = 4
QC_MISSING = 9

# Default latitude used when a cast has no position (Gulf of Cadiz).
DEFAULT_LATITUDE = 36.5


def clean_profile(
    df: pd.DataFrame,
    variables: tuple[str, ...] = ("temperature", "salinity"),
    window: int = 7,
    n_sigma: float = 3.0,
    min_pressure: float = 1.0,
    downcast_only: bool = True,
) -> pd.DataFrame:
    """Remove spikes, surface soak and upcast scans from a CTD profile.

    A value is flagged as a spike when it differs from the rolling median of
    ``window`` scans by more than ``n_sigma`` rolling standard deviations.
    Spikes are set to NaN and their QC flag to ``QC_BAD`` (4).

    Parameters
    ----------
    df : DataFrame
        Raw profile from :func:`mareapy.io.read_cnv`.
    variables : tuple of str
        Columns to despike. Default: temperature and salinity.
    window : int
        Length of the rolling window, in scans. Must be odd. Default 7.
    n_sigma : float
        Spike threshold in standard deviations. Default 3.0.
    min_pressure : float
        Scans shallower than this pressure (dbar) are dropped, to remove the
        surface soak. Default 1.0 dbar.
    downcast_only : bool
        Keep only the descending part of the cast. Default True.

    Returns
    -------
    DataFrame
        Cleaned copy of the profile with ``<variable>_qc`` columns added.
    """
    if window % 2 == 0:
        raise ValueError("window must be an odd number of scans")

    out = df.copy()
    out = out[out["pressure"] >= min_pressure]
    if downcast_only:
        deepest = out["pressure"].idxmax()
        out = out.loc[:deepest]

    for var in variables:
        med = out[var].rolling(window, center=True, min_periods=1).median()
        std = out[var].rolling(window, center=True, min_periods=1).std().fillna(0)
        spikes = (out[var] - med).abs() > n_sigma * std.replace(0, np.inf)
        out[f"{var}_qc"] = np.where(out[var].isna(), QC_MISSING, QC_GOOD)
        out.loc[spikes, f"{var}_qc"] = QC_BAD
        out.loc[spikes, var] = np.nan
    return out.reset_index(drop=True)


def despike_ctd(df: pd.DataFrame, window: int = 5, threshold: float = 3.0) -> pd.DataFrame:
    """Despike a CTD profile.

    .. deprecated:: 2.0
        ``despike_ctd()`` is deprecated and will be removed in mareapy 3.0.
        Use :func:`clean_profile` instead, which also removes the surface soak
        and the upcast and writes QC flags. ``threshold`` maps to ``n_sigma``.
        Note that ``window`` must now be odd; even values are rounded up.
    """
    warnings.warn(
        "despike_ctd() is deprecated since mareapy 2.0 and will be removed in 3.0; "
        "use clean_profile() instead",
        DeprecationWarning,
        stacklevel=2,
    )
    if window % 2 == 0:
        window += 1
    return clean_profile(df, window=window, n_sigma=threshold, min_pressure=0.0,
                         downcast_only=False)


def bin_average(df: pd.DataFrame, bin_size: float = 1.0) -> pd.DataFrame:
    """Average a cleaned profile into pressure bins of ``bin_size`` dbar.

    Bins are centred on multiples of ``bin_size`` (0.5, 1.5, ... for 1 dbar).
    Bins with fewer than 3 valid scans are dropped.
    """
    edges = np.arange(0, df["pressure"].max() + bin_size, bin_size)
    labels = edges[:-1] + bin_size / 2
    binned = df.groupby(pd.cut(df["pressure"], edges, labels=labels), observed=True)
    counts = binned["pressure"].count()
    mean = binned.mean(numeric_only=True)
    mean = mean[counts >= 3]
    mean["pressure"] = mean.index.astype(float)
    return mean.reset_index(drop=True)


def compute_density(salinity, temperature, pressure, lat: float = DEFAULT_LATITUDE):
    """Return in-situ density (kg/m3) using TEOS-10.

    Uses the ``gsw`` package when installed. Without ``gsw`` a linear equation
    of state is used (rho0 = 1027 kg/m3, alpha = 2e-4 1/K, beta = 7.6e-4 1/PSU),
    which is only adequate for teaching exercises; a ``UserWarning`` is issued.
    """
    try:
        import gsw
    except ImportError:
        warnings.warn("gsw not installed; using a linear equation of state", UserWarning)
        return 1027.0 * (1 - 2e-4 * (np.asarray(temperature) - 10.0)
                         + 7.6e-4 * (np.asarray(salinity) - 35.0))
    sa = gsw.SA_from_SP(salinity, pressure, 0.0, lat)
    ct = gsw.CT_from_t(sa, temperature, pressure)
    return gsw.rho(sa, ct, pressure)


def mixed_layer_depth(
    df: pd.DataFrame,
    criterion: str = "temperature",
    threshold: float | None = None,
    ref_pressure: float = 10.0,
) -> float:
    """Estimate the mixed layer depth (dbar) of a bin-averaged profile.

    The MLD is the shallowest pressure below ``ref_pressure`` where the
    variable differs from its value at ``ref_pressure`` by more than
    ``threshold``.

    criterion : ``"temperature"`` (default threshold 0.2 degC) or
        ``"density"`` (default threshold 0.03 kg/m3; added in 2.4).
    Returns NaN when the profile is shallower than the mixed layer.
    """
    if criterion == "temperature":
        thr = 0.2 if threshold is None else threshold
        values = df["temperature"].to_numpy()
    elif criterion == "density":
        thr = 0.03 if threshold is None else threshold
        values = np.asarray(compute_density(df["salinity"], df["temperature"], df["pressure"]))
    else:
        raise ValueError("criterion must be 'temperature' or 'density'")

    p = df["pressure"].to_numpy()
    ref_idx = int(np.argmin(np.abs(p - ref_pressure)))
    below = np.where((p > p[ref_idx]) & (np.abs(values - values[ref_idx]) > thr))[0]
    return float(p[below[0]]) if below.size else float("nan")
