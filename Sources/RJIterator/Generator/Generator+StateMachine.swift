import CRJContext
import RJLocks

// How a generator runs: the state machine behind `next`, `return` and `throw`, and the two
// halves of a switch, `switchIntoBody` (the resumer's) and `suspend` (the body's). See the
// comment at the top of GeneratorCore.swift for who owns what and how values cross.
//
// Every operation starts with `acquire`, which takes the state word to `running` from the
// state the generator is in; the step that follows is named after that state:
//
//   created    -> stepCreated      (`startBody` makes the coroutine and runs the body)
//   suspended  -> stepSuspended    (`resumeSuspended(with:)` for the hot `next`)
//   running    -> GeneratorError.alreadyRunning
//   completed  -> stepCompleted    (reports the kept outcome)
//
// A body suspended in `yieldAll` is resumed differently: the generator it delegates to is
// driven directly (Generator+Delegation.swift).
extension _RJCoroutineHost {
    /// Suspends the running body with `value`; returns how the body was resumed. Called on the
    /// body's own stack, by `Yielder`, `rj_yield` and `rj_await`, with `current`, the running
    /// coroutine, which the caller has checked is this generator's.
    ///
    /// Both hand-offs go through the resumer's frame, which is blocked in its resume while the
    /// body runs: the value into its `outbox`, the next signal out of its `inbox`. Through
    /// `rj_coro_in_resumer`: a shared-stack resumer's frames may be copied out meanwhile.
    @inlinable @inline(__always)
    final func suspend<Element, Input>(
        _ current: OpaquePointer, yielding value: Element, resumedWith _: Input.Type
    ) -> ResumeSignal<Input> {
        // No outbox while closing on release: a body that yields then is abandoned anyway.
        // The slot holds nil: initialise over it rather than assign, which would destroy nil first.
        if let outbox {
            rj_coro_in_resumer(current, outbox).assumingMemoryBound(to: Element?.self).initialize(to: value)
        }
        rj_coro_suspend_inline(current)
        if closingOnRelease { return .close }
        return rj_coro_in_resumer(current, inbox.unsafelyUnwrapped)
            .assumingMemoryBound(to: ResumeSignal<Input>?.self).pointee.take().unsafelyUnwrapped
    }
}

extension Generator {
    /// Runs on the coroutine's own stack: the body, from its first line to its end.
    @inlinable
    func runBody() {
        let yielder = Yielder<Element, Input>(host: self, id: rj_coro_id(coro.unsafelyUnwrapped))
        let outcome: Completion<Return>
        do {
            if releasePolicy == .abandon {
                // A body dropped without unwinding never ends: the generator keeps its body, and
                // frees it when it is freed.
                outcome = .returned(try body(yielder))
            } else {
                // The body moves to this frame (a swap: no reference counting), and is released
                // when it ends, with what it captured: a completed generator holds none of it.
                let running = body
                body = Self.bodyThatEnded
                outcome = .returned(try running(yielder))
            }
        } catch let exit as GeneratorExit {
            // The close went through every cleanup: a `return(v)` completes with `v`.
            outcome = exit.completion(as: Return.self)
        } catch {
            outcome = .threw(error)
        }
        if let completionBox {
            rj_coro_in_resumer(coro.unsafelyUnwrapped, completionBox)
                .assumingMemoryBound(to: Completion<Return>?.self).initialize(to: outcome)
        } else {
            // Closing on release, or driven as a delegate: nobody typed is waiting for it.
            keepCompletion(ErasedCompletion(outcome))
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

    @usableFromInline
    enum Operation {
        case next(Input)
        case start          // the first step of a delegation: no input to give
        case throwing(any Error)
        case returning(Return)
        case close          // `close()` and delegation's close: completes with `.closed`
    }

    /// `next(input)`: the hot path, without building an `Operation` (whose payloads, a
    /// `Return` among them, cost value-witness calls to copy).
    @inlinable @inline(__always)
    func nextStep(_ input: Input) throws -> GeneratorStep<Element, Return> {
        switch acquire() {
        case .suspended: return try resumeSuspended(with: input)
        case .created: return try startBody()
        case .running: throw GeneratorError.alreadyRunning
        case .completed: return try stepCompleted(.next(input))
        }
    }

    /// Resumes the suspended body with `input`; the caller holds `running`, taken by
    /// `acquire` (a layer above that has its own state to write first takes it itself, then
    /// calls this). A body suspended in `yieldAll` stays where it is: its delegate is resumed.
    @inlinable @inline(__always)
    func resumeSuspended(with input: Input) throws -> GeneratorStep<Element, Return> {
        if delegate != nil { return try resumeDelegate(with: input) }
        return try switchIntoBody(coro.unsafelyUnwrapped, signal: .value(input))
    }

    /// Every public operation: take the state word, then the step for the state found.
    @inlinable
    func step(_ operation: Operation) throws -> GeneratorStep<Element, Return> {
        switch acquire() {
        case .suspended: return try stepSuspended(operation)
        case .created: return try stepCreated(operation)
        case .running: throw GeneratorError.alreadyRunning
        case .completed: return try stepCompleted(operation)
        }
    }

    /// An operation on a generator that never ran: `next` starts it; `throw`, `return` and
    /// `close` complete it without running the body. Called holding `running`.
    @inlinable
    func stepCreated(_ operation: Operation, keepingRunning: Bool = false) throws -> GeneratorStep<Element, Return> {
        switch operation {
        case .throwing(let error):
            releaseBody()
            return try finish(.threw(error))
        case .returning(let value):
            releaseBody()
            return try finish(.returned(value))
        case .close:
            releaseBody()
            return try finish(.closed)
        case .next, .start:
            return try startBody(keepingRunning: keepingRunning)
        }
    }

    /// Makes the coroutine and runs the body to its first `yield` or its end. Called holding
    /// `running`, taken from `created`.
    @inlinable
    func startBody(keepingRunning: Bool = false) throws -> GeneratorStep<Element, Return> {
        let made = stackMode == RJ_STACK_SHARED
            ? rj_coro_create_shared(coroutineEntry, Unmanaged.passUnretained(self).toOpaque())
            : rj_coro_create(stackSize, backend, coroutineEntry, Unmanaged.passUnretained(self).toOpaque())
        guard let coro = made else {
            let message = String(cString: rj_last_error())
            stateWord.store(.created, ordering: .releasing)
            throw GeneratorError.stackAllocationFailed(message)
        }
        rj_coro_set_owner(coro, Unmanaged.passUnretained(self).toOpaque())
        self.coro = coro
        return try switchIntoBody(coro, signal: nil, keepingRunning: keepingRunning)
    }

    /// An operation on a suspended generator: its `yield` returns the input, throws the error,
    /// or throws the exit signal. Called holding `running`.
    @inlinable
    func stepSuspended(_ operation: Operation, keepingRunning: Bool = false) throws -> GeneratorStep<Element, Return> {
        let signal: ResumeSignal<Input>
        switch operation {
        case .next(let input):
            if !keepingRunning { return try resumeSuspended(with: input) }
            signal = .value(input)
        case .throwing(let error): signal = .error(error)
        case .returning(let value):
            // The body's `yield` throws the exit signal carrying `value` (see `takeExit`).
            pendingReturn = PendingReturn(value, type: Return.self)
            signal = .close
        case .close:
            pendingReturn = nil
            signal = .close
        case .start:
            // A delegation to a generator that someone already started: only a Void input
            // can be made up.
            guard let input = () as? Input else {
                stateWord.store(.suspended, ordering: .releasing)
                throw GeneratorError.delegateAlreadyStarted
            }
            if !keepingRunning { return try resumeSuspended(with: input) }
            signal = .value(input)
        }
        return try switchIntoBody(coro.unsafelyUnwrapped, signal: signal, keepingRunning: keepingRunning)
    }

    /// Switches into the body with `signal` (what its pending `yield` gets; nil for its first
    /// run) and turns what it left into a step. Called holding `running`; gives it back
    /// (`suspended`) when the body yields, unless `keepingRunning` (a delegate stays `running`
    /// for the generator that owns it), and `completed` when it ends.
    @inlinable @inline(__always)
    func switchIntoBody(
        _ coro: OpaquePointer, signal: consuming ResumeSignal<Input>?, keepingRunning: Bool = false
    ) throws -> GeneratorStep<Element, Return> {
        var incoming = signal
        var value: Element? = nil
        var result: Completion<Return>? = nil
        // The floating-point control state belongs to the thread (the inline switch does not
        // carry it, see docs/context-switching.md): debug builds check that the body gave it
        // back as it found it. (`assert` runs its closure in debug builds only.)
        var fpuBefore: UInt64 = 0
        assert({ fpuBefore = rj_fpu_control_state(); return true }())
        let finished = withUnsafeMutablePointer(to: &incoming) { signalSlot in
            withUnsafeMutablePointer(to: &value) { valueSlot in
                withUnsafeMutablePointer(to: &result) { resultSlot in
                    inbox = UnsafeMutableRawPointer(signalSlot)
                    outbox = UnsafeMutableRawPointer(valueSlot)
                    completionBox = UnsafeMutableRawPointer(resultSlot)
                    return rj_coro_resume_inline(coro)
                }
            }
        }
        assert({
            if rj_fpu_control_state() != fpuBefore { fpuStateChanged() }
            return true
        }())
        if finished == 0 {
            if !keepingRunning { stateWord.store(.suspended, ordering: .releasing) }
            return .yielded(value.take().unsafelyUnwrapped)
        }
        rj_coro_destroy(coro)
        self.coro = nil
        return try finish(result.take().unsafelyUnwrapped)
    }

    /// Keeps the outcome of a body that ended (or of an operation that completed a generator
    /// that never ran), gives the state word back as `completed`, and reports the outcome.
    @inlinable
    func finish(_ outcome: Completion<Return>) throws -> GeneratorStep<Element, Return> {
        keepCompletion(ErasedCompletion(outcome))
        stateWord.store(.completed, ordering: .releasing)
        switch outcome {
        case .returned(let value): return .returned(value)
        case .threw(let error): throw error
        case .closed: throw GeneratorError.closed
        }
    }

    /// An operation on a completed generator. `next` (and a delegation's start or close)
    /// reports the outcome it kept; `return(v)` gives `.returned(v)` and `throw(e)` throws `e`,
    /// as in ES6, without changing the kept outcome.
    @inlinable
    func stepCompleted(_ operation: Operation) throws -> GeneratorStep<Element, Return> {
        switch operation {
        case .returning(let value): return .returned(value)
        case .throwing(let error): throw error
        case .next, .start, .close: break
        }
        if let value = keptReturn(as: Return.self) { return .returned(value) }
        if case .threw(let error) = keptCompletion { throw error }
        throw GeneratorError.closed
    }
}
