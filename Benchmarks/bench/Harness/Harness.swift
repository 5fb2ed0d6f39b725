import CRJBenchFloor
import Foundation

/// Command-line options of `swift run -c release bench`.
struct Options {
    var quick = false
    var json = false
    var workloadsOnly = false
    var noPeers = false
    var filter: String?
    var scale: Int?

    static func parse(_ args: [String]) -> Options {
        var o = Options()
        var i = 0
        while i < args.count {
            switch args[i] {
            case "--quick": o.quick = true
            case "--workloads": o.workloadsOnly = true
            case "--no-peers": o.noPeers = true
            case "--json": o.json = true
            case "--filter":
                i += 1
                o.filter = i < args.count ? args[i] : nil
                if o.filter == nil { usage("--filter needs a name") }
            case "--scale":
                i += 1
                o.scale = i < args.count ? Int(args[i]) : nil
                if o.scale == nil || o.scale! <= 0 { usage("--scale needs a positive whole number") }
            case "-h", "--help": usage(nil)
            default: usage("unknown argument \(args[i])")
            }
            i += 1
        }
        return o
    }

    static func usage(_ problem: String?) -> Never {
        if let problem { FileHandle.standardError.write("bench: \(problem)\n".data(using: .utf8)!) }
        print("""
            usage: swift run -c release bench [--quick] [--workloads] [--no-peers] [--json] [--filter NAME] [--scale N]
              --quick        fewer samples, smaller workloads and memory row (what CI runs)
              --workloads    only the workloads: classic generator programs beside Python and Node
              --no-peers     no child processes (Python, Node): for profiling the Swift side alone
              --json         machine-readable output
              --filter NAME  only rows whose name contains NAME (several: A,B); a target is
                             shown when both its rows ran
              --scale N      suspended generators alive at once in the memory rows (default 100000;
                             dedicated stacks at most 1000000, shared stacks the whole N)
            """)
        exit(problem == nil ? 0 : 2)
    }
}

/// Progress, on stderr: stdout carries only the table or the JSON.
func progress(_ text: String) {
    FileHandle.standardError.write("bench: \(text)\n".data(using: .utf8)!)
}

/// One row: a named operation, measured in nanoseconds per operation (or another unit). The
/// name is written once, here; targets refer to the row itself.
final class Row {
    let group: String
    let name: String
    let unit: String
    let note: String
    let body: ((Int) -> Void)?
    /// For a row measured elsewhere (a peer's script): one sample, in the row's unit, or nil
    /// if it could not be taken.
    let sampler: (() -> Double?)?
    var samples: [Double] = []
    /// Operations per sample, chosen so that one sample takes about 20 ms.
    var batch = 0

    init(_ group: String, _ name: String, note: String = "", unit: String = "ns", _ body: ((Int) -> Void)?) {
        self.group = group
        self.name = name
        self.note = note
        self.unit = unit
        self.body = body
        self.sampler = nil
    }

    init(_ group: String, _ name: String, note: String = "", unit: String = "ns", sampler: (() -> Double?)?) {
        self.group = group
        self.name = name
        self.note = note
        self.unit = unit
        self.body = nil
        self.sampler = sampler
    }

    var measured: Bool { !samples.isEmpty }
    var median: Double { samples.median }
    var min: Double { samples.min() ?? .nan }
    var max: Double { samples.max() ?? .nan }
}

extension Array where Element == Double {
    var median: Double {
        if isEmpty { return .nan }
        let s = sorted()
        return s.count % 2 == 1 ? s[s.count / 2] : (s[s.count / 2 - 1] + s[s.count / 2]) / 2
    }
}

/// A target held against a ratio of two rows measured in the same rounds (or a row's own
/// median): the value is the median of the per-round ratios, shown with their range.
struct Ratio {
    var name: String
    var value: Double
    var low: Double
    var high: Double
    var unit: String = "x"
    var target: Double?
    var targetText: String
    /// Why a target that is often missed is missed, in one line (docs/performance.md has the
    /// measurements behind it); printed beside it in the closing list when this run missed it.
    var why: String? = nil
    var met: Bool? { target.map { value <= $0 } }
}

func now() -> UInt64 { DispatchTime.now().uptimeNanoseconds }

/// Runs the benchmark: rows in interleaved sets, the targets between them.
@MainActor
final class Bench {
    let options: Options
    private(set) var rows: [Row] = []
    private(set) var ratios: [Ratio] = []
    private var anyWanted = false
    /// What went wrong in a way that makes the run fail (a peer printing other output).
    private(set) var failures: [String] = []

    init(options: Options) {
        self.options = options
    }

    var samplesPerRow: Int { options.quick ? 5 : 15 }

    func wanted(_ name: String) -> Bool {
        guard let f = options.filter else { return true }
        return f.split(separator: ",").contains { name.localizedCaseInsensitiveContains($0) }
    }

    /// Measures the wanted rows of `set` in rounds, A, B, C, A, B, C, ... (the way a paired
    /// benchmark does it), so that a burst of noise hits every row of the set, and the
    /// per-round ratios of two rows stay comparable.
    func measure(_ set: [Row], rounds: Int? = nil) {
        let samplesPerRow = rounds ?? self.samplesPerRow
        var chosen = set.filter { ($0.body != nil || $0.sampler != nil) && wanted($0.name) }
        guard !chosen.isEmpty else { return }
        anyWanted = true
        // Every set starts from a heap with its free chunks merged and handed back: what the
        // sets before it freed (100,000 suspended generators, among others) otherwise decides
        // how fast an allocation-bound row runs. Measured: 32 bytes more in the generator
        // object alone took the 10,000-pending-promises row from 668-738 to 1,340-1,920 ns
        // in full runs, and not in runs of that row alone.
        rj_bench_trim_heap()
        progress("\(chosen[0].name) and \(chosen.count - 1) more row(s): \(samplesPerRow) rounds")
        for row in chosen {
            if let body = row.body {
                row.batch = calibrate(body)
                body(row.batch)  // warm-up
            }
        }
        for round in 0..<samplesPerRow {
            for row in chosen {
                if let body = row.body {
                    let t0 = now()
                    body(row.batch)
                    row.samples.append(Double(now() - t0) / Double(row.batch))
                } else if let sample = row.sampler!() {
                    row.samples.append(sample)
                }
            }
            if round % 5 == 4 { progress("  round \(round + 1)/\(samplesPerRow)") }
        }
        // A peer that could not run (its script failed) has no samples: left out.
        chosen.removeAll { $0.samples.count != samplesPerRow }
        rows.append(contentsOf: chosen)
    }

    /// A row measured once by its own code (memory figures).
    func record(_ row: Row, _ value: Double) {
        anyWanted = true
        row.samples = [value]
        rows.append(row)
    }

    /// `a / b`, per round, held against `target` (nil: for information). `label` names the
    /// target in the table (the rows' own names are long).
    func ratio(_ label: String, _ a: Row, over b: Row, target: Double?, _ text: String? = nil, why: String? = nil) {
        guard a.measured, b.measured, a.samples.count == b.samples.count else { return }
        let perRound = zip(a.samples, b.samples).map { $0 / $1 }
        ratios.append(Ratio(
            name: label, value: perRound.median, low: perRound.min() ?? .nan,
            high: perRound.max() ?? .nan, target: target,
            targetText: text ?? target.map { String(format: "<= %.2fx", $0) } ?? "(information)", why: why))
    }

    /// A row's own median held against a bound.
    func bound(_ a: Row, _ name: String, below target: Double, why: String? = nil) {
        guard a.measured else { return }
        ratios.append(Ratio(name: name, value: a.median, low: a.min, high: a.max, unit: a.unit, target: target,
                            targetText: "<= \(format(target, unit: a.unit))", why: why))
    }

    /// The row of this run named `name`, if it was measured.
    func row(named name: String) -> Row? { rows.first { $0.name == name && $0.measured } }

    /// Records a failure: the run goes on, and exits with status 1 at the end.
    func fail(_ message: String) {
        progress("FAILED: \(message)")
        failures.append(message)
    }

    /// Exits with a message when `--filter` matched nothing.
    func checkSomethingRan() {
        if !anyWanted {
            progress("--filter \(options.filter ?? "") matched no row")
            exit(2)
        }
    }
}

/// Picks `n` so that `body(n)` takes about `sampleNs`.
///
/// A first guess comes from the first call that takes over a twentieth of `sampleNs`; one
/// call at the guessed batch then checks it, and the batch grows if that call was much
/// shorter. Without the check, a first call that paid a one-time cost (a queue's thread woken
/// from sleep, a lazy setup, `perf` starting) made the batch far too small, and a row whose
/// every sample pays a fixed cost (an `rj_async` body started on another queue) slow in that
/// process alone (the lab history: "rj_await's slow processes, found"). A call before the
/// guess takes the first-call costs out of it.
func calibrate(_ body: (Int) -> Void, sampleNs: Double = 20_000_000) -> Int {
    body(64)
    var n = 64
    while true {
        let t0 = now()
        body(n)
        let dt = Double(now() - t0)
        if dt > sampleNs / 20 || n >= 1 << 26 {
            let guess = Swift.max(1, Int(Double(n) * sampleNs / Swift.max(dt, 1)))
            return checked(guess, body, sampleNs: sampleNs)
        }
        n *= 4
    }
}

/// `guess` grown if a call at `guess` takes under half of `sampleNs` (never shrunk: a slow
/// call is what the first guess may have caught, not what the check should undo).
private func checked(_ guess: Int, _ body: (Int) -> Void, sampleNs: Double) -> Int {
    let t0 = now()
    body(guess)
    let dt = Double(now() - t0)
    guard dt < sampleNs / 2, guess < 1 << 26 else { return guess }
    return Swift.min(1 << 26, Int(Double(guess) * sampleNs / Swift.max(dt, 1)))
}

func format(_ v: Double, unit: String) -> String {
    if v.isNaN { return "-" }
    switch unit {
    case "ns":
        if v >= 100_000 { return String(format: "%.1f us", v / 1000) }
        return String(format: "%.1f ns", v)
    case "KiB": return String(format: "%.2f KiB", v)
    case "B": return String(format: "%.0f B", v)
    case "ms": return String(format: "%.1f ms", v)
    case "x": return String(format: "%.2fx", v)
    default: return String(format: "%.2f %@", v, unit)
    }
}

func printTable(_ rows: [Row], _ ratios: [Ratio], header: [String], summary: [String]) {
    for line in header { print(line) }
    print("")
    if !summary.isEmpty {
        for line in summary { print(line) }
    }
    // Wide enough for every label, rows and targets alike: a long label never pushes the
    // figures out of their column.
    let nameWidth = (rows.map(\.name.count) + ratios.map(\.name.count) + [38]).max()! + 2
    func pad(_ s: String, _ w: Int) -> String { s.count >= w ? s : s + String(repeating: " ", count: w - s.count) }
    func lpad(_ s: String, _ w: Int) -> String { s.count >= w ? s : String(repeating: " ", count: w - s.count) + s }
    print(pad("row", nameWidth) + lpad("median", 12) + lpad("min", 12) + lpad("max", 12) + "  note")
    // Rows measured in one set may belong to several areas: each prints under its own
    // heading, the headings in the order their first row was measured.
    var groups: [String] = []
    for r in rows where !groups.contains(r.group) { groups.append(r.group) }
    for group in groups {
        print("-- \(group)")
        for r in rows where r.group == group {
            print(pad(r.name, nameWidth) + lpad(format(r.median, unit: r.unit), 12) + lpad(format(r.min, unit: r.unit), 12)
                    + lpad(format(r.max, unit: r.unit), 12) + (r.note.isEmpty ? "" : "  \(r.note)"))
        }
    }
    if !ratios.isEmpty {
        print("")
        print("-- targets (median of the per-round ratios of this run, with their range)")
        print(pad("target", nameWidth) + lpad("median", 12) + lpad("min", 12) + lpad("max", 12) + "  verdict")
        for q in ratios {
            let verdict = q.met.map { $0 ? "met" : "NOT met" } ?? ""
            print(pad(q.name, nameWidth) + lpad(format(q.value, unit: q.unit), 12) + lpad(format(q.low, unit: q.unit), 12)
                    + lpad(format(q.high, unit: q.unit), 12) + "  \(q.targetText) \(verdict)")
        }
        printSummary(ratios)
    }
}

/// The closing lines: how many targets this run met, and each it did not, with why.
func printSummary(_ ratios: [Ratio]) {
    let held = ratios.filter { $0.met != nil }
    let missed = held.filter { $0.met == false }
    print("")
    print("-- targets met: \(held.count - missed.count) of \(held.count) in this run"
          + (missed.isEmpty ? "." : "; not met, and why:"))
    for q in missed {
        print("  \(q.name): \(format(q.value, unit: q.unit)), target \(q.targetText)")
        print("      " + (q.why ?? "not met in this run; docs/performance.md#targets has its record over several runs"))
    }
    print("""
        A target missed is a figure, not a failure: the run exits 0 (1 only when a workload's
        program failed, or printed something else than its peers). One run says little on a shared or
        frequency-scaling machine (this project's drifts by up to 2x between its states):
        docs/performance.md#targets has every target over several runs; compare two builds side
        by side (docs/performance.md#comparing-two-builds) and count instructions for small
        changes (bash Benchmarks/instructions/count).
        """)
}

/// A JSON value, written with numbers as numbers and booleans as booleans.
enum JSON {
    case string(String), number(Double), bool(Bool), null, array([JSON]), object([(String, JSON)])

    static func num(_ v: Double) -> JSON { v.isFinite ? .number(v) : .null }

    func render(_ indent: String = "") -> String {
        switch self {
        case .string(let s):
            var out = "\""
            for ch in s.unicodeScalars {
                switch ch {
                case "\"": out += "\\\""
                case "\\": out += "\\\\"
                case "\n": out += "\\n"
                default:
                    if ch.value < 0x20 { out += String(format: "\\u%04x", ch.value) } else { out.unicodeScalars.append(ch) }
                }
            }
            return out + "\""
        case .number(let v):
            return v == v.rounded() && abs(v) < 1e15 ? String(Int(v)) : String(format: "%.3f", v)
        case .bool(let b): return b ? "true" : "false"
        case .null: return "null"
        case .array(let items):
            if items.isEmpty { return "[]" }
            let inner = indent + "  "
            return "[\n" + items.map { inner + $0.render(inner) }.joined(separator: ",\n") + "\n\(indent)]"
        case .object(let fields):
            if fields.isEmpty { return "{}" }
            let inner = indent + "  "
            return "{\n" + fields.map { inner + JSON.string($0.0).render() + ": " + $0.1.render(inner) }
                .joined(separator: ",\n") + "\n\(indent)}"
        }
    }
}

func printJSON(_ rows: [Row], _ ratios: [Ratio], meta: [(String, JSON)]) {
    let doc = JSON.object([
        ("meta", .object(meta)),
        ("rows", .array(rows.map { r in
            .object([
                ("group", .string(r.group)), ("name", .string(r.name)), ("unit", .string(r.unit)),
                ("median", .num(r.median)), ("min", .num(r.min)), ("max", .num(r.max)),
                ("samples", .number(Double(r.samples.count))), ("batch", r.body == nil ? .null : .number(Double(r.batch))), ("note", .string(r.note)),
            ])
        })),
        ("targets", .array(ratios.map { q in
            .object([
                ("name", .string(q.name)), ("value", .num(q.value)), ("min", .num(q.low)), ("max", .num(q.high)),
                ("unit", .string(q.unit)), ("target", q.target.map(JSON.num) ?? .null),
                ("met", q.met.map(JSON.bool) ?? .null),
            ])
        })),
    ])
    print(doc.render())
}
