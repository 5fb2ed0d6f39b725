import CRJContext
import RJLocks

// The machinery under `Generator` (and so under `RJIterator`, `rj_async`, `AsyncGenerator`):
// the object owns the coroutine, carries values across each switch, holds the state machine.
//
// - The coroutine's stack refers to the generator only unretained (the entry point; a
//   `Yielder` holds no reference at all), so a suspended body never keeps its own generator
//   alive: the last release runs `deinit`, which closes the body.
// - Identity is the coroutine's id (`rj_coro_id`), never an address, which a later generator
//   may reuse.
// - Nothing typed is stored in the objects: every hand-off goes through locals of the resumer's
//   frame (`inbox`, `outbox`, `completionBox`, valid while that resume lasts, reached through
//   `rj_coro_in_resumer` since a shared-stack resumer's frames may be copied out). So making and
//   freeing a generator needs no generic metadata lookup, which cost more than the rest of its life.
// - Only the state word is touched by two threads at once; every other field only by the
//   thread holding `running`, hence `@exclusivity(unchecked)` (the check costs more than a switch).

/// What releasing a suspended generator does with its body.
@usableFromInline
enum ReleasePolicy {
    /// Resume it with the exit signal so its cleanups run and its stack unwinds.
    case close
    /// Drop the stack without unwinding: for bodies that cannot receive the exit signal
    /// (their suspension point does not throw).
    case abandon
}

/// The non-generic part of every `Generator`: public only because `Generator` derives from it
/// (Swift requires it); no public member but `state`, hidden from the documentation.
@_documentation(visibility: internal)
public class _RJCoroutineHost {
    // Declared in an order that leaves no padding: a larger object moves to the allocator's
    // next size, and a suspended generator is mostly this object.
    @usableFromInline @exclusivity(unchecked) final var coro: OpaquePointer?
    /// Runs the body; gets the generator's address (a reference, which an unoptimised build
    /// may keep for the whole body, would keep the generator alive). Captures nothing.
    @usableFromInline final let main: (UnsafeMutableRawPointer) -> Void
    /// `GeneratorState`, the word two threads may touch at once; written only by `machine`.
    @usableFromInline final let stateWord = RJAtomic<GeneratorState>(.created)
    /// `true` until the first acquire, which tries `created` first (later ones expect `suspended`).
    @usableFromInline final let mayBeFresh = RJAtomic<Bool>(true)
    /// The outcome, a pending return, the close flag; written only by `machine`.
    @usableFromInline @exclusivity(unchecked) final var kept = KeptState()
    /// The resumer's `Element?` local the body writes a yielded value into.
    @usableFromInline @exclusivity(unchecked) final var outbox: UnsafeMutableRawPointer?
    /// The resumer's `ResumeSignal<Input>?` local the body takes its signal out of.
    @usableFromInline @exclusivity(unchecked) final var inbox: UnsafeMutableRawPointer?
    /// The resumer's `Completion<Return>?` local the body writes its outcome into.
    @usableFromInline @exclusivity(unchecked) final var completionBox: UnsafeMutableRawPointer?
    /// What a dump reads of this generator (Runtime/CoroutineRecord.swift).
    @usableFromInline @exclusivity(unchecked) final var record: CoroutineRecord
    /// What kind of object `client` is, for the layer that set it (no dynamic cast).
    @usableFromInline @exclusivity(unchecked) final var clientKind: UInt8 = 0
    @usableFromInline @exclusivity(unchecked) final var releasePolicy = ReleasePolicy.close
    /// The object a layer above built on this generator (unretained: it owns the generator),
    /// found by code in the body through the running coroutine. Set once, before the body runs.
    @usableFromInline @exclusivity(unchecked) final var client: Unmanaged<AnyObject>?
    /// While the body is suspended in `yieldAll`: its delegate (held by that frame).
    @usableFromInline @exclusivity(unchecked) final var delegate: Unmanaged<_RJCoroutineHost>?
    /// The generator whose body delegates to this one (the reverse of `delegate`).
    @usableFromInline @exclusivity(unchecked) final var delegator: Unmanaged<_RJCoroutineHost>?
    /// The deepest delegate of this one's chain as the last resume left it; `nil`: look it up.
    @usableFromInline @exclusivity(unchecked) final var deepestDelegate: Unmanaged<_RJCoroutineHost>?
    /// While this body runs adopted (Adoption.swift): its level, in the adopter's frame.
    @usableFromInline @exclusivity(unchecked) final var adoption: UnsafeMutablePointer<Adoption>?
    /// The mark of the exits a close left in the adopted bodies' levels (`Adoption.exitMark`);
    /// 0 when none is valid.
    @usableFromInline @exclusivity(unchecked) final var routedExitMark: UInt64 = 0
    /// The stack size asked for (0: the default) in the low 48 bits, the stack mode in the next
    /// 8, the backend in the top 8, fixed when made. The overflow message reads it (a `var` for
    /// its address; written only in the initialiser).
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

    /// The exit signal for a body being closed; for an adopted body, routed (`routeExit`).
    @usableFromInline
    final func takeExit() -> GeneratorExit {
        GeneratorExit(pendingReturn: adoption == nil ? machine.takeExitValue() : routeExit())
    }

    /// The same, as the error a `yield` throws (a plain close throws the process's one box,
    /// allocating nothing). Out of line: a `yield` grown past the inliner's limit becomes a call,
    /// whose return after the switch back is mispredicted every time.
    @usableFromInline @inline(never)
    final func takeExitError() -> any Error {
        guard let value = adoption == nil ? machine.takeExitValue() : routeExit() else { return GeneratorExit.boxedCloseCell.pointee }
        return GeneratorExit(pendingReturn: value)
    }
}

/// The C entry point of every coroutine; `arg` is the host, unretained.
@usableFromInline
let coroutineEntry: rj_coro_entry = { arg in
    // Called where it is stored: a copy would be a retain and a release of its (nil) context.
    Unmanaged<_RJCoroutineHost>.fromOpaque(arg!)._withUnsafeGuaranteedRef { $0.main(arg!) }
}
