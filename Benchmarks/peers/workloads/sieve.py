# The prime sieve of chained filter generators (CPython's Lib/test/test_generators.py): every
# prime found adds a filter of its multiples in front of the numbers, and a sieve level that
# delegates to the next (`yield from`). The first SIZE primes are taken.
import sys
import time


def intsfrom(i):
    while 1:
        yield i
        i += 1


def exclude_multiples(n, ints):
    for i in ints:
        if i % n:
            yield i


def sieve(ints):
    prime = next(ints)
    yield prime
    yield from sieve(exclude_multiples(prime, ints))


def run(size):
    primes = sieve(intsfrom(2))
    total = 0
    first = []
    last = 0
    for k in range(size):
        last = next(primes)
        total += last
        if k < 10:
            first.append(last)
    return ["primes: " + " ".join(map(str, first)),
            "prime %d: %d" % (size, last),
            "sum %d" % total]


def main():
    sys.setrecursionlimit(1000000)
    size = int(sys.argv[1]) if len(sys.argv) > 1 else 100
    run(size)
    t0 = time.perf_counter_ns()
    out = run(size)
    t1 = time.perf_counter_ns()
    print("\n".join(out))
    print("time_ns %d" % (t1 - t0))


main()
