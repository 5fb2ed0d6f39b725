# The Python peer of the benchmark's `RJIterator.next(v)` row: a generator that yields x + 1
# and receives the next x, resumed with send(i). Prints nanoseconds per round trip (loop
# included) for N round trips after as many for warm-up.
# Run by `swift run -c release bench` when `python3` is on the PATH: python3 generator.py N
import sys
import time


def counter():
    x = 0
    while True:
        x = yield x + 1


def main():
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 300000
    it = counter()
    next(it)
    send = it.send
    total = 0
    for i in range(n):
        total += send(i)
    t0 = time.perf_counter_ns()
    for i in range(n):
        total += send(i)
    t1 = time.perf_counter_ns()
    print("%.3f" % ((t1 - t0) / n))


main()
