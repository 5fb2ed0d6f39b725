// The programs behind `Benchmarks/instructions/count`: each repeats one operation N times
// (`rj-instructions <operation> <N>`), so that callgrind's count at N and at 2N gives the
// instructions of one operation as the difference over N (the process's start and end cancel).
// Built by the script in a scratch package that depends on this one by path, optimised: the
// code a user's package gets, with the library's inlinable code specialised in it.
import Foundation
import RJIterator

/// Keeps a value alive for the optimiser without a call it could see through.
@inline(never) func blackHole<T>(_ value: T) { withExtendedLifetime(value) {} }

/// Holds an object until the next call (which frees it): it escapes, so it is heap-allocated.
nonisolated(unsafe) var kept: AnyObject?
@inline(never) func keep(_ object: AnyObject?) { kept = object }

/// `n` round trips of `Generator<Int, Int, Void>.next(i)` into a body that yields `x + 1`.
@inline(__always) func roundTrips(_ n: Int, stackMode: StackMode?) {
    let g = Generator<Int, Int, Void>(stackMode: stackMode) { y in
        var x = 0
        while true { x = try y.yield(x &+ 1) }
    }
    var sum = 0
    for i in 0..<n {
        if case .yielded(let v) = try! g.next(i) { sum &+= v }
    }
    blackHole(sum)
}

/// The async generator both element operations iterate: 0, 1, 2, ..., no await.
func countingForever() -> AsyncGenerator<Int, Void, Void> {
    AsyncGenerator<Int, Void, Void> { y in
        var i = 0
        while true { try y.yield(i); i &+= 1 }
    }
}

/// An async generator that relays every value of `source`: pulling (`rj_awaitValue(nextOf:)`,
/// then `yield`) or delegating (`yieldAll`).
func relaying(_ source: AsyncGenerator<Int, Void, Void>, delegating: Bool) -> AsyncGenerator<Int, Void, Void> {
    if delegating { return AsyncGenerator<Int, Void, Void> { y in try y.yieldAll(source) } }
    return AsyncGenerator<Int, Void, Void> { y in
        while case .yielded(let v) = try rj_awaitValue(nextOf: source) { try y.yield(v) }
    }
}

/// `n` elements of `for try await` over `values`, in a detached task.
func readInTask(_ values: AsyncGenerator<Int, Void, Void>, _ n: Int) {
    let done = DispatchSemaphore(value: 0)
    Task.detached {
        var sum = 0
        var seen = 0
        for try await v in values {
            sum &+= v
            seen += 1
            if seen == n { break }
        }
        blackHole(sum)
        done.signal()
    }
    done.wait()
}

let arguments = CommandLine.arguments
guard arguments.count == 3, let n = Int(arguments[2]), n > 0 else {
    print("usage: rj-instructions <operation> <N> (operations: Benchmarks/instructions/count --help)")
    exit(2)
}

switch arguments[1] {
case "create-run-release":
    // create + first next + release of a body that returns at once.
    for i in 0..<n {
        let g = Generator<Int, Void, Int> { _ in i }
        blackHole(try! g.next())
    }
case "create-suspend-release":
    // The same, released while suspended at a yield: release closes the body.
    for i in 0..<n {
        let g = Generator<Int, Void, Void> { y in try y.yield(i) }
        blackHole(try! g.next())
    }
case "next":
    // A `Generator<Int, Int, Void>.next(i)` round trip.
    roundTrips(n, stackMode: nil)
case "rjiterator-next":
    // `RJIterator.next(v)` with an Int as `Any?`, the caller's `as? Int` included.
    let it = RJIterator {
        var x: Any? = 0
        while true { x = rj_yield(x) }
    }
    var sum = 0
    for i in 0..<n { sum &+= it.next(i).value as? Int ?? 0 }
    blackHole(sum)
case "rjiterator-next-typed":
    // The same, read with `RJResult.value(as:)`, the seed's typed read.
    let it = RJIterator {
        var x: Any? = 0
        while true { x = rj_yield(x) }
    }
    var sum = 0
    for i in 0..<n { sum &+= it.next(i).value(as: Int.self) ?? 0 }
    blackHole(sum)
case "send-pipeline", "send-pipeline-shared":
    // One value through the send pipeline of the workload `average`: a send into a scaler whose
    // body sends it on to an averager (two round trips, one nested in a body); with -shared,
    // both generators on shared stacks (each on a run stack of its own: no frames copied).
    let mode: StackMode = arguments[1] == "send-pipeline" ? .dedicated : .shared
    func averager() -> Generator<Double?, Double, Void> {
        Generator(stackMode: mode) { y in
            var total = 0.0, count = 0
            var average: Double? = nil
            while true { total += try y.yield(average); count += 1; average = total / Double(count) }
        }
    }
    func scaler(_ target: Generator<Double?, Double, Void>) -> Generator<Double?, Double, Void> {
        Generator(stackMode: mode) { y in
            var answer: Double? = nil
            while true { answer = try target.send(try y.yield(answer) * 0.5) }
        }
    }
    let average = averager()
    try! average.start()
    let pipe = scaler(average)
    try! pipe.start()
    var total = 0.0
    for i in 0..<n { total += try! pipe.send(Double(i % 1000))! }
    blackHole(total)
case "async-for-await":
    // One element of `for try await` over an AsyncGenerator whose body does not await, in a
    // detached task.
    readInTask(countingForever(), n)
case "async-relay-pull":
    // The same element read through one relaying async generator whose body pulls
    // (`rj_awaitValue(nextOf:)`) and yields: the element plus one relay level.
    readInTask(relaying(countingForever(), delegating: false), n)
case "async-relay-delegate":
    // The same through one level that delegates (`yieldAll`).
    readInTask(relaying(countingForever(), delegating: true), n)
case "async-relay-pull-2":
    // Two pulling levels.
    readInTask(relaying(relaying(countingForever(), delegating: false), delegating: false), n)
case "async-for-await-main":
    // The same element from main-actor top-level code: the loop's own hop back to the main
    // actor after each element is in the count (the compiler's, not the library's).
    let values = countingForever()
    var sum = 0
    var seen = 0
    for try await v in values {
        sum &+= v
        seen += 1
        if seen == n { break }
    }
    blackHole(sum)
case "allocations-alone":
    // What create + run + release cannot go below: the same two allocations (the object, the
    // body's closure context capturing `i`), made and freed, with no coroutine.
    final class Holder {
        let body: () -> Int
        init(_ body: @escaping () -> Int) { self.body = body }
    }
    for i in 0..<n {
        let h = Holder { i }
        blackHole(h.body())
        keep(h)   // escapes, as a generator does (the registry, the coroutine): heap-allocated
    }
    keep(nil)
case "filter-level":
    // One value through one level of a chain of 100 filtering generators (the script divides
    // by the 100 levels): a value pulled from the last level passes through every one.
    func numbers() -> Generator<Int, Void, Void> {
        Generator { y in var i = 0; while true { try y.yield(i); i &+= 1 } }
    }
    func filtered(_ source: Generator<Int, Void, Void>) -> Generator<Int, Void, Void> {
        Generator { y in while let v = try source.nextValue() { if v & 1023 != 1023 { try y.yield(v) } } }
    }
    var chain = numbers()
    for _ in 0..<100 { chain = filtered(chain) }
    var sum = 0
    for _ in 0..<n { sum &+= try! chain.nextValue()! }
    blackHole(sum)
case "shared-next":
    // `next` of a shared-stack generator alone on its run stack.
    roundTrips(n, stackMode: .shared)
case "rj-await-completed":
    // An rj_await whose callback is called before the work closure returns, in an rj_async
    // body: the await that never suspends.
    let done = DispatchSemaphore(value: 0)
    let count = n
    rj_async(on: DispatchQueue(label: "instructions")) {
        var sum = 0
        for i in 0..<count { sum &+= rj_await { callback in callback(i, nil) }.value(as: Int.self) ?? 0 }
        blackHole(sum)
    }.finally { done.signal() }
    done.wait()
case "rj-await-callback":
    // The form (52): an rj_await of a typed callback called inside the work, read with
    // `as? Int`, in an rj_async(on:) body.
    let done = DispatchSemaphore(value: 0)
    let count = n
    rj_async(on: DispatchQueue(label: "instructions")) {
        var sum = 0
        for i in 0..<count {
            let r = rj_await { (cb: @escaping @Sendable (Int?, (any Error)?) -> Void) in cb(i, nil) }
            sum &+= r.value as? Int ?? 0
        }
        blackHole(sum)
    }.finally { done.signal() }
    done.wait()
case "rj-await-value":
    // The same callback through the form the docs recommend, rj_awaitValue.
    let done = DispatchSemaphore(value: 0)
    let count = n
    rj_async(on: DispatchQueue(label: "instructions")) {
        var sum = 0
        for i in 0..<count {
            sum &+= (try? rj_awaitValue { (cb: @escaping @Sendable (Int?, (any Error)?) -> Void) in cb(i, nil) }) ?? 0
        }
        blackHole(sum)
    }.finally { done.signal() }
    done.wait()
default:
    print("rj-instructions: unknown operation \(arguments[1])")
    exit(2)
}
