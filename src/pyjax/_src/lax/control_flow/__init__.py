"""Control flow as primitives: cond, switch, while_loop, fori_loop, scan,
map and associative_scan (JAX's jax.lax control flow).

Each API function traces its Python callables once into jaxprs that hang
on a single equation (`cond`, `while`, `scan`); the primitives carry every
rule (abstract evaluation, JVP, partial evaluation, transpose, batching),
and the backends run them as loops over compiled bodies.
"""

from pyjax._src.lax.control_flow import scan_ad as _scan_ad  # noqa: F401 (reverse-mode rules of scan)
from pyjax._src.lax.control_flow import cond_remat as _cond_remat  # noqa: F401 (remat's split of cond)
from pyjax._src.lax.control_flow import scan_remat as _scan_remat  # noqa: F401 (remat's split of scan)
from pyjax._src.lax.control_flow.associative_scan import associative_scan
from pyjax._src.lax.control_flow.cond import cond, cond_p, switch
from pyjax._src.lax.control_flow.loops import fori_loop, while_loop, while_p
from pyjax._src.lax.control_flow.scan import map, scan, scan_p

__all__ = ["associative_scan", "cond", "cond_p", "fori_loop", "map", "scan", "scan_p", "switch", "while_loop",
           "while_p"]
