"""pyjax.random: not implemented yet (issue "jax.random: typed threefry keys").

The namespace exists so that programs and benchmarks that import it load;
every function raises NotImplementedError naming the missing piece.
"""


def __getattr__(name: str):
    raise NotImplementedError(
        f"pyjax.random.{name} is not implemented yet: bit-identical threefry keys and "
        "distributions are their own open issue."
    )
