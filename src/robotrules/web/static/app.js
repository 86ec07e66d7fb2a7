// robotrules web tester: keeps the state (file, URLs, agents, dialect) in the URL fragment,
// asks /api/check and /api/lint as you type, and draws the editor overlay and results table; the
// AI preferences (/api/usage) and crawlers-by-purpose (POST /api/agents) tabs ask only while shown.
// Every piece of user or server text reaches the page through textContent, never innerHTML.
"use strict";

(() => {
  // The dialects and AIPREF vocabularies are the page's own radio buttons and options (one list
  // each, index.html; tests/web/test_api.py checks them against robotrules._dialects.NAMES and
  // robotrules.aipref.VOCABULARIES).
  const dialectRadios = [...document.querySelectorAll('input[name="dialect"]')];
  const DIALECTS = dialectRadios.map((r) => r.value);
  const DIALECT_NAMES = Object.fromEntries(dialectRadios.map((r) => [r.value, r.nextElementSibling.textContent]));
  const REASONS = {
    "no-matching-rule": "no rule matches",
    "no-group": "no group for this agent",
    "robots-txt": "/robots.txt is always allowed",
  };
  const CATEGORIES = {
    search: "Search engines", ai: "AI crawlers", seo: "SEO tools", social: "Social previews",
    ads: "Advertising", archive: "Archives", other: "Other",
  };
  const PURPOSES = {
    training: "AI training", search: "Search", "ai-search": "AI search", "user-fetch": "User-triggered fetches",
    ads: "Advertising", seo: "SEO tools", archive: "Archives", social: "Social previews", other: "Other",
  };
  const ACCESS = { allowed: "Open", partial: "Partly", blocked: "Blocked" };
  const SCOPES = ["group", "file"];
  // AIPREF vocabulary versions (the page's options) and the titles of the usage columns
  const VOCABULARIES = [...document.querySelectorAll("#vocabulary option")].map((o) => o.value);
  const COLUMN_TITLES = {
    "train-ai": "AIPREF: AI training (Content-Usage)",
    search: "AIPREF and Content-Signal: search, combined",
    "ai-train": "Content-Signal: AI training",
    "ai-input": "Content-Signal: AI input (grounding, RAG)",
    "ai-use": "AIPREF vocab-08: AI use (input to a generative model)",
  };
  const DEBOUNCE_MS = 150;
  const MAX_FILE = 1024 * 1024;

  const DEFAULT_STATE = {
    robots_txt: [
      "# A draft: what does it block for Googlebot and GPTBot?",
      "User-agent: *",
      "Disallow: /private/",
      "Allow: /private/press/",
      "",
      "User-agent: Googlebot",
      "Disallow: /*.pdf$",
      "Crawl-delay: 10",
      "",
      "User-agent: GPTBot",
      "Disallow: /",
      "",
    ].join("\n"),
    urls: ["/", "/private/report.html", "/private/press/launch.html", "/docs/guide.pdf"],
    agents: ["Googlebot", "GPTBot"],
    dialect: DIALECTS[0],
    scope: "group",
    vocabulary: VOCABULARIES[0],
    policy_tokens: [],
  };

  const $ = (id) => document.getElementById(id);
  const el = (tag, attrs = {}, ...children) => {
    const node = document.createElement(tag);
    for (const [key, value] of Object.entries(attrs)) {
      if (key === "class") node.className = value;
      else if (key === "text") node.textContent = value;
      else if (key.includes("-")) node.setAttribute(key, value);
      else node[key] = value;
    }
    for (const child of children) {
      if (child !== null && child !== undefined) node.append(child);
    }
    return node;
  };

  const ui = {
    robots: $("robots"), gutter: $("gutter"), backdrop: $("backdrop"),
    urls: $("urls"), agents: $("agents"), agentInput: $("agent-input"),
    agentAdd: $("agent-add"), agentPick: $("agent-pick"), knownList: $("known-agents"),
    results: $("results"), empty: $("empty"), urlOrigin: $("url-origin"), usageOrigin: $("usage-origin"), summary: $("summary"), status: $("status"),
    findings: $("findings"), findingsCount: $("findings-count"), fileMeta: $("file-meta"),
    share: $("share"), source: $("source"), upload: $("upload"), editor: $("editor"),
    liveForm: $("live-form"), liveUrl: $("live-url"), live: $("live"), livePage: $("live-page"),
    liveSource: $("live-source"), liveAnswers: $("live-answers"),
    sitemaps: $("sitemaps"), sitemapsMeta: $("sitemaps-meta"), sitemapsCheck: $("sitemaps-check"),
    exportCsv: $("export-csv"),
    notes: $("notes"), download: $("download"), transcript: $("transcript"),
    diff: $("diff"), diffMeta: $("diff-meta"), diffCount: $("diff-count"),
    tabs: [...document.querySelectorAll('[role="tablist"] [role="tab"]')],
    usage: $("usage"), usageMeta: $("usage-meta"), usageEmpty: $("usage-empty"),
    vocabulary: $("vocabulary"), policyTokens: $("policy-tokens"),
    paneAi: $("pane-ai"), registry: $("registry"), registryMeta: $("registry-meta"),
    paneRegistry: $("pane-registry"),
  };

  let state = { ...DEFAULT_STATE };
  let known = new Map(); // token (lower case) -> agent record from /api/agents
  const tokens = new Map(); // a user-agent string -> the product token it is matched by
  let syntaxKeys = new Map(); // directive key spelling -> role, from /api/syntax
  let lastChecked = null; // the last /api/check answer, for the CSV export
  let findings = [];
  let selectedLine = null;
  let timer = null;
  let inflight = null;
  let sequence = 0;
  let ownHash = "";
  let fetched = null; // {url, text}: the last fetched file, the base of the diff
  let diffTimer = null;
  let viewSequence = 0; // the newest usage / registry request; older answers are dropped
  const openPurposes = new Set(); // purposes unfolded in the registry view, kept across redraws

  // ---- the fragment: JSON, deflated when the browser can, base64url -------------------------

  const toBase64Url = (bytes) => {
    let binary = "";
    for (let i = 0; i < bytes.length; i += 0x8000) {
      binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
    }
    return btoa(binary).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
  };
  const fromBase64Url = (text) => {
    const binary = atob(text.replace(/-/g, "+").replace(/_/g, "/"));
    return Uint8Array.from(binary, (c) => c.charCodeAt(0));
  };
  const pipe = async (bytes, stream) =>
    new Uint8Array(await new Response(new Blob([bytes]).stream().pipeThrough(stream)).arrayBuffer());

  async function encodeState(value) {
    const json = new TextEncoder().encode(JSON.stringify({ v: 1, ...value }));
    if (typeof CompressionStream === "function") {
      return "z=" + toBase64Url(await pipe(json, new CompressionStream("deflate-raw")));
    }
    return "j=" + toBase64Url(json);
  }

  async function decodeState(hash) {
    const match = /^#?([zj])=([A-Za-z0-9_-]*)$/.exec(hash);
    if (!match) return null;
    let bytes = fromBase64Url(match[2]);
    if (match[1] === "z") bytes = await pipe(bytes, new DecompressionStream("deflate-raw"));
    const data = JSON.parse(new TextDecoder().decode(bytes));
    const strings = (list) => (Array.isArray(list) ? list.filter((s) => typeof s === "string") : []);
    return {
      robots_txt: typeof data.robots_txt === "string" ? data.robots_txt : "",
      urls: strings(data.urls),
      agents: strings(data.agents),
      dialect: DIALECTS.includes(data.dialect) ? data.dialect : DIALECTS[0],
      scope: SCOPES.includes(data.scope) ? data.scope : "group",
      vocabulary: VOCABULARIES.includes(data.vocabulary) ? data.vocabulary : VOCABULARIES[0],
      policy_tokens: strings(data.policy_tokens),
    };
  }

  async function saveHash() {
    const hash = await encodeState(state);
    ownHash = "#" + hash;
    if (location.hash !== ownHash) history.replaceState(null, "", ownHash);
  }

  // ---- API --------------------------------------------------------------------------------------

  // The page is busy (<html data-busy>) from the moment an edit schedules work until every
  // answer it asked for is drawn: a script (or a test) waits for the attribute to go.
  let pending = 0;
  const busy = (delta) => {
    pending += delta;
    document.documentElement.toggleAttribute("data-busy", pending > 0);
  };
  async function tracked(work) {
    busy(1);
    try {
      return await work();
    } finally {
      busy(-1);
    }
  }

  const post = (path, body, signal) => tracked(() => postNow(path, body, signal));

  async function postNow(path, body, signal) {
    const response = await fetch(path, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
      signal,
    });
    let data = null;
    try {
      data = await response.json();
    } catch (_) {
      /* not JSON: reported below */
    }
    if (!response.ok) {
      const error = new Error((data && data.error) || `${path}: HTTP ${response.status}`);
      error.status = response.status;
      error.retryAfter = Number(response.headers.get("retry-after")) || 0;
      throw error;
    }
    return data;
  }

  function setStatus(text, kind = "") {
    ui.status.textContent = text;
    ui.status.className = "status" + (kind ? " " + kind : "");
  }

  let scheduled = false; // a refresh is waiting for its timer
  function schedule(delay = DEBOUNCE_MS) {
    clearTimeout(timer);
    if (!scheduled) busy(1);
    scheduled = true;
    timer = setTimeout(refresh, delay);
  }

  async function refresh() {
    if (scheduled) busy(-1);
    scheduled = false;
    clearTimeout(timer);
    const mine = ++sequence;
    if (inflight) inflight.abort();
    inflight = new AbortController();
    const { signal } = inflight;
    const size = new TextEncoder().encode(state.robots_txt).length;
    ui.fileMeta.textContent = `${lineCount(state.robots_txt)} lines · ${formatBytes(size)}`;
    saveHash().catch(() => {});
    if (size > MAX_FILE) {
      setStatus(`The file is ${formatBytes(size)}; the tester takes up to ${formatBytes(MAX_FILE)}.`, "error");
      return;
    }
    setStatus("Checking…", "busy");
    // Check and lint are asked separately: a lint that is too slow must not hide verdicts.
    const linting = post("/api/lint", { robots_txt: state.robots_txt, dialect: state.dialect }, signal)
      .then((linted) => {
        if (mine !== sequence) return;
        findings = linted.findings;
        renderFindings();
        renderEditor();
      })
      .catch((error) => {
        if (error.name === "AbortError" || mine !== sequence) return;
        findings = [];
        renderEditor();
        ui.findings.replaceChildren(el("li", { class: "finding none", text: `Lint unavailable: ${error.message}` }));
      });
    try {
      const checked = await post("/api/check", {
        robots_txt: state.robots_txt, urls: state.urls, agents: state.agents, dialect: state.dialect,
      }, signal);
      if (mine !== sequence) return;
      renderResults(checked);
      setStatus(`Checked ${checked.results.length} combinations · ${DIALECT_NAMES[state.dialect]}`, "ok");
    } catch (error) {
      if (error.name === "AbortError" || mine !== sequence) return;
      setStatus(error.message, "error");
      if (error.status === 429 && error.retryAfter) schedule(error.retryAfter * 1000);
    }
    await linting;
    scheduleDiff();
    refreshViews();
  }

  // ---- editor: line numbers, findings on their lines, the highlighted line -------------------

  const lineCount = (text) => text.split("\n").length;
  const formatBytes = (n) => (n < 1024 ? `${n} B` : `${(n / 1024).toFixed(n < 10240 ? 1 : 0)} KiB`);
  const SEVERITY_ORDER = { error: 0, warning: 1, info: 2 };
  const SEVERITY_MARK = { error: "✖", warning: "▲", info: "●" };

  function findingsByLine() {
    const byLine = new Map();
    for (const finding of findings) {
      if (finding.line < 1) continue;
      if (!byLine.has(finding.line)) byLine.set(finding.line, []);
      byLine.get(finding.line).push(finding);
    }
    for (const list of byLine.values()) {
      list.sort((a, b) => SEVERITY_ORDER[a.severity] - SEVERITY_ORDER[b.severity]);
    }
    return byLine;
  }

  // The editor is a textarea over a backdrop that draws the same text. Up to FULL_LINES lines
  // the backdrop draws every line, syntax-highlighted, and both wrap long lines the same way,
  // so nothing scrolls sideways; line numbers, marks and notes sit at each line's measured
  // top. A longer file is drawn plain (no wrap, no colours): only the lines with findings and
  // the selected line are drawn, at (line - 1) x line height, so typing stays fast.
  const FULL_LINES = 3000;

  // Syntax highlighting: the directive registry's keys (GET /api/syntax) give each key its
  // role; the lint findings remain the authority on what a line means.
  function keyRole(rawKey) {
    const key = rawKey.trim().toLowerCase().replace(/[_ ]/g, "-");
    return syntaxKeys.get(key) || (syntaxKeys.size ? "unknown" : "plain");
  }

  function patternNodes(value, cls) {
    // '*' anywhere and a final '$' are the pattern's operators (RFC 9309 2.2.3).
    const nodes = [];
    const end = value.replace(/\s+$/, "").length;
    let text = "";
    for (let i = 0; i < value.length; i++) {
      const c = value[i];
      if (c === "*" || (c === "$" && i === end - 1)) {
        if (text) nodes.push(el("span", { class: cls, text }));
        text = "";
        nodes.push(el("span", { class: "h-op", text: c }));
      } else text += c;
    }
    if (text) nodes.push(el("span", { class: cls, text }));
    return nodes;
  }

  function highlighted(line) {
    const hash = line.indexOf("#");
    const code = hash >= 0 ? line.slice(0, hash) : line;
    const nodes = [];
    const colon = code.indexOf(":");
    if (colon >= 0) {
      const key = code.slice(0, colon);
      const role = keyRole(key);
      const value = code.slice(colon + 1);
      nodes.push(el("span", { class: "h-key h-" + role, text: key }), el("span", { class: "h-colon", text: ":" }));
      if (role === "rule") nodes.push(...patternNodes(value, "h-path"));
      else if (value) nodes.push(el("span", { class: role === "agent" ? "h-agent" : role === "sitemap" ? "h-url" : "h-value", text: value }));
    } else if (code.trim()) {
      nodes.push(el("span", { class: "h-junk", text: code }));
    } else if (code) {
      nodes.push(code);
    }
    if (hash >= 0) nodes.push(el("span", { class: "h-comment", text: line.slice(hash) }));
    return nodes;
  }

  // What the backdrop shows now, so a keystroke redraws only the lines it changed.
  let drawn = { full: false, lines: [], layer: null, numbers: null };

  function drawFull(lines, lineClass) {
    let { layer, numbers } = drawn;
    const old = drawn.full && layer ? drawn.lines : [];
    if (!drawn.full || !layer) {
      layer = el("div", { class: "layer flow" });
      numbers = el("div", { class: "numbers" });
    }
    // Lines the edit left alone (a common start and end) keep their elements.
    let start = 0;
    const common = Math.min(old.length, lines.length);
    while (start < common && old[start] === lines[start]) start++;
    let endOld = old.length;
    let endNew = lines.length;
    while (endOld > start && endNew > start && old[endOld - 1] === lines[endNew - 1]) {
      endOld--;
      endNew--;
    }
    const after = layer.children[endOld] || null;
    for (let i = endOld - 1; i >= start; i--) layer.children[i].remove();
    const added = document.createDocumentFragment();
    for (let i = start; i < endNew; i++) added.append(el("div", { class: "line-hl" }, ...highlighted(lines[i])));
    layer.insertBefore(added, after);
    for (let i = 0; i < lines.length; i++) {
      const row = layer.children[i];
      const cls = lineClass(i + 1);
      if (row.className !== cls) row.className = cls;
      if (row.dataset.line !== String(i + 1)) row.dataset.line = String(i + 1);
    }
    while (numbers.children.length > lines.length) numbers.lastElementChild.remove();
    while (numbers.children.length < lines.length) numbers.append(el("div", { text: String(numbers.children.length + 1) }));
    drawn = { full: true, lines, layer, numbers };
    if (ui.backdrop.firstElementChild !== layer) ui.backdrop.replaceChildren(layer);
    // Each number as tall as its (wrapped) line: one layout, then reads.
    const heights = Array.from(layer.children, (row) => row.offsetHeight);
    heights.forEach((height, i) => {
      const number = numbers.children[i];
      if (number.style.height !== `${height}px`) number.style.height = `${height}px`;
    });
  }

  function drawPlain(lines, lineClass, byLine) {
    const layer = el("div", { class: "layer" });
    const wanted = new Set(byLine.keys());
    if (selectedLine !== null && selectedLine <= lines.length) wanted.add(selectedLine);
    for (const n of [...wanted].sort((a, b) => a - b)) {
      if (n > lines.length) continue;
      const row = el("div", { class: lineClass(n), "data-line": String(n) },
        el("span", { class: "ghost", text: lines[n - 1] || "" }));
      row.style.top = `calc(${n - 1} * var(--lh))`;
      layer.append(row);
    }
    let { numbers } = drawn;
    if (drawn.full || !numbers || drawn.count !== lines.length) {
      numbers = el("div", { class: "numbers" });
      numbers.textContent = lines.map((_, i) => i + 1).join("\n");
    }
    drawn = { full: false, lines: [], layer, numbers, count: lines.length };
    ui.backdrop.replaceChildren(layer);
  }

  function renderEditor() {
    const lines = state.robots_txt.split("\n");
    const full = lines.length <= FULL_LINES;
    ui.editor.classList.toggle("plain", !full);
    ui.robots.wrap = full ? "soft" : "off";
    // The backdrop's text box must be as wide as the textarea's (its scroll bar included).
    ui.editor.style.setProperty("--bar", `${ui.robots.offsetWidth - ui.robots.clientWidth}px`);
    const byLine = findingsByLine();
    const lineClass = (n) => {
      const list = byLine.get(n);
      let cls = "line-hl";
      if (list) cls += " sev-" + list[0].severity;
      if (n === selectedLine) cls += " selected";
      return cls;
    };
    if (full) drawFull(lines, lineClass);
    else drawPlain(lines, lineClass, byLine);
    const { layer, numbers } = drawn;
    const lh = lineHeight();
    lineTop = full
      ? (n) => { const row = layer.children[n - 1]; return row ? [row.offsetTop, row.offsetHeight] : [(n - 1) * lh, lh]; }
      : (n) => [(n - 1) * lh, lh];

    const marks = el("div", { class: "marks" });
    const notes = [];
    for (const [n, list] of [...byLine.entries()].sort((a, b) => a[0] - b[0])) {
      if (n > lines.length) continue;
      const [top] = lineTop(n);
      const titleText = list.map((f) => `${f.code} ${f.message}`).join("\n");
      const more = list.length > 1 ? ` (+${list.length - 1} more)` : "";
      const note = el("div", { class: "note sev-" + list[0].severity, "data-line": String(n), title: titleText },
        el("span", { class: "note-line", text: String(n) }), `${list[0].message}${more}`);
      note.dataset.top = String(top);
      note.addEventListener("click", () => highlightLine(n));
      notes.push(note);
      const mark = el("span", { class: "mark sev-" + list[0].severity, text: SEVERITY_MARK[list[0].severity] || "●", title: titleText });
      mark.style.top = `${top}px`;
      marks.append(mark);
    }
    if (selectedLine !== null && selectedLine <= lines.length) {
      const [top, height] = lineTop(selectedLine);
      const bar = el("div", { class: "gutter-sel" });
      bar.style.top = `${top}px`;
      bar.style.height = `${height}px`;
      marks.append(bar);
    }
    if (ui.gutter.firstElementChild !== numbers) ui.gutter.replaceChildren(numbers, marks);
    else ui.gutter.lastElementChild.replaceWith(marks);
    const noteLayer = el("div", { class: "note-layer" }, ...notes);
    ui.notes.replaceChildren(noteLayer);
    placeNotes(noteLayer);
    syncScroll();
  }

  const lineHeight = () => parseFloat(getComputedStyle(ui.robots).lineHeight) || 20;
  let lineTop = (n) => [(n - 1) * 20, 20]; // set by renderEditor: a line's top and height

  // Each note starts at its line; a note that would cover the one above moves down below it,
  // so every message shows whole (the column wraps text; nothing runs off the edge).
  function placeNotes(layer) {
    const pad = parseFloat(getComputedStyle(ui.robots).paddingTop) || 10;
    let bottom = 0;
    for (const note of layer.children) {
      const top = Math.max(pad + Number(note.dataset.top), bottom);
      note.style.top = `${top}px`;
      bottom = top + note.offsetHeight + 2;
    }
  }

  function syncScroll() {
    const { scrollTop, scrollLeft } = ui.robots;
    for (const child of ui.gutter.children) child.style.transform = `translateY(${-scrollTop}px)`;
    const layer = ui.backdrop.firstElementChild;
    if (layer) layer.style.transform = `translate(${-scrollLeft}px, ${-scrollTop}px)`;
    const notes = ui.notes.firstElementChild;
    if (notes) notes.style.transform = `translateY(${-scrollTop}px)`;
  }

  function highlightLine(line) {
    selectedLine = line;
    renderEditor();
    const [top, height] = lineTop(line);
    const view = ui.robots.clientHeight;
    if (top < ui.robots.scrollTop || top + height > ui.robots.scrollTop + view - lineHeight()) {
      ui.robots.scrollTop = Math.max(0, top - view / 3);
      syncScroll();
    }
  }

  function renderFindings() {
    ui.findingsCount.textContent = String(findings.length);
    ui.findingsCount.className = "count" + (findings.some((f) => f.severity === "error") ? " error"
      : findings.some((f) => f.severity === "warning") ? " warning" : "");
    const items = findings.map((f) => {
      const where = f.line > 0 ? `line ${f.line}` : "file";
      const item = el("li", { class: "finding sev-" + f.severity },
        el("span", { class: "sev", text: f.severity }),
        el("button", { type: "button", class: "where", text: where, disabled: f.line < 1 }),
        el("span", { class: "code", text: `${f.code} ${f.kind}` }),
        el("span", { class: "msg", text: f.message }),
        f.fix ? el("span", { class: "fix", text: `Fix: ${f.fix}` }) : null);
      if (f.line > 0) item.querySelector(".where").addEventListener("click", () => highlightLine(f.line));
      return item;
    });
    if (!items.length) items.push(el("li", { class: "finding none", text: "No findings." }));
    ui.findings.replaceChildren(...items);
  }

  // ---- results --------------------------------------------------------------------------------

  function describe(verdict) {
    if (verdict.line !== null && verdict.directive) {
      const directive = verdict.directive[0].toUpperCase() + verdict.directive.slice(1);
      return `line ${verdict.line} · ${directive}: ${verdict.pattern}`;
    }
    return REASONS[verdict.reason] || verdict.reason;
  }

  // A long user-agent (a whole User-Agent header) is shown as the product token robotrules
  // matches it by (the server's answer: "tokens" of /api/check), or its start until that
  // answer is in; the full string is in the tooltip.
  function shortAgent(agent) {
    if (agent.length <= 24) return agent;
    const token = tokens.get(agent);
    if (token && token.length <= 24) {
      const at = agent.toLowerCase().indexOf(token.toLowerCase());
      return `${at > 0 ? "…" : ""}${token}…`;
    }
    return agent.slice(0, 20) + "…";
  }

  // URLs of one origin are shown as their paths, the origin once above the table.
  const ORIGIN = /^[a-z][a-z0-9+.-]*:\/\/[^/?#]*/i;
  function sharedOrigin(urls) {
    let origin = null;
    for (const url of urls) {
      const m = ORIGIN.exec(url);
      if (!m) continue; // a path
      const o = m[0].toLowerCase();
      if (origin === null) origin = o;
      else if (o !== origin) return null;
    }
    return origin;
  }
  function shownUrl(url, origin) {
    if (!origin) return url;
    const m = ORIGIN.exec(url);
    if (!m) return url;
    const rest = url.slice(m[0].length);
    return rest.startsWith("/") ? rest : "/" + rest;
  }
  function showOrigin(node, origin) {
    node.hidden = !origin;
    node.replaceChildren(...(origin ? ["URLs on ", el("strong", { text: origin })] : []));
  }

  // A URL too long for its cell keeps its start and its end, the middle cut ("…"): rows that
  // differ only at the end stay told apart without hovering. Cells wrap at any character in a
  // monospaced font (CSS: word-break: break-all), so a cell holds lines x columns characters.
  const charWidths = new Map(); // a CSS font -> the width of one of its characters
  function charWidth(node) {
    const font = getComputedStyle(node).font;
    if (!charWidths.has(font)) {
      const ctx = document.createElement("canvas").getContext("2d");
      ctx.font = font;
      charWidths.set(font, ctx.measureText("0123456789").width / 10 || 7.5);
    }
    return charWidths.get(font);
  }
  function clampText(node, lines) {
    const full = node.dataset.full;
    if (full === undefined || !node.clientWidth) return;
    const perLine = Math.max(4, Math.floor(node.clientWidth / charWidth(node)) - 1);
    const room = perLine * lines;
    let text = full;
    if (full.length > room) {
      const tail = Math.min(Math.ceil(room / 3), 40);
      text = full.slice(0, room - tail - 1) + "…" + full.slice(full.length - tail);
    }
    if (node.textContent !== text) node.textContent = text;
  }

  function renderResults(checked) {
    lastChecked = checked;
    const byKey = new Map(checked.results.map((r) => [`${r.agent}\u0000${r.url}`, r]));
    for (const [agent, token] of Object.entries(checked.tokens || {})) tokens.set(agent, token);
    renderAgents();
    const origin = sharedOrigin(checked.urls);
    showOrigin(ui.urlOrigin, origin);
    const head = el("tr", {}, el("th", { class: "url-col", text: origin ? "Path" : "URL" }));
    for (const agent of checked.agents) {
      const info = known.get(agent.toLowerCase());
      head.append(el("th", { class: "agent", text: shortAgent(agent), title: info ? `${agent}: ${info.name} · ${info.operator} · ${info.description}` : agent }));
    }
    head.append(el("th", { class: "diff-col", text: "Dialects", title: "Do RFC 9309, Google and 1994 agree?" }));
    const rows = [];
    const blocked = new Map(checked.agents.map((a) => [a, 0]));
    for (const url of checked.urls) {
      const shown = shownUrl(url, origin);
      const row = el("tr", {}, el("th", { class: "url", scope: "row", title: url }, el("span", { class: "u", text: shown, "data-full": shown })));
      const differs = [];
      for (const agent of checked.agents) {
        const result = byKey.get(`${agent}\u0000${url}`);
        row.append(renderCell(result));
        if (result && !result.verdict.allowed) blocked.set(agent, blocked.get(agent) + 1);
        if (result && result.dialects_disagree) differs.push(result);
      }
      const diff = el("td", { class: "diff" });
      if (differs.length) {
        row.classList.add("disagree");
        diff.append(el("span", { class: "flag", text: "≠", title: "The dialects disagree here" }));
        // Agents the dialects split the same way share one line.
        const groups = new Map();
        for (const result of differs) {
          const key = DIALECTS.map((d) => (result.dialects[d].allowed ? "a" : "b")).join("");
          if (!groups.has(key)) groups.set(key, []);
          groups.get(key).push(result);
        }
        for (const members of groups.values()) {
          const result = members[0];
          const names = members.map((m) => shortAgent(m.agent)).join(", ");
          const line = el("div", { class: "diff-line" }, el("strong", { text: names, title: members.map((m) => m.agent).join("\n") }));
          for (const d of DIALECTS) {
            const v = result.dialects[d];
            const where = v.line === null ? "" : ` (line ${v.line})`;
            line.append(el("span", {
              class: "dialect " + (v.allowed ? "allow" : "block"),
              text: `${DIALECT_NAMES[d]} ${v.allowed ? "allows" : "blocks"}`,
              title: `${DIALECT_NAMES[d]}: ${v.allowed ? "allowed" : "blocked"}${where}`,
            }));
          }
          diff.append(line);
        }
      } else {
        diff.append(el("span", { class: "agree", text: "agree" }));
      }
      row.append(diff);
      rows.push(row);
    }
    ui.results.tHead.replaceChildren(head);
    ui.results.tBodies[0].replaceChildren(...rows);
    const empty = !checked.urls.length || !checked.agents.length;
    ui.results.hidden = empty;
    ui.empty.hidden = !empty;
    fitResults(); // once shown: a hidden table has no widths to fit
    ui.summary.replaceChildren(...(empty ? [] : checked.agents.map((agent) => {
      const n = blocked.get(agent);
      const kind = n === 0 ? "allow" : n === checked.urls.length ? "block" : "mixed";
      return el("span", { class: "tally " + kind, title: agent },
        el("strong", { text: shortAgent(agent) }),
        ` ${n ? "blocked from" : "may fetch"} ${n || "all"} of ${checked.urls.length} URL${checked.urls.length === 1 ? "" : "s"}`);
    })));
  }

  // The URL column gets the width its longest URL needs, up to what the crawler columns leave at
  // their narrowest; the Dialects column is narrow while the dialects agree everywhere. Narrow
  // crawler columns switch the table to compact cells instead of scrolling sideways.
  const MIN_CELL = 118;
  const MIN_COMPACT = 56;
  const MIN_URL = 110;
  const NARROW = window.matchMedia("(max-width: 640px)");
  function fitResults() {
    const table = ui.results;
    const total = table.parentElement.clientWidth;
    const agents = table.querySelectorAll("thead th.agent");
    table.classList.remove("compact");
    // Hidden, there is nothing to fit; on a phone the rows are cards with room for the words.
    if (!agents.length || !total) return;
    if (!NARROW.matches) {
      const urlCol = table.querySelector("thead th.url-col");
      const diffCol = table.querySelector("thead th.diff-col");
      const cells = [...table.querySelectorAll("tbody th.url .u")];
      const longest = Math.max(0, ...cells.map((u) => u.dataset.full.length));
      const need = Math.max(MIN_URL, Math.ceil((longest + 1) * charWidth(cells[0] || urlCol)) + 22);
      const diffWidth = table.querySelector("tbody tr.disagree") ? 124 : 70;
      const compact = total - diffWidth - agents.length * MIN_CELL < Math.min(need, total * 0.35);
      const room = total - diffWidth - agents.length * (compact ? MIN_COMPACT : MIN_CELL);
      urlCol.style.width = `${Math.max(MIN_URL, Math.min(need, room, total * 0.5))}px`;
      diffCol.style.width = `${diffWidth}px`;
      table.classList.toggle("compact", compact);
    }
    for (const u of table.querySelectorAll("tbody th.url .u")) clampText(u, 3);
  }
  window.addEventListener("resize", () => {
    fitResults();
    clampUsage();
  });

  function renderCell(result) {
    const cell = el("td", { class: "cell" });
    if (!result) return cell;
    cell.dataset.label = shortAgent(result.agent); // the column's name, shown on narrow screens
    const v = result.verdict;
    const button = el("button", {
      type: "button",
      class: "verdict " + (v.allowed ? "allow" : "block"),
      title: (v.detail || describe(v)) + (v.path !== result.url ? ` (matched as ${v.path})` : ""),
      "data-line": v.line === null ? "" : String(v.line),
      "data-agent": result.agent,
      "data-url": result.url,
    },
    el("span", { class: "pill " + (v.allowed ? "allow" : "block") },
      el("span", { class: "long", text: v.allowed ? "Allowed" : "Blocked" }),
      el("span", { class: "short", "aria-hidden": "true", text: v.allowed ? "✓" : "✕" })),
    result.dialects_disagree ? el("span", { class: "flag small", text: "≠" }) : null,
    el("span", { class: "rule", text: describe(v) }),
    el("span", { class: "rule-short", "aria-hidden": "true", text: v.line === null ? "–" : `L${v.line}` }));
    button.addEventListener("click", () => {
      for (const other of ui.results.querySelectorAll(".verdict.active")) other.classList.remove("active");
      button.classList.add("active");
      if (v.line !== null) highlightLine(v.line);
      else {
        selectedLine = null;
        renderEditor();
      }
    });
    cell.append(button);
    return cell;
  }

  // ---- agents ---------------------------------------------------------------------------------

  function renderAgents() {
    const chips = state.agents.map((agent, index) => {
      const info = known.get(agent.toLowerCase());
      const chip = el("span", { class: "chip", title: info ? `${agent}: ${info.name} · ${info.operator}` : agent },
        el("span", { class: "chip-name", text: shortAgent(agent) }),
        el("button", { type: "button", class: "remove", text: "×", title: `Remove ${agent}`, "aria-label": `Remove ${agent}` }));
      chip.querySelector(".remove").addEventListener("click", () => {
        state.agents.splice(index, 1);
        renderAgents();
        schedule();
      });
      return chip;
    });
    ui.agents.replaceChildren(...chips);
  }

  // Several agents may be added at once, comma-separated; a comma inside parentheses belongs to
  // a whole User-Agent header ("(KHTML, like Gecko; compatible; ClaudeBot/1.0)").
  function splitAgents(raw) {
    const names = [];
    let depth = 0;
    let name = "";
    for (const c of raw) {
      if (c === "(") depth++;
      else if (c === ")") depth = Math.max(0, depth - 1);
      if (c === "," && depth === 0) {
        names.push(name);
        name = "";
      } else name += c;
    }
    names.push(name);
    return names.map((s) => s.trim()).filter(Boolean);
  }

  function addAgent(raw) {
    for (const name of splitAgents(raw)) {
      if (!state.agents.some((a) => a.toLowerCase() === name.toLowerCase())) state.agents.push(name);
    }
    renderAgents();
    schedule();
  }

  async function loadSyntax() {
    try {
      const { keys } = await tracked(async () => (await fetch("/api/syntax")).json());
      syntaxKeys = new Map(Object.entries(keys));
      drawn = { full: false, lines: [], layer: null, numbers: null }; // colour every line anew
      renderEditor();
    } catch (_) {
      /* no colours: the editor still works */
    }
  }

  // Wrapped lines change height with the width: draw the editor again after a resize.
  let resizeTimer = null;
  window.addEventListener("resize", () => {
    clearTimeout(resizeTimer);
    resizeTimer = setTimeout(renderEditor, 100);
  });

  async function loadKnownAgents() {
    try {
      const { agents } = await tracked(async () => (await fetch("/api/agents")).json());
      known = new Map(agents.map((a) => [a.token.toLowerCase(), a]));
      ui.knownList.replaceChildren(...agents.map((a) => el("option", { value: a.token, label: `${a.name} (${a.operator})` })));
      const groups = new Map();
      for (const a of agents) {
        const label = CATEGORIES[a.category] || a.category;
        if (!groups.has(a.category)) groups.set(a.category, el("optgroup", { label }));
        groups.get(a.category).append(el("option", { value: a.token, text: `${a.token} · ${a.operator}` }));
      }
      ui.agentPick.append(...groups.values());
      ui.agentPick.hidden = agents.length === 0;
      renderAgents();
    } catch (_) {
      ui.agentPick.hidden = true;
    }
  }

  // ---- wiring ---------------------------------------------------------------------------------

  function applyState(next) {
    state = next;
    ui.robots.value = state.robots_txt;
    ui.urls.value = state.urls.join("\n");
    for (const radio of document.querySelectorAll('input[name="dialect"]')) {
      radio.checked = radio.value === state.dialect;
    }
    for (const radio of document.querySelectorAll('input[name="scope"]')) {
      radio.checked = radio.value === state.scope;
    }
    ui.vocabulary.value = state.vocabulary;
    ui.policyTokens.value = state.policy_tokens.join(", ");
    selectedLine = null;
    renderAgents();
    renderEditor();
    refresh();
  }

  function setSource(text, kind = "") {
    ui.source.textContent = text;
    ui.source.className = "source" + (kind ? " " + kind : "");
    ui.source.hidden = !text;
  }

  function setFile(text) {
    ui.robots.value = text;
    state.robots_txt = text;
    selectedLine = null;
    renderEditor();
    schedule();
  }

  ui.robots.addEventListener("input", () => {
    state.robots_txt = ui.robots.value;
    selectedLine = null;
    renderEditor();
    schedule();
  });
  ui.robots.addEventListener("scroll", syncScroll);
  ui.urls.addEventListener("input", () => {
    state.urls = ui.urls.value.split("\n").map((s) => s.trim()).filter(Boolean);
    schedule();
  });
  for (const radio of document.querySelectorAll('input[name="dialect"]')) {
    radio.addEventListener("change", () => {
      state.dialect = radio.value;
      schedule();
    });
  }
  for (const radio of document.querySelectorAll('input[name="scope"]')) {
    radio.addEventListener("change", () => {
      state.scope = radio.value;
      saveHash().catch(() => {});
      refreshViews();
    });
  }
  ui.vocabulary.addEventListener("change", () => {
    state.vocabulary = ui.vocabulary.value;
    saveHash().catch(() => {});
    refreshViews();
  });
  ui.policyTokens.addEventListener("change", () => {
    state.policy_tokens = ui.policyTokens.value.split(/[,\n]/).map((s) => s.trim()).filter(Boolean);
    saveHash().catch(() => {});
    refreshViews();
  });
  ui.agentInput.addEventListener("keydown", (event) => {
    if (event.key === "Enter") {
      event.preventDefault();
      addAgent(ui.agentInput.value);
      ui.agentInput.value = "";
    }
  });
  ui.agentAdd.addEventListener("click", () => {
    addAgent(ui.agentInput.value);
    ui.agentInput.value = "";
  });
  ui.agentPick.addEventListener("change", () => {
    if (ui.agentPick.value) addAgent(ui.agentPick.value);
    ui.agentPick.value = "";
  });

  ui.upload.addEventListener("change", () => {
    const file = ui.upload.files[0];
    if (!file) return;
    if (file.size > MAX_FILE) {
      setStatus(`${file.name} is ${formatBytes(file.size)}; the tester takes up to ${formatBytes(MAX_FILE)}.`, "error");
      return;
    }
    file.text().then((text) => {
      setFile(text);
      setSource(`Opened ${file.name} (${formatBytes(file.size)}), read in this browser`);
    });
    ui.upload.value = "";
  });

  // ---- the one-box live test: a page URL, its host's robots.txt, the answer -----------------

  function fetchedFile(result) {
    // A fetched file goes into the editor and becomes the base of the Changes tab.
    fetched = { url: result.final_url, text: result.robots_txt };
    setTab("tab-diff", { enable: true });
    setFile(result.robots_txt);
    setSource(`Fetched ${result.final_url}: ${result.summary || "HTTP " + result.status}`, "ok");
  }

  function renderLive(result) {
    const f = result.fetch;
    ui.live.hidden = false;
    ui.live.className = "live " + (result.answers.every((a) => a.allowed) ? "allow" : result.answers.every((a) => !a.allowed) ? "block" : "mixed");
    ui.livePage.textContent = result.url;
    ui.livePage.title = result.url;
    ui.liveSource.textContent = `${f.robots_url} · ${f.status === null ? "no HTTP answer" : "HTTP " + f.status} · ${f.transcript.meaning}`;
    ui.liveAnswers.replaceChildren(...result.answers.map((a) => {
      const item = el("li", { "data-agent": a.agent, "data-allowed": String(a.allowed) },
        el("span", { class: "pill " + (a.allowed ? "allow" : "block"), text: a.allowed ? "Allowed" : "Blocked" }),
        el("strong", { text: shortAgent(a.agent), title: a.agent }),
        el("span", { class: "live-why", text: a.why, title: a.why }));
      if (a.line !== null) {
        const b = el("button", { type: "button", class: "line-link", text: `line ${a.line}`, title: `Show line ${a.line} in the editor` });
        b.addEventListener("click", () => highlightLine(a.line));
        item.append(b);
      }
      return item;
    }));
  }

  ui.liveForm.addEventListener("submit", async (event) => {
    event.preventDefault();
    const url = ui.liveUrl.value.trim();
    if (!url) return;
    ui.live.hidden = false;
    ui.live.className = "live";
    ui.livePage.textContent = url;
    ui.liveSource.textContent = "Fetching its robots.txt…";
    ui.liveAnswers.replaceChildren();
    try {
      const result = await post("/api/live", { url, agents: state.agents, dialect: state.dialect });
      renderTranscript(result.fetch);
      for (const [agent, token] of Object.entries((result.check && result.check.tokens) || {})) tokens.set(agent, token);
      if (result.fetch.outcome === "rules") {
        fetchedFile(result.fetch);
        // The editor now holds this origin's file: URLs of other origins would be judged by
        // a file that is not theirs, so they leave the list; paths and this origin's stay.
        const origin = sharedOrigin([result.url]);
        const kept = state.urls.filter((u) => u !== result.url && [null, origin].includes(sharedOrigin([u])));
        state.urls = [result.url, ...kept];
        ui.urls.value = state.urls.join("\n");
        schedule();
      } else setSource(`Could not use ${result.fetch.robots_url}: ${result.fetch.summary}. The editor keeps your draft.`, "error");
      renderLive(result);
    } catch (error) {
      ui.live.className = "live error";
      ui.liveSource.textContent = `Live test refused or failed: ${error.message}`;
    }
  });

  // ---- sitemaps: fetched and checked by the server, through the same guard ------------------

  const SITEMAP_KINDS = {
    urlset: "XML sitemap", sitemapindex: "sitemap index", feed: "RSS/Atom feed",
    text: "text sitemap", html: "an HTML page, not a sitemap", unknown: "not a sitemap format",
  };

  function renderSitemaps(answer) {
    ui.sitemapsMeta.textContent = answer.total === 0
      ? "The file names no absolute Sitemap URL (a relative one is a lint finding: crawlers ignore it)."
      : `${answer.sitemaps.filter((m) => m.ok).length} of ${answer.sitemaps.length} checked look right` +
        (answer.total > answer.sitemaps.length ? ` (the first ${answer.sitemaps.length} of ${answer.total})` : "");
    ui.sitemaps.replaceChildren(...answer.sitemaps.map((m) => {
      let what;
      if (m.error) what = m.error;
      else {
        const kind = SITEMAP_KINDS[m.kind] || m.kind;
        const entries = m.kind === "html" || m.kind === "unknown" ? "" : ` · ${m.entries} entr${m.entries === 1 ? "y" : "ies"}${m.complete ? "" : ` in the first ${formatBytes(m.bytes_read)}`}`;
        what = `HTTP ${m.status} · ${kind}${m.gzip ? " (gzip)" : ""}${entries}${m.content_type ? ` · ${m.content_type}` : ""}`;
      }
      return el("li", { class: "sitemap " + (m.ok ? "ok" : "bad"), "data-url": m.url },
        el("span", { class: "pill " + (m.ok ? "allow" : "block"), text: m.ok ? "OK" : "Problem" }),
        el("span", { class: "sm-url", text: m.url, title: m.final_url && m.final_url !== m.url ? `${m.url} → ${m.final_url}` : m.url }),
        el("span", { class: "sm-what", text: what }));
    }));
  }

  ui.sitemapsCheck.addEventListener("click", async () => {
    ui.sitemapsMeta.textContent = "Fetching…";
    ui.sitemaps.replaceChildren();
    try {
      renderSitemaps(await post("/api/sitemaps", { robots_txt: state.robots_txt, dialect: state.dialect }));
    } catch (error) {
      ui.sitemapsMeta.textContent = `Sitemap check refused or failed: ${error.message}`;
    }
  });

  // ---- CSV export of the verdicts ----------------------------------------------------------

  // A cell a spreadsheet would run as a formula starts with a quote (OWASP's CSV injection
  // advice); every cell is quoted, quotes doubled (RFC 4180).
  const csvCell = (value) => {
    let text = value === null || value === undefined ? "" : String(value);
    if (/^[=+\-@\t\r]/.test(text)) text = "'" + text;
    return `"${text.replace(/"/g, '""')}"`;
  };

  function verdictsCsv(checked) {
    const head = ["url", "agent", "dialect", "verdict", "line", "directive", "pattern", "reason", "detail",
      ...DIALECTS.map((d) => `${d}_verdict`), "dialects_disagree"];
    const rows = checked.results.map((r) => [r.url, r.agent, checked.dialect,
      r.verdict.allowed ? "allowed" : "blocked", r.verdict.line, r.verdict.directive, r.verdict.pattern,
      r.verdict.reason, r.verdict.detail,
      ...DIALECTS.map((d) => (r.dialects[d].allowed ? "allowed" : "blocked")), r.dialects_disagree]);
    return [head, ...rows].map((row) => row.map(csvCell).join(",")).join("\r\n") + "\r\n";
  }

  function saveFile(name, text, type) {
    const blob = new Blob([text], { type });
    const link = el("a", { href: URL.createObjectURL(blob), download: name });
    document.body.append(link);
    link.click();
    link.remove();
    setTimeout(() => URL.revokeObjectURL(link.href), 10_000);
  }

  ui.exportCsv.addEventListener("click", () => {
    if (!lastChecked || !lastChecked.results.length) {
      setStatus("Nothing to export yet: add URLs and crawlers.", "error");
      return;
    }
    saveFile("robots-verdicts.csv", verdictsCsv(lastChecked), "text/csv;charset=utf-8");
  });

  // ---- the file's tabs: lint findings, fetch transcript, changes against the fetched file ------

  // Each tab list (the file's views on the left, the answers on the right) switches its own panes.
  function setTab(id, { enable = false, select = false } = {}) {
    const tab = $(id);
    if (enable) tab.disabled = false;
    if (!select) return;
    for (const other of tab.parentElement.querySelectorAll('[role="tab"]')) {
      const on = other === tab;
      other.setAttribute("aria-selected", String(on));
      $(other.getAttribute("aria-controls")).hidden = !on;
    }
    if (id === "tab-diff") scheduleDiff(0);
    if (tab.parentElement === ui.exportCsv.parentElement) ui.exportCsv.hidden = id !== "tab-verdicts";
    if (id === "tab-verdicts") fitResults();
    if (id === "tab-ai" || id === "tab-registry") refreshViews();
  }
  for (const tab of ui.tabs) tab.addEventListener("click", () => setTab(tab.id, { select: true }));

  function renderTranscript(result) {
    const t = result.transcript || {};
    const rows = [];
    const row = (term, ...values) => rows.push(el("dt", { text: term }), el("dd", {}, ...values));
    row("Asked for", result.robots_url);
    for (const hop of t.redirects || []) row(`Redirect ${hop.status}`, `${hop.url} →`);
    row("Status", result.status === null ? "no HTTP answer" : `HTTP ${result.status}`,
      t.error ? el("span", { class: "muted", text: ` (${t.error})` }) : null);
    row("Final URL", result.final_url);
    const connected = (t.hops || []).filter((h) => h.connected).map((h) => `${new URL(h.url).host} → ${h.connected}`);
    if (connected.length) row("Connected to", connected.join(", "));
    row("Size", `${formatBytes(result.size)} (${result.size} bytes)`,
      result.truncated ? el("strong", { text: ` · cut at ${formatBytes(t.max_bytes)} (RFC 9309 2.5)` }) : null);
    row("RFC 9309", t.meaning || result.outcome);
    if (result.outcome === "rules") row("Parsed", `${t.lines} lines · ${t.groups} groups · ${t.rules} rules`);
    row("Summary", result.summary || "");
    const headers = Object.entries(t.headers || {});
    if (headers.length) {
      const table = el("table", { class: "headers" }, el("tbody", {}, ...headers.map(([k, v]) =>
        el("tr", {}, el("th", { text: k }), el("td", { text: v })))));
      row("Headers", table);
    }
    ui.transcript.replaceChildren(...rows);
    setTab("tab-transcript", { enable: true, select: true });
  }

  let diffScheduled = false;
  function scheduleDiff(delay = DEBOUNCE_MS) {
    if (!fetched) return;
    clearTimeout(diffTimer);
    if (!diffScheduled) busy(1);
    diffScheduled = true;
    diffTimer = setTimeout(renderDiff, delay);
  }

  async function renderDiff() {
    if (diffScheduled) busy(-1);
    diffScheduled = false;
    if (!fetched) return;
    const base = fetched;
    const after = state.robots_txt;
    try {
      const result = await post("/api/diff", { before: base.text, after });
      if (base !== fetched || after !== state.robots_txt) return;
      ui.diffCount.textContent = String(result.added + result.removed);
      ui.diffMeta.textContent = result.identical
        ? `No changes against ${base.url}.`
        : `Against ${base.url}: ${result.added} line(s) added, ${result.removed} removed.`;
      const lines = result.identical ? [] : result.diff.split("\n");
      ui.diff.replaceChildren(...lines.map((line) => {
        const kind = line.startsWith("@@") ? "hunk" : line.startsWith("+++") || line.startsWith("---") ? "file"
          : line.startsWith("+") ? "add" : line.startsWith("-") ? "del" : "same";
        return el("span", { class: "d-" + kind, text: line + "\n" });
      }));
    } catch (error) {
      ui.diffMeta.textContent = `Diff unavailable: ${error.message}`;
    }
  }

  // ---- AI preferences and crawlers by purpose: asked for only while their tab is shown ---------

  async function refreshViews() {
    const mine = ++viewSequence;
    const stale = () => mine !== viewSequence;
    const body = { robots_txt: state.robots_txt, dialect: state.dialect };
    if (!ui.paneAi.hidden) {
      ui.usage.setAttribute("aria-busy", "true");
      try {
        const ask = { ...body, urls: state.urls, agents: state.agents, scope: state.scope, vocabulary: state.vocabulary };
        if (state.policy_tokens.length) ask.policy_tokens = state.policy_tokens;
        const usage = await post("/api/usage", ask);
        if (!stale()) renderUsage(usage);
      } catch (error) {
        if (!stale()) showUsageError(error.message);
      }
    }
    if (!ui.paneRegistry.hidden) {
      try {
        const overview = await post("/api/agents", body);
        if (!stale()) renderRegistry(overview);
      } catch (error) {
        if (!stale()) ui.registryMeta.textContent = `Overview unavailable: ${error.message}`;
      }
    }
  }

  const TRI = (value) => (value === true ? ["allow", "yes"] : value === false ? ["block", "no"] : ["unknown", "–"]);

  function lineButtons(lines) {
    const wrap = el("span", { class: "u-linelist" });
    for (const n of lines) {
      const b = el("button", { type: "button", class: "line-link", text: String(n), title: `Show line ${n} in the editor` });
      b.addEventListener("click", () => highlightLine(n));
      wrap.append(b);
    }
    return wrap;
  }

  function showUsageError(message) {
    ui.usage.removeAttribute("aria-busy");
    ui.usage.tBodies[0].replaceChildren();
    ui.usage.hidden = true;
    ui.usageEmpty.hidden = false;
    ui.usageEmpty.textContent = `AI preferences unavailable: ${message}`;
  }

  // The file's other usage signals, in words (vocabulary, use=, RSL licences, policy-token groups).
  function signalsText(usage) {
    const s = usage.signals;
    if (!s) return "";
    const parts = [usage.vocabulary];
    if (s.use.length) parts.push(`Content-Signal use=${s.use.join("/")}`);
    if (s.licenses.length) parts.push(`RSL licence: ${s.licenses.join(", ")}`);
    const tokens = Object.entries(usage.policy_tokens || {});
    if (tokens.length) parts.push(`policy tokens: ${tokens.map(([t, c]) => `${t}=${c}`).join(", ")}`);
    if (s.policy_groups.length) parts.push(`policy-token groups: ${s.policy_groups.map((g) => `${g.token} (${g.category}, line ${g.line})`).join(", ")}`);
    return " · " + parts.join(" · ");
  }

  function renderUsage(usage) {
    ui.usage.removeAttribute("aria-busy");
    const scopeText = usage.scope === "file" ? "Content-Signal lines apply file-wide" : "Content-Signal lines apply per group";
    const stated = usage.results.filter((r) => Object.values(r.categories).some((v) => v !== null)).length;
    ui.usageMeta.textContent = `${scopeText} · ${stated} of ${usage.results.length} with preferences · ${DIALECT_NAMES[usage.dialect]}${signalsText(usage)}`;
    const empty = !usage.results.length;
    ui.usage.hidden = empty;
    ui.usageEmpty.hidden = !empty;
    ui.usageEmpty.textContent = empty ? "Add URLs and crawlers to see their AI usage preferences." : "";
    const origin = sharedOrigin(usage.urls);
    showOrigin(ui.usageOrigin, origin);
    ui.usage.tHead.replaceChildren(el("tr", {},
      el("th", { class: "u-path", text: origin ? "Path" : "URL" }),
      el("th", { text: "crawl", title: "May the crawler fetch it (Allow/Disallow)?" }),
      ...usage.columns.map((c) => el("th", { text: c, title: COLUMN_TITLES[c] || c, "data-col": c })),
      el("th", { class: "u-lines", text: "lines", title: "The lines that decided" })));
    const rows = [];
    for (const agent of usage.agents) {
      const info = known.get(agent.toLowerCase());
      rows.push(el("tr", { class: "u-agent" }, el("th", { colSpan: usage.columns.length + 3, scope: "rowgroup" },
        el("strong", { text: agent }), info ? el("span", { class: "muted", text: ` ${info.operator} · ${info.name}` }) : null)));
      for (const r of usage.results.filter((x) => x.agent === agent)) {
        const row = el("tr", { class: "u-row", "data-agent": r.agent, "data-url": r.url },
          el("th", { class: "u-path", scope: "row", title: r.url },
            el("span", { class: "u", text: shownUrl(r.url, origin), "data-full": shownUrl(r.url, origin) })));
        const crawl = el("td", { class: "u-crawl", "data-col": "crawl" },
          el("span", { class: "pill " + (r.crawl ? "allow" : "block"), text: r.crawl ? "yes" : "no",
            title: r.crawl_line === null ? "no rule decides" : `line ${r.crawl_line} decides` }));
        row.append(crawl);
        for (const column of usage.columns) {
          const [kind, text] = TRI(r.categories[column]);
          row.append(el("td", { "data-col": column }, el("span", { class: "pill " + kind, text })));
        }
        const lines = el("td", { class: "u-lines", "data-col": "lines" });
        if (r.lines.length) lines.append(lineButtons(r.lines));
        else lines.append(el("span", { class: "muted", text: r.crawl ? "none stated" : "not fetched",
          title: r.crawl ? "no preference line applies" : "preferences attach only to URLs the crawler may fetch" }));
        row.append(lines);
        rows.push(row);
      }
    }
    ui.usage.tBodies[0].replaceChildren(...rows);
    clampUsage();
  }
  const clampUsage = () => {
    for (const u of ui.usage.querySelectorAll("tbody th.u-path .u")) clampText(u, 2);
  };

  function renderRegistry(overview) {
    const c = overview.counts;
    ui.registryMeta.textContent = `${overview.total} well-known crawlers · ${c.blocked} blocked · ${c.partial} partly · ${c.allowed} open · ${DIALECT_NAMES[overview.dialect]}`;
    const sections = overview.purposes.map((group) => {
      const details = el("details", { class: "purpose", "data-purpose": group.purpose });
      details.open = openPurposes.has(group.purpose);
      details.addEventListener("toggle", () => {
        if (details.open) openPurposes.add(group.purpose);
        else openPurposes.delete(group.purpose);
      });
      const n = group.counts;
      details.append(el("summary", {},
        el("span", { class: "p-name", text: PURPOSES[group.purpose] || group.purpose }),
        el("span", { class: "p-total muted", text: `${group.agents.length}` }),
        el("span", { class: "p-counts" },
          el("span", { class: "tag block", "data-count": "blocked", text: `${n.blocked} blocked` }),
          el("span", { class: "tag mixed", "data-count": "partial", text: `${n.partial} partly` }),
          el("span", { class: "tag allow", "data-count": "allowed", text: `${n.allowed} open` }))));
      const list = el("ul", { class: "p-agents" });
      for (const a of group.agents) {
        const kind = a.access === "blocked" ? "block" : a.access === "partial" ? "mixed" : "allow";
        const item = el("li", { "data-token": a.token, "data-access": a.access },
          el("span", { class: "pill " + kind, text: ACCESS[a.access] }),
          el("strong", { text: a.token, title: a.name }),
          el("span", { class: "muted", text: a.operator }));
        const group = a.via === "named" ? "own group" : a.via === "global" ? "* group"
          : a.via === "fallback" ? `${a.group_agents.join(", ")} group` : "no group";
        const where = el("span", { class: "p-detail", text: group, title: a.detail,
          "data-group-line": a.group_line === null ? "" : String(a.group_line) });
        item.append(where);
        if (a.line !== null) {
          const b = el("button", { type: "button", class: "line-link", text: `line ${a.line}`, title: `Show line ${a.line} in the editor` });
          b.addEventListener("click", () => highlightLine(a.line));
          item.append(b);
        }
        list.append(item);
      }
      details.append(list);
      return details;
    });
    ui.registry.replaceChildren(...sections);
  }

  ui.download.addEventListener("click", () => saveFile("robots.txt", state.robots_txt, "text/plain;charset=utf-8"));

  ui.share.addEventListener("click", async () => {
    await saveHash();
    try {
      await navigator.clipboard.writeText(location.href);
      setStatus("Share link copied: everything is in the #fragment, nothing was uploaded.", "ok");
    } catch (_) {
      window.prompt("Copy this link:", location.href);
    }
  });

  window.addEventListener("hashchange", async () => {
    if (location.hash === ownHash) return;
    const next = await decodeState(location.hash).catch(() => null);
    if (next) applyState(next);
  });

  async function start() {
    let initial = null;
    if (location.hash.length > 1) {
      initial = await decodeState(location.hash).catch(() => null);
      if (!initial) setSource("This link's state could not be read; showing the example.", "error");
    }
    applyState(initial || { ...DEFAULT_STATE, urls: [...DEFAULT_STATE.urls], agents: [...DEFAULT_STATE.agents] });
    loadKnownAgents();
    loadSyntax();
  }

  start();
})();
