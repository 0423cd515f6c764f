"""The GRASP prompt (data) and the reference's parsing of one-shot answers."""
from groundplan.domains.grasp import prompt
from groundplan.domains.grasp.grid import Grid

GRID = Grid((5, 5), frozenset({(0, 0)}), {(1, 1): 1})


def test_parse_reads_every_action_word_in_order_and_keeps_20():
    answer = "Plan: [UP, UPLEFT, TAKE, DOWNRIGHT, DROP]"
    assert prompt.parse_plan(answer) == ["UP", "UPLEFT", "TAKE", "DOWNRIGHT", "DROP"]
    assert prompt.parse_plan("[" + ", ".join(["LEFT"] * 25) + "]") == ["LEFT"] * 20
    # the reference's regex is case-sensitive and also matches inside words
    assert prompt.parse_plan("I will go up. UPDATE: DROPLET") == ["UP", "DROP"]
    assert prompt.parse_plan("") == []


def test_bracket_mode_starts_at_the_first_bracket():
    answer = "First I think about going UP or LEFT. Steps: [RIGHT, TAKE]"
    assert prompt.parse_plan(answer) == ["UP", "LEFT", "RIGHT", "TAKE"]
    assert prompt.parse_plan(answer, start="bracket") == ["RIGHT", "TAKE"]
    assert prompt.parse_plan("DOWN, TAKE", start="bracket") == ["DOWN", "TAKE"]


def test_messages_fill_the_slots_of_each_rule_combination():
    plain = prompt.messages(Grid((5, 5), frozenset(), {}), {"moves": 4, "carry_limit": 100, "step_cost": 0})
    full = prompt.messages(GRID, {"moves": 8, "carry_limit": 2, "step_cost": 0.3})
    assert [m["role"] for m in full] == ["system", "user"]
    assert "UPLEFT" not in plain[0]["content"] and "UPLEFT" in full[0]["content"]
    assert "obstacle" not in plain[0]["content"] + plain[1]["content"]
    assert "O marks an obstacle" in full[1]["content"] and "at most 2 units" in full[0]["content"]
    assert "0.3" in full[0]["content"] and "0.3" not in plain[0]["content"]
    assert "20 steps" in plain[0]["content"]
    user = full[1]["content"]
    assert " 0| O |" in user and user.endswith("Reply with your steps as a list, for example: [STEP, STEP, ...]")
