"""`jax._src.state`: the types of mutable array references (jax.Ref).

pyjax has no references yet (`jax.new_ref` is declared absent in
tools/api_surface.py): the types exist so that libraries can ask whether a
value is one, and the answer is always no.
"""
