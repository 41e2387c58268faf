"""The ``pyjax.tree`` namespace: short names for the pytree utilities.

Mirrors ``jax.tree`` in JAX 0.11; every name is an alias of a function in
``pyjax.tree_util`` (``map`` is ``tree_map``, ``leaves`` is ``tree_leaves``,
``all`` is ``tree_all``, ...). Only the public names are JAX's; nothing in this
module calls the builtins they shadow.
"""

from pyjax._src.tree_util import static as static
from pyjax._src.tree_util import tree_all as all  # noqa: A004
from pyjax._src.tree_util import tree_broadcast as broadcast
from pyjax._src.tree_util import tree_flatten as flatten
from pyjax._src.tree_util import tree_flatten_with_path as flatten_with_path
from pyjax._src.tree_util import tree_leaves as leaves
from pyjax._src.tree_util import tree_leaves_with_path as leaves_with_path
from pyjax._src.tree_util import tree_map as map  # noqa: A004
from pyjax._src.tree_util import tree_map_with_path as map_with_path
from pyjax._src.tree_util import tree_reduce as reduce
from pyjax._src.tree_util import tree_reduce_associative as reduce_associative
from pyjax._src.tree_util import tree_structure as structure
from pyjax._src.tree_util import tree_transpose as transpose
from pyjax._src.tree_util import tree_unflatten as unflatten

__all__ = [
    "all", "broadcast", "flatten", "flatten_with_path", "leaves", "leaves_with_path",
    "map", "map_with_path", "reduce", "reduce_associative", "static", "structure",
    "transpose", "unflatten",
]
