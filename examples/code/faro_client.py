"""A small Python client for the Faro REST API (v2): tickets and webhook signatures."""

from __future__ import annotations

import hashlib
import hmac
import time

import requests

API_URL = "https://api.faro.example/v2"


class FaroClient:
    """Creates and lists Faro tickets with an API token from Settings -> API tokens."""

    def __init__(self, token: str, timeout: float = 10.0) -> None:
        self.session = requests.Session()
        self.session.headers["Authorization"] = f"Bearer {token}"
        self.timeout = timeout

    def create_ticket(self, subject: str, requester_email: str, priority: str = "normal") -> str:
        """Open a ticket and return its id; subject and requester_email are required by the API."""
        body = {"subject": subject, "requester_email": requester_email, "priority": priority}
        response = self._post("/tickets", body)
        return response.json()["id"]

    def list_tickets(self, status: str = "open") -> list[dict]:
        """Tickets in one status: open, pending or solved."""
        response = self.session.get(f"{API_URL}/tickets", params={"status": status}, timeout=self.timeout)
        response.raise_for_status()
        return response.json()["tickets"]

    def _post(self, path: str, body: dict) -> requests.Response:
        # The API answers 429 with Retry-After when the plan's rate limit is exceeded: wait and retry once.
        response = self.session.post(f"{API_URL}{path}", json=body, timeout=self.timeout)
        if response.status_code == 429:
            time.sleep(float(response.headers.get("Retry-After", "1")))
            response = self.session.post(f"{API_URL}{path}", json=body, timeout=self.timeout)
        response.raise_for_status()
        return response


def verify_webhook_signature(secret: str, payload: bytes, signature: str) -> bool:
    """Check the X-Faro-Signature header: HMAC-SHA256 of the raw body with the webhook secret."""
    expected = hmac.new(secret.encode(), payload, hashlib.sha256).hexdigest()
    return hmac.compare_digest(expected, signature)
