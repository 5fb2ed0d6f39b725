import Foundation

/// Keeps a value alive as far as the optimiser can tell, without doing anything with it.
@inline(never)
func blackHole<T>(_ x: T) {}

/// A lock for the rows that gather results from several threads.
final class RJBenchLock: @unchecked Sendable {
    private let lock = NSLock()
    func run<T>(_ body: () -> T) -> T {
        lock.lock()
        defer { lock.unlock() }
        return body()
    }
}

/// Where a row's closures add what they computed, so that the optimiser cannot drop the work.
/// Each row makes its own; one thread touches it at a time.
final class Sink: @unchecked Sendable {
    var sum = 0
}

/// `assert` runs only in unoptimised builds: the classic way to ask how this was built.
func builtWithOptimization() -> Bool {
    var optimized = true
    assert({ optimized = false; return true }())
    return optimized
}

/// Resident memory of this process, in bytes (`/proc/self/statm`); -1 where it cannot be read.
func residentBytes() -> Int {
    guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return -1 }
    let fields = text.split(separator: " ")
    guard fields.count > 1, let pages = Int(fields[1]) else { return -1 }
    return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
}

/// Whether `tool` is on the PATH.
func onPath(_ tool: String) -> Bool {
    (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":").contains {
        FileManager.default.isExecutableFile(atPath: "\($0)/\(tool)")
    }
}

/// Runs `n` operations in batches of 10,000, google/promises' batch size.
func inBatches(_ n: Int, _ batch: (Int) -> Void) {
    var left = n
    while left > 0 {
        let size = min(left, 10_000)
        batch(size)
        left -= size
    }
}
