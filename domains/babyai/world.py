"""The few facts of the BabyAI grid that Python code here needs besides domain.json, kept once.

The domain is the authority on rules; these are the names and vectors that the converter, the
texts, the OmniBot, the oracle and the conformance replay all read (MiniGrid's own numbering).
"""
ACTIONS = ("left", "right", "forward", "pickup", "drop", "toggle", "done")  # MiniGrid's action indices
DIRECTIONS = ("east", "south", "west", "north")  # dir 0..3; y grows southward
DIRECTION_VECTORS = {0: (1, 0), 1: (0, 1), 2: (-1, 0), 3: (0, -1)}
OBJECT_TYPES = ("door", "key", "ball", "box")
COLORS = ("red", "green", "blue", "purple", "yellow", "grey")
