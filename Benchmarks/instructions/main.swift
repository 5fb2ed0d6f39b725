// The programs behind `Benchmarks/instructions/count`: each repeats one operation N times
// (`rj-instructions <operation> <N>`), so that callgrind's count at N and at 2N gives the
// instructions of one operation as the difference over N (the process's start and end cancel).
// Built by the script in a scratch package that depends on this one by path, optimised: the
// code a user's package gets, with the library's inlinable code specialised in it.
import Foundation
import RJIterator

/// Keeps a value alive for the optimiser without a call it could see through.
@inline(never) func blackHole<T>(_ value: T) { withExtendedLifetime(value) {} }

let arguments = CommandLine.arguments
guard arguments.count == 3, let n = Int(arguments[2]), n > 0 else {
    print("usage: rj-instructions <create-run-release|create-suspend-release|next|rjiterator-next|async-for-await> <N>")
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
    let g = Generator<Int, Int, Void> { y in
        var x = 0
        while true { x = try y.yield(x &+ 1) }
    }
    var sum = 0
    for i in 0..<n {
        if case .yielded(let v) = try! g.next(i) { sum &+= v }
    }
    blackHole(sum)
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
case "async-for-await":
    // One element of `for try await` over an AsyncGenerator whose body does not await, in a
    // detached task.
    let values = AsyncGenerator<Int, Void, Void> { y in
        var i = 0
        while true { try y.yield(i); i &+= 1 }
    }
    let done = DispatchSemaphore(value: 0)
    let count = n
    Task.detached {
        var sum = 0
        var seen = 0
        for try await v in values {
            sum &+= v
            seen += 1
            if seen == count { break }
        }
        blackHole(sum)
        done.signal()
    }
    done.wait()
default:
    print("rj-instructions: unknown operation \(arguments[1])")
    exit(2)
}
