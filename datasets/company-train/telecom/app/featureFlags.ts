/**
 * Remote feature flags for the Mi Onda app.
 *
 * Flags are fetched from the config service at start-up and cached for
 * CACHE_TTL_MINUTES. If the config service is unreachable the app uses
 * the DEFAULT_FLAGS below. Owner: Digital Product (mobile team).
 */

export type Country = "AR" | "UY";

export interface FeatureFlags {
  /** Diagnostic screen (codes LOS-01, PON-02, PWR-03, ...). */
  diagnostics: boolean;
  /** "Reparar conexión" button, resends PPPoE credentials (AUTH-104). */
  repairConnection: boolean;
  /** "Optimizar Wi-Fi" button (WIFI-305). */
  wifiOptimizer: boolean;
  /** TV diagnostics (TV-610). Only for customers with Onda TV. */
  tvDiagnostics: boolean;
  /** DNS-230 detection, released in 5.3.0. */
  dnsCheck: boolean;
  /** Referral code in the Benefits section (PR-REF25). */
  referrals: boolean;
  /** Digital wallets for bill payment. Argentina only. */
  walletPayments: boolean;
  /** Add/remove TV package without calling support. */
  selfServiceTv: boolean;
  /** Percentage of users who get a new version before general rollout. */
  stagedRolloutPercent: number;
}

export const CACHE_TTL_MINUTES = 30;

export const DEFAULT_FLAGS: Record<Country, FeatureFlags> = {
  AR: {
    diagnostics: true,
    repairConnection: true,
    wifiOptimizer: true,
    tvDiagnostics: true,
    dnsCheck: true,
    referrals: true,
    walletPayments: true,
    selfServiceTv: true,
    stagedRolloutPercent: 10,
  },
  UY: {
    diagnostics: true,
    repairConnection: true,
    wifiOptimizer: true,
    tvDiagnostics: true,
    dnsCheck: false, // enabled after the UY resolvers migration (ticket CHG-2291)
    referrals: true,
    walletPayments: false,
    selfServiceTv: true,
    stagedRolloutPercent: 10,
  },
};

/**
 * Merge remote flags over the defaults. Unknown keys are ignored so an
 * old app version never crashes on a flag it does not know.
 */
export function mergeFlags(country: Country, remote: Partial<FeatureFlags>): FeatureFlags {
  const base = DEFAULT_FLAGS[country];
  const merged: FeatureFlags = { ...base };
  (Object.keys(base) as (keyof FeatureFlags)[]).forEach((key) => {
    if (key in remote && remote[key] !== undefined) {
      (merged as any)[key] = remote[key];
    }
  });
  return merged;
}

/**
 * @deprecated Since app 5.0.0. Use `mergeFlags(country, remote).diagnostics`.
 * Kept because the old home widget still calls it.
 */
export function isDiagnosticsEnabled(remote: Partial<FeatureFlags>): boolean {
  return mergeFlags("AR", remote).diagnostics;
}
