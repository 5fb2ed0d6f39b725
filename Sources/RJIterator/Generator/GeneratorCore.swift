import CRJContext
import Synchronization

// The machinery under `Generator` and `RJIterator`: one object per generator that owns the
// coroutine, carries values across each switch and keeps the state machine.
//
// Who owns what
// - `Generator` (the public handle) owns its `GeneratorCore` strongly; nothing else does.
// - The coroutine's stack refers to the core only `unowned(unsafe)` (the `Yielder`, the
//   entry point), so a suspended body never keeps its own generator alive: releasing the
//   handle runs `Generator.deinit`, which closes the body and gives its stack back.
// - The C coroutine records the core as its owner (unretained), so `rj_yield` and the
//   misuse checks can find which generator is running on this thread.
//
// Threads
// - The state word is the only thing two threads may touch at once. A resume moves it
//   `created`/`suspended` -> `running` with an acquiring compare-exchange and back with a
//   releasing store, so everything the body wrote is visible to the next resumer, whichever
//   thread it is on. All other fields are touched only by the thread that holds `running`,
//   hence `@exclusivity(unchecked)`: the dynamic check would cost more than the switch.

/// Thrown from `yield` into a body that is being closed (`return(_:)`, release). Private so
/// that only a catch-all `catch` can swallow it.
@usableFromInline
struct GeneratorExit: Error {
    @usableFromInline init() {}
}

/// How a suspended body is resumed; read by `yield` right after the switch back in.
@usableFromInline
enum ResumeSignal<Input> {
    case value(Input)
    case error(any Error)
    case close
}

/// What a finished body left behind.
@usableFromInline
enum Outcome<Return> {
    case returned(Return)
    case threw(any Error)
    case closed
}

/// Which layer owns a coroutine, as recorded in the C core (`rj_coro_tag`).
@usableFromInline
enum CoroutineTag {
    @usableFromInline static let generator: Int32 = 1
    @usableFromInline static let seedIterator: Int32 = 2
}

@usableFromInline
enum StateWord {
    @usableFromInline static var created: UInt8 { 0 }
    @usableFromInline static var suspended: UInt8 { 1 }
    @usableFromInline static var running: UInt8 { 2 }
    @usableFromInline static var completed: UInt8 { 3 }
}

/// Non-generic root, so that the C entry point reaches the typed body with one virtual call.
@usableFromInline
class CoroutineHost {
    @usableFromInline @exclusivity(unchecked) final var coro: OpaquePointer?

    @usableFromInline init() {}

    /// Runs on the coroutine's own stack: the body, from its first line to its end.
    func coroutineMain() {
        preconditionFailure("RJIterator: internal error: coroutineMain not overridden")
    }
}

/// The C entry point of every coroutine. `arg` is the unretained host: the stack must not
/// hold a strong reference, or a suspended generator could never be freed.
@usableFromInline
let coroutineEntry: rj_coro_entry = { arg in
    Unmanaged<CoroutineHost>.fromOpaque(arg!)._withUnsafeGuaranteedRef { $0.coroutineMain() }
}

/// The part of a generator a body's `Yielder` needs: the slots values cross in.
@usableFromInline
class YieldChannel<Element, Input>: CoroutineHost {
    @usableFromInline @exclusivity(unchecked) final var signal: ResumeSignal<Input> = .close
    @usableFromInline @exclusivity(unchecked) final var yielded: Element?

    @usableFromInline override init() {}

    /// Suspends the running body with `value`; returns how the body was resumed.
    @inlinable @inline(__always)
    final func suspend(yielding value: Element) -> ResumeSignal<Input> {
        // Compare pointers before touching `self`: an escaped Yielder may outlive its generator.
        let me = Unmanaged.passUnretained(self).toOpaque()
        guard let current = rj_coro_current(), rj_coro_owner(current) == me else {
            preconditionFailure(
                "RJIterator: yield called outside its generator's body. A Yielder is valid only "
                    + "inside the body it was passed to, while that body runs; do not store it or "
                    + "use it from another generator or thread")
        }
        yielded = value
        rj_coro_suspend(current)
        return signal
    }

    @inlinable @inline(__always)
    final func yield(_ value: Element) throws -> Input {
        switch suspend(yielding: value) {
        case .value(let input): return input
        case .error(let error): throw error
        case .close: throw GeneratorExit()
        }
    }
}

@usableFromInline
final class GeneratorCore<Element, Input, Return>: YieldChannel<Element, Input> {
    @usableFromInline let body: (Yielder<Element, Input>) throws -> Return
    @usableFromInline let stackSize: Int
    @usableFromInline let tag: Int32
    /// The backend is fixed when the generator is made, not when it first runs.
    @usableFromInline let backend: rj_backend
    @usableFromInline let stateWord = Atomic<UInt8>(0)
    @usableFromInline @exclusivity(unchecked) var outcome: Outcome<Return>?
    /// Set by the seed API's handle: on release, drop a suspended stack without unwinding
    /// (its `rj_yield` cannot throw the exit signal).
    var abandonOnRelease = false

    @usableFromInline
    init(stackSize: Int, tag: Int32, body: @escaping (Yielder<Element, Input>) throws -> Return) {
        self.body = body
        self.stackSize = stackSize
        self.tag = tag
        self.backend = rj_default_backend()
    }

    override func coroutineMain() {
        let yielder = Yielder(channel: self)
        do {
            outcome = .returned(try body(yielder))
        } catch is GeneratorExit {
            outcome = .closed
        } catch {
            outcome = .threw(error)
        }
    }

    @usableFromInline
    var state: GeneratorState {
        switch stateWord.load(ordering: .acquiring) {
        case StateWord.created: return .created
        case StateWord.suspended: return .suspended
        case StateWord.running: return .running
        default: return .completed
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
                return try report(outcome!)
            default:
                let (started, _) = stateWord.compareExchange(
                    expected: StateWord.created, desired: StateWord.running, ordering: .acquiringAndReleasing)
                if started { return try startFresh(operation) }
                // Another thread moved it meanwhile; look again.
            }
        }
    }

    @usableFromInline
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
        return try run(coro!, pendingReturn: pendingReturn)
    }

    /// Switches into the body and turns what it left into a step. Called holding `running`.
    @inlinable @inline(__always)
    func run(_ coro: OpaquePointer, pendingReturn: Return?) throws -> GeneratorStep<Element, Return> {
        rj_coro_resume(coro)
        if rj_coro_is_finished(coro) == 0 {
            let value = yielded.take()!
            stateWord.store(StateWord.suspended, ordering: .releasing)
            return .yielded(value)
        }
        return try finish(coro, pendingReturn: pendingReturn)
    }

    @usableFromInline
    func finish(_ coro: OpaquePointer, pendingReturn: Return?) throws -> GeneratorStep<Element, Return> {
        rj_coro_destroy(coro)
        self.coro = nil
        var result = outcome!
        if case .closed = result, let value = pendingReturn {
            result = .returned(value)
        }
        return try complete(result)
    }

    @usableFromInline
    func complete(_ result: Outcome<Return>) throws -> GeneratorStep<Element, Return> {
        outcome = result
        stateWord.store(StateWord.completed, ordering: .releasing)
        return try report(result)
    }

    @usableFromInline
    func report(_ result: Outcome<Return>) throws -> GeneratorStep<Element, Return> {
        switch result {
        case .returned(let value): return .returned(value)
        case .threw(let error): throw error
        case .closed: throw GeneratorError.closed
        }
    }

    /// Called by the handle's deinit. Nobody else holds the generator, so it cannot be running.
    @usableFromInline
    func closeOnRelease() {
        guard stateWord.load(ordering: .acquiring) == StateWord.suspended, let coro else { return }
        stateWord.store(StateWord.running, ordering: .relaxed)
        if abandonOnRelease {
            yielded = nil
            rj_coro_destroy(coro)
            self.coro = nil
            stateWord.store(StateWord.completed, ordering: .releasing)
            return
        }
        signal = .close
        rj_coro_resume(coro)
        if rj_coro_is_finished(coro) == 0 {
            // The body caught the exit signal and yielded again. Python calls this a
            // RuntimeError; we cannot throw from deinit, so say it and drop the stack.
            rj_report("RJIterator: generator ignored close")
            yielded = nil
        } else if case .threw(let error)? = outcome {
            rj_report("RJIterator: generator body threw \(error) while being closed on release; the error is dropped")
        }
        rj_coro_destroy(coro)
        self.coro = nil
        stateWord.store(StateWord.completed, ordering: .releasing)
    }
}
