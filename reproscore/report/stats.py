"""The small statistics of the report, written out so that every number it prints has a
stated definition: exactly rounded means, quantiles by linear interpolation, average
(fractional) ranks, Spearman's rho and Kendall's tau-b.

Kendall's tau-b uses Knight's O(n log n) algorithm, so that two rubrics can be compared
over a whole collection (100,000 deposits) in well under a second; the pairs that are
discordant are counted as inversions with one vectorised pass per level of a merge
sort. The tests check both coefficients against ``scipy.stats`` (which the report does
not need).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

__all__ = [
    "average_ranks",
    "fmean",
    "kendall_tau_b",
    "quantile",
    "spearman_rho",
    "summary",
]


def fmean(values: Sequence[float] | np.ndarray) -> float | None:
    """The mean, from an exactly rounded sum (``math.fsum``); None for no values."""
    data = values.tolist() if isinstance(values, np.ndarray) else list(values)
    if not data:
        return None
    return math.fsum(data) / len(data)


def quantile(sorted_values: Sequence[float] | np.ndarray, q: float) -> float | None:
    """The ``q`` quantile of already sorted values by linear interpolation between the
    closest ranks (position ``(n - 1) * q``: numpy's and R's default, type 7)."""
    n = len(sorted_values)
    if n == 0:
        return None
    h = (n - 1) * q
    lo = math.floor(h)
    hi = min(lo + 1, n - 1)
    low = float(sorted_values[lo])
    return low + (h - lo) * (float(sorted_values[hi]) - low)


def summary(values: Sequence[float] | np.ndarray) -> dict[str, float | int | None]:
    """Count, mean, minimum, 10th/25th/50th/75th/90th percentiles and maximum."""
    data = np.sort(np.asarray(values, dtype=float))
    out: dict[str, float | int | None] = {"n": int(data.size), "mean": fmean(data)}
    out["min"] = float(data[0]) if data.size else None
    for name, q in (("p10", 0.10), ("p25", 0.25), ("median", 0.5), ("p75", 0.75), ("p90", 0.90)):
        out[name] = quantile(data, q)
    out["max"] = float(data[-1]) if data.size else None
    return out


def average_ranks(values: Sequence[float] | np.ndarray) -> np.ndarray:
    """Ranks from 1 (smallest value) to n; tied values share the mean of their ranks."""
    data = np.asarray(values, dtype=float)
    n = data.size
    order = np.argsort(data, kind="mergesort")
    ordered = data[order]
    ranks = np.empty(n, dtype=float)
    if n == 0:
        return ranks
    # Start of each run of equal values in sorted order.
    starts = np.flatnonzero(np.concatenate(([True], ordered[1:] != ordered[:-1])))
    ends = np.concatenate((starts[1:], [n]))
    # Positions start..end-1 hold ranks start+1..end: their mean is (start + end + 1) / 2.
    run_rank = (starts + ends + 1) / 2.0
    ranks[order] = np.repeat(run_rank, ends - starts)
    return ranks


def _pearson(x: np.ndarray, y: np.ndarray) -> float | None:
    n = x.size
    if n < 2:
        return None
    mx = math.fsum(x.tolist()) / n
    my = math.fsum(y.tolist()) / n
    dx = x - mx
    dy = y - my
    sxx = math.fsum((dx * dx).tolist())
    syy = math.fsum((dy * dy).tolist())
    if sxx == 0.0 or syy == 0.0:
        return None  # a constant list: the correlation is undefined
    sxy = math.fsum((dx * dy).tolist())
    r = sxy / math.sqrt(sxx * syy)
    return max(-1.0, min(1.0, r))


def spearman_rho(x: Sequence[float] | np.ndarray, y: Sequence[float] | np.ndarray) -> float | None:
    """Spearman's rank correlation: Pearson's r of the average ranks (ties handled as
    ``scipy.stats.spearmanr`` does). None with fewer than two pairs or a constant list."""
    a = np.asarray(x, dtype=float)
    b = np.asarray(y, dtype=float)
    if a.shape != b.shape:
        raise ValueError("spearman_rho: the two lists differ in length")
    return _pearson(average_ranks(a), average_ranks(b))


def _dense(values: np.ndarray) -> np.ndarray:
    """Values replaced by their dense rank (0, 1, 2, …), so that they compare as integers."""
    return np.unique(values, return_inverse=True)[1].reshape(-1)


def _inversions(y: np.ndarray) -> int:
    """Pairs i < j with y[i] > y[j], in O(n log² n) vectorised work.

    Every pair is split at exactly one level of a bottom-up merge sort: there, i lies in
    the left half and j in the right half of one block. At each level, one stable sort
    by (block, value, half) puts, for each right-half element, exactly the left-half
    elements of its block with a value not above it before it; the others are the
    inversions it closes."""
    n = y.size
    total = 0
    index = np.arange(n)
    width = 1
    while width < n:
        block = index // (2 * width)
        right = (index // width) % 2
        order = np.lexsort((right, y, block))
        is_left = (right[order] == 0).astype(np.int64)
        blocks = block[order]
        cumulative = np.concatenate(([0], np.cumsum(is_left)))
        first = np.searchsorted(blocks, blocks, side="left")
        last = np.searchsorted(blocks, blocks, side="right")
        positions = np.arange(n)
        left_not_above = cumulative[positions] - cumulative[first]
        left_in_block = cumulative[last] - cumulative[first]
        on_right = is_left == 0
        total += int(np.sum((left_in_block - left_not_above)[on_right]))
        width *= 2
    return total


def _tied_pairs(values: np.ndarray) -> int:
    counts = np.unique(values, return_counts=True)[1].astype(np.int64)
    return int(np.sum(counts * (counts - 1) // 2))


def kendall_tau_b(x: Sequence[float] | np.ndarray, y: Sequence[float] | np.ndarray) -> float | None:
    """Kendall's tau-b (Knight's algorithm; ties in either list corrected for, as
    ``scipy.stats.kendalltau`` does by default). None with fewer than two pairs or a
    constant list."""
    a = np.asarray(x, dtype=float)
    b = np.asarray(y, dtype=float)
    if a.shape != b.shape:
        raise ValueError("kendall_tau_b: the two lists differ in length")
    n = a.size
    if n < 2:
        return None
    da = _dense(a)
    db = _dense(b)
    pairs = n * (n - 1) // 2
    ties_x = _tied_pairs(da)
    ties_y = _tied_pairs(db)
    ties_xy = _tied_pairs(da * (int(db.max()) + 1) + db)
    if ties_x == pairs or ties_y == pairs:
        return None
    order = np.lexsort((db, da))  # by x, then y: pairs tied in x are never inversions
    discordant = _inversions(db[order])
    concordant_minus_discordant = pairs - ties_x - ties_y + ties_xy - 2 * discordant
    tau = concordant_minus_discordant / math.sqrt(float(pairs - ties_x) * float(pairs - ties_y))
    return max(-1.0, min(1.0, tau))
