import Dispatch

extension Promise {
    /// A promise fulfilled with this promise's value `interval` seconds after it is fulfilled.
    /// A rejection is passed on at once, without waiting.
    ///
    /// ```swift
    /// Promise(1).delay(0.5).then { print($0) }   // half a second later
    /// ```
    public func delay(on queue: DispatchQueue = .promises, _ interval: Double) -> Promise<Value> {
        let next = Promise<Value>(settled: nil)
        observe(on: queue) { [settled = settledReference] in
            let outcome = settled.take()
            switch outcome {
            case .success:
                queue.asyncAfter(deadline: .now() + max(0, interval)) { next.settle(outcome) }
            case .failure:
                next.settle(outcome)
            }
        }
        return next
    }
}
