# N-Queens through conjoin (CPython's Lib/test/test_generators.py), with `yield from`. The
# columns and the two diagonals a queen covers are three bit masks (each below 32 bits, so
# that JavaScript's bit operations hold them), where the original packs them in one int.
import harness
from harness import conjoin


class Queens:
    def __init__(self, n):
        self.n = n
        self.cols = self.down = self.up = 0
        self.rowgenerators = []
        for i in range(n):

            def rowgen(i=i):
                for j in range(n):
                    col, down, up = 1 << j, 1 << (i - j + n - 1), 1 << (i + j)
                    if self.cols & col == 0 and self.down & down == 0 and self.up & up == 0:
                        self.cols |= col
                        self.down |= down
                        self.up |= up
                        yield j
                        self.cols &= ~col
                        self.down &= ~down
                        self.up &= ~up

            self.rowgenerators.append(rowgen)

    def solve(self):
        self.cols = self.down = self.up = 0
        yield from conjoin(self.rowgenerators)


def run(n):
    count = 0
    first = last = None
    for solution in Queens(n).solve():
        count += 1
        if first is None:
            first = list(solution)
        last = list(solution)
    return ["queens %d: %d solutions" % (n, count),
            "first " + " ".join(map(str, first)),
            "last " + " ".join(map(str, last))]


harness.main(run, 8)
