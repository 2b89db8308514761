"""Tramo's Python client: shipments, rates and webhook checks over the v2 API."""

from __future__ import annotations

import hashlib
import hmac
import time
import uuid

import requests

API = "https://api.tramo.io/v2"
RETRYABLE = {"TRM-5002", "TRM-5030", "TRM-4290"}


class TramoError(Exception):
    def __init__(self, code: str, message: str, request_id: str | None = None) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.request_id = request_id


class Client:
    """A thin client. Retries the errors the API marks as safe to retry, up to ``max_retries`` times."""

    def __init__(self, api_key: str, max_retries: int = 3, timeout_s: float = 15.0) -> None:
        self.session = requests.Session()
        self.session.headers["Authorization"] = f"Bearer {api_key}"
        self.max_retries = max_retries
        self.timeout_s = timeout_s

    def create_shipment(self, carrier: str, service: str, to: dict, parcels: list[dict], **extra) -> dict:
        """Create a shipment and buy its label. An idempotency key is generated so retries never buy twice."""
        body = {"carrier": carrier, "service": service, "to": to, "parcels": parcels, **extra}
        body.setdefault("idempotency_key", str(uuid.uuid4()))
        return self._request("POST", "/shipments", json=body)

    def cancel_shipment(self, shipment_id: str) -> dict:
        return self._request("POST", f"/shipments/{shipment_id}/cancel")

    def _request(self, method: str, path: str, **kwargs) -> dict:
        for attempt in range(self.max_retries + 1):
            response = self.session.request(method, API + path, timeout=self.timeout_s, **kwargs)
            if response.ok:
                return response.json()
            error = response.json().get("error", {})
            code = error.get("code", "unknown")
            if code in RETRYABLE and attempt < self.max_retries:
                time.sleep(float(response.headers.get("Retry-After", 2**attempt)))
                continue
            raise TramoError(code, error.get("message", ""), error.get("request_id"))
        raise AssertionError("unreachable")


def verify_webhook(body: bytes, signature: str, timestamp: str, secret: str, tolerance_s: int = 300) -> bool:
    """True when ``signature`` is the HMAC-SHA256 of the raw body with the endpoint's secret and the
    timestamp is recent (five minutes by default)."""
    if abs(time.time() - float(timestamp)) > tolerance_s:
        return False
    expected = hmac.new(secret.encode(), body, hashlib.sha256).hexdigest()
    return hmac.compare_digest(expected, signature)
