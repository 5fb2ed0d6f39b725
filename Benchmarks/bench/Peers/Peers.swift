import Foundation

/// Other runtimes' generators on the same machine, run as child processes
/// (`Benchmarks/peers/`): each prints nanoseconds per round trip, loop included.
@MainActor
struct PeerRows {
    static let group = "peers: other runtimes' generators (child processes, same machine)"

    let v8Generator: Row
    let pythonGenerator: Row
    /// A generator made, run to a body that returns at once, and dropped.
    let v8Create: Row
    let pythonCreate: Row

    init(bench: Bench) {
        let run = !bench.options.noPeers
        v8Generator = Row(Self.group, "peer: V8 generator next(v) (node)", note: "Benchmarks/peers/generator.js, loop included",
                          sampler: run && onPath("node") ? { peerSample("node", "generator.js", 2_000_000) } : nil)
        pythonGenerator = Row(Self.group, "peer: Python generator send(v) (python3)",
                              note: "Benchmarks/peers/generator.py, loop included",
                              sampler: run && onPath("python3") ? { peerSample("python3", "generator.py", 300_000) } : nil)
        v8Create = Row(Self.group, "peer: V8 generator created, run, dropped (node)", note: "Benchmarks/peers/create.js, loop included",
                       sampler: run && onPath("node") ? { peerSample("node", "create.js", 2_000_000) } : nil)
        pythonCreate = Row(Self.group, "peer: Python generator created, run, dropped (python3)",
                           note: "Benchmarks/peers/create.py, loop included",
                           sampler: run && onPath("python3") ? { peerSample("python3", "create.py", 300_000) } : nil)
        for (tool, row) in [("node", v8Generator), ("python3", pythonGenerator), ("node", v8Create), ("python3", pythonCreate)]
        where run && !onPath(tool) && bench.wanted(row.name) {
            progress("\(row.name): skipped, \(tool) is not on the PATH")
        }
    }
}

/// The folder of the peers' scripts.
let peersDirectory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().appendingPathComponent("peers")

/// Runs `interpreter script arguments...` from `Benchmarks/peers/`; its standard output, or nil
/// when the interpreter is not on the PATH or the script fails.
func runPeer(_ interpreter: String, _ script: String, _ arguments: [String]) -> String? {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = [interpreter, peersDirectory.appendingPathComponent(script).path] + arguments
    let out = Pipe()
    process.standardOutput = out
    process.standardError = FileHandle.nullDevice
    do { try process.run() } catch { return nil }
    let data = out.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    guard process.terminationStatus == 0 else { return nil }
    return String(decoding: data, as: UTF8.self)
}

/// Runs a peer's round-trip script and reads the nanoseconds per round trip it prints.
func peerSample(_ interpreter: String, _ script: String, _ iterations: Int) -> Double? {
    runPeer(interpreter, script, [String(iterations)])
        .flatMap { Double($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
}
