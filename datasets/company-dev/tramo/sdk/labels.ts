// Tramo dashboard: label helpers (format choice and page layout for printing).

export type LabelFormat = "PDF" | "ZPL" | "EPL";

export interface PrinterProfile {
  name: string;
  thermal: boolean;
  dpi: number;
}

/** Thermal printers get ZPL, except the old Zebra LP2844 family, which only speaks EPL. */
export function labelFormatFor(printer: PrinterProfile): LabelFormat {
  if (!printer.thermal) {
    return "PDF";
  }
  return printer.name.startsWith("Zebra LP2844") ? "EPL" : "ZPL";
}

/** Labels per A4 sheet for office printers: four 10 x 15 cm labels fit on one page. */
export const LABELS_PER_A4 = 4;

export function sheetsNeeded(labels: number): number {
  return Math.ceil(labels / LABELS_PER_A4);
}
