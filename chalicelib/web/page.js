"use strict";
// Sabio's page: vanilla JS, no build step. Every text from the API goes in with textContent, never as HTML.
(function () {
  const T = {
    en: {
      skip: "Skip to content", apiKey: "API key", apiKeyHelp: "Kept in this tab only", uiLang: "Page language",
      idToken: "Sign-in token", idTokenHelp: "Your company sign-in (JWT), if asked",
      tabAsk: "Ask", tabExplore: "Explore", tabStatus: "Status", askTitle: "Ask the documents",
      question: "Question", filters: "Filters", searchLang: "Language", product: "Product",
      contentType: "Content type", mode: "Mode", askButton: "Ask", answer: "Answer", sources: "Sources",
      exploreTitle: "Explore a domain", domain: "Domain or question",
      domainHelp: "A product or topic for the map; a question for the results", mapButton: "Map the domain",
      searchButton: "Search", map: "Map", topics: "Topics", critical: "Critical points", followUps: "Follow-ups",
      results: "Results", statusTitle: "What Sabio knows", refresh: "Refresh", close: "Close", text: "Text",
      enrichment: "Enrichment", langAuto: "Automatic", langAll: "All languages", modeAuto: "Automatic",
      modeDoc: "Documents", modeCode: "Code", working: "Working…", needQuestion: "Write a question first.",
      noAnswer: "Not in the documents.", notAnswered: "The documents do not hold an answer to this question.",
      noResults: "Nothing found.", needKey: "This server needs an API key: enter yours above.",
      forbiddenStatus: "You may read only some documents; the index status covers every document.",
      failed: "The request failed", network: "Sabio did not answer (network error).",
      source: "Source", document: "Document", headingPath: "Section", lines: "Lines", pages: "Pages", slides: "Slides", sheet: "Sheet", rows: "rows",
      link: "Open the source", language: "Language", type: "Type", summary: "Summary", keywords: "Keywords",
      questions: "Questions it answers", enrichedBy: "Enriched by", model: "Model", inspect: "Inspect",
      score: "score", scores: "scores", answeredBy: "Answered by", hydeUsed: "HyDE used", hydeNot: "HyDE not used", reranked: "Reranked by", rerankNot: "Rerank not used", rewritten: "Searched also as",
      total: "total", documents: "Documents", chunks: "Chunks", byStatus: "Documents by status",
      byLang: "Chunks by language", byProduct: "Chunks by product", byType: "Chunks by content type",
      bySource: "Chunks by source", failures: "Failed documents", reason: "Reason", key: "Key", count: "Count",
      held: "Deletions held", heldWhy: "gone from the source in a run that would have deleted too much of it; still searchable until confirmed by the command shown", confirm: "To delete them",
      translator: "Translator", translators: { apertium: "Apertium", amazon: "Amazon Translate", llm: "language model (LLM)", none: "none" },
      noTranslator: "This server has no translator: a question in another language than the documents' finds them by meaning only, and is answered less often. To translate questions, install Apertium's Spanish-English pair on the server (Debian/Ubuntu: sudo apt-get install apertium-eng-spa) and restart it, or set SABIO_TRANSLATOR=llm with an LLM (and no SABIO_TRANSLATOR=none).",
      dismiss: "Got it",
      none: "None", quote: "Quote", highlighted: "The quoted passage is highlighted.", citeLabel: "Source {n}: {title}",
      asked: "Question", searched: "languages searched", critMarked: "marked", critInferred: "inferred", status: "Status",
      ask: "Ask this", extractive: "extractive", llm: "language model", fallback: "language model, then extractive",
      loadingChunk: "Loading the passage…", found: "{n} results", answerReady: "Answer ready.", mapReady: "Map ready.",
      writing: "{n} passages found; writing the answer…", withdrawn: "The words shown first were withdrawn",
    },
    es: {
      skip: "Ir al contenido", apiKey: "Clave de API", apiKeyHelp: "Solo se guarda en esta pestaña",
      idToken: "Token de acceso", idTokenHelp: "Tu inicio de sesión de la empresa (JWT), si se pide",
      uiLang: "Idioma de la página", tabAsk: "Preguntar", tabExplore: "Explorar", tabStatus: "Estado",
      askTitle: "Pregunta a los documentos", question: "Pregunta", filters: "Filtros", searchLang: "Idioma",
      product: "Producto", contentType: "Tipo de contenido", mode: "Modo", askButton: "Preguntar",
      answer: "Respuesta", sources: "Fuentes", exploreTitle: "Explorar un dominio", domain: "Dominio o pregunta",
      domainHelp: "Un producto o tema para el mapa; una pregunta para los resultados", mapButton: "Mapa del dominio",
      searchButton: "Buscar", map: "Mapa", topics: "Temas", critical: "Puntos críticos", followUps: "Para seguir",
      results: "Resultados", statusTitle: "Lo que Sabio sabe", refresh: "Actualizar", close: "Cerrar", text: "Texto",
      enrichment: "Enriquecimiento", langAuto: "Automático", langAll: "Todos los idiomas", modeAuto: "Automático",
      modeDoc: "Documentos", modeCode: "Código", working: "Trabajando…", needQuestion: "Escribe primero una pregunta.",
      noAnswer: "No está en los documentos.", notAnswered: "Los documentos no responden a esta pregunta.",
      noResults: "No se encontró nada.", needKey: "Este servidor pide una clave de API: escríbela arriba.",
      forbiddenStatus: "Solo puedes leer algunos documentos; el estado del índice abarca todos.",
      failed: "La petición falló", network: "Sabio no respondió (error de red).",
      source: "Fuente", document: "Documento", headingPath: "Sección", lines: "Líneas", pages: "Páginas", slides: "Diapositivas", sheet: "Hoja", rows: "filas",
      link: "Abrir la fuente", language: "Idioma", type: "Tipo", summary: "Resumen", keywords: "Palabras clave",
      questions: "Preguntas que responde", enrichedBy: "Enriquecido por", model: "Modelo", inspect: "Inspeccionar",
      score: "puntuación", scores: "puntuaciones", answeredBy: "Respondió", hydeUsed: "HyDE usado",
      hydeNot: "HyDE no usado", reranked: "Reordenado por", rerankNot: "Sin reordenar", rewritten: "Buscado también como", total: "total", documents: "Documentos", chunks: "Fragmentos",
      byStatus: "Documentos por estado", byLang: "Fragmentos por idioma", byProduct: "Fragmentos por producto",
      byType: "Fragmentos por tipo de contenido", bySource: "Fragmentos por fuente", failures: "Documentos fallidos",
      held: "Borrados retenidos", heldWhy: "ya no están en la fuente, en una pasada que habría borrado demasiado; se siguen encontrando hasta que se confirme con la orden indicada", confirm: "Para borrarlos",
      translator: "Traductor", translators: { apertium: "Apertium", amazon: "Amazon Translate", llm: "modelo de lenguaje (LLM)", none: "ninguno" },
      noTranslator: "Este servidor no tiene traductor: una pregunta en otro idioma que el de los documentos los encuentra solo por significado, y se responde menos. Para traducir las preguntas, instala en el servidor el par español-inglés de Apertium (Debian/Ubuntu: sudo apt-get install apertium-eng-spa) y reinícialo, o usa SABIO_TRANSLATOR=llm con un LLM (y sin SABIO_TRANSLATOR=none).",
      dismiss: "Entendido",
      reason: "Motivo", key: "Clave", count: "Cantidad", none: "Ninguno", quote: "Cita",
      highlighted: "El pasaje citado está resaltado.", citeLabel: "Fuente {n}: {title}", asked: "Pregunta",
      searched: "idiomas buscados", critMarked: "marcado", critInferred: "inferido", status: "Estado", ask: "Preguntar esto",
      extractive: "extractiva", llm: "modelo de lenguaje", fallback: "modelo de lenguaje, luego extractiva",
      loadingChunk: "Cargando el pasaje…", found: "{n} resultados", answerReady: "Respuesta lista.",
      mapReady: "Mapa listo.", writing: "{n} pasajes encontrados; escribiendo la respuesta…",
      withdrawn: "Se retiró el texto mostrado primero",
    },
  };
  const BASE = location.pathname.endsWith("/") ? location.pathname : location.pathname + "/";
  const $ = (id) => document.getElementById(id);
  let lang = pickLanguage();
  let lastOpener = null;

  function pickLanguage() {
    const saved = localStorage.getItem("sabio.lang");
    if (saved && T[saved]) return saved;
    const wanted = navigator.languages && navigator.languages.length ? navigator.languages : [navigator.language || "en"];
    for (const l of wanted) {
      const code = String(l).slice(0, 2).toLowerCase();
      if (T[code]) return code;
    }
    return "en";
  }

  function t(key, vars) {
    let s = (T[lang] && T[lang][key]) || T.en[key] || key;
    for (const [k, v] of Object.entries(vars || {})) s = s.replace("{" + k + "}", String(v));
    return s;
  }

  function el(tag, attrs, ...children) {
    const node = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (v === null || v === undefined || v === false) continue;
      if (k === "class") node.className = v;
      else if (k === "text") node.textContent = v;
      else if (k.startsWith("on")) node.addEventListener(k.slice(2), v);
      else node.setAttribute(k, v === true ? "" : String(v));
    }
    for (const c of children.flat()) {
      if (c === null || c === undefined || c === false) continue;
      node.append(c instanceof Node ? c : document.createTextNode(String(c)));
    }
    return node;
  }

  function applyLanguage() {
    document.documentElement.lang = lang;
    $("ui-lang").value = lang;
    for (const node of document.querySelectorAll("[data-i18n]")) node.textContent = t(node.dataset.i18n);
    for (const node of document.querySelectorAll("[data-i18n-label]")) node.setAttribute("aria-label", t(node.dataset.i18nLabel));
    for (const select of document.querySelectorAll(".lang-select")) fillSelect(select, [["auto", t("langAuto")], ["es", "Español"], ["en", "English"], ["all", t("langAll")]]);
    for (const select of document.querySelectorAll(".mode-select")) fillSelect(select, [["auto", t("modeAuto")], ["documental", t("modeDoc")], ["codigo", t("modeCode")]]);
    document.title = "Sabio · " + t(document.querySelector('[role="tab"][aria-selected="true"]').dataset.i18n);
    showTranslator();
  }

  function fillSelect(select, options) {
    const was = select.value || options[0][0];
    select.replaceChildren(...options.map(([value, label]) => el("option", { value, text: label })));
    select.value = was;
  }

  // ---------------------------------------------------------------------------------------------- API
  function apiKey() { return $("api-key").value.trim(); }

  function headersFor(accept, body) {
    const headers = { Accept: accept };
    if (body !== undefined) headers["Content-Type"] = "application/json";
    const key = apiKey();
    if (key) headers["x-api-key"] = key;
    const token = $("id-token").value.trim();  // who is asking: what they may read (docs/permissions.md)
    if (token) headers["Authorization"] = "Bearer " + token;
    return headers;
  }

  async function send(path, body, accept) {
    try {
      return await fetch(BASE + path, { method: body === undefined ? "GET" : "POST", headers: headersFor(accept, body), body: body === undefined ? undefined : JSON.stringify(body) });
    } catch (err) {
      throw { status: 0, message: t("network") };
    }
  }

  async function call(path, body) {
    const response = await send(path, body, "application/json");
    return replyOf(response);
  }

  async function replyOf(response) {
    let data = null;
    try { data = await response.json(); } catch (err) { data = null; }
    if (!response.ok) {
      const message = (data && data.message) || response.statusText || String(response.status);
      throw { status: response.status, message, field: data && data.field };
    }
    return data;
  }

  // A streamed answer (docs/api.md#streamed-answers): each server-sent event to onEvent(name, data) as it
  // arrives; a server that answers in one piece (a gateway that buffers) still gives answer, then end.
  async function stream(path, body, onEvent) {
    const response = await send(path, body, "text/event-stream");
    if (!response.ok || !(response.headers.get("Content-Type") || "").startsWith("text/event-stream")) {
      onEvent("answer", Object.assign({ withdrawn: null }, await replyOf(response)));
      onEvent("end", {});
      return;
    }
    const reader = response.body.getReader();
    const decoder = new TextDecoder();
    let pending = "";
    for (;;) {
      const { value, done } = await reader.read().catch(() => { throw { status: 0, message: t("network") }; });
      pending += decoder.decode(value || new Uint8Array(), { stream: !done });
      let cut;
      while ((cut = pending.indexOf("\n\n")) >= 0) {
        const block = pending.slice(0, cut);
        pending = pending.slice(cut + 2);
        const name = (/^event: (.*)$/m.exec(block) || [])[1];
        const data = (/^data: (.*)$/m.exec(block) || [])[1];
        if (name && data) onEvent(name, JSON.parse(data));
      }
      if (done) return;
    }
  }

  function showError(target, err) {
    target.classList.add("error");
    target.setAttribute("role", "alert");
    const parts = [];
    if (err.status === 401) parts.push(t("needKey"));
    parts.push((err.status ? t("failed") + " (" + err.status + "): " : "") + err.message);
    target.textContent = parts.join(" ");
  }

  function showInfo(target, text) {
    target.classList.remove("error");
    target.setAttribute("role", "status");
    target.textContent = text;
  }

  function filtersOf(prefix) {
    const filters = {};
    const product = $(prefix + "-product").value.trim();
    const type = $(prefix + "-type").value.trim();
    if (product) filters.product = [product.toLowerCase()];
    if (type) filters.content_type = [type.toLowerCase()];
    return filters;
  }

  function requestOf(prefix, query, extra) {
    const body = { lang: $(prefix + "-lang").value, mode: $(prefix + "-mode").value, filters: filtersOf(prefix) };
    if (query) body.query = query;
    return Object.assign(body, extra || {});
  }

  async function busy(button, work) {
    button.disabled = true;
    try { return await work(); } finally { button.disabled = false; }
  }

  // ---------------------------------------------------------------------------------------------- Ask
  async function ask(event) {
    event.preventDefault();
    const message = $("ask-message");
    const query = $("question").value.trim();
    if (!query) { showError(message, { status: 0, message: t("needQuestion") }); $("question").focus(); return; }
    showInfo(message, t("working"));
    $("answer").hidden = true;
    await busy($("ask-submit"), async () => {
      try {
        await stream("answer", requestOf("ask", query), (name, data) => onAnswerEvent(name, data, message));
        $("answer-heading").focus();
      } catch (err) { showError(message, err); }
    });
  }

  // sources: the passages are found; delta: the answer's next words; answer: the checked answer replaces them
  function onAnswerEvent(name, data, message) {
    const text = $("answer-text");
    if (name === "sources") {
      text.replaceChildren();
      $("citations").replaceChildren();
      $("citations-heading").hidden = true;
      $("answer-meta").textContent = "";
      text.setAttribute("aria-busy", "true");
      $("answer").hidden = false;
      showInfo(message, t("writing", { n: data.items.length }));
    } else if (name === "delta") {
      text.append(document.createTextNode(data.text));
    } else if (name === "answer") {
      text.setAttribute("aria-busy", "false");
      renderAnswer(data);
      showInfo(message, data.withdrawn ? t("withdrawn") + ": " + data.withdrawn : t("answerReady"));
    } else if (name === "error") {
      text.setAttribute("aria-busy", "false");
      throw { status: 0, message: data.message };
    }
  }

  function renderAnswer(data) {
    // one source per number: an answer may quote several spans of one chunk, each a citation with the same n
    const byN = new Map();
    for (const c of data.citations) {
      if (!byN.has(c.n)) byN.set(c.n, Object.assign({}, c, { quotes: [], spans: [] }));
      byN.get(c.n).quotes.push(c.quote);
      if (c.line_start != null) byN.get(c.n).spans.push([c.line_start, c.line_end ?? c.line_start]);
    }
    const text = $("answer-text");
    text.replaceChildren();
    for (const part of String(data.answer || "").split(/(\[\d+\])/)) {
      const m = /^\[(\d+)\]$/.exec(part);
      const cite = m && byN.get(Number(m[1]));
      if (cite) text.append(citeButton(cite, "[" + cite.n + "]"));
      else text.append(document.createTextNode(part));
    }
    if (!data.answered) text.append(el("span", { class: "meta", text: " — " + t("notAnswered") }));
    const sources = [...byN.values()];
    $("citations").replaceChildren(...sources.map((c) => el("li", { "data-chunk": c.chunk_id, value: c.n },
      citeButton(c, place(c)),
      lineRange(c) ? el("span", { class: "meta", text: " · " + lineRange(c) }) : null,
      c.quotes.map((q) => el("blockquote", { text: q })))));
    $("citations-heading").hidden = sources.length === 0;
    const by = { extractive: t("extractive"), llm: t("llm"), "llm-fallback": t("fallback") }[data.answered_by] || data.answered_by;
    const meta = [t("answeredBy") + ": " + by + (data.model ? " (" + data.model + ")" : "")];
    meta.push(data.hyde && data.hyde.used ? t("hydeUsed") : t("hydeNot") + (data.hyde && data.hyde.reason ? " (" + data.hyde.reason + ")" : ""));
    if (data.rerank) meta.push(data.rerank.used ? t("reranked") + " " + data.rerank.model : t("rerankNot") + " (" + data.rerank.reason + ")");
    if (data.rewrite && data.rewrite.used) meta.push(t("rewritten") + ": " + data.rewrite.queries.join(" | "));
    meta.push(t("searched") + ": " + (data.namespaces ? data.namespaces.join(", ") : t("langAll")));
    meta.push(timings(data.timings_ms));
    $("answer-meta").textContent = meta.join(" · ");
    $("answer").hidden = false;
  }

  function timings(ms) {
    const entries = Object.entries(ms || {});
    const total = ms && (ms.total ?? ms.total_ms);
    const shown = entries.filter(([k]) => k !== "total").map(([k, v]) => k + " " + Math.round(v) + " ms");
    if (total !== undefined) shown.push(t("total") + " " + Math.round(total) + " ms");
    return shown.join(", ");
  }

  // "Document › Section", without repeating a section that is the document's own title
  function place(c) {
    return c.section_title && c.section_title !== c.title ? c.title + " › " + c.section_title : c.title;
  }

  // where a chunk sits in its file, as [label, value]: pages of a PDF, slides, a sheet's rows, or lines
  function whereIs(c) {
    const span = (a, b) => (b != null && b !== a ? a + "–" + b : String(a));
    if (c.page_start != null) return [t("pages"), span(c.page_start, c.page_end)];
    if (c.slide_start != null) return [t("slides"), span(c.slide_start, c.slide_end)];
    if (c.sheet != null) return [t("sheet"), c.sheet + ", " + t("rows") + " " + span(c.row_start, c.row_end)];
    if (c.line_start != null) return [t("lines"), span(c.line_start, c.line_end)];
    return null;
  }

  function lineRange(c) {
    const at = c.spans && c.spans.length > 1 ? [t("lines"), mergedLines(c.spans)] : whereIs(c);
    return at ? at[0] + " " + at[1] : "";
  }

  // the lines of every quote of one source: [[5, 5], [7, 9]] -> "5, 7–9"
  function mergedLines(spans) {
    const merged = [];
    for (const [a, b] of [...spans].sort((x, y) => x[0] - y[0])) {
      const last = merged[merged.length - 1];
      if (last && a <= last[1] + 1) last[1] = Math.max(last[1], b);
      else merged.push([a, b]);
    }
    return merged.map(([a, b]) => (a === b ? String(a) : a + "–" + b)).join(", ");
  }

  function citeButton(cite, label) {
    return el("button", {
      type: "button", class: label.startsWith("[") ? "cite" : "link", "data-cite": cite.n,
      "aria-label": label.startsWith("[") ? t("citeLabel", { n: cite.n, title: cite.title }) : null,
      "aria-haspopup": "dialog", text: label,
      onclick: (e) => openChunk(cite.chunk_id, cite.quotes, e.currentTarget),
    });
  }

  // ---------------------------------------------------------------------------------------------- the chunk dialog
  async function openChunk(chunkId, quotes, opener) {
    lastOpener = opener;
    const dialog = $("chunk-dialog");
    $("chunk-title").textContent = t("loadingChunk");
    $("chunk-where").replaceChildren();
    $("chunk-content").replaceChildren();
    $("chunk-enrichment").replaceChildren();
    if (!dialog.open) dialog.showModal();
    try {
      const chunk = await call("chunks/" + encodeURIComponent(chunkId));
      renderChunk(chunk, quotes || []);
    } catch (err) {
      $("chunk-title").textContent = t("failed");
      $("chunk-content").textContent = (err.status === 401 ? t("needKey") + " " : "") + err.message;
    }
  }

  function renderChunk(c, quotes) {
    $("chunk-title").textContent = c.section_title || c.title;
    const where = [[t("document"), c.title + " (" + c.source_id + "/" + c.key + ")"]];
    if (c.heading_path && c.heading_path.length) where.push([t("headingPath"), c.heading_path.join(" › ")]);
    if (whereIs(c)) where.push(whereIs(c));
    where.push([t("language"), c.lang], [t("product"), c.product], [t("type"), c.content_type]);
    const dl = $("chunk-where");
    dl.replaceChildren();
    for (const [k, v] of where) dl.append(el("dt", { text: k }), el("dd", { text: v }));
    if (c.url && /^https?:\/\//i.test(c.url)) {
      dl.append(el("dt", { text: t("source") }), el("dd", {}, el("a", { href: c.url, target: "_blank", rel: "noopener noreferrer", text: t("link") })));
    }
    const body = $("chunk-content");
    body.replaceChildren(...highlighted(c.content, quotes));
    const first = body.querySelector("mark");
    if (first) {
      first.id = "chunk-quote";
      body.scrollTop = Math.max(0, first.offsetTop - body.offsetTop - body.clientHeight / 3);
    }
    const e = c.enrichment || {};
    const rows = [
      [t("summary"), e.summary || "—"],
      [t("keywords"), (e.keywords || []).join(", ") || "—"],
      [t("questions"), e.questions && e.questions.length ? el("ul", {}, e.questions.map((q) => el("li", { text: q }))) : "—"],
      [t("product"), e.product], [t("type"), e.content_type],
      [t("enrichedBy"), e.source + (e.fallback_reason ? " (" + e.fallback_reason + ")" : "")],
    ];
    if (e.model) rows.push([t("model"), e.model]);
    const en = $("chunk-enrichment");
    en.replaceChildren();
    for (const [k, v] of rows) en.append(el("dt", { text: k }), el("dd", {}, v));
  }

  // the text with every quoted span in a <mark> (each quote occurs verbatim in the chunk)
  function highlighted(content, quotes) {
    const spans = [];
    for (const q of quotes) {
      const at = q ? content.indexOf(q) : -1;
      if (at >= 0) spans.push([at, at + q.length]);
    }
    spans.sort((a, b) => a[0] - b[0]);
    const out = [];
    let from = 0;
    for (const [start, end] of spans) {
      if (start < from) continue;
      out.push(content.slice(from, start), el("mark", { class: "quote", text: content.slice(start, end) }));
      from = end;
    }
    out.push(content.slice(from));
    return out;
  }

  function closeChunk() {
    $("chunk-dialog").close();
  }

  // ---------------------------------------------------------------------------------------------- Explore
  async function mapDomain(event) {
    event.preventDefault();
    const message = $("explore-message");
    showInfo(message, t("working"));
    await busy($("map-submit"), async () => {
      try {
        const data = await call("retrieve", requestOf("explore", $("domain").value.trim(), { intent: "bootstrap", top_k: 10 }));
        renderMap(data);
        renderResults(data);
        showInfo(message, t("mapReady"));
        $("map-heading").focus();
      } catch (err) { showError(message, err); }
    });
  }

  async function search() {
    const message = $("explore-message");
    const query = $("domain").value.trim();
    if (!query) { showError(message, { status: 0, message: t("needQuestion") }); $("domain").focus(); return; }
    showInfo(message, t("working"));
    await busy($("search-submit"), async () => {
      try {
        const data = await call("retrieve", requestOf("explore", query, { top_k: 10 }));
        $("map").hidden = true;
        renderResults(data);
        showInfo(message, data.items.length ? t("found", { n: data.items.length }) : t("noResults"));
        $("results-heading").focus();
      } catch (err) { showError(message, err); }
    });
  }

  function renderMap(data) {
    $("map-summary").textContent = data.summary || "—";
    $("map-topics").replaceChildren(...(data.topics.length ? data.topics : [t("none")]).map((x) => el("li", { text: x })));
    $("map-critical").replaceChildren(...(data.critical_points.length ? data.critical_points.map((p) => el("li", {},
      el("button", { type: "button", class: "link", "aria-haspopup": "dialog", text: p.text, onclick: (e) => openChunk(p.chunk_id, [p.text], e.currentTarget) }),
      el("span", { class: "meta", text: " · " + p.title + " (" + (p.origin === "marked" ? t("critMarked") : t("critInferred")) + ")" }))) : [el("li", { text: t("none") })]));
    $("map-follow").replaceChildren(...(data.follow_up_refs.length ? data.follow_up_refs.map((f) => el("li", {},
      f.kind === "question"
        ? el("button", { type: "button", class: "link", text: f.text, onclick: () => askThis(f.text) })
        : el("span", { text: f.text }))) : [el("li", { text: t("none") })]));
    $("map").hidden = false;
  }

  function renderResults(data) {
    $("result-list").replaceChildren(...data.items.map((it) => el("li", { "data-chunk": it.chunk_id, "data-product": it.product, "data-lang": it.lang },
      el("strong", { text: place(it) }),
      el("span", { class: "score", text: " · " + t("score") + " " + it.score.toFixed(4) }),
      el("span", { class: "tags" }, [it.lang, it.product, it.content_type, it.kind].map((x) => el("span", { class: "tag", text: x }))),
      el("div", { class: "meta", text: scoreLine(it) + (lineRange(it) ? " · " + lineRange(it) : "") }),
      el("div", { text: it.summary || it.content.slice(0, 220) }),
      el("button", { type: "button", class: "link", "aria-haspopup": "dialog", "aria-label": t("inspect") + ": " + place(it), text: t("inspect"), onclick: (e) => openChunk(it.chunk_id, [], e.currentTarget) }))));
    $("results-meta").textContent = timings(data.timings_ms);
    $("results").hidden = data.items.length === 0;
  }

  function scoreLine(it) {
    const parts = Object.entries(it.scores || {}).map(([k, v]) => k + " " + Number(v).toFixed(3));
    return parts.length ? t("scores") + ": " + parts.join(", ") : "";
  }

  function askThis(question) {
    $("question").value = question;
    selectTab($("tab-ask"));
    $("ask-form").requestSubmit();
  }

  // ---------------------------------------------------------------------------------------------- Status
  async function loadStatus() {
    const message = $("status-message");
    showInfo(message, t("working"));
    try {
      const data = await call("stats");
      renderStatus(data);
      showInfo(message, t("documents") + ": " + documentCount(data.documents) + " · " + t("chunks") + ": " + data.chunks);
      fillLists(data);
    } catch (err) {
      $("status-body").replaceChildren();
      if (err.status === 403) showError(message, { status: 403, message: t("forbiddenStatus") + " " + err.message });
      else showError(message, err);
    }
  }

  // /stats counts documents by status and gives their "total" beside them: the total is not one more status
  function byStatus(documents) {
    return Object.fromEntries(Object.entries(documents).filter(([k]) => k !== "total"));
  }

  function documentCount(documents) {
    return documents.total ?? Object.values(byStatus(documents)).reduce((a, b) => a + b, 0);
  }

  function table(caption, counts, head) {
    const rows = Object.entries(counts).sort((a, b) => b[1] - a[1]);
    return el("table", {}, el("caption", { text: caption }),
      el("thead", {}, el("tr", {}, el("th", { scope: "col", text: head }), el("th", { scope: "col", text: t("count") }))),
      el("tbody", {}, rows.length ? rows.map(([k, v]) => el("tr", {}, el("th", { scope: "row", text: k }), el("td", { class: "n", text: v }))) : el("tr", {}, el("td", { colspan: 2, text: t("none") }))));
  }

  function renderStatus(data) {
    const failures = el("table", { class: "failures" }, el("caption", { text: t("failures") + " (" + data.failures.length + ")" }),
      el("thead", {}, el("tr", {}, ["source", "key", "reason"].map((h) => el("th", { scope: "col", text: h === "key" ? t("document") : h === "source" ? t("source") : t("reason") })))),
      el("tbody", {}, data.failures.length
        ? data.failures.map((f) => el("tr", {}, el("td", { text: f.source_id }), el("td", { text: f.key }), el("td", { text: f.error })))
        : el("tr", {}, el("td", { colspan: 3, text: t("none") }))));
    $("status-body").replaceChildren(
      el("p", { class: "wide", id: "status-translator" }, el("strong", { text: t("translator") + ": " }), translatorName(data.translator)),
      table(t("byStatus"), byStatus(data.documents), t("status")), table(t("byLang"), data.by_lang, t("language")),
      table(t("byProduct"), data.by_product, t("product")), table(t("byType"), data.by_content_type, t("type")),
      table(t("bySource"), data.by_source, t("source")),
      el("div", { class: "wide", role: "region", tabindex: 0, "aria-label": t("failures") }, failures),
      ...heldDeletions(data.held_deletions || []));
  }

  function heldDeletions(held) {
    if (!held.length) return [];
    const rows = held.map((h) => el("tr", {}, el("td", { text: h.source_id }), el("td", { text: h.key }), el("td", {}, el("code", { text: h.confirm || "" }))));
    const caption = el("caption", { text: t("held") + " (" + held.length + "): " + t("heldWhy") });
    const head = el("thead", {}, el("tr", {}, [t("source"), t("document"), t("confirm")].map((h) => el("th", { scope: "col", text: h }))));
    return [el("div", { class: "wide", role: "region", tabindex: 0, "aria-label": t("held") },
      el("table", { class: "held" }, caption, head, el("tbody", {}, rows)))];
  }

  function translatorName(name) {
    const names = (T[lang] && T[lang].translators) || T.en.translators;
    return names[name] || String(name || names.none);
  }

  // once per browser (until dismissed): without a translator, questions across languages are weaker
  let translatorSeen = null;
  function showTranslator(data) {
    if (data) translatorSeen = data.translator;
    const show = translatorSeen === "none" && localStorage.getItem("sabio.translatorNotice") !== "dismissed";
    $("translator-text").textContent = t("noTranslator");
    $("translator-notice").hidden = !show;
  }

  function fillLists(data) {
    $("products").replaceChildren(...Object.keys(data.by_product || {}).sort().map((p) => el("option", { value: p })));
    $("content-types").replaceChildren(...Object.keys(data.by_content_type || {}).sort().map((p) => el("option", { value: p })));
  }

  // ---------------------------------------------------------------------------------------------- tabs
  function selectTab(tab) {
    for (const other of document.querySelectorAll('[role="tab"]')) {
      const on = other === tab;
      other.setAttribute("aria-selected", String(on));
      other.tabIndex = on ? 0 : -1;
      $(other.getAttribute("aria-controls")).hidden = !on;
    }
    document.title = "Sabio · " + t(tab.dataset.i18n);
    if (tab.id === "tab-status") loadStatus();
  }

  function tabKeys(event) {
    const tabs = [...document.querySelectorAll('[role="tab"]')];
    const at = tabs.indexOf(document.activeElement);
    if (at < 0) return;
    const next = { ArrowRight: at + 1, ArrowLeft: at - 1, Home: 0, End: tabs.length - 1 }[event.key];
    if (next === undefined) return;
    event.preventDefault();
    const tab = tabs[(next + tabs.length) % tabs.length];
    selectTab(tab);
    tab.focus();
  }

  // ---------------------------------------------------------------------------------------------- start
  $("api-key").value = sessionStorage.getItem("sabio.key") || "";
  $("api-key").addEventListener("change", () => {
    sessionStorage.setItem("sabio.key", apiKey());
    call("stats").then(started, () => {});
  });
  $("id-token").value = sessionStorage.getItem("sabio.token") || "";
  $("id-token").addEventListener("change", () => { sessionStorage.setItem("sabio.token", $("id-token").value.trim()); });
  $("ui-lang").addEventListener("change", () => { lang = $("ui-lang").value; localStorage.setItem("sabio.lang", lang); applyLanguage(); });
  $("ask-form").addEventListener("submit", ask);
  $("question").addEventListener("keydown", (e) => { if (e.key === "Enter" && !e.shiftKey) { e.preventDefault(); $("ask-form").requestSubmit(); } });
  $("explore-form").addEventListener("submit", mapDomain);
  $("search-submit").addEventListener("click", search);
  $("status-refresh").addEventListener("click", loadStatus);
  $("chunk-close").addEventListener("click", closeChunk);
  $("chunk-dialog").addEventListener("close", () => { if (lastOpener && lastOpener.isConnected) lastOpener.focus(); });
  $("tabs").addEventListener("keydown", tabKeys);
  for (const tab of document.querySelectorAll('[role="tab"]')) tab.addEventListener("click", () => selectTab(tab));
  $("translator-dismiss").addEventListener("click", () => { localStorage.setItem("sabio.translatorNotice", "dismissed"); showTranslator(); $("question").focus(); });
  function started(data) { fillLists(data); showTranslator(data); }
  applyLanguage();
  call("stats").then(started, () => {});
})();
