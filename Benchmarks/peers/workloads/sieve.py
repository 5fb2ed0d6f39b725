# The prime sieve of chained filter generators (CPython's Lib/test/test_generators.py): every
# prime found adds a filter of its multiples in front of the numbers, and a sieve level that
# delegates to the next (`yield from`). The first SIZE primes are taken.
import harness


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


harness.main(run, 100, recursion_limit=1000000)
