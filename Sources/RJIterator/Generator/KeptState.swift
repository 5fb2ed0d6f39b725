/// What the thread holding a generator's `running` keeps beside the state word, written only by
/// `GeneratorStateMachine`. The two fields that can hold references are raw bytes, initialised
/// while their kind byte says so: the struct is trivial, so a release destroys nothing unless
/// `holdsReferences` (where enums would go through value witnesses on every release).
@usableFromInline
struct KeptState {
    /// How the body ended: the bytes of an `ErasedCompletion`, initialised once `outcomeKind` is
    /// not `none` (`keep`).
    @usableFromInline var outcomeBytes: ErasedCompletionBytes = (0, 0, 0, 0, 0)
    /// Which case the kept outcome is, in a byte: tested in place.
    @usableFromInline var outcomeKind = OutcomeKind.none
    /// Which case `pendingBytes` holds (`none`: nothing initialised there).
    @usableFromInline var pendingKind = PendingKind.none
    /// Set while release closes the body: `yield` then throws the exit signal without reading a
    /// typed signal, so closing needs no type information.
    @usableFromInline var closingOnRelease = false
    /// Set when release refused a `yield` of a body it also cancelled (an async generator's):
    /// a second `yield` ignores the close (`refuseYieldOnRelease`).
    @usableFromInline var yieldRefusedOnRelease = false
    /// Set by the resumer of a delegation chain (Generator+Delegation.swift) when this body's
    /// delegate completed: its `yieldAll` reads the delegate's outcome, not the signal.
    @usableFromInline var delegateEnded = false
    /// Set when the body ran adopted, on the stack of the body that delegated to it
    /// (Adoption.swift): what a dump and the tests read of a completed generator.
    @usableFromInline var ranAdopted = false
    /// What waits for the body at its next `yield`, as the bytes of one reference (a
    /// `PendingReturn` or an `any Error`, as `pendingKind` says): the two never wait at once.
    @usableFromInline var pendingBytes: UInt64 = 0

    @inlinable init() {}

    /// Whether releasing the generator has something to destroy here.
    @inlinable
    var holdsReferences: Bool { outcomeKind.holdsReference || pendingKind != .none }
}

/// Raw room for an `ErasedCompletion` (33 bytes on 64-bit platforms: an `Any` and a tag).
@usableFromInline
typealias ErasedCompletionBytes = (UInt64, UInt64, UInt64, UInt64, UInt8)

/// What waits for a body at its next `yield` (`KeptState.pendingKind`).
@usableFromInline
enum PendingKind: UInt8 {
    case none
    /// The value of a `return(_:)` on its way to the suspended body's `yield` (see `takeExitValue`):
    /// set by the resumer while the body is suspended, taken when it resumes. A `PendingReturn`.
    case returning
    /// An error a for-in in the running body could not throw: its next `yield`, or its end, throws
    /// it (Generator+Sequence.swift). Set and taken by the body while it runs: never across a
    /// suspension. An `any Error`.
    case error
}

/// The case of a kept `ErasedCompletion`, without its payload.
@usableFromInline
enum OutcomeKind: UInt8 {
    case none = 0, returned = 1, returnedInline = 2, threw = 3, closed = 4

    /// Whether an outcome of this case holds a reference (what a generator's release destroys):
    /// a `returnedInline` or `closed` one is bytes only. The cases that do are the odd ones: one
    /// bit, tested inline in every release.
    @inlinable @inline(__always)
    var holdsReference: Bool { rawValue & 1 != 0 }
}

// MARK: Reading what is kept (any thread that took `running`, or read `completed`)

extension GeneratorStateMachine {
    /// The kept outcome, copied (`none` until the body ended).
    @inlinable
    var outcome: ErasedCompletion {
        with { h in
            if h.kept.outcomeKind == .none { return .none }
            return loadBytes(&h.kept.outcomeBytes, as: ErasedCompletion.self)
        }
    }

    @inlinable
    var closingOnRelease: Bool { with { $0.kept.closingOnRelease } }

    /// Whether the body ran (or runs) adopted on the stack of the body that delegated to it.
    @inlinable
    var ranAdopted: Bool { with { $0.kept.ranAdopted } }

    @inlinable
    func keptReturn<Return>(as _: Return.Type) -> Return? {
        with { h in
            guard h.kept.outcomeKind == .returned || h.kept.outcomeKind == .returnedInline else { return nil }
            switch loadBytes(&h.kept.outcomeBytes, as: ErasedCompletion.self) {
            case .returned(let value): return (value as! Return)
            case .returnedInline(let a, let b, let c): return withUnsafeBytes(of: (a, b, c)) { $0.load(as: Return.self) }
            case .none, .threw, .closed: return nil
            }
        }
    }

    /// Whether the generator completed by being closed (not by a body that threw
    /// `GeneratorError.closed` itself).
    @inlinable
    var endedByClose: Bool {
        with { $0.kept.outcomeKind == .closed }
    }

    /// Whether the body ended by throwing.
    @inlinable
    var endedByError: Bool {
        with { $0.kept.outcomeKind == .threw }
    }
}

// MARK: The raw bytes (written only by GeneratorStateMachine.swift)

/// Initialises the raw bytes at `slot` (a field of trivial words) as a `T`.
@inlinable @inline(__always)
func initializeBytes<Bytes, T>(_ slot: UnsafeMutablePointer<Bytes>, as _: T.Type, with value: consuming T) {
    // Bound, then initialised with the value moved in (`initializeMemory(as:to:)` borrows it: a copy).
    UnsafeMutableRawPointer(slot).bindMemory(to: T.self, capacity: 1).initialize(to: value)
}

/// A copy of the `T` that `initializeBytes` put at `slot`.
@inlinable @inline(__always)
func loadBytes<Bytes, T>(_ slot: UnsafeMutablePointer<Bytes>, as _: T.Type) -> T {
    UnsafeMutableRawPointer(slot).assumingMemoryBound(to: T.self).pointee
}

/// Moves the `T` that `initializeBytes` put at `slot` out, leaving the bytes uninitialised.
@inlinable @inline(__always)
func moveBytes<Bytes, T>(_ slot: UnsafeMutablePointer<Bytes>, as _: T.Type) -> T {
    UnsafeMutableRawPointer(slot).assumingMemoryBound(to: T.self).move()
}
