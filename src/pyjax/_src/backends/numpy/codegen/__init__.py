"""Python code generation: a jaxpr becomes Python source calling the impls
(compile.py); control flow becomes Python loops (control_flow.py)."""
