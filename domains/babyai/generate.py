"""Generate BabyAI problems from MiniGrid: one instance, or the benchmark's three problem sets.

    groundplan generate babyai BossLevel --seed 47                      # one problem, JSON on stdout
    groundplan generate babyai GoToRedBall-Ultra-180Dists --seed 3 --out p.json
    groundplan generate babyai --set predict --seeds 1-500 --out problems/babyai/predict.jsonl.gz

Needs MiniGrid (`pip install -e '.[babyai]'`); running, planning and evaluating the files it
writes do not. An instance is MiniGrid's own `reset(seed=S)` of the level, converted by
`convert.problem_from_env`, so a (level, seed) pair always gives the same problem.

The three sets (spec section 2), 16 environments x the given seeds each:
- predict: the 16 levels; each row carries the expert bot's whole action sequence for the
  mission and the pose ((x, y), dir) that sequence ends in;
- plan: the 16 Plan rooms (4 sizes x 4 distractor counts); each row carries the red ball's cell
  (the target: end up facing it) and the bot's action sequence (the efficiency reference);
- decompose: the 16 levels; each row carries the mission and the bot's help count (every
  subgoal it pushed, the mission's own translation included).

The expert is MiniGrid's BabyAI bot with the whole grid in view, as LLM-BabyBench's OmniBot is
(`expert.py`). A row whose expert run does not end in mission success says so
(`expert_failed`); the README counts them.
"""
from __future__ import annotations

import argparse
import contextlib
import io
import json
import sys
from pathlib import Path

from .levels import DIFFICULTY, LEVELS, PLAN_ENVS, make_env

from .world import ACTIONS
SETS = {"predict": LEVELS, "plan": PLAN_ENVS, "decompose": LEVELS}
LICENSE = ("Instances generated with Farama MiniGrid 3.2 (Apache-2.0; BabyAI levels, BSD-3-Clause, "
           "(c) Mila) by domains/babyai/generate.py; see domains/babyai/NOTICE.")


def reset(name: str, seed: int):
    """MiniGrid's environment `name` reset with `seed` (its rejection-sampling chatter silenced)."""
    env = make_env(name)
    with contextlib.redirect_stdout(io.StringIO()):
        env.reset(seed=seed)
    return env


def expert_run(env) -> tuple[list[str], int, bool]:
    """(actions, help count, success) of the full-view expert on a copy of `env`; a bot that
    gives up (MiniGrid's bot asserts when it finds no path) ends the run unsuccessful."""
    import copy

    from .expert import make_expert

    env = copy.deepcopy(env)
    bot = make_expert(env)
    actions: list[str] = []
    last = None
    success = False
    with contextlib.redirect_stdout(io.StringIO()):
        for _ in range(env.max_steps):
            try:
                action = bot.replan(last)
            except (AssertionError, ValueError, TypeError, IndexError):
                break
            _, _, terminated, truncated, _ = env.step(action)
            actions.append(ACTIONS[int(action)])
            last = action
            if terminated or truncated:
                success = bool(terminated)
                break
    return actions, bot.help_count, success


def final_pose(env, actions: list[str]) -> tuple[tuple[int, int], int]:
    """((x, y), dir) after replaying `actions` on a copy of `env`, stopping when it ends."""
    import copy

    env = copy.deepcopy(env)
    for action in actions:
        _, _, terminated, truncated, _ = env.step(ACTIONS.index(action))
        if terminated or truncated:
            break
    return (int(env.agent_pos[0]), int(env.agent_pos[1])), int(env.agent_dir)


def instance(name: str, seed: int) -> dict:
    """One problem of environment `name` at `seed`, with the level and seed in its metadata."""
    from .convert import problem_from_env

    env = reset(name, seed)
    return problem_from_env(env, f"{name}-s{seed}", {"level": name, "seed": seed})


def set_row(task: str, name: str, seed: int) -> dict:
    """One row of a problem set: the instance plus what the task scores against."""
    from .convert import problem_from_env

    env = reset(name, seed)
    problem = problem_from_env(env, f"{name}-s{seed}")
    actions, helps, success = expert_run(env)
    meta = {"task": task, "level": name, "seed": seed}
    if name in DIFFICULTY:
        meta["difficulty"] = DIFFICULTY[name]
    if not success:
        meta["expert_failed"] = True
    if task == "predict":
        (x, y), d = final_pose(env, actions)
        meta.update(actions=", ".join(actions), target=[[x, y], d])
    elif task == "plan":
        ball = next(o for o, t in problem["objects"].items() if t == "ball" and ["color", o, "red"] in problem["init"])
        x = next(v for k, v in problem["values"] if k == ["x", ball])
        y = next(v for k, v in problem["values"] if k == ["y", ball])
        meta.update(target_subgoal=[x, y], expert_actions=", ".join(actions))
    else:
        meta.update(mission=problem["goal_text"], help_count=helps)
    problem["metadata"] = meta
    for key in ("groundplan", "domain"):
        problem.pop(key)
    return problem


def _row_job(args):
    return set_row(*args)


def write_set(task: str, seeds: list[int], out: Path, workers: int = 1) -> dict:
    """Write one problem-set file; returns counts for the log."""
    jobs = [(task, name, seed) for name in SETS[task] for seed in seeds]
    if workers > 1:
        import multiprocessing

        with multiprocessing.get_context("fork").Pool(workers) as pool:
            rows = pool.map(_row_job, jobs, chunksize=8)
    else:
        rows = [_row_job(job) for job in jobs]
    header = {"problem_set": f"babyai-{task}", "defaults": {
        "groundplan": "1", "domain": "babyai", "license": LICENSE,
        "description": f"LLM-BabyBench {task} set: {len(SETS[task])} environments x seeds {seeds[0]}-{seeds[-1]}, "
                       "generated by domains/babyai/generate.py from MiniGrid 3.2."}}
    out.parent.mkdir(parents=True, exist_ok=True)
    failed = 0
    with _text_writer(out) as fh:
        fh.write(json.dumps(header, separators=(",", ":")) + "\n")
        current = None
        for row in rows:
            level = row["metadata"]["level"]
            if level != current:
                current = level
                fh.write(json.dumps({"group": level, "defaults": {"settings": row["settings"],
                                                                  "max_steps": row["max_steps"]}},
                                    separators=(",", ":")) + "\n")
            shared = ("settings", "max_steps")
            fh.write(json.dumps({k: v for k, v in row.items() if k not in shared}, separators=(",", ":")) + "\n")
            failed += bool(row["metadata"].get("expert_failed"))
    return {"rows": len(rows), "expert_failed": failed}


@contextlib.contextmanager
def _text_writer(path: Path):
    """A text file, gzip-compressed (reproducibly: no name, no time stamp) when it ends in '.gz'."""
    if path.suffix != ".gz":
        with path.open("w", encoding="utf-8") as fh:
            yield fh
        return
    import gzip

    with path.open("wb") as raw, gzip.GzipFile(filename="", mode="wb", fileobj=raw, mtime=0) as packed, \
            io.TextIOWrapper(packed, encoding="utf-8") as fh:
        yield fh


def _seeds(text: str) -> list[int]:
    if "-" in text:
        lo, hi = text.split("-", 1)
        return list(range(int(lo), int(hi) + 1))
    return [int(s) for s in text.split(",")]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="groundplan generate babyai", description=__doc__.split("\n\n")[0])
    parser.add_argument("level", nargs="?", help=f"a level ({', '.join(LEVELS)}) or Plan environment "
                                                 f"({PLAN_ENVS[0]}, ..., {PLAN_ENVS[-1]})")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--set", choices=sorted(SETS), help="write a whole problem set instead of one problem")
    parser.add_argument("--seeds", default="1-500", help="seeds of a set: 'LO-HI' or a comma list (default 1-500)")
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--out", type=Path, help="output file (default: stdout for one problem)")
    args = parser.parse_args(argv)
    try:
        import minigrid  # noqa: F401
    except ImportError:
        print("error: generating BabyAI problems needs MiniGrid: pip install -e '.[babyai]'", file=sys.stderr)
        return 2
    if args.set:
        if not args.out:
            parser.error("--set needs --out")
        counts = write_set(args.set, _seeds(args.seeds), args.out, args.workers)
        print(f"{args.out}: {counts['rows']} rows, expert failed on {counts['expert_failed']}", file=sys.stderr)
        return 0
    if args.level not in LEVELS + PLAN_ENVS:
        parser.error(f"unknown level '{args.level}' (levels: {', '.join(LEVELS + PLAN_ENVS)})")
    text = json.dumps(instance(args.level, args.seed), indent=1)
    if args.out:
        args.out.write_text(text + "\n", encoding="utf-8")
    else:
        print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
