import CRJContext
import Synchronization

// How a generator runs: the state machine behind `next`, `return` and `throw` (see the
// comment at the top of GeneratorCore.swift for who owns what and how values cross).
extension Generator {
    /// Runs on the coroutine's own stack: the body, from its first line to its end.
    @inlinable
    func runBody() {
        let outcome: Outcome<Return>
        do {
            outcome = .returned(try body(Yielder(channel: self)))
        } catch is GeneratorExit {
            outcome = .closed
        } catch {
            outcome = .threw(error)
        }
        if let resultBox {
            resultBox.assumingMemoryBound(to: Outcome<Return>?.self).initialize(to: outcome)
        } else {
            erasedOutcome = ErasedOutcome(outcome)  // closing on release
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

    /// Every public operation: take the state word, resume or settle, give it back.
    @inlinable
    func perform(_ operation: Operation) throws -> GeneratorStep<Element, Return> {
        while true {
            let (took, seen) = stateWord.compareExchange(
                expected: StateWord.suspended, desired: StateWord.running, ordering: .acquiringAndReleasing)
            if took { return try resumeSuspended(operation) }
            switch seen {
            case StateWord.running:
                throw GeneratorError.alreadyRunning
            case StateWord.completed:
                return try reportAgain()
            default:
                let (started, _) = stateWord.compareExchange(
                    expected: StateWord.created, desired: StateWord.running, ordering: .acquiringAndReleasing)
                if started { return try startFresh(operation) }
                // Another thread moved it meanwhile; look again.
            }
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
            break
        }
        guard let coro = rj_coro_create(stackSize, backend, coroutineEntry, Unmanaged.passUnretained(self).toOpaque())
        else {
            let message = String(cString: rj_last_error())
            stateWord.store(StateWord.created, ordering: .releasing)
            throw GeneratorError.stackAllocationFailed(message)
        }
        rj_coro_set_owner(coro, Unmanaged.passUnretained(self).toOpaque(), tag)
        self.coro = coro
        return try run(coro, pendingReturn: nil)
    }

    @inlinable
    func resumeSuspended(_ operation: Operation) throws -> GeneratorStep<Element, Return> {
        let signal: ResumeSignal<Input>
        var pendingReturn: Return?
        switch operation {
        case .next(let input): signal = .value(input)
        case .throwing(let error): signal = .error(error)
        case .returning(let value):
            pendingReturn = value
            signal = .close
        case .close: signal = .close
        case .start:
            // A delegation to a generator that someone already started: only a Void input
            // can be made up.
            guard let input = () as? Input else {
                stateWord.store(StateWord.suspended, ordering: .releasing)
                throw GeneratorError.delegateAlreadyStarted
            }
            signal = .value(input)
        }
        // The body's slot holds nil (see `suspend`).
        inbox.unsafelyUnwrapped.assumingMemoryBound(to: ResumeSignal<Input>?.self).initialize(to: signal)
        return try run(coro.unsafelyUnwrapped, pendingReturn: pendingReturn)
    }

    /// Switches into the body and turns what it left into a step. Called holding `running`.
    @inlinable @inline(__always)
    func run(_ coro: OpaquePointer, pendingReturn: Return?) throws -> GeneratorStep<Element, Return> {
        var value: Element? = nil
        var result: Outcome<Return>? = nil
        let finished = withUnsafeMutablePointer(to: &value) { valueSlot in
            withUnsafeMutablePointer(to: &result) { resultSlot in
                outbox = UnsafeMutableRawPointer(valueSlot)
                resultBox = UnsafeMutableRawPointer(resultSlot)
                return rj_coro_resume(coro)
            }
        }
        if finished == 0 {
            stateWord.store(StateWord.suspended, ordering: .releasing)
            return .yielded(value.take().unsafelyUnwrapped)
        }
        rj_coro_destroy(coro)
        self.coro = nil
        var outcome = result.take().unsafelyUnwrapped
        if case .closed = outcome, let pendingReturn {
            outcome = .returned(pendingReturn)
        }
        return try complete(outcome)
    }

    @inlinable
    func complete(_ outcome: Outcome<Return>) throws -> GeneratorStep<Element, Return> {
        erasedOutcome = ErasedOutcome(outcome)
        stateWord.store(StateWord.completed, ordering: .releasing)
        switch outcome {
        case .returned(let value): return .returned(value)
        case .threw(let error): throw error
        case .closed: throw GeneratorError.closed
        }
    }

    /// A completed generator reports the outcome it kept.
    @inlinable
    func reportAgain() throws -> GeneratorStep<Element, Return> {
        switch erasedOutcome.unsafelyUnwrapped {
        case .returned(let value): return .returned(value as! Return)
        case .threw(let error): throw error
        case .closed: throw GeneratorError.closed
        }
    }
}
