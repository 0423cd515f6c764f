"""The viewer's one HTML page: the episode list inline, each episode embedded (`--html`, a
self-contained file that works offline) or fetched from the loopback server when first shown.

Episodes are embedded as `<script type="application/json">` blocks that the browser does not
parse until one is shown, so a 100-episode page opens as fast as a one-episode page.

The page shows data from files anyone may share (a domain's picture colours, an agent's replies),
so it carries a Content-Security-Policy (a `<meta>`, and the server's header) that lets it run
only its own inline script and style and fetch only from where it was served: nothing it shows
can make the browser load an outside address.
"""
from __future__ import annotations

import base64
import hashlib
import html
import json
from pathlib import Path

STATIC = Path(__file__).resolve().parent / "static"
CSS = (STATIC / "viewer.css").read_text(encoding="utf-8")
JS = (STATIC / "viewer.js").read_text(encoding="utf-8")


def _hash(text: str) -> str:
    return "'sha256-" + base64.b64encode(hashlib.sha256(text.encode("utf-8")).digest()).decode() + "'"


# the page's own script and style (by their hashes), episodes fetched from the loopback server
# (connect-src 'self'; a --html file fetches nothing), and no other load of any kind
CSP = (f"default-src 'none'; script-src {_hash(JS)}; style-src {_hash(CSS)}; connect-src 'self'; "
       "img-src 'none'; base-uri 'none'; form-action 'none'")
CSP_HEADER = CSP + "; frame-ancestors 'none'"  # frame-ancestors is honoured in a header only


def _script_json(data) -> str:
    """JSON safe inside a <script> element (no '</' can close it early)."""
    return json.dumps(data, separators=(",", ":"), ensure_ascii=False).replace("</", "<\\/").replace("<!--", "<\\!--")


def index_data(runs: list[dict], title: str, start: str | None = None) -> dict:
    """runs: [{"name", "episodes": [list entries]}]; each gets `ids`, an episode's position."""
    for run in runs:
        run["ids"] = {e["id"]: i for i, e in enumerate(run["episodes"])}
    return {"title": title, "runs": runs, "start": start}


def render_page(index: dict, embedded: dict[tuple[int, str], dict] | None = None) -> str:
    """The page; `embedded` maps (run, episode id) to its detail (episodes.episode_detail)."""
    blocks = []
    for (run, eid), detail in (embedded or {}).items():
        position = index["runs"][run]["ids"][eid]
        blocks.append(f'<script type="application/json" id="ep-{run}-{position}">{_script_json(detail)}</script>')
    two = len(index["runs"]) > 1
    head = "<th>problem</th><th>agent</th><th>outcome</th>" + ("<th>B</th>" if two else "") + "<th>steps</th>"
    names = " vs ".join(html.escape(r["name"]) for r in index["runs"])
    return f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="{html.escape(CSP, quote=False)}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{html.escape(index["title"])}</title>
<style>{CSS}</style></head>
<body>
<header class="top"><h1>{html.escape(index["title"])}</h1><span class="runs">{names}</span>
<span class="hint">\u2190 \u2192 step \u00b7 space play \u00b7 \u2191 \u2193 episode \u00b7 Home End</span></header>
<main>
<aside>
 <div class="filters">
  <label>problem set<select id="filter-set"><option value="">all</option></select></label>
  <label>agent<select id="filter-agent"><option value="">all</option></select></label>
  <label>outcome<select id="filter-outcome"><option value="">all</option></select></label>
  <label>world<select id="filter-world"><option value="">all</option></select></label>
  <label class="wide">search<input id="search" type="search" placeholder="problem name"></label>
 </div>
 <div class="count" id="count"></div>
 <div class="list"><table class="episodes" id="episodes"><thead><tr>{head}</tr></thead><tbody></tbody></table></div>
</aside>
<section class="viewer">
 <div class="controls"><button id="prev" title="previous step (\u2190)">\u25c0</button><button id="play" title="play (space)">\u25b6 play</button>
 <button id="next" title="next step (\u2192)">\u25b6</button><input id="slider" type="range" min="0" max="0" value="0" aria-label="step"></div>
 <div class="offmarks" id="offmarks"></div>
 <div class="panes" id="panes"></div>
</section>
</main>
<script type="application/json" id="gp-index">{_script_json(index)}</script>
{chr(10).join(blocks)}
<script>{JS}</script>
</body></html>
"""
