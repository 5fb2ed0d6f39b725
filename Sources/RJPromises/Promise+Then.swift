import Dispatch

extension Promise {
    /// When the promise is fulfilled, runs `work` with the value on `queue`; the returned
    /// promise settles as the promise `work` returns settles.
    ///
    /// - Parameters:
    ///   - queue: where `work` runs, asynchronously, also if the promise is already fulfilled;
    ///     `DispatchQueue.promises` by default.
    ///   - work: the next step. Throwing rejects the returned promise.
    /// - Returns: a promise of the next step's value. If this promise is rejected, `work` does
    ///   not run and the returned promise is rejected with the same error.
    ///
    /// ```swift
    /// login(user).then { token in fetchProfile(token) }   // Promise<Profile>
    /// ```
    @inlinable @discardableResult
    public func then<Next: Sendable>(
        on queue: DispatchQueue = .promises, _ work: @escaping @Sendable (Value) throws -> Promise<Next>
    ) -> Promise<Next> {
        chain(on: queue, work) { outcome, next, work in
            switch outcome {
            case .success(let value): next.adopt(try work(value))
            case .failure(let error): next.reject(error)
            }
        }
    }

    /// When the promise is fulfilled, runs `work` with the value on `queue` and fulfills the
    /// returned promise with its result.
    ///
    /// Throwing from `work` rejects the returned promise; a rejection of this promise passes
    /// through without running `work`.
    ///
    /// ```swift
    /// Promise(2).then { $0 * 21 }   // Promise<Int> fulfilled with 42
    /// ```
    @inlinable @discardableResult
    public func then<Next: Sendable>(
        on queue: DispatchQueue = .promises, _ work: @escaping @Sendable (Value) throws -> Next
    ) -> Promise<Next> {
        chain(on: queue, work) { outcome, next, work in
            switch outcome {
            case .success(let value): next.fulfill(try work(value))
            case .failure(let error): next.reject(error)
            }
        }
    }

    /// When the promise is fulfilled, runs `work` with the value on `queue`; the returned
    /// promise settles with the same value once `work` has run (or with what `work` throws).
    ///
    /// ```swift
    /// fetchUser().then { user in print(user.name) }.catch { print($0) }
    /// ```
    @inlinable @discardableResult
    public func then(on queue: DispatchQueue = .promises, _ work: @escaping @Sendable (Value) throws -> Void) -> Promise<Value> {
        chain(on: queue, work) { outcome, next, work in
            if case .success(let value) = outcome { try work(value) }
            next.settle(outcome)
        }
    }
}

extension Promise {
    /// The plumbing every chaining operator shares (`then`, `recover`): a pending promise that
    /// `step` settles from this one's outcome and the user's `work`, on `queue`; what `step`
    /// throws rejects it. `work` is passed through rather than captured by `step`, so that
    /// `step` captures nothing and costs no allocation: one closure context per link, as
    /// without the helper.
    @inlinable
    func chain<Next: Sendable, Work: Sendable>(
        on queue: DispatchQueue, _ work: Work, _ step: @escaping @Sendable (Outcome, Promise<Next>, Work) throws -> Void
    ) -> Promise<Next> {
        let next = Promise<Next>(settled: nil)
        observe(on: queue) { outcome in
            do {
                try step(outcome, next, work)
            } catch {
                next.reject(error)
            }
        }
        return next
    }
}
