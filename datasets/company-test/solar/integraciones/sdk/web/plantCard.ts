/**
 * plantCard.ts - dashboard card for one plant on the Vatia installer portal.
 *
 * Fetches the live summary from the portal backend (which proxies Vatia Cloud) and renders
 * PV power, battery SOC and grid exchange. The card refreshes itself every 5 minutes, matching the
 * refresh rate of the live values in Vatia Cloud; refreshing more often only repeats the same data.
 */

export interface PlantSummary {
  pv_power_w: number;
  battery_soc_pct: number | null; // null when the plant has no battery
  grid_power_w: number;           // positive = import from the grid
  load_power_w: number;
  inverter_state: "standby" | "on-grid" | "eps" | "fault" | "upgrading";
  last_update: string;            // ISO 8601, UTC
}

/** Refresh period of the card in milliseconds (5 minutes). */
export const REFRESH_MS = 300_000;

/** SOC below this value is shown in amber. */
export const SOC_WARN_PCT = 20;

/** A summary older than this is shown greyed out with the label "Sin datos recientes". */
export const STALE_AFTER_MS = 30 * 60 * 1000;

export function socColor(soc: number | null): string {
  if (soc === null) return "grey";
  if (soc < SOC_WARN_PCT) return "amber";
  return "green";
}

export function formatPower(watts: number): string {
  // kW with one decimal above 1000 W, like the inverter display
  return Math.abs(watts) >= 1000 ? `${(watts / 1000).toFixed(1)} kW` : `${Math.round(watts)} W`;
}

export async function loadSummary(plantId: string): Promise<PlantSummary> {
  const res = await fetch(`/api/portal/plants/${encodeURIComponent(plantId)}/summary`);
  if (!res.ok) throw new Error(`summary ${plantId}: HTTP ${res.status}`);
  return (await res.json()) as PlantSummary;
}

export function renderCard(el: HTMLElement, plantId: string, s: PlantSummary): void {
  const stale = Date.now() - Date.parse(s.last_update) > STALE_AFTER_MS;
  el.classList.toggle("stale", stale);
  el.innerHTML = `
    <h3>${plantId}</h3>
    <p>FV: ${formatPower(s.pv_power_w)}</p>
    <p class="soc ${socColor(s.battery_soc_pct)}">Batería: ${s.battery_soc_pct ?? "—"} %</p>
    <p>Red: ${formatPower(s.grid_power_w)} ${s.grid_power_w >= 0 ? "importando" : "exportando"}</p>
    ${stale ? '<p class="muted">Sin datos recientes</p>' : ""}`;
}

export function mountPlantCard(el: HTMLElement, plantId: string): () => void {
  const tick = async () => {
    try {
      renderCard(el, plantId, await loadSummary(plantId));
    } catch (err) {
      el.classList.add("error");
    }
  };
  void tick();
  const id = window.setInterval(tick, REFRESH_MS);
  return () => window.clearInterval(id);
}
