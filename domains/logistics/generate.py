"""Deterministic generator of logistics problems: cities, their locations, trucks, airplanes, packages.

    groundplan generate logistics --cities 2 --packages 4 --seed 1 --out problems/logistics/c2-p4-s1.json
    python -m groundplan.domains.logistics.generate ...   (the same)

Every city has `--locations` locations (default 2): the first is its airport `apt<i>`, the others
post offices (`po<i>` when a city has one, else `po<i>a`, `po<i>b`, ...). City `c<i>` gets trucks
round-robin (`--trucks`, default one per city: truck t<i> serves c<i>), so every city has at least
one; `--airplanes` (default 1) fly between all airports. Then, from one `random.Random(seed)`, in
this order: each truck's starting location within its city, each airplane's starting airport,
and for each package a starting location and a different goal location, both among all
locations. Every problem is therefore solvable (a truck in every city, an airplane whenever there
are two cities), and a given set of options always yields the same file.

The problem records the command that made it and its options under `metadata`. It does not
record an optimum; prove one with `groundplan plan PROBLEM --time-limit 60 --store`, then
`groundplan generate logistics --reformat PROBLEM` puts the file back into this layout.
"""
from __future__ import annotations

import argparse
import json
import random
import shlex
import sys
from pathlib import Path
from string import ascii_lowercase


def _post_offices(city: int, count: int) -> list[str]:
    if count == 1:
        return [f"po{city}"]
    return [f"po{city}{ascii_lowercase[k]}" for k in range(count)]


def generate(cities: int, packages: int, seed: int = 0, locations: int = 2, trucks: int | None = None,
             airplanes: int = 1, name: str | None = None) -> dict:
    """The problem as plain data (see the module docstring); ValueError for impossible options."""
    trucks = cities if trucks is None else trucks
    if cities < 1 or packages < 1:
        raise ValueError("a problem needs at least one city and one package")
    if not 1 <= locations <= 1 + len(ascii_lowercase):
        raise ValueError(f"--locations must be between 1 and {1 + len(ascii_lowercase)}")
    if cities * locations < 2:
        raise ValueError("a package needs somewhere else to go: use two cities or two locations per city")
    if trucks < cities:
        raise ValueError(f"every city needs a truck: --trucks must be at least --cities ({cities})")
    if airplanes < (1 if cities > 1 else 0):
        raise ValueError("two or more cities need an airplane")
    rng = random.Random(seed)
    city_names = [f"c{i}" for i in range(1, cities + 1)]
    places = {c: [f"apt{i}"] + _post_offices(i, locations - 1) for i, c in enumerate(city_names, 1)}
    everywhere = [loc for c in city_names for loc in places[c]]
    truck_names = [f"t{k}" for k in range(1, trucks + 1)]
    plane_names = [f"a{k}" for k in range(1, airplanes + 1)]
    package_names = [f"p{k}" for k in range(1, packages + 1)]

    objects = {c: "city" for c in city_names}
    for c in city_names:
        objects[places[c][0]] = "airport"
        objects.update({loc: "location" for loc in places[c][1:]})
    objects.update({t: "truck" for t in truck_names})
    objects.update({a: "airplane" for a in plane_names})
    objects.update({p: "package" for p in package_names})

    init = [["in-city", loc, c] for c in city_names for loc in places[c]]
    for k, t in enumerate(truck_names):
        init.append(["at", t, rng.choice(places[city_names[k % cities]])])
    airports = [places[c][0] for c in city_names]
    init += [["at", a, rng.choice(airports)] for a in plane_names]
    goals = []
    for p in package_names:
        start = rng.choice(everywhere)
        goal = rng.choice([loc for loc in everywhere if loc != start])
        init.append(["at", p, start])
        goals.append((p, goal))

    options = {"cities": cities, "locations": locations, "trucks": trucks, "airplanes": airplanes,
               "packages": packages, "seed": seed}
    name = name or f"logistics-c{cities}-p{packages}-s{seed}"
    where = "an airport" if locations == 1 else f"{locations} locations each (an airport and {_count(locations - 1, 'post office')})"
    parts = [f"{p} to {g}" for p, g in goals]
    deliveries = parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1]
    return {
        "groundplan": "1",
        "name": name,
        "domain": "logistics",
        "description": (f"{_count(cities, 'city', 'cities')} with {where}, {_count(trucks, 'truck')}, "
                        f"{_count(airplanes, 'airplane')} and {_count(packages, 'package')}."),
        "objects": objects,
        "init": init,
        "goal": {"and": [["at", p, g] for p, g in goals]},
        "goal_text": f"Deliver {deliveries}.",
        "metadata": {"options": options},
    }


def _count(n: int, one: str, many: str | None = None) -> str:
    return f"{n} {one if n == 1 else (many or one + 's')}"


def dumps(data: dict) -> str:
    """The problem in the layout every generated problem shares (engine.layout).

    `groundplan plan --store` rewrites a file in its own layout; `--reformat` puts it back."""
    from groundplan.engine.layout import dumps_problem

    return dumps_problem(data)


def main(argv=None) -> int:
    """The entry point of `groundplan generate logistics` (argv: the words after the world's name)."""
    parser = argparse.ArgumentParser(prog="groundplan generate logistics", description=__doc__.splitlines()[0])
    parser.add_argument("--cities", type=int, help="number of cities (required unless --reformat)")
    parser.add_argument("--packages", type=int, help="number of packages (required unless --reformat)")
    parser.add_argument("--locations", type=int, default=2, help="locations per city, the airport included (default 2)")
    parser.add_argument("--trucks", type=int, help="number of trucks, at least one per city (default: one per city)")
    parser.add_argument("--airplanes", type=int, default=1, help="number of airplanes (default 1)")
    parser.add_argument("--seed", type=int, default=0, help="seed of random.Random (default 0)")
    parser.add_argument("--name", help="problem name (default logistics-c<cities>-p<packages>-s<seed>)")
    parser.add_argument("--out", help="output file (default: standard output)")
    parser.add_argument("--reformat", nargs="+", metavar="PROBLEM",
                        help="instead: rewrite these problem files one fact a line (after `groundplan plan --store`)")
    args = parser.parse_args(argv)
    if args.reformat:
        for path in args.reformat:
            try:
                file = Path(path)
                file.write_text(dumps(json.loads(file.read_text(encoding="utf-8"))), encoding="utf-8")
            except (OSError, ValueError) as exc:
                parser.error(f"{path}: {exc}")
        return 0
    if args.cities is None or args.packages is None:
        parser.error("--cities and --packages are required")
    try:
        data = generate(args.cities, args.packages, args.seed, args.locations, args.trucks, args.airplanes, args.name)
    except ValueError as exc:
        parser.error(str(exc))
    words = ["groundplan", "generate", "logistics", "--cities", str(args.cities), "--packages", str(args.packages)]
    words += ["--locations", str(args.locations)] if args.locations != 2 else []
    words += ["--trucks", str(args.trucks)] if args.trucks is not None else []
    words += ["--airplanes", str(args.airplanes)] if args.airplanes != 1 else []
    words += ["--seed", str(args.seed)] + (["--name", args.name] if args.name else [])
    data["metadata"] = {"generator": shlex.join(words + (["--out", args.out] if args.out else [])), **data["metadata"]}
    text = dumps(data)
    if args.out:
        Path(args.out).parent.mkdir(parents=True, exist_ok=True)
        Path(args.out).write_text(text, encoding="utf-8")
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
