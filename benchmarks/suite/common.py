"""The one measurement recipe every suite workload follows (bench.py's helpers only)."""


def measure(ctx, res, fn, arg_sets, feedback=None, trace_share=0.12, first_share=0.3,
            first_reps=3, steady_share=0.45):
    """Trace, first call, checksum of the first set's output, then steady calls alternating
    between the input sets. ``feedback(args, out)`` gives the next call's args (training
    steps feed their parameters back, so no result can be memoised)."""
    ctx.time_trace(fn, arg_sets[0], budget=ctx.budget * trace_share, max_reps=5)
    jf, out = ctx.time_first_call(fn, arg_sets[0], budget=ctx.budget * first_share,
                                  max_reps=first_reps)
    ctx.checksum(jf(*arg_sets[0]))
    state = [tuple(a) for a in arg_sets]

    def call(i):
        k = i % len(state)
        out = jf(*state[k])
        if feedback is not None:
            state[k] = feedback(state[k], out)
        return out

    ctx.time_steady(call, budget=ctx.budget * steady_share)
    return jf


def sgd_feedback(lr_unused=None):
    """Training step ``(params, *data) -> (new_params, loss)``: feed new params back."""
    def fb(args, out):
        return (out[0],) + tuple(args[1:])
    return fb
