"""Gaussian kernel density estimation (jax.scipy.stats.gaussian_kde)."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any

import numpy as np

from pyjax._src import dtypes
from pyjax._src.api import vmap
from pyjax._src.jit import jit
from pyjax._src.numpy.util import check_arraylike, promote_dtypes_inexact
from pyjax._src.scipy import jnp_pending as jnp
from pyjax._src.scipy import linalg, special
from pyjax._src.tree_util import register_pytree_node_class

__all__ = ["gaussian_kde"]

BwMethod = None | str | Any | Callable[[Any], Any]


@register_pytree_node_class
class gaussian_kde:
    """Representation of a kernel-density estimate using Gaussian kernels.

    JAX implementation of :class:`scipy.stats.gaussian_kde`. ``dataset`` has
    shape ``(d, n)`` (or ``(n,)`` for one dimension); the bandwidth is
    Scott's rule (default), Silverman's, a scalar factor, or a callable of
    the estimator. The estimator is a pytree (it passes through jit).
    """

    __slots__ = ("neff", "dataset", "weights", "covariance", "inv_cov")

    def __init__(self, dataset, bw_method: BwMethod = None, weights=None):
        check_arraylike("gaussian_kde", dataset)
        dataset = jnp.atleast_2d(dataset)
        if dtypes.issubdtype(dataset.dtype, np.complexfloating):
            raise NotImplementedError("gaussian_kde does not support complex data")
        if not dataset.size > 1:
            raise ValueError("`dataset` input should have multiple elements.")
        d, n = dataset.shape
        if weights is not None:
            check_arraylike("gaussian_kde", weights)
            dataset, weights = promote_dtypes_inexact(dataset, weights)
            weights = jnp.atleast_1d(weights)
            weights = weights / jnp.sum(weights)
            if weights.ndim != 1:
                raise ValueError("`weights` input should be one-dimensional.")
            if len(weights) != n:
                raise ValueError("`weights` input should be of length n")
        else:
            (dataset,) = promote_dtypes_inexact(dataset)
            weights = jnp.full(n, 1.0 / n, dtype=dataset.dtype)
        self._set("dataset", dataset)
        self._set("weights", weights)
        neff = self._set("neff", 1 / jnp.sum(weights ** 2))
        bw_method = "scott" if bw_method is None else bw_method
        if isinstance(bw_method, str) and bw_method == "scott":
            factor = jnp.power(neff, -1.0 / (d + 4))
        elif isinstance(bw_method, str) and bw_method == "silverman":
            factor = jnp.power(neff * (d + 2) / 4.0, -1.0 / (d + 4))
        elif jnp.isscalar(bw_method) and not isinstance(bw_method, str):
            factor = bw_method
        elif callable(bw_method):
            factor = bw_method(self)
        else:
            raise ValueError("`bw_method` should be 'scott', 'silverman', a scalar, or a callable.")
        data_cov = jnp.atleast_2d(jnp.cov(dataset, rowvar=1, bias=False, aweights=weights))
        self._set("covariance", data_cov * factor ** 2)
        self._set("inv_cov", jnp.linalg.inv(data_cov) / factor ** 2)

    def _set(self, name, value):
        object.__setattr__(self, name, value)
        return value

    def __setattr__(self, name, value):
        raise AttributeError(f"cannot assign to field {name!r}")

    def tree_flatten(self):
        return (self.neff, self.dataset, self.weights, self.covariance, self.inv_cov), None

    @classmethod
    def tree_unflatten(cls, aux_data, children):
        kde = cls.__new__(cls)
        for name, value in zip(cls.__slots__, children):
            kde._set(name, value)
        return kde

    @property
    def d(self) -> int:
        """The number of dimensions."""
        return self.dataset.shape[0]

    @property
    def n(self) -> int:
        """The number of data points."""
        return self.dataset.shape[1]

    def evaluate(self, points):
        """The estimated density at ``points`` (shape ``(d, m)``)."""
        check_arraylike("evaluate", points)
        points = self._reshape_points(points)
        return _kernel_sum(False, self.dataset.T, self.weights[:, None], points.T, self.inv_cov)[:, 0]

    def __call__(self, points):
        return self.evaluate(points)

    def pdf(self, x):
        """The estimated density (as ``evaluate``)."""
        return self.evaluate(x)

    def logpdf(self, x):
        """The log of the estimated density, computed in log space."""
        check_arraylike("logpdf", x)
        x = self._reshape_points(x)
        return _kernel_sum(True, self.dataset.T, self.weights[:, None], x.T, self.inv_cov)[:, 0]

    def integrate_gaussian(self, mean, cov):
        """The integral of the estimate times a Gaussian ``N(mean, cov)``."""
        mean = jnp.atleast_1d(jnp.squeeze(mean))
        cov = jnp.atleast_2d(cov)
        if mean.shape != (self.d,):
            raise ValueError(f"mean does not have dimension {self.d}")
        if cov.shape != (self.d, self.d):
            raise ValueError(f"covariance does not have dimension {self.d}")
        chol = linalg.cho_factor(self.covariance + cov)
        norm = 1.0 / (jnp.sqrt(2 * np.pi) ** self.d * jnp.prod(jnp.diag(chol[0])))
        return _kernel_convolve(chol, norm, self.dataset, self.weights, mean)

    @jit
    def integrate_box_1d(self, low, high):
        """The estimate's mass between ``low`` and ``high`` (one dimension only)."""
        if self.d != 1:
            raise ValueError("integrate_box_1d() only handles 1D pdfs")
        if np.ndim(low) != 0 or np.ndim(high) != 0:
            raise ValueError("the limits of integration in integrate_box_1d must be scalars")
        sigma = jnp.squeeze(jnp.sqrt(self.covariance))
        low = jnp.squeeze((low - self.dataset) / sigma)
        high = jnp.squeeze((high - self.dataset) / sigma)
        return jnp.sum(self.weights * (special.ndtr(high) - special.ndtr(low)))

    def integrate_kde(self, other):
        """The integral of the product of two estimates."""
        if other.d != self.d:
            raise ValueError("KDEs are not the same dimensionality")
        chol = linalg.cho_factor(self.covariance + other.covariance)
        norm = 1.0 / (jnp.sqrt(2 * np.pi) ** self.d * jnp.prod(jnp.diag(chol[0])))
        small, large = (self, other) if self.n < other.n else (other, self)
        per_point = vmap(partial(_kernel_convolve, chol, norm, large.dataset, large.weights), in_axes=1)(small.dataset)
        return jnp.sum(per_point * small.weights)

    @partial(jit, static_argnames=("shape",))
    def resample(self, key, shape=()):
        """Draws ``shape`` samples from the estimate (shape ``(d,) + shape``)."""
        from pyjax._src.random.discrete import choice
        from pyjax._src.random.keys import split
        from pyjax._src.random.multivariate import multivariate_normal
        ind_key, eps_key = split(key)
        ind = choice(ind_key, self.n, shape=shape, p=self.weights)
        eps = multivariate_normal(eps_key, jnp.zeros(self.d, self.covariance.dtype), self.covariance,
                                         shape=shape, dtype=self.dataset.dtype).T
        return self.dataset[:, ind] + eps

    def integrate_box(self, low_bounds, high_bounds, maxpts=None):
        """Not implemented, as in JAX."""
        del low_bounds, high_bounds, maxpts
        raise NotImplementedError("only 1D box integrations are supported; use `integrate_box_1d`")

    def set_bandwidth(self, bw_method=None):
        """Not supported, as in JAX: the estimator is immutable."""
        del bw_method
        raise NotImplementedError("dynamically changing the bandwidth method is not supported")

    def _reshape_points(self, points):
        if dtypes.issubdtype(jnp.result_type(points), np.complexfloating):
            raise NotImplementedError("gaussian_kde does not support complex coordinates")
        points = jnp.atleast_2d(points)
        d, m = points.shape
        if d != self.d:
            if d == 1 and m == self.d:
                points = jnp.reshape(points, (self.d, 1))
            else:
                raise ValueError(f"points have dimension {d}, dataset has dimension {self.d}")
        return points


def _kernel_convolve(chol, norm, target, weights, mean):
    diff = target - mean[:, None]
    alpha = linalg.cho_solve(chol, diff)
    return norm * jnp.sum(jnp.exp(-0.5 * jnp.sum(diff * alpha, axis=0)) * weights)


@partial(jit, static_argnums=0)
def _kernel_sum(in_log: bool, points, values, xi, precision):
    points, values, xi, precision = promote_dtypes_inexact(points, values, xi, precision)
    d = points.shape[1]
    if xi.shape[1] != d:
        raise ValueError("points and xi must have same trailing dim")
    if precision.shape != (d, d):
        raise ValueError("precision matrix must match data dims")
    # In whitened coordinates every kernel is a unit Gaussian.
    whitening = linalg.cholesky(precision, lower=True)
    points, xi = jnp.dot(points, whitening), jnp.dot(xi, whitening)
    log_norm = jnp.sum(jnp.log(jnp.diag(whitening))) - 0.5 * d * jnp.log(2 * np.pi)

    def at(x):
        args = log_norm - 0.5 * jnp.sum(jnp.square(points - x), axis=-1, keepdims=True)
        if in_log:
            return special.logsumexp(jnp.log(values) + args, axis=0)
        return jnp.sum(values * jnp.exp(args), axis=0)

    return vmap(at)(xi)
