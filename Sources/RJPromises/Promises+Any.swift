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
    public static func any<Value: Sendable>(
        on queue: DispatchQueue = .promises, _ promises: [Promise<Value>]
    ) -> Promise<[Result<Value, any Error>]> {
        if promises.isEmpty { return Promise<[Result<Value, any Error>]>([]) }
        let result = Promise<[Result<Value, any Error>]>(settled: nil)
        typealias Slot = Result<Value, any Error>
        let collected = RJLockedValue<(results: [Slot?], remaining: Int, lastError: (any Error)?)>(
            (Array(repeating: nil, count: promises.count), promises.count, nil))
        for (index, promise) in promises.enumerated() {
            promise.observe(on: queue) { outcome in
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
}
