#!/usr/bin/env python3
"""Reference values for crates/core/src/meta/bootstrap_tests.rs, from scipy (and the krippendorff package).

Not part of the build: run it in a venv with scipy, numpy and krippendorff to re-derive the
numbers pinned in the Rust tests, e.g.

    python3 -m venv /tmp/scipy-venv && /tmp/scipy-venv/bin/pip install scipy numpy krippendorff
    /tmp/scipy-venv/bin/python scripts/bootstrap_refs.py

Data: tests/fixtures/msvd_eval/ratings.tsv (real MSVD-Eval ratings; annotator 1 plays the
metric, annotator 2 the human) and small fixed arrays printed below.
"""
import pathlib

import krippendorff
import numpy as np
import scipy
from scipy import stats

N = 9999  # scipy's default number of resamples
ROOT = pathlib.Path(__file__).resolve().parent.parent
FIELDS = ["accuracy", "completeness", "conciseness", "relevance", "mean"]


def load():
    rows = []
    for line in (ROOT / "tests/fixtures/msvd_eval/ratings.tsv").read_text().splitlines():
        if line.startswith("#"):
            continue
        parts = line.split("\t")
        rows.append([float(v) for v in parts[1:]])
    return np.array(rows)


def tau(x, y, variant="b"):
    return stats.kendalltau(x, y, variant=variant).statistic


def boot(data, statistic, seed):
    r = stats.bootstrap(data, statistic, paired=True, vectorized=False, n_resamples=N,
                        method="percentile", random_state=np.random.default_rng(seed))
    return r.confidence_interval.low, r.confidence_interval.high


def main():
    print(f"# scipy {scipy.__version__}, numpy {np.__version__}, krippendorff {krippendorff.__version__ if hasattr(krippendorff, '__version__') else '0.9.0'}")
    m = load()
    a1, a2 = m[:, :5], m[:, 5:]
    print("MSVD (field, tau_b, tau_c, ci_b_low, ci_b_high, ci_c_low, ci_c_high, alpha, alpha_low, alpha_high), x100 except alpha")
    for i, f in enumerate(FIELDS):
        x, y = a1[:, i], a2[:, i]
        lb, hb = boot((x, y), lambda x, y: tau(x, y), 1)
        lc, hc = boot((x, y), lambda x, y: tau(x, y, "c"), 2)
        al = lambda x, y: krippendorff.alpha(reliability_data=[x, y], level_of_measurement="interval")
        la, ha = boot((x, y), al, 3)
        print(f'("{f}", {100*tau(x, y)!r}, {100*tau(x, y, "c")!r}, {100*lb:.2f}, {100*hb:.2f}, '
              f'{100*lc:.2f}, {100*hc:.2f}, {al(x, y)!r}, {la:.4f}, {ha:.4f}),')

    # Groups of three clips resampled whole (best-of-N sets stay together).
    x, y = a1[:, 4], a2[:, 4]
    groups = np.arange(len(x)) // 3
    ids = np.unique(groups)
    members = [np.flatnonzero(groups == g) for g in ids]

    def grouped(g):
        idx = np.concatenate([members[k] for k in g])
        return tau(x[idx], y[idx])
    r = stats.bootstrap((ids,), grouped, vectorized=False, n_resamples=N, method="percentile",
                        random_state=np.random.default_rng(4))
    print(f"grouped mean tau-b ci: {100*r.confidence_interval.low:.2f} {100*r.confidence_interval.high:.2f}")

    # Two runs against annotator 2's mean: run a = annotator 1's accuracy, run b = their mean.
    h, ra, rb = a2[:, 4], a1[:, 0], a1[:, 4]
    d = lambda a, b: 100 * (tau(b, h) - tau(a, h))
    print(f"paired tau-b diff: {d(ra, rb)!r}")
    lo, hi = boot((ra, rb, h), lambda a, b, h_: 100 * (tau(b, h_) - tau(a, h_)), 5)
    print(f"paired tau-b diff ci: {lo:.2f} {hi:.2f}")
    p = stats.permutation_test((ra, rb), d, permutation_type="samples", vectorized=False,
                               n_resamples=N, alternative="two-sided",
                               random_state=np.random.default_rng(6))
    print(f"paired tau-b diff p: {p.pvalue:.4f}")

    # Pairwise accuracy over 60 best-of-3 groups (two pairs each), resampled by group.
    rng = np.random.default_rng(7)
    right_a = rng.random(120) < 0.62
    right_b = np.where(rng.random(120) < 0.8, right_a, ~right_a) | (rng.random(120) < 0.1)
    pg = np.arange(120) // 2
    print("pairs a:", "".join("1" if v else "0" for v in right_a))
    print("pairs b:", "".join("1" if v else "0" for v in right_b))
    gids = np.arange(60)

    def acc(g, r):
        idx = np.concatenate([np.flatnonzero(pg == k) for k in g])
        return 100 * r[idx].mean()
    for name, r_ in (("a", right_a), ("b", right_b)):
        res = stats.bootstrap((gids,), lambda g: acc(g, r_), vectorized=False, n_resamples=N,
                              method="percentile", random_state=np.random.default_rng(8))
        print(f"accuracy {name}: {100*r_.mean()!r} ci {res.confidence_interval.low:.2f} {res.confidence_interval.high:.2f}")
    # Whole groups swap: each group's count of pairs right (every group has two pairs).
    ga, gb = right_a.reshape(60, 2).sum(axis=1), right_b.reshape(60, 2).sum(axis=1)
    pd = lambda a, b: 100 * (b.sum() - a.sum()) / 120
    res = stats.permutation_test((ga, gb), pd, permutation_type="samples", vectorized=False,
                                 n_resamples=N, random_state=np.random.default_rng(9))
    print(f"accuracy diff {pd(ga, gb)!r} p {res.pvalue:.4f}")

    def dg(g):
        idx = np.concatenate([np.flatnonzero(pg == k) for k in g])
        return 100 * (right_b[idx].mean() - right_a[idx].mean())
    res = stats.bootstrap((gids,), dg, vectorized=False, n_resamples=N, method="percentile",
                          random_state=np.random.default_rng(10))
    print(f"accuracy diff ci {res.confidence_interval.low:.2f} {res.confidence_interval.high:.2f}")


if __name__ == "__main__":
    main()
