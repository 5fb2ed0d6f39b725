/// Why an `rj_await` gave an error of its own rather than the awaited work's.
///
/// ```swift
/// let r = rj_await(load())
/// if r.error as? RJAsyncError == .timedOut { print("too slow") }
/// ```
public enum RJAsyncError: Error, Sendable, Equatable, CustomStringConvertible {
    /// `rj_await` was called outside an `rj_async` or async generator body (a `Generator`'s is outside).
    case notInAsync
    /// No longer given: cancelled awaits give `CancellationError`, Swift's own, in every await host
    /// (docs/swift-core.md, "One vocabulary"). Kept so that code naming it compiles.
    @available(*, deprecated, message: "a cancelled rj_async task's awaits give CancellationError; test `error is CancellationError`")
    case cancelled
    /// The awaited work released its callback without ever calling it.
    case callbackDropped
    /// The timeout of `rj_await(_:timeout:)` passed first.
    case timedOut
    /// A typed await got a value of another type than it asked for.
    case unexpectedValue(String)
    /// `rj_await(firstOf:)` was given no tasks, so none could ever call back.
    case noTasks

    public var description: String {
        switch self {
        case .notInAsync:
            return "RJIterator: rj_await (or rj_awaitValue) called outside the body of an rj_async task or an AsyncGenerator (a Generator's body is outside, even one run inside rj_async: its await cannot suspend the task); await in the rj_async body itself, or make the generator an AsyncGenerator; in async code, use Swift's await (try await gen.next(), for try await)"
        case .callbackDropped:
            return "RJIterator: the awaited work released its callback without calling it"
        case .timedOut:
            return "RJIterator: rj_await timed out"
        case .unexpectedValue(let detail):
            return "RJIterator: rj_await got an unexpected value: \(detail)"
        case .noTasks:
            return "RJIterator: rj_await(firstOf:) needs at least one task"
        default:
            // `cancelled`, no longer given.
            return "RJIterator: the rj_async task was cancelled"
        }
    }
}
