import RJLocks

// The whole state of an async generator, as one value (after swift-async-algorithms'
// `MergeStateMachine` and `AsyncChannel`'s state machine); docs/swift-core.md ("Async
// generators: public type, state machine, storage"). The storage keeps it under its one lock;
// each event is a mutating method that returns what the storage must do, outside the lock. It
// owns the requests that wait and their waiters (AsyncRequest.swift): an answer is decided and
// its waiter handed out in the same hold, so there is no moment where one is decided but not
// handed over. Nothing else writes it. `Body` holds no reference on the fast path (suspended ->
// a caller's turn -> suspended), which touches a few trivial words. What each event does:
//
//   body, queue              a request comes                 the turn's body yields v          ... ends
//   fresh                    turn for it                     -                                 -
//   suspended                turn for it                     -                                 -
//   suspended, ahead(vs)     next: takes vs.first*           -                                 -
//                            return/throw: drops vs, turn
//   running(t)               waits behind t                  v to t's requester, or kept**     ended; the
//   running(t), waiting      waits behind the others         v to t's, then the head request   requests left
//   running(t), ahead(vs)    next: takes vs.first            kept**                            get the outcome
//                            return/throw: drops vs, waits
//   ended(e), ahead(vs)?     next: takes vs.first, or the kept outcome; return/throw: drops vs
//
// A reader's cancellation (`readerCancelled`) withdraws its read: it is answered
// `CancellationError` at once, and the others go on; if its read was being served, the turn
// goes on for nobody (`ahead` when `Input` is `Void`: its value goes to the next read, kept in
// one slot; `dropping` otherwise: the value answered that reader's own input). Only the last
// reader's cancellation (nobody else holds the generator) cancels the body: its yields are
// refused and its awaits give `CancellationError`, and that reader is answered once the body
// has ended (`closing`), or its grace is over (`closerOverdue`); a body that yields again after
// a refusal ignored it, and is closed as on release. `return` and `throw` are commands: never
// withdrawn.
//
// Values ahead exist only with a buffer, or one in the slot of a withdrawn read; never with
// waiting requests. Every transition keeps these (AsyncGeneratorScenarioTests checks
// `invariantViolation`).
//
//   *  and the body produces ahead again, on the generator's queue, if it has a buffer.
//   ** a turn producing ahead gives v to the first waiting `next`; a waiting return or throw
//      takes v's place (v goes to nobody: nothing comes out after them); with nobody waiting v
//      is kept, and the body goes on while the buffer has room (a withdrawn read's slot: stops).
//
// Requests are answered in the order they came: a turn's answer goes out before anything
// queued behind it is served (docs/async-generators.md, "The order of answers").

/// An async generator's state machine; not generic (values ahead are kept as `Any`), so the
/// storage's methods reached from untyped code need no type metadata.
@usableFromInline
struct AsyncGeneratorStateMachine: RJHintedValue, AwaitingMachine {
    @usableFromInline
    enum Body {
        case fresh
        case suspended
        /// A turn in progress: the body runs, or awaits, on some thread.
        case running(Turn)
        case ended(Ending)
    }

    @usableFromInline
    enum Queue {
        case empty
        /// Requests behind the running turn, in order (at least one).
        case waiting(FIFO<AsyncRequest>)
        /// Values the body produced before anyone asked for them (at least one).
        case ahead(FIFO<Any>)
    }

    /// Who the body runs for now, and what happened to it meanwhile.
    @usableFromInline
    struct Turn {
        @usableFromInline var serving: Serving
        /// The generator was released meanwhile: the body is closed at its next `yield`.
        @usableFromInline var released = false
        /// A `yield` of the cancelled body was refused once: a second one ignores the cancellation.
        @usableFromInline var refused = false

        @inlinable init(_ serving: Serving, released: Bool = false) {
            self.serving = serving
            self.released = released
        }
    }

    @usableFromInline
    enum Serving {
        /// The caller on whose thread the body runs, answered by returning.
        case caller
        /// A request answered through its waiter.
        case request(AsyncRequest)
        /// Nobody: the body produces ahead (`bufferingUpTo:`), or finishes the step of a
        /// withdrawn read of a generator whose `Input` is `Void` (kept for the next read).
        case ahead
        /// Nobody: the step of a withdrawn read that sent its own input: its value is dropped.
        case dropping
        /// The body is cancelled (its last reader was) or closed on release; these reads are
        /// answered `CancellationError` once it has ended.
        case closing([AsyncRequest])
    }

    /// How the body ended, for the requests answered from its kept outcome.
    @usableFromInline
    enum Ending {
        case normally
        /// Cancelled by its last reader: a `CancellationError` it ended with is not a later
        /// reader's to see (one reaching it through a weak reference).
        case byCancellation
    }

    /// What a turn does once a request is answered.
    @usableFromInline
    enum Next {
        /// Nothing: the generator is idle (suspended, or its buffer is full).
        case stop
        /// Resume the body to produce ahead (`next(())`).
        case produce
        /// Resume the body with this request's operation (a `GeneratorOperation<Input, Return>`).
        case serve(Any)
    }

    /// How many values the body may produce ahead (`bufferingUpTo:`; 0: none).
    @usableFromInline let capacity: Int
    /// A withdrawn read's step is kept for the next read (`Input` is `Void`), not dropped.
    @usableFromInline let keepsWithdrawnSteps: Bool
    @usableFromInline var body = Body.fresh
    @usableFromInline var queue = Queue.empty
    @usableFromInline var awaits = AwaitState()
    /// Answers decided before their waiter came, or kept for a body to take once resumed.
    @usableFromInline var kept: [AsyncKeptAnswer] = []
    /// The id of the last request made.
    @usableFromInline var lastID: UInt64 = 0

    @inlinable init(capacity: Int, keepsWithdrawnSteps: Bool) {
        self.capacity = capacity
        self.keepsWithdrawnSteps = keepsWithdrawnSteps
    }

    // MARK: The fast path: two states in the lock word

    /// The hint (`RJHintedMutex`) of a generator without a buffer, nothing waiting, the body
    /// suspended at a `yield`: a caller may take a turn with one compare-exchange.
    @inlinable static var idleHint: UInt32 { 1 }
    /// The same with a caller's turn running: it ends with one compare-exchange back to idle.
    @inlinable static var callerTurnHint: UInt32 { 2 }
    /// Any other state whose awaits are not cancelled (the value says the rest): an await asks
    /// it without the lock. Every hint but 0 says "not cancelled".
    @inlinable static var notCancelledHint: UInt32 { 3 }

    /// What `callerArrives` decided.
    @usableFromInline
    enum CallerStart {
        /// The caller runs the body itself, now (a turn for it).
        case serve
        /// A value produced ahead answers it; `produce`: the storage starts a producing turn.
        case take(Any, produce: Bool)
        /// The body has ended: the kept outcome answers it.
        case outcome(Ending)
        /// Something is in progress: the caller waits as a request (`requestArrives`).
        case wait
    }

    /// A request whose caller will run the body on its own thread if it can. `isNext`: a read,
    /// which a value produced ahead answers (`return` and `throw` drop those values).
    @usableFromInline
    mutating func callerArrives(isNext: Bool) -> CallerStart {
        if isNext, case .ahead = queue {
            let value = takeAhead()
            // The buffer has room again: the body produces, if it was idle (full, or a turn
            // that ended for nobody); a withdrawn read's slot just empties.
            let produce = capacity > 0 && !isRunning && !isEnded
            if produce { body = .running(Turn(.ahead)) }
            return .take(value, produce: produce)
        }
        switch body {
        case .fresh, .suspended:
            // A return or throw drops what was produced ahead.
            queue = .empty
            body = .running(Turn(.caller))
            return .serve
        case .running:
            // A return or throw drops what was produced ahead when it takes its place in the
            // queue (`requestArrives`, the same hold), not before: values produced meanwhile
            // would come out after the ones dropped.
            return .wait
        case .ended(let ending):
            // Nothing comes out after a return's or throw's answer, the values kept neither.
            queue = .empty
            return .outcome(ending)
        }
    }

    /// The oldest value produced ahead (the queue holds some).
    @usableFromInline
    mutating func takeAhead() -> Any {
        guard case .ahead(var values) = queue else {
            preconditionFailure("RJIterator: internal error: an async generator took a value ahead from a queue without one")
        }
        queue = .empty
        let value = values.pop()
        if !values.isEmpty { queue = .ahead(values) }
        return value
    }

    /// The caller's turn ended at a `yield` off the fast path (someone came, or a buffer): the value
    /// is the caller's answer; returns what the generator's queue goes on with.
    @usableFromInline
    mutating func callerTurnYielded() -> Next {
        nextTurnAfterAnswer()
    }

    // MARK: Reading

    @inlinable var isRunning: Bool {
        if case .running = body { return true }
        return false
    }

    @inlinable var isEnded: Bool {
        if case .ended = body { return true }
        return false
    }

    /// The two fast states, as the lock word carries them while nobody holds the lock (see
    /// `idleHint`): 0 for every other state.
    @inlinable
    var hintToLeave: UInt32 {
        if awaits.cancelled { return 0 }
        guard capacity == 0, case .empty = queue else { return Self.notCancelledHint }
        switch body {
        case .suspended:
            return Self.idleHint
        case .running(let turn):
            if case .caller = turn.serving, !turn.released { return Self.callerTurnHint }
            return Self.notCancelledHint
        case .fresh, .ended:
            return Self.notCancelledHint
        }
    }

    /// The lock word carried `hint`: the fast transitions moved between the two fast states
    /// without touching this value, which becomes what the hint says.
    @inlinable
    mutating func absorbHint(_ hint: UInt32) {
        switch hint {
        case Self.idleHint: body = .suspended
        case Self.callerTurnHint: body = .running(Turn(.caller))
        default: break
        }
    }

    /// Where the body is, as `AsyncGenerator.state` reports it.
    @usableFromInline
    var generatorState: GeneratorState {
        switch body {
        case .fresh: return .created
        case .suspended: return .suspended
        case .running: return .running
        case .ended: return .completed
        }
    }

    /// What breaks the header's invariants, if anything (the tests check it after events).
    @usableFromInline
    var invariantViolation: String? {
        switch queue {
        case .empty:
            break
        case .waiting(let waiting):
            if !isRunning { return "requests waiting without a turn" }
            if waiting.isEmpty { return "an empty queue of requests" }
        case .ahead(let values):
            if values.isEmpty { return "an empty queue of values" }
            if case .fresh = body { return "values ahead of a body that never ran" }
            if capacity == 0 {
                if values.count > 1 { return "more than one value kept without a buffer" }
                if isRunning { return "a turn running with a withdrawn read's value kept, without a buffer" }
            } else {
                if case .suspended = body, values.count > capacity { return "more values ahead than the buffer holds" }
                if case .running = body, values.count >= capacity { return "a turn producing into a full buffer" }
            }
        }
        if case .running(let turn) = body {
            switch turn.serving {
            case .request(let request):
                if kept.contains(where: { $0.id == request.id }) { return "the turn serves an answered request" }
            case .closing:
                if !awaits.cancelled { return "a closing turn whose awaits are not cancelled" }
            case .caller, .ahead, .dropping:
                break
            }
        }
        return nil
    }

    /// How many requests wait behind the turn (for tests).
    @usableFromInline
    var waitingCount: Int {
        if case .waiting(let waiting) = queue { return waiting.count }
        return 0
    }

    /// How many values wait, produced ahead (for tests).
    @usableFromInline
    var aheadCount: Int {
        if case .ahead(let values) = queue { return values.count }
        return 0
    }
}
