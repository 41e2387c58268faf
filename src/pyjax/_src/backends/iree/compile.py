"""A jaxpr compiled by IREE: lowered to StableHLO (backends/stablehlo), the
module compiled for the process's target by IREE's compiler library in this
process (or the `iree-compile` tool), loaded into the runtime.

Compiled modules are cached per process, keyed by the module's text, the
target backend and the compiler flags: a second jit of the same program
(a fresh function object with the same body, another jit wrapper, a cache
cleared by `jax.clear_caches`) compiles nothing. With a persistent cache
directory set (cache.py; docs/compilation_cache.md), a module compiled by an
earlier process is read from it instead. `stats` counts compilations and
cache hits (in this process, and from the persistent cache).
"""

from __future__ import annotations

import os
import re
import threading
import time

from pyjax._src.backends.iree import cache as persistent
from pyjax._src.backends.iree import runtime
from pyjax._src.backends.stablehlo.lowering import LoweringError

# (module text, target backend, flags) -> vmfb bytes
_vmfb_cache: dict[tuple, bytes] = {}
_lock = threading.Lock()
stats = {"compiled": 0, "hits": 0, "disk_hits": 0, "compile_s": 0.0}


class IreeUnsupportedError(LoweringError):
    """A program the IREE backend cannot run: a primitive without a
    StableHLO lowering (LAPACK custom calls, host callbacks, collectives,
    ...), or a module IREE's compiler rejects."""


class IreeCompileError(RuntimeError):
    """iree-compile rejected a module pyjax emitted."""


def module_text(jaxpr, name: str, out_tree=None, keep_unused: bool = False) -> tuple[str, list[bool]]:
    """The StableHLO text of `jaxpr` for IREE, and per input whether `@main`
    takes it (unused inputs are pruned first unless `keep_unused`).

    A key array's data crosses `@main` under JAX's `sdy.sharding_constraint`
    (an annotation with no effect on one device); IREE 3.13 has no Shardy
    dialect, so it becomes a same-type reshape, which IREE folds away. A
    sharded program's mesh, shardings and constraints are left out
    (`shardings=False`): one device needs none of them."""
    from pyjax._src.backends.stablehlo import lower_jaxpr_to_module
    from pyjax._src.interpreters.dce import dce_jaxpr

    _refuse_closed_over_refs(jaxpr, name)
    if keep_unused:
        kept = [True] * len(jaxpr.invars)
    else:
        jaxpr, kept = dce_jaxpr(jaxpr, prune_invars=True, prune_bodies=True)
    try:
        text = str(lower_jaxpr_to_module(jaxpr, name, out_tree, keep_unused=True, host_callbacks=False,
                                         select_and_scatter_op=False, threefry_unrolled=True,
                                         stable_sort_iota=True, shardings=False, xla_ops=False))
    except LoweringError as e:
        raise IreeUnsupportedError(
            f"jit({name}) cannot run on the IREE backend: primitive '{_primitive_named(str(e))}' has no "
            f"StableHLO lowering here ({e}). Run this function on the NumPy backend: "
            "jax.jit(f, backend='cpu')."
        ) from None
    return _strip_shardy(text), kept


def _refuse_closed_over_refs(jaxpr, name: str) -> None:
    # JAX passes a closed-over mutable array to @main and writes it back; this lowering
    # does not yet, and would otherwise fail inside NumPy's conversion of the reference.
    from pyjax._src.ref_types import AbstractRef

    if any(isinstance(v.aval, AbstractRef) for v in jaxpr.constvars):
        raise IreeUnsupportedError(
            f"jit({name}) cannot run on the IREE backend: it closes over a mutable array reference "
            "(jax.new_ref, a stateful generator's counter), which the StableHLO lowering cannot pass to @main "
            "yet. Run this function on the NumPy backend: jax.jit(f, backend='cpu').")


def _primitive_named(message: str) -> str:
    # "... rule for primitive 'cholesky' not found ...", or a rule's own
    # refusal, which starts with its primitive's name ("random_bits is lowered for ...").
    found = re.search(r"primitive '([^']+)'", message) or re.match(r"(\w+) ", message)
    return found.group(1) if found else "?"


_SDY_MESH = re.compile(r"^\s*sdy\.mesh @\w+ = .*\n", re.M)
_SDY_CONSTRAINT = re.compile(r"sdy\.sharding_constraint (%[\w#]+) <@\w+, \[[^\]]*\]> : (tensor<[^>]*>)")


def _strip_shardy(text: str) -> str:
    if "sdy." not in text:
        return text
    text = _SDY_MESH.sub("", text)
    return _SDY_CONSTRAINT.sub(lambda m: f"stablehlo.reshape {m.group(1)} : ({m.group(2)}) -> {m.group(2)}", text)


def compile_module(text: str, name: str = "module") -> bytes:
    """The IREE bytecode of a StableHLO module for the process's target
    (from the per-process cache when the same text was compiled before)."""
    target = _for_module(runtime.target(), text)
    key = (text, target.backend, target.flags)
    vmfb = _vmfb_cache.get(key)
    if vmfb is not None:
        stats["hits"] += 1
        return vmfb
    disk_key = persistent.key(text, target, name)
    vmfb = persistent.load(disk_key)  # (the persistent cache: checked entries only)
    if vmfb is not None:
        with _lock:
            _vmfb_cache[key] = vmfb
            stats["disk_hits"] += 1
        return vmfb
    start = time.perf_counter()
    vmfb = _compile_in_process(text, target)
    if vmfb is None:
        vmfb = _compile_with_tool(text, target, name)
    compile_s = time.perf_counter() - start
    with _lock:
        _vmfb_cache[key] = vmfb
        stats["compiled"] += 1
        stats["compile_s"] += compile_s
    persistent.store(disk_key, vmfb, compile_s)
    return vmfb


def _for_module(target, text: str):
    """The target, with what this module needs of it: float64 code on the
    host CPU is linked as a system library, because IREE's embedded
    executables cannot link libm's float64 functions (`sin`, `exp`, ...)."""
    if target.backend == "llvm-cpu" and "f64" in text:
        return runtime.Target(target.driver, target.backend, target.flags + ("--iree-llvmcpu-link-embedded=false",))
    return target


_sessions: dict[tuple, object] = {}  # (target backend, flags) -> iree.compiler.api.Session


def _compile_in_process(text: str, target) -> bytes | None:
    """The bytecode from IREE's compiler library in this process (no
    iree-compile process to start; docs/iree.md), or None when the library
    is unavailable, `PYJAX_IREE_IN_PROCESS=0`, or the module fails (the tool
    then compiles it again, to report IREE's diagnostics)."""
    if os.environ.get("PYJAX_IREE_IN_PROCESS", "1") == "0":
        return None
    try:
        from iree.compiler.api import Output, Session, Source
    except ImportError:
        return None
    with _lock:  # (a session compiles one module at a time)
        key = (target.backend, target.flags)
        session = _sessions.get(key)
        if session is None:
            session = _sessions[key] = Session()
            session.set_flags(f"--iree-hal-target-backends={target.backend}", "--iree-input-type=stablehlo",
                              *target.flags)
        invocation = session.invocation()
        try:
            if not invocation.parse_source(Source.wrap_buffer(session, text.encode())) or not invocation.execute():
                return None
            output = Output.open_membuffer()
            try:
                invocation.output_vm_bytecode(output)
                return bytes(output.map_memory())
            finally:
                output.close()
        finally:
            invocation.close()


def _compile_with_tool(text: str, target, name: str) -> bytes:
    import iree.compiler as ic

    try:
        return ic.compile_str(text, target_backends=[target.backend], input_type="stablehlo",
                              extra_args=list(target.flags))
    except ic.CompilerToolError as e:
        raise IreeCompileError(f"IREE could not compile jit({name}) for {target.backend}:\n{e}") from None


def compile_jaxpr(jaxpr, name: str, out_tree=None, keep_unused: bool = False) -> runtime.Executable:
    """`jaxpr` compiled and loaded: an `Executable` called on the flat arguments."""
    text, kept = module_text(jaxpr, name, out_tree, keep_unused)
    vmfb = compile_module(text, name)
    return runtime.Executable(name, vmfb, kept, jaxpr.in_avals, jaxpr.out_avals)


def clear_cache() -> None:
    """Forgets every compiled module (the next program compiles again)."""
    _vmfb_cache.clear()
