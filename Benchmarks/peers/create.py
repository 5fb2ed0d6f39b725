# The Python peer of the benchmark's "create + first next + release (pooled)" row: a generator
# made, run once to a body that returns at once, and dropped. Prints nanoseconds per generator
# (loop included) for N after as many for warm-up.
# Run by `swift run -c release bench` when `python3` is on the PATH: python3 create.py N
import sys
import time


def returning(i):
    return i
    yield


def run(n):
    total = 0
    for i in range(n):
        try:
            next(returning(i))
        except StopIteration as stop:
            total += stop.value
    return total


def main():
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 300000
    run(n)
    t0 = time.perf_counter_ns()
    total = run(n)
    t1 = time.perf_counter_ns()
    if total == 42:
        print("", file=sys.stderr)
    print(f"{(t1 - t0) / n:.3f}")


main()
