"""The descent both memory-limit sweeps make (limit_sweep.py: `ulimit -v`; cgroup_limit.py: a
cgroup's limit): shrink a limit step by step until a run does not pass, which must be a clean
refusal; then scan the step above that refusal again in fine steps, where a limit that leaves the
run a little short would hide between the coarse steps."""


def describe(status):
    return {None: "none (hung)", -9: "-9 (killed)"}.get(status, str(status))


def sweep(run_at, clean, top, step, fine, bottom=None):
    """run_at(limit, fine_step) -> (exit status or None when it hung, stderr): one run under
    `limit` bytes. clean(status, stderr): passed, or refused as tilemm refuses.

    Descends from `top` by `step` to the first limit whose run does not pass, which must be clean;
    with `bottom`, on down to it, every run clean. Then every `fine` bytes of the step above the
    first refusal, every run clean. Returns (first refusal, lowest limit that passed), or None
    after printing what failed."""
    passed, first_refusal, limit = [], None, top

    def try_at(limit, fine_step):
        """The run's status if it passed or was refused cleanly; else says so and returns False."""
        status, stderr = run_at(limit, fine_step)
        if status == 0:
            passed.append(limit)
        elif not clean(status, stderr):
            print("FAIL: limit %d KiB: exit status %s\n%s" % (limit >> 10, describe(status),
                                                                stderr.strip()[-2000:]))
            return False
        return status, stderr

    while limit >= (bottom if bottom is not None else step):
        done = try_at(limit, False)
        if not done:
            return None
        if done[0] != 0 and first_refusal is None:
            first_refusal = limit
            print("limit %d KiB: the first of the coarse steps that does not pass:\n%s" %
                  (limit >> 10, done[1].strip()))
            if bottom is None:
                break
        limit -= step
    if first_refusal is None or not passed:
        print("FAIL: from %d KiB down, the run was never %s" %
              (top >> 10, "refused" if first_refusal is None else "run"))
        return None
    if not all(try_at(limit, True) for limit in range(first_refusal + step, first_refusal, -fine)):
        return None
    return first_refusal, min(passed)
