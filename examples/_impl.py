"""Shared by the examples: choose the implementation (`--impl pyjax|jax`)."""

import argparse
import importlib


def load(description: str):
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--impl", default="pyjax", choices=["pyjax", "jax"], help="which implementation to run on")
    args = parser.parse_args()
    jax = importlib.import_module(args.impl)
    return jax, importlib.import_module(f"{args.impl}.numpy"), importlib.import_module(f"{args.impl}.lax"), args
