/**
 * @brasaco/pos-client — TypeScript client for the TillWave Cloud POS API v4.
 *
 * Maintained by the Brasa & Co. Systems team (sistemas@brasaco.example).
 * SDK version: 2.3.0 (requires Node.js 18+ for the global fetch API).
 *
 * The client handles authentication headers, idempotency keys, retries with
 * exponential backoff and conversion of API errors into typed exceptions.
 */

import { createHmac, randomUUID, timingSafeEqual } from "node:crypto";

export const SDK_VERSION = "2.3.0";
const PROD_URL = "https://api.tillwave.example/v4";
const SANDBOX_URL = "https://sandbox.tillwave.example/v4";

/** Sales channels accepted by POST /v4/orders. */
export type Channel = "dine_in" | "takeaway" | "delivery_web" | "delivery_partner";

export interface OrderLine {
  /** Menu SKU, e.g. "CAR-101". */
  sku: string;
  qty: number;
  /** Free text printed on the kitchen ticket (e.g. meat doneness). */
  notes?: string;
  /** Allergen codes to flag on the kitchen ticket, e.g. ["GLUTEN"]. */
  allergens?: string[];
}

export interface OrderInput {
  channel: Channel;
  table?: string;
  covers?: number;
  lines: OrderLine[];
}

export interface Order {
  id: string;
  locationId: string;
  status: "open" | "paid" | "voided";
  /** Total in minor units (cents). */
  total: number;
  currency: "EUR" | "MXN" | "USD";
  createdAt: string;
}

export interface DailySales {
  date: string;
  grossTotal: number;
  netTotal: number;
  tipsTotal: number;
  voidsTotal: number;
  covers: number;
}

export interface ClientOptions {
  apiKey: string;
  locationId: string;
  sandbox?: boolean;
  /** Request timeout in milliseconds. Default: 8000. */
  timeoutMs?: number;
  /** Maximum retries for 429/5xx/network errors. Default: 3. */
  maxRetries?: number;
}

/** Error thrown for non-2xx answers. `posCode` holds the TW- code when the API sends one. */
export class PosApiError extends Error {
  constructor(public status: number, message: string, public posCode?: string) {
    super(message);
    this.name = "PosApiError";
  }
}

export class BrasaPosClient {
  private baseUrl: string;
  private timeoutMs: number;
  private maxRetries: number;

  constructor(private opts: ClientOptions) {
    this.baseUrl = opts.sandbox ? SANDBOX_URL : PROD_URL;
    this.timeoutMs = opts.timeoutMs ?? 8000;
    this.maxRetries = opts.maxRetries ?? 3;
  }

  /**
   * Low-level request helper.
   * Retries on HTTP 429 (honouring Retry-After), 5xx and network errors,
   * waiting 500 ms, 1 s, 2 s ... between attempts.
   */
  private async request<T>(method: string, path: string, body?: unknown, idempotencyKey?: string): Promise<T> {
    for (let attempt = 0; ; attempt++) {
      const controller = new AbortController();
      const timer = setTimeout(() => controller.abort(), this.timeoutMs);
      try {
        const res = await fetch(this.baseUrl + path, {
          method,
          signal: controller.signal,
          headers: {
            "Content-Type": "application/json",
            "X-TillWave-Key": this.opts.apiKey,
            "X-Location-Id": this.opts.locationId,
            "User-Agent": `brasaco-pos-client/${SDK_VERSION}`,
            ...(idempotencyKey ? { "Idempotency-Key": idempotencyKey } : {}),
          },
          body: body === undefined ? undefined : JSON.stringify(body),
        });
        if (res.ok) return (await res.json()) as T;
        const retriable = res.status === 429 || res.status >= 500;
        if (!retriable || attempt >= this.maxRetries) {
          const err = await res.json().catch(() => ({}));
          throw new PosApiError(res.status, err.message ?? res.statusText, err.code);
        }
        const retryAfter = Number(res.headers.get("Retry-After"));
        await sleep(retryAfter > 0 ? retryAfter * 1000 : 500 * 2 ** attempt);
      } catch (e) {
        if (e instanceof PosApiError || attempt >= this.maxRetries) throw e;
        await sleep(500 * 2 ** attempt);
      } finally {
        clearTimeout(timer);
      }
    }
  }

  /**
   * Create an order on the location's POS.
   * An idempotency key is generated automatically unless one is given, so a retried call
   * never creates the same order twice (keys are remembered by TillWave for 24 hours).
   */
  async createOrder(input: OrderInput, idempotencyKey: string = randomUUID()): Promise<Order> {
    if (!input.lines.length) throw new Error("An order needs at least one line");
    return this.request<Order>("POST", "/orders", input, idempotencyKey);
  }

  /** Read one order by its TillWave ID. */
  async getOrder(orderId: string): Promise<Order> {
    return this.request<Order>("GET", `/orders/${encodeURIComponent(orderId)}`);
  }

  /**
   * Void an order. `reason` is one of the void reason codes configured in the back office
   * ("INV" for an invitation, "DUP" for a duplicate delivery order, "ERR" for a staff error).
   */
  async voidOrder(orderId: string, reason: "INV" | "DUP" | "ERR"): Promise<Order> {
    return this.request<Order>("POST", `/orders/${encodeURIComponent(orderId)}/void`, { reason });
  }

  /**
   * Push menu prices for the location. Prices are in minor units.
   * Items with price 0 are valid (free extras) since SDK 2.0.1.
   */
  async syncMenu(items: { sku: string; dineIn: number; delivery?: number }[]): Promise<{ updated: number }> {
    return this.request("PUT", "/menu/prices", { items });
  }

  /** Daily sales for a business day (YYYY-MM-DD, local business day cut at 04:00). */
  async getDailySales(date: string): Promise<DailySales> {
    return this.request<DailySales>("GET", `/locations/${this.opts.locationId}/daily-sales?date=${date}`);
  }

  /**
   * Submit an order in the old "ticket" format used by the CajaFácil bridge.
   *
   * @deprecated Since SDK 2.0.0 (TillWave 4.5.0). Use {@link BrasaPosClient.createOrder} instead.
   * This wrapper only maps the old fields to an OrderInput and calls createOrder(); it will be
   * removed in SDK 3.0.0.
   */
  async pushTicket(ticket: { mesa?: string; items: { codigo: string; uds: number }[]; canal?: Channel }): Promise<Order> {
    console.warn("pushTicket() is deprecated; use createOrder() instead");
    return this.createOrder({
      channel: ticket.canal ?? "dine_in",
      table: ticket.mesa,
      lines: ticket.items.map((i) => ({ sku: i.codigo, qty: i.uds })),
    });
  }
}

/**
 * Check the X-TillWave-Signature header of an incoming webhook.
 * @param rawBody  the request body exactly as received (do not re-serialize the JSON)
 * @param signature the hex signature from the header
 * @param secret   the webhook secret from the Partner Portal
 */
export function verifyWebhookSignature(rawBody: string, signature: string, secret: string): boolean {
  const expected = createHmac("sha256", secret).update(rawBody).digest("hex");
  if (expected.length !== signature.length) return false;
  return timingSafeEqual(Buffer.from(expected), Buffer.from(signature));
}

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}
