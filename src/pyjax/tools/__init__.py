"""Developer tools: `python -m pyjax.tools.coverage`."""
