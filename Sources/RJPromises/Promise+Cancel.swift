import Dispatch

extension Promise {
    /// Cancels a pending promise: it is rejected with ``PromiseError/cancelled``, its
    /// ``onCancel(on:_:)`` handlers run, and the promises derived from it (`then`, `catch`,
    /// ...) are rejected with the same error as the rejection reaches them, running their own
    /// handlers. On a settled promise it does nothing. The promise this one was derived from is
    /// not touched: other promises may depend on it.
    ///
    /// ```swift
    /// let request = download(url)
    /// request.then { show($0) }
    /// request.cancel()   // the download's onCancel stops it; show never runs
    /// ```
    public func cancel() {
        reject(PromiseError.cancelled)
    }

    /// Whether the promise was cancelled (rejected with ``PromiseError/cancelled``).
    ///
    /// ```swift
    /// p.cancel(); p.isCancelled   // true
    /// ```
    public var isCancelled: Bool {
        (error as? PromiseError) == .cancelled
    }

    /// Runs `handler` on `queue` if the promise is cancelled, directly or because one it was
    /// derived from was: the place to stop the work behind it (a timer, a request). Returns
    /// this promise, for chaining.
    ///
    /// ```swift
    /// let p = Promise<Data>.pending()
    /// let task = session.dataTask(with: url) { data, _, error in ... }
    /// p.onCancel { task.cancel() }
    /// ```
    @discardableResult
    public func onCancel(on queue: DispatchQueue = .promises, _ handler: @escaping @Sendable () -> Void) -> Promise<Value> {
        observe(on: queue) { [settled = settledReference] in
            let outcome = settled.take()
            if case .failure(let error) = outcome, (error as? PromiseError) == .cancelled { handler() }
        }
        return self
    }
}
