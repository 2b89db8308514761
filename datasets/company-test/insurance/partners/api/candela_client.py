"""
candela_client - Python client for the Mutua Candela Partner Claims API v2.

Version: 2.3.0 (2025-06-16)
Maintainer: Partner Integrations team <partners-support@mutuacandela.example>

Quick start::

    from candela_client import CandelaClient

    client = CandelaClient(client_id="...", client_secret="...", environment="sandbox")
    claim = client.create_claim(
        policy_number="ES-HG-00000001",
        claim_type="home_water",
        occurred_at="2025-06-01T22:15:00+02:00",
        description="Leak in the kitchen",
    )
    print(claim["claim_id"])

Requires Python 3.9 or later and the ``requests`` package.
"""

import time
import uuid
import warnings

import requests

__version__ = "2.3.0"

BASE_URLS = {
    "sandbox": "https://sandbox.partners.mutuacandela.example/v2",
    "production": "https://api.partners.mutuacandela.example/v2",
}

# Errors that are safe to retry (see error_codes.html)
RETRYABLE_CODES = {"PAPI-1009", "PAPI-5000", "PAPI-5003", "PAPI-5008"}

DEFAULT_TIMEOUT = 30          # seconds, for JSON calls
UPLOAD_TIMEOUT = 120          # seconds, for document uploads
MAX_RETRIES = 3


class CandelaAPIError(Exception):
    """Raised when the API answers with an error body.

    Attributes:
        code: the PAPI-xxxx error code.
        status: the HTTP status.
        trace_id: identifier to quote when contacting support.
    """

    def __init__(self, code, status, message, trace_id=None, details=None):
        super().__init__(f"{code} ({status}): {message}")
        self.code = code
        self.status = status
        self.trace_id = trace_id
        self.details = details or {}


class CandelaClient:
    """Client for the Partner Claims API.

    Args:
        client_id: OAuth client id issued in the partner portal.
        client_secret: OAuth client secret.
        environment: ``"sandbox"`` (default) or ``"production"``.
        timeout: timeout in seconds for JSON calls (default 30).
    """

    def __init__(self, client_id, client_secret, environment="sandbox", timeout=DEFAULT_TIMEOUT):
        if environment not in BASE_URLS:
            raise ValueError("environment must be 'sandbox' or 'production'")
        self.client_id = client_id
        self.client_secret = client_secret
        self.base_url = BASE_URLS[environment]
        self.timeout = timeout
        self._token = None
        self._token_expires_at = 0
        self._session = requests.Session()

    # ------------------------------------------------------------------ auth
    def _get_token(self):
        """Return a valid access token, requesting a new one 60 seconds before expiry."""
        if self._token and time.time() < self._token_expires_at - 60:
            return self._token
        resp = self._session.post(
            self.base_url.replace("/v2", "") + "/oauth/token",
            data={
                "grant_type": "client_credentials",
                "client_id": self.client_id,
                "client_secret": self.client_secret,
                "scope": "claims:read claims:write documents:write",
            },
            timeout=self.timeout,
        )
        resp.raise_for_status()
        body = resp.json()
        self._token = body["access_token"]
        self._token_expires_at = time.time() + body.get("expires_in", 3600)
        return self._token

    # --------------------------------------------------------------- request
    def _request(self, method, path, timeout=None, **kwargs):
        """Send a request with retries on retryable errors.

        Retries up to MAX_RETRIES times with exponential backoff (1, 2, 4 s),
        or the value of Retry-After when the API sends it.
        """
        headers = kwargs.pop("headers", {})
        for attempt in range(MAX_RETRIES + 1):
            headers["Authorization"] = f"Bearer {self._get_token()}"
            resp = self._session.request(
                method, self.base_url + path, headers=headers,
                timeout=timeout or self.timeout, **kwargs
            )
            if resp.status_code < 400:
                return resp.json() if resp.content else None
            err = resp.json().get("error", {})
            code = err.get("code", "PAPI-0000")
            if code == "PAPI-1002":
                self._token = None           # expired token: refresh and retry
                continue
            if code in RETRYABLE_CODES and attempt < MAX_RETRIES:
                wait = int(resp.headers.get("Retry-After", 2 ** attempt))
                time.sleep(wait)
                continue
            raise CandelaAPIError(code, resp.status_code, err.get("message", ""),
                                  err.get("trace_id"), err.get("details"))
        raise CandelaAPIError("PAPI-0000", 0, "retries exhausted")

    # ---------------------------------------------------------------- claims
    def create_claim(self, policy_number, claim_type, occurred_at, description,
                     estimated_amount=None, contact_phone=None, idempotency_key=None):
        """Open a new claim (first notice of loss).

        Args:
            policy_number: e.g. ``"ES-HG-20481736"``.
            claim_type: one of the values listed in the integration guide.
            occurred_at: ISO 8601 date-time with offset.
            description: free text, max 2000 characters.
            estimated_amount: optional, in the policy currency.
            contact_phone: optional phone of the policyholder.
            idempotency_key: optional; a UUID4 is generated when omitted.
                Pass the same key to resend the same claim safely.

        Returns:
            dict with ``claim_id`` (e.g. ``"CLM-ES-2025-0041876"``) and ``status``.
        """
        if len(description) > 2000:
            raise ValueError("description is limited to 2000 characters")
        payload = {
            "policy_number": policy_number,
            "claim_type": claim_type,
            "occurred_at": occurred_at,
            "description": description,
        }
        if estimated_amount is not None:
            payload["estimated_amount"] = round(float(estimated_amount), 2)
        if contact_phone:
            payload["contact_phone"] = contact_phone
        key = idempotency_key or str(uuid.uuid4())
        return self._request("POST", "/claims", json=payload,
                             headers={"Idempotency-Key": key})

    def get_claim(self, claim_id):
        """Return one claim, including its status history."""
        return self._request("GET", f"/claims/{claim_id}")

    def list_claims(self, policy_number=None, status=None, page_size=50):
        """Iterate over all claims matching the filters, following pagination.

        ``page_size`` is capped at 100 by the API.
        """
        page = 1
        while True:
            params = {"page": page, "page_size": min(page_size, 100)}
            if policy_number:
                params["policy_number"] = policy_number
            if status:
                params["status"] = status
            body = self._request("GET", "/claims", params=params)
            for item in body["items"]:
                yield item
            if not body.get("has_more"):
                break
            page += 1

    def upload_document(self, claim_id, file_path, doc_type="other"):
        """Attach a document (PDF, JPG, PNG or HEIC, max 15 MB) to a claim.

        Uses UPLOAD_TIMEOUT (120 s) instead of the default timeout.
        """
        with open(file_path, "rb") as fh:
            return self._request(
                "POST", f"/claims/{claim_id}/documents",
                files={"file": fh}, data={"doc_type": doc_type},
                timeout=UPLOAD_TIMEOUT,
            )

    # ------------------------------------------------------------ deprecated
    def submit_claim(self, poliza, tipo, fecha, descripcion, importe=None):
        """Deprecated since 2.0.0: use :meth:`create_claim` instead.

        Kept for partners migrating from the v1 client, whose arguments were
        in Spanish. It will be removed in client version 3.0.0.
        """
        warnings.warn("submit_claim() is deprecated; use create_claim()",
                      DeprecationWarning, stacklevel=2)
        return self.create_claim(policy_number=poliza, claim_type=tipo,
                                 occurred_at=fecha, description=descripcion,
                                 estimated_amount=importe)
