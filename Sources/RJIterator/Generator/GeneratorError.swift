/// Errors the generator machinery itself throws (errors of the body pass through unchanged).
///
/// ```swift
/// do { _ = try gen.next() } catch GeneratorError.alreadyRunning { ... }
/// ```
public enum GeneratorError: Error, Sendable, Equatable, CustomStringConvertible {
    /// An operation was called on a generator that is running: from inside its own body, from a
    /// second thread, or on a generator another body delegates to with `yieldAll`.
    case alreadyRunning
    /// No stack could be allocated when the generator first ran; the message says why and what to change.
    case stackAllocationFailed(String)
    /// The generator was closed (``Generator/close()``, or by a closed delegator) and has no return
    /// value: every later `next` throws this.
    case closed
    /// `yieldAll` was given a generator suspended at a `yield` whose `Input` is not `Void`: there
    /// is no input to resume it with. Delegate to a fresh generator.
    case delegateAlreadyStarted
    /// ``Generator/start()`` on a generator that has already started: use ``Generator/send(_:)``.
    case alreadyStarted
    /// ``Generator/send(_:)`` was called on a generator that has not started: its body has no
    /// `yield` yet to receive the value. Call ``Generator/start()`` first.
    case notStarted
    /// ``Generator/start()``, ``Generator/send(_:)`` or ``Generator/nextValue()`` found the body
    /// returned instead of yielding (Python's `StopIteration`): see ``Generator/returnedValue``.
    case finished
    /// The body yielded while ``Generator/close()`` closed it (Python's "generator ignored
    /// GeneratorExit"); the generator stays suspended at that `yield`.
    case ignoredClose

    public var description: String {
        switch self {
        case .alreadyRunning:
            return "RJIterator: the generator is already running; resume it only after the running call returns"
        case .stackAllocationFailed(let message):
            return message
        case .closed:
            return "RJIterator: the generator was closed and has no return value"
        case .delegateAlreadyStarted:
            return "RJIterator: yieldAll needs a generator that has not started (or one with Input == Void)"
        case .alreadyStarted:
            return "RJIterator: start() needs a generator that has not started; resume a started one with next(_:) or send(_:)"
        case .notStarted:
            return "RJIterator: send(_:) needs a started generator, whose body waits at a yield; call start() first"
        case .finished:
            return "RJIterator: the generator has returned and has no value to yield; its return value is returnedValue"
        case .ignoredClose:
            return "RJIterator: the generator yielded while close() closed it; a cleanup must not yield during a close "
                + "(the generator stays suspended at that yield)"
        }
    }

    /// The case's name, for messages that quote the error.
    var name: String {
        switch self {
        case .alreadyRunning: return "alreadyRunning"
        case .stackAllocationFailed: return "stackAllocationFailed"
        case .closed: return "closed"
        case .delegateAlreadyStarted: return "delegateAlreadyStarted"
        case .alreadyStarted: return "alreadyStarted"
        case .notStarted: return "notStarted"
        case .finished: return "finished"
        case .ignoredClose: return "ignoredClose"
        }
    }
}
