import RJLocks

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
