import CRJContext
import RJLocks

// The one writer of a generator's state (after swift-async-algorithms' `MergeStateMachine` and
// SwiftNIO's `NIOThrowingAsyncSequenceProducerStateMachine`): the state word, the outcome a
// completed generator keeps, the value of a `return(_:)` on its way to the body, the close on
// release. Every operation asks `begin` (or `beginForDelegator`) for an action and carries it out
// (Generator+Steps.swift); the transitions that follow a switch (`bodyYielded`, `bodyEnded`,
// `keep`), and the dump's and the release's holds, are its other methods. Nothing else in the
// module writes these fields (`.ci/check-structure` checks it).
//
// The state word (`created`, `suspended`, `running`, `completed`) and its first-acquire hint are
// the only things two threads may touch at once. An operation moves it `created`/`suspended` -> `running` with an acquiring
// compare-exchange and back with a releasing store, so everything the body wrote is visible to
// the next resumer, whichever thread it is on. The other fields are touched only by the thread
// that holds `running`.
//
//   found      next, send                 start           delegate
//   created    start (send: notStarted)   start           start
//   suspended  resume(value)              alreadyStarted  resume(()) (not Void: delegateAlreadyStarted)
//   running    alreadyRunning             alreadyRunning  alreadyRunning
//   completed  reportOutcome              reportOutcome   reportOutcome
//
//   found      throw(e)                   return(v)       close
//   created    complete(threw e)          complete(v)     complete(closed)
//   suspended  resume(error e)            resume(close)   resume(close)
//   running    alreadyRunning             alreadyRunning  alreadyRunning
//   completed  fail(e)                    answer(v)       reportOutcome
//
// (docs/swift-core.md has the same table.) A `fail` after the word was taken gives it back as it
// was taken (`giveBack`), before the action is returned.
//
// A delegate (a generator a body runs with `Yielder.yieldAll`) is held `running` by the
// delegating body: that body's forwarded operations use `beginForDelegator`, which takes
// nothing, and the delegate is given back (`giveBackFromDelegator`) when the delegation ends
// early. Why a value with atomics inside can be this: docs/swift-core.md, "One state machine".

/// What `acquire` found: `suspended` and `created` mean the caller now holds `running`;
/// `running` and `completed` that it does not.
@usableFromInline
enum Acquisition {
    case suspended, created, running, completed
}

/// What the state machine tells an operation to do.
@usableFromInline
enum GeneratorAction<Input, Return> {
    /// Holding `running`, taken from `created`: make the coroutine and run the body from its
    /// first line.
    case start
    /// Holding `running`, taken from `suspended` (or owned): switch into the body with this signal.
    case resume(ResumeSignal<Input>)
    /// Holding `running`, taken from `created`: complete without running the body.
    case complete(Completion<Return>)
    /// Nothing taken, the generator has completed: report the outcome it kept.
    case reportOutcome
    /// Nothing taken: the step is `.returned(value)` (`return(v)` of a completed generator).
    case answer(Return)
    /// Nothing taken (or given back): the operation throws this.
    case fail(any Error)
}

/// A generator's state: the word other threads read, and what the thread holding `running`
/// keeps beside it. Only its own methods write it.
@usableFromInline
struct GeneratorStateMachine: ~Copyable {
    @usableFromInline let word = RJAtomic<GeneratorState>(.created)
    /// `true` until the first `acquire`: that one tries `created` first. A compare-exchange
    /// that fails costs as much as one that succeeds, and every later `acquire` expects
    /// `suspended`; the load of this hint is not in the way of that compare-exchange, whose
    /// expected value is a constant.
    @usableFromInline let mayBeFresh = RJAtomic<Bool>(true)
    /// How the body ended; `none` until then. (An `ErasedCompletion?` would be stored and
    /// destroyed through `Optional`'s generic value witnesses.)
    @usableFromInline var outcome = ErasedCompletion.none
    /// Set while release closes the body: `yield` then throws the exit signal without reading a
    /// typed signal, so closing needs no type information.
    @usableFromInline var closingOnRelease = false
    /// The value of a `return(_:)` on its way to the body's `yield` (see `takeExit`).
    @usableFromInline var pendingReturn: PendingReturn?

    @inlinable init() {}

    /// Where the generator is, for `state`. A dump reading a suspended generator holds it at
    /// `running` for a moment: that reads as `suspended`.
    @inlinable
    func state(of object: UnsafeMutableRawPointer) -> GeneratorState {
        let state = word.load(ordering: .acquiring)
        if state == .running, rj_dump_holds_now(object) != 0 { return .suspended }
        return state
    }

    // MARK: Operations

    /// Takes the generator for `operation` and says what to do (the table above). `object` is
    /// the generator's address, for the dump's hold.
    @inlinable @inline(__always)
    mutating func begin<Input, Return>(
        _ operation: GeneratorOperation<Input, Return>, object: UnsafeMutableRawPointer
    ) -> GeneratorAction<Input, Return> {
        switch acquire(object) {
        case .created:
            switch operation {
            case .next, .start, .delegate: return .start
            case .send:
                // No `yield` to receive the input yet.
                giveBack(.created)
                return .fail(GeneratorError.notStarted)
            case .throwing(let error): return .complete(.threw(error))
            case .returning(let value): return .complete(.returned(value))
            case .close: return .complete(.closed)
            }
        case .suspended:
            return resumeAction(operation, taken: true)
        case .running:
            return .fail(GeneratorError.alreadyRunning)
        case .completed:
            return completedAction(operation)
        }
    }

    /// The action for `operation` on a completed generator, which takes nothing and changes
    /// nothing (any thread may ask, once it has seen `completed`). As in ES6, a completed
    /// generator keeps its outcome for `next`; `return(v)` answers `v`, `throw(e)` throws `e`.
    @inlinable
    func completedAction<Input, Return>(_ operation: GeneratorOperation<Input, Return>) -> GeneratorAction<Input, Return> {
        switch operation {
        case .returning(let value): return .answer(value)
        case .throwing(let error): return .fail(error)
        case .next, .send, .start, .delegate, .close: return .reportOutcome
        }
    }

    /// The action for an operation on a delegate its owner holds `running` (nothing to take):
    /// a suspended one is resumed, a completed one reports its outcome.
    @inlinable @inline(__always)
    mutating func beginForDelegator<Input, Return>(_ operation: GeneratorOperation<Input, Return>) -> GeneratorAction<Input, Return> {
        if word.load(ordering: .relaxed) == .completed { return completedAction(operation) }
        return resumeAction(operation, taken: false)
    }

    /// How a suspended body is resumed for `operation`; gives the generator back when the
    /// operation cannot resume it and `taken` says the caller took it.
    @inlinable @inline(__always)
    mutating func resumeAction<Input, Return>(
        _ operation: GeneratorOperation<Input, Return>, taken: Bool
    ) -> GeneratorAction<Input, Return> {
        switch operation {
        case .next(let input), .send(let input):
            return .resume(.value(input))
        case .start:
            if taken { giveBack(.suspended) }
            return .fail(GeneratorError.alreadyStarted)
        case .delegate:
            // A delegation to a generator someone already started: only a Void input can be
            // made up.
            guard let input = () as? Input else {
                if taken { giveBack(.suspended) }
                return .fail(GeneratorError.delegateAlreadyStarted)
            }
            return .resume(.value(input))
        case .throwing(let error):
            return .resume(.error(error))
        case .returning(let value):
            // The body's `yield` throws the exit signal carrying `value` (see `takeExit`).
            pendingReturn = PendingReturn(value, type: Return.self)
            return .resume(.close)
        case .close:
            pendingReturn = nil
            return .resume(.close)
        }
    }

    /// Takes the state word: `running`, from `suspended` or `created` (which one is returned),
    /// or, when it cannot be taken, what the generator is.
    @inlinable @inline(__always)
    func acquire(_ object: UnsafeMutableRawPointer) -> Acquisition {
        if mayBeFresh.load(ordering: .relaxed) {
            // Only an `acquire` moves a generator out of `created`: after the first, this is
            // false, and a thread that still reads true fails here and looks below.
            mayBeFresh.store(false, ordering: .relaxed)
            let (started, _) = word.compareExchange(expected: .created, desired: .running, ordering: .acquiringAndReleasing)
            if started { return .created }
        }
        while true {
            let (took, seen) = word.compareExchange(expected: .suspended, desired: .running, ordering: .acquiringAndReleasing)
            if took { return .suspended }
            switch seen {
            case .running:
                // A dump may hold it while it reads its stack (`RJRuntime.dump()`): then look
                // again once it has let go. One load, off the path of every resume that succeeds.
                if rj_dump_holds_now(object) != 0 {
                    waitForDump(object)
                    continue
                }
                // The dump let go between the exchange and that load: it stored `suspended`
                // first, so this load sees it.
                if word.load(ordering: .acquiring) != .running { continue }
                return .running
            case .completed:
                return .completed
            case .created:
                let (started, _) = word.compareExchange(expected: .created, desired: .running, ordering: .acquiringAndReleasing)
                if started { return .created }
            case .suspended:
                break
            }
            // Another thread moved it meanwhile; look again.
        }
    }

    /// Lets the dump that holds this generator go on (it lets go once it has read the stack).
    @usableFromInline @inline(never)
    func waitForDump(_ object: UnsafeMutableRawPointer) {
        _ = rj_dump_holds(object)
    }

    /// Gives `running` back as it was taken (`created` or `suspended`): the operation found it
    /// could not go on (a `send` before the start, a `start` after it, a delegation that cannot
    /// make up an input, no stack for the body).
    @inlinable @inline(__always)
    func giveBack(_ taken: Acquisition) {
        assert(taken == .created || taken == .suspended, "RJIterator: internal error: gave back what was not taken")
        word.store(taken == .created ? .created : .suspended, ordering: .releasing)
    }

    // MARK: After a switch

    /// The body yielded: `suspended` again, unless its owner keeps it (a delegate).
    @inlinable @inline(__always)
    func bodyYielded(heldByDelegator: Bool = false) {
        if !heldByDelegator { word.store(.suspended, ordering: .releasing) }
    }

    /// Keeps how the body ended; called once, when it ends (by the body, for a generator nobody
    /// typed waits for, or by `bodyEnded`). The field still holds `.none`, a trivial value, so it
    /// is initialised over rather than assigned (an assignment goes through
    /// `ErasedCompletion`'s value witnesses).
    @inlinable @inline(__always)
    mutating func keep(_ ended: consuming ErasedCompletion) {
        assert({ if case .none = outcome { return true } else { return false } }())
        initializeOver(&outcome, with: ended)
    }

    /// The body ended (or an operation completed a generator that never ran) with `outcome`,
    /// not kept yet: keeps it and gives the word back as `completed`.
    @inlinable @inline(__always)
    mutating func completed(with outcome: consuming ErasedCompletion) {
        keep(outcome)
        word.store(.completed, ordering: .releasing)
    }

    /// The body ended and kept its outcome itself (a delegate, a close on release).
    @inlinable @inline(__always)
    func completedWithKeptOutcome() {
        word.store(.completed, ordering: .releasing)
    }

    /// The return value kept, if the body returned.
    @inlinable
    func keptReturn<Return>(as _: Return.Type) -> Return? {
        switch outcome {
        case .returned(let value): return (value as! Return)
        case .returnedInline(let a, let b, let c): return withUnsafeBytes(of: (a, b, c)) { $0.load(as: Return.self) }
        case .none, .threw, .closed: return nil
        }
    }

    /// Whether the generator completed by being closed (not by a body that threw
    /// `GeneratorError.closed` itself).
    @inlinable
    var endedByClose: Bool {
        if case .closed = outcome { return true }
        return false
    }

    /// The exit signal for a body being closed, carrying the value of the `return(_:)` that
    /// closes it, if any. Taken once: a later close (release) carries nothing stale.
    @inlinable
    mutating func takeExit() -> GeneratorExit {
        let exit = GeneratorExit(pendingReturn: pendingReturn)
        pendingReturn = nil
        return exit
    }

    // MARK: Delegation, release, dump

    /// A delegate its owner held `running` and lets go of while it is still suspended (the
    /// owner's body left `yieldAll` early): whoever may resume it now can.
    @inlinable @inline(__always)
    func giveBackFromDelegator(hasCoroutine: Bool) {
        if hasCoroutine, word.load(ordering: .relaxed) == .running { word.store(.suspended, ordering: .releasing) }
    }

    /// Release of the last reference: takes a suspended generator to close it, setting
    /// `closingOnRelease`; false when there is nothing to close. A plain load and store: nobody
    /// else can hold it (no reference is left, and it has left the registry, so no dump holds
    /// it either).
    @inlinable @inline(__always)
    mutating func beginCloseOnRelease() -> Bool {
        guard word.load(ordering: .acquiring) == .suspended else { return false }
        word.store(.running, ordering: .relaxed)
        closingOnRelease = true
        return true
    }

    /// A dump takes a suspended generator while it reads its stack, with the compare-exchange a
    /// resume uses (which also orders what the body's thread wrote before these reads); returns
    /// what it found when it could not.
    func holdForDump() -> (held: Bool, seen: GeneratorState) {
        let (held, seen) = word.compareExchange(expected: .suspended, desired: .running, ordering: .acquiringAndReleasing)
        return (held, seen)
    }

    func letGoAfterDump() {
        word.store(.suspended, ordering: .releasing)
    }
}

/// Initialises `slot`, which holds a trivial value, with `value`.
@inlinable @inline(__always)
func initializeOver<T>(_ slot: UnsafeMutablePointer<T>, with value: consuming T) {
    slot.initialize(to: value)
}
