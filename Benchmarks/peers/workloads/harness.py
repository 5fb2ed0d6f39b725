"""What the workload scripts share: the command line and the timing (README.md), the LCG that
makes their inputs, and conjoin."""
import sys
import time


def main(run, default_size, recursion_limit=None):
    """Runs `run(size)` once to warm up and once timed; prints its lines, then time_ns."""
    if recursion_limit:
        sys.setrecursionlimit(recursion_limit)
    size = int(sys.argv[1]) if len(sys.argv) > 1 else default_size
    run(size)
    t0 = time.perf_counter_ns()
    out = run(size)
    t1 = time.perf_counter_ns()
    print("\n".join(out))
    print("time_ns %d" % (t1 - t0))


class Lcg:
    """The Park-Miller "minimal standard" LCG: the same numbers in every language."""

    def __init__(self, seed):
        self.x = seed

    def next(self, bound):
        self.x = self.x * 48271 % 2147483647
        return self.x % bound


def conjoin(gs):
    """CPython's Lib/test/test_generators.py conjoin: every combination of the generators'
    values, the last varying fastest, in one list updated in place."""
    n = len(gs)
    values = [None] * n

    def gen(i):
        if i >= n:
            yield values
        else:
            for values[i] in gs[i]():
                yield from gen(i + 1)

    yield from gen(0)
