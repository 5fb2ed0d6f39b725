# Knight's tours through conjoin (CPython's Lib/test/test_generators.py: class Knights, the
# `advance` heuristic), with `yield from`. The first SIZE tours of a 10x10 board are counted.
import harness
from harness import conjoin


class Knights:
    def __init__(self, m, n):
        self.m, self.n = m, n
        succs = self.succs = []
        self.lastij = 0
        self.final = 0

        def remove_from_successors(i0):
            ne0 = ne1 = 0
            for i in succs[i0]:
                s = succs[i]
                s.remove(i0)
                e = len(s)
                if e == 0:
                    ne0 += 1
                elif e == 1:
                    ne1 += 1
            return ne0 == 0 and ne1 < 2

        def add_to_successors(i0):
            for i in succs[i0]:
                succs[i].append(i0)

        def first():
            corner = self.coords2index(0, 0)
            remove_from_successors(corner)
            self.lastij = corner
            yield corner
            add_to_successors(corner)

        def second():
            corner = self.coords2index(0, 0)
            for i, j in (1, 2), (2, 1):
                this = self.coords2index(i, j)
                final = self.coords2index(3 - i, 3 - j)
                self.final = final
                remove_from_successors(this)
                succs[final].append(corner)
                self.lastij = this
                yield this
                succs[final].remove(corner)
                add_to_successors(this)

        def advance():
            candidates = []
            for i in succs[self.lastij]:
                e = len(succs[i])
                if e == 1:
                    candidates = [(e, i)]
                    break
                candidates.append((e, i))
            else:
                candidates.sort()
            for e, i in candidates:
                if i != self.final:
                    if remove_from_successors(i):
                        self.lastij = i
                        yield i
                    add_to_successors(i)

        def last():
            yield self.final

        self.squaregenerators = [first, second] + [advance] * (m * n - 3) + [last]

    def coords2index(self, i, j):
        return i * self.n + j

    def _init_board(self):
        succs = self.succs
        del succs[:]
        m, n = self.m, self.n
        offsets = [(1, 2), (2, 1), (2, -1), (1, -2), (-1, -2), (-2, -1), (-2, 1), (-1, 2)]
        for i in range(m):
            for j in range(n):
                succs.append([self.coords2index(i + io, j + jo) for io, jo in offsets
                              if 0 <= i + io < m and 0 <= j + jo < n])

    def solve(self):
        self._init_board()
        yield from conjoin(self.squaregenerators)


def run(size):
    side = 10
    tours = 0
    checksum = 0
    first = None
    for tour in Knights(side, side).solve():
        tours += 1
        if first is None:
            first = list(tour)
        for k, square in enumerate(tour):
            checksum = (checksum * 31 + square * (k + 1)) % 1000000007
        if tours == size:
            break
    return ["knights %dx%d: %d tours" % (side, side, tours),
            "first " + " ".join(map(str, first[:20])),
            "checksum %d" % checksum]


harness.main(run, 8, recursion_limit=100000)
