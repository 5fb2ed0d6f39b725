import Dispatch
import RJLocks

extension Promises {
    /// A promise fulfilled with the values of all `promises`, in their order, once all are
    /// fulfilled; rejected with the first error as soon as one is rejected. An empty array
    /// fulfils at once with `[]`.
    ///
    /// The outcome is delivered through `queue`.
    ///
    /// ```swift
    /// Promises.all([load(1), load(2), load(3)]).then { pages in show(pages) }
    /// Promises.all((1...3).map(load))   // any sequence of promises
    /// ```
    public static func all<Value: Sendable, Promises: Sequence<Promise<Value>>>(
        on queue: DispatchQueue = .promises, _ promises: Promises
    ) -> Promise<[Value]> {
        let promises = Array(promises)
        if promises.isEmpty { return Promise<[Value]>([]) }
        let result = Promise<[Value]>(settled: nil)
        let collected = RJLockedValue<(values: [Value?], remaining: Int)>((Array(repeating: nil, count: promises.count), promises.count))
        for (index, promise) in promises.enumerated() {
            promise.observe(on: queue) { [settled = promise.settledReference] in
                let outcome = settled.take()
                switch outcome {
                case .failure(let error):
                    result.reject(error)
                case .success(let value):
                    let done: [Value]? = collected.withLockedValue { state in
                        state.values[index] = value
                        state.remaining -= 1
                        return state.remaining == 0 ? state.values.map { $0! } : nil
                    }
                    if let done { result.fulfill(done) }
                }
            }
        }
        return result
    }

    /// The same, for promises listed as arguments: `Promises.all(p1, p2, p3)` of one type gives
    /// `Promise<[Value]>`. (Two, three or four promises of any types give a tuple, below; for
    /// two to four of one type too, as in google/promises.)
    ///
    /// ```swift
    /// Promises.all(load(1), load(2), load(3), load(4), load(5)).then { pages in show(pages) }
    /// ```
    @_disfavoredOverload
    public static func all<Value: Sendable>(on queue: DispatchQueue = .promises, _ promises: Promise<Value>...) -> Promise<[Value]> {
        all(on: queue, promises)
    }

    /// A promise of both values once both promises are fulfilled; rejected with the first error.
    ///
    /// ```swift
    /// Promises.all(fetchUser(), fetchSettings()).then { user, settings in ... }
    /// ```
    public static func all<A: Sendable, B: Sendable>(
        on queue: DispatchQueue = .promises, _ a: Promise<A>, _ b: Promise<B>
    ) -> Promise<(A, B)> {
        all(on: queue, [a.erased(on: queue), b.erased(on: queue)])
            .then(on: queue) { values in (values[0] as! A, values[1] as! B) }
    }

    /// A promise of the three values once all three promises are fulfilled; rejected with the
    /// first error.
    ///
    /// ```swift
    /// Promises.all(p1, p2, p3).then { a, b, c in ... }
    /// ```
    public static func all<A: Sendable, B: Sendable, C: Sendable>(
        on queue: DispatchQueue = .promises, _ a: Promise<A>, _ b: Promise<B>, _ c: Promise<C>
    ) -> Promise<(A, B, C)> {
        all(on: queue, [a.erased(on: queue), b.erased(on: queue), c.erased(on: queue)]).then(on: queue) { values in (values[0] as! A, values[1] as! B, values[2] as! C) }
    }

    /// A promise of the four values once all four promises are fulfilled; rejected with the
    /// first error.
    ///
    /// ```swift
    /// Promises.all(p1, p2, p3, p4).then { a, b, c, d in ... }
    /// ```
    public static func all<A: Sendable, B: Sendable, C: Sendable, D: Sendable>(
        on queue: DispatchQueue = .promises, _ a: Promise<A>, _ b: Promise<B>, _ c: Promise<C>, _ d: Promise<D>
    ) -> Promise<(A, B, C, D)> {
        all(on: queue, [a.erased(on: queue), b.erased(on: queue), c.erased(on: queue), d.erased(on: queue)]).then(on: queue) { values in (values[0] as! A, values[1] as! B, values[2] as! C, values[3] as! D) }
    }
}

extension Promise {
    /// This promise with its value type erased, for the heterogeneous `all` and `any`, which
    /// collect through the one-type forms and cast each value back.
    func erased(on queue: DispatchQueue) -> Promise<any Sendable> {
        then(on: queue) { $0 as any Sendable }
    }
}
