/**
 * frigoviaClient.ts
 * Small TypeScript client for the Frigovía Driver App API v2.
 * Used by the control-tower web dashboard and by integration tests.
 *
 * Maintainer: Driver App team (ext. 2620)
 */

export interface TemperatureReading {
  /** ISO 8601 timestamp in UTC */
  ts: string;
  /** Return air temperature in °C */
  returnAir: number;
  /** Supply air temperature in °C */
  supplyAir?: number;
  source: "FV-LINK" | "MANUAL";
}

export interface ExcursionReport {
  tripId: string;
  unitId: string;
  startedAt: string;
  maxDeviationC: number;
  durationMin: number;
  doorsOpened: boolean;
  photos: string[];
  driverComment: string;
}

export class FrigoviaApiError extends Error {
  constructor(public code: string, public status: number, message: string) {
    super(`${code}: ${message}`);
  }
}

const DEFAULT_BASE_URL = "https://api.frigovia.example/driver/v2";
/** Maximum readings accepted by the API in one call (since app 3.6.0). */
export const MAX_READINGS_PER_CALL = 50;
/** Number of retries for DA-5001 and network errors. */
const MAX_RETRIES = 3;
/** Base delay for exponential backoff, in milliseconds. */
const BACKOFF_BASE_MS = 2000;

export class FrigoviaDriverClient {
  private token: string | null = null;

  constructor(private baseUrl: string = DEFAULT_BASE_URL) {}

  /**
   * Logs in with employee number, PIN and device ID.
   * Stores the access token (valid 12 hours) for later calls.
   */
  async login(employeeNumber: string, pin: string, deviceId: string): Promise<void> {
    const res = await this.request("POST", "/auth/token", { employeeNumber, pin, deviceId }, false);
    this.token = res.accessToken;
  }

  /** Returns the trips assigned to the logged-in driver that are still open. */
  async getActiveTrips(): Promise<any[]> {
    return this.request("GET", "/trips/active");
  }

  /** Returns the detail of one trip (stops, appointment IDs, setpoint, range). */
  async getTrip(tripId: string): Promise<any> {
    return this.request("GET", `/trips/${encodeURIComponent(tripId)}`);
  }

  /**
   * Sends temperature readings for a trip.
   * Readings are split in batches of MAX_READINGS_PER_CALL. Each batch gets its own
   * idempotency key so a retried batch is not stored twice.
   */
  async postTemperatureReading(tripId: string, unitId: string, readings: TemperatureReading[]): Promise<number> {
    let sent = 0;
    for (let i = 0; i < readings.length; i += MAX_READINGS_PER_CALL) {
      const batch = readings.slice(i, i + MAX_READINGS_PER_CALL);
      await this.request("POST", `/trips/${encodeURIComponent(tripId)}/temperature`, { unitId, readings: batch });
      sent += batch.length;
    }
    return sent;
  }

  /**
   * Sends a single temperature value.
   * @deprecated since 3.2.0. Use postTemperatureReading() instead; sendTemp() will be removed in 4.0.0.
   */
  async sendTemp(tripId: string, unitId: string, celsius: number): Promise<number> {
    console.warn("sendTemp() is deprecated; use postTemperatureReading()");
    return this.postTemperatureReading(tripId, unitId, [
      { ts: new Date().toISOString(), returnAir: celsius, source: "MANUAL" },
    ]);
  }

  /** Files an excursion report (form FX-07). The server computes the excursion level. */
  async reportExcursion(report: ExcursionReport): Promise<{ excursionId: string; level: 1 | 2 | 3 }> {
    if (report.photos.length < 1 || report.photos.length > 4) {
      throw new Error("An FX-07 report needs between 1 and 4 photos of the controller display");
    }
    return this.request("POST", "/excursions", report);
  }

  /** Lists open FR-xxx alarms for a reefer unit. */
  async getOpenAlarms(unitId: string): Promise<any[]> {
    return this.request("GET", `/alarms?unitId=${encodeURIComponent(unitId)}`);
  }

  // ---------------------------------------------------------------------------
  // internals
  // ---------------------------------------------------------------------------

  private async request(method: string, path: string, body?: unknown, auth = true): Promise<any> {
    let attempt = 0;
    for (;;) {
      const headers: Record<string, string> = { "Content-Type": "application/json" };
      if (auth && this.token) headers["Authorization"] = `Bearer ${this.token}`;
      if (method === "POST") headers["Idempotency-Key"] = crypto.randomUUID();

      const res = await fetch(this.baseUrl + path, {
        method,
        headers,
        body: body ? JSON.stringify(body) : undefined,
      });
      if (res.ok) return res.json();

      const err = await res.json().catch(() => ({ code: "UNKNOWN", message: res.statusText }));
      // DA-4291: respect Retry-After; DA-5001: exponential backoff; DA-5031: let caller queue it
      if (err.code === "DA-4291") {
        const wait = Number(res.headers.get("Retry-After") ?? "1") * 1000;
        await new Promise((r) => setTimeout(r, wait));
        continue;
      }
      if (err.code === "DA-5001" && attempt < MAX_RETRIES) {
        await new Promise((r) => setTimeout(r, BACKOFF_BASE_MS * 2 ** attempt));
        attempt++;
        continue;
      }
      throw new FrigoviaApiError(err.code, res.status, err.message);
    }
  }
}
