#!/usr/bin/env python3
"""
export_time_entries.py — Exporta las horas imputadas en Quorum a CSV o Excel.

Uso habitual (Administración, cierre de mes):

    python export_time_entries.py --desde 2025-03-01 --hasta 2025-03-31 --oficina MAD --formato csv

El script llama a la API REST v3 de Quorum con el token de servicio guardado en la
variable de entorno QUORUM_TOKEN (lo facilita Soporte TI; no lo copie en el código).

Mantenimiento: Soporte TI Madrid (Marcos Villalba, ext. 2190).
Historial:
  2023-11  v2.0  Migración de la API SOAP a la REST v3 (Quorum 7.0).
  2024-02  v2.1  Redondeo a décimas de hora.
  2025-01  v2.2  Columna de divisa y filtro por oficina. exportar_horas() queda obsoleta.
"""

import argparse
import csv
import datetime as dt
import math
import os
import sys
import warnings

import requests

API_BASE = "https://quorum.riberasalazar.example/api/v3"
UNIDAD_MINIMA_H = 0.1          # décima de hora = 6 minutos
OFICINAS = {"MAD": "EUR", "BOG": "COP"}
MAX_FILAS_POR_PAGINA = 500
COLUMNAS = [
    "matter_number", "client_name", "fee_earner", "office", "date",
    "hours", "rate", "amount", "currency", "activity_code", "narrative", "status",
]


def redondear_a_decima(horas: float) -> float:
    """Redondea una duración hacia arriba a la siguiente décima de hora.

    Es la misma regla que aplica Quorum: 0,11 h se factura como 0,2 h.
    """
    return math.ceil(round(horas * 10, 6)) / 10


def _get(ruta: str, params: dict) -> dict:
    token = os.environ.get("QUORUM_TOKEN")
    if not token:
        sys.exit("Falta la variable de entorno QUORUM_TOKEN. Pídala a Soporte TI.")
    r = requests.get(
        f"{API_BASE}{ruta}",
        params=params,
        headers={"Authorization": f"Bearer {token}"},
        timeout=30,
    )
    r.raise_for_status()
    return r.json()


def fetch_time_entries(desde: dt.date, hasta: dt.date, oficina: str | None = None,
                       incluir_borradores: bool = False) -> list[dict]:
    """Descarga las entradas de tiempo entre dos fechas (ambas incluidas).

    Args:
        desde: primer día del periodo.
        hasta: último día del periodo.
        oficina: "MAD" o "BOG"; None descarga ambas oficinas.
        incluir_borradores: si es False (por defecto) se excluyen los borradores,
            por ejemplo los creados por la parada automática del temporizador (QRM-2030).

    Returns:
        Lista de diccionarios con las claves de COLUMNAS.
    """
    params = {"from": desde.isoformat(), "to": hasta.isoformat(), "page_size": MAX_FILAS_POR_PAGINA}
    if oficina:
        if oficina not in OFICINAS:
            raise ValueError(f"Oficina desconocida: {oficina}. Use MAD o BOG.")
        params["office"] = oficina
    entradas, pagina = [], 1
    while True:
        params["page"] = pagina
        datos = _get("/time-entries", params)
        for e in datos["items"]:
            if e["status"] == "draft" and not incluir_borradores:
                continue
            e["hours"] = redondear_a_decima(e["hours"])
            e["amount"] = round(e["hours"] * e["rate"], 0 if e["currency"] == "COP" else 2)
            entradas.append({k: e.get(k, "") for k in COLUMNAS})
        if not datos.get("next_page"):
            break
        pagina += 1
    return entradas


def export_time_entries(desde: dt.date, hasta: dt.date, oficina: str | None = None,
                        formato: str = "csv", destino: str = ".") -> str:
    """Exporta las entradas de tiempo a un fichero y devuelve su ruta.

    El nombre del fichero sigue el patrón horas_<OFICINA>_<AAAAMMDD>_<AAAAMMDD>.<ext>,
    con "TODAS" cuando no se filtra por oficina. Los formatos admitidos son "csv"
    (separador punto y coma, UTF-8 con BOM para que Excel lo abra bien) y "xlsx".
    """
    entradas = fetch_time_entries(desde, hasta, oficina)
    etiqueta = oficina or "TODAS"
    nombre = f"horas_{etiqueta}_{desde:%Y%m%d}_{hasta:%Y%m%d}.{formato}"
    ruta = os.path.join(destino, nombre)
    if formato == "csv":
        with open(ruta, "w", newline="", encoding="utf-8-sig") as f:
            w = csv.DictWriter(f, fieldnames=COLUMNAS, delimiter=";")
            w.writeheader()
            w.writerows(entradas)
    elif formato == "xlsx":
        from openpyxl import Workbook
        wb = Workbook()
        ws = wb.active
        ws.title = "Horas"
        ws.append(COLUMNAS)
        for e in entradas:
            ws.append([e[c] for c in COLUMNAS])
        wb.save(ruta)
    else:
        raise ValueError("Formato no admitido: use csv o xlsx")
    return ruta


def exportar_horas(mes: int, anio: int, oficina: str = "MAD") -> str:
    """OBSOLETA desde la v2.2 (enero de 2025): use export_time_entries() en su lugar.

    Se mantiene solo para no romper las macros antiguas de Administración. Exporta un
    mes natural completo a CSV. Se eliminará cuando se cierre el ejercicio 2025.
    """
    warnings.warn("exportar_horas() está obsoleta; use export_time_entries()",
                  DeprecationWarning, stacklevel=2)
    desde = dt.date(anio, mes, 1)
    hasta = (desde.replace(day=28) + dt.timedelta(days=4)).replace(day=1) - dt.timedelta(days=1)
    return export_time_entries(desde, hasta, oficina, "csv")


def main() -> None:
    p = argparse.ArgumentParser(description="Exporta horas de Quorum")
    p.add_argument("--desde", required=True, type=dt.date.fromisoformat)
    p.add_argument("--hasta", required=True, type=dt.date.fromisoformat)
    p.add_argument("--oficina", choices=sorted(OFICINAS), default=None)
    p.add_argument("--formato", choices=["csv", "xlsx"], default="csv")
    p.add_argument("--destino", default=".")
    a = p.parse_args()
    ruta = export_time_entries(a.desde, a.hasta, a.oficina, a.formato, a.destino)
    print(f"Exportado: {ruta}")


if __name__ == "__main__":
    main()
