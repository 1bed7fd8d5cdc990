"""The report's own statistics against scipy: Spearman's rho and Kendall's tau-b (with
and without ties, small and large), average ranks, quantiles and exactly rounded means."""

from __future__ import annotations

import math
import statistics

import numpy as np
import pytest
import scipy.stats

from reproscore.report.stats import (
    average_ranks,
    fmean,
    kendall_tau_b,
    quantile,
    spearman_rho,
    summary,
)


def _cases():
    rng = np.random.default_rng(20261101)
    yield "two", np.array([1.0, 2.0]), np.array([2.0, 1.0])
    yield "three tied", np.array([1.0, 1.0, 2.0]), np.array([3.0, 1.0, 1.0])
    for n in (3, 5, 17, 64, 250, 1001):
        x = rng.uniform(0, 100, n)
        yield f"continuous {n}", x, x + rng.normal(0, 20, n)
        # Scores rounded to levels: many ties in both lists, as RRS under two rubrics.
        a = rng.choice([0.0, 25.0, 50.0, 70.0, 100.0], n)
        yield f"ties {n}", a, np.round(a * 0.6 + rng.choice([0.0, 10.0, 20.0], n), 2)
        yield f"reversed {n}", x, -x
    big = rng.uniform(0, 100, 20000).round(2)
    yield "20000 rounded", big, (big * 0.7 + rng.uniform(0, 30, 20000)).round(2)


CASES = list(_cases())


@pytest.mark.parametrize(("name", "x", "y"), CASES, ids=[c[0] for c in CASES])
def test_spearman_and_kendall_match_scipy(name, x, y):
    assert spearman_rho(x, y) == pytest.approx(scipy.stats.spearmanr(x, y).statistic, abs=1e-12)
    assert kendall_tau_b(x, y) == pytest.approx(scipy.stats.kendalltau(x, y).statistic, abs=1e-12)
    assert kendall_tau_b(y, x) == pytest.approx(scipy.stats.kendalltau(y, x).statistic, abs=1e-12)


def test_perfect_agreement_and_reversal():
    x = np.arange(10.0)
    assert spearman_rho(x, 2 * x + 1) == 1.0 and kendall_tau_b(x, 2 * x + 1) == 1.0
    assert spearman_rho(x, -x) == -1.0 and kendall_tau_b(x, -x) == -1.0


@pytest.mark.parametrize("x", [[], [3.0], [2.0, 2.0, 2.0]])
def test_undefined_correlations_are_none(x):
    y = list(range(len(x)))
    assert spearman_rho(x, y) is None
    assert kendall_tau_b(x, y) is None


def test_lists_of_different_lengths_are_an_error():
    with pytest.raises(ValueError):
        spearman_rho([1, 2], [1, 2, 3])
    with pytest.raises(ValueError):
        kendall_tau_b([1, 2], [1])


def test_average_ranks_match_scipy():
    values = [5.0, 1.0, 5.0, 3.0, 5.0, 1.0, 0.5]
    assert average_ranks(values).tolist() == scipy.stats.rankdata(values, method="average").tolist()


def test_quantiles_are_linear_interpolation_and_means_exactly_rounded():
    rng = np.random.default_rng(5)
    data = np.sort(rng.uniform(0, 100, 101))
    for q in (0.0, 0.1, 0.25, 0.5, 0.75, 0.9, 1.0):
        assert quantile(data, q) == pytest.approx(float(np.percentile(data, 100 * q)), abs=1e-12)
    assert quantile([], 0.5) is None and quantile([7.0], 0.9) == 7.0
    values = [0.1] * 10 + [1e16, -1e16]
    assert fmean(values) == math.fsum(values) / len(values) == statistics.fmean(values)
    assert fmean([]) is None
    s = summary([4.0, 1.0, 3.0, 2.0])
    assert (s["n"], s["mean"], s["min"], s["median"], s["max"]) == (4, 2.5, 1.0, 2.5, 4.0)
