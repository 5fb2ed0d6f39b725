import CRJContext
import RJLocks

// The machinery under `Generator` (and so under `RJIterator` and `rj_async`): the generator
// object owns the coroutine, carries values across each switch and keeps the state machine.
// Its non-generic part is `_RJCoroutineHost`, the generator's superclass.
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
//   Only the running body touches another frame, and only its resumer's, on the thread both
//   are on. The objects then hold no field of a generic type, so creating and destroying a
//   generator needs no generic type metadata at run time (a lookup in the runtime's cache,
//   several times the cost of the rest of a generator's life).
// - The outcome of a completed generator is kept type-erased (`ErasedCompletion`) for the calls
//   that report it again.
//
// Threads
// - The state word is the only thing two threads may touch at once. A resume moves it
//   `created`/`suspended` -> `running` with an acquiring compare-exchange and back with a
//   releasing store, so everything the body wrote is visible to the next resumer, whichever
//   thread it is on. All other fields are touched only by the thread that holds `running`,
//   hence `@exclusivity(unchecked)`: the dynamic check would cost more than the switch.

/// What `_RJCoroutineHost.acquire` found: `suspended` and `created` mean the caller now
/// holds `running`; `running` and `completed` that it does not.
@usableFromInline
enum Acquisition {
    case suspended, created, running, completed
}

/// What releasing a suspended generator does with its body.
@usableFromInline
enum ReleasePolicy {
    /// Resume it with the exit signal so its cleanups run and its stack unwinds.
    case close
    /// Drop the stack without unwinding: for bodies that cannot receive the exit signal
    /// (their suspension point does not throw).
    case abandon
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
    @usableFromInline final let stateWord = RJAtomic<GeneratorState>(.created)
    /// `true` until the first `acquire`: that one tries `created` first. A compare-exchange
    /// that fails costs as much as one that succeeds, and every later `acquire` expects
    /// `suspended`; the load of this hint is not
    /// in the way of that compare-exchange, whose expected value is a constant.
    @usableFromInline final let mayBeFresh = RJAtomic<Bool>(true)
    /// The resumer's `Element?` local the body writes a yielded value into.
    @usableFromInline @exclusivity(unchecked) final var outbox: UnsafeMutableRawPointer?
    /// The resumer's `ResumeSignal<Input>?` local the body takes its signal out of.
    @usableFromInline @exclusivity(unchecked) final var inbox: UnsafeMutableRawPointer?
    /// The resumer's `Completion<Return>?` local the body writes its outcome into.
    @usableFromInline @exclusivity(unchecked) final var completionBox: UnsafeMutableRawPointer?
    /// Set while release closes the body: `yield` then throws the exit signal without reading
    /// a typed signal, so closing needs no type information.
    @usableFromInline @exclusivity(unchecked) final var closingOnRelease = false
    // Declared here and below, where they fill what the alignment of the next field leaves
    // free (a class lays its fields out in declaration order): a suspended generator is
    // mostly this object, and a larger one moves to the allocator's next size.
    /// Where the generator was made (`#fileID`, `#line` of the public initialiser's caller),
    /// and what it is for a dump (`DumpKind`). Set before it is registered, never changed.
    @usableFromInline final let siteLine: UInt32
    @usableFromInline @exclusivity(unchecked) final var keptCompletion = ErasedCompletion.none
    /// The value of a `return(_:)` on its way to the body's `yield` (see `takeExit`).
    @usableFromInline @exclusivity(unchecked) final var pendingReturn: PendingReturn?
    /// The object built on this generator by a layer above (unretained: that object owns the
    /// generator), so that code running in the body can find it through the running
    /// coroutine. The generator itself never looks at it.
    /// Set once, before the body first runs (hence unchecked: read on every seed yield).
    @usableFromInline @exclusivity(unchecked) final var client: Unmanaged<AnyObject>?
    /// What kind of object `client` is, in the terms of the layer that set it (0: none said);
    /// lets that layer find its object without a dynamic cast.
    @usableFromInline @exclusivity(unchecked) final var clientKind: UInt8 = 0
    @usableFromInline @exclusivity(unchecked) final var releasePolicy = ReleasePolicy.close
    @usableFromInline final let dumpKind: UInt8
    /// This generator's slot in the registry of live generators that `RJRuntime.dump()`
    /// reads (Runtime/RJRuntime+Dump.swift); given back first thing in `deinit`.
    @usableFromInline @exclusivity(unchecked) final var registryHandle: UInt32 = .max
    /// While the body is suspended in `yieldAll`: the generator it delegates to, which it
    /// owns (Generator+Delegation.swift). Unretained: the body's `yieldAll` frame holds it.
    @usableFromInline @exclusivity(unchecked) final var delegate: Unmanaged<_RJCoroutineHost>?
    /// The generator whose body delegates to this one (the reverse of `delegate`).
    @usableFromInline @exclusivity(unchecked) final var delegator: Unmanaged<_RJCoroutineHost>?
    /// The deepest generator of this one's chain of delegates, as the last resume left it;
    /// `nil` when it must be looked up again.
    @usableFromInline @exclusivity(unchecked) final var deepestDelegate: Unmanaged<_RJCoroutineHost>?
    @usableFromInline final let siteFile: UnsafePointer<UInt8>?

    @inlinable init(main: @escaping (UnsafeMutableRawPointer) -> Void, kind: DumpKind, file: StaticString, line: UInt) {
        self.main = main
        self.siteLine = UInt32(truncatingIfNeeded: line)
        self.dumpKind = kind.rawValue
        self.siteFile = file.hasPointerRepresentation ? file.utf8Start : nil
        registryHandle = rj_registry_add(Unmanaged.passUnretained(self).toOpaque())
    }

    /// Leaves the registry: the first thing a generator's `deinit` does, so that a dump,
    /// which holds the registry while it reads, never reads a generator that is being closed.
    @inlinable
    final func unregister() {
        rj_registry_remove(registryHandle)
    }

    /// Where the generator is in its life; see ``GeneratorState``. Safe to read from any thread.
    ///
    /// ```swift
    /// let g = Generator<Int, Void, Void> { y in try y.yield(1) }
    /// g.state   // .created
    /// ```
    @inlinable
    public final var state: GeneratorState {
        let state = stateWord.load(ordering: .acquiring)
        // A dump reading a suspended generator holds it at `running` for a moment.
        if state == .running, rj_dump_holds_now(Unmanaged.passUnretained(self).toOpaque()) != 0 { return .suspended }
        return state
    }

    /// Called by the handles' deinit. Nobody else holds the generator, so it cannot be running.
    @usableFromInline
    final func closeOnRelease() {
        guard stateWord.load(ordering: .acquiring) == .suspended, let coro else { return }
        stateWord.store(.running, ordering: .relaxed)
        defer {
            rj_coro_destroy(coro)
            self.coro = nil
            stateWord.store(.completed, ordering: .releasing)
        }
        if releasePolicy == .abandon { return }
        closingOnRelease = true
        inbox = nil
        outbox = nil
        completionBox = nil
        if rj_coro_resume(coro) == 0 {
            // The body caught the exit signal and yielded again. Python calls this a
            // RuntimeError; deinit cannot throw, so say it and drop the stack.
            rj_report("RJIterator: generator ignored close")
        } else if case .threw(let error) = keptCompletion {
            rj_report("RJIterator: generator body threw \(error) while being closed on release; the error is dropped")
        }
    }
}

/// Stops the program: a body changed the floating-point control state and did not restore it
/// before it yielded or returned. Checked in debug builds.
@usableFromInline @inline(never)
func fpuStateChanged() -> Never {
    fatalError(
        "RJIterator: the generator body changed the floating-point control state (rounding mode or "
            + "exception masks, e.g. with fesetround) and yielded or returned without restoring it. "
            + "The state belongs to the thread, not to the generator: restore it before each yield")
}

/// Initialises `slot`, which holds a trivial value, with `value`.
@inlinable @inline(__always)
func initializeOver<T>(_ slot: UnsafeMutablePointer<T>, with value: consuming T) {
    slot.initialize(to: value)
}

/// The C entry point of every coroutine. `arg` is the unretained host: the stack must not
/// hold a strong reference, or a suspended generator could never be freed.
@usableFromInline
let coroutineEntry: rj_coro_entry = { arg in
    // `main` is called where it is stored, not copied out: a copy is a retain and a release of
    // its context (nil, but two calls into the runtime for every generator).
    Unmanaged<_RJCoroutineHost>.fromOpaque(arg!)._withUnsafeGuaranteedRef { $0.main(arg!) }
}

extension _RJCoroutineHost {
    /// The exit signal for a body being closed, carrying the value of the `return(_:)` that
    /// closes it, if any. Taken once: a later close (release) carries nothing stale.
    @usableFromInline
    final func takeExit() -> GeneratorExit {
        let exit = GeneratorExit(pendingReturn: pendingReturn)
        pendingReturn = nil
        return exit
    }

    /// Takes the state word for an operation: `running`, from `suspended` or `created` (which
    /// one is returned), or, when it cannot be taken, what the generator is. The one loop
    /// every operation starts with; the caller that took `running` gives it back.
    @inlinable @inline(__always)
    final func acquire() -> Acquisition {
        if mayBeFresh.load(ordering: .relaxed) {
            // Only an `acquire` moves a generator out of `created`: after the first, this is
            // false, and a thread that still reads true fails here and looks below.
            mayBeFresh.store(false, ordering: .relaxed)
            let (started, _) = stateWord.compareExchange(
                expected: .created, desired: .running, ordering: .acquiringAndReleasing)
            if started { return .created }
        }
        while true {
            let (took, seen) = stateWord.compareExchange(
                expected: .suspended, desired: .running, ordering: .acquiringAndReleasing)
            if took { return .suspended }
            switch seen {
            case .running:
                // A dump may hold it while it reads its stack (`RJRuntime.dump()`): then look
                // again once it has let go. One load, off the path of every resume that succeeds.
                if rj_dump_holds_now(Unmanaged.passUnretained(self).toOpaque()) != 0 {
                    waitForDump()
                    continue
                }
                // The dump let go between the exchange and that load: it stored `suspended`
                // first, so this load sees it.
                if stateWord.load(ordering: .acquiring) != .running { continue }
                return .running
            case .completed:
                return .completed
            case .created:
                let (started, _) = stateWord.compareExchange(
                    expected: .created, desired: .running, ordering: .acquiringAndReleasing)
                if started { return .created }
            case .suspended:
                break
            }
            // Another thread moved it meanwhile; look again.
        }
    }

    /// Lets the dump that holds this generator go on (it lets go once it has read the stack).
    @usableFromInline @inline(never)
    final func waitForDump() {
        _ = rj_dump_holds(Unmanaged.passUnretained(self).toOpaque())
    }

    /// Keeps how the body ended; called once, when it ends. The field still holds `.none`, a
    /// trivial value, so it is initialised over rather than assigned (an assignment goes
    /// through `ErasedCompletion`'s value witnesses).
    @inlinable @inline(__always)
    final func keepCompletion(_ outcome: consuming ErasedCompletion) {
        assert({ if case .none = keptCompletion { return true } else { return false } }())
        initializeOver(&keptCompletion, with: outcome)
    }

    /// The return value kept by `keepCompletion`, if the body returned.
    @inlinable
    final func keptReturn<Return>(as _: Return.Type) -> Return? {
        switch keptCompletion {
        case .returned(let value): return (value as! Return)
        case .returnedInline(let a, let b, let c): return withUnsafeBytes(of: (a, b, c)) { $0.load(as: Return.self) }
        case .none, .threw, .closed: return nil
        }
    }

    /// Whether the layer above built `T` on this generator (see `client`).
    @inlinable
    final func hasClient<T: AnyObject>(ofType _: T.Type) -> Bool {
        guard let client else { return false }
        return client._withUnsafeGuaranteedRef { ObjectIdentifier(type(of: $0)) == ObjectIdentifier(T.self) }
    }
}
