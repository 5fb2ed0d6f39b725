import Dispatch

extension Promise {
    /// Runs `work` on `queue` once the promise settles either way; the returned promise then
    /// settles the same way.
    ///
    /// ```swift
    /// spinner.show()
    /// load().always { spinner.hide() }
    /// ```
    @discardableResult
    public func always(on queue: DispatchQueue = .promises, _ work: @escaping @Sendable () -> Void) -> Promise<Value> {
        let next = Promise<Value>(settled: nil)
        observe(on: queue) { [settled = settledReference] in
            let outcome = settled.take()
            work()
            next.settle(outcome)
        }
        return next
    }
}
