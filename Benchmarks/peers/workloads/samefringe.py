# Same fringe: do two trees of different shapes hold the same leaves in the same order? Each
# tree's leaves come from a recursive generator (`yield from` per subtree), the two compared in
# lock-step, stopping at the first difference. SIZE leaves per tree.
import harness
from harness import Lcg


class Node:
    __slots__ = ("left", "right", "leaf")

    def __init__(self, left, right, leaf):
        self.left, self.right, self.leaf = left, right, leaf


def build(leaves, lo, hi, rng):
    # A tree over leaves[lo:hi], split at a random point: same leaves, a shape per seed.
    if hi - lo == 1:
        return Node(None, None, leaves[lo])
    mid = lo + 1 + rng.next(hi - lo - 1)
    return Node(build(leaves, lo, mid, rng), build(leaves, mid, hi, rng), 0)


def fringe(t):
    if t.left is None:
        yield t.leaf
    else:
        yield from fringe(t.left)
        yield from fringe(t.right)


def same_fringe(a, b):
    ga, gb = fringe(a), fringe(b)
    compared = 0
    for x in ga:
        y = next(gb, None)
        if x != y:
            return False, compared
        compared += 1
    return next(gb, None) is None, compared


def run(size):
    leaves = list(range(size))
    other = list(leaves)
    other[size * 3 // 4] = -1
    a = build(leaves, 0, size, Lcg(1))
    b = build(leaves, 0, size, Lcg(2))
    c = build(other, 0, size, Lcg(3))
    out = []
    for name, x, y in (("a b", a, b), ("a c", a, c), ("b c", b, c)):
        same, compared = same_fringe(x, y)
        out.append("%s: %s after %d leaves" % (name, "same" if same else "different", compared))
    return out


harness.main(run, 1000, recursion_limit=1000000)
