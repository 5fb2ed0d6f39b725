// A small program the tests run in a child process, for behaviour that ends the process or
// only shows on stderr. Each mode does one thing; see ProbeTests.swift for what is expected.
import Foundation
import RJIterator
import RJNodes

/// Unbuffered, so what was said survives a crash.
func say(_ text: String) {
    FileHandle.standardOutput.write((text + "\n").data(using: .utf8)!)
}

/// Takes the address of a frame's buffer after the recursive call: the frame must really exist,
/// so the optimiser cannot turn the recursion into a loop.
@inline(never)
func touch(_ buffer: UnsafeMutableRawBufferPointer) {
    buffer[0] &+= 1
}

@inline(never)
func recurse(_ n: Int) -> Int {
    var pad = (n, n, n, n, n, n, n, n, n, n, n, n, n, n, n, n)
    let below = n > Int(CommandLine.argc) + 1_000_000_000 ? 0 : recurse(n + 1)
    withUnsafeMutableBytes(of: &pad) { touch($0) }
    return below &+ pad.0
}

func overflowInGenerator() {
    let gen = Generator<Int, Void, Int>(stackSize: 64 * 1024) { _ in recurse(0) }
    // The result is printed so that an optimised build cannot drop the (pure) recursion.
    say("\(String(describing: try? gen.next()))")
}

let mode = CommandLine.arguments.dropFirst().first ?? ""
switch mode {
case "overflow":
    overflowInGenerator()
case "overflow-thread":
    let thread = Thread { overflowInGenerator() }
    thread.start()
    Thread.sleep(forTimeInterval: 30)
case "overflow-ucontext":
    RJRuntime.useUContextBackend(true)
    overflowInGenerator()
case "segv-elsewhere":
    // Prime the handler, then fault outside any generator stack: the previous handler
    // (Swift's, or the default action) must get it, without our overflow message.
    let gen = Generator<Int, Void, Void> { y in try y.yield(1) }
    _ = try? gen.next()
    let bad = UnsafeMutablePointer<Int>(bitPattern: 0x10)!
    bad.pointee = 1
case "forin-throws":
    struct Boom: Error {}
    let gen = Generator<Int, Void, Void> { y in
        try y.yield(1)
        throw Boom()
    }
    for x in gen { say("got \(x)") }
case "ignored-close":
    do {
        let gen = Generator<Int, Void, Void> { y in
            do { try y.yield(1) } catch {}
            try y.yield(2)
        }
        _ = try? gen.next()
    }
    say("still running")
case "yielder-escape":
    nonisolated(unsafe) var kept: Yielder<Int, Void>?
    let gen = Generator<Int, Void, Void> { y in kept = y }
    _ = try? gen.next()
    _ = try? kept?.yield(1)
case "yielder-reused-address":
    // A yielder escapes generator A, A is freed, and generators of other types are made until
    // one lands at A's address; using the old yielder inside that one's body must still stop
    // with the misuse message (an address check would pass and write an Int into a String).
    nonisolated(unsafe) var kept: Yielder<Int, Void>?
    var oldAddress: UnsafeMutableRawPointer?
    do {
        let a = Generator<Int, Void, Void> { y in kept = y }
        oldAddress = Unmanaged.passUnretained(a).toOpaque()
        _ = try? a.next()
    }
    for attempt in 0..<100_000 {
        let b = Generator<String, Int, Double> { y in
            _ = try kept?.yield(1)
            _ = try y.yield("body of b")
            return 0
        }
        if Unmanaged.passUnretained(b).toOpaque() == oldAddress {
            say("address reused after \(attempt) attempts")
            _ = try? b.next(0)
            break
        }
    }
case "node-take-negative":
    _ = MutableNode(1).take(-1)
case "node-skip-negative":
    _ = MutableNode(1).skip(-2)
case "node-throttle-zero":
    _ = MutableNode(1).throttle(0, queue: .main)
case "node-delay-negative":
    _ = MutableNode(1).delay(-1, queue: .main)
default:
    FileHandle.standardError.write("usage: rj-probe MODE\n".data(using: .utf8)!)
    exit(2)
}
say("probe finished")
