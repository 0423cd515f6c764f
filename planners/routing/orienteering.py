"""Prize-collecting multi-trip orienteering, exact with OR-Tools CP-SAT, over a distance matrix.

One vehicle leaves a depot, serves optional targets (each worth a prize and taking some service
steps) and comes back; with a capacity, it must come back to the depot to unload (a reload,
which takes `reload_service` steps) before it has served more than `capacity` targets, and the
last return unloads too. Everything it does (moves, services, unloads) counts against a
`budget`, and each step costs `step_cost` of prize. The best route maximises
prize - step_cost x steps (the empty route is worth 0); among equally good routes the solver
picks one.

This is GRASP's oracle (energy cells as targets, TAKE as the service, DROP as the reload), but
nothing here knows about grids: any world that reduces to "collect optional things within a
step budget, unload at the depot" can use it. Unlike planners/routing/, whose legs come from
engine searches between targets, the caller supplies the leg lengths, which is what makes tens
of thousands of instances affordable.

Two CP-SAT models, both exact:
- unlimited capacity: one circuit through a start node, the targets (a self-loop skips one) and
  an end node, arcs weighted by the leg plus the service at the arc's head; arcs no route within
  the budget can use are left out;
- small capacities (reload visits): every trip of at most `capacity` targets is enumerated with
  its best order, and CP-SAT packs disjoint trips into the budget (a set-packing knapsack). This
  replaced a circuit with depot copies and load variables, which was orders of magnitude slower
  on GRASP.
"""
from __future__ import annotations

import math

SCALE = 1000


def solve_trips(dist, prizes, service=1, budget=20, capacity=None, reload_service=1, step_cost=0.0,
                time_limit=None, trip_limit=3, hint=None):
    """Best route for depot 0 and targets 1..n.

    dist: (n+1) x (n+1) leg lengths (None: no path); prizes[i] for i in 1..n (index 0 unused);
    service: steps at each target (a number, or a list indexed like prizes); capacity: targets per
    trip (None: unlimited). Capacities up to `trip_limit` use the trip-packing model, None (or a
    capacity no smaller than the number of targets) the circuit model; other capacities are not
    supported (ValueError). hint: a route (same form as the result) to start from; it only
    speeds the search up, the optimum is still proven (a worse hint is improved upon). In the
    circuit model the hint's value (recomputed from the matrix) also leaves out the targets and
    arcs no route at least as good can use.
    Returns (value, route, steps, proven): route is the visiting order, 0 marking each unload at
    the depot, the final one included ([] for the empty route).
    """
    n = len(dist) - 1
    svc = [0] + [service if isinstance(service, (int, float)) else service[i] for i in range(1, n + 1)]
    if capacity is not None and capacity < n:
        if capacity > trip_limit:
            raise ValueError(f"capacity {capacity} is above trip_limit {trip_limit}: trips would be too many to enumerate")
        return _packing(dist, prizes, svc, budget, capacity, reload_service, step_cost, time_limit, hint)
    return _circuit(dist, prizes, svc, budget, reload_service, step_cost, time_limit, hint)


def _objective(model, prize_terms, step_terms, step_cost):
    """prize - step_cost x steps, scaled to integers."""
    prize = sum(int(round(p * SCALE)) * lit for p, lit in prize_terms)
    steps = sum(s * lit for s, lit in step_terms)
    model.Maximize(prize - int(round(step_cost * SCALE)) * steps)
    return steps


def _solve(model, time_limit):
    from ortools.sat.python import cp_model

    solver = cp_model.CpSolver()
    solver.parameters.num_workers = 1
    if time_limit:
        solver.parameters.max_time_in_seconds = float(time_limit)
    status = solver.Solve(model)
    ok = status in (cp_model.OPTIMAL, cp_model.FEASIBLE)
    return solver if ok else None, status == cp_model.OPTIMAL


def _circuit(dist, prizes, svc, budget, reload_service, step_cost, time_limit, hint=None):
    """One closed route from the depot: a circuit over the start, the targets (optional) and the end."""
    from ortools.sat.python import cp_model

    n = len(dist) - 1
    end = n + 1
    reach = [0] + [None if dist[0][i] is None else dist[0][i] + svc[i] for i in range(1, n + 1)]
    limit, k_min, lower = _reduction(dist, prizes, svc, budget, reload_service, step_cost, hint)
    useful = _useful_targets(dist, prizes, svc, budget, reload_service, step_cost, lower)
    model = cp_model.CpModel()
    arcs, steps, lits = [(end, 0, model.NewConstant(1))], [], {}

    def arc(a, b, s):
        lit = model.NewBoolVar(f"x{a}_{b}")
        arcs.append((a, b, lit))
        lits[a, b] = lit
        steps.append((s, lit))

    arc(0, end, 0)  # the empty route
    extra = max(k_min - 1, 0) * min(svc[1:], default=0)  # the services of the other targets a better route needs
    for i in range(1, n + 1):
        if reach[i] is None or dist[i][0] is None or reach[i] + dist[i][0] + reload_service + extra > limit \
                or i not in useful:
            continue
        arc(0, i, reach[i])
        arc(i, end, dist[i][0] + reload_service)
        for j in range(1, n + 1):
            if j != i and j in useful and dist[i][j] is not None and reach[j] is not None and dist[j][0] is not None \
                    and reach[i] + dist[i][j] + svc[j] + dist[j][0] + reload_service <= limit:
                arc(i, j, dist[i][j] + svc[j])
    visited = []
    for i in range(1, n + 1):
        skip = model.NewBoolVar(f"skip{i}")
        arcs.append((i, i, skip))
        visited.append((prizes[i], skip.Not()))
    model.AddCircuit(arcs)
    total = _objective(model, visited, steps, step_cost)
    model.Add(total <= limit)
    # implied bounds that let CP-SAT stop early: every target costs at least its cheapest way in
    # (leg >= 1 plus its service), and a non-empty route ends with a return and an unload
    count = sum(lit for _, lit in visited)
    cheapest_in = min((s for s, _ in steps if s > 0), default=1)
    cheapest_out = min((dist[i][0] + reload_service for i in range(1, n + 1) if dist[i][0] is not None), default=0)
    model.Add(total >= cheapest_in * count + cheapest_out).OnlyEnforceIf(lits[0, end].Not())
    model.Add(cheapest_in * count + cheapest_out <= budget).OnlyEnforceIf(lits[0, end].Not())
    if k_min:
        model.Add(count >= k_min)  # routes worth less than the hint's are of no interest
    if hint is not None:
        stops = [k for k in hint if k]
        used = set(zip([0] + stops, stops + [end])) if stops else {(0, end)}
        if all(arc in lits for arc in used):
            for arc, lit in lits.items():
                model.AddHint(lit, arc in used)
    solver, proven = _solve(model, time_limit)
    if solver is None:
        return 0.0, [], 0, False
    nxt = {a: b for (a, b), lit in lits.items() if solver.Value(lit)}
    route, k = [], nxt.get(0)
    while k is not None and k != end:
        route.append(k)
        k = nxt.get(k)
    return _result(route + [0] if route else [], prizes, step_cost, solver.Value(total), proven)


def _reduction(dist, prizes, svc, budget, reload_service, step_cost, hint):
    """(largest step count, fewest targets) a route at least as good as the hint's must have.

    The hint's value is computed here from the matrix (a route over missing arcs or beyond the
    budget gives no reduction), so the reduction is sound whatever produced the hint: routes
    worth less are left out of the model, and the hint itself always stays in it. Every target
    needs at least one move in and its service; a route collecting `prize` within `steps` is
    worth prize - step_cost x steps, and at least `lower` only if steps <= (prize - lower) /
    step_cost and the route visits at least lower / (largest prize) targets.
    """
    n = len(dist) - 1
    if hint is None or n == 0:
        return budget, 0, None
    stops = [k for k in hint if k]
    if not stops:
        return budget, 0, None
    path = [0] + stops + [0]
    legs = [dist[a][b] for a, b in zip(path, path[1:])]
    if None in legs or len(set(stops)) != len(stops):
        return budget, 0, None
    used = sum(legs) + sum(svc[k] for k in stops) + reload_service
    lower = sum(prizes[k] for k in stops) - step_cost * used
    if used > budget or lower <= 0:
        return budget, 0, None
    top = max(prizes[1:])
    k_min = math.ceil(lower / top - 1e-9)
    limit = budget
    if step_cost > 0:
        most = (budget - reload_service) // (1 + min(svc[1:])) * top  # the largest prize any route can collect
        limit = min(budget, math.floor((most - lower) / step_cost + 1e-9))
    return limit, k_min, lower


def _useful_targets(dist, prizes, svc, budget, reload_service, step_cost, lower):
    """The targets some route worth at least `lower` may visit (all of them when lower is None).

    A route through i with t targets makes at least max(d(0,i) + d(i,0), (t + 1) x the shortest
    leg) moves, t x the smallest service and the unload, and collects at most t x the largest
    prize; i is useless when no t gives at least `lower` within the budget."""
    n = len(dist) - 1
    everything = set(range(1, n + 1))
    if lower is None:
        return everything
    top, service = max(prizes[1:]), min(svc[1:])
    legs = [dist[a][b] for a in range(n + 1) for b in range(n + 1) if a != b and dist[a][b] is not None]
    shortest = min(legs, default=0)
    keep = set()
    for i in everything:
        if dist[0][i] is None or dist[i][0] is None:
            continue
        around = dist[0][i] + dist[i][0]
        for t in range(1, n + 1):
            steps = max(around, (t + 1) * shortest) + t * service + reload_service
            if steps > budget:
                break
            if t * top - step_cost * steps >= lower - 1e-9:
                keep.add(i)
                break
    return keep


def _packing(dist, prizes, svc, budget, capacity, reload_service, step_cost, time_limit, hint=None):
    """Small capacities: choose disjoint trips (each a best-ordered group of <= capacity targets)."""
    import itertools

    from ortools.sat.python import cp_model

    n = len(dist) - 1
    usable = [i for i in range(1, n + 1) if dist[0][i] is not None and dist[i][0] is not None
              and dist[0][i] + svc[i] + dist[i][0] + reload_service <= budget]
    trips = []
    for size in range(1, capacity + 1):
        for group in itertools.combinations(usable, size):
            best = None
            for order in itertools.permutations(group):
                legs = [dist[0][order[0]]] + [dist[a][b] for a, b in zip(order, order[1:])] + [dist[order[-1]][0]]
                if None in legs:
                    continue
                s = sum(legs) + sum(svc[i] for i in order) + reload_service
                if best is None or s < best[0]:
                    best = (s, order)
            if best is not None and best[0] <= budget:
                trips.append(best)
    model = cp_model.CpModel()
    chosen = [model.NewBoolVar(f"t{k}") for k in range(len(trips))]
    for i in usable:
        model.AddAtMostOne(lit for lit, (_, order) in zip(chosen, trips) if i in order)
    value = [(sum(prizes[i] for i in order), lit) for lit, (_, order) in zip(chosen, trips)]
    total = _objective(model, value, [(s, lit) for lit, (s, _) in zip(chosen, trips)], step_cost)
    model.Add(total <= budget)
    if hint is not None:
        groups, group = set(), []
        for k in hint:
            if k:
                group.append(k)
            else:
                groups.add(frozenset(group))
                group = []
        for lit, (_, order) in zip(chosen, trips):
            model.AddHint(lit, frozenset(order) in groups)
    solver, proven = _solve(model, time_limit)
    if solver is None:
        return 0.0, [], 0, False
    route = []
    for lit, (_, order) in zip(chosen, trips):
        if solver.Value(lit):
            route += list(order) + [0]
    return _result(route, prizes, step_cost, solver.Value(total), proven)


def _result(route, prizes, step_cost, used, proven):
    value = sum(prizes[k] for k in route if k) - step_cost * used
    return round(value, 10), route, used, proven
