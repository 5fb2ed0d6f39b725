import Dispatch

extension Promise {
    /// A promise that settles as this one does, or is rejected with ``PromiseError/timedOut``
    /// if this one has not settled `interval` seconds from now. This promise and the work
    /// behind it go on; cancel it yourself if they should stop.
    ///
    /// The outcome is delivered on `queue`.
    ///
    /// ```swift
    /// fetch().timeout(5).catch { print($0) }   // PromiseError.timedOut after 5 s
    /// ```
    public func timeout(on queue: DispatchQueue = .promises, _ interval: Double) -> Promise<Value> {
        let next = Promise<Value>(settled: nil)
        observe(on: queue) { [settled = settledReference] in next.settle(settled.take()) }
        // Weak: a promise that settled in time is not kept until the deadline.
        queue.asyncAfter(deadline: .now() + max(0, interval)) { [weak next] in
            next?.reject(PromiseError.timedOut)
        }
        return next
    }
}
