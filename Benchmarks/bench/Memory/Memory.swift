import RJIterator

/// Resident memory per suspended generator, and what creating and releasing cost with many
/// alive at once: `count` generators, each suspended at its first `yield`.
@MainActor
enum MemoryRows {
    static let group = "memory (many generators alive at once)"
    static let perGeneratorName = "resident memory per suspended generator"

    /// Returns the per-generator memory row, or nil when it was not wanted.
    @discardableResult
    static func measure(_ bench: Bench, count: Int) -> Row? {
        guard bench.wanted(perGeneratorName), residentBytes() >= 0 else { return nil }
        progress("memory: \(count) suspended generators")
        RJRuntime.drainStackPool()
        var gens: [Generator<Int, Void, Void>] = []
        gens.reserveCapacity(count)
        let before = residentBytes()
        let t0 = now()
        var failure: Error?
        for i in 0..<count {
            let g = Generator<Int, Void, Void> { y in
                try y.yield(i)
                try y.yield(-i)
            }
            do {
                _ = try g.next()
            } catch {
                failure = error
                break
            }
            gens.append(g)
        }
        let created = Double(now() - t0)
        let after = residentBytes()
        let alive = gens.count
        let t1 = now()
        gens.removeAll()
        let released = Double(now() - t1)
        RJRuntime.drainStackPool()
        var note = "\(alive) alive at once"
        if let failure { note += "; stopped: \(failure)" }
        let perGenerator = Row(group, perGeneratorName, note: note, unit: "KiB", nil)
        bench.record(perGenerator, Double(after - before) / Double(Swift.max(alive, 1)) / 1024)
        bench.record(Row(group, "create + first next, \(alive) kept alive", note: "per generator", nil),
                     created / Double(Swift.max(alive, 1)))
        bench.record(Row(group, "release of \(alive) suspended generators", note: "per generator, closes each body", nil),
                     released / Double(Swift.max(alive, 1)))
        return perGenerator
    }
}
