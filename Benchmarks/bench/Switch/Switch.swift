import CRJBenchFloor
import Dispatch
import Foundation
import RJIterator

/// One round trip (resume + yield) of every kind of switch: the C floor, `Generator`, the
/// seed API, and a thread ping-pong beside them.
@MainActor
struct SwitchRows {
    static let group = "context switch (one round trip: resume + yield)"

    let rawFast = SwitchRows.floor(RJ_FLOOR_CALL_RET, "C floor: raw fast switch (call/ret)",
                                   note: "out of line, saves MXCSR/x87 CW, ret onto the other stack")
    let rawInline = SwitchRows.floor(RJ_FLOOR_INLINE, "C floor: inline switch (pop/jmp)", note: "what Generator switches with")
    let rawInlineFPU = SwitchRows.floor(RJ_FLOOR_INLINE_FPU, "C floor: inline switch + FPU control kept per side",
                                        note: "stmxcsr/fnstcw, restored only when changed")
    let rawUContext = SwitchRows.floor(RJ_FLOOR_UCONTEXT, "C floor: raw swapcontext", note: "two swapcontext calls")
    let generatorNext = Row(group, "Generator<Int, Int, Void>.next(i)", note: RJRuntime.contextBackend,
                            SwitchRows.generatorRoundTrip(ucontext: false))
    let generatorNextUContext = Row(group, "Generator.next(i), ucontext backend",
                                    note: "same binary, RJRuntime.useUContextBackend", SwitchRows.generatorRoundTrip(ucontext: true))
    let rjIteratorNext = Row(group, "RJIterator.next(v), read with as? Int", note: "an Int as Any?, in and out",
                             SwitchRows.seedRoundTrip(typed: false))
    let rjIteratorNextTyped = Row(group, "RJIterator.next(v), read with value(as: Int.self)", note: "the same, no dynamic cast",
                                  SwitchRows.seedRoundTrip(typed: true))
    let anyEchoNext = Row(group, "the same Any? traffic, plain method call", note: "no switch: what the values cost") { n in
        let echo = AnyEcho()
        var sum = 0
        for i in 0..<n { sum &+= echo.next(i).value as? Int ?? 0 }
        blackHole(sum)
    }
    let semaphores: Row
    private let pingPong = PingPong()

    init(bench: Bench) {
        semaphores = Row(Self.group, "thread + two semaphores", note: "ping-pong between two threads") { [pingPong] n in
            for _ in 0..<n {
                pingPong.ping.signal()
                pingPong.pong.wait()
            }
        }
        if bench.wanted(semaphores.name) { pingPong.start() }
    }

    /// Ends the ping-pong thread once its row has run.
    func finish() {
        pingPong.stop()
    }

    /// A floor row, or a row that is not measured where the variant is not available.
    private static func floor(_ variant: rj_floor_variant, _ name: String, note: String) -> Row {
        Row(group, name, note: note, rj_bench_floor(variant, 1) >= 0 ? { n in blackHole(rj_bench_floor(variant, UInt64(n))) } : nil)
    }

    private static func generatorRoundTrip(ucontext: Bool) -> (Int) -> Void {
        RJRuntime.useUContextBackend(ucontext)
        let gen = roundTripGenerator()
        RJRuntime.useUContextBackend(false)
        _ = try! gen.next(0)
        return { n in roundTrips(gen, n) }
    }

    /// The generator of the round-trip rows: it yields `x + 1` and receives the next `x`.
    nonisolated static func roundTripGenerator() -> Generator<Int, Int, Void> {
        Generator { y in
            var x = 0
            while true { x = try y.yield(x &+ 1) }
        }
    }

    /// `n` round trips of `gen.next(i)`.
    nonisolated static func roundTrips(_ gen: Generator<Int, Int, Void>, _ n: Int) {
        var sum = 0
        for i in 0..<n {
            if case .yielded(let v) = try! gen.next(i) { sum &+= v }
        }
        blackHole(sum)
    }

    /// `n` round trips of `RJIterator.next(i)` into a body that yields what it gets, each value
    /// read back as a user reads it: `as? Int`, or `value(as:)` (`typed`). Python's peer adds
    /// each value it gets too.
    private static func seedRoundTrip(typed: Bool) -> (Int) -> Void {
        let iterator = RJIterator {
            var x: Any? = 0
            while true { x = rj_yield(x) }
        }
        _ = iterator.next()
        if typed {
            return { n in
                var sum = 0
                for i in 0..<n { sum &+= iterator.next(i).value(as: Int.self) ?? 0 }
                blackHole(sum)
            }
        }
        return { n in
            var sum = 0
            for i in 0..<n { sum &+= iterator.next(i).value as? Int ?? 0 }
            blackHole(sum)
        }
    }
}

/// The value traffic of the `RJIterator.next(v)` row without a switch: an `Any?` in, the
/// previous one out in an `RJResult` (read with `as? Int` by the row), the state kept in a field.
/// What any API shaped like the seed's pays for its untyped values in plain Swift.
final class AnyEcho {
    @exclusivity(unchecked) var x: Any? = 0
    @inline(never) func next(_ value: consuming Any?) -> RJResult {
        let out = x
        x = value
        return RJResult(value: out, done: false)
    }
}

/// Two threads handing a turn back and forth with two semaphores: what a switch costs when
/// each side is a thread.
final class PingPong: @unchecked Sendable {
    let ping = DispatchSemaphore(value: 0)
    let pong = DispatchSemaphore(value: 0)
    private var stopped = false
    private var started = false
    private var value = 0

    func start() {
        started = true
        Thread {
            while true {
                self.ping.wait()
                if self.stopped { break }
                self.value &+= 1
                self.pong.signal()
            }
        }.start()
    }

    func stop() {
        guard started else { return }
        stopped = true
        ping.signal()
    }
}

// MARK: Targets

extension SwitchRows {
    /// The switch's targets: a ratio of two rows measured in the same rounds and its bound
    /// (`nil`: for information).
    func holdTargets(_ bench: Bench, peers: PeerRows) {
        let faster = "(information: > 1 means Generator is faster)"
        bench.ratio("Generator.next / raw fast switch (call/ret)", generatorNext, over: rawFast, target: 1.3)
        bench.ratio("Generator.next / inline switch", generatorNext, over: rawInline, target: nil)
        bench.ratio("Generator.next / V8 generator next", generatorNext, over: peers.v8Generator, target: 1.0)
        bench.ratio("RJIterator.next + as? / Python generator send", rjIteratorNext, over: peers.pythonGenerator, target: 0.8,
                    why: "most of it is Swift's: the caller's as? Int (swift_dynamicCast) and the body's Any? assignment are about half of its instructions, and the same values with no switch take nearly as many (docs/performance.md, the seed API)")
        bench.ratio("RJIterator.next + as? / Generator.next", rjIteratorNext, over: generatorNext, target: 2.0,
                    why: "the seed API's values are Any?: casting and assigning them alone costs about 2x a Generator.next (row \"the same Any? traffic, plain method call\")")
        bench.ratio("RJIterator.next + value(as:) / Python generator send", rjIteratorNextTyped, over: peers.pythonGenerator, target: nil)
        bench.ratio("RJIterator.next + as? / its Any? traffic without a switch", rjIteratorNext, over: anyEchoNext, target: nil)
        bench.ratio("Generator.next, ucontext / raw swapcontext", generatorNextUContext, over: rawUContext, target: nil)
        bench.ratio("thread + semaphores / Generator.next", semaphores, over: generatorNext, target: nil, faster)
    }
}
