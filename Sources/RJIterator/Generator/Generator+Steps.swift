import CRJContext
import RJLocks

// How a generator's operations are carried out: each asks the state machine for an action
// (GeneratorStateMachine.swift) and does what it says, switching into the body through the
// hand-off (Handoff.swift). The body's own side, from its first line to its end, is `runBody`.
//
//   action          carried out by
//   start           startBody: make the coroutine, switch in with no signal
//   resume(signal)  switchIntoBody (or, for a `next` of a body suspended in `yieldAll`,
//                   resumeChain: the deepest delegate, Generator+Delegation.swift)
//   complete(o)     complete: a generator that never ran completes without running
//   reportOutcome   reportOutcome: what the completed generator kept
//   answer(v)       .returned(v)
//   fail(e)         throw e

extension Generator {
    /// Every operation: ask the state machine, carry out what it says.
    @inlinable @inline(__always)
    func perform(_ operation: GeneratorOperation<Input, Return>) throws -> GeneratorStep<Element, Return> {
        try carryOut(machine.begin(operation))
    }

    /// `perform` kept out of line, for a caller whose operation is not known where it is
    /// compiled (the async generator's requests): the hot `next` calls `perform(.next(...))`,
    /// which folds to its one path; the rest come here, one call, specialised all the same.
    @inlinable @inline(never)
    func performOutOfLine(_ operation: GeneratorOperation<Input, Return>) throws -> GeneratorStep<Element, Return> {
        try perform(operation)
    }

    /// Carries out `action`. `heldByDelegator`: this generator is a delegate run by the body that
    /// owns it, which keeps it `running` when it yields (Generator+Delegation.swift).
    @inlinable @inline(__always)
    func carryOut(_ action: consuming GeneratorAction<Input, Return>, heldByDelegator: Bool = false) throws -> GeneratorStep<Element, Return> {
        switch consume action {
        case .resume(let signal):
            return try resume(signal, heldByDelegator: heldByDelegator)
        case .start:
            return try startBody(heldByDelegator: heldByDelegator)
        case .complete(let outcome):
            releaseBody()
            return try complete(outcome)
        case .reportOutcome:
            return try reportOutcome()
        case .answer(let value):
            return .returned(value)
        case .fail(let error):
            throw error
        }
    }

    /// Resumes the suspended body with `signal`. A body suspended in `yieldAll` stays where it
    /// is for a `next`: its deepest delegate is resumed. Called holding `running`.
    @inlinable @inline(__always)
    func resume(_ signal: ResumeSignal<Input>, heldByDelegator: Bool = false) throws -> GeneratorStep<Element, Return> {
        if !heldByDelegator, case .value(let input) = signal, delegate != nil { return try resumeChain(with: input) }
        return try switchIntoBody(coro.unsafelyUnwrapped, signal: signal, heldByDelegator: heldByDelegator)
    }

    /// Makes the coroutine and runs the body to its first `yield` or its end. Called holding
    /// `running`, taken from `created`.
    @inlinable
    func startBody(heldByDelegator: Bool = false) throws -> GeneratorStep<Element, Return> {
        guard let coro = makeCoroutine(stackSize: stackSize, backend: backend, shared: stackMode == RJ_STACK_SHARED) else {
            let message = String(cString: rj_last_error())
            machine.giveBack(Acquisition.created)
            throw GeneratorError.stackAllocationFailed(message)
        }
        return try switchIntoBody(coro, signal: nil, heldByDelegator: heldByDelegator)
    }

    /// Switches into the body with `signal` (nil for its first run) and turns what it left into a
    /// step, holding `running` (given back `suspended` unless `heldByDelegator`, or `completed`).
    /// The three slots are uninitialised memory of this frame (nothing to destroy, no stack
    /// protector): the signal is moved out by the body, and exactly one of the others is filled.
    @inlinable @inline(__always)
    func switchIntoBody(
        _ coro: OpaquePointer, signal: consuming ResumeSignal<Input>?, heldByDelegator: Bool = false
    ) throws -> GeneratorStep<Element, Return> {
        var incoming = consume signal
        return try _withUnprotectedUnsafeTemporaryAllocation(of: ResumeSignal<Input>.self, capacity: 1) { signalSlot in
            try _withUnprotectedUnsafeTemporaryAllocation(of: Element.self, capacity: 1) { valueSlot in
                try _withUnprotectedUnsafeTemporaryAllocation(of: Completion<Return>.self, capacity: 1) { resultSlot in
                    var inbox: UnsafeMutableRawPointer? = nil
                    // A close may go through bodies adopted on this coroutine, leaving exits in
                    // their levels (Adoption.swift); once the body yields, they are spent.
                    var closing = false
                    if case .close? = incoming { closing = true }
                    if let signal = incoming.take() {
                        signalSlot.baseAddress.unsafelyUnwrapped.initialize(to: signal)
                        inbox = UnsafeMutableRawPointer(signalSlot.baseAddress.unsafelyUnwrapped)
                    }
                    let ended = switchIn(coro, inbox: inbox, outbox: UnsafeMutableRawPointer(valueSlot.baseAddress.unsafelyUnwrapped),
                                         completionBox: UnsafeMutableRawPointer(resultSlot.baseAddress.unsafelyUnwrapped))
                    if !ended {
                        if closing { spendRoutedExits() }
                        machine.bodyYielded(heldByDelegator: heldByDelegator)
                        return .yielded(valueSlot.baseAddress.unsafelyUnwrapped.move())
                    }
                    return try complete(resultSlot.baseAddress.unsafelyUnwrapped.move())
                }
            }
        }
    }

    /// Keeps the outcome of a body that ended (or of an operation that completed a generator
    /// that never ran), gives the state word back as `completed`, and reports the outcome.
    @inlinable
    func complete(_ outcome: Completion<Return>) throws -> GeneratorStep<Element, Return> {
        machine.completed(with: ErasedCompletion(outcome), kind: outcome.kind)
        switch outcome {
        case .returned(let value): return .returned(value)
        case .threw(let error): throw error
        case .closed: throw GeneratorError.closed
        }
    }

    /// What a completed generator reports to `next` (and to a delegation's start or close):
    /// its return value, its error again, or `GeneratorError.closed`.
    @inlinable
    func reportOutcome() throws -> GeneratorStep<Element, Return> {
        if let value = machine.keptReturn(as: Return.self) { return .returned(value) }
        if case .threw(let error) = machine.outcome { throw error }
        throw GeneratorError.closed
    }

    // MARK: The body's side

    /// Runs on the coroutine's own stack: the body, from its first line to its end.
    @inlinable
    func runBody() {
        let coro = coro.unsafelyUnwrapped
        handBack(runToEnd(Yielder<Element, Input>(id: rj_coro_id(coro), site: record.site), on: coro))
    }

    /// Runs the body to its end on `current`, its own coroutine (`runBody`) or its adopter's
    /// (Adoption.swift), whose host is read from it afterwards. Returns how it ended.
    @inlinable @inline(__always)
    func runToEnd(_ yielder: Yielder<Element, Input>, on current: OpaquePointer) -> Completion<Return> {
        let ended: Completion<Return>
        do {
            if releasePolicy == .abandon {
                // A body dropped without unwinding never ends: the generator keeps its body, and
                // frees it when it is freed.
                ended = .returned(try body(yielder))
            } else {
                // The body moves to this frame (a swap: no reference counting), and is released
                // when it ends, with what it captured: a completed generator holds none of it.
                let running = body
                body = Self.bodyThatEnded
                ended = .returned(try running(yielder))
            }
        } catch {
            // A close that went through every cleanup: a `return(v)` completes with `v`. The
            // plain close's signal is known by identity (no cast); any other error is cast.
            if GeneratorExit.isBoxedClose(error) {
                ended = .closed
            } else if let exit = error as? GeneratorExit {
                ended = exit.completion(as: Return.self)
            } else {
                ended = .threw(error)
            }
        }
        // A for-in's error that no yield took is how the body ended (Generator+Sequence.swift).
        if let error = yielder.host(on: current)._withUnsafeGuaranteedRef({ $0.machine.takePendingError() }) { return .threw(error) }
        return ended
    }

    /// The body's last act, on its own stack: hands how it ended to the resumer's local, or keeps
    /// it when nobody typed waits (closing on release, driven as a delegate).
    @inlinable @inline(__always)
    func handBack(_ outcome: consuming Completion<Return>) {
        if let completionBox {
            rj_coro_in_resumer(coro.unsafelyUnwrapped, completionBox)
                .assumingMemoryBound(to: Completion<Return>.self).initialize(to: outcome)
        } else {
            let kind = outcome.kind
            machine.keep(ErasedCompletion(outcome), kind: kind)
        }
    }

    /// What a generator holds in place of a body that has ended or will never run: a closure
    /// that captures nothing.
    @inlinable
    static var bodyThatEnded: (Yielder<Element, Input>) throws -> Return {
        { _ in fatalError("RJIterator: internal error: a completed generator's body was run") }
    }

    /// Lets go of a body that will never run, and of what it captured.
    @inlinable
    func releaseBody() {
        body = Self.bodyThatEnded
    }
}

extension Generator {
    /// What a completed generator answers `operation` with (the machine's completed row).
    @inlinable
    func completedOutcome(for operation: GeneratorOperation<Input, Return>) throws -> Return {
        switch machine.completedAction(operation) {
        case .answer(let value): return value
        case .fail(let error): throw error
        default:
            if let value = machine.keptReturn(as: Return.self) { return value }
            if case .threw(let error) = machine.outcome { throw error }
            throw GeneratorError.closed
        }
    }
}
