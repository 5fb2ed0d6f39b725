import CRJContext
import RJLocks

// How a generator runs: the state machine behind `next`, `return` and `throw` (see the
// comment at the top of GeneratorCore.swift for who owns what and how values cross).
extension Generator {
    /// Runs on the coroutine's own stack: the body, from its first line to its end.
    @inlinable
    func runBody() {
        let outcome: Outcome<Return>
        do {
            outcome = .returned(try body(Yielder(channel: self, id: rj_coro_id(coro.unsafelyUnwrapped))))
        } catch let exit as GeneratorExit {
            // The close went through every cleanup: a `return(v)` completes with `v`.
            outcome = exit.outcome(as: Return.self)
        } catch {
            outcome = .threw(error)
        }
        if let resultBox {
            resultBox.assumingMemoryBound(to: Outcome<Return>?.self).initialize(to: outcome)
        } else {
            keepOutcome(ErasedOutcome(outcome))  // closing on release
        }
    }

    @usableFromInline
    enum Operation {
        case next(Input)
        case start          // the first step of a delegation: no input to give
        case throwing(any Error)
        case returning(Return)
        case close          // delegation's close: completes with `.closed`
    }

    /// `next(input)`: the hot path, a suspended generator resumed with a value, without
    /// building an `Operation` (whose payloads, a `Return` among them, cost value-witness
    /// calls to copy); the first `next` (its input is ignored) starts the body without one too.
    @inlinable @inline(__always)
    func resumeWith(_ input: Input) throws -> GeneratorStep<Element, Return> {
        switch acquire() {
        case .suspended: return try resumeHeld(with: input)
        case .created: return try start()
        case .running: throw GeneratorError.alreadyRunning
        case .completed: return try settleCompleted(.next(input))
        }
    }

    /// Resumes the suspended body with `input`; the caller holds `running`, taken by
    /// `acquire` (a layer above that has its own state to write first takes it itself, then
    /// calls this).
    @inlinable @inline(__always)
    func resumeHeld(with input: Input) throws -> GeneratorStep<Element, Return> {
        // The body's slot holds nil (see `suspend`).
        inbox.unsafelyUnwrapped.assumingMemoryBound(to: ResumeSignal<Input>?.self).initialize(to: .value(input))
        return try run(coro.unsafelyUnwrapped)
    }

    /// Every public operation: take the state word, resume or settle, give it back.
    @inlinable
    func perform(_ operation: Operation) throws -> GeneratorStep<Element, Return> {
        switch acquire() {
        case .suspended: return try resumeSuspended(operation)
        case .created: return try startFresh(operation)
        case .running: throw GeneratorError.alreadyRunning
        case .completed: return try settleCompleted(operation)
        }
    }

    @inlinable
    func startFresh(_ operation: Operation) throws -> GeneratorStep<Element, Return> {
        switch operation {
        case .throwing(let error):
            return try complete(.threw(error))
        case .returning(let value):
            return try complete(.returned(value))
        case .close:
            return try complete(.closed)
        case .next, .start:
            return try start()
        }
    }

    /// Makes the coroutine and runs the body to its first `yield` or its end. Called holding
    /// `running`, taken from `created`.
    @inlinable
    func start() throws -> GeneratorStep<Element, Return> {
        guard let coro = rj_coro_create(stackSize, backend, coroutineEntry, Unmanaged.passUnretained(self).toOpaque())
        else {
            let message = String(cString: rj_last_error())
            stateWord.store(.created, ordering: .releasing)
            throw GeneratorError.stackAllocationFailed(message)
        }
        rj_coro_set_owner(coro, Unmanaged.passUnretained(self).toOpaque())
        self.coro = coro
        return try run(coro)
    }

    @inlinable
    func resumeSuspended(_ operation: Operation) throws -> GeneratorStep<Element, Return> {
        let signal: ResumeSignal<Input>
        switch operation {
        case .next(let input): signal = .value(input)
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
            signal = .value(input)
        }
        // The body's slot holds nil (see `suspend`).
        inbox.unsafelyUnwrapped.assumingMemoryBound(to: ResumeSignal<Input>?.self).initialize(to: signal)
        return try run(coro.unsafelyUnwrapped)
    }

    /// Switches into the body and turns what it left into a step. Called holding `running`.
    @inlinable @inline(__always)
    func run(_ coro: OpaquePointer) throws -> GeneratorStep<Element, Return> {
        var value: Element? = nil
        var result: Outcome<Return>? = nil
        // The floating-point control state belongs to the thread (the inline switch does not
        // carry it, see docs/context-switching.md): debug builds check that the body gave it
        // back as it found it. (`assert` runs its closure in debug builds only.)
        var fpuBefore: UInt64 = 0
        assert({ fpuBefore = rj_fpu_control_state(); return true }())
        let finished = withUnsafeMutablePointer(to: &value) { valueSlot in
            withUnsafeMutablePointer(to: &result) { resultSlot in
                outbox = UnsafeMutableRawPointer(valueSlot)
                resultBox = UnsafeMutableRawPointer(resultSlot)
                return rj_coro_resume_inline(coro)
            }
        }
        assert({
            if rj_fpu_control_state() != fpuBefore { fpuStateChanged() }
            return true
        }())
        if finished == 0 {
            stateWord.store(.suspended, ordering: .releasing)
            return .yielded(value.take().unsafelyUnwrapped)
        }
        rj_coro_destroy(coro)
        self.coro = nil
        return try complete(result.take().unsafelyUnwrapped)
    }

    @inlinable
    func complete(_ outcome: Outcome<Return>) throws -> GeneratorStep<Element, Return> {
        keepOutcome(ErasedOutcome(outcome))
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
    func settleCompleted(_ operation: Operation) throws -> GeneratorStep<Element, Return> {
        switch operation {
        case .returning(let value): return .returned(value)
        case .throwing(let error): throw error
        case .next, .start, .close: break
        }
        if let value = keptReturn(as: Return.self) { return .returned(value) }
        if case .threw(let error) = erasedOutcome { throw error }
        throw GeneratorError.closed
    }

    /// One step of a delegation (`yieldAll`): `nil` when the operation completed this
    /// generator by closing it, which the delegating body turns into its own exit.
    @inlinable
    func delegatedStep(_ operation: Operation) throws -> GeneratorStep<Element, Return>? {
        do {
            return try perform(operation)
        } catch GeneratorError.closed {
            if case .closed = erasedOutcome { return nil }
            throw GeneratorError.closed
        }
    }

    /// Closes this generator for a delegating generator that is itself being closed with
    /// `exit`: a `return(v)` is forwarded as `return(v)` when the types agree (ES6 `yield*`),
    /// anything else as a close.
    @inlinable
    func closeForDelegation(_ exit: GeneratorExit) throws -> GeneratorStep<Element, Return>? {
        if let pending = exit.pendingReturn, pending.type == Return.self {
            return try delegatedStep(.returning(pending.value as! Return))
        }
        return try delegatedStep(.close)
    }
}
