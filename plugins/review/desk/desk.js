// The reviewer's desk. One file, no build step, served two ways: over HTTP (tool calls go to
// POST <api>/api/call with the page's CSRF token) and as an MCP App (tool calls go through the
// host's postMessage bridge as JSON-RPC tools/call). Every record string is untrusted upstream
// text: it reaches the page through textContent only, never as markup.
"use strict";

(function () {
  const $ = (id) => document.getElementById(id);
  const meta = (name) => {
    const el = document.querySelector('meta[name="' + name + '"]');
    return el ? el.getAttribute("content") || "" : "";
  };
  const mode = meta("medlit-mode") || (window.parent !== window ? "app" : "http");
  const FINAL = "final";
  const REASONS = {
    wrong_population: "Wrong population", wrong_intervention: "Wrong intervention or exposure",
    wrong_comparator: "Wrong comparator", wrong_outcome: "Wrong outcome",
    wrong_study_design: "Wrong study design", wrong_publication_type: "Wrong publication type",
    wrong_setting: "Wrong setting", language: "Language", duplicate: "Duplicate report",
    retracted: "Retracted", not_retrievable: "Report not retrievable", other: "Other reason",
  };

  // -- talking to the server -------------------------------------------------------------------
  let nextId = 1;
  const pending = new Map();

  function bridge(method, params) {
    const id = nextId++;
    return new Promise((resolve, reject) => {
      pending.set(id, { resolve, reject });
      window.parent.postMessage({ jsonrpc: "2.0", id, method, params }, "*");
    });
  }

  window.addEventListener("message", (event) => {
    if (mode !== "app" || event.source !== window.parent) return;
    const msg = event.data;
    if (!msg || msg.jsonrpc !== "2.0" || !pending.has(msg.id)) return;
    const waiter = pending.get(msg.id);
    pending.delete(msg.id);
    if (msg.error) waiter.reject(new Error(msg.error.message || "The host refused the call."));
    else waiter.resolve(msg.result);
  });

  async function call(tool, args) {
    if (mode === "app") {
      const result = await bridge("tools/call", { name: tool, arguments: args });
      const error = result && result._meta ? result._meta["medlit/error"] : null;
      const text = (result.content || []).filter((c) => c.type === "text").map((c) => c.text).join("\n");
      return { ok: !result.isError, data: result.structuredContent || null, text, error: error || (result.isError ? { message: text } : null) };
    }
    const response = await fetch(meta("medlit-api") + "/api/call", {
      method: "POST",
      credentials: "same-origin",
      headers: { "Content-Type": "application/json", "X-CSRF-Token": meta("medlit-csrf") },
      body: JSON.stringify({ tool, arguments: args }),
    });
    const answer = await response.json();
    if (response.status === 401) say("Signed out: reload the page to sign in again.");
    return answer;
  }

  async function readResource(uri) {
    if (mode === "app") {
      const result = await bridge("resources/read", { uri });
      return (result.contents || []).map((c) => c.text || "").join("");
    }
    const response = await fetch(meta("medlit-api") + "/api/resource?uri=" + encodeURIComponent(uri), { credentials: "same-origin" });
    if (!response.ok) throw new Error("The file could not be read.");
    return response.text();
  }

  async function tool(name, args) {
    const answer = await call(name, args);
    if (!answer.ok) {
      const e = answer.error || {};
      say((e.message || "The call failed.") + (e.recovery ? " " + e.recovery : ""));
      return null;
    }
    return answer.data;
  }

  // -- small DOM helpers (text only) -----------------------------------------------------------
  function el(tag, text, cls) {
    const node = document.createElement(tag);
    if (text !== undefined && text !== null) node.textContent = String(text);
    if (cls) node.className = cls;
    return node;
  }
  function clear(node) { while (node.firstChild) node.removeChild(node.firstChild); return node; }
  function say(text) { $("status").textContent = text; }
  function button(label, onClick, attrs) {
    const b = el("button", label);
    b.type = "button";
    b.addEventListener("click", onClick);
    for (const [k, v] of Object.entries(attrs || {})) b.setAttribute(k, v);
    return b;
  }
  function escapeRegExp(s) { return s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"); }

  // The text with the set's terms marked: the text is split around matches, each piece a text node.
  function highlighted(text, include, exclude) {
    const frag = document.createDocumentFragment();
    const terms = include.map((t) => [t, "inc"]).concat(exclude.map((t) => [t, "exc"])).filter(([t]) => t.length > 1);
    if (!text || terms.length === 0) { frag.appendChild(document.createTextNode(text || "")); return frag; }
    const kinds = new Map(terms.map(([t, k]) => [t.toLowerCase(), k]));
    const pattern = new RegExp("(" + terms.map(([t]) => escapeRegExp(t)).join("|") + ")", "gi");
    let last = 0;
    for (const m of text.matchAll(pattern)) {
      frag.appendChild(document.createTextNode(text.slice(last, m.index)));
      const kind = kinds.get(m[0].toLowerCase()) || "inc";
      const mark = el("mark", m[0], kind);
      mark.title = kind === "inc" ? "inclusion term" : "exclusion term";
      frag.appendChild(mark);
      last = m.index + m[0].length;
    }
    frag.appendChild(document.createTextNode(text.slice(last)));
    return frag;
  }

  // -- state -----------------------------------------------------------------------------------
  const state = { set: "", reviewer: "", queue: [], index: 0, total: 0, estimate: null, ticket: 0, loading: null, sending: Promise.resolve(), ahead: null, decided: new Set() };
  const stored = (key, fallback) => { try { return localStorage.getItem(key) ?? fallback; } catch (e) { return fallback; } };
  const store = (key, value) => { try { localStorage.setItem(key, value); } catch (e) { /* private mode */ } };
  const terms = (id) => $(id).value.split(",").map((t) => t.trim()).filter(Boolean);

  function reviewer() { return ($("reviewer").value.trim() || meta("medlit-principal") || "reviewer 1").slice(0, 80); }

  // -- sets ------------------------------------------------------------------------------------
  async function loadSets() {
    const data = await tool("review_sets", { action: "list" });
    const select = clear($("set"));
    for (const s of (data && data.sets) || []) {
      const option = el("option", s.set + " (" + s.total + ")");
      option.value = s.set;
      select.appendChild(option);
    }
    if (!select.options.length) { say("No review sets yet: import or search one with the review tools."); return; }
    const remembered = stored("desk.set", "");
    if ([...select.options].some((o) => o.value === remembered)) select.value = remembered;
    await chooseSet(select.value);
  }

  async function chooseSet(name) {
    state.set = name;
    state.queue = []; // nothing of the previous set stays decidable while this one loads
    renderRecord();
    store("desk.set", name);
    const settings = await tool("review_sets", { action: "settings", set: name });
    if (settings && settings.settings) showSettings(settings.settings);
    await showView(currentView);
  }

  // the set's settings live on the server, shared by everyone who screens the set
  function showSettings(s) {
    $("criteria-text").value = s.criteria || "";
    $("terms-include").value = (s.includeTerms || []).join(", ");
    $("terms-exclude").value = (s.excludeTerms || []).join(", ");
    $("blind").checked = Boolean(s.blind);
  }

  // Saves go to the server one at a time, in the order they were made, and only the answer of the
  // last one shows the set's settings: an earlier answer, arriving while the reviewer changed
  // another field, would undo that change on screen (a box ticked meanwhile, unticked again).
  let settingsSaved = Promise.resolve();
  let settingsQueued = 0;

  function saveSetting(id) {
    if (!state.set) return settingsSaved;
    const args = { action: "settings", set: state.set };  // the value as it is now
    if (id === "criteria-text") args.criteria = $("criteria-text").value.trim();
    if (id === "terms-include") args.includeTerms = terms("terms-include").slice(0, 50);
    if (id === "terms-exclude") args.excludeTerms = terms("terms-exclude").slice(0, 50);
    if (id === "blind") args.blind = $("blind").checked;
    settingsQueued += 1;
    settingsSaved = settingsSaved.catch(() => {}).then(async () => {
      let data;
      try {
        data = await tool("review_sets", args);
      } finally {
        settingsQueued -= 1;
      }
      if (!data) return;
      if (settingsQueued === 0) showSettings(data.settings);
      if (id === "blind") say(data.settings.blind ? "Blind screening on: each reviewer sees only their own decisions." : "Blind screening off: conflicts and agreement can be seen.");
      if (id === "criteria-text") await loadQueue();
      else renderRecord();
    });
    return settingsSaved;
  }

  // -- screening -------------------------------------------------------------------------------
  // the queue's load in flight: a decision typed meanwhile waits for it rather than being lost
  function loadQueue() {
    state.loading = fetchQueue().finally(() => { state.loading = null; });
    return state.loading;
  }

  function queueArgs() {
    const args = { set: state.set, order: "priority", undecided: true, reviewer: state.reviewer, stage: "title_abstract", limit: 25, brief: false };
    const criteria = $("criteria-text").value.trim();
    if (criteria) args.criteria = criteria;
    return args;
  }

  // The next page, asked for while a few records are left, so a reviewer never waits for the
  // ranking at the end of a page; records decided meanwhile are left out when it is used.
  function fetchAhead() {
    const set = state.set, ticket = state.ticket;
    state.ahead = call("review_records", queueArgs()).then((answer) => {
      const data = answer.ok ? answer.data : null;
      return data && !data.rankingProgress && set === state.set && ticket === state.ticket ? data : null;
    }, () => null);
  }

  async function useAhead() {
    const ahead = state.ahead;
    state.ahead = null;
    const data = ahead ? await ahead : null;
    const records = data ? (data.records || []).filter((r) => !state.decided.has(r.key)) : [];
    if (!records.length) return false;
    state.queue = records;
    state.index = 0;
    state.total = Math.max(data.total - ((data.records || []).length - records.length), records.length);
    state.estimate = data.screeningEstimate || state.estimate;
    renderRecord();
    renderProgress();
    return true;
  }

  async function fetchQueue() {
    state.reviewer = reviewer();
    if (!state.set) return; // no set yet (the page is still listing them)
    const ticket = ++state.ticket; // a slower answer for an earlier set or reviewer is dropped
    state.ahead = null;
    state.decided = new Set();
    $("record").setAttribute("aria-busy", "true");
    const args = queueArgs();
    let data = await tool("review_records", args);
    // a large set's ranking runs in the server: say how far it is and ask again when it says
    while (data && data.rankingProgress && ticket === state.ticket) {
      const p = data.rankingProgress;
      clear($("record")).appendChild(el("p", "Ranking the set's records by priority: " + p.percent + "% done; the first record in about " + Math.max(p.askAgainSeconds, 1) + " s."));
      await new Promise((r) => setTimeout(r, 1000 * Math.min(Math.max(p.askAgainSeconds, 1), 15)));
      if (ticket !== state.ticket) return;
      data = await tool("review_records", args);
    }
    if (ticket !== state.ticket) return;
    $("record").setAttribute("aria-busy", "false");
    if (!data) return;
    $("record").dataset.set = state.set;
    state.queue = data.records || [];
    state.index = 0;
    state.total = data.total;
    state.estimate = data.screeningEstimate || null;
    renderRecord();
    renderProgress();
  }

  function renderProgress() {
    const e = state.estimate;
    const screened = e ? e.screened : 0;
    const all = screened + state.total;
    $("progress-bar").max = Math.max(all, 1);
    $("progress-bar").value = screened;
    $("progress-text").textContent = screened + " of " + all + " screened" + (e ? ", " + e.includesFound + " includes found" : "");
    $("estimate").textContent = e ? estimateWords(e) : "";
  }

  function estimateWords(e) {
    const left = e.remainingIncludes;
    let words = "About " + left.estimate + " more includes may be among the unscreened records";
    if (left.upper95 !== undefined && left.upper95 !== null) words += " (at most " + left.upper95 + " at 95% confidence)";
    words += ". ";
    if (e.recallEstimate !== null && e.recallEstimate !== undefined) words += "Estimated recall so far: " + Math.round(e.recallEstimate * 100) + "%. ";
    words += e.safeToStop
      ? "The stopping test says 95% of the includes have been found with 95% confidence: you may stop here."
      : "It is not yet safe to stop: keep screening (checking a stopping point means screening a random sample of the rest).";
    return words;
  }

  function renderRecord() {
    const box = clear($("record"));
    const r = state.queue[state.index];
    if (!r) { box.appendChild(el("p", state.set ? "Nothing left to screen for you in this set." : "")); return; }
    const include = terms("terms-include"), exclude = terms("terms-exclude");
    const h = el("h3");
    h.appendChild(highlighted(r.title || "(no title)", include, exclude));
    box.appendChild(h);
    const facts = el("dl", null, "facts");
    const fact = (name, value) => { if (value) { facts.appendChild(el("dt", name)); facts.appendChild(el("dd", value)); } };
    fact("Authors", r.authors);
    fact("Journal", r.journal);
    fact("Year", r.year);
    fact("Sources", (r.sources || []).join(", "));
    fact("PMID", r.pmid);
    fact("DOI", r.doi);
    fact("Key", r.key);
    // what a metadata provider gave at import, not the database's export (review_import fillMissing)
    fact("Filled at import", Object.entries(r.filled || {}).map(([k, v]) => k + " from " + v).join("; "));
    box.appendChild(facts);
    const abs = el("p", null, "abstract");
    abs.appendChild(highlighted(r.abstract || "(no abstract)", include, exclude));
    box.appendChild(abs);
    const mine = (r.decisions || []).filter((d) => d.reviewer === state.reviewer);
    if (mine.length) box.appendChild(el("p", "Your decision: " + mine.map((d) => d.decision).join(", "), "mine"));
  }

  // The next record shows at once; the decision goes to the server behind it, decisions in the
  // order typed. One the server does not record comes back into the queue, said so.
  async function decide(decision) {
    if (!state.queue[state.index]) {
      await state.sending;
      if (state.loading) await state.loading;
    }
    const r = state.queue[state.index];
    if (!r) { say("Nothing to decide: no record is shown."); return; }
    const item = { id: r.key, stage: "title_abstract", decision };
    const reason = $("reason").value.trim();
    if (reason) item.reason = reason;
    $("reason").value = "";
    state.queue.splice(state.index, 1);
    state.total = Math.max(state.total - 1, 0);
    if (state.estimate) { state.estimate.screened += 1; if (decision !== "exclude") state.estimate.includesFound += 1; }
    renderRecord();
    renderProgress();
    const set = state.set;
    state.sending = state.sending.then(() => send(set, r, item));
    await state.sending;
  }

  async function send(set, r, item) {
    const data = await tool("review_screen", { set, reviewer: state.reviewer, decisions: [item] });
    const refused = data && data.refused && data.refused.length ? data.refused[0].reason : "";
    if (set !== state.set) return;
    if (!data || refused) {
      state.queue.splice(state.index, 0, r);
      state.total += 1;
      renderRecord();
      if (refused) say("Not recorded, record " + r.key + ": " + refused + ". It is shown again.");
      return;
    }
    say(item.decision + ": record " + r.key + ".");
    state.decided.add(r.key);
    if (state.queue.length <= 5 && state.queue.length > 0 && !state.ahead) fetchAhead();
    if (state.queue.length === 0 && !(await useAhead())) await loadQueue(); // ranked with this decision in
  }

  function move(step) {
    state.index = Math.min(Math.max(state.index + step, 0), Math.max(state.queue.length - 1, 0));
    renderRecord();
  }

  // -- conflicts -------------------------------------------------------------------------------
  async function loadConflicts() {
    const stage = $("conflict-stage").value;
    const answer = await call("review_records", { set: state.set, conflicts: true, stage, limit: 100 });
    const list = clear($("conflict-list"));
    if (!answer.ok && answer.error && answer.error.reason === "blinded") {
      $("agreement").textContent = "Screening is blind: conflicts and agreement show once blind screening is turned off (Criteria, beside the record).";
      return;
    }
    const data = answer.ok ? answer.data : null;
    if (!data) { say((answer.error && answer.error.message) || "The call failed."); return; }
    $("agreement").textContent = data.total + " record(s) where the reviewers disagree at this stage.";
    $("kappa").textContent = agreementWords(data.agreement || []);
    for (const r of data.records) {
      const item = el("li", null, "card");
      item.appendChild(el("h3", r.title || "(no title)"));
      const table = el("ul", null, "decisions");
      for (const d of (r.decisions || []).filter((x) => x.stage === stage)) {
        table.appendChild(el("li", d.reviewer + ": " + d.decision + (d.reason ? " (" + d.reason + ")" : "")));
      }
      item.appendChild(table);
      for (const decision of ["include", "exclude"]) {
        item.appendChild(button("Resolve: " + decision, async () => {
          const args = { set: state.set, reviewer: FINAL, decisions: [{ id: r.key, stage, decision, ...(stage === "full_text" && decision === "exclude" ? { reasonCategory: "other" } : {}) }] };
          if (await tool("review_screen", args)) { await loadConflicts(); say("Resolved record " + r.key + ": " + decision + "."); }
        }));
      }
      list.appendChild(item);
    }
  }

  function agreementWords(pairs) {
    if (!pairs.length) return "No record was decided by two reviewers at this stage yet.";
    return pairs.map((p) => p.reviewers.join(" and ") + " agree on " + p.percent + "% of the " + p.both + " records both decided"
      + (p.kappa === null || p.kappa === undefined ? " (Cohen's kappa undefined: one decision only)" : "; Cohen's kappa " + p.kappa.toFixed(2) + " (" + kappaWords(p.kappa) + ")")).join(". ") + ".";
  }

  // Landis and Koch's bands, the ones reviews report
  function kappaWords(k) {
    if (k < 0) return "worse than chance";
    if (k <= 0.2) return "slight";
    if (k <= 0.4) return "fair";
    if (k <= 0.6) return "moderate";
    if (k <= 0.8) return "substantial";
    return "almost perfect";
  }

  // -- merges ----------------------------------------------------------------------------------
  async function loadMerges() {
    const data = await tool("review_records", { set: state.set, limit: 200 });
    const list = clear($("merge-list"));
    if (!data) return;
    const merged = data.records.filter((r) => (r.mergedFrom || []).length > 1);
    if (!merged.length) list.appendChild(el("li", "No merged records on this page of the set."));
    for (const r of merged) {
      const item = el("li", null, "card");
      item.appendChild(el("h3", "Record " + r.key + ": " + (r.title || "(no title)")));
      const row = el("div", null, "inputs");
      r.mergedFrom.forEach((input, i) => {
        const box = el("div", null, "input");
        box.appendChild(el("p", input.source + " " + input.id));
        if (input.evidence) box.appendChild(el("p", "Merged because: " + input.evidence, "evidence"));
        if (i > 0) {
          box.appendChild(button("Split off", async () => {
            const args = { set: state.set, action: "split", key: r.key, inputs: [{ source: input.source, id: input.id }], reviewer: reviewer() };
            if (await tool("review_merge", args)) { await loadMerges(); say("Split " + input.source + " " + input.id + " off record " + r.key + "."); }
          }, { "aria-label": "Split " + input.source + " " + input.id + " off this record" }));
        }
        row.appendChild(box);
      });
      item.appendChild(row);
      list.appendChild(item);
    }
  }

  async function joinRecords(event) {
    event.preventDefault();
    const keys = $("join-keys").value.split(/[\s,]+/).filter(Boolean).map(Number);
    if (keys.length < 2 || keys.some((k) => !Number.isSafeInteger(k))) { say("Give two or more record keys to join."); return; }
    const args = { set: state.set, action: "join", keys: keys.slice(0, 20), reviewer: reviewer() };
    const reason = $("join-reason").value.trim();
    if (reason) args.reason = reason;
    const data = await tool("review_merge", args);
    if (!data) return;
    $("join-keys").value = "";
    $("join-reason").value = "";
    say("Joined records " + keys.join(", ") + (data.notice ? ". " + data.notice : "."));
    await loadMerges();
  }

  // -- full text -------------------------------------------------------------------------------
  async function loadFulltext() {
    const data = await tool("review_records", { set: state.set, decision: "include", stage: "title_abstract", limit: 100 });
    const list = clear($("fulltext-list"));
    if (!data) return;
    if (!data.records.length) list.appendChild(el("li", "No title/abstract includes yet."));
    for (const r of data.records) {
      const item = el("li", null, "card");
      item.appendChild(el("h3", r.title || "(no title)"));
      if (r.retrieval) item.appendChild(el("p", "Full text: " + r.retrieval.state + (r.retrieval.tier ? " (" + r.retrieval.tier + ")" : "")));
      const done = (r.decisions || []).filter((d) => d.stage === "full_text");
      if (done.length) item.appendChild(el("p", "Decided: " + done.map((d) => d.reviewer + " " + d.decision).join(", ")));
      const label = el("label", "Exclusion reason");
      const select = el("select");
      select.id = "ft-reason-" + r.key;
      label.htmlFor = select.id;
      for (const [value, text] of Object.entries(REASONS)) { const o = el("option", text); o.value = value; select.appendChild(o); }
      const send = (decision) => async () => {
        const d = { id: r.key, stage: "full_text", decision };
        if (decision === "exclude") d.reasonCategory = select.value;
        if (await tool("review_screen", { set: state.set, reviewer: reviewer(), decisions: [d] })) { await loadFulltext(); say("Full text, record " + r.key + ": " + decision + "."); }
      };
      const reader = el("div", null, "fulltext");
      reader.id = "ft-text-" + r.key;
      if (r.pmcid || r.pmid || r.doi) item.appendChild(button("Read the full text", () => readFulltext(r, reader), { "aria-controls": reader.id }));
      const link = safeLink(r.retrieval && r.retrieval.institutionalLink);
      if (link) { const a = el("a", "Through your library"); a.href = link; a.rel = "noopener noreferrer"; a.target = "_blank"; item.appendChild(a); }
      item.appendChild(reader);
      item.appendChild(button("Include", send("include")));
      item.appendChild(label);
      item.appendChild(select);
      item.appendChild(button("Exclude", send("exclude")));
      list.appendChild(item);
    }
  }

  // only web links leave the page: a record's link is upstream text (never javascript: or data:)
  function safeLink(url) {
    try { const u = new URL(url); return u.protocol === "https:" || u.protocol === "http:" ? u.href : ""; } catch (e) { return ""; }
  }

  // The article through the full-text chain (PMC, Europe PMC, Unpaywall), drawn as text: its
  // sections' headings and paragraphs, and which tier served it; or each tier's outcome.
  async function readFulltext(r, box) {
    clear(box).appendChild(el("p", "Looking for the full text ..."));
    const args = { maxCharacters: 60000, includeAssets: false, includeTables: false };
    if (r.pmcid) args.pmcids = [r.pmcid]; else if (r.pmid) args.pmids = [r.pmid]; else args.dois = [r.doi];
    const data = await tool("pubmed_fetch_fulltext", args);
    clear(box);
    if (!data) { box.appendChild(el("p", "The full text could not be fetched (the status line says why).")); return; }
    const article = (data.articles || [])[0];
    if (!article) {
      const gone = (data.unavailable || [])[0];
      const tiers = gone ? gone.triedTiers.map((t) => t.tier + ": " + t.outcome).join("; ") : "";
      box.appendChild(el("p", "No full text found" + (gone ? " (" + gone.reason + "). " + tiers : ".")));
      return;
    }
    box.appendChild(el("p", "Served by " + article.viaSource + (article.source !== article.viaSource ? " (" + article.source + ")" : "") + ".", "served"));
    if (article.kind === "extracted") { box.appendChild(el("pre", article.content)); return; }
    for (const section of article.sections || []) drawSection(box, section, 4);
  }

  function drawSection(box, section, level) {
    if (section.title) box.appendChild(el("h" + Math.min(level, 6), section.title));
    for (const para of (section.text || "").split(/\n{2,}/)) if (para.trim()) box.appendChild(el("p", para));
    for (const sub of section.subsections || []) drawSection(box, sub, level + 1);
  }

  // -- PRISMA and exports ----------------------------------------------------------------------
  async function loadPrisma() {
    const data = await tool("review_prisma", { set: state.set, format: "svg" });
    const counts = clear($("prisma-counts"));
    const box = clear($("prisma-diagram"));
    if (!data) return;
    for (const [name, value] of Object.entries(data.counts)) {
      if (typeof value !== "number") continue;
      counts.appendChild(el("dt", name));
      counts.appendChild(el("dd", value));
    }
    if (data.uri) {
      const svg = await readResource(data.uri);
      const img = el("img");
      img.alt = "PRISMA 2020 flow diagram of " + state.set;
      img.src = "data:image/svg+xml;charset=utf-8," + encodeURIComponent(svg);
      box.appendChild(img);
    }
  }

  async function exportSet() {
    const args = { set: state.set, format: $("export-format").value };
    if ($("export-decision").value) args.decision = $("export-decision").value;
    const data = await tool("review_export", args);
    const out = clear($("export-result"));
    if (!data) return;
    const text = await readResource(data.uri);
    const name = data.uri.split("/").pop();
    const link = el("a", "Download " + name + " (" + data.records + " records)");
    link.href = URL.createObjectURL(new Blob([text], { type: "text/plain" }));
    link.download = name;
    out.appendChild(link);
    link.focus();
  }

  async function importFile(event) {
    event.preventDefault();
    const file = $("import-file").files[0];
    const set = $("import-set").value.trim();
    if (!file || !set) return;
    say("Importing " + file.name + " ...");
    const args = { set, database: $("import-database").value.trim(), content: await file.text() };
    let data = await tool("review_import", args);
    while (data && data.running) { await new Promise((r) => setTimeout(r, 500)); data = await tool("review_import", args); }
    if (!data) return;
    say("Imported " + data.stored + " records from " + file.name + " (" + data.duplicates + " merged as duplicates); the set has " + data.total + ".");
    await loadSets();
    $("set").value = set;
    state.set = set;
    store("desk.set", set);
  }

  // -- views and keys --------------------------------------------------------------------------
  let currentView = "screen";
  const loaders = { screen: loadQueue, conflicts: loadConflicts, merges: loadMerges, fulltext: loadFulltext, prisma: loadPrisma, exports: async () => {} };

  async function showView(name) {
    currentView = name;
    for (const b of document.querySelectorAll("nav button")) b.setAttribute("aria-pressed", String(b.dataset.view === name));
    for (const v of document.querySelectorAll(".view")) v.hidden = v.id !== "view-" + name;
    if (state.set) await loaders[name]();
  }

  function onKey(event) {
    if (currentView !== "screen" || event.ctrlKey || event.metaKey || event.altKey) return;
    const typing = ["INPUT", "TEXTAREA", "SELECT"].includes(document.activeElement.tagName);
    if (typing) { if (event.key === "Escape") document.activeElement.blur(); return; }
    const actions = { i: () => decide("include"), e: () => decide("exclude"), m: () => decide("maybe"),
      ArrowRight: () => move(1), ArrowLeft: () => move(-1), "?": () => $("help").showModal(), r: () => $("reason").focus() };
    const act = actions[event.key];
    if (act) { event.preventDefault(); act(); }
  }

  async function start() {
    if (mode === "app") {
      await bridge("ui/initialize", { protocolVersion: "2026-01-26", appInfo: { name: "medlit reviewer's desk", version: "1" }, appCapabilities: {} });
      window.parent.postMessage({ jsonrpc: "2.0", method: "ui/notifications/initialized", params: {} }, "*");
    }
    $("reviewer").value = stored("desk.reviewer", meta("medlit-principal"));
    $("reviewer").addEventListener("change", () => { store("desk.reviewer", $("reviewer").value.trim()); if (currentView === "screen" && state.set) loadQueue(); });
    $("set").addEventListener("change", () => chooseSet($("set").value));
    for (const b of document.querySelectorAll("nav button")) b.addEventListener("click", () => showView(b.dataset.view));
    for (const b of document.querySelectorAll("[data-decision]")) b.addEventListener("click", () => decide(b.dataset.decision));
    $("prev").addEventListener("click", () => move(-1));
    $("next").addEventListener("click", () => move(1));
    $("help-open").addEventListener("click", () => $("help").showModal());
    $("help-close").addEventListener("click", () => $("help").close());
    $("decide").addEventListener("submit", (e) => e.preventDefault());
    $("conflict-stage").addEventListener("change", loadConflicts);
    $("export-go").addEventListener("click", exportSet);
    $("import").addEventListener("submit", importFile);
    for (const id of ["criteria-text", "terms-include", "terms-exclude", "blind"]) $(id).addEventListener("change", () => saveSetting(id));
    $("join").addEventListener("submit", joinRecords);
    document.addEventListener("keydown", onKey);
    await loadSets();
  }

  start().catch((err) => say("The desk could not start: " + err.message));
})();
