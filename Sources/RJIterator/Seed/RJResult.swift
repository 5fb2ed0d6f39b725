/// The result of one step of an ``RJIterator`` or of an `rj_await`, as in the original
/// RJIterator: the value, an error, and whether the iteration is over.
///
/// ```swift
/// let r = it.next()
/// print("value: \(r.value ?? "nil"), done: \(r.done)")
/// ```
public struct RJResult {
    // `done` first: after the four words of the value it would leave a 41-byte struct, which the
    // compiler moves through the resumer's frame a few bytes at a time.

    /// `true` once the body has returned; every later `next` gives the same result.
    public var done: Bool
    /// The value, read and written through `value` with `AnyValue`'s copies: what Swift emits
    /// for an `Any?` is `Optional<Any>`'s generic value witnesses (docs/generators.md, "How the
    /// untyped values cross").
    @usableFromInline var storedValue: Optional<Any>
    /// An error, if the step failed (for an iterator: misuse, such as a resume from its own body).
    public var error: Optional<any Error>

    /// The value yielded, or the body's return value once `done`.
    @inlinable
    public var value: Optional<Any> {
        get { AnyValue.copy(storedValue) }
        set {
            withUnsafeMutablePointer(to: &storedValue) { stored in
                AnyValue.destroy(stored)
                stored.initialize(to: newValue)
            }
        }
        _modify { yield &storedValue }
    }

    /// Makes a result, as an `rj_await` adapter or a test would.
    ///
    /// ```swift
    /// let r = RJResult(value: 42)
    /// print(r.value as? Int ?? 0, r.error == nil, r.done)   // 42 true false
    /// ```
    @inlinable
    public init(value: Any? = nil, error: (any Error)? = nil, done: Bool = false) {
        self.done = done
        storedValue = value
        self.error = error
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
        withUnsafePointer(to: storedValue) { stored in
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
