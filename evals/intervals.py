"""95% confidence intervals for the leaderboard (`evals.leaderboard`), with no dependency beyond
the standard library (scipy is not one of ours), and deterministic: the same episodes give the same
interval on every machine, so a test can pin one and two reports of one run agree.

Two methods, chosen per metric by what it is an average of:

- `wilson`: the Wilson score interval (Wilson 1927; it stays inside [0, 1] and, unlike the normal
  approximation, does not collapse to a point at 0/n or n/n), for success-type rates. The success
  rate of one episode per problem is a proportion of independent trials, the episodes. With
  several samples per problem, the samples of one problem are not independent, so the success rate
  and pass@k are taken as what they are, means over problems of a value in [0, 1] (the problem's
  fraction of successes, its unbiased pass@k), and the interval is Wilson's with n = the problems
  (`wilson_rate`): conservative, since a value in [0, 1] of mean p varies no more than a trial of
  probability p.
- `bootstrap`: a percentile bootstrap over problems (resample the problems with replacement,
  recompute the metric on all the episodes of the problems drawn, take the 2.5th and 97.5th
  percentiles of the recomputed values), for means: optimality over successes, steps, and the
  worlds' own metrics. When every problem scores the same, every resample does too and the
  interval is that point: it says nothing about problems unlike those drawn.

The draws come from numpy's legacy `RandomState` (a stream numpy keeps frozen across versions)
seeded from the SHA-256 of a string naming the report's seed and the row: reproducible on every
machine, whatever PYTHONHASHSEED is.

numpy is imported when an interval is drawn, not when this module is.
"""
from __future__ import annotations

import math

Z95 = 1.959963984540054  # the 97.5th percentile of the standard normal
BOOTSTRAP = 1000  # resamples, unless told otherwise
WILSON, WILSON_PROBLEMS, PERCENTILE_BOOTSTRAP = "wilson", "wilson over problems", "bootstrap"


def wilson(successes: float, n: int, z: float = Z95) -> tuple[float, float] | tuple[None, None]:
    """The Wilson score interval of `successes` out of `n` trials; (None, None) for n = 0.
    `successes` may be a fraction of n (`wilson_rate`)."""
    if n <= 0:
        return None, None
    p = min(1.0, max(0.0, successes / n))
    denominator = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denominator
    half = z / denominator * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    return max(0.0, centre - half), min(1.0, centre + half)


def wilson_rate(rate: float, units: int) -> tuple[float, float] | tuple[None, None]:
    """Wilson's interval for the mean of `units` independent values in [0, 1] (a success rate or
    pass@k per problem, averaged over problems): conservative, since a value in [0, 1] of mean p
    varies no more than one trial of probability p does."""
    return wilson(rate * units, units)


def percentile(sorted_values: list[float], q: float) -> float:
    """The q-quantile (0 <= q <= 1) of sorted values, linear between neighbours (numpy's default)."""
    position = q * (len(sorted_values) - 1)
    low = math.floor(position)
    high = min(low + 1, len(sorted_values) - 1)
    return sorted_values[low] + (sorted_values[high] - sorted_values[low]) * (position - low)


CHUNK = 100  # resamples drawn at once (a 16,000-problem run: 100 x 16,000 indices in memory, not 1000 x)


def _rng(seed: str):
    """numpy's legacy RandomState (its stream is frozen across numpy versions), seeded from SHA-256 of `seed`."""
    import hashlib

    import numpy as np

    return np.random.RandomState(int.from_bytes(hashlib.sha256(seed.encode()).digest()[:4], "big"))


def resamples(units: int, replicates: int, seed: str):
    """The resamples of `units` problems (index arrays drawn with replacement), `replicates` of
    them, in chunks of at most CHUNK rows: the same for the same arguments, on every machine."""
    if units <= 0:
        return
    rng = _rng(seed)
    done = 0
    while done < replicates:
        size = min(CHUNK, replicates - done)
        yield rng.randint(0, units, size=(size, units))
        done += size


def interval_of(values: list[float], replicates: int) -> tuple[float, float] | tuple[None, None]:
    values = [float(v) for v in values if v is not None and not isinstance(v, bool) and isinstance(v, (int, float)) and not math.isnan(v)]
    if not values or len(values) * 2 < replicates:  # undefined on most resamples: no interval
        return None, None
    values.sort()
    return percentile(values, 0.025), percentile(values, 0.975)


def bootstrap_ratio(numerators, denominators, replicates: int, seed: str) -> tuple[float, float] | tuple[None, None]:
    """The 95% percentile-bootstrap interval of sum(numerators) / sum(denominators) over problems
    (one entry per problem: e.g. the successes of its episodes and their number); resamples whose
    denominator is 0 (a mean over successes where none was drawn) give no value, and fewer than
    half with a value give no interval."""
    import numpy as np

    top, bottom = np.asarray(numerators, dtype=float), np.asarray(denominators, dtype=float)
    values = []
    for chunk in resamples(len(top), replicates, seed):
        below = bottom[chunk].sum(axis=1)
        above = top[chunk].sum(axis=1)
        values += [a / b if b else None for a, b in zip(above.tolist(), below.tolist())]
    return interval_of(values, replicates)
