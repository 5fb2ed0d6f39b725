/// What the thread holding a generator's `running` keeps beside the state word: written only by
/// `GeneratorStateMachine`'s methods, by that thread (or before the word publishes it).
@usableFromInline
struct KeptState {
    /// How the body ended; `none` until then. (An `ErasedCompletion?` would be stored and
    /// destroyed through `Optional`'s generic value witnesses.)
    @usableFromInline var outcome = ErasedCompletion.none
    /// Which case `outcome` is, in a byte: tested in place, where a test of `outcome` itself
    /// copies the enum and destroys the copy (its payloads are existentials).
    @usableFromInline var outcomeKind = OutcomeKind.none
    /// Set while release closes the body: `yield` then throws the exit signal without reading a
    /// typed signal, so closing needs no type information.
    @usableFromInline var closingOnRelease = false
    /// Set when release refused a `yield` of a body it also cancelled (an async generator's):
    /// a second `yield` ignores the close (`refuseYieldOnRelease`).
    @usableFromInline var yieldRefusedOnRelease = false
    @usableFromInline var pending = Pending.none
    /// Set by the resumer of a delegation chain (Generator+Delegation.swift) when this body's
    /// delegate completed: its `yieldAll` reads the delegate's outcome, not the signal.
    @usableFromInline var delegateEnded = false

    @inlinable init() {}
}

/// What waits for a body at its next `yield`, in one word: the two never wait at once.
@usableFromInline
enum Pending {
    case none
    /// The value of a `return(_:)` on its way to the suspended body's `yield` (see `takeExitValue`):
    /// set by the resumer while the body is suspended, taken when it resumes.
    case returning(PendingReturn)
    /// An error a for-in in the running body could not throw: its next `yield`, or its end, throws
    /// it (Generator+Sequence.swift). Set and taken by the body while it runs: never across a suspension.
    case error(any Error)
}

/// The case of a kept `ErasedCompletion`, without its payload.
@usableFromInline
enum OutcomeKind: UInt8 {
    case none, returned, threw, closed
}
