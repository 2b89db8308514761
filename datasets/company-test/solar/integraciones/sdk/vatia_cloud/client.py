"""
vatia_cloud.client
==================

Python client for the Vatia Cloud monitoring API (v2).

Typical use::

    from vatia_cloud import VatiaCloudClient

    client = VatiaCloudClient(api_key="...", region="eu")
    for plant in client.get_plants():
        print(plant["id"], plant["name"])

The API allows 120 requests per minute per API key. When the limit is exceeded the server answers
HTTP 429 and the client waits for the number of seconds in the ``Retry-After`` header before retrying.
"""

from __future__ import annotations

import datetime as _dt
import time
import warnings
from typing import Any, Dict, Iterable, List, Optional

import requests

__version__ = "2.4.1"

#: Base URLs per region. Plants in Spain and Portugal live in "eu"; plants in Colombia in "co".
REGION_URLS = {
    "eu": "https://api.eu.vatiacloud.example/v2",
    "co": "https://api.co.vatiacloud.example/v2",
}

#: Intervals accepted by :meth:`VatiaCloudClient.get_energy_series`.
VALID_INTERVALS = ("5m", "15m", "1h", "1d", "1mo")

#: Battery reserve limits accepted by the cloud (same range as Modbus register 40100).
MIN_RESERVE_PCT = 10
MAX_RESERVE_PCT = 90


class VatiaCloudError(Exception):
    """Raised when the API answers with an error status other than 429."""

    def __init__(self, status: int, message: str):
        super().__init__(f"HTTP {status}: {message}")
        self.status = status


class VatiaCloudClient:
    """Thin wrapper around the Vatia Cloud REST API.

    :param api_key: personal API key created in the installer portal (Settings > API keys).
        Keys expire after 365 days.
    :param region: ``"eu"`` or ``"co"``.
    :param timeout: request timeout in seconds (default 30).
    :param max_retries: how many times a request is retried after HTTP 429 or a network error.
    """

    def __init__(self, api_key: str, region: str = "eu", timeout: float = 30, max_retries: int = 3):
        if region not in REGION_URLS:
            raise ValueError(f"Unknown region {region!r}; use one of {sorted(REGION_URLS)}")
        self.base_url = REGION_URLS[region]
        self.timeout = timeout
        self.max_retries = max_retries
        self._session = requests.Session()
        self._session.headers.update({
            "Authorization": f"Bearer {api_key}",
            "User-Agent": f"vatia-cloud-sdk/{__version__}",
        })

    # ------------------------------------------------------------------ internals
    def _request(self, method: str, path: str, **kwargs: Any) -> Any:
        """Send a request, retrying on HTTP 429 and connection errors."""
        url = f"{self.base_url}{path}"
        for attempt in range(self.max_retries + 1):
            try:
                resp = self._session.request(method, url, timeout=self.timeout, **kwargs)
            except requests.ConnectionError:
                if attempt == self.max_retries:
                    raise
                time.sleep(2 ** attempt)
                continue
            if resp.status_code == 429 and attempt < self.max_retries:
                time.sleep(int(resp.headers.get("Retry-After", "5")))
                continue
            if resp.status_code >= 400:
                raise VatiaCloudError(resp.status_code, resp.text[:200])
            return resp.json() if resp.content else None
        raise VatiaCloudError(429, "rate limit retries exhausted")

    # ------------------------------------------------------------------ plants
    def get_plants(self) -> List[Dict[str, Any]]:
        """Return every plant the API key can see (id, name, country, timezone, peak_power_kwp)."""
        return self._request("GET", "/plants")["items"]

    def get_plant_summary(self, plant_id: str) -> Dict[str, Any]:
        """Return the live summary of a plant.

        Keys: ``pv_power_w``, ``battery_soc_pct``, ``grid_power_w`` (positive = import),
        ``load_power_w``, ``inverter_state`` and ``last_update`` (UTC, ISO 8601).
        Live values are refreshed every 5 minutes.
        """
        return self._request("GET", f"/plants/{plant_id}/summary")

    # ------------------------------------------------------------------ energy
    def get_energy_series(
        self,
        plant_id: str,
        start: _dt.date,
        end: _dt.date,
        interval: str = "1h",
    ) -> List[Dict[str, Any]]:
        """Return energy totals between ``start`` and ``end`` (both inclusive, plant local time).

        :param interval: one of ``VALID_INTERVALS``. Series with ``5m`` resolution are limited to
            7 days per call; ``15m`` and ``1h`` to 31 days; ``1d`` and ``1mo`` to 3 years.
        :returns: a list of dicts with ``timestamp``, ``pv_kwh``, ``export_kwh``, ``import_kwh``,
            ``charge_kwh`` and ``discharge_kwh``.
        """
        if interval not in VALID_INTERVALS:
            raise ValueError(f"interval must be one of {VALID_INTERVALS}")
        params = {"start": start.isoformat(), "end": end.isoformat(), "interval": interval}
        return self._request("GET", f"/plants/{plant_id}/energy", params=params)["items"]

    def get_daily_energy(self, plant_id: str, day: _dt.date) -> Dict[str, Any]:
        """Return the energy totals of a single day.

        .. deprecated:: 2.2.0
            Use :meth:`get_energy_series` with ``interval="1d"`` and ``start=end=day`` instead.
            ``get_daily_energy`` will be removed in SDK 3.0.
        """
        warnings.warn(
            "get_daily_energy() is deprecated since 2.2.0 and will be removed in 3.0; "
            "use get_energy_series(plant_id, day, day, interval='1d')",
            DeprecationWarning,
            stacklevel=2,
        )
        items = self.get_energy_series(plant_id, day, day, interval="1d")
        return items[0] if items else {}

    # ------------------------------------------------------------------ alarms
    def list_alarms(
        self,
        plant_id: str,
        since: Optional[_dt.datetime] = None,
        active_only: bool = True,
    ) -> List[Dict[str, Any]]:
        """Return alarms of a plant, newest first.

        Each alarm has ``code`` (e.g. ``"E-201"`` or ``"W-045"``), ``device_sn``, ``raised_at``,
        ``cleared_at`` (None while active). The cloud keeps alarm history for 24 months.
        """
        params: Dict[str, Any] = {"active_only": str(active_only).lower()}
        if since is not None:
            params["since"] = since.isoformat()
        return self._request("GET", f"/plants/{plant_id}/alarms", params=params)["items"]

    # ------------------------------------------------------------------ control
    def set_battery_reserve(self, device_sn: str, percent: int) -> None:
        """Set the battery reserve (minimum SOC kept for outages) of an inverter.

        Requires an API key with the ``control`` scope. The value must be between
        ``MIN_RESERVE_PCT`` and ``MAX_RESERVE_PCT``. The inverter applies it within 2 minutes.
        """
        if not MIN_RESERVE_PCT <= percent <= MAX_RESERVE_PCT:
            raise ValueError(f"percent must be between {MIN_RESERVE_PCT} and {MAX_RESERVE_PCT}")
        self._request("PUT", f"/devices/{device_sn}/settings", json={"battery_min_soc": percent})

    def iter_devices(self, plant_id: str) -> Iterable[Dict[str, Any]]:
        """Yield the devices (inverters, batteries, meters) of a plant, following pagination."""
        page = 1
        while True:
            data = self._request("GET", f"/plants/{plant_id}/devices", params={"page": page})
            yield from data["items"]
            if not data.get("next_page"):
                break
            page = data["next_page"]
