import Dispatch
import RJPromises

/// google/promises' own benchmark, with GCD doing the same work beside each row.
@MainActor
struct PromiseRows {
    static let group = "promises (google/promises' benchmark; per run)"

    nonisolated private static let serialQueue = DispatchQueue(label: "bench.promises.serial")
    nonisolated private static let concurrentQueue = DispatchQueue(label: "bench.promises.concurrent", attributes: .concurrent)

    let gcd1 = Row(PromiseRows.group, "GCD: 1 queue.async, then signal") { n in
        let done = DispatchSemaphore(value: 0)
        for _ in 0..<n {
            PromiseRows.serialQueue.async { done.signal() }
            done.wait()
        }
    }
    let promise1 = Row(PromiseRows.group, "resolved promise + 1 then", note: "serial queue, the then signals") { n in
        let done = DispatchSemaphore(value: 0)
        for i in 0..<n {
            Promise(i).then(on: PromiseRows.serialQueue) { _ in done.signal() }
            done.wait()
        }
    }
    let gcd2 = Row(PromiseRows.group, "GCD: 2 nested queue.async") { n in
        let done = DispatchSemaphore(value: 0)
        for _ in 0..<n {
            PromiseRows.serialQueue.async { PromiseRows.serialQueue.async { done.signal() } }
            done.wait()
        }
    }
    let promise2 = Row(PromiseRows.group, "resolved promise + 2 thens") { n in
        let done = DispatchSemaphore(value: 0)
        for i in 0..<n {
            Promise(i).then(on: PromiseRows.serialQueue) { $0 + 1 }.then(on: PromiseRows.serialQueue) { _ in done.signal() }
            done.wait()
        }
    }
    let gcd3 = Row(PromiseRows.group, "GCD: 3 nested queue.async") { n in
        let done = DispatchSemaphore(value: 0)
        for _ in 0..<n {
            PromiseRows.serialQueue.async { PromiseRows.serialQueue.async { PromiseRows.serialQueue.async { done.signal() } } }
            done.wait()
        }
    }
    let promise3 = Row(PromiseRows.group, "resolved promise + 3 thens") { n in
        let done = DispatchSemaphore(value: 0)
        for i in 0..<n {
            Promise(i).then(on: PromiseRows.serialQueue) { $0 + 1 }.then(on: PromiseRows.serialQueue) { $0 + 1 }
                .then(on: PromiseRows.serialQueue) { _ in done.signal() }
            done.wait()
        }
    }
    let gcdMany = Row(PromiseRows.group, "GCD: 10,000 blocks on a concurrent queue", note: "per block; group wait") { n in
        inBatches(n) { size in
            let group = DispatchGroup()
            for _ in 0..<size {
                group.enter()
                PromiseRows.concurrentQueue.async { group.leave() }
            }
            group.wait()
        }
    }
    /// GCD's 10,000 blocks with what the promise row allocates besides the block and its
    /// closure: three more objects per block (the promise, the derived promise and the
    /// `then`'s closure there), made in the loop and freed on the worker that runs the block.
    let gcdManyAllocating = Row(PromiseRows.group, "GCD: 10,000 blocks + 3 objects each", note: "a pending promise's allocations, no promise") { n in
        inBatches(n) { size in
            let group = DispatchGroup()
            for _ in 0..<size {
                group.enter()
                let objects = (Sink(), Sink(), Sink())
                PromiseRows.concurrentQueue.async {
                    blackHole(objects)
                    group.leave()
                }
            }
            group.wait()
        }
    }
    let promiseMany = Row(PromiseRows.group, "10,000 pending promises + then, resolved in a loop", note: "per promise; concurrent queue") { n in
        inBatches(n) { size in
            let group = DispatchGroup()
            var promises: [Promise<Int>] = []
            promises.reserveCapacity(size)
            for _ in 0..<size {
                let p = Promise<Int>.pending()
                group.enter()
                p.then(on: PromiseRows.concurrentQueue) { _ in group.leave() }
                promises.append(p)
            }
            for (i, p) in promises.enumerated() { p.fulfill(i) }
            group.wait()
        }
    }

    /// Each promise row in one set with its GCD twin; the 10,000-promise rows together.
    func measure(_ bench: Bench) {
        for (a, b) in [(gcd1, promise1), (gcd2, promise2), (gcd3, promise3)] { bench.measure([a, b]) }
        bench.measure([gcdMany, promiseMany, gcdManyAllocating])
    }
}

// MARK: Targets

extension PromiseRows {
    func holdTargets(_ bench: Bench) {
        bench.ratio("promise + 1 then / GCD", promise1, over: gcd1, target: 1.25)
        bench.ratio("promise + 2 thens / GCD", promise2, over: gcd2, target: 1.5)
        bench.ratio("promise + 3 thens / GCD", promise3, over: gcd3, target: 1.5)
        bench.ratio("10,000 pending promises / GCD", promiseMany, over: gcdMany, target: 1.5,
                    why: "the allocator decides: a pending promise is three objects beside GCD's one block (row \"GCD + 3 objects each\")")
        bench.ratio("GCD + 3 objects each / GCD", gcdManyAllocating, over: gcdMany, target: nil,
                    "(information: the allocations alone)")
        bench.ratio("10,000 pending promises / GCD + 3 objects each", promiseMany, over: gcdManyAllocating, target: nil,
                    "(information: what the promises add)")
    }
}
