import CRJContext
import RJLocks

// The machinery under `Generator` (and so under `RJIterator`, `rj_async` and `AsyncGenerator`):
// the generator object owns the coroutine, carries values across each switch and holds the
// state machine. Its non-generic part is `_RJCoroutineHost`, the generator's superclass.
// Where each part lives: docs/swift-core.md ("Rooms").
//
// Who owns what
// - Whoever holds the `Generator` owns it; the coroutine's stack refers to it only unretained
//   (the `Yielder`, the entry point), so a suspended body never keeps its own generator
//   alive: releasing the last reference runs `Generator.deinit`, which closes the body and
//   gives its stack back.
// - The C coroutine records the generator as its owner (unretained), so `rj_yield` and
//   `rj_await` can find which generator is running on this thread; a layer built on a
//   generator (the seed API, `rj_async`) records itself in the generator's `client` slot.
// - Identity is the coroutine's id (`rj_coro_id`), never an address: a `Yielder` keeps the id
//   of its body's coroutine and checks it on every yield, so a yielder that escaped its body
//   is caught even when a new generator was allocated at its old generator's address.
//
// How values cross a switch
// - Nothing typed is stored in the objects. Every hand-off goes through locals of the
//   resumer's frame, which is blocked in its resume while the body runs: the body takes the
//   resume signal out of one (`inbox`), writes a yielded value into another (`outbox`) and its
//   outcome into a third (`completionBox`). Each pointer is valid exactly while that resume
//   lasts. The body reaches them through `rj_coro_in_resumer`: when the resumer is a
//   shared-stack generator, its frames may be copied out while the body runs, and the bytes
//   are then in its saved block (one load of a flag when no shared-stack generator exists).
//   The objects then hold no field of a generic type, so creating and destroying a generator
//   needs no generic type metadata at run time (a lookup in the runtime's cache, several times
//   the cost of the rest of a generator's life).
// - The outcome of a completed generator is kept type-erased (`ErasedCompletion`) for the calls
//   that report it again.
//
// Threads
// - The state word is the only thing two threads may touch at once (GeneratorStateMachine.swift).
//   All other fields are touched only by the thread that holds `running`, hence
//   `@exclusivity(unchecked)`: the dynamic check would cost more than the switch.

/// What releasing a suspended generator does with its body.
@usableFromInline
enum ReleasePolicy {
    /// Resume it with the exit signal so its cleanups run and its stack unwinds.
    case close
    /// Drop the stack without unwinding: for bodies that cannot receive the exit signal
    /// (their suspension point does not throw).
    case abandon
}

/// The non-generic part of every `Generator`: its coroutine, state machine and hand-off
/// pointers. An implementation detail, public only because `Generator` is public and derives
/// from it (Swift requires a public class's superclass to be public); it has no public members
/// but `state`, cannot be subclassed or made outside this module, and is hidden from the
/// documentation.
///
/// `main` is set by the typed subclass to a closure that captures nothing: in code
/// specialised for concrete types it is a plain function pointer, so starting a body costs
/// no allocation and no metadata lookup.
@_documentation(visibility: internal)
public class _RJCoroutineHost {
    // The fields are declared in an order that leaves no padding a later field could fill (a
    // class lays its fields out in declaration order): a suspended generator is mostly this
    // object, and a larger one moves to the allocator's next size.
    @usableFromInline @exclusivity(unchecked) final var coro: OpaquePointer?
    /// Runs the body; gets the generator's address. (No object reference is passed: an
    /// unoptimised build may keep a copy of one for the whole call, which lasts as long as the
    /// body, and the generator could then never be released.)
    @usableFromInline final let main: (UnsafeMutableRawPointer) -> Void
    /// Where the generator is in its life (`GeneratorState`): the word two threads may touch at
    /// once. Written only by the state machine (`machine`, GeneratorStateMachine.swift).
    @usableFromInline final let stateWord = RJAtomic<GeneratorState>(.created)
    /// `true` until the first acquire: that one tries `created` first (a compare-exchange that
    /// fails costs as much as one that succeeds, and every later one expects `suspended`).
    @usableFromInline final let mayBeFresh = RJAtomic<Bool>(true)
    /// What the holder of `running` keeps beside the word: the outcome, a pending return, the
    /// close flag. Written only by the state machine.
    @usableFromInline @exclusivity(unchecked) final var kept = KeptState()
    /// The resumer's `Element?` local the body writes a yielded value into.
    @usableFromInline @exclusivity(unchecked) final var outbox: UnsafeMutableRawPointer?
    /// The resumer's `ResumeSignal<Input>?` local the body takes its signal out of.
    @usableFromInline @exclusivity(unchecked) final var inbox: UnsafeMutableRawPointer?
    /// The resumer's `Completion<Return>?` local the body writes its outcome into.
    @usableFromInline @exclusivity(unchecked) final var completionBox: UnsafeMutableRawPointer?
    /// What a dump reads of this generator (Runtime/CoroutineRecord.swift).
    @usableFromInline @exclusivity(unchecked) final var record: CoroutineRecord
    /// What kind of object `client` is, in the terms of the layer that set it (0: none said);
    /// lets that layer find its object without a dynamic cast.
    @usableFromInline @exclusivity(unchecked) final var clientKind: UInt8 = 0
    @usableFromInline @exclusivity(unchecked) final var releasePolicy = ReleasePolicy.close
    /// The object built on this generator by a layer above (unretained: that object owns the
    /// generator), so that code running in the body can find it through the running
    /// coroutine. The generator itself never looks at it.
    /// Set once, before the body first runs (hence unchecked: read on every seed yield).
    @usableFromInline @exclusivity(unchecked) final var client: Unmanaged<AnyObject>?
    /// While the body is suspended in `yieldAll`: the generator it delegates to, which it
    /// owns (Generator+Delegation.swift). Unretained: the body's `yieldAll` frame holds it.
    @usableFromInline @exclusivity(unchecked) final var delegate: Unmanaged<_RJCoroutineHost>?
    /// The generator whose body delegates to this one (the reverse of `delegate`).
    @usableFromInline @exclusivity(unchecked) final var delegator: Unmanaged<_RJCoroutineHost>?
    /// The deepest generator of this one's chain of delegates, as the last resume left it;
    /// `nil` when it must be looked up again.
    @usableFromInline @exclusivity(unchecked) final var deepestDelegate: Unmanaged<_RJCoroutineHost>?
    /// While this generator's body runs adopted on the stack of the body that delegates to it
    /// (Adoption.swift): its level of adoption, an `Adoption` in that body's frame.
    @usableFromInline @exclusivity(unchecked) final var adoption: UnsafeMutablePointer<Adoption>?
    /// While a close goes through the adopted bodies on this generator's coroutine: the mark of
    /// the exits it left in their levels (`Adoption.exitMark`); 0 when none is valid. Cleared
    /// when the coroutine suspends after that close (`switchIntoBody`).
    @usableFromInline @exclusivity(unchecked) final var routedExitMark: UInt64 = 0
    /// The stack size asked for (0: the default; at most 2^46, `RJ_MAX_STACK`) in the low 48
    /// bits, the stack mode in the next 8, the backend in the top 8: fixed when the generator is
    /// made, not when it first runs. One word, not three fields: a suspended shared-stack
    /// generator is mostly this object. The overflow message reads its size (the owner layout:
    /// a `var` for its address; written only here, in the initialiser).
    @usableFromInline @exclusivity(unchecked) final var stackSettings: UInt

    @inlinable init(main: @escaping (UnsafeMutableRawPointer) -> Void, stackSettings: UInt, kind: DumpKind, file: StaticString,
                    line: UInt) {
        self.main = main
        self.stackSettings = stackSettings
        record = CoroutineRecord(kind: kind, file: file, line: line)
        record.register(object)
    }

    @inlinable final var stackSize: Int { Int(stackSettings & (1 << 48 - 1)) }
    @inlinable final var stackMode: rj_stack_mode { rj_stack_mode(rawValue: UInt32(truncatingIfNeeded: stackSettings >> 48) & 0xFF) }
    @inlinable final var backend: rj_backend { rj_backend(rawValue: UInt32(truncatingIfNeeded: stackSettings >> 56)) }

    /// The state machine (GeneratorStateMachine.swift): the one writer of `stateWord`,
    /// `mayBeFresh` and `kept`.
    @inlinable
    final var machine: GeneratorStateMachine {
        @inline(__always) get { GeneratorStateMachine(self) }
    }

    /// This generator's address, for the C core and the dump's hold.
    @inlinable
    final var object: UnsafeMutableRawPointer { Unmanaged.passUnretained(self).toOpaque() }

    /// Where the generator is in its life; see ``GeneratorState``. Safe to read from any thread.
    ///
    /// ```swift
    /// let g = Generator<Int, Void, Void> { y in try y.yield(1) }
    /// g.state   // .created
    /// ```
    @inlinable
    public final var state: GeneratorState {
        machine.state
    }

    /// Whether the layer above built `T` on this generator (see `client`).
    @inlinable
    final func hasClient<T: AnyObject>(ofType _: T.Type) -> Bool {
        guard let client else { return false }
        return client._withUnsafeGuaranteedRef { ObjectIdentifier(type(of: $0)) == ObjectIdentifier(T.self) }
    }

    /// The exit signal for a body being closed (see `GeneratorStateMachine.takeExitValue`); for
    /// a body running adopted, the one the close brings through its adopters (`routeExit`).
    @usableFromInline
    final func takeExit() -> GeneratorExit {
        GeneratorExit(pendingReturn: adoption == nil ? machine.takeExitValue() : routeExit())
    }

    /// The same, as the error a `yield` throws: a plain close throws the one box of the process
    /// (`GeneratorExit.boxedCloseCell`), allocating nothing. Out of line: a close is the cold
    /// path of every `yield`, and a `yield` grown past the inliner's limit is a call, whose return
    /// after the switch back the processor mispredicts every time (the inline switch exists to
    /// avoid exactly that; docs/lab/2026-12-02-performance-history.md has what it cost).
    @usableFromInline @inline(never)
    final func takeExitError() -> any Error {
        guard let value = adoption == nil ? machine.takeExitValue() : routeExit() else { return GeneratorExit.boxedCloseCell.pointee }
        return GeneratorExit(pendingReturn: value)
    }
}

/// The C entry point of every coroutine. `arg` is the unretained host: the stack must not
/// hold a strong reference, or a suspended generator could never be freed.
@usableFromInline
let coroutineEntry: rj_coro_entry = { arg in
    // `main` is called where it is stored, not copied out: a copy is a retain and a release of
    // its context (nil, but two calls into the runtime for every generator).
    Unmanaged<_RJCoroutineHost>.fromOpaque(arg!)._withUnsafeGuaranteedRef { $0.main(arg!) }
}
