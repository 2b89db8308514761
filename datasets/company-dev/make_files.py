"""Writes the company set's Office and PDF files (docx, xlsx, pptx, pdf) from the text below.

The files are committed; this script is the record of what they hold and remakes them:

    python -m venv /tmp/gen && /tmp/gen/bin/pip install python-docx fpdf2 openpyxl python-pptx
    /tmp/gen/bin/python bench/companyset/make_files.py

PDFs use DejaVu Sans (Debian's fonts-dejavu-core) so that accents and the euro sign survive.
"""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).parent
FONT = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"
FONT_BOLD = "/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf"

# ------------------------------------------------------------------------------------------ documents
# Each document is a list of blocks: ("h1" | "h2" | "p" | "li" | "ol", text) or ("table", [rows]).

WHOLESALE = [
    ("h1", "Wholesale terms for cafés and restaurants"),
    (
        "p",
        "These terms apply to businesses that buy Cafetal Norte coffee to serve or resell it. Prices are "
        "the shop prices of the country of delivery minus the discount of your monthly volume.",
    ),
    ("h2", "Volume discounts"),
    (
        "table",
        [
            ["Monthly volume", "Discount on shop prices", "Free delivery"],
            ["10 to 24 kg", "15 %", "no"],
            ["25 to 49 kg", "22 %", "yes"],
            ["50 kg or more", "28 %", "yes"],
        ],
    ),
    ("h2", "Orders and payment"),
    (
        "p",
        "The first order is at least 10 kg; later orders at least 5 kg. Your first three orders are paid in "
        "advance by bank transfer. After that, we invoice at the end of each month with payment at 30 days.",
    ),
    (
        "p",
        "Orders placed before Monday at 12:00 are roasted on Tuesday and delivered in Spain within 48 hours.",
    ),
    ("h2", "Training and equipment"),
    (
        "p",
        "Cafés that buy 25 kg or more a month get a free four-hour barista training for their staff at our "
        "roastery. Cafés that buy 30 kg or more a month can borrow a Mahlkönig E65S grinder for as long as "
        "they keep that volume.",
    ),
    (
        "p",
        "We can recommend a technician in Asturias for the installation and maintenance of your equipment.",
    ),
    ("h2", "Ending the agreement"),
    (
        "p",
        "Either side may end the agreement with 30 days' notice in writing. A borrowed grinder must be "
        "returned within 15 days of the end of the agreement.",
    ),
]

BARISTA = [
    ("h1", "Manual de barista"),
    (
        "p",
        "Este manual recoge las recetas y rutinas de la barra de la cafetería de la calle Gascona. Toda "
        "persona nueva lo estudia durante el curso de barista de dos días.",
    ),
    ("h2", "Receta de espresso"),
    (
        "table",
        [
            ["Parámetro", "Espresso", "Doble"],
            ["Dosis de café molido", "9 g", "18 g"],
            ["Bebida en taza", "18 g", "36 g"],
            ["Tiempo de extracción", "25-30 s", "27-32 s"],
            ["Temperatura del agua", "93 °C", "93 °C"],
        ],
    ),
    (
        "p",
        "Usamos la Mezcla Norte para el espresso de la barra. Si la extracción tarda menos de 25 segundos, "
        "el molido es demasiado grueso; si tarda más de 32, demasiado fino.",
    ),
    ("h2", "Calibrar el molino por la mañana"),
    ("ol", "Purga el molino con 20 g de café y tíralo."),
    ("ol", "Prepara un doble con 18 g y pesa la bebida en la báscula."),
    ("ol", "Si la bebida pasa de 36 g antes de 27 segundos, cierra el molido un punto."),
    ("ol", "Repite hasta que tres extracciones seguidas estén en rango y anótalo en la hoja de calibración."),
    ("h2", "Leche"),
    (
        "p",
        "La leche se texturiza a 60-65 °C: por encima de 70 °C pierde el dulzor. Cada jarra se usa una sola "
        "vez y la lanza de vapor se purga antes y después de cada uso.",
    ),
    ("h2", "Limpieza al cierre"),
    ("ol", "Retira los portafiltros y déjalos en remojo con detergente Cafiza."),
    ("ol", "Pon el filtro ciego en cada grupo y haz cinco ciclos de retrolavado con detergente."),
    ("ol", "Repite cinco ciclos solo con agua para aclarar."),
    ("ol", "Limpia las duchas con el cepillo y seca la bandeja de goteo."),
    ("p", "La limpieza se hace todos los días al cerrar, aunque la máquina se haya usado poco."),
]

SLA = [
    ("h1", "Service Level Agreement"),
    (
        "p",
        "This agreement describes the availability Tramo commits to for the API and the dashboard, and the "
        "credits a customer receives when it is not met. It applies to the Business and Enterprise plans; "
        "the Starter plan has no SLA.",
    ),
    ("h2", "Availability commitment"),
    (
        "p",
        "Tramo commits to a monthly availability of 99.9 % on the Business plan and 99.95 % on the "
        "Enterprise plan. Availability is measured every minute from three regions by an external monitor.",
    ),
    ("h2", "Service credits"),
    (
        "table",
        [
            ["Monthly availability", "Credit (Business)", "Credit (Enterprise)"],
            ["99.0 % to below the commitment", "10 %", "10 %"],
            ["95.0 % to below 99.0 %", "25 %", "30 %"],
            ["below 95.0 %", "50 %", "100 %"],
        ],
    ),
    (
        "p",
        "Credits are a percentage of that month's subscription fee and are applied to the next invoice. "
        "They are the only remedy for missed availability.",
    ),
    ("h2", "Exclusions"),
    (
        "p",
        "Announced maintenance (at most four hours a month, announced 72 hours in advance), outages of a "
        "carrier's own systems and problems caused by the customer's integration do not count as downtime.",
    ),
    ("h2", "How to claim a credit"),
    (
        "p",
        "Write to support@tramo.io within 30 days of the end of the month, with the dates and times of the "
        "outage as you saw it.",
    ),
]

SEGURIDAD = [
    ("h1", "Seguridad y protección de datos en Tramo"),
    ("p", "Este documento resume cómo protegemos los datos de nuestros clientes y de sus destinatarios."),
    ("h2", "Dónde están los datos"),
    (
        "p",
        "Todos los datos se guardan en Amazon Web Services, en la región de Irlanda (eu-west-1), y no salen de "
        "la Unión Europea. Los registros de auditoría se guardan en una cuenta separada.",
    ),
    ("h2", "Cifrado"),
    (
        "p",
        "Los datos se cifran en reposo con AES-256 y en tránsito con TLS 1.2 o superior. Las claves de API se "
        "guardan como huellas SHA-256: nadie en Tramo puede leer una clave después de crearla.",
    ),
    ("h2", "Copias de seguridad"),
    (
        "p",
        "Hacemos copias de seguridad cada 6 horas y las conservamos 35 días. Nuestro objetivo de punto de "
        "recuperación (RPO) es de 6 horas y el de tiempo de recuperación (RTO) de 4 horas.",
    ),
    ("h2", "Certificaciones y auditorías"),
    (
        "p",
        "Tramo tiene la certificación ISO 27001 desde 2024. Una empresa externa hace una prueba de "
        "penetración cada año; el resumen del informe se comparte con clientes Enterprise bajo acuerdo de "
        "confidencialidad.",
    ),
    ("h2", "Acceso"),
    (
        "p",
        "El inicio de sesión único (SSO) con SAML está disponible en el plan Enterprise. Todas las cuentas "
        "pueden activar la verificación en dos pasos, y los administradores pueden hacerla obligatoria.",
    ),
]

TELETRABAJO = [
    ("h1", "Política de teletrabajo"),
    (
        "p",
        "El teletrabajo es voluntario y se aplica a los puestos de oficina. Los puestos de planta, "
        "laboratorio y almacén no pueden teletrabajar.",
    ),
    ("h2", "Cuántos días"),
    (
        "p",
        "Se pueden teletrabajar hasta dos días por semana, que se acuerdan con la persona responsable del "
        "equipo. Los lunes son presenciales para todos.",
    ),
    ("h2", "Cómo se pide"),
    ("ol", "Solicita el teletrabajo en el portal del empleado (Solicitudes > Teletrabajo)."),
    ("ol", "Tu responsable lo aprueba o propone otros días en cinco días laborables."),
    ("ol", "Firma el acuerdo individual de teletrabajo que te envía Recursos Humanos."),
    ("h2", "Horario y compensación"),
    (
        "p",
        "El horario de disponibilidad obligatoria es de 9:30 a 14:00. La empresa paga 30 € al mes por los "
        "gastos de conexión y suministros a quien teletrabaja al menos un día por semana.",
    ),
    ("h2", "Teletrabajo desde el extranjero"),
    (
        "p",
        "Se puede teletrabajar desde otro país hasta 15 días al año, con la aprobación previa de Recursos "
        "Humanos, por motivos fiscales y de seguros.",
    ),
]

PRENSA = [
    ("h1", "Manual de mantenimiento de la prensa P-400"),
    (
        "p",
        "La prensa hidráulica P-400 de 400 toneladas de la línea de estampación 2. Este manual resume el "
        "mantenimiento preventivo y la consignación; el manual completo del fabricante está en la biblioteca "
        "técnica.",
    ),
    ("h2", "Comprobaciones diarias"),
    (
        "p",
        "Al empezar cada turno, el operario comprueba el nivel de aceite en el visor, que no haya fugas bajo "
        "la mesa y que la barrera fotoeléctrica pare la prensa al cortarla con la mano.",
    ),
    ("h2", "Mantenimiento preventivo"),
    (
        "table",
        [
            ["Tarea", "Frecuencia", "Responsable"],
            ["Engrase de guías", "Semanal", "Operario"],
            ["Cambio de filtros de aceite", "Cada 1.000 horas", "Mantenimiento"],
            ["Cambio de aceite (320 litros de ISO VG 46)", "Cada 4.000 horas", "Mantenimiento"],
            ["Revisión de acumuladores", "Anual", "Empresa externa"],
        ],
    ),
    ("h2", "Consignación (bloqueo y etiquetado)"),
    ("p", "Antes de cualquier trabajo dentro de la prensa se hace la consignación en este orden:"),
    ("ol", "Baja el martillo hasta el punto muerto inferior o ponle los calzos de seguridad."),
    ("ol", "Para la prensa y el grupo hidráulico desde el pupitre."),
    ("ol", "Abre el seccionador general y ponle tu candado personal."),
    (
        "ol",
        "Descarga la presión de los acumuladores con la válvula manual hasta que el manómetro marque 0 bar.",
    ),
    ("ol", 'Cuelga la etiqueta "NO OPERAR" con tu nombre y la fecha.'),
    ("ol", "Comprueba que la prensa no arranca pulsando el botón de marcha."),
    ("p", "Solo quien puso el candado puede quitarlo."),
]

# ------------------------------------------------------------------------------------------ workbooks

ROAST = {
    "Filtro": [
        [
            "Café",
            "Temperatura de carga (°C)",
            "Primer crack (min)",
            "Tiempo total (min)",
            "Desarrollo (%)",
            "Temperatura final (°C)",
        ],
        ["Etiopía Guji Natural", 200, "8:10", "9:40", 15, 205],
        ["Ruanda Nyamasheke", 205, "8:30", "10:05", 16, 206],
        ["Colombia Huila Lavado", 205, "8:45", "10:30", 17, 207],
    ],
    "Espresso": [
        [
            "Café",
            "Temperatura de carga (°C)",
            "Primer crack (min)",
            "Tiempo total (min)",
            "Desarrollo (%)",
            "Temperatura final (°C)",
        ],
        ["Brasil Cerrado", 210, "9:00", "11:20", 21, 214],
        ["Mezcla Norte", 210, "9:10", "11:40", 22, 216],
        ["Colombia Huila Lavado", 208, "8:55", "11:05", 20, 212],
    ],
}

CARRIER_RATES = {
    "España": [
        ["Servicio", "Hasta 1 kg", "1-2 kg", "2-5 kg", "5-10 kg"],
        ["SEUR 24", "4,20 €", "4,60 €", "5,90 €", "8,40 €"],
        ["SEUR 48", "3,60 €", "3,95 €", "5,10 €", "7,20 €"],
        ["Correos Paq Premium", "3,90 €", "4,30 €", "5,50 €", "7,90 €"],
        ["InPost Locker", "2,95 €", "3,40 €", "4,20 €", "-"],
    ],
    "Portugal": [
        ["Servicio", "Hasta 1 kg", "1-2 kg", "2-5 kg", "5-10 kg"],
        ["SEUR 24", "6,10 €", "6,70 €", "8,30 €", "11,50 €"],
        ["SEUR 48", "5,40 €", "5,90 €", "7,30 €", "10,10 €"],
        ["InPost Locker", "3,80 €", "4,30 €", "5,20 €", "-"],
    ],
}

DIETAS = {
    "España": [
        ["Concepto", "Importe máximo", "Notas"],
        ["Alojamiento por noche", "110 €", "Madrid y Barcelona: 140 €"],
        ["Manutención, día completo", "53,34 €", "con pernocta"],
        ["Media dieta", "26,67 €", "sin pernocta, si se come fuera"],
        ["Aparcamiento y peajes", "importe real", "con justificante"],
    ],
    "México": [
        ["Concepto", "Importe máximo", "Notas"],
        ["Alojamiento por noche", "2.400 MXN", "Ciudad de México: 3.000 MXN"],
        ["Manutención, día completo", "1.100 MXN", "con pernocta"],
        ["Media dieta", "550 MXN", "sin pernocta, si se come fuera"],
        ["Aparcamiento y peajes", "importe real", "con justificante"],
    ],
    "Estados Unidos": [
        ["Concepto", "Importe máximo", "Notas"],
        ["Alojamiento por noche", "220 USD", "Nueva York y San Francisco: 300 USD"],
        ["Manutención, día completo", "85 USD", "con pernocta"],
        ["Media dieta", "40 USD", "sin pernocta, si se come fuera"],
        ["Aparcamiento y peajes", "importe real", "con justificante"],
    ],
}

PRODUCTOS = {
    "Catálogo 2026": [
        ["SKU", "Pieza", "Material", "Peso (g)", "Precio unitario", "Cliente principal"],
        ["ALB-SOP-1042", "Soporte de motor delantero", "Acero DP600", 1840, "12,40 €", "Stellantis"],
        ["ALB-SOP-1043", "Soporte de motor trasero", "Acero DP600", 1610, "11,90 €", "Stellantis"],
        ["ALB-REF-2210", "Refuerzo de pilar B", "Acero 22MnB5", 2950, "18,75 €", "Ford"],
        ["ALB-TRV-3301", "Travesaño de salpicadero", "Aluminio 6082", 3420, "27,30 €", "Renault"],
        ["ALB-BRZ-0420", "Brazo de suspensión inferior", "Acero S420", 2280, "15,60 €", "Ford"],
        ["ALB-PLC-5120", "Placa de anclaje de batería", "Aluminio 5754", 960, "9,80 €", "Stellantis"],
        ["ALB-GUI-0077", "Guía de asiento", "Acero DC04", 540, "3,95 €", "Renault"],
    ],
}

# ------------------------------------------------------------------------------------------ slides
# (title, [bullets], notes)

CATA = [
    ("Curso de cata de café", ["Cafetal Norte · obrador de Silvota"], ""),
    (
        "Cómo es el curso",
        [
            "Tres horas, el tercer sábado de cada mes a las 10:00",
            "Máximo 8 personas",
            "45 € por persona; 35 € con suscripción activa",
        ],
        "Las plazas se reservan en la web y se pueden cambiar de fecha hasta 48 horas antes.",
    ),
    (
        "La cata en cinco pasos",
        [
            "Oler el café molido en seco",
            "Romper la costra a los 4 minutos",
            "Limpiar la superficie",
            "Sorber con la cuchara a partir de 70 °C",
            "Anotar acidez, cuerpo, dulzor y final",
        ],
        "",
    ),
    (
        "Defectos que aprenderemos a reconocer",
        ["Fermento (fruta pasada)", "Terroso", "Papel o cartón (café viejo)", "Quemado (tueste excesivo)"],
        "",
    ),
]

VENTAS = [
    ("Tramo for new customers", ["What happens after you sign"], ""),
    (
        "Implementation timeline",
        [
            "Week 1: kickoff call and carrier contracts connected",
            "Week 2: shop or ERP integration and test labels",
            "Week 3: go-live with one warehouse",
            "Week 6: first business review",
        ],
        "",
    ),
    (
        "What Enterprise adds",
        [
            "A dedicated account manager",
            "SSO with SAML",
            "Quarterly business reviews",
            "One-time onboarding fee of 1,500 EUR, waived on annual contracts",
        ],
        "Business customers get onboarding by webinar instead of an account manager.",
    ),
    (
        "Who to call",
        ["Sales: sales@tramo.io", "Onboarding: onboarding@tramo.io", "Support: support@tramo.io"],
        "",
    ),
]

RESULTADOS = [
    ("Resultados del tercer trimestre de 2026", ["Albor Industrial · comunicado interno"], ""),
    (
        "Cifras del trimestre",
        [
            "Facturación: 48,2 millones de euros, un 6 % más que el mismo trimestre de 2025",
            "Margen EBITDA: 11,4 %",
            "Plantilla: 1.130 personas (Valencia 640, Monterrey 490)",
        ],
        "",
    ),
    (
        "Planta de Monterrey",
        [
            "Utilización de la capacidad: 81 %",
            "Nueva línea de soldadura en marcha desde agosto",
            "Primer pedido de un fabricante de camiones eléctricos",
        ],
        "",
    ),
    (
        "Prioridades del cuarto trimestre",
        [
            "Bajar de 350 ppm defectuosas en automoción",
            "Cerrar la homologación de la línea de aluminio en Valencia",
            "Reducir un 8 % el consumo eléctrico por pieza",
        ],
        "",
    ),
]


def write_docx(path: Path, blocks: list, title: str) -> None:
    import docx

    doc = docx.Document()
    doc.core_properties.title = title
    for kind, value in blocks:
        if kind == "h1":
            doc.add_heading(value, level=1)
        elif kind == "h2":
            doc.add_heading(value, level=2)
        elif kind == "p":
            doc.add_paragraph(value)
        elif kind == "ol":
            doc.add_paragraph(value, style="List Number")
        elif kind == "li":
            doc.add_paragraph(value, style="List Bullet")
        elif kind == "table":
            table = doc.add_table(rows=len(value), cols=len(value[0]))
            for r, row in enumerate(value):
                for c, cell in enumerate(row):
                    table.cell(r, c).text = str(cell)
    doc.save(path)


def write_pdf(path: Path, blocks: list, title: str) -> None:
    from fpdf import FPDF

    pdf = FPDF()
    pdf.set_title(title)
    pdf.add_font("DejaVu", "", FONT)
    pdf.add_font("DejaVu", "B", FONT_BOLD)
    pdf.add_page()
    number = 0
    for kind, value in blocks:
        if kind in ("h1", "h2"):
            number = 0
            pdf.set_font("DejaVu", "B", 16 if kind == "h1" else 13)
            pdf.ln(3)
            pdf.multi_cell(0, 8, value)
            pdf.ln(1)
        elif kind in ("p", "ol", "li"):
            pdf.set_font("DejaVu", "", 10.5)
            if kind == "ol":
                number += 1
                value = f"{number}. {value}"
            elif kind == "li":
                value = f"• {value}"
            pdf.multi_cell(0, 6, value)
            pdf.ln(1.5)
        elif kind == "table":
            pdf.set_font("DejaVu", "", 9.5)
            with pdf.table() as table:
                for row in value:
                    cells = table.row()
                    for cell in row:
                        cells.cell(str(cell))
            pdf.ln(2)
    pdf.output(str(path))


def write_xlsx(path: Path, sheets: dict, title: str) -> None:
    import openpyxl

    book = openpyxl.Workbook()
    book.properties.title = title
    book.remove(book.active)
    for name, rows in sheets.items():
        sheet = book.create_sheet(name)
        for row in rows:
            sheet.append(row)
    book.save(path)


def write_pptx(path: Path, slides: list, title: str) -> None:
    from pptx import Presentation

    deck = Presentation()
    deck.core_properties.title = title
    for n, (heading, bullets, notes) in enumerate(slides):
        slide = deck.slides.add_slide(deck.slide_layouts[0 if n == 0 else 1])
        slide.shapes.title.text = heading
        body = slide.placeholders[1].text_frame
        body.text = bullets[0]
        for bullet in bullets[1:]:
            body.add_paragraph().text = bullet
        if notes:
            slide.notes_slide.notes_text_frame.text = notes
    deck.save(path)


FILES = [
    ("cafetal-norte/tienda/wholesale-terms.docx", write_docx, WHOLESALE, "Wholesale terms"),
    ("cafetal-norte/formacion/manual-barista.pdf", write_pdf, BARISTA, "Manual de barista"),
    ("cafetal-norte/calidad/perfiles-tueste.xlsx", write_xlsx, ROAST, "Perfiles de tueste"),
    ("cafetal-norte/formacion/curso-cata.pptx", write_pptx, CATA, "Curso de cata"),
    ("tramo/legal/sla.docx", write_docx, SLA, "Service Level Agreement"),
    ("tramo/legal/seguridad.pdf", write_pdf, SEGURIDAD, "Seguridad y protección de datos"),
    (
        "tramo/precios/tarifas-transportistas.xlsx",
        write_xlsx,
        CARRIER_RATES,
        "Tarifas de transportistas de Tramo",
    ),
    ("tramo/ventas/onboarding-customers.pptx", write_pptx, VENTAS, "Tramo onboarding"),
    ("albor/rrhh/teletrabajo.docx", write_docx, TELETRABAJO, "Política de teletrabajo"),
    (
        "albor/operaciones/manual-prensa-p400.pdf",
        write_pdf,
        PRENSA,
        "Manual de mantenimiento de la prensa P-400",
    ),
    ("albor/rrhh/dietas-de-viaje.xlsx", write_xlsx, DIETAS, "Dietas de viaje"),
    ("albor/catalogo/productos.xlsx", write_xlsx, PRODUCTOS, "Catálogo de piezas"),
    ("albor/comunicados/resultados-2026-t3.pptx", write_pptx, RESULTADOS, "Resultados T3 2026"),
]


def main() -> int:
    for relative, writer, content, title in FILES:
        path = HERE / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        writer(path, content, title)
        print(f"wrote {relative}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
