/// Errors the promise operators themselves reject with.
///
/// ```swift
/// p.timeout(1).catch { error in
///     if error as? PromiseError == .timedOut { print("too slow") }
/// }
/// ```
public enum PromiseError: Error, Sendable, Equatable, CustomStringConvertible {
    /// ``Promise/cancel()`` was called on the promise, or on one it was derived from.
    case cancelled
    /// ``Promise/timeout(on:_:)``'s interval passed before the promise settled.
    case timedOut
    /// ``Promise/validate(on:_:)``'s predicate returned `false`.
    case validationFailure
    /// A block returned the very promise it was meant to settle, which would wait for itself.
    case chainingCycle
    /// ``Promises/race(on:_:)`` was given no promises, so none could ever win.
    case emptyRace

    public var description: String {
        switch self {
        case .cancelled: return "RJPromises: the promise was cancelled"
        case .timedOut: return "RJPromises: the promise timed out"
        case .validationFailure: return "RJPromises: the promise's value failed validation"
        case .chainingCycle:
            return "RJPromises: a block returned the promise it settles; it would wait for itself forever. Return another promise"
        case .emptyRace: return "RJPromises: race needs at least one promise"
        }
    }
}
