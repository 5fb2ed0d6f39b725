import Dispatch

extension Promise {
    /// When the promise is fulfilled, runs `predicate` on the value on `queue`: `true` passes
    /// the value on, `false` rejects the returned promise with
    /// ``PromiseError/validationFailure``. A rejection passes through.
    ///
    /// ```swift
    /// fetchAge().validate { $0 >= 0 }
    /// ```
    public func validate(on queue: DispatchQueue = .promises, _ predicate: @escaping @Sendable (Value) -> Bool) -> Promise<Value> {
        let next = Promise<Value>(settled: nil)
        observe(on: queue) { [settled = settledReference] in
            let outcome = settled.take()
            if case .success(let value) = outcome, !predicate(value) {
                next.reject(PromiseError.validationFailure)
            } else {
                next.settle(outcome)
            }
        }
        return next
    }
}
