import CRJContext
import RJLocks

// The one writer of a generator's state (after swift-async-algorithms' `MergeStateMachine`;
// docs/swift-core.md, "One state machine", has its table). Only the state word and its hint are
// touched by two threads at once: taking `running` is an acquiring compare-exchange, giving it
// back a releasing store. A `fail` after the word was taken gives it back first (`giveBack`).

/// A generator's state machine: a view of the generator's `stateWord` and `mayBeFresh` (atomics:
/// any thread, any time) and `kept` (only the thread holding `running`), separate stored
/// properties so that no access to one overlaps one to the other (ThreadSanitizer checks both).
@usableFromInline
struct GeneratorStateMachine {
    /// The generator, unretained: the view lives only while its generator does (a reference
    /// read out of an `unowned(unsafe)` field would be retained around each access).
    @usableFromInline let host: Unmanaged<_RJCoroutineHost>

    @inlinable @inline(__always)
    init(_ host: _RJCoroutineHost) {
        self.host = Unmanaged.passUnretained(host)
    }

    @inlinable @inline(__always)
    func with<T>(_ body: (_RJCoroutineHost) -> T) -> T {
        host._withUnsafeGuaranteedRef(body)
    }

    /// The state word, as it is now (any thread).
    @inlinable @inline(__always)
    func current(_ ordering: RJAtomicOrdering = .acquiring) -> GeneratorState {
        with { $0.stateWord.load(ordering: ordering) }
    }

    /// Where the generator is, for `state`. A dump reading a suspended generator holds it at
    /// `running` for a moment: that reads as `suspended`.
    @inlinable
    var state: GeneratorState {
        with { h in
            let state = current()
            if state == .running, rj_dump_holds_now(h.object) != 0 { return .suspended }
            return state
        }
    }

    // MARK: Operations

    /// Takes the generator for `operation` and says what to do (the table above).
    @inlinable @inline(__always)
    func begin<Input, Return>(_ operation: GeneratorOperation<Input, Return>) -> GeneratorAction<Input, Return> {
        switch acquire() {
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

    /// The action for `operation` on a completed generator: takes and changes nothing (any thread,
    /// once it has seen `completed`). As in ES6: `return(v)` answers `v`, `throw(e)` throws `e`.
    @inlinable
    func completedAction<Input, Return>(_ operation: GeneratorOperation<Input, Return>) -> GeneratorAction<Input, Return> {
        switch operation {
        case .returning(let value): return .answer(value)
        case .throwing(let error): return .fail(error)
        case .next, .send, .start, .delegate, .close: return .reportOutcome
        }
    }

    /// The action for an operation on a delegate its owner holds `running` (nothing to take).
    @inlinable @inline(__always)
    func beginForDelegator<Input, Return>(_ operation: GeneratorOperation<Input, Return>) -> GeneratorAction<Input, Return> {
        with { h in
            if h.stateWord.load(ordering: .relaxed) == .completed { return completedAction(operation) }
            return resumeAction(operation, taken: false)
        }
    }

    /// How a suspended body is resumed for `operation`; gives the generator back when the
    /// operation cannot resume it and `taken` says the caller took it.
    @inlinable @inline(__always)
    func resumeAction<Input, Return>(
        _ operation: GeneratorOperation<Input, Return>, taken: Bool
    ) -> GeneratorAction<Input, Return> {
        switch operation {
        case .next(let input), .send(let input):
            return .resume(.value(input))
        case .start:
            if taken { giveBack(.suspended) }
            return .fail(GeneratorError.alreadyStarted)
        case .delegate:
            // A delegation to a started generator: only a Void input can be made up.
            guard let input = () as? Input else {
                if taken { giveBack(.suspended) }
                return .fail(GeneratorError.delegateAlreadyStarted)
            }
            return .resume(.value(input))
        case .throwing(let error):
            return .resume(.error(error))
        case .returning(let value):
            // The body's `yield` throws the exit signal carrying `value` (see `takeExitValue`).
            setPending(PendingReturn(value, type: Return.self))
            return .resume(.close)
        case .close:
            clearPending()
            return .resume(.close)
        }
    }

    /// The first case of `acquire`, alone: takes a generator that may be fresh from `created`;
    /// false when it cannot (then `begin` decides, as for any operation). A delegation's first
    /// step tries it inline (`Yielder.yieldAll`): `true` is `begin(.delegate)`'s `start`.
    @inlinable @inline(__always)
    func takeFresh() -> Bool {
        with { h in
            guard h.mayBeFresh.load(ordering: .relaxed) else { return false }
            h.mayBeFresh.store(false, ordering: .relaxed)
            return h.stateWord.compareExchange(expected: .created, desired: .running, ordering: .acquiringAndReleasing).exchanged
        }
    }

    /// Takes the state word: `running`, from `suspended` or `created` (which one is returned),
    /// or, when it cannot be taken, what the generator is.
    @inlinable @inline(__always)
    func acquire() -> Acquisition {
        with { h in
            let object = h.object
            if h.mayBeFresh.load(ordering: .relaxed) {
                // Only an `acquire` moves a generator out of `created`: after the first, this is
                // false, and a thread that still reads true fails here and looks below.
                h.mayBeFresh.store(false, ordering: .relaxed)
                let (started, _) = h.stateWord.compareExchange(expected: .created, desired: .running, ordering: .acquiringAndReleasing)
                if started { return .created }
            }
            while true {
                let (took, seen) = h.stateWord.compareExchange(expected: .suspended, desired: .running, ordering: .acquiringAndReleasing)
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
                    if h.stateWord.load(ordering: .acquiring) != .running { continue }
                    return .running
                case .completed:
                    return .completed
                case .created:
                    let (started, _) = h.stateWord.compareExchange(expected: .created, desired: .running, ordering: .acquiringAndReleasing)
                    if started { return .created }
                case .suspended:
                    break
                }
                // Another thread moved it meanwhile; look again.
            }
        }
    }

    /// Waits for the dump that holds this generator (it lets go once it has read the stack).
    @usableFromInline @inline(never)
    func waitForDump(_ object: UnsafeMutableRawPointer) {
        _ = rj_dump_holds(object)
    }

    /// Gives `running` back as it was taken (`created` or `suspended`): the operation could not go
    /// on (a `send` before the start, a `start` after it, `delegateAlreadyStarted`, no stack).
    @inlinable @inline(__always)
    func giveBack(_ taken: Acquisition) {
        with { h in
            assert(taken == .created || taken == .suspended, "RJIterator: internal error: gave back what was not taken")
            h.stateWord.store(taken == .created ? .created : .suspended, ordering: .releasing)
        }
    }

    // MARK: After a switch

    /// The body yielded: `suspended` again, unless its owner keeps it (a delegate).
    @inlinable @inline(__always)
    func bodyYielded(heldByDelegator: Bool = false) {
        with { h in
            if !heldByDelegator { h.stateWord.store(.suspended, ordering: .releasing) }
        }
    }

    /// Keeps how the body ended, once (by the body when nobody typed waits, or by `completed(with:)`),
    /// in `kept`'s raw bytes for it (KeptState.swift).
    @inlinable @inline(__always)
    func keep(_ ended: consuming ErasedCompletion, kind: OutcomeKind) {
        assert(ended.kind == kind,
               "RJIterator: internal error: an outcome kept with another case's kind")
        assert(MemoryLayout<ErasedCompletion>.size <= MemoryLayout<ErasedCompletionBytes>.size
               && MemoryLayout<ErasedCompletion>.alignment <= MemoryLayout<ErasedCompletionBytes>.alignment,
               "RJIterator: internal error: KeptState's room for an outcome is too small")
        // The generator's address, without a closure (which would capture `ended`).
        let h = host.takeUnretainedValue()
        assert(h.kept.outcomeKind == .none, "RJIterator: internal error: an outcome kept twice")
        h.kept.outcomeKind = kind
        initializeBytes(&h.kept.outcomeBytes, as: ErasedCompletion.self, with: ended)
    }

    /// The body ended (or an operation completed a generator that never ran) with `outcome`,
    /// not kept yet: keeps it and gives the word back as `completed`. (`kind` is given by the
    /// caller, which has the typed outcome: `Completion.kind`.)
    @inlinable @inline(__always)
    func completed(with outcome: consuming ErasedCompletion, kind: OutcomeKind) {
        keep(outcome, kind: kind)
        with { $0.stateWord.store(.completed, ordering: .releasing) }
    }

    /// The body ended and kept its outcome itself (a delegate, a close on release).
    @inlinable @inline(__always)
    func completedWithKeptOutcome() {
        with { $0.stateWord.store(.completed, ordering: .releasing) }
    }

    /// What the exit signal of a body being closed carries: the value of the `return(_:)` that
    /// closes it, if any. Taken once: a later close (release) carries nothing stale.
    @inlinable @inline(__always)
    func takeExitValue() -> PendingReturn? {
        with { h in
            // The common case, nothing pending, is one test of a byte; a return is moved out
            // (anything else pending is dropped: a close carries no stale error).
            if h.kept.pendingKind == .none { return nil }
            guard h.kept.pendingKind == .returning else { clearPending(); return nil }
            h.kept.pendingKind = .none
            return moveBytes(&h.kept.pendingBytes, as: PendingReturn.self)
        }
    }

    // MARK: Errors a for-in could not throw

    /// Keeps `error` for the running body's next `yield` or its end (the first one, if a second
    /// for-in fails before either). Called by the body itself.
    @inlinable
    func deferError(_ error: any Error) {
        with { h in
            if h.kept.pendingKind == .none { setPending(error: error) }
        }
    }

    /// Whether an error a for-in left waits (for a yield or the body's end).
    @inlinable @inline(__always)
    var hasPendingError: Bool { with { $0.kept.pendingKind == .error } }

    /// The error a for-in left for this point, if any; taken once.
    @inlinable @inline(__always)
    func takePendingError() -> (any Error)? {
        // The common case, nothing, is one test of a byte, inline in every `yield`; an error is
        // moved out of line.
        if with({ $0.kept.pendingKind }) == .none { return nil }
        return takePendingErrorOutOfLine()
    }

    @usableFromInline @inline(never)
    func takePendingErrorOutOfLine() -> (any Error)? {
        with { h in
            guard h.kept.pendingKind == .error else { clearPending(); return nil }
            h.kept.pendingKind = .none
            return moveBytes(&h.kept.pendingBytes, as: (any Error).self)
        }
    }

    // MARK: What waits at the next yield; what release destroys

    /// Keeps `value` for the body's next `yield`, in place of anything pending. (Out of line: a
    /// `return(_:)` is the cold row of `begin`, which every operation inlines.)
    @usableFromInline @inline(never)
    func setPending(_ value: consuming PendingReturn) {
        assert(MemoryLayout<PendingReturn>.size <= MemoryLayout<UInt64>.size
               && MemoryLayout<any Error>.size <= MemoryLayout<UInt64>.size,
               "RJIterator: internal error: KeptState's room for a pending value is too small")
        clearPending()
        let h = host.takeUnretainedValue()
        initializeBytes(&h.kept.pendingBytes, as: PendingReturn.self, with: value)
        h.kept.pendingKind = .returning
    }

    /// Keeps `error` for the body's next `yield` or its end, in place of anything pending. (Not
    /// generic: a generic parameter would open the existential, and the bytes would hold the
    /// concrete error where `takePendingError` reads an `any Error`.)
    @inlinable
    func setPending(error: consuming any Error) {
        clearPending()
        let h = host.takeUnretainedValue()
        initializeBytes(&h.kept.pendingBytes, as: (any Error).self, with: error)
        h.kept.pendingKind = .error
    }

    /// Drops what is pending, if anything.
    @inlinable @inline(__always)
    func clearPending() {
        if with({ $0.kept.pendingKind }) != .none { destroyKept(outcome: false) }
    }

    /// Release of the generator: destroys what `kept` holds, if anything (a test of two bytes
    /// for a generator that returned a trivial value, was closed, or never ran).
    @inlinable @inline(__always)
    func releaseKept() {
        if with({ $0.kept.holdsReferences }) { destroyKept(outcome: true) }
    }

    /// Destroys the pending reference, and the kept outcome if `outcome` says so.
    @usableFromInline @inline(never)
    func destroyKept(outcome: Bool) {
        with { h in
            switch h.kept.pendingKind {
            case .none: break
            case .returning: _ = moveBytes(&h.kept.pendingBytes, as: PendingReturn.self)
            case .error: _ = moveBytes(&h.kept.pendingBytes, as: (any Error).self)
            }
            h.kept.pendingKind = .none
            if outcome, h.kept.outcomeKind.holdsReference {
                _ = moveBytes(&h.kept.outcomeBytes, as: ErasedCompletion.self)
                h.kept.outcomeKind = .none
            }
        }
    }
}
