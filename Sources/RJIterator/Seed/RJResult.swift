/// The result of one step of an ``RJIterator`` or of an `rj_await`, as in the original
/// RJIterator: the value, an error, and whether the iteration is over.
///
/// ```swift
/// let r = it.next()
/// print("value: \(r.value ?? "nil"), done: \(r.done)")
/// ```
public struct RJResult {
    // Spelled `Optional<…>`, not `…?`: every initialiser first sets a `T?` to nil, making its own
    // store a destroy-and-assign through `Optional`'s value witnesses, on every `RJIterator.next`.

    /// The value yielded, or the body's return value once `done`.
    public var value: Optional<Any>
    /// An error, if the step failed (for an iterator: misuse, such as a resume from its own body).
    public var error: Optional<any Error>
    /// `true` once the body has returned; every later `next` gives the same result.
    public var done: Bool

    /// Makes a result, as an `rj_await` adapter or a test would.
    ///
    /// ```swift
    /// let r = RJResult(value: 42)
    /// print(r.value as? Int ?? 0, r.error == nil, r.done)   // 42 true false
    /// ```
    public init(value: Any? = nil, error: (any Error)? = nil, done: Bool = false) {
        self.value = value
        self.error = error
        self.done = done
    }
}

extension RJResult {
    /// The value as a `T`: the same as `value as? T`, and much cheaper when the value's type is
    /// exactly `T` (no dynamic cast: the seed's values are `Any?`, and a cast is most of what
    /// reading one costs). For an optional `T` it answers as a generic `as? T` does, which Swift
    /// makes differ from a written-out `as? Int?` for a `nil` wrapped in `Any`.
    ///
    /// ```swift
    /// let r = RJResult(value: 42)
    /// print(r.value(as: Int.self) ?? 0)   // 42
    /// ```
    @inlinable
    public func value<T>(as type: T.Type) -> T? {
        withUnsafePointer(to: value) { stored in
            if let exact = AnyValue.exactly(stored, as: T.self) { return exact }
            return stored.pointee as? T
        }
    }

    /// A promise's outcome as a result: its value, or its error.
    @inlinable
    init<T>(_ outcome: Result<T, any Error>) {
        switch outcome {
        case .success(let value): self.init(value: value, error: nil)
        case .failure(let error): self.init(value: nil, error: error)
        }
    }
}
