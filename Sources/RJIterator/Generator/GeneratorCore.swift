import CRJContext
import Synchronization

// The machinery under `Generator` and `RJIterator`: one object per generator that owns the
// coroutine, carries values across each switch and keeps the state machine.
//
// Who owns what
// - `Generator` (the public handle) owns its `GeneratorCore` strongly; nothing else does.
// - The coroutine's stack refers to the core only unretained (the `Yielder`, the entry
//   point), so a suspended body never keeps its own generator alive: releasing the handle
//   runs `Generator.deinit`, which closes the body and gives its stack back.
// - The C coroutine records the core as its owner (unretained), so `rj_yield` and the
//   misuse checks can find which generator is running on this thread.
//
// How values cross a switch
// - Nothing typed is stored in the objects. A yielded value is written by the body into a
//   local variable of the resumer's frame (`outbox`), the resume signal by the resumer into a
//   local of the body's suspended frame (`inbox`), the body's outcome into another local of
//   the resumer (`resultBox`). Each pointer is valid exactly while the frame it points into
//   is blocked in the switch. The objects then hold no field of a generic type, so creating
//   and destroying a generator needs no generic type metadata at run time (looking it up
//   cost several hundred nanoseconds per generator).
// - The outcome of a completed generator is kept type-erased (`ErasedOutcome`) for the calls
//   that report it again.
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

/// A completed generator's outcome, kept without its static type.
@usableFromInline
enum ErasedOutcome {
    case returned(Any)
    case threw(any Error)
    case closed
}

/// Which layer owns a coroutine, as recorded in the C core (`rj_coro_tag`).
@usableFromInline
enum CoroutineTag {
    @usableFromInline static var generator: Int32 { 1 }
    @usableFromInline static var seedIterator: Int32 { 2 }
    @usableFromInline static var asyncTask: Int32 { 3 }
}

@usableFromInline
enum StateWord {
    @usableFromInline static var created: UInt8 { 0 }
    @usableFromInline static var suspended: UInt8 { 1 }
    @usableFromInline static var running: UInt8 { 2 }
    @usableFromInline static var completed: UInt8 { 3 }
}

/// The non-generic part of every generator: coroutine, state, hand-off pointers.
///
/// `main` is set by the typed subclass to a closure that captures nothing: in code
/// specialised for concrete types it is a plain function pointer, so starting a body costs
/// no allocation and no metadata lookup.
@usableFromInline
class CoroutineHost {
    @usableFromInline @exclusivity(unchecked) final var coro: OpaquePointer?
    @usableFromInline final let main: (CoroutineHost) -> Void
    @usableFromInline final let stateWord = Atomic<UInt8>(0)
    /// The resumer's `Element?` local the body writes a yielded value into.
    @usableFromInline @exclusivity(unchecked) final var outbox: UnsafeMutableRawPointer?
    /// The body's `ResumeSignal<Input>?` local the resumer writes the next signal into.
    @usableFromInline @exclusivity(unchecked) final var inbox: UnsafeMutableRawPointer?
    /// The resumer's `Outcome<Return>?` local the body writes its outcome into.
    @usableFromInline @exclusivity(unchecked) final var resultBox: UnsafeMutableRawPointer?
    /// Set while release closes the body: `yield` then throws the exit signal without reading
    /// a typed signal, so closing needs no type information.
    @usableFromInline @exclusivity(unchecked) final var closingOnRelease = false
    @usableFromInline @exclusivity(unchecked) final var erasedOutcome: ErasedOutcome?
    /// The seed API's handle sets this: on release, a suspended stack is dropped without
    /// unwinding (its `rj_yield` cannot throw the exit signal).
    @usableFromInline final var abandonOnRelease = false
    /// For an `rj_async` body: its task (unretained; the task owns this core), which
    /// `rj_await` finds through the running coroutine.
    final var asyncTask: Unmanaged<AnyObject>?

    @usableFromInline init(main: @escaping (CoroutineHost) -> Void) {
        self.main = main
    }

    @inlinable
    final var state: GeneratorState {
        switch stateWord.load(ordering: .acquiring) {
        case StateWord.created: return .created
        case StateWord.suspended: return .suspended
        case StateWord.running: return .running
        default: return .completed
        }
    }

    /// Called by the handles' deinit. Nobody else holds the generator, so it cannot be running.
    @usableFromInline
    final func closeOnRelease() {
        guard stateWord.load(ordering: .acquiring) == StateWord.suspended, let coro else { return }
        stateWord.store(StateWord.running, ordering: .relaxed)
        defer {
            rj_coro_destroy(coro)
            self.coro = nil
            stateWord.store(StateWord.completed, ordering: .releasing)
        }
        if abandonOnRelease { return }
        closingOnRelease = true
        outbox = nil
        resultBox = nil
        if rj_coro_resume(coro) == 0 {
            // The body caught the exit signal and yielded again. Python calls this a
            // RuntimeError; deinit cannot throw, so say it and drop the stack.
            rj_report("RJIterator: generator ignored close")
        } else if case .threw(let error)? = erasedOutcome {
            rj_report("RJIterator: generator body threw \(error) while being closed on release; the error is dropped")
        }
    }
}

/// The C entry point of every coroutine. `arg` is the unretained host: the stack must not
/// hold a strong reference, or a suspended generator could never be freed.
@usableFromInline
let coroutineEntry: rj_coro_entry = { arg in
    Unmanaged<CoroutineHost>.fromOpaque(arg!)._withUnsafeGuaranteedRef { $0.main($0) }
}

/// The part of a generator a body's `Yielder` needs: the typed side of the hand-off.
@usableFromInline
class YieldChannel<Element, Input>: CoroutineHost {
    @inlinable override init(main: @escaping (CoroutineHost) -> Void) {
        super.init(main: main)
    }

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
        // No outbox while closing on release: a body that yields then is abandoned anyway.
        // The slot holds nil: initialise over it rather than assign, which would destroy nil first.
        outbox?.assumingMemoryBound(to: Element?.self).initialize(to: value)
        var incoming: ResumeSignal<Input>? = nil
        withUnsafeMutablePointer(to: &incoming) { slot in
            inbox = UnsafeMutableRawPointer(slot)
            rj_coro_suspend(current)
        }
        if closingOnRelease { return .close }
        return incoming.take().unsafelyUnwrapped
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

    @inlinable
    init(stackSize: Int, tag: Int32, body: @escaping (Yielder<Element, Input>) throws -> Return) {
        self.body = body
        self.stackSize = stackSize
        self.tag = tag
        self.backend = rj_default_backend()
        super.init(main: { host in unsafeDowncast(host, to: GeneratorCore<Element, Input, Return>.self).runBody() })
    }

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

extension ErasedOutcome {
    @inlinable
    init<Return>(_ outcome: Outcome<Return>) {
        switch outcome {
        case .returned(let value): self = .returned(value)
        case .threw(let error): self = .threw(error)
        case .closed: self = .closed
        }
    }
}
