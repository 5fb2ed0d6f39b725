// What a generator keeps beside its state word (GeneratorStateMachine.swift is their one
// writer): the outcome, the close flag, and what waits for the body at its next `yield`.

/// What the thread holding a generator's `running` keeps beside the state word: written only by
/// `GeneratorStateMachine`'s methods, by that thread (or before the word publishes it).
@usableFromInline
struct KeptState {
    /// How the body ended; `none` until then. (An `ErasedCompletion?` would be stored and
    /// destroyed through `Optional`'s generic value witnesses.)
    @usableFromInline var outcome = ErasedCompletion.none
    /// Set while release closes the body: `yield` then throws the exit signal without reading a
    /// typed signal, so closing needs no type information.
    @usableFromInline var closingOnRelease = false
    /// Set when release refused a `yield` of a body it also cancelled (an async generator's):
    /// a second `yield` ignores the close (`refuseYieldOnRelease`).
    @usableFromInline var yieldRefusedOnRelease = false
    /// What waits for the body at its next `yield` (`Pending`).
    @usableFromInline var pending = Pending.none
    /// Set by the resumer of a chain of delegates (Generator+Delegation.swift) when the
    /// generator this body delegates to completed: the body's `yieldAll` reads its outcome
    /// instead of the signal it is resumed with.
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
    /// An error a for-in in the running body could not throw (the generator it iterates threw):
    /// the body's next `yield` throws it, or its end does (Generator+Sequence.swift). Set and
    /// taken by the body itself while it runs, so it never waits across a suspension.
    case error(any Error)
}
