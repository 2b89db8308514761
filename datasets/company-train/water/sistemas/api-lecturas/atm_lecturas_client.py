"""
atm_lecturas_client — Python client for the ATM Meter Reading API v2.

Aguas del Tajo Medio, Systems Department.
Maintainer: Daniel Ortega Campos <api-lecturas@aguastajomedio.es>

Version 2.4.1

Usage:
    client = LecturasClient.from_config("config/lecturas-api.yaml")
    readings = client.fetch_readings("TAJ-0048213", "2025-01-01", "2025-03-31")
"""

from __future__ import annotations

import logging
import time
import warnings
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from typing import Iterator, Optional

import requests

__version__ = "2.4.1"

log = logging.getLogger("atm_lecturas")

#: Maximum readings accepted by POST /readings/batch (server returns LEC-400-07 above this).
MAX_BATCH_SIZE = 500
#: Maximum number of days between `from` and `to` (server returns LEC-400-01 above this).
MAX_RANGE_DAYS = 366
#: How many times a request is retried after a 429 or 503 answer.
MAX_RETRIES = 5
#: Seconds before token expiry at which the client asks for a new token.
TOKEN_REFRESH_MARGIN = 60

VALID_PREFIXES = ("TAJ", "CAS", "NAV", "ALM")


class LecturasError(Exception):
    """Error returned by the API. `code` holds the LEC-xxx code."""

    def __init__(self, status: int, code: str, message: str):
        super().__init__(f"{status} {code}: {message}")
        self.status = status
        self.code = code


@dataclass
class _Token:
    value: str
    expires_at: float


class LecturasClient:
    """Thin wrapper around the Meter Reading API v2."""

    def __init__(self, base_url: str, client_id: str, client_secret: str,
                 timeout: float = 30.0, verify_tls: bool = True):
        self.base_url = base_url.rstrip("/")
        self.client_id = client_id
        self.client_secret = client_secret
        self.timeout = timeout
        self.verify_tls = verify_tls
        self._token: Optional[_Token] = None
        self._session = requests.Session()

    # ------------------------------------------------------------------ config
    @classmethod
    def from_config(cls, path: str) -> "LecturasClient":
        """Build a client from a YAML config file (see config/lecturas-api.yaml).

        The secret is never stored in the file: it is read from the environment
        variable named in `auth.client_secret_env`.
        """
        import os
        import yaml  # optional dependency, only needed here

        with open(path, encoding="utf-8") as fh:
            cfg = yaml.safe_load(fh)
        env = cfg["environment"]
        api = cfg["environments"][env]
        secret = os.environ[cfg["auth"]["client_secret_env"]]
        return cls(api["base_url"], cfg["auth"]["client_id"], secret,
                   timeout=cfg.get("timeout_seconds", 30))

    # -------------------------------------------------------------------- auth
    def _get_token(self) -> str:
        """Return a valid bearer token, renewing it TOKEN_REFRESH_MARGIN seconds before expiry."""
        now = time.time()
        if self._token and self._token.expires_at - TOKEN_REFRESH_MARGIN > now:
            return self._token.value
        resp = self._session.post(
            f"{self.base_url}/oauth/token",
            data={"grant_type": "client_credentials",
                  "client_id": self.client_id,
                  "client_secret": self.client_secret},
            timeout=self.timeout, verify=self.verify_tls)
        resp.raise_for_status()
        body = resp.json()
        self._token = _Token(body["access_token"], now + body.get("expires_in", 3600))
        return self._token.value

    # ----------------------------------------------------------------- request
    def _request(self, method: str, path: str, **kwargs) -> dict:
        """Send a request, retrying on LEC-429 and LEC-503 with exponential backoff.

        The wait is the server's Retry-After header when present, otherwise
        2, 4, 8, 16 and 32 seconds. After MAX_RETRIES attempts the last error is raised.
        """
        for attempt in range(MAX_RETRIES + 1):
            headers = {"Authorization": f"Bearer {self._get_token()}"}
            resp = self._session.request(method, f"{self.base_url}{path}",
                                         headers=headers, timeout=self.timeout,
                                         verify=self.verify_tls, **kwargs)
            if resp.status_code in (429, 503) and attempt < MAX_RETRIES:
                wait = int(resp.headers.get("Retry-After", 2 ** (attempt + 1)))
                log.warning("%s on %s, retrying in %s s", resp.status_code, path, wait)
                time.sleep(wait)
                continue
            if resp.status_code == 401 and attempt == 0:
                self._token = None  # token revoked: force renewal once
                continue
            if resp.status_code >= 400:
                err = resp.json().get("error", {})
                raise LecturasError(resp.status_code, err.get("code", "LEC-???"),
                                    err.get("message", resp.text))
            return resp.json()
        raise RuntimeError("unreachable")

    # --------------------------------------------------------------- endpoints
    def get_meter(self, meter_id: str) -> dict:
        """Return the details of one meter (serial, calibre, install date, supply point)."""
        _check_meter_id(meter_id)
        return self._request("GET", f"/meters/{meter_id}")

    def fetch_readings(self, meter_id: str, date_from: str, date_to: str,
                       page_size: int = 1000) -> Iterator[dict]:
        """Yield every reading of `meter_id` between `date_from` and `date_to` (ISO dates).

        Ranges longer than MAX_RANGE_DAYS are split automatically into consecutive
        chunks, so callers never get LEC-400-01. Pages are followed until exhausted.
        """
        _check_meter_id(meter_id)
        start = date.fromisoformat(date_from)
        end = date.fromisoformat(date_to)
        while start <= end:
            chunk_end = min(end, start + timedelta(days=MAX_RANGE_DAYS - 1))
            page = 1
            while True:
                body = self._request("GET", f"/meters/{meter_id}/readings",
                                     params={"from": start.isoformat(),
                                             "to": chunk_end.isoformat(),
                                             "page": page, "page_size": page_size})
                yield from body["items"]
                if not body.get("next_page"):
                    break
                page += 1
            start = chunk_end + timedelta(days=1)

    def submit_batch(self, readings: list[dict]) -> dict:
        """Submit readings in chunks of MAX_BATCH_SIZE.

        Duplicates (LEC-409) are counted and skipped, not raised. Returns a summary
        dict with the keys `accepted`, `duplicates` and `suspect`.
        """
        summary = {"accepted": 0, "duplicates": 0, "suspect": 0}
        for i in range(0, len(readings), MAX_BATCH_SIZE):
            chunk = readings[i:i + MAX_BATCH_SIZE]
            body = self._request("POST", "/readings/batch", json={"readings": chunk})
            for key in summary:
                summary[key] += body.get(key, 0)
        return summary

    def list_consumption_alerts(self, municipality: Optional[str] = None) -> list[dict]:
        """Return open consumption alerts, optionally filtered by prefix (TAJ, CAS, NAV, ALM)."""
        params = {"prefix": municipality} if municipality else {}
        return self._request("GET", "/alerts/consumption", params=params)["items"]

    # -------------------------------------------------------------- deprecated
    def get_readings(self, meter_id: str, desde: str, hasta: str) -> list[dict]:
        """Deprecated since 2.3.0: use fetch_readings() instead.

        Kept for scripts written against API v1, which used Spanish argument
        names (`desde`, `hasta`). Returns a list instead of an iterator and will be
        removed in 3.0.0, when API v1 is switched off.
        """
        warnings.warn("get_readings() is deprecated; use fetch_readings()",
                      DeprecationWarning, stacklevel=2)
        return list(self.fetch_readings(meter_id, desde, hasta))


def _check_meter_id(meter_id: str) -> None:
    """Raise ValueError if the meter ID is not PREFIX-NNNNNNN with a known prefix."""
    prefix, _, number = meter_id.partition("-")
    if prefix not in VALID_PREFIXES or len(number) != 7 or not number.isdigit():
        raise ValueError(f"invalid meter id: {meter_id!r}")


def quarter_bounds(year: int, quarter: int) -> tuple[str, str]:
    """Return the first and last ISO dates of a billing quarter (1-4)."""
    if quarter not in (1, 2, 3, 4):
        raise ValueError("quarter must be 1..4")
    first = date(year, 3 * quarter - 2, 1)
    last = (date(year + (quarter == 4), (3 * quarter) % 12 + 1, 1) - timedelta(days=1))
    return first.isoformat(), last.isoformat()
