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
        let next = Promise<Next>(settled: nil)
        observe(on: queue) { [settled = settledReference] in
            let outcome = settled.take()
            next.rejecting {
                switch outcome {
                case .success(let value): next.adopt(try work(value))
                case .failure(let error): next.reject(error)
                }
            }
        }
        return next
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
        let next = Promise<Next>(settled: nil)
        observe(on: queue) { [settled = settledReference] in
            let outcome = settled.take()
            next.rejecting {
                switch outcome {
                case .success(let value): next.fulfill(try work(value))
                case .failure(let error): next.reject(error)
                }
            }
        }
        return next
    }

    /// When the promise is fulfilled, runs `work` with the value on `queue`; the returned
    /// promise settles with the same value once `work` has run (or with what `work` throws).
    ///
    /// ```swift
    /// fetchUser().then { user in print(user.name) }.catch { print($0) }
    /// ```
    @inlinable @discardableResult
    public func then(on queue: DispatchQueue = .promises, _ work: @escaping @Sendable (Value) throws -> Void) -> Promise<Value> {
        let next = Promise<Value>(settled: nil)
        observe(on: queue) { [settled = settledReference] in
            let outcome = settled.take()
            next.rejecting {
                if case .success(let value) = outcome { try work(value) }
                next.settle(outcome)
            }
        }
        return next
    }
}

extension Promise {
    /// Runs `body`, which settles this promise; what it throws rejects it. The chaining
    /// operators (`then`, `recover`) each register one closure that captures the promise
    /// they return and the user's block, and settle that promise through this: one closure
    /// context per link. (A shared helper taking the block as a generic parameter cost a
    /// second allocation per link: a reabstraction thunk for the block.)
    @inlinable @inline(__always)
    func rejecting(ifThrows body: () throws -> Void) {
        do {
            try body()
        } catch {
            reject(error)
        }
    }
}
