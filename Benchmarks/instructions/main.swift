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

/// The value traffic of `rjiterator-next` with no switch (the bench's `AnyEcho` row): an `Any?`
/// in, the one before out in an `RJResult` read with `as? Int`, the state an `Any?` field: what
/// an API shaped like the seed's costs in plain Swift.
final class AnyEcho {
    @exclusivity(unchecked) var x: Any? = 0
    @inline(never) func next(_ value: consuming Any?) -> RJResult {
        let out = x
        x = value
        return RJResult(value: out, done: false)
    }
}

@inline(never) func anyEchoes(_ n: Int) {
    let echo = AnyEcho()
    var sum = 0
    for i in 0..<n { sum &+= echo.next(i).value as? Int ?? 0 }
    blackHole(sum)
}

/// `n` round trips of `RJIterator.next(i)` into a body that yields what it gets, each value read
/// back with `as? Int` or, `typed`, `value(as: Int.self)`. The seed functions run in functions of
/// their own (`next` and `rj_yield` are inlined where they are called), so that their code does
/// not weigh on the inliner's choices for the other operations' top-level code.
@inline(never) func seedRoundTrips(_ n: Int, typed: Bool) {
    let it = RJIterator {
        var x: Any? = 0
        while true { x = rj_yield(x) }
    }
    var sum = 0
    if typed {
        for i in 0..<n { sum &+= it.next(i).value(as: Int.self) ?? 0 }
    } else {
        for i in 0..<n { sum &+= it.next(i).value as? Int ?? 0 }
    }
    blackHole(sum)
}

/// `n` values through the seed API's port of the workload `average`.
@inline(never) func seedPipeline(_ n: Int) {
    func averager() -> RJIterator {
        RJIterator {
            var total = 0.0, count = 0
            var average: Any? = nil
            while true { total += rj_yield(average) as! Double; count += 1; average = total / Double(count) }
        }
    }
    func scaler(_ target: RJIterator) -> RJIterator {
        RJIterator {
            var answer: Any? = nil
            while true { answer = target.next((rj_yield(answer) as! Double) * 0.5).value }
        }
    }
    let average = averager()
    average.next()
    let pipe = scaler(average)
    pipe.next()
    var total = 0.0
    for i in 0..<n { total += pipe.next(Double(i % 1000)).value as! Double }
    blackHole(total)
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
    seedRoundTrips(n, typed: false)
case "rjiterator-next-typed":
    // The same, read with `RJResult.value(as:)`, the seed's typed read.
    seedRoundTrips(n, typed: true)
case "any-echo":
    // The same values with no switch: an `Any?` in, one out in an `RJResult`, read with `as? Int`.
    anyEchoes(n)
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
case "seed-pipeline":
    // The same value through the seed API's port of `average` (Benchmarks/bench/Workloads/
    // Averager.swift): `next(x)` and `rj_yield`, untyped, each value cast back with `as!`.
    seedPipeline(n)
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
case "fresh-delegate", "fresh-delegate-shared":
    // A fresh delegate (issue 51): make a generator that yields one value, `yieldAll` it, its
    // end, its release; the value's round trip through the delegating generator included.
    let mode: StackMode = arguments[1] == "fresh-delegate" ? .dedicated : .shared
    let outer = Generator<Int, Void, Void>(stackMode: mode) { y in
        var i = 0
        while true {
            let v = i
            try y.yieldAll(Generator<Int, Void, Void>(stackMode: mode) { y in try y.yield(v) })
            i &+= 1
        }
    }
    var sum = 0
    for _ in 0..<n { sum &+= try! outer.nextValue()! }
    blackHole(sum)
case "chain-turns-shared":
    // A pair of values from two chains of 100 delegating generators read in lock-step on one
    // shared run stack: every value a switch between them, which copies the frames of the one
    // leaving and of the one coming (adopted frames included: a shared coroutine adopts only
    // within its first 4 KiB).
    RJRuntime.sharedRunStackCount = 1
    func chain(_ depth: Int) -> Generator<Int, Void, Void> {
        Generator(stackMode: .shared) { y in
            if depth == 0 { var i = 0; while true { try y.yield(i); i &+= 1 } }
            try y.yieldAll(chain(depth - 1))
        }
    }
    let a = chain(100), b = chain(100)
    var sum = 0
    for _ in 0..<n { sum &+= try! a.nextValue()! ^ b.nextValue()! }
    blackHole(sum)
case "tree-walk", "tree-walk-yielder", "tree-walk-shared", "tree-walk-yielder-shared":
    // One node of an in-order walk of a balanced tree of 1,023 nodes (the script divides by
    // them): a generator per subtree delegating with `yieldAll`, or one generator with the
    // Yielder passed down to a recursive helper; -shared: on shared stacks.
    final class Node {
        let value: Int
        let left, right: Node?
        init(_ value: Int, _ left: Node?, _ right: Node?) { (self.value, self.left, self.right) = (value, left, right) }
    }
    func tree(_ lo: Int, _ hi: Int) -> Node? {
        if lo >= hi { return nil }
        let mid = (lo + hi) / 2
        return Node(mid, tree(lo, mid), tree(mid + 1, hi))
    }
    let mode: StackMode = arguments[1].hasSuffix("-shared") ? .shared : .dedicated
    func perSubtree(_ node: Node?) -> Generator<Int, Void, Void> {
        Generator(stackMode: mode) { y in
            guard let node else { return }
            try y.yieldAll(perSubtree(node.left)); try y.yield(node.value); try y.yieldAll(perSubtree(node.right))
        }
    }
    func walk(_ node: Node?, _ y: Yielder<Int, Void>) throws {
        guard let node else { return }
        try walk(node.left, y); try y.yield(node.value); try walk(node.right, y)
    }
    let root = tree(0, 1023)
    var sum = 0
    for _ in 0..<n {
        let g = arguments[1].hasPrefix("tree-walk-yielder") ? Generator<Int, Void, Void>(stackMode: mode) { y in try walk(root, y) }
            : perSubtree(root)
        while let v = try! g.nextValue() { sum &+= v }
    }
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
