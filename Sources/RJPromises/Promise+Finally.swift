import Dispatch

extension Promise {
    /// Runs `work` on `queue` once the promise settles either way; the returned promise then
    /// settles the same way. The package's one word for "whatever happened" (ES2018's
    /// `Promise.prototype.finally`, PromiseKit's `finally`, `RJAsyncTask.finally`);
    /// google/promises calls it `always`, kept as a deprecated alias.
    ///
    /// ```swift
    /// spinner.show()
    /// load().finally { spinner.hide() }
    /// ```
    @discardableResult
    public func finally(on queue: DispatchQueue = .promises, _ work: @escaping @Sendable () -> Void) -> Promise<Value> {
        let next = Promise<Value>(settled: nil)
        observe(on: queue) { [settled = settledReference] in
            let outcome = settled.take()
            work()
            next.settle(outcome)
        }
        return next
    }

    /// google/promises' name for ``finally(on:_:)``.
    ///
    /// ```swift
    /// load().always { spinner.hide() }   // load().finally { spinner.hide() }
    /// ```
    @available(*, deprecated, renamed: "finally(on:_:)")
    @discardableResult
    public func always(on queue: DispatchQueue = .promises, _ work: @escaping @Sendable () -> Void) -> Promise<Value> {
        finally(on: queue, work)
    }
}
