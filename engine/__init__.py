"""groundplan's engine: the JSON planning language and its one interpreter.

    from groundplan.engine import load_problem, Task
    task = Task(load_problem("problems/blocksworld/sussman.json"))
    state = task.initial_state()
    for action in task.applicable(state): ...
    state = task.apply(state, action)       # pure; raises InapplicableAction with reasons
    task.is_goal(state)

Heavy optional libraries are never imported here, so `import engine` stays fast.
"""
from .errors import Diagnostic, GroundplanError, ModelError
from .loader import load_domain, load_problem
from .task import GroundAction, InapplicableAction, State, StepResult, Task, UnknownAction
from .validate import ValidationResult, read_plan, validate_plan

__version__ = "0.1.0"

__all__ = [
    "Diagnostic", "GroundplanError", "ModelError", "load_domain", "load_problem", "GroundAction",
    "InapplicableAction", "State", "StepResult", "Task", "UnknownAction", "ValidationResult",
    "read_plan", "validate_plan", "__version__",
]
