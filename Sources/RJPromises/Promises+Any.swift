import Dispatch
import RJLocks

extension Promises {
    /// Waits until every promise has settled, google/promises' `any`: fulfilled with each
    /// promise's result, in order, if at least one was fulfilled; rejected with the error of
    /// the last one to be rejected if all were. An empty array fulfils at once with `[]`.
    ///
    /// ```swift
    /// Promises.any([mirror1, mirror2]).then { results in
    ///     let pages = results.compactMap { try? $0.get() }
    /// }
    /// ```
    public static func any<Value: Sendable, Promises: Sequence<Promise<Value>>>(
        on queue: DispatchQueue = .promises, _ promises: Promises
    ) -> Promise<[Result<Value, any Error>]> {
        let promises = Array(promises)
        if promises.isEmpty { return Promise<[Result<Value, any Error>]>([]) }
        let result = Promise<[Result<Value, any Error>]>(settled: nil)
        typealias Slot = Result<Value, any Error>
        let collected = RJLockedValue<(results: [Slot?], remaining: Int, lastError: (any Error)?)>(
            (Array(repeating: nil, count: promises.count), promises.count, nil))
        for (index, promise) in promises.enumerated() {
            promise.observe(on: queue) { [settled = promise.settledReference] in
                let outcome = settled.take()
                let done: Result<[Slot], any Error>? = collected.withLockedValue { state in
                    state.results[index] = outcome
                    if case .failure(let error) = outcome { state.lastError = error }
                    state.remaining -= 1
                    guard state.remaining == 0 else { return nil }
                    let all = state.results.map { $0! }
                    if all.contains(where: { if case .success = $0 { return true } else { return false } }) {
                        return .success(all)
                    }
                    return .failure(state.lastError!)
                }
                if let done { result.settle(done) }
            }
        }
        return result
    }

    /// The same, for promises listed as arguments (of one type; two or three of any types give
    /// a tuple, below).
    ///
    /// ```swift
    /// Promises.any(mirror(1), mirror(2), mirror(3), mirror(4))
    /// ```
    @_disfavoredOverload
    public static func any<Value: Sendable>(
        on queue: DispatchQueue = .promises, _ promises: Promise<Value>...
    ) -> Promise<[Result<Value, any Error>]> {
        any(on: queue, promises)
    }

    /// Waits until both promises have settled: fulfilled with both results if at least one was
    /// fulfilled, rejected with the last error if both were rejected (google/promises'
    /// `any(a, b)`, with `Result` in place of its `Maybe`).
    ///
    /// ```swift
    /// Promises.any(fetchUser(), fetchAvatar()).then { user, avatar in
    ///     show(try? user.get(), try? avatar.get())
    /// }
    /// ```
    public static func any<A: Sendable, B: Sendable>(
        on queue: DispatchQueue = .promises, _ a: Promise<A>, _ b: Promise<B>
    ) -> Promise<(Result<A, any Error>, Result<B, any Error>)> {
        any(on: queue, [a.erased(on: queue), b.erased(on: queue)])
            .then(on: queue) { results in (results[0].map { $0 as! A }, results[1].map { $0 as! B }) }
    }

    /// Waits until all three promises have settled; as ``any(on:_:_:)``, for three.
    ///
    /// ```swift
    /// Promises.any(p1, p2, p3).then { r1, r2, r3 in ... }
    /// ```
    public static func any<A: Sendable, B: Sendable, C: Sendable>(
        on queue: DispatchQueue = .promises, _ a: Promise<A>, _ b: Promise<B>, _ c: Promise<C>
    ) -> Promise<(Result<A, any Error>, Result<B, any Error>, Result<C, any Error>)> {
        any(on: queue, [a.erased(on: queue), b.erased(on: queue), c.erased(on: queue)]).then(on: queue) { results in
            (results[0].map { $0 as! A }, results[1].map { $0 as! B }, results[2].map { $0 as! C })
        }
    }
}
