"""The 32 environments of LLM-BabyBench: 16 BabyAI levels and 16 Plan rooms (spec 1.6 and 2.2).

Data, not code: each entry says how to build the MiniGrid environment. Only generation and the
conformance tests build them (they need MiniGrid); everything else reads problem files.
"""
from __future__ import annotations

LEVELS = ("GoToObj", "GoToRedBallGrey", "GoToRedBall", "GoToLocal", "PutNextLocal", "PickupLoc",
          "GoToObjMaze", "GoTo", "Pickup", "UnblockPickup", "Open", "Synth", "SynthLoc", "GoToSeq",
          "SynthSeq", "BossLevel")

# The paper's difficulty classes (inferred by the spec from Table 3's whole counts).
DIFFICULTY = {**dict.fromkeys(("GoToObj", "GoToRedBallGrey"), "Easy"),
              **dict.fromkeys(("GoToRedBall", "GoToLocal", "PutNextLocal", "PickupLoc", "GoToObjMaze", "GoTo",
                               "Pickup"), "Moderate"),
              **dict.fromkeys(("UnblockPickup", "Open", "Synth"), "Hard"),
              **dict.fromkeys(("SynthLoc", "GoToSeq", "SynthSeq", "BossLevel"), "Very Hard")}

# Plan environments: one room of the given side (walls included) with N grey distractors.
PLAN_SIZES = {"Small": (8, (4, 5, 6, 7)), "Medium": (16, (20, 40, 50, 60)),
              "Large": (24, (60, 80, 100, 120)), "Ultra": (32, (120, 140, 160, 180))}
PLAN_ENVS = tuple(f"GoToRedBall-{size}-{n}Dists" for size, (_, counts) in PLAN_SIZES.items() for n in counts)


def plan_parameters(name: str) -> tuple[int, int]:
    """(room_size, distractors) of a Plan environment name such as 'GoToRedBall-Large-80Dists'."""
    try:
        _, size, dists = name.split("-")
        return PLAN_SIZES[size][0], int(dists.removesuffix("Dists"))
    except (ValueError, KeyError):
        raise KeyError(f"unknown Plan environment '{name}' (known: {', '.join(PLAN_ENVS)})") from None


def make_env(name: str):
    """A fresh MiniGrid environment for a level or Plan environment name (imports MiniGrid)."""
    import gymnasium as gym
    import minigrid  # noqa: F401  (registers the BabyAI levels)

    if name in LEVELS:
        return gym.make(f"BabyAI-{name}-v0").unwrapped
    from minigrid.envs.babyai.goto import GoToRedBallGrey

    room_size, dists = plan_parameters(name)
    return GoToRedBallGrey(room_size=room_size, num_dists=dists)
