"""A person at the terminal, on the same loop as every other agent."""
from __future__ import annotations

import click

from .base import Agent, Observation, Reply


class HumanAgent(Agent):
    """Shows the observation; a number picks a listed action, any other text is parsed as an
    answer ('finish', 'impossible' and 'goal not reachable' are declarations); end of input finishes."""

    name = "human"
    mode = "closed"

    def act(self, observation: Observation) -> Reply:
        click.echo("\n" + observation.text)
        actions = observation.actions
        click.echo("\n" + "\n".join(f"  {i}. {text}" for i, text in enumerate(actions, 1)))
        click.echo(f"step {observation.step + 1} of at most {observation.max_steps}" +
                   (f", {observation.turn}'s turn" if observation.turn else ""))
        try:
            answer = click.prompt("your action", default="", show_default=False)
        except (EOFError, click.Abort):
            return Reply("finish")
        answer = answer.strip()
        if answer.isdigit() and 1 <= int(answer) <= len(actions):
            answer = actions[int(answer) - 1]
        return Reply(answer)
