"""jax.image: image resampling (resize, scale_and_translate)."""

from pyjax._src.image import ResizeMethod, resize, scale_and_translate

__all__ = ["ResizeMethod", "resize", "scale_and_translate"]
