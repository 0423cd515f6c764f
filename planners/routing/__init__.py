"""Routing over targets: TSP paths and tours, precedence groups, prize-collecting orienteering.

For problems whose goal is to serve several targets (PPNL's goals, GRASP's energy cells), the
problem's `routing` section names the targets (each a formula that holds once it is served).
1. Legs: exact search in the engine gives the cost from the start to each target, and from the
   state where each target was served to every other one (and back, for closed tours). The
   target graph is a networkx DiGraph whose edges carry these costs.
2. Order: OR-Tools decides the visiting order. CP-SAT with a circuit constraint proves the
   optimum (used up to EXACT_LIMIT targets); the routing solver with guided local search takes
   larger instances and reports a satisficing order.
3. Stitch: the legs are re-planned from the actual states along the chosen order and the whole
   plan is validated by the interpreter against the problem's goal.

The optimality claim rests on one assumption: the cost of a leg does not depend on the order of
the earlier visits, and no plan serves targets more cheaply together (true when serving a
target only changes its own flags, as in PPNL). The problem's author declares it with
`routing.exact: true`; without it, or when stitching disagrees with the model's cost, the
result is reported as satisficing.

Ties. Several orders often share the optimal cost; exact-match ground truth needs one of them.
With `tie_break="earliest"` (what `solve_routing` uses) the order chosen among the optimal ones
serves target 0 as early as possible, then target 1 as early as possible, and so on (the
lexicographically smallest vector of positions, targets in the problem's order). CP-SAT proves
it with a second solve that fixes the optimal cost; `brute_force_sequence` applies the same
rule. It holds for up to TIE_BREAK_LIMIT targets without prizes; beyond that, and for the
routing solver, the order among equal-cost ones is the solver's.
"""
from __future__ import annotations

import itertools
import math
import time

from ..result import SOLVED_OPTIMAL, SOLVED_SATISFICING, UNSOLVABLE_PROVEN, UNSUPPORTED, PlanResult

EXACT_LIMIT = 25
TIE_BREAK_LIMIT = 14  # (n + 1) ** n must fit CP-SAT's 64-bit objective
TIE_BREAKS = (None, "earliest")
SCALE = 1000  # costs are scaled to integers for the solvers


def target_graph(task, start, time_limit=None):
    """A networkx DiGraph: node 'start', one node per target (with the state where it was served),
    edges weighted by the optimal leg cost and carrying the leg's actions."""
    import networkx as nx

    from ..search import best_first

    routing = task.problem.routing
    graph = nx.DiGraph()
    graph.add_node("start", state=start)
    stats = {"expanded": 0, "generated": 0}

    def leg(state, goal):
        leg_task = task.with_goal(goal)  # the problem's own constraints are the sequencer's job, not the leg's
        result = best_first(leg_task, None, start=state, planner="ucs", time_limit=time_limit)
        stats["expanded"] += result.expanded
        stats["generated"] += result.generated
        if not result.solved:
            return None
        end = state
        for action in result.actions:
            end = leg_task.successor(end, action)
        return result.cost, result.actions, end

    for name, goal in routing["targets"].items():
        found = leg(start, goal)
        if found is not None:
            cost, actions, end = found
            graph.add_node(name, state=end)
            graph.add_edge("start", name, cost=cost, actions=actions)
    names = [n for n in routing["targets"] if n in graph]
    for a in names:
        for b in names:
            if a != b:
                found = leg(graph.nodes[a]["state"], routing["targets"][b])
                if found is not None:
                    graph.add_edge(a, b, cost=found[0], actions=found[1])
        if routing["tour"] == "closed":
            found = leg(graph.nodes[a]["state"], routing["return"])
            if found is not None:
                graph.add_edge(a, "end", cost=found[0], actions=found[1])
    return graph, stats


def solve_sequence(n, first, leg, last, precedence=(), prizes=None, budget=None, time_limit=None, exact=None,
                   tie_break=None):
    """Best visiting order of targets 0..n-1.

    first[i]: cost start -> i; leg[i][j]: cost i -> j; last[i]: cost i -> end (0 for an open path);
    None marks a missing arc. precedence: (before, after) index groups. With prizes, targets are
    optional and the order maximising the total prize (then minimising cost) within `budget` wins.
    tie_break: None (the solver's choice among optimal orders) or "earliest" (see the module notes).
    Returns (order, cost, prize, proven) or None when no order is feasible.
    """
    if tie_break not in TIE_BREAKS:
        raise ValueError(f"unknown tie-break {tie_break!r} (choose from {', '.join(map(str, TIE_BREAKS))})")
    exact = n <= EXACT_LIMIT if exact is None else exact
    if exact:
        return _cp_sat(n, first, leg, last, precedence, prizes, budget, time_limit, tie_break)
    return _routing_solver(n, first, leg, last, precedence, prizes, budget, time_limit)


def _int(c):
    return int(round(c * SCALE))


def _cp_sat(n, first, leg, last, precedence, prizes, budget, time_limit, tie_break=None):
    from ortools.sat.python import cp_model

    model = cp_model.CpModel()
    arcs = []
    cost_terms = []
    lits = {}

    def arc(i, j, cost):
        lit = model.NewBoolVar(f"a{i}_{j}")
        arcs.append((i, j, lit))
        lits[i, j] = lit
        if cost:
            cost_terms.append(_int(cost) * lit)

    depot = 0
    for i in range(n):
        if first[i] is not None:
            arc(depot, i + 1, first[i])
        if last[i] is not None:
            arc(i + 1, depot, last[i])
        for j in range(n):
            if i != j and leg[i][j] is not None:
                arc(i + 1, j + 1, leg[i][j])
        if prizes is not None:
            arc(i + 1, i + 1, 0)  # self-loop: target skipped
    if prizes is not None:
        arc(depot, depot, 0)  # the empty route
    else:
        # a node without arcs would silently drop out of the circuit: every target must be served
        heads = {j for _, j, _ in arcs}
        tails = {i for i, _, _ in arcs}
        if any(i + 1 not in heads or i + 1 not in tails for i in range(n)) or not arcs:
            return None
    model.AddCircuit(arcs)
    visited = [(lits[i + 1, i + 1].Not() if (i + 1, i + 1) in lits else None) for i in range(n)]
    position = [model.NewIntVar(1, n, f"p{i}") for i in range(n)]
    for (i, j), lit in lits.items():
        if i == depot and j != depot:
            model.Add(position[j - 1] == 1).OnlyEnforceIf(lit)
        elif i != depot and j != depot and i != j:
            model.Add(position[j - 1] == position[i - 1] + 1).OnlyEnforceIf(lit)
    for before, after in precedence:
        for a in before:
            for b in after:
                if prizes is None:
                    model.Add(position[a] < position[b])
                else:  # optional targets: b served implies a served earlier
                    model.Add(position[a] < position[b]).OnlyEnforceIf([visited[a], visited[b]])
                    model.AddImplication(visited[b], visited[a])
    total_cost = sum(cost_terms) if cost_terms else 0
    if budget is not None:
        model.Add(total_cost <= _int(budget))
    if prizes is None:
        model.Minimize(total_cost)
    else:
        weight = _int(sum(c for row in [first, last] for c in row if c) + sum(c for row in leg for c in row if c)) + 1
        model.Maximize(sum(_int(prizes[i]) * weight * visited[i] for i in range(n)) - total_cost)
    solver = cp_model.CpSolver()
    solver.parameters.num_workers = 1
    if time_limit:
        solver.parameters.max_time_in_seconds = float(time_limit)
    status = solver.Solve(model)
    if status not in (cp_model.OPTIMAL, cp_model.FEASIBLE):
        return None
    if tie_break == "earliest" and status == cp_model.OPTIMAL and prizes is None and 1 < n <= TIE_BREAK_LIMIT:
        # second solve: the optimal cost is fixed, and the positions are minimised lexicographically
        model.Add(total_cost == int(round(solver.ObjectiveValue())))
        model.Minimize(sum(position[i] * (n + 1) ** (n - 1 - i) for i in range(n)))
        status = solver.Solve(model)
        if status != cp_model.OPTIMAL:
            return None  # cannot happen: the first solution is feasible
    successor = {i: j for (i, j), lit in lits.items() if i != j and solver.Value(lit)}
    order = []
    node = successor.get(depot)
    while node is not None and node != depot:
        order.append(node - 1)
        node = successor.get(node)
    cost = sum(c for c in _route_costs(order, first, leg, last))
    prize = sum(prizes[i] for i in order) if prizes is not None else None
    return order, cost, prize, status == cp_model.OPTIMAL


def _route_costs(order, first, leg, last):
    if not order:
        return []
    costs = [first[order[0]]]
    costs += [leg[a][b] for a, b in zip(order, order[1:])]
    costs.append(last[order[-1]])
    return costs


def _routing_solver(n, first, leg, last, precedence, prizes, budget, time_limit):
    from ortools.constraint_solver import pywrapcp, routing_enums_pb2

    big = 10**9
    start, end = n, n + 1
    manager = pywrapcp.RoutingIndexManager(n + 2, 1, [start], [end])
    routing = pywrapcp.RoutingModel(manager)

    def cost(i, j):
        a, b = manager.IndexToNode(i), manager.IndexToNode(j)
        if a == end or b == start:
            return 0
        if a == start and b == end:
            return 0 if prizes is not None else big
        if a == start:
            c = first[b]
        elif b == end:
            c = last[a]
        else:
            c = leg[a][b]
        return big if c is None else _int(c)

    callback = routing.RegisterTransitCallback(cost)
    routing.SetArcCostEvaluatorOfAllVehicles(callback)
    routing.AddDimension(callback, 0, _int(budget) if budget is not None else big * (n + 2), True, "cost")
    routing.AddDimension(routing.RegisterTransitCallback(lambda i, j: 1), 0, n + 2, True, "rank")
    rank = routing.GetDimensionOrDie("rank")
    for before, after in precedence:
        for a in before:
            for b in after:
                routing.solver().Add(rank.CumulVar(manager.NodeToIndex(a)) < rank.CumulVar(manager.NodeToIndex(b)))
    if prizes is not None:
        for i in range(n):
            routing.AddDisjunction([manager.NodeToIndex(i)], _int(prizes[i]) * (n + 2) * 1000 + 1)
    params = pywrapcp.DefaultRoutingSearchParameters()
    params.first_solution_strategy = routing_enums_pb2.FirstSolutionStrategy.PATH_CHEAPEST_ARC
    params.local_search_metaheuristic = routing_enums_pb2.LocalSearchMetaheuristic.GUIDED_LOCAL_SEARCH
    params.time_limit.FromMilliseconds(int((time_limit or 5) * 1000))
    solution = routing.SolveWithParameters(params)
    if solution is None:
        return None
    order = []
    index = routing.Start(0)
    while not routing.IsEnd(index):
        node = manager.IndexToNode(index)
        if node < n:
            order.append(node)
        index = solution.Value(routing.NextVar(index))
    costs = _route_costs(order, first, leg, last)
    if any(c is None for c in costs):
        return None
    prize = sum(prizes[i] for i in order) if prizes is not None else None
    return order, sum(costs), prize, False


def brute_force_sequence(n, first, leg, last, precedence=(), prizes=None, budget=None, tie_break=None):
    """Exhaustive enumeration (for tests and tiny instances): same contract as solve_sequence.

    Without prizes and with tie_break="earliest", equal costs go to the lexicographically
    smallest vector of positions, as in solve_sequence."""
    best = None
    subsets = [range(n)] if prizes is None else [s for k in range(n + 1) for s in itertools.combinations(range(n), k)]
    for subset in subsets:
        for order in itertools.permutations(subset):
            pos = {t: i for i, t in enumerate(order)}
            ok = True
            for before, after in precedence:
                for a in before:
                    for b in after:
                        if prizes is None and not pos[a] < pos[b]:
                            ok = False
                        if prizes is not None and b in pos and (a not in pos or pos[a] > pos[b]):
                            ok = False
            if not ok:
                continue
            costs = _route_costs(list(order), first, leg, last)
            if any(c is None for c in costs):
                continue
            cost = sum(costs)
            if budget is not None and cost > budget + 1e-9:
                continue
            prize = sum(prizes[i] for i in order) if prizes is not None else None
            key = (-(prize or 0), cost)
            if tie_break == "earliest" and prizes is None:
                key = key + (tuple(pos[i] for i in range(n)),)
            if best is None or key < best[0]:
                best = (key, list(order), cost, prize)
    if best is None:
        return None
    return best[1], best[2], best[3], True


def solve_routing(task, time_limit=None, start=None) -> PlanResult:
    routing = task.problem.routing
    began = time.perf_counter()
    if routing is None:
        return PlanResult(UNSUPPORTED, "tsp", reason="the problem has no 'routing' section naming its targets")
    start = start if start is not None else task.initial_state()
    graph, stats = target_graph(task, start, time_limit)
    names = list(routing["targets"])
    index = {name: i for i, name in enumerate(names)}
    n = len(names)

    def edge(a, b):
        return graph.edges[a, b]["cost"] if graph.has_edge(a, b) else None

    first = [edge("start", x) for x in names]
    leg = [[edge(a, b) if a != b else None for b in names] for a in names]
    last = [edge(x, "end") if routing["tour"] == "closed" else 0 for x in names]
    if routing["tour"] == "open":
        last = [0 if first[i] is not None else None for i in range(n)]
    precedence = [([index[a] for a in before], [index[b] for b in after]) for before, after in routing["precedence"]]
    prizes = [routing["prizes"].get(x, 0) for x in names] if routing["prizes"] is not None else None
    found = solve_sequence(n, first, leg, last, precedence, prizes, routing["budget"], time_limit, tie_break="earliest")
    result = PlanResult(UNSOLVABLE_PROVEN, "tsp", expanded=stats["expanded"], generated=stats["generated"])
    if found is None:
        result.reason = "no order of the targets can be served" if prizes is None else "no feasible route"
        result.seconds = time.perf_counter() - began
        return result
    order, model_cost, prize, proven = found
    # stitch: re-plan each leg from the actual state, then validate the whole plan
    from groundplan.engine.validate import validate_plan

    from ..search import best_first

    state = start
    actions = []
    goals = [routing["targets"][names[i]] for i in order]
    if routing["tour"] == "closed" and order:
        goals.append(routing["return"])
    for goal in goals:
        leg_result = best_first(task.with_goal(goal), None, start=state, planner="ucs", time_limit=time_limit)
        result.expanded += leg_result.expanded
        result.generated += leg_result.generated
        if not leg_result.solved:
            result.status, result.reason = SOLVED_SATISFICING, "a leg failed when stitched"
            break
        for action in leg_result.actions:
            state = task.successor(state, action)
        actions.extend(leg_result.actions)
    texts = [a.text for a in actions]
    check = validate_plan(task, texts, state=start, require_goal=prizes is None)
    result.actions, result.plan = actions, texts
    result.cost = check.cost
    result.seconds = time.perf_counter() - began
    result.value = prize
    if not check.valid:
        result.status = SOLVED_SATISFICING if check.status == "goal-not-reached" else UNSUPPORTED
        result.reason = f"the stitched plan does not satisfy the problem: {check.message()}"
        return result
    # the best order is only the task's optimum when legs are independent, which the author declares
    exact = proven and math.isclose(check.cost, model_cost) and routing["exact"]
    result.status = SOLVED_OPTIMAL if exact else SOLVED_SATISFICING
    order_names = ", ".join(names[i] for i in order)
    why = ""
    if not exact:
        if not proven:
            why = "; order not proven optimal"
        elif not math.isclose(check.cost, model_cost):
            why = f"; stitched cost {check.cost} differs from the model's {model_cost}"
        else:
            why = "; best order, but legs are not declared independent (routing 'exact')"
    result.reason = f"order: {order_names}" + (f"; prize {prize}" if prize is not None else "") + why
    return result
