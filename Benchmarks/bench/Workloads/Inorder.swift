import RJIterator

// In-order traversal of a balanced binary tree with a generator per subtree, each delegating
// to its children's (`yieldAll`; CPython's Lib/test/test_generators.py, inorder), as
// Benchmarks/peers/workloads/inorder.py and inorder.js. 2^SIZE - 1 nodes, walked 4 times.
enum InorderWorkload {
    final class Tree {
        let label: Int
        let left, right: Tree?
        init(_ label: Int, _ left: Tree?, _ right: Tree?) { (self.label, self.left, self.right) = (label, left, right) }
    }

    static func tree(_ lo: Int, _ hi: Int) -> Tree? {
        if lo >= hi { return nil }
        let mid = (lo + hi) / 2
        return Tree(mid, tree(lo, mid), tree(mid + 1, hi))
    }

    static func inorder(_ t: Tree?) -> Generator<Int, Void, Void> {
        Generator { y in
            if let t {
                try y.yieldAll(inorder(t.left))
                try y.yield(t.label)
                try y.yieldAll(inorder(t.right))
            }
        }
    }

    static func run(_ size: Int) -> [String] {
        let root = tree(0, (1 << size) - 1)
        return (0..<4).map { walk in
            var (total, count, previous, ordered) = (0, 0, -1, true)
            for label in inorder(root) {
                total += label * (walk + 1)
                count += 1
                if label < previous { ordered = false }
                previous = label
            }
            return "walk \(walk): \(count) labels, sum \(total), \(ordered ? "ordered" : "NOT ordered")"
        }
    }
}
