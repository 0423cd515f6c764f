"""Solving a task through smaller ones: a goal agenda that plans for one part of an order at a
time (`agenda`), and turn-based multi-agent tasks solved through their serial version and
scheduled into turns (`solo`)."""
