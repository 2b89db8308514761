/**
 * webhook_signature.js
 * Reference implementation for verifying Mutua Candela webhook deliveries (Node.js 18+).
 *
 * Header format:  X-Candela-Signature: t=1717340000,v1=5f2b...c9
 * Signed payload: `${t}.${rawBody}`  (HMAC-SHA256, hex, with your webhook secret)
 *
 * Maintainer: Partner Integrations team
 */

const crypto = require('crypto');

// Deliveries older than this are rejected to prevent replay attacks.
const TOLERANCE_SECONDS = 300;

/**
 * Parse the X-Candela-Signature header into its timestamp and signature.
 * @param {string} header
 * @returns {{timestamp: number, signature: string}}
 */
function parseSignatureHeader(header) {
  const parts = Object.fromEntries(
    header.split(',').map((kv) => kv.trim().split('='))
  );
  if (!parts.t || !parts.v1) {
    throw new Error('Malformed X-Candela-Signature header');
  }
  return { timestamp: Number(parts.t), signature: parts.v1 };
}

/**
 * Verify a webhook delivery.
 * @param {string} header   value of the X-Candela-Signature header
 * @param {Buffer|string} rawBody  the body exactly as received (do not re-serialise JSON)
 * @param {string} secret   webhook secret from the partner portal (Settings > Webhooks)
 * @param {number} [now]    current unix time in seconds (for tests)
 * @returns {boolean} true if the signature is valid and recent
 */
function verifySignature(header, rawBody, secret, now = Math.floor(Date.now() / 1000)) {
  const { timestamp, signature } = parseSignatureHeader(header);
  if (Math.abs(now - timestamp) > TOLERANCE_SECONDS) {
    return false;
  }
  const expected = crypto
    .createHmac('sha256', secret)
    .update(`${timestamp}.${rawBody}`)
    .digest('hex');
  const a = Buffer.from(expected, 'hex');
  const b = Buffer.from(signature, 'hex');
  // Constant-time comparison
  return a.length === b.length && crypto.timingSafeEqual(a, b);
}

/**
 * @deprecated Since portal 2.1.0 webhooks are signed with HMAC-SHA256.
 * Use verifySignature() instead. This checked the old X-Candela-Token header.
 */
function checkLegacyToken(headerToken, configuredToken) {
  console.warn('checkLegacyToken() is deprecated, use verifySignature()');
  return headerToken === configuredToken;
}

module.exports = { verifySignature, parseSignatureHeader, checkLegacyToken, TOLERANCE_SECONDS };
