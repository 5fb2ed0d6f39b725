import Dispatch

extension Promise {
    /// When the promise is rejected, runs `recovery` with the error on `queue`; the returned
    /// promise settles as the promise `recovery` returns (or with what it throws). A fulfilled
    /// value passes through.
    ///
    /// ```swift
    /// fetchRemote().recover { _ in fetchCached() }
    /// ```
    public func recover(
        on queue: DispatchQueue = .promises, _ recovery: @escaping @Sendable (any Error) throws -> Promise<Value>
    ) -> Promise<Value> {
        let next = Promise<Value>(settled: nil)
        observe(on: queue) { [settled = settledReference] in
            let outcome = settled.take()
            next.rejecting {
                switch outcome {
                case .success: next.settle(outcome)
                case .failure(let error): next.adopt(try recovery(error))
                }
            }
        }
        return next
    }

    /// When the promise is rejected, fulfills the returned promise with the value `recovery`
    /// returns for the error (or rejects it with what it throws). A fulfilled value passes
    /// through.
    ///
    /// ```swift
    /// fetchCount().recover { _ in 0 }
    /// ```
    public func recover(on queue: DispatchQueue = .promises, _ recovery: @escaping @Sendable (any Error) throws -> Value) -> Promise<Value> {
        let next = Promise<Value>(settled: nil)
        observe(on: queue) { [settled = settledReference] in
            let outcome = settled.take()
            next.rejecting {
                switch outcome {
                case .success: next.settle(outcome)
                case .failure(let error): next.fulfill(try recovery(error))
                }
            }
        }
        return next
    }
}
