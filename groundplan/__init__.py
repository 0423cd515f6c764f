"""groundplan: planning worlds as data, one interpreter, exact oracle planners, LLM agents and
their evaluation.

One package, whose layers are the repository's folders (see setup.py): `groundplan.engine` (the
language and its interpreter), `groundplan.planners`, `groundplan.agents`, `groundplan.evals`,
and the worlds' data, `groundplan.domains` and `groundplan.problems`. The two commands are
`groundplan` (`groundplan.cli`) and `plan-eval` (`groundplan.evals.cli`).
"""
