import RJLocks

/// An `rj_async` task's state machine: its awaits, its body until it ends, and what waits for
/// the end. The task keeps it under its lock (`RJHintedMutex`, whose word says "not cancelled"
/// while nobody holds it: an await asks that without the lock); each event is one of its
/// methods, which returns what the task does outside the lock.
struct RJAsyncTaskStateMachine: AwaitingMachine, RJHintedValue {
    var awaits = AwaitState()
    private(set) var core: Generator<UInt64, RJResult, Void>?
    private var handlers: [@Sendable () -> Void] = []
    private var waiters: [CheckedContinuation<Void, any Error>] = []
    private(set) var thrown: (any Error)?
    private(set) var finished = false

    init(core: Generator<UInt64, RJResult, Void>) {
        self.core = core
    }

    /// The lock word's hint while nobody holds it: the task is not cancelled.
    static var notCancelledHint: UInt32 { 1 }

    var hintToLeave: UInt32 { awaits.cancelled ? 0 : Self.notCancelledHint }

    /// The hint says only what the value says already.
    mutating func absorbHint(_ hint: UInt32) {}

    /// The generator to run the body on; nil when the task was cancelled before it started.
    func coreToRun() -> Generator<UInt64, RJResult, Void>? {
        if awaits.cancelled, core?.state == .created { return nil }
        return core
    }

    /// A `finally` handler comes: `true` when the body has ended already (the task runs it now).
    mutating func addHandler(_ handler: @escaping @Sendable () -> Void) -> Bool {
        if finished { return true }
        handlers.append(handler)
        return false
    }

    /// A Swift task waits for the end: its outcome if the body has ended, else `nil` (it waits).
    mutating func addWaiter(_ waiter: CheckedContinuation<Void, any Error>) -> Result<Void, any Error>? {
        guard finished else {
            waiters.append(waiter)
            return nil
        }
        if let thrown { return .failure(thrown) }
        return .success(())
    }

    /// The body has ended (or will never start): what to run, resume and release outside the lock.
    mutating func finish(throwing error: (any Error)?)
        -> ([@Sendable () -> Void], [CheckedContinuation<Void, any Error>], Generator<UInt64, RJResult, Void>?)
    {
        finished = true
        thrown = error
        defer {
            handlers = []
            waiters = []
        }
        return (handlers, waiters, core.take())
    }
}
