"""jax.ad_checkpoint: rematerialization (checkpoint / remat), its policies,
checkpoint_name and the saved-residuals report.
"""

from pyjax._src.ad_checkpoint import (
    checkpoint,
    checkpoint_name,
    checkpoint_policies,
    print_saved_residuals,
    remat,
)
from pyjax._src.remat import Offloadable, Recompute, Saveable

__all__ = [
    "Offloadable", "Recompute", "Saveable", "checkpoint", "checkpoint_name", "checkpoint_policies",
    "print_saved_residuals", "remat",
]
