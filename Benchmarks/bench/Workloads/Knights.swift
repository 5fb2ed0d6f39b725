import RJIterator

// Knight's tours through conjoin (CPython's Lib/test/test_generators.py: class Knights, the
// `advance` heuristic), as Benchmarks/peers/workloads/knights.py and knights.js. The first
// SIZE tours of a 10x10 board are counted.
enum KnightsWorkload {
    /// The board: each square's free successors, the square last moved to, and the square
    /// the tour must end on.
    final class Board {
        let m, n: Int
        var successors: [[Int]] = []
        var last = 0
        var final = 0

        init(_ m: Int, _ n: Int) {
            (self.m, self.n) = (m, n)
            let offsets = [(1, 2), (2, 1), (2, -1), (1, -2), (-1, -2), (-2, -1), (-2, 1), (-1, 2)]
            for i in 0..<m {
                for j in 0..<n {
                    successors.append(offsets.compactMap { io, jo in
                        (0..<m).contains(i + io) && (0..<n).contains(j + jo) ? index(i + io, j + jo) : nil
                    })
                }
            }
        }

        func index(_ i: Int, _ j: Int) -> Int { i * n + j }

        /// Takes `square` out of its successors' lists; false when that leaves a square that
        /// can no longer be left, or two squares with one exit each.
        func removeFromSuccessors(_ square: Int) -> Bool {
            var noExit = 0, oneExit = 0
            for i in successors[square] {
                successors[i].remove(at: successors[i].firstIndex(of: square)!)
                switch successors[i].count {
                case 0: noExit += 1
                case 1: oneExit += 1
                default: break
                }
            }
            return noExit == 0 && oneExit < 2
        }

        func addToSuccessors(_ square: Int) {
            for i in successors[square] { successors[i].append(square) }
        }
    }

    static func tours(_ board: Board) -> Generator<[Int], Void, Void> {
        let first: () -> Generator<Int, Void, Void> = {
            Generator { y in
                let corner = board.index(0, 0)
                _ = board.removeFromSuccessors(corner)
                board.last = corner
                try y.yield(corner)
                board.addToSuccessors(corner)
            }
        }
        let second: () -> Generator<Int, Void, Void> = {
            Generator { y in
                let corner = board.index(0, 0)
                for (i, j) in [(1, 2), (2, 1)] {
                    let this = board.index(i, j)
                    let final = board.index(3 - i, 3 - j)
                    board.final = final
                    _ = board.removeFromSuccessors(this)
                    board.successors[final].append(corner)
                    board.last = this
                    try y.yield(this)
                    board.successors[final].remove(at: board.successors[final].firstIndex(of: corner)!)
                    board.addToSuccessors(this)
                }
            }
        }
        let advance: () -> Generator<Int, Void, Void> = {
            Generator { y in
                // A successor with one exit must be taken; else fewer exits first.
                var candidates: [(exits: Int, square: Int)] = []
                var forced = false
                for i in board.successors[board.last] {
                    let exits = board.successors[i].count
                    if exits == 1 {
                        candidates = [(exits, i)]
                        forced = true
                        break
                    }
                    candidates.append((exits, i))
                }
                if !forced { candidates.sort { $0 < $1 } }
                for (_, i) in candidates where i != board.final {
                    if board.removeFromSuccessors(i) {
                        board.last = i
                        try y.yield(i)
                    }
                    board.addToSuccessors(i)
                }
            }
        }
        let last: () -> Generator<Int, Void, Void> = {
            Generator { y in try y.yield(board.final) }
        }
        return QueensWorkload.conjoin([first, second] + Array(repeating: advance, count: board.m * board.n - 3) + [last])
    }

    static func run(_ size: Int) -> [String] {
        let side = 10
        var count = 0
        var checksum = 0
        var first: [Int]?
        for tour in tours(Board(side, side)) {
            count += 1
            if first == nil { first = tour }
            for (k, square) in tour.enumerated() { checksum = (checksum * 31 + square * (k + 1)) % 1_000_000_007 }
            if count == size { break }
        }
        return ["knights \(side)x\(side): \(count) tours",
                "first " + (first ?? []).prefix(20).map(String.init).joined(separator: " "),
                "checksum \(checksum)"]
    }
}
