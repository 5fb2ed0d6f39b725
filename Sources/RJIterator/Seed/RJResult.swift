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
    /// The value, read and written through `value` with `AnyValue`'s copies, not `Optional<Any>`'s
    /// generic value witnesses.
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
    /// The value as a `T`: `value as? T` (as a generic cast answers, for an optional `T`), without
    /// a dynamic cast when the value's type is exactly `T`: a cast is most of a seed value's cost.
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
