import Dispatch

extension Promise {
    /// When the promise is rejected, runs `handler` with the error on `queue`. The returned
    /// promise settles as this one does, after `handler` has run; one `catch` at the end of a
    /// chain sees the first error of any step.
    ///
    /// Cancellation is a rejection with ``PromiseError/cancelled``, so `catch` sees it too.
    ///
    /// ```swift
    /// login().then { fetchProfile($0) }.catch { error in showAlert(error) }
    /// ```
    @inlinable @discardableResult
    public func `catch`(on queue: DispatchQueue = .promises, _ handler: @escaping @Sendable (any Error) -> Void) -> Promise<Value> {
        let next = Promise<Value>(settled: nil)
        observe(on: queue) { [settled = settledReference] in
            let outcome = settled.take()
            if case .failure(let error) = outcome { handler(error) }
            next.settle(outcome)
        }
        return next
    }
}
