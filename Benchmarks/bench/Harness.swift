import Foundation

/// Command-line options of `swift run -c release bench`.
struct Options {
    var quick = false
    var json = false
    var filter: String?
    var scale: Int?

    static func parse(_ args: [String]) -> Options {
        var o = Options()
        var i = 0
        while i < args.count {
            switch args[i] {
            case "--quick": o.quick = true
            case "--json": o.json = true
            case "--filter":
                i += 1
                o.filter = i < args.count ? args[i] : nil
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
            usage: swift run -c release bench [--quick] [--json] [--filter NAME] [--scale N]
              --quick        fewer samples and a smaller memory row (what CI runs)
              --json         machine-readable output
              --filter NAME  only rows whose name contains NAME (several: A,B)
              --scale N      suspended generators alive at once in the memory row (default 100000)
            """)
        exit(problem == nil ? 0 : 2)
    }
}

/// One measured row: nanoseconds per operation over repeated samples (or another unit).
struct Row {
    var group: String
    var name: String
    var unit: String
    var samples: [Double]
    var note: String = ""

    var median: Double {
        let s = samples.sorted()
        return s.count % 2 == 1 ? s[s.count / 2] : (s[s.count / 2 - 1] + s[s.count / 2]) / 2
    }
    var min: Double { samples.min() ?? .nan }
    var max: Double { samples.max() ?? .nan }
}

/// A ratio between two rows of the same run, with the target it is held against.
struct Ratio {
    var name: String
    var value: Double
    var unit: String = "x"
    var target: String
    var met: Bool?
}

func now() -> UInt64 { DispatchTime.now().uptimeNanoseconds }

/// Measures `body(n)` (which performs n operations) and returns ns per operation for each
/// sample, after one warm-up sample. `n` is chosen so a sample takes about `sampleNs`.
func measure(quick: Bool, sampleNs: Double = 20_000_000, _ body: (Int) -> Void) -> [Double] {
    // Calibrate on a small run.
    var n = 64
    while true {
        let t0 = now()
        body(n)
        let dt = Double(now() - t0)
        if dt > sampleNs / 20 || n >= 1 << 26 {
            n = Swift.max(1, Int(Double(n) * sampleNs / Swift.max(dt, 1)))
            break
        }
        n *= 4
    }
    body(n)  // warm-up
    let count = quick ? 5 : 15
    return (0..<count).map { _ in
        let t0 = now()
        body(n)
        return Double(now() - t0) / Double(n)
    }
}

func format(_ v: Double, unit: String) -> String {
    if v.isNaN { return "-" }
    switch unit {
    case "ns":
        if v >= 100_000 { return String(format: "%.1f us", v / 1000) }
        return String(format: "%.1f ns", v)
    case "KiB": return String(format: "%.2f KiB", v)
    case "s": return String(format: "%.2f s", v)
    default: return String(format: "%.2f %@", v, unit)
    }
}

func printTable(_ rows: [Row], _ ratios: [Ratio], header: [String]) {
    for line in header { print(line) }
    print("")
    let nameWidth = Swift.max(40, (rows.map { $0.name.count }.max() ?? 0) + 2)
    var group = ""
    func pad(_ s: String, _ w: Int) -> String { s.count >= w ? s : s + String(repeating: " ", count: w - s.count) }
    func lpad(_ s: String, _ w: Int) -> String { s.count >= w ? s : String(repeating: " ", count: w - s.count) + s }
    print(pad("row", nameWidth) + lpad("median", 12) + lpad("min", 12) + lpad("max", 12) + "  note")
    for r in rows {
        if r.group != group {
            group = r.group
            print("-- \(group)")
        }
        print(
            pad(r.name, nameWidth) + lpad(format(r.median, unit: r.unit), 12) + lpad(format(r.min, unit: r.unit), 12)
                + lpad(format(r.max, unit: r.unit), 12) + (r.note.isEmpty ? "" : "  \(r.note)"))
    }
    if !ratios.isEmpty {
        print("")
        print("-- targets (from the medians of this run)")
        for q in ratios {
            let verdict = q.met.map { $0 ? "met" : "NOT met" } ?? ""
            let shown = q.unit == "x" ? String(format: "%.2fx", q.value) : format(q.value, unit: q.unit)
            print(pad(q.name, nameWidth) + lpad(shown, 12) + "  target \(q.target) \(verdict)")
        }
    }
}

func printJSON(_ rows: [Row], _ ratios: [Ratio], meta: [String: String]) {
    func esc(_ s: String) -> String {
        s.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
    }
    func num(_ v: Double) -> String { v.isFinite ? String(format: "%.3f", v) : "null" }
    var out = "{\n  \"meta\": {"
    out += meta.sorted { $0.key < $1.key }.map { "\"\(esc($0.key))\": \"\(esc($0.value))\"" }.joined(separator: ", ")
    out += "},\n  \"rows\": [\n"
    out += rows.map { r in
        "    {\"group\": \"\(esc(r.group))\", \"name\": \"\(esc(r.name))\", \"unit\": \"\(r.unit)\", "
            + "\"median\": \(num(r.median)), \"min\": \(num(r.min)), \"max\": \(num(r.max)), "
            + "\"samples\": \(r.samples.count), \"note\": \"\(esc(r.note))\"}"
    }.joined(separator: ",\n")
    out += "\n  ],\n  \"ratios\": [\n"
    out += ratios.map { q in
        "    {\"name\": \"\(esc(q.name))\", \"value\": \(num(q.value)), \"unit\": \"\(q.unit)\", \"target\": \"\(esc(q.target))\", "
            + "\"met\": \(q.met.map { $0 ? "true" : "false" } ?? "null")}"
    }.joined(separator: ",\n")
    out += "\n  ]\n}"
    print(out)
}
