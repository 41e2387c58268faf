"""Utilities for working with tree-like container data structures (pytrees).

The public face of ``pyjax._src.tree_util``: see that module and
``docs/pytrees.md``. Mirrors ``jax.tree_util`` in JAX 0.11.
"""

from pyjax._src.tree_util import (
    DictKey as DictKey,
)
from pyjax._src.tree_util import (
    FlattenedIndexKey as FlattenedIndexKey,
)
from pyjax._src.tree_util import (
    GetAttrKey as GetAttrKey,
)
from pyjax._src.tree_util import (
    KeyEntry as KeyEntry,
)
from pyjax._src.tree_util import (
    KeyPath as KeyPath,
)
from pyjax._src.tree_util import (
    Partial as Partial,
)
from pyjax._src.tree_util import (
    PyTreeDef as PyTreeDef,
)
from pyjax._src.tree_util import (
    SequenceKey as SequenceKey,
)
from pyjax._src.tree_util import (
    all_leaves as all_leaves,
)
from pyjax._src.tree_util import (
    build_tree as build_tree,
)
from pyjax._src.tree_util import (
    default_registry as default_registry,
)
from pyjax._src.tree_util import (
    flatten_one_level as flatten_one_level,
)
from pyjax._src.tree_util import (
    flatten_one_level_with_keys as flatten_one_level_with_keys,
)
from pyjax._src.tree_util import (
    is_tree_node as is_tree_node,
)
from pyjax._src.tree_util import (
    keystr as keystr,
)
from pyjax._src.tree_util import (
    register_dataclass as register_dataclass,
)
from pyjax._src.tree_util import (
    register_pytree_node as register_pytree_node,
)
from pyjax._src.tree_util import (
    register_pytree_node_class as register_pytree_node_class,
)
from pyjax._src.tree_util import (
    register_pytree_with_keys as register_pytree_with_keys,
)
from pyjax._src.tree_util import (
    register_pytree_with_keys_class as register_pytree_with_keys_class,
)
from pyjax._src.tree_util import (
    register_static as register_static,
)
from pyjax._src.tree_util import (
    tree_all as tree_all,
)
from pyjax._src.tree_util import (
    tree_broadcast as tree_broadcast,
)
from pyjax._src.tree_util import (
    tree_flatten as tree_flatten,
)
from pyjax._src.tree_util import (
    tree_flatten_with_path as tree_flatten_with_path,
)
from pyjax._src.tree_util import (
    tree_leaves as tree_leaves,
)
from pyjax._src.tree_util import (
    tree_leaves_with_path as tree_leaves_with_path,
)
from pyjax._src.tree_util import (
    tree_map as tree_map,
)
from pyjax._src.tree_util import (
    tree_map_with_path as tree_map_with_path,
)
from pyjax._src.tree_util import (
    tree_reduce as tree_reduce,
)
from pyjax._src.tree_util import (
    tree_reduce_associative as tree_reduce_associative,
)
from pyjax._src.tree_util import (
    tree_structure as tree_structure,
)
from pyjax._src.tree_util import (
    tree_transpose as tree_transpose,
)
from pyjax._src.tree_util import (
    tree_unflatten as tree_unflatten,
)
from pyjax._src.tree_util import (
    treedef_children as treedef_children,
)
from pyjax._src.tree_util import (
    treedef_is_leaf as treedef_is_leaf,
)
from pyjax._src.tree_util import (
    treedef_tuple as treedef_tuple,
)
