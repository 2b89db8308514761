"""Python client for the Onda Austral Provisioning API v2.

Usage::

    from onda_prov.client import ProvisioningClient

    client = ProvisioningClient(client_id="...", client_secret="...")
    svc = client.activate_service("HLXN4A7F19C2", "FH-300", "C-00231877", country="AR")
    print(svc["service_id"])

Maintainer: Systems Integration team (api-partners@ondaaustral.example).
"""

from __future__ import annotations

import time
import uuid
import warnings
from typing import Any, Dict, Optional

import requests

PROD_URL = "https://api.ondaaustral.example/prov/v2"
SANDBOX_URL = "https://sandbox.api.ondaaustral.example/prov/v2"

#: Seconds to wait between retries of PRV-503 (OLT unreachable).
RETRY_BACKOFF_S = (2, 4, 8, 16, 32)

#: Refresh the token this many seconds before it expires (tokens last 3600 s).
TOKEN_REFRESH_MARGIN_S = 120

VALID_SUSPEND_REASONS = {"NONPAY", "CUSTOMER_REQUEST", "FRAUD"}


class ProvisioningError(Exception):
    """Raised when the API returns an error body.

    Attributes:
        code: the API error code, e.g. ``"PRV-409"``.
        request_id: the ``request_id`` to quote when contacting support.
    """

    def __init__(self, code: str, message: str, request_id: Optional[str] = None):
        super().__init__(f"{code}: {message} (request_id={request_id})")
        self.code = code
        self.request_id = request_id


class ProvisioningClient:
    """Thin wrapper around the REST endpoints.

    Args:
        client_id: OAuth client id issued by the Wholesale team.
        client_secret: OAuth client secret.
        sandbox: if True, talk to the sandbox instead of production.
        timeout: per-request timeout in seconds (default 15).
    """

    def __init__(self, client_id: str, client_secret: str, sandbox: bool = False, timeout: int = 15):
        self.client_id = client_id
        self.client_secret = client_secret
        self.base_url = SANDBOX_URL if sandbox else PROD_URL
        self.timeout = timeout
        self._token: Optional[str] = None
        self._token_expiry = 0.0
        self._session = requests.Session()

    # ------------------------------------------------------------------ auth
    def _get_token(self) -> str:
        """Return a valid bearer token, requesting a new one when needed."""
        if self._token and time.time() < self._token_expiry - TOKEN_REFRESH_MARGIN_S:
            return self._token
        resp = self._session.post(
            self.base_url.replace("/prov/v2", "") + "/oauth/token",
            data={
                "grant_type": "client_credentials",
                "client_id": self.client_id,
                "client_secret": self.client_secret,
                "scope": "prov.write",
            },
            timeout=self.timeout,
        )
        resp.raise_for_status()
        body = resp.json()
        self._token = body["access_token"]
        self._token_expiry = time.time() + body.get("expires_in", 3600)
        return self._token

    # ------------------------------------------------------------- transport
    def _request(self, method: str, path: str, json: Optional[Dict[str, Any]] = None,
                 idempotent: bool = False) -> Dict[str, Any]:
        """Send a request, retrying PRV-503 with exponential backoff.

        PRV-429 is retried once after the ``Retry-After`` delay. Any other
        error is raised as :class:`ProvisioningError`.
        """
        headers = {"Authorization": f"Bearer {self._get_token()}"}
        if idempotent:
            headers["Idempotency-Key"] = str(uuid.uuid4())
        attempts = 0
        retried_429 = False
        while True:
            resp = self._session.request(method, self.base_url + path, json=json,
                                         headers=headers, timeout=self.timeout)
            if resp.status_code < 400:
                return resp.json() if resp.content else {}
            err = resp.json()
            code = err.get("code", f"HTTP-{resp.status_code}")
            if code == "PRV-503" and attempts < len(RETRY_BACKOFF_S):
                time.sleep(RETRY_BACKOFF_S[attempts])
                attempts += 1
                continue
            if code == "PRV-429" and not retried_429:
                time.sleep(int(resp.headers.get("Retry-After", "5")))
                retried_429 = True
                continue
            if code == "PRV-401":
                self._token = None
            raise ProvisioningError(code, err.get("message", ""), err.get("request_id"))

    # -------------------------------------------------------------- services
    def activate_service(self, ont_serial: str, plan_code: str, customer_id: str,
                         country: str = "AR", with_tv: bool = False) -> Dict[str, Any]:
        """Activate a new fibre service on an ONT.

        Args:
            ont_serial: ONT serial number, ``HLXN`` + 8 hex characters.
            plan_code: commercial plan code such as ``FH-300`` or ``FH-1000``.
            customer_id: customer id in the billing system (``C-`` + 8 digits).
            country: ``"AR"`` or ``"UY"``.
            with_tv: also provision the IPTV GEM port.

        Returns:
            The created service, including ``service_id`` and ``status``
            (``pending`` until the OLT confirms).

        Raises:
            ProvisioningError: e.g. PRV-404 (unknown serial), PRV-409 (serial
            already in use) or PRV-422 (plan not available at the address).
        """
        if country not in ("AR", "UY"):
            raise ValueError("country must be 'AR' or 'UY'")
        body = {"ont_serial": ont_serial.upper(), "plan_code": plan_code,
                "customer_id": customer_id, "country": country, "with_tv": with_tv}
        return self._request("POST", "/services", json=body, idempotent=True)

    def activate_line(self, serial: str, plan: str, customer: str) -> Dict[str, Any]:
        """Deprecated since client 1.6: use :meth:`activate_service` instead.

        Kept only for scripts written against API v1. It always activates in
        Argentina without TV and will be removed when API v1 is switched off
        on 2026-03-31.
        """
        warnings.warn("activate_line() is deprecated; use activate_service()",
                      DeprecationWarning, stacklevel=2)
        return self.activate_service(serial, plan, customer, country="AR", with_tv=False)

    def change_plan(self, service_id: str, new_plan_code: str) -> Dict[str, Any]:
        """Upgrade or downgrade a service (PATCH, available since API 2.3)."""
        return self._request("PATCH", f"/services/{service_id}", json={"plan_code": new_plan_code})

    def suspend_service(self, service_id: str, reason: str = "NONPAY") -> Dict[str, Any]:
        """Suspend a service. ``reason`` must be NONPAY, CUSTOMER_REQUEST or FRAUD."""
        if reason not in VALID_SUSPEND_REASONS:
            raise ValueError(f"invalid reason {reason!r}")
        return self._request("POST", f"/services/{service_id}/suspend", json={"reason": reason},
                             idempotent=True)

    def resume_service(self, service_id: str) -> Dict[str, Any]:
        """Resume a suspended service (not possible for FRAUD suspensions)."""
        return self._request("POST", f"/services/{service_id}/resume", idempotent=True)

    def terminate_service(self, service_id: str) -> Dict[str, Any]:
        """Terminate a service; the ONT serial is released 24 hours later."""
        return self._request("DELETE", f"/services/{service_id}")

    # ------------------------------------------------------------------ ONTs
    def get_ont_status(self, serial: str) -> Dict[str, Any]:
        """Return optical levels and the customer-facing status code of an ONT."""
        return self._request("GET", f"/onts/{serial.upper()}/status")

    def reboot_ont(self, serial: str) -> Dict[str, Any]:
        """Reboot an ONT remotely (max 3 per ONT per hour, else PRV-429)."""
        return self._request("POST", f"/onts/{serial.upper()}/reboot")
