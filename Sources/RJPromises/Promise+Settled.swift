import Dispatch

extension Promise {
    /// Runs `body` with the outcome as soon as the promise settles, on the thread that settles
    /// it (or on the calling thread, now, if it has settled). For bridges to other
    /// asynchronous systems, such as `rj_await`, that hop to their own queue anyway: keep
    /// `body` short and do not block in it.
    ///
    /// ```swift
    /// promise.whenSettled { result in continuation.resume(with: result) }
    /// ```
    public func whenSettled(_ body: @escaping @Sendable (Result<Value, any Error>) -> Void) {
        observeInline { body($0.settledOutcome) }
    }
}
