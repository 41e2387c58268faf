"""jnp.vectorize: NumPy's vectorize (with gufunc signatures) built on vmap.

The loop (non-core) axes of the arguments are broadcast NumPy-style; each
loop axis becomes one `vmap` (size-1 axes are squeezed and passed
unbatched), so `pyfunc` is traced once on the core shapes.
"""

from __future__ import annotations

import functools
import re

import numpy as np

_DIM = r"\w+"
_CORE_DIMS = f"(?:{_DIM}(?:,{_DIM})*)?"
_ARG = rf"\({_CORE_DIMS}\)"
_ARG_LIST = f"{_ARG}(?:,{_ARG})*"
_SIGNATURE = f"^{_ARG_LIST}->{_ARG_LIST}$"


def parse_gufunc_signature(signature: str):
    """The core dimension names of the inputs and outputs of a signature
    such as '(m,n),(n)->(m)'."""
    if not re.match(_SIGNATURE, signature):
        raise ValueError(f"not a valid gufunc signature: {signature}")
    return [[tuple(re.findall(_DIM, arg)) for arg in re.findall(_ARG, part)] for part in signature.split("->")]


def _update_dim_sizes(sizes: dict, shape, core_dims, context: str, *, is_input: bool):
    n = len(core_dims)
    if is_input and len(shape) < n:
        raise ValueError(f"input with shape {shape!r} does not have enough dimensions for all core dimensions "
                         f"{core_dims!r} {context}")
    if not is_input and len(shape) != n:
        raise ValueError(f"output shape {shape!r} does not match core dimensions {core_dims!r} {context}")
    core_shape = shape[-n:] if core_dims else ()
    for dim, size in zip(core_dims, core_shape):
        if dim not in sizes:
            sizes[dim] = size
        elif size != sizes[dim]:
            raise ValueError(f"inconsistent size for core dimension {dim!r}: {size!r} vs {sizes[dim]!r} {context}")


def _apply_excluded(func, excluded, args, kwargs):
    if not excluded:
        return func, args, kwargs
    dynamic_args = [a for i, a in enumerate(args) if i not in excluded]
    dynamic_kwargs = {k: v for k, v in kwargs.items() if k not in excluded}
    static_args = [(i, args[i]) for i in sorted(e for e in excluded if isinstance(e, int)) if i < len(args)]
    static_kwargs = {k: v for k, v in kwargs.items() if k in excluded}

    def with_static(*args, **kwargs):
        args = list(args)
        for i, a in static_args:
            args.insert(i, a)
        return func(*args, **kwargs, **static_kwargs)

    return with_static, dynamic_args, dynamic_kwargs


def _checked(func, sizes, output_core_dims, context):
    def wrapped(*args):
        out = func(*args)
        shapes = [np.shape(o) if not hasattr(o, "aval") else o.aval.shape
                  for o in (out if isinstance(out, tuple) else [out])]
        if len(output_core_dims) > 1 and not isinstance(out, tuple):
            raise TypeError(f"output must be a tuple when multiple outputs are expected, got: {out!r}\n{context}")
        if len(shapes) != len(output_core_dims):
            raise TypeError(f"wrong number of output arguments: expected {len(output_core_dims)!r}, got "
                            f"{len(shapes)!r} {context}")
        local = dict(sizes)
        for shape, core_dims in zip(shapes, output_core_dims):
            _update_dim_sizes(local, shape, core_dims, context, is_input=False)
        return out

    return wrapped


def vectorize(pyfunc, *, excluded=frozenset(), signature=None):
    """Vectorizes `pyfunc` over leading (loop) axes with vmap.

    Args:
      pyfunc: the function of core-shaped arrays.
      excluded: positions or names of arguments passed through unvectorized.
      signature: a gufunc signature such as '(n),(n)->()' naming the core
        axes of each argument and output (scalars when None).

    Example:
      >>> norms = jnp.vectorize(jnp.linalg.norm, signature='(n)->()')
      >>> norms(jnp.ones((3, 4)))
      Array([2., 2., 2.], dtype=float32)
    """
    from pyjax._src.api import vmap
    from pyjax._src.numpy.creation import asarray
    from pyjax._src.numpy.shape_ops import expand_dims, squeeze

    if any(not isinstance(e, (str, int)) for e in excluded):
        raise TypeError(f"jax.numpy.vectorize can only exclude integer or string arguments, but "
                        f"excluded={excluded!r}")
    if any(isinstance(e, int) and e < 0 for e in excluded):
        raise ValueError(f"excluded={excluded!r} contains negative numbers")

    @functools.wraps(pyfunc)
    def wrapped(*args, **kwargs):
        context = f"on vectorized function with excluded={excluded!r} and signature={signature!r}"
        func, args, kwargs = _apply_excluded(pyfunc, excluded, args, kwargs)
        if signature is not None:
            input_core_dims, output_core_dims = parse_gufunc_signature(signature)
        else:
            input_core_dims, output_core_dims = [()] * len(args), None
        none_args = {i for i, a in enumerate(args) if a is None}
        if none_args:
            if any(input_core_dims[i] != () for i in none_args):
                raise ValueError(f"Cannot pass None at locations {none_args} with signature={signature}")
            func, args, _ = _apply_excluded(func, none_args, args, {})
            input_core_dims = [d for i, d in enumerate(input_core_dims) if i not in none_args]
        if kwargs:
            func = functools.partial(func, **kwargs)
        args = tuple(asarray(a) for a in args)
        if len(args) != len(input_core_dims):
            raise TypeError(f"wrong number of positional arguments: expected {len(input_core_dims)!r}, got "
                            f"{len(args)!r} {context}")
        sizes: dict = {}
        loop_shapes = []
        for arg, core_dims in zip(args, input_core_dims):
            _update_dim_sizes(sizes, arg.shape, core_dims, context, is_input=True)
            loop_shapes.append(arg.shape[:arg.ndim - len(core_dims)])
        broadcast_shape = np.broadcast_shapes(*loop_shapes) if loop_shapes else ()
        checked = func if output_core_dims is None else _checked(func, sizes, output_core_dims, context)
        squeezed, reversed_shapes = [], []
        for arg, loop_shape in zip(args, loop_shapes):
            filled = (len(broadcast_shape) - len(loop_shape)) * (1,) + tuple(loop_shape)
            reversed_shapes.append(filled[::-1])
            squeezed.append(squeeze(arg, axis=tuple(i for i, n in enumerate(loop_shape) if n == 1)))
        vectorized = checked
        dims_to_expand = []
        for negdim, axis_sizes in enumerate(zip(*reversed_shapes)):
            in_axes = tuple(None if n == 1 else 0 for n in axis_sizes)
            if all(a is None for a in in_axes):
                dims_to_expand.append(len(broadcast_shape) - 1 - negdim)
            else:
                vectorized = vmap(vectorized, in_axes)
        result = vectorized(*squeezed)
        if not dims_to_expand:
            return result
        if isinstance(result, tuple):
            return tuple(expand_dims(r, axis=tuple(dims_to_expand)) for r in result)
        return expand_dims(result, axis=tuple(dims_to_expand))

    return wrapped
