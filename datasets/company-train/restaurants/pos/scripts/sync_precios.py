#!/usr/bin/env python3
"""Sincroniza los precios de las listas de precios (Excel) con el TPV TillWave.

Uso:
    python sync_precios.py --local MAD-02 --lista ../../carta/precios_espana.xlsx [--aplicar]

Sin --aplicar el script solo muestra los cambios (modo simulación). Lo ejecuta Sistemas cada vez que
Producto publica una nueva lista de precios, y también a petición de un restaurante que vea el
error TW-3010 (producto sin precio en este local).

Mantenimiento: Sistemas — sistemas@brasaco.example
"""
import argparse
import json
import os
import sys
import urllib.request

from openpyxl import load_workbook

API_URL = "https://api.tillwave.example/v4"
BANDA_MAXIMA = 0.08          # ±8 % sobre el PVP recomendado (Manual de Franquicia, cap. 6)
RECARGO_DELIVERY_MAX = 0.15  # el delivery no puede superar en más de un 15 % el precio de sala

# Columnas de precio según el país de la lista
COLUMNAS = {
    "EUR": ("Sala (EUR)", "Delivery (EUR)"),
    "MXN": ("Salón (MXN)", "Delivery (MXN)"),
    "USD": ("Dine-in (USD)", "Delivery (USD)"),
}
MONEDA_LOCAL = {"MAD-01": "EUR", "MAD-02": "EUR", "BCN-01": "EUR", "MEX-01": "MXN", "MIA-01": "USD"}


def leer_lista(ruta, moneda, hoja=None):
    """Lee la hoja de carta de una lista de precios y devuelve {sku: (sala, delivery)}.

    Los precios se devuelven en unidades menores (céntimos). Las celdas con texto
    («No disponible», «Not available») se devuelven como None.
    """
    wb = load_workbook(ruta, data_only=True)
    ws = wb[hoja] if hoja else wb.worksheets[0]
    col_sala, col_delivery = COLUMNAS[moneda]
    cabecera, precios = None, {}
    for fila in ws.iter_rows(values_only=True):
        if cabecera is None:
            if fila and "SKU" in fila:
                cabecera = list(fila)
            continue
        if not fila or not fila[0]:
            continue
        sku = fila[0]
        sala = fila[cabecera.index(col_sala)]
        delivery = fila[cabecera.index(col_delivery)]
        precios[sku] = (a_centimos(sala), a_centimos(delivery))
    return precios


def a_centimos(valor):
    """Convierte un precio (número) a céntimos; devuelve None si la celda no es numérica."""
    if isinstance(valor, (int, float)):
        return int(round(valor * 100))
    return None


def validar(sku, sala, delivery):
    """Comprueba la regla del recargo de delivery. Devuelve una lista de avisos."""
    avisos = []
    if sala is not None and delivery is not None and delivery > sala * (1 + RECARGO_DELIVERY_MAX):
        avisos.append(f"{sku}: el precio de delivery supera en más de un 15 % al de sala")
    return avisos


def enviar(local, precios, api_key):
    """Envía los precios al endpoint PUT /menu/prices de TillWave para un local."""
    items = [{"sku": s, "dineIn": p[0], "delivery": p[1]} for s, p in precios.items() if p[0] is not None]
    req = urllib.request.Request(
        API_URL + "/menu/prices",
        data=json.dumps({"items": items}).encode(),
        method="PUT",
        headers={"Content-Type": "application/json", "X-TillWave-Key": api_key, "X-Location-Id": local},
    )
    with urllib.request.urlopen(req, timeout=8) as resp:
        return json.load(resp)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--local", required=True, choices=sorted(MONEDA_LOCAL))
    ap.add_argument("--lista", required=True, help="ruta al Excel de precios del país")
    ap.add_argument("--hoja", default=None)
    ap.add_argument("--aplicar", action="store_true", help="enviar los precios (si no, solo simula)")
    args = ap.parse_args()

    precios = leer_lista(args.lista, MONEDA_LOCAL[args.local], args.hoja)
    avisos = [a for sku, (s, d) in precios.items() for a in validar(sku, s, d)]
    for a in avisos:
        print("AVISO:", a, file=sys.stderr)
    print(f"{len(precios)} productos leídos para {args.local}")
    if not args.aplicar:
        print("Modo simulación: no se ha enviado nada. Usa --aplicar para sincronizar.")
        return 0
    clave = os.environ.get("TILLWAVE_KEY")
    if not clave:
        print("Falta la variable de entorno TILLWAVE_KEY", file=sys.stderr)
        return 2
    print(enviar(args.local, precios, clave))
    return 0


if __name__ == "__main__":
    sys.exit(main())
