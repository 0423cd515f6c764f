// groundplan's episode viewer. It draws scenes (engine/picture.py) without knowing the world:
// grids of cells with marks, places with stacks, or a list of facts. Episodes come embedded in
// the page (--html) or from the loopback server, one at a time, when first shown.
"use strict";
(function () {
  const INDEX = JSON.parse(document.getElementById("gp-index").textContent);
  const runs = INDEX.runs;
  const cache = {};
  const view = { entry: null, details: [], step: 0, timer: null };
  const $ = (sel, root) => (root || document).querySelector(sel);
  const el = (tag, attrs, ...children) => {
    const node = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (v === undefined || v === null) continue;
      if (k === "class") node.className = v; else if (k === "style") node.style.cssText = v;
      else if (k === "text") node.textContent = v; else node.setAttribute(k, v);
    }
    for (const c of children) if (c !== null && c !== undefined) node.append(c);
    return node;
  };
  // a scene's colour is set as one property's value, never spliced into style text: whatever it
  // holds, it cannot add a declaration (the engine also accepts only colours, engine/picture.py)
  const paint = (node, property, colour) => {
    if (colour) node.style.setProperty(property, colour);
    return node;
  };
  const okOutcome = (e) => e.success ? "ok" : (e.outcome ? "fail" : "");

  // ------------------------------------------------------------------ loading episodes
  async function detail(run, id) {
    const key = run + "\u0000" + id;
    if (cache[key]) return cache[key];
    let data;
    const embedded = document.getElementById("ep-" + run + "-" + runs[run].ids[id]);
    if (embedded) data = JSON.parse(embedded.textContent);
    else {
      const response = await fetch("episode?run=" + run + "&id=" + encodeURIComponent(id));
      data = await response.json();
    }
    cache[key] = data;
    if (data.togo_pending) {  // the server's searches for the steps to go: shown when they arrive
      fetch("togo?run=" + run + "&id=" + encodeURIComponent(id)).then((r) => r.json()).then((togo) => {
        (togo.frames || []).forEach((item, k) => Object.assign(data.frames[k] || {}, item));
        data.left_plan_at = togo.left_plan_at; data.togo_note = togo.togo_note; delete data.togo_pending;
        if (view.details.includes(data)) { layout(); show(view.step); }
      }).catch(() => { data.togo_note = "steps to go could not be fetched"; });
    }
    return data;
  }

  // ------------------------------------------------------------------ the list and its filters
  function fillSelect(select, values) {
    for (const v of [...new Set(values)].filter((x) => x !== null && x !== undefined).sort())
      select.append(el("option", { value: v, text: v }));
  }
  const base = runs[0].episodes;
  fillSelect($("#filter-set"), base.map((e) => e.problem_set));
  fillSelect($("#filter-agent"), base.map((e) => e.agent_label));
  fillSelect($("#filter-outcome"), base.map((e) => e.outcome));
  fillSelect($("#filter-world"), base.map((e) => e.world));
  const FILTERS = { set: "#filter-set", agent: "#filter-agent", outcome: "#filter-outcome", world: "#filter-world", q: "#search" };
  // a link may open the page filtered (a leaderboard row: #agent=...&world=...), or on one episode (#id)
  function hashFilters() {
    const text = location.hash.slice(1);
    if (!text.includes("=")) return null;
    const params = new URLSearchParams(text);
    for (const [key, sel] of Object.entries(FILTERS)) {
      const value = params.get(key);
      if (value === null) continue;
      const node = $(sel);
      if (node.tagName === "SELECT" && ![...node.options].some((o) => o.value === value)) node.append(el("option", { value, text: value }));
      node.value = value;
    }
    return params;
  }
  const linked = hashFilters();

  function partner(entry, run) {
    const others = runs[run].episodes.filter((e) => e.problem === entry.problem && e.problem_set === entry.problem_set);
    return others.find((e) => e.agent_label === entry.agent_label) || others[0] || null;
  }

  function renderList() {
    const set = $("#filter-set").value, agent = $("#filter-agent").value, outcome = $("#filter-outcome").value, world = $("#filter-world").value;
    const text = $("#search").value.trim().toLowerCase();
    const body = $("#episodes tbody");
    body.textContent = "";
    let shown = 0;
    for (const e of base) {
      if ((set && e.problem_set !== set) || (agent && e.agent_label !== agent) || (outcome && e.outcome !== outcome) || (world && e.world !== world)) continue;
      if (text && !(e.problem + " " + e.id).toLowerCase().includes(text)) continue;
      shown++;
      // long labels (a model, a strategy and settings) are cut to the column; the whole label is the tooltip
      const cells = [el("td", { class: "problem", text: e.problem, title: e.problem }), el("td", { class: "agent", text: e.agent_label, title: e.agent_label }),
        el("td", {}, el("span", { class: "outcome " + okOutcome(e), text: e.outcome || e.load_error && "load error" }))];
      if (runs.length > 1) {
        const other = partner(e, 1);
        cells.push(el("td", {}, other ? el("span", { class: "outcome " + okOutcome(other), text: other.outcome }) : "-"));
      }
      cells.push(el("td", { text: e.steps ?? "" }));
      const row = el("tr", { class: "episode" + (view.entry && view.entry.id === e.id ? " selected" : ""), "data-id": e.id }, ...cells);
      row.addEventListener("click", () => select(e));
      body.append(row);
    }
    $("#count").textContent = shown + " of " + base.length + " episodes";
  }
  for (const id of ["#filter-set", "#filter-agent", "#filter-outcome", "#filter-world"]) $(id).addEventListener("change", renderList);
  $("#search").addEventListener("input", renderList);

  // ------------------------------------------------------------------ selecting and stepping
  async function select(entry) {
    stop();
    view.entry = entry;
    const wanted = [entry].concat(runs.slice(1).map((_, i) => partner(entry, i + 1)));
    view.details = await Promise.all(wanted.map((e, run) => e ? detail(run, e.id) : null));
    view.step = 0;
    if (!linked) history.replaceState(null, "", "#" + encodeURIComponent(entry.id));
    renderList();
    layout();
    show(0);
  }

  const length = (d) => !d ? 1 : Math.max(d.frames.length, ...(d.tracks || []).map((t) => t.frames.length));
  function frames() { return Math.max(1, ...view.details.map(length)); }

  function layout() {
    const slider = $("#slider");
    slider.max = frames() - 1;
    const marks = $("#offmarks");
    marks.textContent = "";
    const first = view.details[0];
    if (first) for (const f of first.frames) if (f.off_plan)
      marks.append(el("span", { style: "left:" + (100 * f.step / Math.max(1, frames() - 1)) + "%", title: "step " + f.step + " left the optimal plan" }));
    const panes = $("#panes");
    panes.textContent = "";
    view.details.forEach((d, run) => panes.append(el("div", { class: "pane", "data-run": run })));
  }

  function show(step) {
    view.step = Math.max(0, Math.min(step, frames() - 1));
    $("#slider").value = view.step;
    view.details.forEach((d, run) => renderPane($(`.pane[data-run="${run}"]`), d, run));
  }

  function renderPane(pane, d, run) {
    pane.textContent = "";
    pane.append(el("div", { class: "runname", text: runs[run].name }));
    if (!d) { pane.append(el("p", { text: "no episode of this problem in this run" })); return; }
    if (d.tracks && d.tracks.length) return renderQuestion(pane, d);
    const last = d.frames.length - 1;
    const k = Math.min(view.step, last);
    const f = d.frames[k];
    const prev = k > 0 ? d.frames[k - 1] : null;
    pane.append(el("h2", { text: d.problem }));
    pane.append(el("div", { class: "meta" }, d.agent + " \u00b7 ", el("span", { class: "outcome " + okOutcome(d), text: d.outcome }),
      " \u00b7 cost " + (d.cost ?? "-") + (d.reference_cost != null ? " (reference " + d.reference_cost + ")" : "") +
      (d.left_plan_at != null ? " \u00b7 left the optimal plan at step " + d.left_plan_at : "")));
    if (d.goal) pane.append(el("div", { class: "goal", text: "Goal: " + d.goal }));
    pane.append(el("div", { class: "counter", text: "Step " + k + " of " + last + (k === last ? " (end: " + d.outcome + ")" : "") }));
    pane.append(el("div", { class: "when", text: k === last ? "The picture: the state the episode ended in."
      : "The picture: the state before step " + k + "'s action" + (k > 0 ? " (outlined: what step " + (k - 1) + " changed)." : ".") }));
    const picture = el("div", { class: "picture" });
    if (f.lost) picture.append(el("div", { class: "lost", text: f.lost }));
    else draw(picture, f.scene, prev && prev.scene);
    pane.append(picture);
    const info = el("dl", { class: "step-info" });
    const row = rowsOf(info);
    if (k < last) {
      row("action", f.action || (f.tool ? "(tool) " + f.tool : "(none)"), "action" + (f.valid === false ? " invalid" : ""));
      if (f.valid === false) row("valid", "no: the world did not accept it", "invalid");
      row("feedback", f.feedback);
      // spent now, and replayed from the LLM cache (what those replies cost when first asked)
      row("tokens", f.tokens != null ? (f.cached_tokens ? f.tokens + " spent, " + f.cached_tokens + " cached"
                                                         : f.tokens + (f.cached ? " (cached)" : "")) : null);
      row("cost (USD)", f.cost_usd === null ? "unknown (no price for the model)" : f.cost_usd ? f.cost_usd.toFixed(6) : null);
      if (f.cached_cost_usd) row("cached cost (USD)", f.cached_cost_usd.toFixed(6));
    }
    row("steps to go", f.togo != null ? f.togo : d.togo_pending ? "searching\u2026" : (d.togo_note || "unknown"));
    if (f.off_plan) row("off the plan", "this step cost " + f.off_plan + " more than an optimal one", "offplan");
    if (f.score) row("score", scoreTable(f.score));
    if (k === last && d.error) row("error", d.error, "invalid");
    pane.append(info);
    if (f.answer != null && k < last) {
      const answer = el("details", { open: "" }, el("summary", { text: "the agent's reply" }), el("pre", { class: "answer", text: f.answer }));
      pane.append(answer);
    }
    if (f.detail) pane.append(el("details", {}, el("summary", { text: "detail" }), el("pre", { class: "answer", text: JSON.stringify(f.detail, null, 1) })));
    if (f.observation) pane.append(el("details", { open: "" },
      el("summary", { text: f.observation_read ? "what the agent read" : "the observation (rendered now: this agent reads no text)" }),
      el("pre", { class: "observation", text: f.observation })));
  }

  // a name and value line of a step's facts; an empty value adds nothing
  const rowsOf = (info) => (name, value, cls) => { if (value === undefined || value === null || value === "") return;
    info.append(el("dt", { text: name }), el("dd", { class: cls }, value)); };

  // a world's score of an answer, as a table of its fields (lists as text, numbers rounded)
  function shown(value) {
    if (value === null || value === undefined) return "-";
    if (typeof value === "number") return Number.isInteger(value) ? String(value) : String(Math.round(value * 1000) / 1000);
    if (typeof value === "boolean") return value ? "yes" : "no";
    return typeof value === "string" ? value : JSON.stringify(value);
  }
  function scoreTable(score) {
    return el("table", { class: "score" }, el("tbody", {}, ...Object.entries(score).map(([k, v]) =>
      el("tr", { "data-field": k }, el("th", { text: k.replace(/_/g, " ") }), el("td", { text: shown(v) })))));
  }

  // a question's answer (one reply, scored by its world) and each action sequence it means, played
  // on the picture one action per step of the slider: the answer's beside the reference's
  function renderQuestion(pane, d) {
    const f = d.frames[0];
    pane.append(el("h2", { text: d.problem }));
    pane.append(el("div", { class: "meta" }, d.agent + " \u00b7 ", el("span", { class: "outcome " + okOutcome(d), text: d.outcome }),
      " \u00b7 " + (d.question || "question")));
    if (d.goal) pane.append(el("div", { class: "goal", text: "Goal: " + d.goal }));
    const longest = Math.max(...d.tracks.map((t) => t.frames.length)) - 1;
    const k = Math.min(view.step, longest);
    pane.append(el("div", { class: "counter", text: "Action " + k + " of " + longest }));
    const tracks = el("div", { class: "tracks" });
    d.tracks.forEach((track, i) => {
      const last = track.frames.length - 1;
      const j = Math.min(k, Math.max(0, last));
      const box = el("div", { class: "track", "data-track": i }, el("h3", { text: track.name }));
      if (track.note) box.append(el("div", { class: "note", text: track.note }));
      const fr = track.frames[j];
      if (!fr) { box.append(el("p", { text: "no action to play" })); tracks.append(box); return; }
      box.append(el("div", { class: "when", text: j === 0 ? "The picture: the start, before any action." :
        "The picture: the state after action " + j + " of " + last + ": " }, j > 0 ? el("code", { class: "action" + (fr.valid === false ? " invalid" : ""), text: fr.action }) : null,
        j < k ? " (its last action)" : null));
      const picture = el("div", { class: "picture" });
      if (fr.lost) picture.append(el("div", { class: "lost", text: fr.lost }));
      else draw(picture, fr.scene, j > 0 && j === k ? track.frames[j - 1].scene : null, 280);
      box.append(picture);
      tracks.append(box);
    });
    const info = el("dl", { class: "step-info" });
    const row = rowsOf(info);
    row("tokens", f.tokens != null ? String(f.tokens) + (f.cached ? " (cached)" : "") : null);
    row("cost (USD)", f.cost_usd === null ? "unknown (no price for the model)" : f.cost_usd ? f.cost_usd.toFixed(6) : null);
    if (f.score) row("score", scoreTable(f.score));
    if (d.error) row("error", d.error, "invalid");
    pane.append(tracks, info);
    if (f.answer != null) pane.append(el("details", { open: "" }, el("summary", { text: "the agent's reply" }), el("pre", { class: "answer", text: f.answer })));
    if (f.observation) pane.append(el("details", {}, el("summary", { text: f.observation_read ? "what the agent read" : "the question (rendered now)" }),
      el("pre", { class: "observation", text: f.observation })));
  }

  // ------------------------------------------------------------------ drawing a scene
  function draw(root, scene, before, width) {
    if (!scene) return;
    if (scene.status && scene.status.length) root.append(el("ul", { class: "status" }, ...scene.status.map((t) => el("li", { text: t }))));
    if (scene.kind === "grid") drawGrid(root, scene, before && before.kind === "grid" ? before : null, width);
    else if (scene.kind === "stacks") drawStacks(root, scene, before);
    else root.append(el("ul", { class: "facts" }, ...scene.facts.map((t) => el("li", { text: t }))));
  }

  function cellMarks(scene) {
    const out = {};
    for (const m of scene.marks) (out[m.r + "," + m.c] = out[m.r + "," + m.c] || []).push(m);
    for (const key in out) out[key].sort((a, b) => a.layer - b.layer);
    return out;
  }

  function drawGrid(root, scene, before, width) {
    const size = Math.max(10, Math.min(64, Math.floor((width || 576) / Math.max(scene.cols, scene.rows * 0.8))));
    const axes = scene.axes;
    const lead = axes ? Math.max(18, Math.round(size * 0.6)) + "px " : "";
    const grid = el("div", { class: "grid" + (axes ? " with-axes" : ""), style: `grid-template-columns:${lead}repeat(${scene.cols},${size}px);grid-template-rows:${axes ? "18px " : ""}repeat(${scene.rows},${size}px)` });
    const now = cellMarks(scene), then = before ? cellMarks(before) : null;
    // numbered edges, as the world's texts count (a row's number is the texts' row, y or r)
    const axis = (text, title) => el("div", { class: "axis", text: String(text), title });
    if (axes) {
      grid.append(el("div", { class: "axis corner-axis", title: "rows: " + axes.rows.name + ", columns: " + axes.cols.name }));
      for (let c = 0; c < scene.cols; c++) grid.append(axis(c + axes.cols.first, axes.cols.name + " " + (c + axes.cols.first)));
    }
    for (let r = 0; r < scene.rows; r++) for (let c = 0; c < scene.cols; c++) {
      if (axes && c === 0) grid.append(axis(r + axes.rows.first, axes.rows.name + " " + (r + axes.rows.first)));
      const marks = now[r + "," + c] || [];
      const cell = paint(el("div", { class: "cell", "data-r": r, "data-c": c }), "background-color", scene.background);
      const titles = [];
      for (const m of marks) {
        paint(cell, "background-color", m.fill);
        if (m.glyph) cell.append(paint(el("span", { class: "glyph", style: `color:#000;font-size:${Math.round(size * 0.7)}px`, text: m.glyph }), "color", m.color));
        if (m.label) cell.append(el("span", { class: "label", text: m.label }));
        if (m.corner) cell.append(el("span", { class: "corner", text: m.corner }));
        if (m.title) titles.push(m.title);
      }
      if (titles.length) cell.title = titles.join("\n");
      if (then && JSON.stringify(then[r + "," + c] || []) !== JSON.stringify(marks)) cell.classList.add("changed");
      grid.append(cell);
    }
    root.append(grid);
  }

  function chip(t) {
    const node = paint(el("div", { class: "thing", title: t.name }, t.name,
      ...(t.badges || []).map((b) => el("span", { class: "badge", text: b }))), "background-color", t.color);
    if (t.inside && t.inside.length) node.append(el("div", { class: "inside" }, ...t.inside.map(chip)));
    return node;
  }
  const stackNode = (column) => el("div", { class: "stack" }, ...column.map(chip));
  const agentNode = (a) => el("div", { class: "agent" }, "\u263a " + a.name, ...(a.badges || []).map((b) => el("span", { class: "badge", text: b })),
    ...(a.holding || []).map((s) => el("span", {}, " holds ", stackNode(s))));

  function drawStacks(root, scene, before) {
    const old = {};
    if (before && before.kind === "stacks") for (const p of before.places) old[p.name] = JSON.stringify(p);
    const places = el("div", { class: "places" });
    for (const p of scene.places) {
      const node = paint(el("div", { class: "place", "data-name": p.name },
        el("div", { class: "name" }, p.name, ...(p.badges || []).map((b) => el("span", { class: "badge", text: b }))),
        el("div", { class: "stacks" }, ...p.stacks.map(stackNode)), ...p.agents.map(agentNode)), "background-color", p.color);
      if (before && old[p.name] !== JSON.stringify(p)) node.classList.add("changed");
      places.append(node);
    }
    root.append(places);
    if (scene.agents.length) root.append(el("div", { class: "loose" }, ...scene.agents.map(agentNode)));
  }

  // ------------------------------------------------------------------ controls
  function stop() { if (view.timer) { clearInterval(view.timer); view.timer = null; $("#play").textContent = "\u25b6 play"; } }
  function play() {
    if (view.timer) return stop();
    if (view.step >= frames() - 1) show(0);
    $("#play").textContent = "\u275a\u275a pause";
    view.timer = setInterval(() => { if (view.step >= frames() - 1) stop(); else show(view.step + 1); }, 600);
  }
  $("#slider").addEventListener("input", (ev) => { stop(); show(+ev.target.value); });
  $("#prev").addEventListener("click", () => { stop(); show(view.step - 1); });
  $("#next").addEventListener("click", () => { stop(); show(view.step + 1); });
  $("#play").addEventListener("click", play);
  document.addEventListener("keydown", (ev) => {
    if (ev.target.matches("input[type=text], input[type=search], select")) return;
    if (ev.key === "ArrowRight") { stop(); show(view.step + 1); }
    else if (ev.key === "ArrowLeft") { stop(); show(view.step - 1); }
    else if (ev.key === "Home") { stop(); show(0); }
    else if (ev.key === "End") { stop(); show(frames() - 1); }
    else if (ev.key === " ") play();
    else if (ev.key === "ArrowDown" || ev.key === "ArrowUp") {
      const rows = [...document.querySelectorAll("#episodes tr.episode")];
      const at = rows.findIndex((r) => r.classList.contains("selected"));
      const next = rows[at + (ev.key === "ArrowDown" ? 1 : -1)];
      if (next) next.click();
    } else return;
    ev.preventDefault();
  });

  renderList();
  const wanted = linked ? linked.get("id") : (decodeURIComponent(location.hash.slice(1)) || INDEX.start);
  const visible = [...document.querySelectorAll("#episodes tr.episode")].map((r) => r.dataset.id);
  const first = base.find((e) => e.id === wanted) || base.find((e) => visible.includes(e.id) && !e.load_error) || base.find((e) => !e.load_error);
  if (first) select(first);
})();
