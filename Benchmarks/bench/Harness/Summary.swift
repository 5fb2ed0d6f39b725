import Foundation

/// The first lines of the output, for someone who has never read the table: the figures that
/// say what the library costs (a switch, a generator's life, an async element, the memory of a
/// suspended generator), each beside what a Swift user could pick instead, in plain words.
/// Built from this run's rows by their names; a line whose rows did not run (`--filter`) is left out.
@MainActor
func plainSummary(_ bench: Bench) -> [String] {
    func ns(_ name: String) -> Double? { bench.row(named: name)?.median }
    func time(_ v: Double) -> String {
        v >= 10_000 ? String(format: "%.1f µs", v / 1000) : v >= 100 ? "\(grouped(v)) ns" : String(format: "%.1f ns", v)
    }
    func grouped(_ v: Double) -> String {
        let n = Int(v.rounded())
        return n >= 1000 ? "\(n / 1000),\(String(format: "%03d", n % 1000))" : "\(n)"
    }
    /// How `other` compares with `ours`, said of `other`: the median of the per-round ratios
    /// when both were measured in the same rounds (as the targets are), else of the medians.
    func times(_ ours: String, _ other: String) -> String {
        guard let a = bench.row(named: ours), let b = bench.row(named: other) else { return "" }
        let r = a.samples.count == b.samples.count ? zip(b.samples, a.samples).map { $0 / $1 }.median : b.median / a.median
        if abs(r - 1) < 0.05 { return "about the same as ours" }
        return r > 1 ? String(format: "%.1fx slower than ours", r) : String(format: "%.1fx faster than ours", 1 / r)
    }
    var lines = ["In plain words (this run; the rows in detail and every target follow):"]
    if let next = ns(SummaryRows.generatorNext) {
        var line = "  A generator switch, into its body and back (Generator.next): \(time(next))."
        var others: [String] = []
        if let u = ns(SummaryRows.swapcontext) { others.append("the same with the system's swapcontext \(time(u)) (\(times(SummaryRows.generatorNext, SummaryRows.swapcontext)))") }
        if let v8 = ns(SummaryRows.v8Next) { others.append("V8's generator next \(time(v8)) (\(times(SummaryRows.generatorNext, SummaryRows.v8Next)))") }
        if let py = ns(SummaryRows.pythonSend) { others.append("Python's send \(time(py)) (\(times(SummaryRows.generatorNext, SummaryRows.pythonSend)))") }
        if !others.isEmpty { line += "\n    Beside it: " + others.joined(separator: "; ") + "." }
        lines.append(line)
    }
    if let life = ns(SummaryRows.createRunRelease) {
        var line = "  A generator's whole life (made, run to its end, released): \(time(life))."
        var others: [String] = []
        if let v8 = ns(SummaryRows.v8Create) { others.append("V8 \(time(v8))") }
        if let py = ns(SummaryRows.pythonCreate) { others.append("Python \(time(py))") }
        if !others.isEmpty { line += " " + others.joined(separator: ", ") + "." }
        lines.append(line)
    }
    if let element = ns(SummaryRows.asyncElement) {
        var line = "  One element of `for try await` over an AsyncGenerator: \(time(element))."
        if let stream = ns(SummaryRows.asyncStream) { line += " Over an AsyncStream: \(time(stream))." }
        lines.append(line)
    }
    if let kib = ns(SummaryRows.memoryDedicated) {
        var line = String(format: "  Memory per suspended generator: %.2f KiB with a stack of its own", kib)
        if let shared = ns(SummaryRows.memoryShared) { line += ", \(grouped(shared)) B with shared stacks (RJ_STACK_MODE=shared)" }
        line += "."
        var others: [String] = []
        if let v8 = ns(SummaryRows.v8Memory) { others.append("V8 \(grouped(v8)) B") }
        if let py = ns(SummaryRows.pythonMemory) { others.append("Python \(grouped(py)) B") }
        if !others.isEmpty { line += " " + others.joined(separator: ", ") + "." }
        lines.append(line)
    }
    let held = bench.ratios.filter { $0.met != nil }
    if !held.isEmpty {
        let met = held.filter { $0.met == true }.count
        lines.append("  Targets: \(met) of \(held.count) met in this run; the ones not met, each with why, close the output.")
    }
    guard lines.count > 1 else { return [] }
    lines.append("")
    lines.append("The rows in detail, by area: per operation, the median of \(bench.samplesPerRow) samples (each a batch of about 20 ms), with min and max"
                 + (bench.options.quick ? " (--quick: fewer samples, smaller programs)." : "."))
    return lines
}

/// The names of the rows the summary reads, as their areas declare them. A row renamed there
/// and not here leaves its summary line out: `--quick` (CI) fails on it (`checkSummaryRows`).
enum SummaryRows {
    static let generatorNext = "Generator<Int, Int, Void>.next(i)"
    static let swapcontext = "C floor: raw swapcontext"
    static let v8Next = "peer: V8 generator next(v) (node)"
    static let pythonSend = "peer: Python generator send(v) (python3)"
    static let createRunRelease = "create + first next + release (pooled)"
    static let v8Create = "peer: V8 generator created, run, dropped (node)"
    static let pythonCreate = "peer: Python generator created, run, dropped (python3)"
    static let asyncElement = "AsyncGenerator: for try await, body without awaits"
    static let asyncStream = "AsyncStream: per element"
    static let memoryDedicated = "resident memory per suspended generator"
    static let memoryShared = "resident memory per suspended generator, shared stacks"
    static let v8Memory = "peer: V8, resident memory per suspended generator"
    static let pythonMemory = "peer: Python, resident memory per suspended generator"

    /// The names of the rows measured in Swift (the peers' need node and python3).
    static let ours = [generatorNext, swapcontext, createRunRelease, asyncElement, asyncStream, memoryDedicated]
}

/// In a full run (no `--filter`), a summary row that no row of the run is named: a failure, so
/// that renaming a row cannot silently drop a line of the summary.
@MainActor
func checkSummaryRows(_ bench: Bench) {
    guard bench.options.filter == nil, !bench.options.workloadsOnly else { return }
    for name in SummaryRows.ours where bench.row(named: name) == nil {
        bench.fail("the plain-words summary reads a row named \"\(name)\", which this run has not")
    }
}
