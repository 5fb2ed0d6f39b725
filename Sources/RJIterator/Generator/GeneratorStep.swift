import RJLocks

/// What one call to ``Generator/next(_:)``, ``Generator/return(_:)`` or ``Generator/throw(_:)``
/// produced: a yielded value (the body is suspended) or the body's return value (it is done).
///
/// ```swift
/// switch try gen.next() {
/// case .yielded(let x): print("got", x)
/// case .returned(let r): print("done with", r)
/// }
/// ```
public enum GeneratorStep<Element, Return> {
    /// The body called `yield(value)` and is suspended there.
    case yielded(Element)
    /// The body returned this value; the generator is completed.
    case returned(Return)

    /// The yielded value, or `nil` once the generator has returned.
    public var yieldedValue: Element? {
        if case .yielded(let value) = self { return value }
        return nil
    }

    /// The return value, or `nil` while the generator is still yielding.
    public var returnedValue: Return? {
        if case .returned(let value) = self { return value }
        return nil
    }
}

extension GeneratorStep: Equatable where Element: Equatable, Return: Equatable {}
extension GeneratorStep: Sendable where Element: Sendable, Return: Sendable {}

/// Where a generator is in its life.
///
/// ```swift
/// let gen = Generator<Int, Void, Void> { y in try y.yield(1) }
/// gen.state            // .created
/// _ = try gen.next()   // .suspended
/// _ = try gen.next()   // .completed
/// ```
public enum GeneratorState: UInt8, Sendable, Equatable {
    /// Made, never resumed: nothing of the body has run and no stack is held.
    case created
    /// Stopped at a `yield`, waiting for the next resume.
    case suspended
    /// Running on some thread right now; resuming it again throws ``GeneratorError/alreadyRunning``.
    case running
    /// Returned, threw, or was closed; every later call reports the same outcome.
    case completed
}

// The generator's state word (`RJAtomic<GeneratorState>`).
extension GeneratorState: RJAtomicValue {
    @inlinable public init(atomicWord: UInt64) { self = GeneratorState(rawValue: UInt8(truncatingIfNeeded: atomicWord)).unsafelyUnwrapped }
    @inlinable public var atomicWord: UInt64 { UInt64(rawValue) }
}
