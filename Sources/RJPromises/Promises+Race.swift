import Dispatch

extension Promises {
    /// A promise that settles as the first of `promises` to settle, fulfilled or rejected.
    /// An empty array rejects at once with ``PromiseError/emptyRace`` (none could ever win).
    ///
    /// ```swift
    /// Promises.race([fetch(primary), fetch(backup)]).then { page in show(page) }
    /// ```
    public static func race<Value: Sendable, Promises: Sequence<Promise<Value>>>(
        on queue: DispatchQueue = .promises, _ promises: Promises
    ) -> Promise<Value> {
        let promises = Array(promises)
        if promises.isEmpty { return Promise<Value>(PromiseError.emptyRace) }
        let result = Promise<Value>(settled: nil)
        for promise in promises {
            promise.observe(on: queue) { [settled = promise.settledReference] in result.settle(settled.take()) }
        }
        return result
    }

    /// The same, for promises listed as arguments.
    ///
    /// ```swift
    /// Promises.race(fetch(primary), fetch(backup)).then { page in show(page) }
    /// ```
    public static func race<Value: Sendable>(on queue: DispatchQueue = .promises, _ promises: Promise<Value>...) -> Promise<Value> {
        race(on: queue, promises)
    }
}
