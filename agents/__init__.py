"""Agents and the one step loop they all act through.

    from groundplan.agents import make_agent, run_episode
    from groundplan.engine import Task
    task = Task.load("problems/async/01_cheese_chicken_sandwich_s42.json")
    episode = run_episode(task, make_agent("random"), seed=1)  # the episode seeds the agent
    episode.success, episode.steps, episode.trajectory[0]["observation"]

Agents: oracle, random, replay, human, llm (see `AGENTS`). The loop (`agents.loop`) is the
same for every world; what differs per world is data (`agents.profile`: its prompts, its
observation format, its step cap and its policy for invalid answers).
"""
from __future__ import annotations

from .base import Agent, Reply
from .loop import Episode, Limits, run_episode
from .registry import AGENTS, make_agent

__all__ = ["Agent", "Reply", "Episode", "Limits", "run_episode", "AGENTS", "make_agent"]
