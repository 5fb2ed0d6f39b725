import RJIterator

// N-Queens through conjoin (CPython's Lib/test/test_generators.py), as Benchmarks/peers/
// workloads/queens.py and queens.js: the same program, written as a Swift user would.
enum QueensWorkload {
    /// Every combination of the values the generators yield, one generator per position,
    /// each made anew for every value of the positions before it; yields the combination
    /// (one array, rewritten in place, as the original yields one list).
    static func conjoin(_ makers: [() -> Generator<Int, Void, Void>]) -> Generator<[Int], Void, Void> {
        let values = Values(count: makers.count)
        func level(_ i: Int) -> Generator<[Int], Void, Void> {
            Generator { y in
                if i == makers.count {
                    try y.yield(values.items)
                    return
                }
                for value in makers[i]() {
                    values.items[i] = value
                    try y.yieldAll(level(i + 1))
                }
            }
        }
        return level(0)
    }

    final class Values {
        var items: [Int]
        init(count: Int) { items = Array(repeating: 0, count: count) }
    }

    /// The columns and the two diagonals the queens placed so far cover, as bit masks.
    final class Board {
        var columns = 0, down = 0, up = 0
    }

    static func solutions(_ n: Int) -> Generator<[Int], Void, Void> {
        let board = Board()
        let rows: [() -> Generator<Int, Void, Void>] = (0..<n).map { i in
            {
                Generator { y in
                    for j in 0..<n {
                        let column = 1 << j, down = 1 << (i - j + n - 1), up = 1 << (i + j)
                        if board.columns & column == 0 && board.down & down == 0 && board.up & up == 0 {
                            board.columns |= column
                            board.down |= down
                            board.up |= up
                            try y.yield(j)
                            board.columns &= ~column
                            board.down &= ~down
                            board.up &= ~up
                        }
                    }
                }
            }
        }
        return conjoin(rows)
    }

    static func run(_ n: Int) -> [String] {
        var count = 0
        var first: [Int]?
        var last: [Int] = []
        for solution in solutions(n) {
            count += 1
            if first == nil { first = solution }
            last = solution
        }
        return ["queens \(n): \(count) solutions",
                "first " + (first ?? []).map(String.init).joined(separator: " "),
                "last " + last.map(String.init).joined(separator: " ")]
    }
}
