"""Agents by name, for the command line and plan-eval.

`baseline:NAME` names one of a world's own baselines (`domains/<world>/baselines.py`, e.g.
`baseline:greedy` for GRASP); whether the world has it is known only once the problem is, so
plan-eval checks it against the worlds of its problems before running anything.
"""
from __future__ import annotations

AGENTS = ("oracle", "random", "replay", "human", "llm", "baseline:NAME")


def make_agent(name: str, **options):
    """An agent from its name and options (unknown options are an error, not silently dropped)."""
    from groundplan.engine.errors import GroundplanError

    if name == "oracle":
        from .baselines import OracleAgent

        return OracleAgent(**options)
    if name == "random":
        from .baselines import RandomAgent

        if options:
            raise GroundplanError(f"the random agent takes no options (got {', '.join(options)})")
        return RandomAgent()
    if name == "replay":
        from .baselines import ReplayAgent

        if "plans" not in options:
            raise GroundplanError("the replay agent needs a plan file or folder (--plans)")
        return ReplayAgent(**options)
    if name == "human":
        from .human import HumanAgent

        return HumanAgent()
    if name == "llm":
        from .llm.agent import LLMAgent

        return LLMAgent(**options)
    if name == "baseline" or name.startswith("baseline:"):
        from .baselines import WorldBaselineAgent

        options = dict(options)
        which = name.partition(":")[2] or options.pop("baseline", None)
        if not which:
            raise GroundplanError("name the world's baseline: baseline:NAME (e.g. baseline:greedy for GRASP)")
        if options:
            raise GroundplanError(f"a world's baseline takes no options (got {', '.join(options)})")
        return WorldBaselineAgent(which)
    from groundplan.engine.errors import did_you_mean

    hint = did_you_mean(name, AGENTS)
    raise GroundplanError(f"unknown agent '{name}'" + (f" ({hint})" if hint else f" (choose from {', '.join(AGENTS)})"))
