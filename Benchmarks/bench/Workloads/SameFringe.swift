import RJIterator

// Same fringe: do two trees of different shapes hold the same leaves in the same order? As
// Benchmarks/peers/workloads/samefringe.py and samefringe.js: a generator per subtree
// (`yieldAll`), the two fringes compared in lock-step. SIZE leaves per tree.
enum SameFringeWorkload {
    final class Node {
        let left, right: Node?
        let leaf: Int
        init(_ left: Node?, _ right: Node?, _ leaf: Int) { (self.left, self.right, self.leaf) = (left, right, leaf) }
    }

    /// A tree over `leaves[lo..<hi]`, split at a random point: same leaves, a shape per seed.
    static func build(_ leaves: [Int], _ lo: Int, _ hi: Int, _ rng: inout Lcg) -> Node {
        if hi - lo == 1 { return Node(nil, nil, leaves[lo]) }
        let mid = lo + 1 + rng.next(hi - lo - 1)
        return Node(build(leaves, lo, mid, &rng), build(leaves, mid, hi, &rng), 0)
    }

    static func fringe(_ t: Node) -> Generator<Int, Void, Void> {
        Generator { y in
            if let left = t.left, let right = t.right {
                try y.yieldAll(fringe(left))
                try y.yieldAll(fringe(right))
            } else {
                try y.yield(t.leaf)
            }
        }
    }

    static func sameFringe(_ a: Node, _ b: Node) throws -> (same: Bool, compared: Int) {
        let other = fringe(b)
        var compared = 0
        for x in fringe(a) {
            guard let y = try other.nextValue(), x == y else { return (false, compared) }
            compared += 1
        }
        return (try other.nextValue() == nil, compared)
    }

    static func run(_ size: Int) -> [String] {
        let leaves = Array(0..<size)
        var other = leaves
        other[size * 3 / 4] = -1
        var (r1, r2, r3) = (Lcg(1), Lcg(2), Lcg(3))
        let a = build(leaves, 0, size, &r1), b = build(leaves, 0, size, &r2), c = build(other, 0, size, &r3)
        return [("a b", a, b), ("a c", a, c), ("b c", b, c)].map { name, x, y in
            let (same, compared) = try! sameFringe(x, y)
            return "\(name): \(same ? "same" : "different") after \(compared) leaves"
        }
    }
}

/// The Park-Miller "minimal standard" LCG every language's version of the workloads uses.
struct Lcg {
    var x: Int
    init(_ seed: Int) { x = seed }
    mutating func next(_ bound: Int) -> Int {
        x = x * 48271 % 2_147_483_647
        return x % bound
    }
}
