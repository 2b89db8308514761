#!/usr/bin/env python3
"""
reporte_excursiones.py — Reporte semanal de excursiones de temperatura.

Lee las lecturas exportadas por la API de la Driver App (CSV diario generado por
export_diario.sh), detecta excursiones según PR-CAL-004 y genera un resumen por sitio
que se envía cada lunes a las 07:00 a Calidad e Inocuidad.

Uso:
    python reporte_excursiones.py --desde 2025-05-05 --hasta 2025-05-11 --sitio MTY
    python reporte_excursiones.py --semana-pasada            # todos los sitios

Responsable: equipo Driver App (ext. 2620). Dudas de criterio: Calidad (ext. 2210).
"""

import argparse
import csv
import datetime as dt
from collections import defaultdict
from pathlib import Path

# Carpeta donde export_diario.sh deja los archivos lecturas_AAAAMMDD.csv
CARPETA_EXPORTS = Path("/srv/frigovia/exports")
# Minutos continuos fuera de rango para considerar excursión (refrigerado / congelado)
MINUTOS_MINIMOS = {"REF": 15, "CON": 10, "ULT": 10}
# Límite absoluto para congelados: por encima de esta temperatura siempre es nivel 3
LIMITE_CONGELADO_C = -12.0
DESTINATARIOS = ["calidad@frigovia.mx", "torre@frigovia.mx"]


def cargar_lecturas(desde: dt.date, hasta: dt.date, sitio: str | None = None) -> list[dict]:
    """Carga las lecturas de los CSV diarios entre dos fechas (inclusive).

    Cada fila trae: trip_id, unit_id, sitio, clase (REF/CON/ULT), ts, return_air,
    rango_min, rango_max.
    """
    filas = []
    dia = desde
    while dia <= hasta:
        archivo = CARPETA_EXPORTS / f"lecturas_{dia:%Y%m%d}.csv"
        if archivo.exists():
            with archivo.open(newline="", encoding="utf-8") as f:
                for fila in csv.DictReader(f):
                    if sitio and fila["sitio"] != sitio:
                        continue
                    fila["ts"] = dt.datetime.fromisoformat(fila["ts"].replace("Z", "+00:00"))
                    for campo in ("return_air", "rango_min", "rango_max"):
                        fila[campo] = float(fila[campo])
                    filas.append(fila)
        dia += dt.timedelta(days=1)
    return filas


def calcular_desviacion(temp: float, rango_min: float, rango_max: float) -> float:
    """Devuelve cuántos °C está la lectura fuera del rango (0 si está dentro)."""
    if temp > rango_max:
        return temp - rango_max
    if temp < rango_min:
        return rango_min - temp
    return 0.0


def clasificar_nivel(desviacion_max: float, duracion_min: float, clase: str, temp_max: float) -> int:
    """Clasifica una excursión en nivel 1, 2 o 3 según PR-CAL-004.

    - Nivel 1: desviación de hasta 2 °C y duración de hasta 30 minutos.
    - Nivel 2: desviación de hasta 5 °C y duración de hasta 120 minutos.
    - Nivel 3: cualquier otro caso, o congelado/ultracongelado por encima de -12 °C.
    """
    if clase in ("CON", "ULT") and temp_max > LIMITE_CONGELADO_C:
        return 3
    if desviacion_max <= 2 and duracion_min <= 30:
        return 1
    if desviacion_max <= 5 and duracion_min <= 120:
        return 2
    return 3


def detectar_excursiones(lecturas: list[dict]) -> list[dict]:
    """Agrupa lecturas consecutivas fuera de rango por viaje y devuelve las excursiones.

    Solo cuenta como excursión un tramo que dure al menos MINUTOS_MINIMOS según la clase
    del producto. Lecturas con más de 30 minutos de separación cortan el tramo.
    """
    por_viaje = defaultdict(list)
    for l in lecturas:
        por_viaje[l["trip_id"]].append(l)

    excursiones = []
    for trip_id, filas in por_viaje.items():
        filas.sort(key=lambda x: x["ts"])
        tramo = []
        for fila in filas + [None]:
            fuera = fila is not None and calcular_desviacion(fila["return_air"], fila["rango_min"], fila["rango_max"]) > 0
            continua = fuera and tramo and (fila["ts"] - tramo[-1]["ts"]).total_seconds() <= 1800
            if fuera and (not tramo or continua):
                tramo.append(fila)
                continue
            if tramo:
                dur = (tramo[-1]["ts"] - tramo[0]["ts"]).total_seconds() / 60
                clase = tramo[0]["clase"]
                if dur >= MINUTOS_MINIMOS.get(clase, 15):
                    dev = max(calcular_desviacion(t["return_air"], t["rango_min"], t["rango_max"]) for t in tramo)
                    tmax = max(t["return_air"] for t in tramo)
                    excursiones.append({
                        "trip_id": trip_id,
                        "unit_id": tramo[0]["unit_id"],
                        "sitio": tramo[0]["sitio"],
                        "inicio": tramo[0]["ts"].isoformat(),
                        "duracion_min": round(dur),
                        "desviacion_max_c": round(dev, 1),
                        "nivel": clasificar_nivel(dev, dur, clase, tmax),
                    })
            tramo = [fila] if fuera else []
    return excursiones


def generar_reporte(excursiones: list[dict], salida: Path) -> Path:
    """Escribe el CSV del reporte (una fila por excursión) y devuelve la ruta."""
    salida.parent.mkdir(parents=True, exist_ok=True)
    with salida.open("w", newline="", encoding="utf-8") as f:
        campos = ["sitio", "trip_id", "unit_id", "inicio", "duracion_min", "desviacion_max_c", "nivel"]
        w = csv.DictWriter(f, fieldnames=campos)
        w.writeheader()
        for e in sorted(excursiones, key=lambda x: (x["sitio"], x["inicio"])):
            w.writerow({k: e[k] for k in campos})
    return salida


def main() -> None:
    p = argparse.ArgumentParser(description="Reporte semanal de excursiones de temperatura")
    p.add_argument("--desde", type=dt.date.fromisoformat)
    p.add_argument("--hasta", type=dt.date.fromisoformat)
    p.add_argument("--sitio", choices=["MTY", "GDL", "LRD"])
    p.add_argument("--semana-pasada", action="store_true")
    args = p.parse_args()

    if args.semana_pasada:
        hoy = dt.date.today()
        args.desde = hoy - dt.timedelta(days=hoy.weekday() + 7)
        args.hasta = args.desde + dt.timedelta(days=6)

    lecturas = cargar_lecturas(args.desde, args.hasta, args.sitio)
    excursiones = detectar_excursiones(lecturas)
    ruta = generar_reporte(excursiones, Path(f"reportes/excursiones_{args.desde:%Y%m%d}_{args.hasta:%Y%m%d}.csv"))
    nivel3 = sum(1 for e in excursiones if e["nivel"] == 3)
    print(f"{len(excursiones)} excursiones ({nivel3} de nivel 3) -> {ruta}")


if __name__ == "__main__":
    main()
