import Dispatch
import RJIterator
import RJPromises

/// `rj_await` of completed work and across queues, with what Swift concurrency does for the
/// same flows beside it.
@MainActor
struct AsyncRows {
    static let group = "rj_async / rj_await (per await) and Swift concurrency's equivalents"

    nonisolated private static let bodyQueue = DispatchQueue(label: "bench.async.body")
    nonisolated private static let otherQueue = DispatchQueue(label: "bench.async.other")

    /// Runs `body` in rj_async on the body queue and waits until it has finished.
    nonisolated private static func runAsyncBody(_ body: @escaping @Sendable () -> Void) {
        let done = DispatchSemaphore(value: 0)
        rj_async(on: bodyQueue, body).finally { done.signal() }
        done.wait()
    }

    let awaitCompleted = Row(AsyncRows.group, "rj_await of an already-completed task", note: "callback called inside the task closure") { n in
        runAsyncBody {
            var sum = 0
            for i in 0..<n { sum &+= rj_await { callback in callback(i, nil) }.value as! Int }
            blackHole(sum)
        }
    }
    /// The targets' reference, measured where the awaits are: a `Generator.next` round trip in an
    /// `rj_async` body, on the body queue's thread. Held against the main thread's
    /// `Generator.next`, the ratio mixed two threads, which this machine may run on cores in
    /// different speed states (the runs that showed it: docs/performance.md).
    let generatorNextInBody = Row(AsyncRows.group, "Generator.next in an rj_async body", note: "the reference of the rows above") { n in
        runAsyncBody { SwitchRows.roundTrips(SwitchRows.roundTripGenerator(), n) }
    }
    let awaitFulfilled = Row(AsyncRows.group, "rj_await of a fulfilled promise") { n in
        runAsyncBody {
            var sum = 0
            for i in 0..<n { sum &+= rj_await(Promise(i)).value as! Int }
            blackHole(sum)
        }
    }
    let asyncStream = Row(AsyncRows.group, "AsyncStream: per element", note: "unbounded buffer, producer and consumer tasks") { n in
        let done = DispatchSemaphore(value: 0)
        Task.detached {
            let (stream, continuation) = AsyncStream<Int>.makeStream(bufferingPolicy: .unbounded)
            let producer = Task {
                for i in 0..<n { continuation.yield(i) }
                continuation.finish()
            }
            var sum = 0
            for await x in stream { sum &+= x }
            await producer.value
            blackHole(sum)
            done.signal()
        }
        done.wait()
    }
    let checkedContinuation = Row(AsyncRows.group, "withCheckedContinuation suspend/resume", note: "resumed at once, in a task") { n in
        let done = DispatchSemaphore(value: 0)
        Task.detached {
            var sum = 0
            for i in 0..<n {
                sum &+= await withCheckedContinuation { (c: CheckedContinuation<Int, Never>) in c.resume(returning: i) }
            }
            blackHole(sum)
            done.signal()
        }
        done.wait()
    }
    let awaitHop = Row(AsyncRows.group, "rj_await of a callback fired on another queue", note: "the hop there and back") { n in
        runAsyncBody {
            var sum = 0
            for i in 0..<n {
                sum &+= rj_await { callback in otherQueue.async { callback(i, nil) } }.value as! Int
            }
            blackHole(sum)
        }
    }
    let bareHop = Row(AsyncRows.group, "bare DispatchQueue.async round trip", note: "body queue -> other queue -> body queue") { n in
        let done = DispatchSemaphore(value: 0)
        let hops = Hops(n, done, bodyQueue, otherQueue)
        bodyQueue.async { hops.step(0) }
        done.wait()
    }
    let continuationHop = Row(AsyncRows.group, "withCheckedContinuation, same flow", note: "a task awaiting a callback on another queue") { n in
        let done = DispatchSemaphore(value: 0)
        Task.detached {
            var sum = 0
            for i in 0..<n {
                sum &+= await withCheckedContinuation { (c: CheckedContinuation<Int, Never>) in
                    otherQueue.async { c.resume(returning: i) }
                }
            }
            blackHole(sum)
            done.signal()
        }
        done.wait()
    }

    /// The rows across queues, in one set. The completed-work rows run with the switch rows,
    /// whose `Generator.next` their targets compare with; `continuationHop` runs with the
    /// async-generator rows, whose unbuffered hop compares with it.
    var acrossQueues: [Row] { [awaitHop, bareHop] }
}

/// `n` hops body queue -> other queue -> body queue, each started by the previous one.
final class Hops: Sendable {
    let n: Int
    let done: DispatchSemaphore
    let bodyQueue, otherQueue: DispatchQueue

    init(_ n: Int, _ done: DispatchSemaphore, _ bodyQueue: DispatchQueue, _ otherQueue: DispatchQueue) {
        (self.n, self.done, self.bodyQueue, self.otherQueue) = (n, done, bodyQueue, otherQueue)
    }

    func step(_ i: Int) {
        if i == n {
            done.signal()
            return
        }
        otherQueue.async { self.bodyQueue.async { self.step(i + 1) } }
    }
}

// MARK: Targets

extension AsyncRows {
    func holdTargets(_ bench: Bench, switches s: SwitchRows) {
        let faster = "(information: > 1 means Generator is faster)"
        // Against the round trip measured on the same queue as the awaits (see generatorNextInBody).
        bench.ratio("rj_await, completed task / Generator.next", awaitCompleted, over: generatorNextInBody, target: 8.0,
                    why: "each await hands the work a callback closure (its context the reused token) and reads its host's lock word, no lock: about 1.8x the instructions of a next (budget.txt)")
        bench.ratio("rj_await, fulfilled promise / Generator.next", awaitFulfilled, over: generatorNextInBody, target: 8.0)
        bench.ratio("AsyncStream / Generator.next", asyncStream, over: s.generatorNext, target: nil, faster)
        bench.ratio("withCheckedContinuation / Generator.next", checkedContinuation, over: s.generatorNext, target: nil, faster)
        bench.ratio("rj_await hop / bare round trip", awaitHop, over: bareHop, target: 1.2)
    }
}
