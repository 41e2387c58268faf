"""Test configuration: tests import `helpers` from this folder; x64 stays off."""

import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
os.environ.pop("JAX_ENABLE_X64", None)
