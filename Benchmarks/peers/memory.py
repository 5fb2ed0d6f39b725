# Memory per suspended generator in CPython: N generators, each started and suspended at its
# first yield, kept alive at once. Prints the resident bytes they added, per generator.
import os
import sys


def resident():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def body(i):
    yield i
    yield -i


n = int(sys.argv[1]) if len(sys.argv) > 1 else 1000000
before = resident()
alive = [None] * n
for i in range(n):
    g = body(i)
    next(g)
    alive[i] = g
after = resident()
print("%.1f" % ((after - before) / n))
