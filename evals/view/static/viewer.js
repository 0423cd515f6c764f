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

  function partner(entry, run) {
    const others = runs[run].episodes.filter((e) => e.problem === entry.problem && e.problem_set === entry.problem_set);
    return others.find((e) => e.agent_label === entry.agent_label) || others[0] || null;
  }

  function renderList() {
    const set = $("#filter-set").value, agent = $("#filter-agent").value, outcome = $("#filter-outcome").value;
    const text = $("#search").value.trim().toLowerCase();
    const body = $("#episodes tbody");
    body.textContent = "";
    let shown = 0;
    for (const e of base) {
      if ((set && e.problem_set !== set) || (agent && e.agent_label !== agent) || (outcome && e.outcome !== outcome)) continue;
      if (text && !(e.problem + " " + e.id).toLowerCase().includes(text)) continue;
      shown++;
      const cells = [el("td", { text: e.problem }), el("td", { text: e.agent_label }),
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
  for (const id of ["#filter-set", "#filter-agent", "#filter-outcome"]) $(id).addEventListener("change", renderList);
  $("#search").addEventListener("input", renderList);

  // ------------------------------------------------------------------ selecting and stepping
  async function select(entry) {
    stop();
    view.entry = entry;
    const wanted = [entry].concat(runs.slice(1).map((_, i) => partner(entry, i + 1)));
    view.details = await Promise.all(wanted.map((e, run) => e ? detail(run, e.id) : null));
    view.step = 0;
    history.replaceState(null, "", "#" + encodeURIComponent(entry.id));
    renderList();
    layout();
    show(0);
  }

  function frames() { return Math.max(1, ...view.details.map((d) => d ? d.frames.length : 1)); }

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
    const picture = el("div", { class: "picture" });
    if (f.lost) picture.append(el("div", { class: "lost", text: f.lost }));
    else draw(picture, f.scene, prev && prev.scene);
    pane.append(picture);
    const info = el("dl", { class: "step-info" });
    const row = (name, value, cls) => { if (value === undefined || value === null || value === "") return;
      info.append(el("dt", { text: name }), el("dd", { class: cls }, value)); };
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
    if (f.score) row("score", JSON.stringify(f.score));
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

  // ------------------------------------------------------------------ drawing a scene
  function draw(root, scene, before) {
    if (!scene) return;
    if (scene.kind === "grid") drawGrid(root, scene, before && before.kind === "grid" ? before : null);
    else if (scene.kind === "stacks") drawStacks(root, scene, before);
    else root.append(el("ul", { class: "facts" }, ...scene.facts.map((t) => el("li", { text: t }))));
  }

  function cellMarks(scene) {
    const out = {};
    for (const m of scene.marks) (out[m.r + "," + m.c] = out[m.r + "," + m.c] || []).push(m);
    for (const key in out) out[key].sort((a, b) => a.layer - b.layer);
    return out;
  }

  function drawGrid(root, scene, before) {
    const size = Math.max(10, Math.min(64, Math.floor(576 / Math.max(scene.cols, scene.rows * 0.8))));
    const grid = el("div", { class: "grid", style: `grid-template-columns:repeat(${scene.cols},${size}px);grid-auto-rows:${size}px` });
    const now = cellMarks(scene), then = before ? cellMarks(before) : null;
    for (let r = 0; r < scene.rows; r++) for (let c = 0; c < scene.cols; c++) {
      const marks = now[r + "," + c] || [];
      const cell = paint(el("div", { class: "cell", "data-r": r, "data-c": c }), "background-color", scene.background);
      const titles = [];
      for (const m of marks) {
        paint(cell, "background-color", m.fill);
        if (m.glyph) cell.append(paint(el("span", { class: "glyph", style: `color:#000;font-size:${Math.round(size * 0.7)}px`, text: m.glyph }), "color", m.color));
        if (m.label) cell.append(el("span", { class: "label", text: m.label }));
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
  const wanted = decodeURIComponent(location.hash.slice(1)) || INDEX.start;
  const first = base.find((e) => e.id === wanted) || base.find((e) => !e.load_error);
  if (first) select(first);
})();
