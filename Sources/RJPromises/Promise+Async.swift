import Dispatch

extension Promise {
    /// Starts asynchronous work that settles the promise by calling `fulfill` or `reject`
    /// (the first call wins; throwing rejects).
    ///
    /// `work` runs asynchronously on `queue`. The promise stays alive as long as `work` keeps
    /// `fulfill` or `reject`.
    ///
    /// ```swift
    /// let p = Promise<Data>(on: .global()) { fulfill, reject in
    ///     download(url) { data, error in
    ///         if let data { fulfill(data) } else { reject(error!) }
    ///     }
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - queue: where `work` runs; `DispatchQueue.promises` by default.
    ///   - work: the work; calls one of the two closures, once, now or later, from any thread.
    public convenience init(
        on queue: DispatchQueue = .promises,
        _ work: @escaping @Sendable (_ fulfill: @escaping @Sendable (Value) -> Void,
                                     _ reject: @escaping @Sendable (any Error) -> Void) throws -> Void
    ) {
        self.init(settled: nil)
        queue.async { [self] in
            do {
                try work({ self.fulfill($0) }, { self.reject($0) })
            } catch {
                reject(error)
            }
        }
    }
}
