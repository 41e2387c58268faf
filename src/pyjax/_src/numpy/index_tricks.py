"""Index tricks: mgrid, ogrid (dense and open grids from slices), r_ and c_
(concatenation along rows / columns with slice ranges), and NumPy's s_ and
index_exp (index-tuple builders).

A slice with an imaginary step, `mgrid[0:1:5j]`, means "5 points,
endpoints included" (linspace); otherwise a slice is an arange.
"""

from __future__ import annotations

import numpy as np

from pyjax._src import core, errors


def _static(value, context: str):
    if isinstance(value, core.Tracer):
        raise errors.ConcretizationTypeError(value, context)
    return value


def _grid_1d(s: slice, op_name: str):
    from pyjax._src.numpy.creation import arange, linspace

    start = _static(s.start, f"slice start of jnp.{op_name}") or 0
    stop = _static(s.stop, f"slice stop of jnp.{op_name}")
    step = _static(s.step, f"slice step of jnp.{op_name}") or 1
    if np.iscomplex(step):
        return linspace(start, stop, int(abs(step)))
    return arange(start, stop, step)


class _Mgrid:
    """Dense coordinate grids: `jnp.mgrid[0:2, 0:3]` has shape (2, 2, 3)."""

    def __getitem__(self, key):
        from pyjax._src.numpy.creation import arange, meshgrid
        from pyjax._src.numpy.joining import stack
        from pyjax._src.numpy.util import promote_dtypes

        if isinstance(key, slice):
            return _grid_1d(key, "mgrid")
        grids = [_grid_1d(k, "mgrid") for k in key]
        grids = promote_dtypes("mgrid", *grids) if len(grids) > 1 else grids
        out = meshgrid(*grids, indexing="ij", sparse=False)
        return stack(out, 0) if out else arange(0)


class _Ogrid:
    """Open coordinate grids: broadcastable 1-D ranges, `jnp.ogrid[0:2, 0:3]`."""

    def __getitem__(self, key):
        from pyjax._src.numpy.creation import meshgrid
        from pyjax._src.numpy.util import promote_dtypes

        if isinstance(key, slice):
            return _grid_1d(key, "ogrid")
        grids = [_grid_1d(k, "ogrid") for k in key]
        grids = promote_dtypes("ogrid", *grids) if len(grids) > 1 else grids
        return meshgrid(*grids, indexing="ij", sparse=True)


class _AxisConcat:
    axis: int
    ndmin: int
    trans1d: int
    op_name: str

    def __getitem__(self, key):
        from pyjax._src.numpy.creation import array
        from pyjax._src.numpy.joining import concatenate
        from pyjax._src.numpy.shape_ops import expand_dims, transpose
        from pyjax._src.numpy.util import aval_of

        items = key if isinstance(key, tuple) else (key,)
        params = [self.axis, self.ndmin, self.trans1d, -1]
        directive = items[0]
        if isinstance(directive, str):
            items = items[1:]
            if directive == "r":
                params[-1] = 0
            elif directive == "c":
                params[-1] = 1
            else:
                vec = directive.split(",")
                vec = vec + params[len(vec):] if len(vec) < 4 else vec[:3] + [params[-1]]
                try:
                    params = list(map(int, vec))
                except ValueError as err:
                    raise ValueError(f"could not understand directive {directive!r}") from err
        axis, ndmin, trans1d, matrix = params
        output = []
        for item in items:
            if isinstance(item, slice):
                new, item_ndim = _grid_1d(item, self.op_name), 0
            elif isinstance(item, str):
                raise ValueError("string directive must be placed at the beginning")  # noqa: TRY004  (JAX's class)
            else:
                new = array(item, copy=False)
                item_ndim = aval_of(new).ndim
            new = array(new, copy=False, ndmin=ndmin)
            if trans1d != -1 and ndmin - item_ndim > 0:
                order = tuple(range(ndmin))
                shift = ndmin - abs(ndmin + trans1d + 1) % ndmin
                new = transpose(new, order[shift:] + order[:shift])
            output.append(new)
        res = concatenate(tuple(output), axis=axis)
        if matrix != -1 and aval_of(res).ndim == 1:
            res = expand_dims(res, matrix)
        return res

    def __len__(self) -> int:
        return 0


class RClass(_AxisConcat):
    """Concatenates along the first axis: `jnp.r_[1:4, 0, jnp.array([7, 8])]`."""

    axis, ndmin, trans1d, op_name = 0, 1, -1, "r_"


class CClass(_AxisConcat):
    """Stacks 1-D items as columns (concatenates along the last axis, at least 2-D)."""

    axis, ndmin, trans1d, op_name = -1, 2, 0, "c_"


mgrid = _Mgrid()
ogrid = _Ogrid()
r_ = RClass()
c_ = CClass()
s_ = np.s_
index_exp = np.index_exp
