import CRJContext
import Synchronization

// The machinery under `Generator` (and so under `RJIterator` and `rj_async`): the generator
// object owns the coroutine, carries values across each switch and keeps the state machine.
// Its non-generic part is `_RJCoroutineHost`, the generator's superclass.
//
// Who owns what
// - Whoever holds the `Generator` owns it; the coroutine's stack refers to it only unretained
//   (the `Yielder`, the entry point), so a suspended body never keeps its own generator
//   alive: releasing the last reference runs `Generator.deinit`, which closes the body and
//   gives its stack back.
// - The C coroutine records the generator as its owner (unretained), so `rj_yield`,
//   `rj_await` and the misuse checks can find which generator is running on this thread.
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

/// The non-generic part of every `Generator`: its coroutine, state word and hand-off
/// pointers. An implementation detail, public only because `Generator` is public and derives
/// from it; it has no public members and cannot be subclassed or made outside this module.
///
/// `main` is set by the typed subclass to a closure that captures nothing: in code
/// specialised for concrete types it is a plain function pointer, so starting a body costs
/// no allocation and no metadata lookup.
public class _RJCoroutineHost {
    @usableFromInline @exclusivity(unchecked) final var coro: OpaquePointer?
    /// Runs the body; gets the generator's address. (No object reference is passed: an
    /// unoptimised build may keep a copy of one for the whole call, which lasts as long as the
    /// body, and the generator could then never be released.)
    @usableFromInline final let main: (UnsafeMutableRawPointer) -> Void
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
    /// For an `rj_async` body: its task (unretained; the task owns this generator), which
    /// `rj_await` finds through the running coroutine.
    final var asyncTask: Unmanaged<AnyObject>?

    @usableFromInline init(main: @escaping (UnsafeMutableRawPointer) -> Void) {
        self.main = main
    }

    /// Where the generator is in its life; see ``GeneratorState``. Safe to read from any thread.
    ///
    /// ```swift
    /// let g = Generator<Int, Void, Void> { y in try y.yield(1) }
    /// g.state   // .created
    /// ```
    @inlinable
    public final var state: GeneratorState {
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
    let main = Unmanaged<_RJCoroutineHost>.fromOpaque(arg!)._withUnsafeGuaranteedRef { $0.main }
    main(arg!)
}

extension _RJCoroutineHost {
    /// Suspends the running body with `value`; returns how the body was resumed. Called on the
    /// body's own stack, by `Yielder`, `rj_yield` and `rj_await`.
    @inlinable @inline(__always)
    final func suspend<Element, Input>(yielding value: Element, resumedWith _: Input.Type) -> ResumeSignal<Input> {
        // Compare pointers before touching `self`: an escaped Yielder may outlive its generator.
        let me = Unmanaged.passUnretained(self).toOpaque()
        guard let current = rj_coro_current(), rj_coro_owner(current) == me else {
            fatalError(
                "RJIterator: yield called outside its generator's body. A Yielder is valid only "
                    + "inside the body it was passed to, while that body runs; do not store it or "
                    + "use it from another generator or thread")
        }
        // No outbox while closing on release: a body that yields then is abandoned anyway.
        // The slot holds nil: initialise over it rather than assign, which would destroy nil first.
        outbox?.assumingMemoryBound(to: Element?.self).initialize(to: value)
        var incoming: ResumeSignal<Input>? = nil
        // The closure stays alive while the body is suspended: it must not capture `self`
        // (an unoptimised build would retain it, and the generator could never be released).
        let host = Unmanaged.passUnretained(self)
        withUnsafeMutablePointer(to: &incoming) { slot in
            host._withUnsafeGuaranteedRef { $0.inbox = UnsafeMutableRawPointer(slot) }
            rj_coro_suspend(current)
        }
        if closingOnRelease { return .close }
        return incoming.take().unsafelyUnwrapped
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
