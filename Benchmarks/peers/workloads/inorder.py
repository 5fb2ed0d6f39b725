# In-order traversal of a balanced binary tree with a generator per subtree, each delegating
# to its children's (`yield from`; CPython's Lib/test/test_generators.py, inorder). The tree
# holds 2^SIZE - 1 nodes and is walked 4 times.
import harness


class Tree:
    __slots__ = ("label", "left", "right")

    def __init__(self, label, left, right):
        self.label, self.left, self.right = label, left, right


def tree(lo, hi):
    if lo >= hi:
        return None
    mid = (lo + hi) // 2
    return Tree(mid, tree(lo, mid), tree(mid + 1, hi))


def inorder(t):
    if t:
        yield from inorder(t.left)
        yield t.label
        yield from inorder(t.right)


def run(size):
    root = tree(0, (1 << size) - 1)
    out = []
    for walk in range(4):
        total = 0
        count = 0
        previous = -1
        ordered = True
        for label in inorder(root):
            total += label * (walk + 1)
            count += 1
            if label < previous:
                ordered = False
            previous = label
        out.append("walk %d: %d labels, sum %d, %s" % (walk, count, total, "ordered" if ordered else "NOT ordered"))
    return out


harness.main(run, 10)
