import CRJBenchFloor
import RJIterator

/// Resident memory per suspended generator, and what creating and releasing cost with many
/// alive at once: `count` generators, each suspended at its first `yield`.
@MainActor
enum MemoryRows {
    static let group = "memory (many generators alive at once)"
    static let perGeneratorName = "resident memory per suspended generator"

    /// The rows that targets hold: memory per generator, create and release with `count`
    /// alive, and the fresh-page floor under a create.
    struct Rows {
        let perGenerator: Row
        let create: Row
        let release: Row
        let freshPage: Row
        let pageBack: Row
    }

    /// Returns the rows, or nil when they were not wanted.
    @discardableResult
    static func measure(_ bench: Bench, count: Int) -> Rows? {
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
        let create = Row(group, "create + first next, \(alive) kept alive", note: "per generator", nil)
        bench.record(create, created / Double(Swift.max(alive, 1)))
        let release = Row(group, "release of \(alive) suspended generators", note: "per generator, closes each body", nil)
        bench.record(release, released / Double(Swift.max(alive, 1)))
        // What any new stack's first page costs on this machine (a page fault and its zeroing).
        let freshPage = Row(group, "floor: first write to a fresh page", note: "\(alive) pages, one every 320 KiB", nil)
        bench.record(freshPage, rj_bench_fresh_page_touch(UInt64(alive)))
        let pageBack = Row(group, "floor: giving such a page back", note: "MADV_DONTNEED, one call per 64 pages", nil)
        bench.record(pageBack, rj_bench_page_give_back(UInt64(alive)))
        return Rows(perGenerator: perGenerator, create: create, release: release, freshPage: freshPage, pageBack: pageBack)
    }
}
