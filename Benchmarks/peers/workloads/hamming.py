# Hamming numbers (2^i 3^j 5^k in increasing order) by generators that run after their own
# tail through a tee (CPython's Lib/test/test_generators.py, m235 with itertools.tee). The first
# 5,000 (all below 2^53, exact in JavaScript's doubles) are taken SIZE times, from new
# generators each time.
import time
from itertools import tee
import harness


def times(n, g):
    for i in g:
        yield n * i


def merge(g, h):
    ng = next(g)
    nh = next(h)
    while 1:
        if ng < nh:
            yield ng
            ng = next(g)
        elif ng > nh:
            yield nh
            nh = next(h)
        else:
            yield ng
            ng = next(g)
            nh = next(h)


def m235():
    def _m235():
        yield 1
        yield from merge(times(2, m2), merge(times(3, m3), times(5, m5)))

    m1 = _m235()
    m2, m3, m5, m_res = tee(m1, 4)
    return m_res


def run(size):
    count = 5000
    total = 0
    last = 0
    first = []
    for _ in range(size):
        it = m235()
        for k in range(count):
            last = next(it)
            if k < 15 and len(first) < 15:
                first.append(last)
            total = (total + last) % 1000000007
    return ["hamming: " + " ".join(map(str, first)),
            "number %d: %d" % (count, last),
            "sum mod 1e9+7: %d" % total]


harness.main(run, 10)
