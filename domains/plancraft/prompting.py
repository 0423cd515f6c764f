"""The opening of a Plancraft conversation: the system prompt and the few-shot dialogue for the
tools a strategy enables, built from the world's prompts.yaml.

The LLM agent's `chat` history asks the world for these messages (agents/llm/agent.py), because
the paper's prompt depends on the tool set: the system prompt lists only the enabled actions,
and the example dialogue shows a search and a thought only when those tools exist.
"""
from __future__ import annotations


def tools_of(spec: dict, profile) -> list[str]:
    return list((spec.get("loop") or {}).get("tools") or profile.loop.get("tools"))


def system_prompt(profile, tools: list[str]) -> str:
    described = profile.prompts["tools"]
    actions = "".join(f"\n    - {name}: {described[name]['description']}" for name in tools)
    formats = "".join(f"\n    - {described[name]['format']}" for name in tools)
    return profile.template("system").replace("{actions}", actions).replace("{formats}", formats)


def example_dialogue(profile, tools: list[str], task) -> list[dict]:
    from .text import search

    turns = []
    for shot in profile.prompts["shots"]:
        turns.append({"role": "user", "content": shot["observation"]})
        if "search" in tools and shot.get("search"):
            turns.append({"role": "assistant", "content": f"search: {shot['search']}"})
            turns.append({"role": "user", "content": search(shot["search"], task)})
        if "think" in tools and shot.get("think"):
            turns.append({"role": "assistant", "content": f"think: {shot['think']}"})
            turns.append({"role": "user", "content": "Ok"})
        turns.append({"role": "assistant", "content": shot["action"]})
    return turns


def opening(spec: dict, task, system_override: str | None = None) -> list[dict]:
    """System prompt plus few-shot turns (the hook agents/llm/agent.py calls for `history: chat`)."""
    from groundplan.agents.profile import profile_for

    profile = profile_for(task)
    tools = tools_of(spec, profile)
    system = system_override if system_override is not None else system_prompt(profile, tools)
    return [{"role": "system", "content": system}] + example_dialogue(profile, tools, task)
