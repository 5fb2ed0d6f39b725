import CRJContext
import RJLocks

// The state machine's transitions for delegation, adoption, release and dumps
// (GeneratorStateMachine.swift has the operations and the invariants they keep).

extension GeneratorStateMachine {
    /// The resumer of this body's delegation chain drove its delegate to its end: the body's
    /// `yieldAll` reads that outcome when it resumes (`takeDelegateEnded`, once).
    @inlinable
    func delegateEnded() { with { $0.kept.delegateEnded = true } }

    /// The body runs adopted on another's stack (Adoption.swift), from now to its end.
    @inlinable @inline(__always)
    func adopted() { with { $0.kept.ranAdopted = true } }

    @inlinable @inline(__always)
    func takeDelegateEnded() -> Bool {
        with { h in
            defer { h.kept.delegateEnded = false }
            return h.kept.delegateEnded
        }
    }

    /// A delegate its owner held `running` and lets go of while it is still suspended (the
    /// owner's body left `yieldAll` early): whoever may resume it now can.
    @inlinable @inline(__always)
    func giveBackFromDelegator(hasCoroutine: Bool) {
        with { h in
            if hasCoroutine, h.stateWord.load(ordering: .relaxed) == .running { h.stateWord.store(.suspended, ordering: .releasing) }
        }
    }

    /// Release of the last reference: takes a suspended generator to close it, setting
    /// `closingOnRelease`; false when there is nothing to close. A plain load and store: nobody
    /// else can hold it (no reference is left, and it has left the registry: no dump holds it).
    @inlinable @inline(__always)
    func beginCloseOnRelease() -> Bool {
        with { h in
            guard h.stateWord.load(ordering: .acquiring) == .suspended else { return false }
            h.stateWord.store(.running, ordering: .relaxed)
            h.kept.closingOnRelease = true
            return true
        }
    }

    /// A `yield` of a body closed on release that also cancelled it (an async generator's): true
    /// for the first, refused so that the body unwinds; false for a later one (the body swallowed
    /// the refusal), which suspends: the release reports an ignored close, as for a `Generator`.
    @inlinable
    func refuseYieldOnRelease() -> Bool {
        with { h in
            if h.kept.yieldRefusedOnRelease { return false }
            h.kept.yieldRefusedOnRelease = true
            return true
        }
    }

    /// A dump holds a suspended generator while it reads its stack, with a resume's compare-exchange
    /// (which orders the body thread's writes before these reads); else returns what it found.
    func holdForDump() -> (held: Bool, seen: GeneratorState) {
        with { h in
            let (held, seen) = h.stateWord.compareExchange(expected: .suspended, desired: .running, ordering: .acquiringAndReleasing)
            return (held, seen)
        }
    }

    func letGoAfterDump() {
        with { h in
            h.stateWord.store(.suspended, ordering: .releasing)
        }
    }
}
