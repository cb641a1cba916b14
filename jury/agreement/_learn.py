"""Fitting a jury to labels: log-odds weights, a stacked logistic regression, Dawid-Skene.

Every model here is linear in one-hot *evidence*: a column per (source, value), where a source
is a juror or one presentation order of a pairwise juror (`jury.decide._learned.signals`). A missing
vote is a row of zeros: it adds nothing to any class, which is what "a judge error is never a
fail" means for a model. Each model ends as a `Linear` (an intercept and one score per class
for each column), the table a fit file stores and `jury.decide._learned` decides with.

- Weights (Nitzan & Paroush 1982; the "one-coin" model): each source's weight is the log-odds
  of its accuracy, smoothed towards chance (Laplace: (right + 1) / (rated + K)), scaled for K
  classes: w = log((K - 1) p / (1 - p)); a source adds w to the class it names.
- Stacked: multinomial (binomial for two classes) logistic regression with an L2 penalty, the
  intercept unpenalised, minimising sum(log loss) + |w|^2 / (2C): scikit-learn's
  ``LogisticRegression(C=C)`` objective, against which the tests check it. C is chosen by
  cross-validated log loss within the cases it is fitted on.
- Dawid-Skene (Dawid & Skene 1979): EM over class priors and each source's confusion matrix,
  no labels needed; started from the majority of the sources, smoothed by one pseudo-count.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from numpy.typing import NDArray

    from ..decide._learned import SourceKey

__all__ = [
    "C_GRID",
    "Linear",
    "columns_of",
    "design",
    "fit_dawid_skene",
    "fit_logistic",
    "fit_stacked",
    "fit_weights",
    "folds_of",
    "majority",
]

#: Penalties tried for the stacked model (inverse strength, as scikit-learn's C).
C_GRID = (0.01, 0.1, 1.0, 10.0, 100.0)

Rows = Sequence[Mapping["SourceKey", str]]
Column = tuple["SourceKey", str]


@dataclass(slots=True)
class Linear:
    """An intercept per class and, per evidence column, a score per class."""

    columns: list[Column]
    intercept: NDArray[np.float64]
    coef: NDArray[np.float64]
    #: Per source, for the weights model: (weight, smoothed accuracy, cases rated).
    weights: dict[SourceKey, tuple[float, float, int]] | None = None

    def scores(self, rows: Rows) -> NDArray[np.float64]:
        return design(rows, self.columns) @ self.coef + self.intercept

    def proba(self, rows: Rows) -> NDArray[np.float64]:
        return softmax(self.scores(rows))

    def predict(self, rows: Rows) -> tuple[NDArray[np.int64], NDArray[np.float64]]:
        """Each row's class index (-1 where two classes tie for the top) and probability."""
        scores = self.scores(rows)
        top = scores.max(axis=1, keepdims=True)
        tied = (scores == top).sum(axis=1) > 1
        index = np.where(tied, -1, scores.argmax(axis=1))
        return index.astype(np.int64), softmax(scores).max(axis=1)


def softmax(scores: NDArray[np.float64]) -> NDArray[np.float64]:
    shifted = np.exp(scores - scores.max(axis=1, keepdims=True))
    return np.asarray(shifted / shifted.sum(axis=1, keepdims=True), dtype=np.float64)


def columns_of(rows: Rows) -> list[Column]:
    """Every (source, value) seen, in a fixed order (sorted: never the order of the votes)."""
    seen = {(key, value) for row in rows for key, value in row.items()}
    return sorted(seen, key=lambda c: (c[0][0], c[0][1] or "", c[1]))


def design(rows: Rows, columns: Sequence[Column]) -> NDArray[np.float64]:
    index = {column: i for i, column in enumerate(columns)}
    matrix = np.zeros((len(rows), len(columns)))
    for r, row in enumerate(rows):
        for key, value in row.items():
            column = index.get((key, value))
            if column is not None:
                matrix[r, column] = 1.0
    return matrix


def folds_of(labels: Sequence[int], folds: int, rng: np.random.Generator) -> NDArray[np.int64]:
    """A fold number per case, stratified by class: each class dealt round the folds."""
    labels_ = np.asarray(labels)
    assigned = np.empty(len(labels_), dtype=np.int64)
    start = 0
    for value in np.unique(labels_):
        members = rng.permutation(np.nonzero(labels_ == value)[0])
        assigned[members] = (np.arange(len(members)) + start) % folds
        start += len(members)
    return assigned


# --- weights -----------------------------------------------------------------------------------


def fit_weights(rows: Rows, labels: Sequence[int], classes: Sequence[str]) -> Linear:
    """Log-odds weights from each source's smoothed accuracy; log class priors as intercept."""
    k = len(classes)
    columns = columns_of(rows)
    tally: dict[SourceKey, list[int]] = {}
    for row, label in zip(rows, labels, strict=True):
        for key, value in row.items():
            if value not in classes:
                continue  # a soft vote's probability bin: the weights model reads votes only
            seen = tally.setdefault(key, [0, 0])
            seen[0] += value == classes[label]
            seen[1] += 1
    weights: dict[SourceKey, tuple[float, float, int]] = {}
    for key, (right, rated) in tally.items():
        accuracy = (right + 1) / (rated + k)
        weights[key] = (float(np.log((k - 1) * accuracy / (1 - accuracy))), accuracy, rated)
    coef = np.zeros((len(columns), k))
    for i, (key, value) in enumerate(columns):
        if value in classes:
            coef[i, list(classes).index(value)] = weights[key][0]
    counts = np.bincount(np.asarray(labels), minlength=k) + 1.0
    return Linear(columns, np.log(counts / counts.sum()), coef, weights)


# --- stacked logistic regression ---------------------------------------------------------------


def fit_logistic(
    x: NDArray[np.float64],
    labels: Sequence[int] | NDArray[np.int64],
    k: int,
    c: float,
    *,
    start: tuple[NDArray[np.float64], NDArray[np.float64]] | None = None,
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """L2 logistic regression, (intercept (k,), coef (p, k)): binomial for two classes
    (shown symmetric, softmax([-z/2, z/2]) being the sigmoid of z), multinomial otherwise.

    Newton's method with a backtracking line search on the convex objective: the problems
    are small (a column per source and value), and a few exact steps beat a quasi-Newton
    solver whose BLAS threads cost more than the arithmetic on a busy two-core machine.
    `start` (an earlier fit's result on the same columns, at another penalty) warm-starts
    it: the objective is strictly convex, so the optimum is the same, in fewer steps.
    """
    y = np.asarray(labels)
    n, p = x.shape
    design_ = np.hstack([x, np.ones((n, 1))])
    width = 1 if k == 2 else k
    target = (y == 1).astype(np.float64)[:, None] if k == 2 else np.eye(k)[y]
    penalty = np.ones(p + 1)
    penalty[-1] = 0.0  # the intercept is not penalised

    def objective(theta: NDArray[np.float64]) -> tuple[float, NDArray[np.float64]]:
        z = design_ @ theta
        if k == 2:
            value = float(np.sum(np.logaddexp(0.0, z) - target * z))
            fitted = 1.0 / (1.0 + np.exp(-z))
        else:
            top = z.max(axis=1, keepdims=True)
            log_norm = top + np.log(np.exp(z - top).sum(axis=1, keepdims=True))
            value = float(np.sum(log_norm) - np.sum(target * z))
            fitted = np.exp(z - log_norm)
        value += float(np.sum(penalty[:, None] * theta**2)) / (2 * c)
        return value, fitted

    theta = np.zeros((p + 1, width))
    if start is not None:
        intercept, coef = start
        if k == 2:  # back from the symmetric form: z = 2 * (class 1's score)
            theta[:p, 0], theta[p, 0] = 2 * coef[:, 1], 2 * intercept[1]
        else:
            theta[:p], theta[p] = coef, intercept
    value, fitted = objective(theta)
    for _ in range(100):
        gradient = design_.T @ (fitted - target) + penalty[:, None] * theta / c
        hessian = _hessian(design_, fitted, k) + np.diag(np.tile(penalty, width)) / c
        flat = gradient.T.ravel()
        step = _newton_step(hessian, flat, k).reshape(width, p + 1).T
        decrement = float(flat @ step.T.ravel())
        if decrement / 2 < 1e-12 * max(1.0, value):
            break  # Newton's decrement: the optimum is as close as float arithmetic gets
        size = 1.0
        while True:
            candidate = theta - size * step
            new_value, new_fitted = objective(candidate)
            if new_value <= value - 1e-4 * size * decrement or size < 1e-8:
                break
            size /= 2
        theta, value, fitted = candidate, new_value, new_fitted
    w, b = theta[:p], theta[p]
    if k == 2:
        return np.array([-b[0] / 2, b[0] / 2]), np.column_stack([-w[:, 0] / 2, w[:, 0] / 2])
    return b - b.mean(), w


def _newton_step(
    hessian: NDArray[np.float64], gradient: NDArray[np.float64], k: int
) -> NDArray[np.float64]:
    """The Newton step. Two classes: the Hessian is positive definite (every weight is
    penalised; the intercept's diagonal is the sum of the fitted variances), so an LU solve
    gives the step at a tenth of the cost of a least-squares one (benchmarks/README.md,
    issue 21). More classes: the k intercepts of a softmax are not identified (adding one
    constant to all changes nothing) and the Hessian is singular there, so least squares
    takes the minimum-norm step."""
    if k == 2:
        try:
            return np.asarray(np.linalg.solve(hessian, gradient), dtype=np.float64)
        except np.linalg.LinAlgError:
            pass  # numerically singular (a fitted variance underflowed): least squares below
    return np.asarray(np.linalg.lstsq(hessian, gradient, rcond=None)[0], dtype=np.float64)


def _hessian(
    design_: NDArray[np.float64], fitted: NDArray[np.float64], k: int
) -> NDArray[np.float64]:
    """The log loss's Hessian, class blocks in row-major order (one block for two classes)."""
    if k == 2:
        weight = (fitted * (1 - fitted))[:, 0]
        return np.asarray(design_.T @ (design_ * weight[:, None]), dtype=np.float64)
    size = design_.shape[1]
    hessian = np.zeros((k * size, k * size))
    for a in range(k):
        for b in range(a, k):
            weight = fitted[:, a] * ((a == b) - fitted[:, b])
            block = design_.T @ (design_ * weight[:, None])
            hessian[a * size : (a + 1) * size, b * size : (b + 1) * size] = block
            hessian[b * size : (b + 1) * size, a * size : (a + 1) * size] = block.T
    return hessian


def fit_stacked(
    rows: Rows,
    labels: Sequence[int],
    k: int,
    *,
    folds: int,
    rng: np.random.Generator,
    c: float | None = None,
) -> tuple[Linear, float]:
    """The stacked model and its penalty (chosen by `folds`-fold log loss unless given)."""
    columns = columns_of(rows)
    x = design(rows, columns)
    y = np.asarray(labels)
    if c is None:
        assigned = folds_of(labels, min(folds, _smallest_class(labels)), rng)
        # Fold by fold, the penalties in rising C, each fit warm-started from the one before
        # on the same fold (the path of solutions is smooth in C); each C's loss is summed
        # over the folds in the same order as before.
        losses = [0.0] * len(C_GRID)
        for fold in np.unique(assigned):
            train, test = assigned != fold, assigned == fold
            previous = None
            for number, candidate in enumerate(C_GRID):
                previous = fit_logistic(x[train], y[train], k, candidate, start=previous)
                intercept, coef = previous
                proba = softmax(x[test] @ coef + intercept)
                right = proba[np.arange(int(test.sum())), y[test]]
                losses[number] -= float(np.sum(np.log(np.clip(right, 1e-12, 1.0))))
        c = C_GRID[int(np.argmin(losses))]
    intercept, coef = fit_logistic(x, y, k, c)
    return Linear(columns, intercept, coef), c


def _smallest_class(labels: Sequence[int]) -> int:
    counts = np.bincount(np.asarray(labels))
    return max(2, int(counts[counts > 0].min()))


# --- Dawid-Skene -------------------------------------------------------------------------------


def majority(rows: Rows, classes: Sequence[str]) -> NDArray[np.float64]:
    """Each row's share of sources naming each class (uniform where none does)."""
    k = len(classes)
    shares = np.zeros((len(rows), k))
    for r, row in enumerate(rows):
        for value in row.values():
            if value in classes:
                shares[r, list(classes).index(value)] += 1
    total = shares.sum(axis=1, keepdims=True)
    return np.where(total > 0, shares / np.where(total > 0, total, 1), 1.0 / k)


def fit_dawid_skene(
    rows: Rows, classes: Sequence[str], *, iterations: int = 500, tolerance: float = 1e-8
) -> tuple[Linear, NDArray[np.float64]]:
    """EM for the Dawid-Skene model; the fitted table and each row's class posterior."""
    k = len(classes)
    columns = columns_of(rows)
    x = design(rows, columns)
    sources = sorted({key for key, _ in columns}, key=lambda s: (s[0], s[1] or ""))
    of_source = np.array([sources.index(key) for key, _ in columns], dtype=np.int64)
    posterior = majority(rows, classes)
    log_theta = np.zeros((len(columns), k))
    log_prior = np.log(np.full(k, 1.0 / k))
    previous = -np.inf
    for _ in range(iterations):
        # M step: one pseudo-count smooths every prior and confusion cell.
        counts = x.T @ posterior + 1.0  # (columns, k): class k cases where a column fired
        totals = np.zeros((len(sources), k))
        np.add.at(totals, of_source, counts)
        log_theta = np.log(counts / totals[of_source])
        prior = posterior.sum(axis=0) + 1.0
        log_prior = np.log(prior / prior.sum())
        # E step.
        joint = x @ log_theta + log_prior
        top = joint.max(axis=1, keepdims=True)
        norm = top + np.log(np.exp(joint - top).sum(axis=1, keepdims=True))
        posterior = np.exp(joint - norm)
        likelihood = float(norm.sum())
        if likelihood - previous < tolerance * max(1.0, abs(likelihood)):
            break
        previous = likelihood
    return Linear(columns, log_prior, log_theta), posterior
