"""PDDL in and out: planning people write PDDL and trust Fast Downward.

`reader` turns a PDDL domain and problems (PDDL 2.1 level 1 plus derived predicates and action
costs) into groundplan JSON; `writer` turns a groundplan problem whose world that fragment can
express back into PDDL, with the names mapped both ways so a PDDL planner's plan reads back as
our actions. Parsing uses the maintained `pddl` package (it reads `either` types and `:derived`,
which tarski does not); nothing here parses PDDL by hand except a scan for the constructs we
refuse, so the refusal can name the line.
"""
