"""See an episode: `plan-eval view RUN [RUN2]` and `groundplan view PROBLEM [PLAN]`.

Researchers read an agent's failures by watching them. This package turns a run folder (or a
problem and a plan) into one page: the episode list with filters, and for the chosen episode a
picture of every state (the world's `render.picture`), the action, what the agent read and
answered, the feedback, tokens and dollars, and the steps to go. Two runs show side by side on
the same problem. The page is served on loopback, or written as one self-contained HTML file.

The server answers only requests addressed to a loopback name (`Host: 127.0.0.1`, `localhost`,
`[::1]`): a page elsewhere that rebinds its own name to 127.0.0.1 must not read the episodes, whose
prompts and replies are the run's data.
"""
from __future__ import annotations

import json
from pathlib import Path

from groundplan.engine.errors import GroundplanError

from .episodes import episode_detail, list_entry, merge_togo, resolve_problem, steps_to_go
from .page import CSP_HEADER, index_data, render_page

# the Host names the loopback server answers (with its port or without); any other is refused
LOOPBACK_NAMES = ("127.0.0.1", "localhost", "[::1]")


class Runs:
    """The runs on the page and their episodes' details, computed when first asked for."""

    def __init__(self, folders: list[Path], togo_time: float = 0.5, togo_budget: float = 3.0,
                 rows: list[list[dict]] | None = None, names: list[str] | None = None, title: str | None = None):
        """The runs in `folders` (their episodes.jsonl), or, with `rows`, episodes made elsewhere
        (`problem_runs`: one problem and a plan), their problems resolved beside `folders`."""
        from .. import store

        self.folders = [Path(f) for f in folders]
        self.togo_time, self.togo_budget = togo_time, togo_budget
        self.left_out: list[str] = []  # what the page does not show of each run's episodes.jsonl, and why
        if rows is None:
            rows = []
            for folder in self.folders:
                found = store.scan(folder)  # lines not of an episode's shape, and repeated ids, are set aside there
                if not found.rows:
                    raise GroundplanError(f"{folder}: no episodes in {folder / store.EPISODES} (run plan-eval ... --out {folder} first)")
                self.left_out += left_out(folder, found)
                rows.append(found.rows)
        names = names or [f.name or str(f) for f in self.folders]
        self.rows: list[dict[str, dict]] = [{r["id"]: r for r in run} for run in rows]
        entries = [{"name": name, "folder": str(folder), "episodes": [list_entry(r) for r in by_id.values()]}
                   for name, folder, by_id in zip(names, self.folders, self.rows)]
        self.index = index_data(entries, title or "groundplan: " + " vs ".join(names))
        self._tasks: dict = {}
        self._details: dict = {}
        self._quick: dict = {}
        self._togo: dict = {}

    def _task(self, ref: str, run: int):
        key = (ref, run)
        if key not in self._tasks:  # a problem shared by several episodes (each agent's) is loaded once
            from groundplan.engine import Task

            self._tasks[key] = Task.load(resolve_problem(ref, self.folders[run]))
        return self._tasks[key]

    def row(self, run: int, eid: str) -> dict:
        row = self.rows[run].get(eid)
        if row is None:
            raise GroundplanError(f"no episode '{eid}' in {self.folders[run]}")
        return row

    def detail(self, run: int, eid: str, with_togo: bool = True) -> dict:
        """An episode's frames; without `with_togo`, the pictures now and the steps to go later
        (`togo`): the server answers in the time of a replay, not of the searches."""
        key = (run, eid)
        if key in self._details:
            return self._details[key]
        quick = self._quick.get(key)
        if quick is None:
            quick = self._quick[key] = self._compute(run, self.row(run, eid))
        if not with_togo:
            return quick
        full = dict(quick, frames=[dict(f) for f in quick["frames"]])
        if full.get("togo_pending"):
            merge_togo(full, self.togo(run, eid))
        self._details[key] = full
        return full

    def togo(self, run: int, eid: str) -> dict:
        key = (run, eid)
        if key not in self._togo:
            row = self.row(run, eid)
            try:
                task = self._task(row.get("problem_ref") or row["file"], run)
                self._togo[key] = steps_to_go(task, row, self.togo_time, self.togo_budget)
            except (GroundplanError, KeyError) as exc:
                self._togo[key] = {"frames": [], "left_plan_at": None, "togo_note": f"steps to go unknown: {exc}"}
        return self._togo[key]

    def _compute(self, run: int, row: dict) -> dict:
        failed = {"id": row.get("id"), "problem": row.get("problem") or row.get("problem_ref"), "agent": row.get("agent_label"),
                  "outcome": row.get("outcome") or "load-error", "success": False, "goal": "", "frames": []}
        if row.get("load_error"):
            return {**failed, "frames": [{"step": 0, "lost": row["load_error"]}]}
        ref = row.get("problem_ref") or row.get("file")
        if not ref:
            return {**failed, "frames": [{"step": 0, "lost": "the episode line names no problem (no problem_ref or file)"}]}
        try:
            task = self._task(ref, run)
            return episode_detail(task, row, togo_time=0)
        except GroundplanError as exc:
            return {**failed, "frames": [{"step": 0, "lost": str(exc)}]}

    def page(self, embed: bool, progress=None) -> str:
        embedded = None
        if embed:
            embedded = {}
            keys = [(run, eid) for run, rows in enumerate(self.rows) for eid in rows]
            for n, (run, eid) in enumerate(keys, 1):
                embedded[(run, eid)] = self.detail(run, eid)
                if progress:
                    progress(n, len(keys))
        return render_page(self.index, embedded)


def left_out(folder: Path, found) -> list[str]:
    """What the viewer leaves out of a run's episodes.jsonl (store.scan's bad lines, torn tail and
    duplicates), as warnings naming the file, the lines and why."""
    from .. import store

    path = Path(folder) / store.EPISODES
    out = []
    if found.unreadable:
        where = store.unreadable_where(found)
        out.append(f"{path}: {found.unreadable} line(s) left out, not episode lines ({where}); "
                   f"`plan-eval ... --out {folder} --resume` moves them to {store.REJECTED} and runs their episodes again")
    if found.duplicates:
        where = store.duplicates_where(found)
        out.append(f"{path}: {len(found.duplicates)} duplicate line(s) left out, each episode shown from its first line ({where})")
    return out


def problem_runs(problem: str, plan: str | None, togo_time: float = 0.5) -> "Runs":
    """A page for one problem and a plan (a file of action texts; none: the stored optimal plan,
    else only the start state), as if an agent 'plan' had run it."""
    from groundplan.engine import Task
    from groundplan.engine.validate import read_plan

    from groundplan.agents.loop import state_hash

    task = Task.load(problem)
    texts = read_plan(plan) if plan else list((task.problem.optimal or {}).get("plan") or [])
    state, trajectory, cost = task.initial_state(), [], 0.0
    for k, text in enumerate(texts):
        action = task.parse_action(str(text), state)  # a clear error names the step that is not an action
        result = task.step(state, action)
        trajectory.append({"step": k, "answer": str(text), "action": action.text, "valid": result.valid,
                           "feedback": None if result.valid else result.message, "state": state_hash(state),
                           "next_state": state_hash(result.state)})
        state, cost = result.state, cost + result.cost
    reached = task.is_goal(state)
    agent = "plan" if plan else ("stored optimal plan" if texts else "start state")
    row = {"id": task.problem.name, "problem": task.problem.name, "problem_set": "-", "agent_label": agent,
           "outcome": "goal-reached" if reached else ("not-reached" if texts else "-"), "success": reached,
           "steps": len(texts), "cost": cost, "reference_cost": (task.problem.optimal or {}).get("cost"),
           "problem_ref": problem, "trajectory": trajectory, "world": task.domain.name}
    runs = Runs([Path(problem).parent], togo_time, rows=[[row]], names=[Path(problem).name],
                title=f"groundplan: {task.problem.name}")
    runs._tasks[(problem, 0)] = task  # already loaded; and a set's row name is no path to resolve again
    return runs


def write_html(runs: Runs, out: Path, progress=None) -> Path:
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(runs.page(embed=True, progress=progress), encoding="utf-8")
    return out


def serve(runs: Runs, port: int = 0, ready=None):
    """Serve the page on 127.0.0.1 until interrupted; `ready(url)` is called once it listens.
    A request whose Host is not a loopback name (with this port or none) is refused with 403."""
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
    from urllib.parse import parse_qs, urlparse

    page = runs.page(embed=False).encode("utf-8")
    hosts: set[str] = set()  # the names this server answers to, filled in once its port is known

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self):
            if (self.headers.get("Host") or "").lower() not in hosts:
                # a page from elsewhere whose name now resolves to 127.0.0.1 (DNS rebinding) sends its
                # own name: it must not read the episodes (prompts and replies)
                return self._send(403, "text/plain", f"forbidden: this viewer answers only to 127.0.0.1, localhost and [::1] "
                                  f"(open http://127.0.0.1:{self.server.server_address[1]}/)".encode())
            url = urlparse(self.path)
            if url.path in ("/", "/index.html"):
                return self._send(200, "text/html; charset=utf-8", page)
            if url.path == "/episode":
                query = parse_qs(url.query)
                try:
                    run, eid = int(query["run"][0]), query["id"][0]
                    body = json.dumps(runs.detail(run, eid, with_togo=False), ensure_ascii=False).encode("utf-8")
                except (KeyError, ValueError, IndexError, GroundplanError) as exc:
                    return self._send(404, "application/json", json.dumps({"error": str(exc)}).encode())
                return self._send(200, "application/json; charset=utf-8", body)
            if url.path == "/togo":
                query = parse_qs(url.query)
                try:
                    body = json.dumps(runs.togo(int(query["run"][0]), query["id"][0])).encode("utf-8")
                except (KeyError, ValueError, IndexError, GroundplanError) as exc:
                    return self._send(404, "application/json", json.dumps({"error": str(exc)}).encode())
                return self._send(200, "application/json", body)
            self._send(404, "text/plain", b"not found")

        def _send(self, code: int, kind: str, body: bytes):
            self.send_response(code)
            self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(len(body)))
            self.send_header("Content-Security-Policy", CSP_HEADER)
            self.send_header("X-Content-Type-Options", "nosniff")
            self.end_headers()
            try:
                self.wfile.write(body)
            except (BrokenPipeError, ConnectionResetError):
                pass  # the page was closed before its answer (steps to go still searching): nothing to send to

        def log_message(self, *args):  # quiet: the terminal shows the address, not every request
            pass

    server = ThreadingHTTPServer(("127.0.0.1", port), Handler)
    port = server.server_address[1]
    hosts.update(f"{name}{suffix}" for name in LOOPBACK_NAMES for suffix in ("", f":{port}"))
    url = f"http://127.0.0.1:{port}/"
    if ready:
        ready(url)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
    return url
