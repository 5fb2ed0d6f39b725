import Dispatch

extension Promises {
    /// A promise for a callback API that reports `(value?, error?)`: fulfilled with the value
    /// (which may be `nil`) when the error is `nil`, rejected otherwise. `work` runs
    /// asynchronously on `queue`; the first call of the callback wins.
    ///
    /// ```swift
    /// Promises.wrap { handler in session.load(url, completion: handler) }   // Promise<Data?>
    /// ```
    public static func wrap<Value: Sendable>(
        on queue: DispatchQueue = .promises,
        _ work: @escaping @Sendable (_ handler: @escaping @Sendable (Value?, (any Error)?) -> Void) throws -> Void
    ) -> Promise<Value?> {
        Promise<Value?>(on: queue) { fulfill, reject in
            try work { value, error in
                if let error { reject(error) } else { fulfill(value) }
            }
        }
    }

    /// A promise for a callback API that reports only an optional error: fulfilled when it is
    /// `nil`, rejected otherwise.
    ///
    /// ```swift
    /// Promises.wrap { handler in file.close(completion: handler) }   // Promise<Void>
    /// ```
    public static func wrap(
        on queue: DispatchQueue = .promises,
        _ work: @escaping @Sendable (_ handler: @escaping @Sendable ((any Error)?) -> Void) throws -> Void
    ) -> Promise<Void> {
        Promise<Void>(on: queue) { fulfill, reject in
            try work { error in
                if let error { reject(error) } else { fulfill(()) }
            }
        }
    }

    /// A promise for a callback API that always delivers a value.
    ///
    /// ```swift
    /// Promises.wrap { handler in timer.fire(after: 1, then: handler) }   // Promise<Date>
    /// ```
    ///
    /// Disfavoured: a callback of an `(Error?) -> Void` or `(Value?, Error?) -> Void` shape picks
    /// the error-aware `wrap`, never this one with `Value == Error?`.
    @_disfavoredOverload
    public static func wrap<Value: Sendable>(
        on queue: DispatchQueue = .promises,
        _ work: @escaping @Sendable (_ handler: @escaping @Sendable (Value) -> Void) throws -> Void
    ) -> Promise<Value> {
        Promise<Value>(on: queue) { fulfill, _ in
            try work(fulfill)
        }
    }

    /// A promise for a callback API that delivers a `Result`.
    ///
    /// ```swift
    /// Promises.wrap { handler in client.send(request, completion: handler) }   // Promise<Response>
    /// ```
    public static func wrap<Value: Sendable>(
        on queue: DispatchQueue = .promises,
        _ work: @escaping @Sendable (_ handler: @escaping @Sendable (Result<Value, any Error>) -> Void) throws -> Void
    ) -> Promise<Value> {
        Promise<Value>(on: queue) { fulfill, reject in
            try work { result in
                switch result {
                case .success(let value): fulfill(value)
                case .failure(let error): reject(error)
                }
            }
        }
    }

    /// A promise for a callback API that reports nothing but its completion: fulfilled when
    /// it is called.
    ///
    /// ```swift
    /// Promises.wrap { handler in animator.run(completion: handler) }   // Promise<Void>
    /// ```
    public static func wrap(
        on queue: DispatchQueue = .promises,
        _ work: @escaping @Sendable (_ handler: @escaping @Sendable () -> Void) throws -> Void
    ) -> Promise<Void> {
        Promise<Void>(on: queue) { fulfill, _ in
            try work { fulfill(()) }
        }
    }

    /// A promise for a callback API that reports `(error?, value?)`, error first: rejected when
    /// the error is not `nil`, fulfilled with the value (which may be `nil`) otherwise.
    ///
    /// ```swift
    /// Promises.wrap { handler in store.read(key, completion: handler) }   // Promise<Data?>
    /// ```
    public static func wrap<Value: Sendable>(
        on queue: DispatchQueue = .promises,
        _ work: @escaping @Sendable (_ handler: @escaping @Sendable ((any Error)?, Value?) -> Void) throws -> Void
    ) -> Promise<Value?> {
        Promise<Value?>(on: queue) { fulfill, reject in
            try work { error, value in
                if let error { reject(error) } else { fulfill(value) }
            }
        }
    }

    /// A promise for a callback API that reports `(error?, value)`, error first, with a value
    /// that is always there: rejected when the error is not `nil`, fulfilled otherwise.
    /// Disfavoured, so that an `(Error?, Value?)` callback picks the form above.
    ///
    /// ```swift
    /// Promises.wrap { handler in counter.increment(completion: handler) }   // Promise<Int>
    /// ```
    @_disfavoredOverload
    public static func wrap<Value: Sendable>(
        on queue: DispatchQueue = .promises,
        _ work: @escaping @Sendable (_ handler: @escaping @Sendable ((any Error)?, Value) -> Void) throws -> Void
    ) -> Promise<Value> {
        Promise<Value>(on: queue) { fulfill, reject in
            try work { error, value in
                if let error { reject(error) } else { fulfill(value) }
            }
        }
    }

    /// A promise for a callback API that reports `(value, error?)` with a value that is always
    /// there: rejected when the error is not `nil`, fulfilled otherwise. Disfavoured, so that a
    /// `(Value?, Error?)` callback picks the optional form.
    ///
    /// ```swift
    /// Promises.wrap { handler in db.count(completion: handler) }   // Promise<Int>
    /// ```
    @_disfavoredOverload
    public static func wrap<Value: Sendable>(
        on queue: DispatchQueue = .promises,
        _ work: @escaping @Sendable (_ handler: @escaping @Sendable (Value, (any Error)?) -> Void) throws -> Void
    ) -> Promise<Value> {
        Promise<Value>(on: queue) { fulfill, reject in
            try work { value, error in
                if let error { reject(error) } else { fulfill(value) }
            }
        }
    }

    /// A promise for a callback API that reports two optional values and an optional error:
    /// rejected when the error is not `nil`, fulfilled with both values otherwise.
    ///
    /// ```swift
    /// Promises.wrap { handler in api.page(2, completion: handler) }   // Promise<(Items?, Cursor?)>
    /// ```
    public static func wrap<Value1: Sendable, Value2: Sendable>(
        on queue: DispatchQueue = .promises,
        _ work: @escaping @Sendable (_ handler: @escaping @Sendable (Value1?, Value2?, (any Error)?) -> Void) throws -> Void
    ) -> Promise<(Value1?, Value2?)> {
        Promise<(Value1?, Value2?)>(on: queue) { fulfill, reject in
            try work { value1, value2, error in
                if let error { reject(error) } else { fulfill((value1, value2)) }
            }
        }
    }
}
